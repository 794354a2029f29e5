# SPDX-License-Identifier: GPL-2.0
# gcm(sm4) and ccm(sm4): upstream's C AEADs on our sm4-ce's exports, ours, and kTLS.

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
		# (The first registration of upstream's driver in this boot: the slow tests too.)
		slow_selftests on
		if ! insmod "/lib/modules/kernel/sm4-ce-$m.ko" 2>/tmp/err; then
			fail "exports.load-sm4-ce-$m" "$(cat /tmp/err)"
			fail "testmgr.$m(sm4).upstream-$m-sm4-ce-on-our-exports" "not run: sm4-ce-$m did not load"
			slow_selftests off
			continue
		fi
		pass "exports.load-sm4-ce-$m"
		check_selftest "$m-sm4-ce"
		slow_selftests off
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
# variants 13_sm4_gcm and 13_sm4_ccm, first on our sm4-ce-gcm and sm4-ce-ccm (loaded, and
# serving the algorithm), then on upstream's C ones from this kernel's build (on sm4-ce's
# exports). Per variant: every test must get the same verdict with ours as with upstream's
# (none fails with ours that passes with theirs), and at least 40 must have run and passed.
# Tests of features a kernel lacks fail the same way on both, which is what the comparison
# is for; those that would only wait for the harness's timeout (raised to 120 s for qemu,
# scripts/tools.sh) are left out, said in the log: the six mutliproc_* (on qemu with KASAN
# they outlast it on either driver), and on kernels without TLS 1.3 rekeying (before Linux
# 6.14) the eight rekey tests. About 25 s a run on qemu with KASAN. Leaves upstream's
# modules unloaded and ours loaded.
ktls_verdicts() { # LOG: "<test> ok|fail|skip" per test of the harness's TAP output
	sed -n 's/^\(not \)\{0,1\}ok [0-9]* \([^ ]*\)\( # SKIP.*\)\{0,1\}$/\2 \1ok\3/p' "$1" |
		sed 's/ not ok$/ fail/; s/ ok # SKIP.*$/ skip/'
}
check_ktls() {
	local v n np t skip=""
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
	if [ ! -x /bin/tls ] && [ -f /bin/tls.notrun ]; then
		for v in 13_sm4_gcm 13_sm4_ccm; do
			notrun "ktls.$v.ran" "$(cat /bin/tls.notrun)"
			notrun "ktls.$v.same-verdicts-as-upstream" "$(cat /bin/tls.notrun)"
		done
		return
	fi
	[ -x /bin/tls ] || { fail "ktls.selftest" "no tls binary in the VM"; return; }
	# The selftest's sockets connect over the loopback interface, down in a fresh VM.
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
	ktls_side ours "$skip" || return
	ktls_side upstream "$skip" || return
	for v in 13_sm4_gcm 13_sm4_ccm; do
		n=$(wc -l </tmp/tls.ours.$v.v)
		np=$(grep -c ' ok$' /tmp/tls.ours.$v.v)
		echo "SM4RS-INFO ktls.$v: ours $np of $n passed; upstream's $(grep -c ' ok$' /tmp/tls.upstream.$v.v) of $(wc -l </tmp/tls.upstream.$v.v)"
		if [ "$np" -lt 40 ]; then
			fail "ktls.$v.ran" "only $np of $n tests passed with ours ($(tail -n 2 /tmp/tls.ours.$v | tr '\n' ' '))"
		else
			pass "ktls.$v.ran"
		fi
		if cmp -s /tmp/tls.ours.$v.v /tmp/tls.upstream.$v.v; then
			pass "ktls.$v.same-verdicts-as-upstream"
		else
			fail "ktls.$v.same-verdicts-as-upstream" "$(awk 'NR == FNR { u[$1] = $2; next }
				{ o[$1] = 1 } u[$1] != $2 { printf "%s: %s with ours, %s with upstream; ", $1, $2, u[$1] ? u[$1] : "not run" }
				END { for (t in u) if (!(t in o)) printf "%s: not run with ours; ", t }' \
				/tmp/tls.upstream.$v.v /tmp/tls.ours.$v.v | cut -c 1-400)"
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
# ktls_side ours|upstream SKIP: the TLS selftest (but the tests SKIP leaves out) on both
# variants with that side's gcm(sm4) and ccm(sm4); verdicts in /tmp/tls.SIDE.VARIANT.v.
ktls_side() {
	local side=$1 skip=$2 v alg m
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
		check_served "ktls.$v.served-by-$side" "$alg" "${alg%%(*}-sm4-ce"
		# Both sides' modules have the same names; ours alone has the sm4rs_ routines.
		m=sm4_ce_${alg%%(*}
		if grep -q " sm4rs_ce_${alg%%(*}_enc[[:space:]]*\[$m\]" /proc/kallsyms; then
			[ $side = ours ]
		else
			[ $side = upstream ] && grep -q "\[$m\]" /proc/kallsyms
		fi || fail "ktls.$v.$side-module" "the $m loaded is not $side's"
		# (The harness takes the first of its filters that names a test: the -T
		# exclusions go before the -v that includes the variant.)
		# shellcheck disable=SC2086
		timeout 400 tls $skip -v $v >/tmp/tls.$side.$v 2>&1
		ktls_verdicts /tmp/tls.$side.$v | sort >/tmp/tls.$side.$v.v
	done
}

# The kernel's ccm template at exactly 2^(8L) bytes, before and after the fix of upstream/
# (0001-crypto-ccm-refuse-a-message-of-exactly-2-8L-bytes.patch): the built-in ccm_base, and
# ccm_fixed_base, the same source with the patch (ccm_fixed.ko, scripts/fixtures.sh), both
# over sm4-generic, with L = 2 (a 13-byte nonce): the message must be shorter than 65536
# bytes. Before: 65536 bytes are accepted (the bug the patch fixes; when a kernel refuses
# them, the patch is no longer needed). After: 65536 are refused with EOVERFLOW as 65537 are,
# and 65535 give what the built-in template gives.
ccm_verdict() { # ALG LEN: "ok" or afalg's exit status (100 + errno: EOVERFLOW is 175)
	local rc=0
	head -c "$2" /dev/zero | afalg enc "$1" $AF_KEY $CCM_IV_L2 >/tmp/ccm.$2.out 2>/tmp/ccm.err || rc=$?
	[ $rc -eq 0 ] && echo ok || echo $rc
}
# L - 1 = 1, a 13-byte nonce, the counter's two bytes.
CCM_IV_L2=01000102030405060708090a0b0c0000
check_ccm_length_fix() {
	local before="ccm_base(ctr(sm4-generic),cbcmac(sm4-generic))" b a
	local after="ccm_fixed_base(ctr(sm4-generic),cbcmac(sm4-generic))"
	b="$(ccm_verdict "$before" 65535) $(ccm_verdict "$before" 65536) $(ccm_verdict "$before" 65537)"
	mv /tmp/ccm.65535.out /tmp/ccm.before.out
	echo "SM4RS-INFO ccm-fix: the kernel's template at 65535, 65536, 65537 bytes: $b"
	case $b in
	"ok ok 175") pass "ccm-fix.before" ;;
	"ok 175 175") fail "ccm-fix.before" "this kernel's ccm template refuses 65536 bytes: it has the fix, upstream/0001-* is no longer needed" ;;
	*) fail "ccm-fix.before" "the kernel's template gave '$b' at 65535, 65536, 65537 bytes ($(cat /tmp/ccm.err))" ;;
	esac
	if ! insmod /lib/modules/fixtures/ccm_fixed.ko; then
		fail "ccm-fix.after" "ccm_fixed.ko did not load"
		return
	fi
	a="$(ccm_verdict "$after" 65535) $(ccm_verdict "$after" 65536) $(ccm_verdict "$after" 65537)"
	echo "SM4RS-INFO ccm-fix: the fixed template at 65535, 65536, 65537 bytes: $a"
	if [ "$a" = "ok 175 175" ] && cmp -s /tmp/ccm.65535.out /tmp/ccm.before.out &&
		[ "$(crypto_field "$after" module)" = ccm_fixed ]; then
		pass "ccm-fix.after"
	else
		fail "ccm-fix.after" "the fixed template gave '$a' at 65535, 65536, 65537 bytes (want 'ok 175 175'), or at 65535 not the built-in template's output, or is not ccm_fixed's ($(cat /tmp/ccm.err))"
	fi
	rmmod_settled ccm_fixed || fail "ccm-fix.unload" "ccm_fixed would not unload"
}

# check_init_fails_late MODULE NAME [HELD HOLD_MS]: with the driver name NAME, which MODULE
# registers after others, taken by the squat fixture (a cipher registered under it),
# MODULE's init fails at that registration after the ones before it succeeded, with
# testmgr's tests of those in flight. The module is freed whatever the crypto API still
# holds of it: once the tests have ended (no larval left in /proc/crypto), none of its
# drivers may be registered, and the kernel must have reported nothing (no oops, KASAN
# report or WARN) about it; then the squat goes. With HELD, the holder fixture holds the
# cipher MODULE registers under that name from its registration on, for HOLD_MS ms, then
# runs it (its code): the failed init must wait for it (insmod lasts at least HOLD_MS) and
# the holder's use must succeed, after which the module may go.
check_init_fails_late() {
	local m=$1 name=$2 held=${3:-} hold_ms=${4:-0} mod i why= t0 t1 waited
	mod=$(echo "$1" | tr - _)
	klog_new >/dev/null
	if ! insmod /lib/modules/fixtures/squat.ko name="$name"; then
		fail "init-fails-late.$m" "the squat fixture did not load with name=$name"
		return
	fi
	if [ -n "$held" ] && ! insmod /lib/modules/fixtures/holder.ko name="$held" hold_ms="$hold_ms"; then
		fail "init-fails-late.$m" "the holder fixture did not load with name=$held"
		rmmod_settled squat
		return
	fi
	t0=$(cut -d' ' -f1 /proc/uptime)
	if insmod "/lib/modules/sm4rs/$m.ko" 2>/tmp/insmod.err; then
		why="$m loaded with $name taken"
		rmmod_settled "$mod"
	elif grep -q "^$mod " /proc/modules; then
		why="$m failed its init but is loaded"
	fi
	t1=$(cut -d' ' -f1 /proc/uptime)
	waited=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')
	if [ -n "$held" ]; then
		rmmod_settled holder || why="$why; the holder fixture would not unload"
		if ! dmesg | grep -q "holder: $held used after [0-9]* ms held: 0\$"; then
			why="$why; the holder did not run $held after holding it: $(dmesg | grep 'holder:' | tail -n 1)"
		fi
		[ "$waited" -ge "$hold_ms" ] ||
			why="$why; the failed init returned after $waited ms, while $held was held for $hold_ms ms"
	fi
	i=0
	while grep -q '^type *: larval$' /proc/crypto && [ $i -lt 600 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	sleep 1
	if grep -q "^module *: $mod\$" /proc/crypto; then
		why="$why; drivers of $m registered after its init failed: $(grep -B3 "^module *: $mod\$" /proc/crypto | grep '^driver' | tr -s ' ' | tr '\n' ' ')"
	fi
	if klog_new | grep -E 'WARNING:|BUG:|KASAN|Unable to handle|Oops|Call trace:' >/tmp/init.klog; then
		why="$why; the kernel reported: $(head -n 3 /tmp/init.klog | tr -s ' ' | tr '\n' ' ')"
	fi
	if [ -z "$why" ]; then
		echo "SM4RS-INFO init-fails-late.$m: insmod with $name taken: $(sed 's/.*: //' /tmp/insmod.err); ${held:+$held held $hold_ms ms, insmod took $waited ms; }self-tests ended after $i polls"
		pass "init-fails-late.$m"
	else
		fail "init-fails-late.$m" "${why#; }"
	fi
	rmmod_settled squat || fail "init-fails-late.$m.squat" "the squat fixture would not unload"
}
