# SPDX-License-Identifier: GPL-2.0
# Scenario "bench" (make bench, on the benchmark kernel under qemu -icount): tcrypt's SM4
# speed modes (218: the synchronous skcipher path; 518: the asynchronous one) on upstream's
# C drivers and on ours, alternately (with sm4rs.bench=ce also 222 and 223: gcm(sm4) and
# rfc4309(ccm(sm4)), upstream's C sm4-ce-gcm and sm4-ce-ccm against ours), sm4rs.reps times each, in the same boot. Which
# drivers: sm4rs.bench=ce (-cpu max: upstream sm4-ce + sm4-ce-cipher against our sm4-ce),
# neon (-cpu cortex-a72: upstream sm4-neon, with the C sm4_generic that its XTS template
# needs, against ours) or generic (the C sm4_generic against our sm4-generic, through the
# kernel's templates). With neon, ours runs twice: as loaded (side "ours": the variant
# picked for the CPU, on Cortex-A72 aese, the fewest cycles) and with sm4_neon.impl=tbx
# (side "ours-tbx": the fewest instructions). Each measured request is printed as
#   SM4RS-BENCH <side> <tcrypt mode> <algorithm> <driver> <enc|dec> <key bits> <bytes> <cycles>
# where cycles are tcrypt's get_cycles() difference per operation.
#
# With sm4rs.clients=1 (a boot under qemu -icount shift=0, where the guest's clock advances
# one nanosecond per executed instruction) the same sides run real clients instead:
# `cryptsetup benchmark` of sm4-xts-plain64 and sm4-cbc-essiv:sha256 (AF_ALG: 64 KiB
# requests, out of place, from a 1 MiB buffer) and a dd of 64 MiB written then read with
# O_DIRECT through a dm-crypt sm4-xts-plain64 mapping on the RAM disk /dev/ram0, with
# 512-byte sectors (dmsetup's default) and with 4096-byte sectors (LUKS2's on such a disk).
# Each measurement is printed as
#   SM4RS-CLIENT <side> cryptsetup <cipher> <enc|dec> <MiB/s as cryptsetup prints it> <driver>
#   SM4RS-CLIENT <side> dm-crypt xts-plain64-<sector> <write|read> <ns> <bytes> <driver>
# where driver is the one that served the request (the highest-priority xts(sm4) or
# cbc(sm4) after the run).

which=$(sed -n 's/.*sm4rs\.bench=\([a-z]*\).*/\1/p' /proc/cmdline)
reps=$(sed -n 's/.*sm4rs\.reps=\([0-9]*\).*/\1/p' /proc/cmdline)
clients=$(sed -n 's/.*sm4rs\.clients=\([01]\).*/\1/p' /proc/cmdline)
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
	local side=$1 mode modes="218 518"
	# With the CE drivers, the AEADs too: 222 gcm(sm4), 223 rfc4309(ccm(sm4)).
	[ "$which" = ce ] && modes="$modes 222 223"
	for mode in $modes; do
		klog_new >/dev/null
		finit $K/tcrypt.ko mode=$mode sec=0 2>/dev/null
		klog_new | awk -v side="$side" -v mode="$mode" '
			/testing speed of/ {
				alg = $0; sub(/.*testing speed of ((a)?sync )?/, "", alg)
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

# The dm-crypt key (256 bits: XTS with two SM4 keys) and the size of the dd, in MiB.
DM_KEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
DD_MIB=64

# Runs the real clients and prints their measurements for side $1.
clients() {
	local side=$1 spec cipher bits alg line ss opt op ns what drv
	for spec in sm4-xts-plain64:256:xts sm4-cbc-essiv:sha256:128:cbc; do
		alg=${spec##*:}
		spec=${spec%:*}
		bits=${spec##*:}
		cipher=${spec%:*}
		if ! cryptsetup benchmark --cipher "$cipher" --key-size "$bits" >/tmp/cb.out 2>&1; then
			echo "SM4RS-BENCH-ERROR cryptsetup benchmark $cipher: $(tail -n 1 /tmp/cb.out)"
			return 1
		fi
		# "        sm4-xts        256b        45.3 MiB/s        46.0 MiB/s"
		line=$(grep -E '^ *sm4-[a-z]+ +[0-9]+b +[0-9.]+ MiB/s +[0-9.]+ MiB/s' /tmp/cb.out)
		if [ -z "$line" ]; then
			echo "SM4RS-BENCH-ERROR cryptsetup benchmark $cipher: $(tr '\n' ' ' </tmp/cb.out)"
			return 1
		fi
		set -- $line
		drv=$(serving_driver "$alg(sm4)")
		echo "SM4RS-CLIENT $side cryptsetup $cipher enc $3 $drv"
		echo "SM4RS-CLIENT $side cryptsetup $cipher dec $5 $drv"
	done
	for ss in 512 4096; do
		opt=""
		[ $ss = 512 ] || opt=" 1 sector_size:$ss"
		if ! dmsetup create --noudevsync sm4bench \
			--table "0 $((DD_MIB * 2048)) crypt sm4-xts-plain64 $DM_KEY 0 /dev/ram0 0$opt"; then
			echo "SM4RS-BENCH-ERROR dmsetup create (sector size $ss) failed"
			return 1
		fi
		for op in write read; do
			case $op in
			write) ns=$(timed dd if=/dev/zero of=/dev/mapper/sm4bench bs=1M count=$DD_MIB oflag=direct 2>/tmp/dd.err) ;;
			read) ns=$(timed dd if=/dev/mapper/sm4bench of=/dev/null bs=1M count=$DD_MIB iflag=direct 2>/tmp/dd.err) ;;
			esac
			if [ -z "$ns" ] || ! grep -q "^$DD_MIB+0 records out" /tmp/dd.err; then
				echo "SM4RS-BENCH-ERROR dd $op (sector size $ss): $(tr '\n' ' ' </tmp/dd.err)"
				dmsetup remove --noudevsync sm4bench
				return 1
			fi
			what="$op $ns $((DD_MIB * 1048576))"
			echo "SM4RS-CLIENT $side dm-crypt xts-plain64-$ss $what $(serving_driver 'xts(sm4)')"
		done
		dmsetup remove --noudevsync sm4bench
	done
}

run_side() {
	local side=$1
	shift
	case $which:$side in
	# The variant with the fewest instructions (tbl + three tbx): what the instruction
	# counts of the glue are when the loop is not the one picked for cycles.
	neon:ours-tbx)
		insmod $O/sm4-neon.ko impl=tbx 2>/tmp/err ||
			{ fail "bench.load.sm4-neon.impl=tbx" "$(cat /tmp/err)"; return 1; }
		;;
	*) load $(side_modules "$which" "$side") || return 1 ;;
	esac
	if [ "$clients" = 1 ]; then clients "$side" || return 1; else speed "$side"; fi
	side_unload "$which"
	if grep -qE 'sm4_(ce|neon|generic|ce_cipher|ce_gcm|ce_ccm) ' /proc/modules; then
		fail "bench.unload.$side" "$(grep sm4 /proc/modules)"
		return 1
	fi
}

# tcrypt's results are read with dmesg: kept off the console, whose output (a printing
# thread on later kernels) would otherwise land in the measurements.
echo 1 >/proc/sys/kernel/printk
export DM_DISABLE_UDEV=1
if [ "$clients" = 1 ]; then
	# Linux 7.3 lets AF_ALG bind only an allowlist of algorithms (crypto.af_alg_restrict=1
	# by default), which has no SM4 mode: cryptsetup benchmark needs the restriction off.
	[ -w /proc/sys/crypto/af_alg_restrict ] && echo 0 >/proc/sys/crypto/af_alg_restrict
	# Every page of the RAM disk the mapping uses exists before the first measurement.
	dd if=/dev/zero of=/dev/ram0 bs=1M count=$DD_MIB 2>/dev/null ||
		{ fail "bench.$which.clients" "no RAM disk /dev/ram0"; return; }
	which_name=$which.clients
else
	which_name=$which
fi
i=0
while [ $i -lt "${reps:-3}" ]; do
	run_side upstream && run_side ours || break
	if [ "$which" = neon ]; then run_side ours-tbx || break; fi
	i=$((i + 1))
done
if [ $i -eq "${reps:-3}" ]; then
	pass "bench.$which_name"
else
	fail "bench.$which_name" "stopped after $i rounds"
fi
# The kernel's log, kept off the console while measuring (above), printed whole now for
# the scan of scripts/results.awk: a warning or an oops during the runs fails the benchmark.
klog_all
