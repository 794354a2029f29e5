# SPDX-License-Identifier: GPL-2.0
# jobs.sh: the scheduler of scripts/test.sh (sourced after lib.sh). Jobs
# declare what they need; each starts as soon as that has ended and the machine has room for
# it, so that a kernel build and the test VMs of a kernel already built share the cores. The
# output of a job is printed whole when it ends (lines of jobs running at once never mix),
# and phase_table prints what ran, when and for how long.
#
#   job NAME WEIGHT DEPS COMMAND [ARG...]
#       WEIGHT: the cores the job keeps busy (a kernel build with -j$(nproc): $(nproc); a VM:
#       1). DEPS (one word, comma-separated): jobs that must have succeeded ("kernel-6.12"),
#       or only ended ("~vm-6.12-generic"). A job whose needed job failed is skipped: it
#       prints its skip text (set with on_skip), if any, and counts as failed; one whose
#       needed job could not run at all (exit 3: a lane without its kernel source) is
#       skipped quietly, and exits 3 too.
#   on_skip NAME TEXT   what NAME prints when skipped (a FAIL line, counted as a failure).
#   run_jobs            runs every job declared, at most JOBS_CAPACITY weight at once
#                       (default: the number of CPUs plus one, so that the gaps of one
#                       job, a link or a VM waiting, are taken by another); a ready job
#                       that does not fit holds its room against the jobs declared after it.
#   phase_table         the jobs' times: start, end, duration and processor seconds, in the
#                       order they ended.
#
# A job's output goes to $JOBS_DIR/NAME.log; $JOBS_DIR/NAME.note, if the job writes one (its
# path is in $SM4RS_JOB_NOTE while it runs), is shown in the table (e.g. a VM's slowest tests).
# A job counts its results ("<pass> <fail>" lines) in a file of its own, $SM4RS_COUNTS while
# it runs, added to the caller's $SM4RS_COUNTS when it ends. A job that exits with a status
# other than 0 or 3 and counted no failure counts one, "FAIL [job NAME]": a check that died
# before it could report is never silent.
# Each job runs in a process group of its own, which jobs_stop ends (the script's EXIT trap
# calls it: an interrupted run leaves no kernel build or VM behind).

JOBS_DIR=${JOBS_DIR:-$(mktemp -d)}
JOBS_CAPACITY=${JOBS_CAPACITY:-$(($(nproc) + 1))}
JOBS_T0=${JOBS_T0:-$(date +%s)}
declare -a JOB_ORDER=() JOB_ENDED=()
declare -A JOB_WEIGHT=() JOB_DEPS=() JOB_CMD=() JOB_STATE=() JOB_RC=() JOB_PID=() JOB_START=()
declare -A JOB_END=() JOB_SKIP=()

job() {
	local name=$1 weight=$2 deps=$3 arg cmd=
	shift 3
	for arg in "$@"; do cmd+="$(printf '%q ' "$arg")"; done
	JOB_ORDER+=("$name")
	JOB_WEIGHT[$name]=$weight
	JOB_DEPS[$name]=${deps//,/ }
	JOB_CMD[$name]=$cmd
	JOB_STATE[$name]=pending
}

on_skip() { JOB_SKIP[$1]=$2; }

# Whether job $1 can start (prints "run"), must be skipped ("skip" or "quiet"), or waits.
job_ready() {
	local d name state
	for d in ${JOB_DEPS[$1]}; do
		name=${d#\~}
		state=${JOB_STATE[$name]:-}
		[ -n "$state" ] || die "job $1 depends on an unknown job $name"
		case $state in pending | running) return 0 ;; esac
		[ "$d" != "$name" ] && continue
		case $state in
		quiet) echo quiet && return 0 ;;
		failed | skipped) echo skip && return 0 ;;
		esac
	done
	echo run
}

job_finish() {
	local name=$1 rc=$2
	JOB_RC[$name]=$rc
	JOB_END[$name]=$(date +%s)
	JOB_ENDED+=("$name")
	case $rc in
	0) JOB_STATE[$name]=done ;;
	3) JOB_STATE[$name]=quiet ;;
	*) JOB_STATE[$name]=failed ;;
	esac
	cat "$JOBS_DIR/$name.log"
	# (Only a job that ran has a file of counts: a skipped one's failure is its dependency's.)
	local own=$JOBS_DIR/$name.counts
	[ -f "$own" ] || return 0
	case $rc in 0 | 3) ;; *)
		if ! awk '$2 > 0 { f = 1 } END { exit !f }' "$own"; then
			echo "FAIL [job $name] (exit $rc, with no failure reported)"
			echo "0 1" >>"$own"
		fi
		;;
	esac
	cat "$own" >>"${SM4RS_COUNTS:-/dev/null}"
}

# Ends the process groups of the jobs still running.
jobs_stop() {
	local pid
	for pid in "${!JOB_PID[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || :; done
}

run_jobs() {
	local used=0 held name verdict pid progress n rc
	# (Job control: each background job gets a process group of its own.)
	set -m
	# (The caller's EXIT trap calls jobs_stop too: see scripts/test.sh.)
	trap 'jobs_stop; exit 130' INT TERM
	while :; do
		progress=0 held=0
		for name in "${JOB_ORDER[@]}"; do
			[ "${JOB_STATE[$name]}" = pending ] || continue
			verdict=$(job_ready "$name")
			case $verdict in
			skip)
				JOB_START[$name]=$(date +%s)
				if [ -n "${JOB_SKIP[$name]:-}" ]; then
					echo "${JOB_SKIP[$name]}" >"$JOBS_DIR/$name.log"
					echo "0 1" >>"${SM4RS_COUNTS:-/dev/null}"
				else
					: >"$JOBS_DIR/$name.log"
				fi
				job_finish "$name" 1
				JOB_STATE[$name]=skipped
				progress=1
				;;
			quiet)
				JOB_START[$name]=$(date +%s)
				: >"$JOBS_DIR/$name.log"
				job_finish "$name" 3
				progress=1
				;;
			run)
				# (A job heavier than the whole capacity runs alone.)
				if [ $((used + JOB_WEIGHT[$name])) -gt "$JOBS_CAPACITY" ] && [ "$used" -gt 0 ]; then
					# The first job that does not fit keeps its room: the jobs declared
					# after it start only beside it, or a kernel build waiting for two
					# cores would wait for ever behind VMs that each take the one freed.
					[ "$held" -gt 0 ] || held=${JOB_WEIGHT[$name]}
					continue
				fi
				[ $((used + JOB_WEIGHT[$name] + held)) -le "$JOBS_CAPACITY" ] || continue
				JOB_START[$name]=$(date +%s)
				: >"$JOBS_DIR/$name.counts"
				(
					export SM4RS_JOB_NOTE="$JOBS_DIR/$name.note"
					export SM4RS_COUNTS="$JOBS_DIR/$name.counts"
					eval "${JOB_CMD[$name]}" && rc=0 || rc=$?
					# (The processor time of the job and everything it waited for.)
					times >"$JOBS_DIR/$name.times"
					exit $rc
				) >"$JOBS_DIR/$name.log" 2>&1 </dev/null &
				JOB_PID[$!]=$name
				JOB_STATE[$name]=running
				used=$((used + JOB_WEIGHT[$name]))
				progress=1
				;;
			esac
		done
		[ $progress = 1 ] && continue
		n=0
		for name in "${JOB_ORDER[@]}"; do [ "${JOB_STATE[$name]}" != running ] || n=$((n + 1)); done
		[ $n -gt 0 ] || break
		pid=
		wait -n -p pid && rc=0 || rc=$?
		[ -n "$pid" ] && [ -n "${JOB_PID[$pid]:-}" ] || continue
		name=${JOB_PID[$pid]}
		unset "JOB_PID[$pid]"
		job_finish "$name" "$rc"
		used=$((used - JOB_WEIGHT[$name]))
	done
	set +m
	for name in "${JOB_ORDER[@]}"; do
		[ "${JOB_STATE[$name]}" = pending ] && die "job $name never became ready (a dependency cycle?)"
	done
	return 0
}

# cpu_secs FILE: the user + system seconds of the children in the output of `times` (its
# second line: "0m1.500s 0m0.250s").
cpu_secs() {
	[ -s "$1" ] || { echo 0; return; }
	awk 'END { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%d", t + 0.5 }' "$1"
}

phase_table() {
	local name note cpu total_cpu=0
	printf '\n%-28s %6s %6s %6s %6s  %s\n' phase start end secs cpu "result (and what took longest)"
	for name in "${JOB_ENDED[@]}"; do
		note=
		[ -f "$JOBS_DIR/$name.note" ] && note=$(head -c 300 "$JOBS_DIR/$name.note")
		case ${JOB_STATE[$name]} in
		done) note="ok${note:+; $note}" ;;
		quiet) note="not run${note:+; $note}" ;;
		skipped) note="skipped" ;;
		*) note="exit ${JOB_RC[$name]}${note:+; $note}" ;;
		esac
		cpu=$(cpu_secs "$JOBS_DIR/$name.times")
		total_cpu=$((total_cpu + cpu))
		printf '%-28s %6d %6d %6d %6d  %s\n' "$name" $((JOB_START[$name] - JOBS_T0)) \
			$((JOB_END[$name] - JOBS_T0)) $((JOB_END[$name] - JOB_START[$name])) "$cpu" "$note"
	done
	printf '%-28s %6s %6d %6d %6d  %s\n' total "" $(($(date +%s) - JOBS_T0)) $(($(date +%s) - JOBS_T0)) \
		"$total_cpu" "(cpu: processor seconds, user + system, of each job)"
}
