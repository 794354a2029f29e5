# SPDX-License-Identifier: GPL-2.0
# --- load, unloading, faults, bad input -------------------------------------------------
# The duration of the timed parts: sm4rs.secs=N on the kernel command line (make test-long
# gives longer runs), default 8 s.
load_secs() {
	local s
	s=$(sed -n 's/.*sm4rs\.secs=\([0-9]*\).*/\1/p' /proc/cmdline)
	echo "${s:-8}"
}

# The start of a load scenario: AF_ALG open to SM4 (Linux 7.3 restricts it by default),
# dm-crypt without udev; prints the length of the timed parts.
load_start() {
	echo "SM4RS-INFO $(grep -c ^processor /proc/cpuinfo) CPUs, $(load_secs) s per timed part" >&2
	[ -w /proc/sys/crypto/af_alg_restrict ] && echo 0 >/proc/sys/crypto/af_alg_restrict
	load_secs
}
export DM_DISABLE_UDEV=1

# The time at which each phase of a load scenario begins, in the log.
phase() { echo "SM4RS-INFO phase $1 at $(cut -d' ' -f1 /proc/uptime) s"; }

# settle_selftests DRIVER...: waits (up to 60 s each) for testmgr's self-tests of DRIVERs to
# end. testmgr tests each driver registered in the background, against the kernel's
# templates over sm4-generic, whose instances it makes and tests too; with sm4-ce's and
# sm4-neon's tests all at once on a 4-CPU guest of a 2-core host, making one instance
# once outlasted the crypto API's 60-second wait (ETIMEDOUT, then every mode's self-test
# failed; 6.12 CI of 6176670). One module's tests end before the next module comes.
settle_selftests() {
	local d
	for d in "$@"; do wait_selftest "$d" 600 || :; done
}

# stress_start N SECS TAG: N AF_ALG users (afalg stress: random modes, keys, IVs and
# lengths by algorithm name, each checked against the kernel's templates over the oracle
# (sm4_kunit must be loaded) and decrypted back), for SECS seconds; stress_check TAG waits
# for them and checks.
stress_start() {
	local i n
	for i in $(seq 1 "$1"); do
		afalg stress "$2" "$(date +%s)$i" "$MODES_LIST" >/tmp/stress.$3.$i 2>&1 &
	done
	# Until each user has bound its references (at most 30 s).
	for i in $(seq 1 "$1"); do
		n=0
		while ! grep -q '^held ' /tmp/stress.$3.$i && [ $n -lt 300 ]; do
			n=$((n + 1))
			sleep 0.1
		done
	done
}
stress_check() {
	local tag=$1 f ok=1 why= total=0 n
	wait
	for f in /tmp/stress.$tag.*; do
		if ! grep -q '^stress [0-9]* ok 0 bad 0 errors$' "$f"; then
			ok=0 why="$why $(grep -v '^held ' "$f" | head -n 3 | tr '\n' ' ')"
		fi
		n=$(sed -n 's/^stress \([0-9]*\) ok.*/\1/p' "$f")
		total=$((total + ${n:-0}))
	done
	echo "SM4RS-INFO $tag: $total AF_ALG requests checked"
	if [ $ok = 1 ] && [ $total -gt 0 ]; then pass "$tag.af_alg-users"; else fail "$tag.af_alg-users" "$why"; fi
}

# dm_worker SECS DEV TAG: writes and reads back patterns through a dm-crypt mapping of
# xts(sm4) on DEV until SECS have passed; the result goes to /tmp/dmw.TAG.
dm_worker() {
	local end=$(($(date +%s) + $1)) dev=$2 tag=$3 n=0 bad=0 sectors
	sectors=$(blockdev --getsz "$dev")
	if ! dmsetup create --noudevsync sm4w --table "0 $sectors crypt capi:xts(sm4)-plain64 $XTS_KEY 0 $dev 0"; then
		echo "bad dmsetup create" >/tmp/dmw.$tag
		return
	fi
	# At least one round, however slow the machine.
	while [ $n -eq 0 ] || [ "$(date +%s)" -lt $end ]; do
		head -c 262144 /dev/urandom >/tmp/dmw.pat
		dd if=/tmp/dmw.pat of=/dev/mapper/sm4w bs=4096 seek=$((n % 16 * 64)) conv=fsync 2>/dev/null
		echo 1 >/proc/sys/vm/drop_caches
		dd if=/dev/mapper/sm4w of=/tmp/dmw.back bs=4096 skip=$((n % 16 * 64)) count=64 2>/dev/null
		cmp -s /tmp/dmw.pat /tmp/dmw.back || bad=$((bad + 1))
		n=$((n + 1))
	done
	dmsetup remove --noudevsync sm4w
	echo "done $n bad $bad" >/tmp/dmw.$tag
}

# fs_worker SECS DIR TAG: writes files of random sizes into DIR (fscrypt-encrypted) and
# reads them back after dropping the caches, until SECS have passed.
fs_worker() {
	local end=$(($(date +%s) + $1)) dir=$2 tag=$3 n=0 bad=0 len
	while [ $n -eq 0 ] || [ "$(date +%s)" -lt $end ]; do
		len=$(($(head -c 4 /dev/urandom | od -An -tu4 | tr -d ' ') % 300000))
		head -c $len /dev/urandom >/tmp/fsw.pat
		cp /tmp/fsw.pat "$dir/w$((n % 8))"
		sync
		echo 1 >/proc/sys/vm/drop_caches
		cmp -s /tmp/fsw.pat "$dir/w$((n % 8))" || bad=$((bad + 1))
		n=$((n + 1))
	done
	echo "done $n bad $bad" >/tmp/fsw.$tag
}

worker_check() {
	local name=$1 file=$2 what=$3
	case $(cat "$file" 2>/dev/null) in
	"done 0 "*) fail "$name" "no $what completed" ;;
	"done "*" bad 0") pass "$name"; echo "SM4RS-INFO $name: $(cut -d' ' -f2 "$file") $what" ;;
	*) fail "$name" "$(cat "$file" 2>/dev/null)" ;;
	esac
}

# unload_loop SECS MODULE...: removes and loads MODULEs again and again for SECS seconds;
# a refused rmmod (module busy: a user holds a transform) is retried at once, up to 100
# times. Prints "<unloads> <refused>".
unload_loop() {
	local end=$(($(date +%s) + $1)) m unloads=0 refused=0 i
	shift
	while [ "$(date +%s)" -lt $end ]; do
		for m in "$@"; do
			i=0
			while ! rmmod "$m" 2>/dev/null && [ $i -lt 100 ]; do
				i=$((i + 1))
			done
			refused=$((refused + i))
			if [ $i -lt 100 ]; then
				unloads=$((unloads + 1))
				sleep 0.2
				insmod "/lib/modules/sm4rs/$m.ko" || echo "reload of $m failed" >&2
			fi
		done
	done
	echo "$unloads $refused"
}

# check_unload_under_load SECS TAG MODULE...: N AF_ALG users of every mode (by algorithm
# name: while a module is out, the next driver serves) while MODULEs come and go; every
# result must be right, each module must have been out at least once and be back at the end.
# The skcipher references' template instances are made before the loop (warm_references)
# and each AF_ALG user binds its references once, at its start (afalg stress): every load
# of sm4-ce removes the instances over the oracle (a driver of the same name and higher
# priority registered), and one made anew amid the reload's self-tests once outlasted the
# crypto API's 60-second wait (ETIMEDOUT, Linux 7.3). Errors are left to the users, which
# report them.
warm_references() {
	local k=000102030405060708090a0b0c0d0e0f iv=0f0e0d0c0b0a09080706050403020100 r
	for r in "ecb(sm4-oracle)" "cbc(sm4-oracle)" "ctr(sm4-oracle)" "cts(cbc(sm4-oracle))"; do
		head -c 32 /dev/zero | afalg enc "$r" $k $iv >/dev/null 2>&1 || :
	done
	head -c 32 /dev/zero | afalg enc "xts(ecb(sm4-oracle))" $k$iv $iv >/dev/null 2>&1 || :
}

check_unload_under_load() {
	local secs=$1 tag=$2 r m
	shift 2
	warm_references
	stress_start 3 "$secs" "$tag"
	r=$(unload_loop "$secs" "$@")
	stress_check "$tag"
	set -- $r "$@"
	echo "SM4RS-INFO $tag: $1 unloads, $2 refused while busy"
	if [ "$1" -gt 0 ]; then pass "$tag.unloaded"; else fail "$tag.unloaded" "no rmmod succeeded ($2 refused)"; fi
	shift 2
	for m in "$@"; do
		grep -q "^$(echo "$m" | tr - _) " /proc/modules || insmod "/lib/modules/sm4rs/$m.ko"
	done
}

# Fault injection: allocations of this task fail on request (/proc/self/fail-nth), for
# sleeping allocations as well, and quietly.
faults_setup() {
	local d=/sys/kernel/debug
	grep -q " $d " /proc/mounts || mount -t debugfs none $d
	for f in failslab fail_page_alloc; do
		[ -d $d/$f ] || return 1
		echo N >$d/$f/ignore-gfp-wait
		echo 0 >$d/$f/verbose
	done
	echo 0 >$d/fail_page_alloc/min-order
}

# check_faults_af_alg SUFFIX [MODE...]: every allocation of an AF_ALG request (socket,
# transform, key, request) of each mode (default: all) of the drivers *SUFFIX fails once; each time the caller gets
# either the right result or an error, and the next request works.
check_faults_af_alg() {
	local sfx=$1 m alg key iv len out
	shift
	for m in ${*:-$(awk '{ print $2 }' "$MODES_LIST")}; do
		alg=$m$sfx key=$AF_KEY iv=$AF_IV len=4100
		[ "$(mode_field "$m" 3)" = 32 ] && key=$XTS_KEY
		[ "$(mode_field "$m" 4)" = 0 ] && iv=-
		[ "$(mode_field "$m" 6)" = 1 ] || len=4096
		if out=$(afalg faults "$alg" "$key" "$iv" $len 2>&1); then
			pass "faults.af_alg.$alg"
			echo "SM4RS-INFO faults.af_alg.$alg: $out"
		else
			fail "faults.af_alg.$alg" "$out"
		fi
	done
}

# check_faults_dm CIPHER [MAXN]: each allocation of a dm-crypt table load of CIPHER (the
# first MAXN: the transform and its key come first) fails once.
check_faults_dm() {
	local out key=$AF_KEY
	case $1 in *xts*) key=$XTS_KEY ;; esac
	if out=$(dmfault /dev/vda "$1" "$key" $2 2>&1); then
		pass "faults.dm-crypt.$1"
		echo "SM4RS-INFO faults.dm-crypt.$1: $out"
	else
		fail "faults.dm-crypt.$1" "$out"
	fi
}

# check_errnos SUFFIX: bad input through AF_ALG (every key length 0..64, IVs of wrong
# sizes, lengths that are not whole blocks or shorter than a block, zero length, 1-byte
# pieces, equal XTS halves; both directions) gives from the drivers *SUFFIX exactly what
# the kernel's templates over the oracle give (upstream's C SM4, registered by sm4_kunit: the
# same error at the same step, or the same output). cfb has no kernel template any more:
# cfb-sm4-oracle, CFB over the C block function, is the reference.
check_errnos() {
	local m ours ref keylen ivlen out
	for m in $(awk '{ print $2 }' "$MODES_LIST"); do
		ours=$m$1 keylen=$(mode_field "$m" 3) ivlen=$(mode_field "$m" 4)
		ref=$(mode_field "$m" 7)
		[ "$ivlen" != 0 ] || ivlen=-1
		if out=$(afalg errcmp "$ours" "$ref" $keylen $ivlen 2>&1); then
			pass "errno.$ours"
			echo "SM4RS-INFO errno.$ours vs $ref: $out"
		else
			fail "errno.$ours" "$(echo "$out" | head -n 2 | tr '\n' ' ')"
		fi
	done
}

# kmemleak (kmemleak=on on the command line): after a scan, no object is reported leaked.
check_kmemleak() {
	local d=/sys/kernel/debug
	grep -q " $d " /proc/mounts || mount -t debugfs none $d
	if [ ! -w $d/kmemleak ]; then
		fail "kmemleak" "kmemleak is not on (kmemleak=on on the command line)"
		return
	fi
	# Objects younger than 5 s are not reported.
	sleep 5
	echo scan >$d/kmemleak
	if grep -q unreferenced $d/kmemleak; then
		fail "kmemleak" "$(grep -c unreferenced $d/kmemleak) objects leaked, the first: $(grep -A12 unreferenced $d/kmemleak | grep -m3 -E 'sm4|\[<' | tr -s ' ' | tr '\n' ' ')"
		cat $d/kmemleak | head -n 40
	else
		pass "kmemleak"
	fi
}
