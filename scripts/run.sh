#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# run.sh (make run): builds whatever is missing, boots the default VM (Linux 6.12 on
# `-cpu max`) with our modules loaded, prints which driver serves each SM4 algorithm and a
# tcrypt speed run, and powers off. LANE=7.3 or CPU=cortex-a72 pick another VM.
source "$(dirname "$0")/lib.sh"

lane=${LANE:-6.12} cpu=${CPU:-max}
"$REPO/scripts/bootstrap.sh"
"$REPO/scripts/kernel.sh" "$lane"
"$REPO/scripts/stage-modules.sh" "$lane"
set +e
# -icount: the guest clock counts executed instructions, so tcrypt's "cycles" are
# deterministic instruction counts, comparable between drivers (not real cycles).
SM4RS_QEMU_EXTRA="-icount shift=0" "$REPO/scripts/vm.sh" "$lane" run "$cpu" >/dev/null
rc=$?
set -e
log="$CACHE/vm/$lane-run-$cpu/console.log.txt"
[ -f "$log" ] || die "the VM left no console log"
echo
echo "SM4 algorithms on Linux $lane, qemu -cpu $cpu (from /proc/crypto):"
sed -n '/^SM4RS-TABLE-BEGIN/,/^SM4RS-TABLE-END/p' "$log" | sed '1d;$d'
echo
sed -n 's/^SM4RS-INFO //p' "$log"
echo
echo "tcrypt mode=218 (under qemu -icount: \"cycles\" are guest instruction-clock ticks):"
sed -n '/^SM4RS-TCRYPT-BEGIN/,/^SM4RS-TCRYPT-END/p' "$log" | sed '1d;$d' | sed 's/^\[[ 0-9.]*\] //'
echo
grep -E "^not ok " "$log" && rc=1
[ $rc -eq 0 ] || die "the VM run reported problems (console log: $log)"
