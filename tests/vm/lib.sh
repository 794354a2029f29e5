# SPDX-License-Identifier: GPL-2.0
# Helpers for the guest scenarios. Results are printed as
#   SM4RS-RESULT PASS|FAIL <test name> [(reason)]
# and read back by scripts/vm.sh on the host.

pass() { echo "SM4RS-RESULT PASS $1"; }
fail() { echo "SM4RS-RESULT FAIL $1${2:+ ($2)}"; }

# The kernel messages printed since the last call (dmesg -c empties the kernel's buffer, so a
# copy of every message taken is kept in /tmp/klog for klog_all).
klog_new() { dmesg -c | tee -a /tmp/klog; }
# Every kernel message of the boot so far.
klog_all() {
	cat /tmp/klog 2>/dev/null
	dmesg
}

# Loads the C SM4 library (crypto/sm4.ko, unless built in): the oracle of the test module
# (sm4_kunit) is upstream's C SM4.
load_sm4_library() {
	grep -q '^sm4 ' /proc/modules && return 0
	[ -f /lib/modules/kernel/sm4.ko ] || return 0
	insmod /lib/modules/kernel/sm4.ko
}

# Loads one of our modules by file name (sm4_kunit: the KUnit suites run during its load,
# after it registered the oracle, for which the C SM4 library is loaded first).
load_ours() {
	[ "$1" != sm4_kunit ] || load_sm4_library || { fail "load.$1" "the C SM4 library did not load"; return 1; }
	if insmod "/lib/modules/sm4rs/$1.ko"; then
		pass "load.$1"
	else
		fail "load.$1" "insmod failed"
		return 1
	fi
}

# Registers the oracle without running the KUnit suites (the VM boots with kunit.enable=0):
# the C SM4 library and the test module, which registers upstream's C SM4 as sm4-oracle and
# cfb-sm4-oracle, the references of the AF_ALG checks.
load_oracle() {
	local i
	if ! load_sm4_library || ! insmod /lib/modules/sm4rs/sm4_kunit.ko; then
		fail "load.oracle" "the C SM4 library or the test module did not load"
		return 1
	fi
	# (testmgr tests the cipher asynchronously: wait for it, up to 10 s.)
	i=0
	while [ "$(crypto_field sm4-oracle selftest)" != passed ] && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	if [ "$(crypto_field sm4-oracle selftest)" = passed ] &&
		[ "$(crypto_field cfb-sm4-oracle name)" = "cfb(sm4)" ]; then
		pass "load.oracle"
	else
		fail "load.oracle" "sm4-oracle not registered and self-tested within 10 s (selftest: '$(crypto_field sm4-oracle selftest)')"
		return 1
	fi
}

# Loads one of our modules again, after a test unloaded it.
reload_ours() {
	if insmod "/lib/modules/sm4rs/$1.ko"; then
		pass "reload.$1"
	else
		fail "reload.$1" "insmod failed"
		return 1
	fi
}

# Prints the /proc/crypto field $2 of the entry whose driver is $1.
# (An entry's fields come in any order, "name" before "driver": the entry is read whole.)
crypto_field() {
	awk -v drv="$1" -v key="$2" '
		/^name/ { d = ""; v = "" }
		$1 == "driver" { d = $3 }
		$1 == key { v = $3 }
		/^$/ { if (d == drv && !done) { print v; done = 1 } }
		END { if (d == drv && !done) print v }' /proc/crypto
}

# The one list of what sm4-ce and sm4-neon register, "algorithm:mode" (driver names are
# "<mode>-<implementation>", as crypto::DriverName builds them): the skcipher modes testmgr
# tests, cfb(sm4) (which it does not: KUnit does; out of tree only), and sm4-ce's MACs. The
# scenarios build their driver lists and served checks from it.
SKCIPHERS="ecb(sm4):ecb cbc(sm4):cbc ctr(sm4):ctr cts(cbc(sm4)):cts-cbc xts(sm4):xts"
CFB="cfb(sm4):cfb"
MACS="cmac(sm4):cmac xcbc(sm4):xcbc cbcmac(sm4):cbcmac"
# drivers_of IMPL LIST...: the driver names of the entries of the lists for implementation
# IMPL (sm4-ce, sm4-neon).
drivers_of() {
	local impl=$1 e
	shift
	# shellcheck disable=SC2068
	for e in $@; do printf '%s-%s ' "${e##*:}" "$impl"; done
}
# check_served_all IMPL LIST...: each algorithm of the lists is served by IMPL's driver.
check_served_all() {
	local impl=$1 e
	shift
	# shellcheck disable=SC2068
	for e in $@; do check_served "served.${e%%:*}" "${e%%:*}" "${e##*:}-$impl"; done
}

# Prints the driver that serves algorithm name $1: the highest-priority tested entry.
serving_driver() {
	awk -v alg="$1" '
		/^name/ { n = $3; d = ""; p = -1 }
		/^driver/ { d = $3 }
		/^priority/ { p = $3 }
		/^$/ { if (n == alg && p > best) { best = p; bd = d } n = "" }
		END { if (n == alg && p > best) bd = d; print bd }' /proc/crypto
}

# Passes if the driver $1 is registered and testmgr's self-test of it passed. An algorithm
# testmgr has no test for (it says "No test for" and marks it passed) fails: that is not a
# self-test (cfb(sm4) has none since Linux 6.8; the KUnit suites test it).
check_selftest() {
	local st alg
	st=$(crypto_field "$1" selftest)
	alg=$(crypto_field "$1" name)
	if [ -n "$st" ] && klog_all | grep -qF "alg: No test for $alg ($1)"; then
		fail "selftest.$1" "testmgr has no test for $alg: nothing was tested"
		return
	fi
	case $st in
	passed) pass "selftest.$1" ;;
	"") fail "selftest.$1" "not registered" ;;
	*) fail "selftest.$1" "selftest: $st" ;;
	esac
}

# check_no_selftest DRIVER: testmgr has no test for DRIVER (it said "No test for"), and
# check_selftest does not count that as a PASS; the KUnit suites test it instead.
check_no_selftest() {
	local alg
	alg=$(crypto_field "$1" name)
	if ! klog_all | grep -qF "alg: No test for $alg ($1)"; then
		fail "selftest.none.$1" "testmgr did not report 'No test for $alg ($1)'"
	elif check_selftest "$1" | grep -q "RESULT PASS"; then
		fail "selftest.none.$1" "check_selftest passed a driver that testmgr has no test for"
	else
		pass "selftest.none.$1"
	fi
}

# Passes if algorithm $2 is served by driver $3 (a shell pattern); the result is named $1.
check_served() {
	local drv
	drv=$(serving_driver "$2")
	case $drv in
	$3) pass "$1" ;;
	*) fail "$1" "$2 served by '${drv:-nobody}', expected '$3'" ;;
	esac
}

# Upstream's C sm4-ce-gcm and sm4-ce-ccm, from this kernel's build, loaded on top of our
# sm4-ce (ours, of the same module names, unloaded first): they link against the C interface
# it exports (sm4_ce_expand_key, sm4_ce_crypt_block, sm4_ce_cbc_enc). Each must load, pass
# testmgr on registration, serve its algorithm and pass tcrypt's test of it (run only on
# that driver); then they are unloaded (they pin sm4-ce).
check_upstream_aead() {
	local m mode
	rmmod sm4_ce_gcm sm4_ce_ccm 2>/dev/null
	load_sm4_library
	for m in gcm ccm; do
		mode=55
		[ $m = ccm ] && mode=56
		if ! insmod "/lib/modules/kernel/sm4-ce-$m.ko" 2>/tmp/err; then
			fail "exports.load-sm4-ce-$m" "$(cat /tmp/err)"
			fail "testmgr.$m(sm4).upstream-$m-sm4-ce-on-our-exports" "not run: sm4-ce-$m did not load"
			continue
		fi
		pass "exports.load-sm4-ce-$m"
		check_selftest "$m-sm4-ce"
		check_served "served.$m(sm4)" "$m(sm4)" "$m-sm4-ce"
		run_tcrypt_test $mode "$m(sm4).upstream-$m-sm4-ce-on-our-exports" "$m(sm4)=$m-sm4-ce"
	done
	rmmod sm4_ce_gcm sm4_ce_ccm 2>/dev/null
	if grep -qE '^driver *: (gcm|ccm)-sm4-ce$' /proc/crypto; then
		fail "exports.unload" "sm4-ce-gcm/ccm still registered"
	else
		pass "exports.unload"
	fi
}

# Our AEADs, gcm-sm4-ce and ccm-sm4-ce (sm4-ce-gcm and sm4-ce-ccm, loaded or built in): each
# must have passed testmgr on registration (the published vectors and, with the extended
# tests, random requests against the generic templates), serve its algorithm and pass
# tcrypt's test of it.
check_our_aead() {
	local m mode
	for m in gcm ccm; do
		mode=55
		[ $m = ccm ] && mode=56
		check_selftest "$m-sm4-ce"
		check_served "served.$m(sm4)" "$m(sm4)" "$m-sm4-ce"
		run_tcrypt_test $mode "$m(sm4).$m-sm4-ce" "$m(sm4)=$m-sm4-ce"
	done
}

# kTLS, the real client of gcm(sm4) and ccm(sm4) (RFC 8998's TLS 1.3 suites): the kernel's
# TLS selftest (tls, from Linux 7.3's tools/testing/selftests/net) over loopback TCP, its
# variants 13_sm4_gcm and 13_sm4_ccm on our sm4-ce-gcm and sm4-ce-ccm (loaded, and serving
# the algorithm); at least 40 tests per variant must pass, and every test that fails with
# ours is run again on upstream's C ones from this kernel's build (on sm4-ce's exports): it
# must fail there too (a feature the kernel lacks, the VM), or ours is wrong. Tests that
# would only wait for the harness's timeout (raised to 120 s for qemu, scripts/tools.sh) are
# left out, said in the log: the six mutliproc_* (on qemu with KASAN they outlast it on
# either driver), and on kernels without TLS 1.3 rekeying (before Linux 6.14) the eight rekey
# tests. About 25 s a run on qemu with KASAN. Leaves upstream's modules unloaded and ours
# loaded.
ktls_verdicts() { # LOG: "<test> ok|fail|skip" per test of the harness's TAP output
	sed -n 's/^\(not \)\{0,1\}ok [0-9]* \([^ ]*\)\( # SKIP.*\)\{0,1\}$/\2 \1ok\3/p' "$1" |
		sed 's/ not ok$/ fail/; s/ ok # SKIP.*$/ skip/'
}
check_ktls() {
	local v n np t filter skip=""
	for t in mutliproc_even mutliproc_readers mutliproc_writers mutliproc_sendpage_even \
		mutliproc_sendpage_readers mutliproc_sendpage_writers; do
		skip="$skip -T $t"
	done
	case $(uname -r) in
	6.1[0-3].* | [1-5].* | 6.[0-9].*)
		for t in rekey rekey_fail rekey_peek splice_rekey rekey_peek_splice rekey_getsockopt \
			rekey_poll_pending rekey_poll_delay; do
			skip="$skip -T $t"
		done
		;;
	esac
	echo "SM4RS-INFO ktls: left out:$(echo "$skip" | sed "s/ -T / /g")"
	[ -x /bin/tls ] || { fail "ktls.selftest" "no tls binary in the VM"; return; }
	# The selftest's sockets connect over the loopback interface, down in a fresh VM.
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
	# Ours first, every test; then upstream's C on the tests that failed with ours, if any:
	# a test that fails with both fails for the VM's sake (TCG, KASAN), not ours.
	ktls_side ours "$skip" || return
	for v in 13_sm4_gcm 13_sm4_ccm; do
		n=$(wc -l </tmp/tls.ours.$v.v)
		np=$(grep -c ' ok$' /tmp/tls.ours.$v.v)
		echo "SM4RS-INFO ktls.$v: ours $np of $n passed"
		if [ "$np" -lt 40 ]; then
			fail "ktls.$v.ran" "only $np of $n tests passed with ours ($(tail -n 2 /tmp/tls.ours.$v | tr '\n' ' '))"
		else
			pass "ktls.$v.ran"
		fi
	done
	if grep -q ' fail$' /tmp/tls.ours.*.v; then
		ktls_side upstream "" || return
	fi
	for v in 13_sm4_gcm 13_sm4_ccm; do
		t=$(awk '$2 == "fail" { print $1 }' /tmp/tls.ours.$v.v)
		if [ -z "$t" ]; then
			pass "ktls.$v.no-failure-of-ours"
			continue
		fi
		# (Failures of ours that upstream's C passes, or did not run.)
		t=$(awk 'NR == FNR { u[$1] = $2; next } $2 == "fail" && u[$1] != "fail" {
			printf "%s: fail with ours, %s with upstream; ", $1, u[$1] ? u[$1] : "not run" }' \
			/tmp/tls.upstream.$v.v /tmp/tls.ours.$v.v | cut -c 1-400)
		if [ -z "$t" ]; then
			pass "ktls.$v.no-failure-of-ours"
			echo "SM4RS-INFO ktls.$v: tests failing with ours fail with upstream's too"
		else
			fail "ktls.$v.no-failure-of-ours" "$t"
		fi
	done
	ktls_unload
	insmod /lib/modules/sm4rs/sm4-ce-gcm.ko && insmod /lib/modules/sm4rs/sm4-ce-ccm.ko
}
# (A socket of the last run may hold its transform a moment longer.)
ktls_unload() {
	local m
	for m in sm4_ce_gcm sm4_ce_ccm; do
		if grep -q "^$m " /proc/modules; then rmmod_settled $m; fi
	done
}
# ktls_side ours|upstream FILTER: the TLS selftest on both variants with that side's
# gcm(sm4) and ccm(sm4); verdicts in /tmp/tls.SIDE.VARIANT.v. Ours: every test but those
# FILTER leaves out; upstream's: the tests that failed with ours.
ktls_side() {
	local side=$1 filter=$2 v alg m
	ktls_unload
	if [ $side = ours ]; then
		insmod /lib/modules/sm4rs/sm4-ce-gcm.ko && insmod /lib/modules/sm4rs/sm4-ce-ccm.ko
	else
		load_sm4_library && insmod /lib/modules/kernel/sm4-ce-gcm.ko &&
			insmod /lib/modules/kernel/sm4-ce-ccm.ko
	fi || { fail "ktls.load-$side" "the $side sm4-ce-gcm/ccm did not load"; return 1; }
	for v in 13_sm4_gcm 13_sm4_ccm; do
		alg=gcm\(sm4\)
		[ $v = 13_sm4_ccm ] && alg=ccm\(sm4\)
		if [ $side = upstream ]; then
			filter=$(awk '$2 == "fail" { printf " -r %s", $1 }' /tmp/tls.ours.$v.v)
			: >/tmp/tls.upstream.$v.v
			[ -n "$filter" ] || continue
			echo "SM4RS-INFO ktls.$v: failed with ours, run on upstream's:$filter"
		fi
		check_served "ktls.$v.served-by-$side" "$alg" "${alg%%(*}-sm4-ce"
		# Both sides' modules have the same names; ours alone has the sm4rs_ routines.
		m=sm4_ce_${alg%%(*}
		if grep -q " sm4rs_ce_${alg%%(*}_enc[[:space:]]*\[$m\]" /proc/kallsyms; then
			[ $side = ours ]
		else
			[ $side = upstream ] && grep -q "\[$m\]" /proc/kallsyms
		fi || fail "ktls.$v.$side-module" "the $m loaded is not $side's"
		# (The harness takes the first of its filters that names a test: the -T
		# exclusions go before the -v that includes the variant. Upstream's side runs
		# named tests (-r) only.)
		if [ $side = ours ]; then
			# shellcheck disable=SC2086
			timeout 400 tls $filter -v $v >/tmp/tls.$side.$v 2>&1
		else
			# shellcheck disable=SC2086
			timeout 400 tls $filter >/tmp/tls.$side.$v 2>&1
		fi
		ktls_verdicts /tmp/tls.$side.$v | sort >/tmp/tls.$side.$v.v
	done
}

# run_tcrypt_test MODE NAME [ALG=DRIVER...]: tcrypt in mode MODE (testmgr's tests of that
# mode's algorithms, by algorithm name). Passes only if tcrypt ran to its end (it then
# refuses to stay loaded, with EAGAIN), reported no failure, and each ALG is served by
# DRIVER (a shell pattern): the tests ran on the implementation the result names.
run_tcrypt_test() {
	local mode=$1 name=$2 log pair alg want drv
	shift 2
	if [ ! -f /lib/modules/kernel/tcrypt.ko ]; then
		fail "testmgr.$name" "no tcrypt.ko in this kernel's modules"
		return
	fi
	klog_new >/dev/null
	insmod /lib/modules/kernel/tcrypt.ko mode="$mode" sec=0 2>/tmp/tcrypt.err
	log=$(klog_new)
	if ! grep -qE 'Resource temporarily unavailable|Try again' /tmp/tcrypt.err; then
		fail "testmgr.$name" "tcrypt mode=$mode did not run to its end: $(cat /tmp/tcrypt.err)"
		return
	fi
	if echo "$log" | grep -qE 'one or more tests failed|alg: .*(fail|FAIL)'; then
		echo "$log" | grep -E 'tcrypt|alg:' | head -n 5
		fail "testmgr.$name" "tcrypt mode=$mode reported failures"
		return
	fi
	for pair in "$@"; do
		alg=${pair%%=*} want=${pair#*=}
		drv=$(serving_driver "$alg")
		case $drv in
		$want) ;;
		*)
			fail "testmgr.$name" "$alg was served by '${drv:-nobody}', not '$want'"
			return
			;;
		esac
	done
	pass "testmgr.$name"
}

# Prints every SM4 implementation in /proc/crypto; "<= used" marks the one the crypto API
# picks for its name (the highest priority that passed its self-test).
sm4_table() {
	printf '%-16s %-24s %-9s %-12s %-9s\n' NAME DRIVER PRIORITY MODULE SELFTEST
	awk '
		function flush() {
			if (n ~ /sm4/) {
				k++; N[k] = n; D[k] = d; P[k] = p; M[k] = m; S[k] = s
				if (s == "passed" && (!(n in best) || p + 0 > bestp[n])) { best[n] = k; bestp[n] = p + 0 }
			}
			n = ""; s = "passed"
		}
		BEGIN { s = "passed" }
		/^name/ { n = $3 } /^driver/ { d = $3 } /^module/ { m = $3 }
		/^priority/ { p = $3 } /^selftest/ { s = $3 }
		/^$/ { flush() }
		END {
			flush()
			for (i = 1; i <= k; i++)
				printf "%-16s %-24s %-9s %-12s %-9s%s\n", N[i], D[i], P[i], M[i], S[i], (best[N[i]] == i ? " <= used" : "")
		}' /proc/crypto | sort -k1,1 -k3,3nr
}

# Runs tcrypt mode 218 (the SM4 speed test: ecb, cbc, cts(cbc), ctr, xts; sec=0 means a
# fixed small number of iterations) and checks that it reached its last algorithm with the
# expected driver ($1) and reported no failure.
run_tcrypt_speed() {
	local log
	klog_new >/dev/null
	insmod /lib/modules/kernel/tcrypt.ko mode=218 sec=0 2>/tmp/tcrypt.err
	log=$(klog_new)
	if ! grep -qE 'Resource temporarily unavailable|Try again' /tmp/tcrypt.err; then
		fail "tcrypt.mode218" "tcrypt did not run to its end: $(cat /tmp/tcrypt.err)"
	elif ! echo "$log" | grep -q "testing speed of .*xts(sm4) (xts-$1) decryption"; then
		echo "$log" | grep -E "testing speed|failed" | tail -n 3
		fail "tcrypt.mode218" "did not reach xts(sm4) decryption with xts-$1"
	elif echo "$log" | grep -qiE "failed|error"; then
		fail "tcrypt.mode218" "tcrypt reported a failure"
	else
		pass "tcrypt.mode218"
	fi
}

# AF_ALG (CRYPTO_USER_API_SKCIPHER) with kcapi-enc: ECB, CBC and CTR of sm4 through the
# crypto user API, by algorithm name, or by driver name if $1 is a driver suffix (e.g.
# "-sm4-neon" gives cbc-sm4-neon). The expected outputs were computed independently with
# Python's cryptography package: key 0123456789abcdeffedcba9876543210, IV 000102..0f,
# plaintext 000102..3f (64 bytes). kcapi-enc pads what it encrypts (the first 64 bytes of
# its output are compared) and is told not to unpad what it decrypts.
AF_KEY=0123456789abcdeffedcba9876543210
AF_IV=000102030405060708090a0b0c0d0e0f
AF_PT=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f
AF_ECB=06989c613da668ad2a8df782e1a8f96a4b910651754b5553f10cfa0c8a09e9e5f42952cf94ac83688437c9b671d6c7fad55bfd68e7901219f41fab48427ab58d
AF_CBC=2677f46b09c122cc975533105bd4a22ad9ee98830e69745c9827f934a19621f8db45a48645909eefda6bae89a72e659ba6394a4e05bd7cfe514852a2ab9a2d80
AF_CTR=06999e6239a36eaa2284fd89eda5f7657f161f5854b6ea16c28809fe9d1db3053cfb70c3ee0ad1492ac453e5df31aa42f4996449643f266e08abb2059a04c090
hex2bin() { echo -n "$1" | xxd -r -p; }
bin2hex() { xxd -p | tr -d '\n'; }
check_af_alg() {
	local suffix=$1 mode name expect out back
	# Linux 7.3 limits AF_ALG to an allowlist of algorithms by default (SM4 is not on it):
	# lift it, as a distribution that offers SM4 to userspace would.
	[ -w /proc/sys/crypto/af_alg_restrict ] && echo 0 >/proc/sys/crypto/af_alg_restrict
	hex2bin $AF_KEY >/tmp/af_key
	for mode in ecb cbc ctr; do
		if [ -n "$suffix" ]; then name="$mode$suffix"; else name="$mode(sm4)"; fi
		case $mode in
		ecb) expect=$AF_ECB ;;
		cbc) expect=$AF_CBC ;;
		ctr) expect=$AF_CTR ;;
		esac
		if [ $mode = ecb ]; then set --; else set -- --iv $AF_IV; fi
		out=$(hex2bin $AF_PT | kcapi-enc -q -e -c "$name" --keyfd 3 "$@" 3</tmp/af_key | bin2hex | cut -c1-128)
		back=$(hex2bin "$expect" | kcapi-enc -q -d --nounpad -c "$name" --keyfd 3 "$@" 3</tmp/af_key | bin2hex)
		if [ "$out" = "$expect" ] && [ "$back" = "$AF_PT" ]; then
			pass "af_alg.$name"
		else
			fail "af_alg.$name" "encrypt gave '$out', decrypt gave '$back'"
		fi
	done
}

# dm-crypt on /dev/vda: data written through a mapping whose cipher is $1 (a crypto API
# name, e.g. xts(sm4) or a driver name) reads back the same through a mapping that uses the
# kernel's template over the oracle (upstream's C SM4, registered by sm4_kunit), and is not
# on the disk in clear.
check_dm_crypt() {
	local cipher=$1 key sectors
	key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
	sectors=$(cat /sys/block/vda/size 2>/dev/null)
	if [ -z "$sectors" ]; then
		fail "dm-crypt.$cipher" "no /dev/vda"
		return
	fi
	export DM_DISABLE_UDEV=1
	dd if=/dev/urandom of=/tmp/pattern bs=4096 count=64 2>/dev/null
	if ! dmsetup create --noudevsync sm4a --table "0 $sectors crypt capi:$cipher-plain64 $key 0 /dev/vda 0" ||
		! dmsetup create --noudevsync sm4b --table "0 $sectors crypt capi:xts(ecb(sm4-oracle))-plain64 $key 0 /dev/vda 0"; then
		fail "dm-crypt.$cipher" "dmsetup create failed"
		dmsetup remove --noudevsync sm4a 2>/dev/null
		return
	fi
	dd if=/tmp/pattern of=/dev/mapper/sm4a bs=4096 seek=3 2>/dev/null
	sync
	echo 3 >/proc/sys/vm/drop_caches
	dd if=/dev/mapper/sm4b of=/tmp/back bs=4096 skip=3 count=64 2>/dev/null
	dd if=/dev/vda of=/tmp/raw bs=4096 skip=3 count=64 2>/dev/null
	if cmp -s /tmp/pattern /tmp/back && ! cmp -s /tmp/pattern /tmp/raw; then
		pass "dm-crypt.$cipher"
	else
		fail "dm-crypt.$cipher" "data read through xts(ecb(sm4-oracle)) differs"
	fi
	dmsetup remove --noudevsync sm4a
	dmsetup remove --noudevsync sm4b
}

# Unloading module $1 while an AF_ALG socket holds a transform of algorithm $2 (key $3) is
# refused; once the socket is closed, the module unloads and its drivers are gone.
check_unload_held() {
	local mod=$1 alg=$2 key=$3 pid i name
	name=$(echo "$mod" | tr - _)
	rm -f /tmp/hold.fifo /tmp/hold.out
	mkfifo /tmp/hold.fifo
	[ -w /proc/sys/crypto/af_alg_restrict ] && echo 0 >/proc/sys/crypto/af_alg_restrict
	afalg hold "$alg" "$key" </tmp/hold.fifo >/tmp/hold.out 2>&1 &
	pid=$!
	# The tool starts once the FIFO has a writer; closing it ends the hold.
	exec 3>/tmp/hold.fifo
	i=0
	while ! grep -q '^held' /tmp/hold.out && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if ! grep -q '^held' /tmp/hold.out; then
		fail "unload.$mod.refused-while-held" "afalg could not hold $alg: $(cat /tmp/hold.out)"
	elif rmmod "$mod" 2>/tmp/rmmod.err; then
		fail "unload.$mod.refused-while-held" "rmmod succeeded while $alg was held"
	elif grep -q "^$name " /proc/modules; then
		pass "unload.$mod.refused-while-held"
	else
		fail "unload.$mod.refused-while-held" "rmmod failed but the module is gone: $(cat /tmp/rmmod.err)"
	fi
	exec 3>&-
	wait $pid
	# The socket's transform is freed when the socket goes, which the kernel may finish a
	# moment after the process has ended: wait (up to 10 s) for the module's last user.
	if ! wait_unused "$mod" 100; then
		fail "unload.$mod" "still in use 10 s after the socket was closed (refcnt $(cat /sys/module/$name/refcnt))"
	elif rmmod "$mod" 2>/tmp/rmmod.err && ! grep -q "^$name " /proc/modules; then
		pass "unload.$mod"
	else
		fail "unload.$mod" "rmmod failed with no user left: $(cat /tmp/rmmod.err)"
	fi
}

# wait_unused MODULE TENTHS: waits up to TENTHS tenths of a second for MODULE to have no user
# (its reference count 0); fails if it does not come.
wait_unused() {
	local name i=0
	name=$(echo "$1" | tr - _)
	while [ "$(cat /sys/module/$name/refcnt 2>/dev/null)" != 0 ]; do
		[ $i -lt "$2" ] || return 1
		i=$((i + 1))
		sleep 0.1
	done
}

# --- real clients: fscrypt and cryptsetup LUKS2 over shared disks ------------------------
# scripts/test.sh gives the test-max, test-generic and test-a72 boots of a lane the same two
# disks (/dev/vdb for ext4 with fscrypt, /dev/vdc for LUKS2), in that order: test-max writes
# set A with our drivers, test-generic (only the kernel's templates over sm4-generic) reads A
# back and writes B, test-a72 (sm4-neon) reads A and B back. The key and the checksum lists
# are kept in clear on the disks (test data).
FS_DEV=/dev/vdb
LUKS_DEV=/dev/vdc
SIZES="0 1 15 16 17 31 32 33 100 4095 4096 4097 8191 65536 100001 1048583"
NAMELENS="1 15 16 17 31 32 33 100 200 255"

have_client_disks() {
	[ -b $FS_DEV ] && [ -b $LUKS_DEV ]
}

# make_files DIR SET LIST: files of many sizes and of names of many lengths (up to 255
# bytes, the limit) in DIR, their checksums to LIST.
make_files() {
	local dir=$1 set=$2 list=$3 s n name
	for s in $SIZES; do
		head -c "$s" /dev/urandom >"$dir/$set-size-$s"
	done
	for n in $NAMELENS; do
		name=$set$(printf "%$((n - 1))s" "" | tr ' ' n)
		head -c $((n * 3)) /dev/urandom >"$dir/$name"
	done
	(cd "$dir" && sha256sum "$set"*) >"$list"
}

# check_files DIR LIST: every file of LIST reads back bit-exact in DIR.
check_files() {
	[ -s "$2" ] && (cd "$1" && sha256sum -c "$2" >/tmp/sum.out 2>&1)
}

# check_sets NAME DIR LISTDIR SET...: check_files of each SET (list LISTDIR/sums-SET), one
# result NAME-SET each.
check_sets() {
	local name=$1 dir=$2 lists=$3 set
	shift 3
	for set in "$@"; do
		if check_files "$dir" "$lists/sums-$set"; then
			pass "$name-$set"
		else
			fail "$name-$set" "$(grep -v ': OK' /tmp/sum.out | head -n 2 | tr '\n' ' ')"
		fi
	done
}

# The driver that fscrypt reported for its mode $1 (SM4-XTS or SM4-CBC-CTS) in this boot.
# Since Linux 6.19 or so, file contents go through blk-crypto, which without inline
# encryption hardware is blk-crypto-fallback: fscrypt logs "using blk-crypto-fallback" and
# the fallback allocated the crypto API's $2 (xts(sm4)) on first use, for good.
fscrypt_impl() {
	if klog_all | grep -q "fscrypt: $1 using blk-crypto-fallback"; then
		echo "blk-crypto-fallback:$(serving_driver "$2")"
	else
		klog_all | sed -n "s/.*fscrypt: $1 using implementation \"\(.*\)\"/\1/p" | tail -n 1
	fi
}

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# fscrypt_client ROLE XTS_DRIVER CTS_DRIVER: ROLE "first" makes the file system (ext4 -O
# encrypt), a v2 key and an encrypted directory (contents SM4_XTS, names SM4_CTS) and
# writes set A; "middle" reads A and writes B; "last" reads A and B. Each role checks the
# drivers fscrypt reported, and that with the key removed names are ciphertext and contents
# unreadable (then reads back again with the key added).
fscrypt_client() {
	local role=$1 want_xts=$2 want_cts=$3 mnt=/mnt/fs key id sets set impl f ok
	mkdir -p $mnt
	if [ "$role" = first ]; then
		if ! mkfs.ext4 -q -F -O encrypt -E nodiscard $FS_DEV >/tmp/mkfs.out 2>&1; then
			fail "fscrypt.mkfs" "$(tail -n 1 /tmp/mkfs.out)"
			return
		fi
	fi
	if ! mount -t ext4 $FS_DEV $mnt 2>/tmp/mount.out; then
		fail "fscrypt.$role.mount" "$(cat /tmp/mount.out)"
		return
	fi
	if [ "$role" = first ]; then
		head -c 64 /dev/urandom | bin2hex >$mnt/key.hex
		mkdir $mnt/enc
	fi
	key=$(cat $mnt/key.hex)
	if ! id=$(fscrypt add $mnt "$key" 2>/tmp/fscrypt.err); then
		fail "fscrypt.$role.add-key" "$(cat /tmp/fscrypt.err)"
		umount $mnt
		return
	fi
	if [ "$role" = first ] && ! fscrypt set $mnt/enc "$id" 2>/tmp/fscrypt.err; then
		fail "fscrypt.first.set-policy" "$(cat /tmp/fscrypt.err)"
	fi
	case $(fscrypt get $mnt/enc 2>&1) in
	"v2 7 8 "*) pass "fscrypt.$role.policy-sm4" ;;
	*) fail "fscrypt.$role.policy-sm4" "policy of the directory: $(fscrypt get $mnt/enc 2>&1)" ;;
	esac
	case $role in
	first) sets= ;;
	middle) sets=A ;;
	last) sets="A B" ;;
	esac
	drop_caches
	check_sets "fscrypt.$role.read" $mnt/enc $mnt $sets
	if [ "$role" != last ]; then
		set=B
		[ "$role" = first ] && set=A
		make_files $mnt/enc $set $mnt/sums-$set
		drop_caches
		if check_files $mnt/enc $mnt/sums-$set; then
			pass "fscrypt.$role.write-$set"
		else
			fail "fscrypt.$role.write-$set" "read back differs"
		fi
		sets="$sets $set"
	fi
	# Which drivers did the work.
	for f in "SM4-XTS $want_xts xts(sm4)" "SM4-CBC-CTS $want_cts cts(cbc(sm4))"; do
		set -- $f
		impl=$(fscrypt_impl $1 "$3")
		echo "SM4RS-INFO fscrypt $role: $1 by $impl"
		# $2 may be a pattern ("xts(*sm4-generic*)": Linux 7.3 builds cbc over ecb).
		case $impl in
		$2 | "blk-crypto-fallback:"$2) pass "fscrypt.$role.served.$1" ;;
		*) fail "fscrypt.$role.served.$1" "fscrypt used '$impl', expected '$2'" ;;
		esac
	done
	# Locked: without the key, no name in clear and no content readable.
	sync
	fscrypt remove $mnt "$id" >/dev/null 2>/tmp/fscrypt.err
	drop_caches
	ok=1
	if [ "$(fscrypt status $mnt "$id" 2>&1)" != absent ]; then
		ok=0 why="key still present after removal"
	elif ls $mnt/enc | grep -qE '^[AB](-size-|n*$)'; then
		ok=0 why="names in clear without the key: $(ls $mnt/enc | head -n 2 | tr '\n' ' ')"
	elif [ "$(ls $mnt/enc | wc -l)" -ne "$(cat $mnt/sums-* | wc -l)" ]; then
		ok=0 why="$(ls $mnt/enc | wc -l) names listed, expected $(cat $mnt/sums-* | wc -l)"
	else
		for f in $(ls $mnt/enc | head -n 5); do
			if cat "$mnt/enc/$f" >/dev/null 2>&1 && [ -s "$mnt/enc/$f" ]; then
				ok=0 why="content readable without the key ($f)"
			fi
		done
	fi
	if [ $ok = 1 ]; then pass "fscrypt.$role.locked"; else fail "fscrypt.$role.locked" "$why"; fi
	# Unlocked again: everything back.
	fscrypt add $mnt "$key" >/dev/null 2>&1
	check_sets "fscrypt.$role.unlocked" $mnt/enc $mnt $sets
	fscrypt remove $mnt "$id" >/dev/null 2>&1
	umount $mnt
}

# luks_client ROLE XTS_DRIVER: cryptsetup LUKS2 with sm4-xts-plain64 on $LUKS_DEV, the
# roles as for fscrypt_client ("first" formats: PBKDF2, few iterations, to fit the VM).
LUKS_PASS=sm4rs-test-passphrase
luks_open() {
	echo -n $LUKS_PASS | cryptsetup open --disable-locks --key-file - $LUKS_DEV sm4luks 2>/tmp/luks.err
}
luks_client() {
	local role=$1 want=$2 mnt=/mnt/luks set sets drv
	export DM_DISABLE_UDEV=1
	mkdir -p $mnt /run/cryptsetup
	[ -w /proc/sys/crypto/af_alg_restrict ] && echo 0 >/proc/sys/crypto/af_alg_restrict
	if [ "$role" = first ]; then
		if echo -n $LUKS_PASS | cryptsetup luksFormat --batch-mode --disable-locks --type luks2 \
			--cipher sm4-xts-plain64 --key-size 256 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
			--hash sha256 --key-file - $LUKS_DEV >/tmp/luks.out 2>&1; then
			pass "luks.format"
		else
			fail "luks.format" "$(tail -n 2 /tmp/luks.out | tr '\n' ' ')"
			return
		fi
		echo "SM4RS-INFO luks: $(cryptsetup luksDump $LUKS_DEV 2>&1 | grep -m1 -E 'cipher:' | tr -s ' \t' ' ')"
	fi
	if ! luks_open; then
		fail "luks.$role.open" "$(cat /tmp/luks.err)"
		return
	fi
	pass "luks.$role.open"
	drv=$(serving_driver "xts(sm4)")
	echo "SM4RS-INFO luks $role: xts(sm4) by $drv (refcnt $(crypto_field "$drv" refcnt))"
	case $drv in
	$want) pass "luks.$role.served" ;;
	*) fail "luks.$role.served" "xts(sm4) served by '$drv', expected '$want'" ;;
	esac
	if [ "$role" = first ] && ! mkfs.ext4 -q -F -E nodiscard /dev/mapper/sm4luks >/tmp/mkfs.out 2>&1; then
		fail "luks.mkfs" "$(tail -n 1 /tmp/mkfs.out)"
	fi
	if ! mount -t ext4 /dev/mapper/sm4luks $mnt 2>/tmp/mount.out; then
		fail "luks.$role.mount" "$(cat /tmp/mount.out)"
		cryptsetup close sm4luks
		return
	fi
	case $role in
	first) sets= ;;
	middle) sets=A ;;
	last) sets="A B" ;;
	esac
	if [ "$role" != last ]; then
		set=B
		[ "$role" = first ] && set=A
		make_files $mnt $set $mnt/sums-$set
		sets="$sets $set"
	fi
	# Closed and opened again: the data comes back from the disk.
	umount $mnt
	cryptsetup close sm4luks
	if ! luks_open || ! mount -t ext4 /dev/mapper/sm4luks $mnt 2>/tmp/mount.out; then
		fail "luks.$role.reopen" "$(cat /tmp/luks.err /tmp/mount.out 2>/dev/null)"
		cryptsetup close sm4luks 2>/dev/null
		return
	fi
	check_sets "luks.$role.read" $mnt $mnt $sets
	umount $mnt
	cryptsetup close sm4luks
}

# cryptsetup benchmark --cipher sm4-xts (through AF_ALG), reported in the log.
luks_benchmark() {
	if cryptsetup benchmark --cipher sm4-xts --key-size 256 >/tmp/bench.out 2>&1 &&
		grep -q 'sm4-xts' /tmp/bench.out; then
		echo "SM4RS-INFO cryptsetup benchmark: $(grep sm4-xts /tmp/bench.out | tr -s ' ')"
		pass "luks.benchmark"
	else
		fail "luks.benchmark" "$(tail -n 2 /tmp/bench.out | tr '\n' ' ')"
	fi
}

# --- load, unloading, faults, bad input -------------------------------------------------
# The duration of the timed parts: sm4rs.secs=N on the kernel command line (make test-long
# gives longer runs), default 8 s.
load_secs() {
	local s
	s=$(sed -n 's/.*sm4rs\.secs=\([0-9]*\).*/\1/p' /proc/cmdline)
	echo "${s:-8}"
}

# stress_start N SECS TAG: N AF_ALG users (afalg stress: random modes, keys, IVs and
# lengths by algorithm name, each checked against the kernel's templates over the oracle
# (sm4_kunit must be loaded) and decrypted back), for SECS seconds; stress_check TAG waits
# for them and checks.
stress_start() {
	local i
	for i in $(seq 1 "$1"); do
		afalg stress "$2" "$(date +%s)$i" >/tmp/stress.$3.$i 2>&1 &
	done
}
stress_check() {
	local tag=$1 f ok=1 why= total=0 n
	wait
	for f in /tmp/stress.$tag.*; do
		if ! grep -q '^stress [0-9]* ok 0 bad 0 errors$' "$f"; then
			ok=0 why="$why $(head -n 3 "$f" | tr '\n' ' ')"
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

# rmmod_settled MODULE...: rmmod once the users are gone; the kernel may still hold the
# module for a moment (the crypto manager testing what a reload registered), so a busy
# module is tried again for up to 5 s.
rmmod_settled() {
	local m i
	for m in "$@"; do
		i=0
		while ! rmmod "$m" 2>/tmp/rmmod.err; do
			i=$((i + 1))
			[ $i -lt 50 ] || { cat /tmp/rmmod.err; return 1; }
			sleep 0.1
		done
	done
}

# check_unload_under_load SECS TAG MODULE...: N AF_ALG users of every mode (by algorithm
# name: while a module is out, the next driver serves) while MODULEs come and go; every
# result must be right, each module must have been out at least once and be back at the end.
check_unload_under_load() {
	local secs=$1 tag=$2 r m
	shift 2
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
	for m in ${*:-ecb cbc cfb ctr cts-cbc xts}; do
		alg=$m$sfx key=$AF_KEY iv=$AF_IV len=4100
		case $m in
		ecb) iv=- len=4096 ;;
		cbc) len=4096 ;;
		xts) key=$XTS_KEY ;;
		esac
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
	for m in ecb cbc cfb ctr cts-cbc xts; do
		ours=$m$1 keylen=16 ivlen=16
		case $m in
		ecb) ref="ecb(sm4-oracle)" ivlen=-1 ;;
		cbc) ref="cbc(sm4-oracle)" ;;
		cfb) ref="cfb-sm4-oracle" ;;
		ctr) ref="ctr(sm4-oracle)" ;;
		cts-cbc) ref="cts(cbc(sm4-oracle))" ;;
		xts) ref="xts(ecb(sm4-oracle))" keylen=32 ;;
		esac
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
