# SPDX-License-Identifier: GPL-2.0
# Scenario "bench" (make bench, on the benchmark kernel under qemu -icount): tcrypt's SM4
# speed modes (218: the synchronous skcipher path; 518: the asynchronous one) on upstream's
# C drivers and on ours, alternately, sm4rs.reps times each, in the same boot. Which
# drivers: sm4rs.bench=ce (-cpu max: upstream sm4-ce + sm4-ce-cipher against our sm4-ce),
# neon (-cpu cortex-a72: upstream sm4-neon, with the C sm4_generic that its XTS template
# needs, against ours) or generic (the C sm4_generic
# against our sm4-generic, through the kernel's templates). Each measured request is
# printed as
#   SM4RS-BENCH <side> <tcrypt mode> <algorithm> <driver> <enc|dec> <key bits> <bytes> <cycles>
# where cycles are tcrypt's get_cycles() difference per operation.

which=$(sed -n 's/.*sm4rs\.bench=\([a-z]*\).*/\1/p' /proc/cmdline)
reps=$(sed -n 's/.*sm4rs\.reps=\([0-9]*\).*/\1/p' /proc/cmdline)
K=/lib/modules/kernel
O=/lib/modules/sm4rs

# Loads the modules named (paths), in order; a module already loaded is fine.
load() {
	local m
	for m in "$@"; do
		insmod "$m" 2>/tmp/err || grep -q "File exists" /tmp/err ||
			{ fail "bench.load.$(basename "$m")" "$(cat /tmp/err)"; return 1; }
	done
}

# Runs the tcrypt speed modes and prints their measurements for side $1.
speed() {
	local side=$1 mode
	for mode in 218 518; do
		dmesg -c >/dev/null
		insmod $K/tcrypt.ko mode=$mode sec=0 2>/dev/null
		dmesg -c | awk -v side="$side" -v mode="$mode" '
			/testing speed of/ {
				alg = $0; sub(/.*testing speed of (a)?sync /, "", alg)
				drv = alg; sub(/^[^ ]* \(/, "", drv); sub(/\) (en|de)cryption.*/, "", drv)
				sub(/ .*/, "", alg)
				dir = ($0 ~ /encryption/) ? "enc" : "dec"
			}
			/operation in [0-9]+ cycles/ {
				match($0, /\(([0-9]+) bit key, ([0-9]+) byte blocks\)/)
				split(substr($0, RSTART + 1, RLENGTH - 2), f, " ")
				c = $0; sub(/.*operation in /, "", c); sub(/ cycles.*/, "", c)
				printf "SM4RS-BENCH %s %s %s %s %s %s %s %s\n", side, mode, alg, drv, dir, f[1], f[4], c
				n++
			}
			/failed|error/ { print "SM4RS-BENCH-ERROR " $0 }
			END { if (!n) print "SM4RS-BENCH-ERROR no measurement" }'
	done
}

run_side() {
	local side=$1
	shift
	case $which:$side in
	ce:upstream) load $K/sm4.ko $K/sm4-ce-cipher.ko $K/sm4-ce.ko || return 1 ;;
	ce:ours) load $O/sm4-ce.ko || return 1 ;;
	# Upstream's XTS is the template over ecb-sm4-neon, whose tweak needs the sm4 cipher.
	neon:upstream) load $K/sm4.ko $K/sm4_generic.ko $K/sm4-neon.ko || return 1 ;;
	neon:ours) load $O/sm4-neon.ko || return 1 ;;
	generic:upstream) load $K/sm4.ko $K/sm4_generic.ko || return 1 ;;
	generic:ours) load $O/sm4-generic.ko || return 1 ;;
	esac
	speed "$side"
	# Unload the side's drivers (and the template instances over them).
	case $which in
	ce) rmmod sm4_ce sm4_ce_cipher 2>/dev/null ;;
	neon) rmmod sm4_neon sm4_generic 2>/dev/null ;;
	generic) rmmod sm4_generic 2>/dev/null ;;
	esac
	if grep -qE 'sm4_(ce|neon|generic|ce_cipher) ' /proc/modules; then
		fail "bench.unload.$side" "$(grep sm4 /proc/modules)"
		return 1
	fi
}

# tcrypt's results are read with dmesg: kept off the console, whose output (a printing
# thread on later kernels) would otherwise land in the measurements.
echo 1 >/proc/sys/kernel/printk
i=0
while [ $i -lt "${reps:-3}" ]; do
	run_side upstream && run_side ours || break
	i=$((i + 1))
done
if [ $i -eq "${reps:-3}" ]; then pass "bench.$which"; else fail "bench.$which" "stopped after $i rounds"; fi
