#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make-run.sh (make run): builds whatever is missing, boots the default VM (Linux 6.12 on
# `-cpu max`) with our modules loaded, prints which driver serves each SM4 algorithm and a
# tcrypt speed run, and powers off; exits non-zero if a check of the boot failed (the best
# of our drivers for the CPU serves each mode, passes testmgr's tests and the speed run).
# LANE=7.3 or CPU=cortex-a72 pick another VM. With --results (make test runs make run
# this way) the results are printed instead, and counted in $SM4RS_COUNTS.
source "$(dirname "$0")/lib.sh"

lane=${LANE:-6.12} cpu=${CPU:-max}
# (fd 3: where the results go. Not a reopened /dev/stdout: that would truncate a log file
# that stdout is, at offset 0, under what stderr had written.)
if [ "${1:-}" = --results ]; then
	results=1
	exec 3>&1
else
	results=
	export SM4RS_COUNTS=/dev/null
	exec 3>/dev/null
fi
"$REPO/scripts/bootstrap.sh"
"$REPO/scripts/kernel.sh" "$lane"
"$REPO/scripts/stage-modules.sh" "$lane"
rc=0
# -icount shift=0: the guest's clock advances 1 ns per executed instruction, so its counter
# (CNTVCT, 62.5 MHz: a tick every 16 ns), which tcrypt reads as "cycles", ticks once per 16
# instructions; they are shown as instructions (16 per tick, to within 16), deterministic
# and comparable between drivers, not a CPU's cycles.
shift=0
per_tick=$((16 >> shift))
SM4RS_QEMU_EXTRA="-icount shift=$shift" "$REPO/scripts/vm.sh" "$lane" run "$cpu" >&3 || rc=$?
log="$CACHE/vm/$lane-run-$cpu/console.log.txt"
[ -f "$log" ] || die "the VM left no console log"
# (make test: the results only; the table is in the console log.)
[ -z "$results" ] || exit $rc
echo
echo "SM4 algorithms on Linux $lane, qemu -cpu $cpu (from /proc/crypto):"
sed -n '/^SM4RS-TABLE-BEGIN/,/^SM4RS-TABLE-END/p' "$log" | sed '1d;$d'
echo
sed -n 's/^SM4RS-INFO //p' "$log"
echo
echo "tcrypt mode=218, guest instructions per operation (qemu -icount shift=$shift: tcrypt's"
echo "\"cycles\" are ticks of the guest's counter, $per_tick instructions each; to within $per_tick):"
sed -n '/^SM4RS-TCRYPT-BEGIN/,/^SM4RS-TCRYPT-END/p' "$log" | sed '1d;$d' | sed 's/^\[[ 0-9.]*\] //' |
	awk -v k="$per_tick" '{ for (i = 2; i <= NF; i++) if ($i == "cycles" && $(i - 1) ~ /^[0-9]+$/) { $(i - 1) *= k; $i = "instructions" } print }'
echo
[ $rc -eq 0 ] || die "the VM run reported problems (console log: $log)"
