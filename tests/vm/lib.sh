# SPDX-License-Identifier: GPL-2.0
# Helpers for the guest scenarios. Results are printed as
#   SM4RS-RESULT PASS|FAIL <test name> [(reason)]
# and read back by scripts/vm.sh on the host.

pass() { echo "SM4RS-RESULT PASS $1"; }
fail() { echo "SM4RS-RESULT FAIL $1${2:+ ($2)}"; }

# Loads one of our modules by file name; the KUnit suites inside run during the load.
load_ours() {
	if insmod "/lib/modules/sm4rs/$1.ko"; then
		pass "load.$1"
	else
		fail "load.$1" "insmod failed"
		return 1
	fi
}

# Prints the /proc/crypto field $2 of the entry whose driver is $1.
crypto_field() {
	awk -v drv="$1" -v key="$2" '
		/^name/ { name = $3; d = "" }
		/^driver/ { d = $3 }
		d == drv && $1 == key { print $3; exit }' /proc/crypto
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

# Passes if the driver $1 is registered and testmgr's self-test of it passed.
check_selftest() {
	local st
	st=$(crypto_field "$1" selftest)
	case $st in
	passed) pass "selftest.$1" ;;
	"") fail "selftest.$1" "not registered" ;;
	*) fail "selftest.$1" "selftest: $st" ;;
	esac
}

# Runs tcrypt in mode $1 (testmgr on the algorithms of that mode) and checks the log.
run_tcrypt_test() {
	local mode=$1 name=$2 log
	dmesg -c >/dev/null
	insmod /lib/modules/kernel/tcrypt.ko mode="$mode" sec=0 2>/dev/null
	log=$(dmesg -c)
	if echo "$log" | grep -qE 'one or more tests failed|alg: .*(fail|FAIL)'; then
		echo "$log" | grep -E 'tcrypt|alg:' | head -n 5
		fail "testmgr.$name" "tcrypt mode=$mode reported failures"
	else
		pass "testmgr.$name"
	fi
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
	dmesg -c >/dev/null
	insmod /lib/modules/kernel/tcrypt.ko mode=218 sec=0 2>/dev/null
	log=$(dmesg -c)
	if ! echo "$log" | grep -q "testing speed of .*xts(sm4) (xts-$1) decryption"; then
		echo "$log" | grep -E "testing speed|failed" | tail -n 3
		fail "tcrypt.mode218" "did not reach xts(sm4) decryption with xts-$1"
	elif echo "$log" | grep -qiE "failed|error"; then
		fail "tcrypt.mode218" "tcrypt reported a failure"
	else
		pass "tcrypt.mode218"
	fi
}
