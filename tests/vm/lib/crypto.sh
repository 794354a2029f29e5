# SPDX-License-Identifier: GPL-2.0
# What /proc/crypto says: which drivers are registered, which serves an algorithm, whether
# testmgr passed them; the one list of modes the scenarios build their driver lists from.

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

# The list of modes (sm4/mode_list.rs, written here by scripts/modes.sh), one per line:
# "algorithm mode key iv block unit reference optional".
MODES_LIST=/tests/lib/modes.list
# mode_field MODE N: field N of the mode MODE (e.g. cts-cbc) of the list.
mode_field() {
	awk -v m="$1" -v n="$2" '$2 == m { print $n }' "$MODES_LIST"
}
# What sm4-ce and sm4-neon register, "algorithm:mode" (driver names are
# "<mode>-<implementation>", as sm4/mode_list.rs's DriverName builds them): the skcipher modes of the
# list (SKCIPHERS: those testmgr tests; OPTIONAL: those behind a Kconfig symbol, which it
# does not: KUnit does; out of tree only), and sm4-ce's MACs. The scenarios build their
# driver lists and served checks from them.
SKCIPHERS=$(awk '!$8 { printf "%s:%s ", $1, $2 }' "$MODES_LIST")
OPTIONAL=$(awk '$8 { printf "%s:%s ", $1, $2 }' "$MODES_LIST")
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

# wait_selftest DRIVER TENTHS: waits up to TENTHS tenths of a second for testmgr's self-test
# of DRIVER to have passed. Registration does not wait for the test: until it ends,
# /proc/crypto shows the driver as a larval, without a selftest field. Fails if it does not
# come.
wait_selftest() {
	local i=0
	while [ "$(crypto_field "$1" selftest)" != passed ]; do
		[ $i -lt "$2" ] || return 1
		i=$((i + 1))
		sleep 0.1
	done
}

# Passes if the driver $1 is registered and testmgr's self-test of it passed (waiting up to
# 10 s for the test to end). An algorithm testmgr has no test for (it says "No test for" and
# marks it passed) fails: that is not a self-test (cfb(sm4) has none since Linux 6.8; the
# KUnit suites test it).
check_selftest() {
	local st alg
	wait_selftest "$1" 100 || :
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
	elif ktap_aside check_selftest "$1" | grep -q "^ok "; then
		fail "selftest.none.$1" "check_selftest passed a driver that testmgr has no test for"
	else
		pass "selftest.none.$1"
	fi
}

# Passes if algorithm $2 is served by driver $3 (a shell pattern); the result is named $1.
# (Waits up to 5 s for it: seen once on 7.3, right after upstream's gcm-sm4-ce passed its
# extended self-test, /proc/crypto named the generic template's instance it had been
# compared with, and tcrypt got gcm-sm4-ce a few seconds later.)
check_served() {
	local drv i=0
	while drv=$(serving_driver "$2"); [ $i -lt 50 ]; do
		# shellcheck disable=SC2254
		case $drv in $3) break ;; esac
		i=$((i + 1))
		sleep 0.1
	done
	case $drv in
	$3) pass "$1" ;;
	*) fail "$1" "$2 served by '${drv:-nobody}', expected '$3'" ;;
	esac
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
