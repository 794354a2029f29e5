#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm.sh LANE MODE CPU: boots the LANE test kernel on `qemu-system-aarch64 -M virt -cpu CPU`
# with an initramfs holding busybox, this repository's modules (built for LANE) and the
# guest scenario tests/vm/MODE.sh. Prints one line per test result and appends
# "<pass> <fail>" to $SM4RS_COUNTS if set. Exit status: 0 if everything passed.
source "$(dirname "$0")/lib.sh"

lane=${1:?usage: vm.sh LANE MODE CPU} mode=${2:?} cpu=${3:?}
kdir=$(lane_build_dir "$lane")
[ -n "$kdir" ] && [ -f "$kdir/.sm4rs-done" ] || die "lane $lane has no built kernel (scripts/kernel.sh $lane)"
timeout_s=${SM4RS_VM_TIMEOUT:-300}

# --- modules and initramfs -------------------------------------------------------------
# The modules come built and checked from scripts/stage-modules.sh (as `make KDIR=` builds
# them for users).
tag="[$lane $cpu]"
# (make mutants stages each mutant's modules elsewhere: SM4RS_STAGE.)
stage=${SM4RS_STAGE:-$CACHE/vm/$lane-modules}
# (LANE-intree-y has none: everything is built in.)
case $lane in
*-intree-y) mkdir -p "$stage" ;;
*) [ -f "$stage/sm4-generic.ko" ] || die "no modules staged for $lane (scripts/stage-modules.sh $lane)" ;;
esac
work="$CACHE/vm/$lane-$mode-$cpu"
rm -rf "$work" && mkdir -p "$work/root"/{bin,sbin,proc,sys,dev,tmp,tests,lib/modules/sm4rs,lib/modules/kernel}
userspace=$("$REPO/scripts/userspace.sh")
cp -a "$userspace/." "$work/root/"
cp "$("$REPO/scripts/tools.sh")"/* "$work/root/bin/"
install -m 755 "$REPO/tests/vm/init" "$work/root/init"
cp "$REPO"/tests/vm/*.sh "$work/root/tests/"
cp -r "$REPO/tests/vm/lib" "$work/root/tests/"
# (test-upstream: none of this project's modules, only the kernel's.)
[ "$mode" = test-upstream ] || cp "$stage"/. -r "$work/root/lib/modules/sm4rs/"
# The kernel's modules: those of its modules.order (a build directory may hold stale ones).
sed 's/\.o$/.ko/' "$kdir/modules.order" | while read -r m; do
	cp "$kdir/$m" "$work/root/lib/modules/kernel/"
done
(cd "$work/root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initramfs.cpio.gz"
# A 16 MiB scratch disk (/dev/vda) for the dm-crypt tests; the disks named in $SM4RS_DISKS
# (shared between boots by scripts/test.sh) come before it: /dev/vdb, /dev/vdc, ...
truncate -s 16M "$work/disk.img"
disks_rev=()
for d in ${SM4RS_DISKS:-}; do disks_rev=("$d" ${disks_rev[@]+"${disks_rev[@]}"}); done

# --- boot ------------------------------------------------------------------------------
log="$work/console.log"
qemu_vm_args "$cpu" "$kdir/arch/arm64/boot/Image" "$work/initramfs.cpio.gz" \
	"console=ttyAMA0 rdinit=/init panic=-1 printk.time=1 sm4rs.mode=$mode ${SM4RS_APPEND:-}" \
	${disks_rev[@]+"${disks_rev[@]}"} "$work/disk.img"
set +e
# shellcheck disable=SC2086
timeout --foreground "$timeout_s" "$QEMU" "${QEMU_ARGS[@]}" ${SM4RS_QEMU_EXTRA:-} \
	-display none -monitor none -serial stdio </dev/null >"$log" 2>&1
qemu_rc=$?
set -e
# A message that the console printed cut short is printed again whole after this marker
# (printk, seen on 7.3): the cut copy goes, or it would count as a result of its own.
tr -d '\r' <"$log" | awk '
	/^\*\* replaying previous printk message \*\*$/ { held = 0; next }
	held { print prev }
	{ prev = $0; held = 1 }
	END { if (held) print prev }' >"$log.txt"

# --- results ---------------------------------------------------------------------------
awk -v tag="$tag" -v qemu_rc="$qemu_rc" -v counts="${SM4RS_COUNTS:-/dev/null}" '
	# Whether the WARNING line is raised in one of the functions of sites ("f|g").
	function at_site(line, sites,   n, f, i) {
		n = split(sites, f, "|")
		for (i = 1; i <= n; i++) if (index(line, " " f[i] "+0x")) return 1
		return 0
	}
	function result(ok, name, why) {
		if (ok) { npass++; printf "PASS %s %s\n", tag, name }
		else { nfail++; printf "FAIL %s %s%s\n", tag, name, (why != "" ? " (" why ")" : "") }
	}
	# Kernel timestamps (printk.time=1) are not part of the messages; the last one and the
	# last line of the scenario say where a guest that did not finish was.
	match($0, /^\[ *[0-9]+\.[0-9]+\] /) { stamp = substr($0, 2, RLENGTH - 3); sub(/^ */, "", stamp) }
	{ sub(/^\[ *[0-9]+\.[0-9]+\] /, "") }
	/^SM4RS-/ { last = substr($0, 1, 120) }
	NR == 1 { first = $0 }
	/Linux version [0-9]/ { booted = 1 }
	/SM4RS-BEGIN/ { begun = 1 }
	/SM4RS-END/ { ended = 1 }
	/^SM4RS-RESULT / {
		name = $3; why = ""
		rest = substr($0, index($0, " " name) + length(name) + 1)
		if (rest ~ /^ \(.*\)$/) why = substr(rest, 3, length(rest) - 3)
		result($2 == "PASS", name, why)
		# A name reported twice would hide one of its results.
		if (name in reported) result(0, name ".unique", "two results of this name")
		reported[name] = 1
		if ($2 == "PASS" && name ~ /^load\./) loaded[substr(name, 6)] = 1
		if ($2 == "PASS" && name ~ /^builtin\./) loaded[substr(name, 9)] = 1
	}
	# KTAP from KUnit: "# Subtest: <suite>" then indented "ok|not ok N <case>".
	# Only the suites of this project (sm4*) count, not those built into the kernel.
	/^ *# Subtest: / { suite = ($NF ~ /^sm4/) ? $NF : ""; if (suite != "") suites[suite] = 1; next }
	/^    (not )?ok [0-9]+ / && suite != "" {
		ok = ($1 == "ok"); n = ok ? $3 : $4
		if ($0 ~ /# SKIP/) { printf "SKIP %s kunit.%s.%s\n", tag, suite, n; nskip++; next }
		result(ok, "kunit." suite "." n, ok ? "" : "KUnit reported failure")
		if (ok) ran[suite]++
		next
	}
	/# .*check failed at |    # left: |    # right: / { print "     " $0 }
	# Kernel warnings that a test provokes on purpose are announced by the test with the
	# function that warns (or functions: "f|g") and how many times at most
	# ("SM4RS-EXPECT-WARN-BEGIN <max> <function> <why>"): those are counted apart (their "cut here"/"end trace" lines too);
	# any other warning between the markers, or one too many, fails like any other.
	/SM4RS-EXPECT-WARN-BEGIN/ {
		i = index($0, "SM4RS-EXPECT-WARN-BEGIN ")
		split(substr($0, i + 24), w, " ")
		expecting = 1; expect_max = w[1] + 0; expect_site = w[2]; expect_seen = 0
		next
	}
	/SM4RS-EXPECT-WARN-END/ { expecting = 0; next }
	# ("cut here" comes first: the WARNING line after it decides.)
	expecting && /cut here/ { next }
	expecting && /WARNING:/ && expect_seen < expect_max && at_site($0, expect_site) {
		expect_seen++; nexpected++; in_expected = 1; next
	}
	/WARNING:/ { in_expected = 0 }
	expecting && in_expected && /end trace/ { in_expected = 0; next }
	# Anything the kernel reports as broken fails the run.
	/Oops|BUG:|WARNING:|Kernel panic|KASAN|UBSAN|possible circular locking|Unable to handle kernel|cut here|scheduling while atomic|rcu_sched self-detected stall|rcu: INFO|CFI failure|kmemleak: [0-9]+ new suspected/ {
		if (nbad < 20) bad[++nbad] = $0
	}
	END {
		# The suites of each module: if sm4_kunit was loaded (or built in), each of the
		# suites of every module loaded must have run cases, not only skipped them. A suite
		# of this project that is not in this table fails: none goes unchecked.
		suites_of["sm4_generic"] = "sm4_generic"
		suites_of["sm4_ce"] = "sm4_ce sm4_ce_cipher sm4_ce_mac"
		suites_of["sm4_neon"] = "sm4_neon sm4_neon_variants"
		suites_of["sm4_kunit"] = "sm4_abstraction"
		suites_of["sm4_ce_gcm"] = "sm4_ce_gcm"
		suites_of["sm4_ce_ccm"] = "sm4_ce_ccm"
		for (m in suites_of) { n = split(suites_of[m], l, " "); for (i = 1; i <= n; i++) known[l[i]] = 1 }
		for (s in suites)
			if (!(s in known)) result(0, "kunit." s ".known", "a suite the runner does not check")
		for (m in loaded) {
			if (!("sm4_kunit" in loaded)) break
			s = m; gsub(/-/, "_", s)
			if (!(s in suites_of)) continue
			n = split(suites_of[s], l, " ")
			for (i = 1; i <= n; i++)
				result(ran[l[i]] > 0, "kunit." l[i] ".ran", ran[l[i]] > 0 ? "" : "no case of this suite ran")
		}
		result(begun && ended, "vm.completed",
			begun ? (ended ? "" : "guest did not finish (qemu exit " qemu_rc (qemu_rc == 124 ? ", timeout" : "") \
			"; last kernel time " stamp " s; last line: " last ")") : "guest never started")
		# A log that was never written is not a clean log.
		if (!booted) {
			result(0, "kernel.log-clean", "no kernel log: the kernel never booted" (first != "" ? "; qemu said: " first : ""))
		} else
			result(nbad == 0, "kernel.log-clean", nbad ? bad[1] : "")
		for (i = 2; i <= nbad; i++) print "     " bad[i]
		if (nexpected) printf "     (%d kernel warnings provoked on purpose by tests, at the functions they named)\n", nexpected
		printf "%d %d\n", npass, nfail >> counts
		exit nfail != 0
	}' "$log.txt"
