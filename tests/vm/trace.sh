# SPDX-License-Identifier: GPL-2.0
# Scenario "trace" (scripts/trace-request.py): loads upstream's C sm4-ce drivers (with
# sm4rs.tdrv=neon, its sm4-neon), then ours (lib/common.sh's side_modules, as make bench
# does), and runs tcrypt mode sm4rs.tmode=N on each while the host single-steps requests
# through QEMU's gdb stub. Prints where each side's modules are loaded.
tmode=$(sed -n 's/.*sm4rs\.tmode=\([0-9]*\).*/\1/p' /proc/cmdline)
tdrv=$(sed -n 's/.*sm4rs\.tdrv=\([a-z]*\).*/\1/p' /proc/cmdline)
K=/lib/modules/kernel
echo 1 >/proc/sys/kernel/printk
echo 0 >/proc/sys/kernel/kptr_restrict
for side in upstream ours; do
	for m in $(side_modules "${tdrv:-ce}" "$side"); do insmod "$m" || fail "trace.load.$side" "$m"; done
	for d in /sys/module/sm4*/sections; do
		for s in "$d"/.text*; do
			[ -f "$s" ] && echo "SM4RS-TRACE-SECTION $side $(basename "$(dirname "$d")") $(basename "$s") $(cat "$s")"
		done
	done
	# (Time for the host to stop the guest and set its breakpoint: a call made before it is
	# not counted, and the sides would not trace the same request.)
	echo "SM4RS-TRACE-GO $side"
	sleep 15
	finit $K/tcrypt.ko mode=$tmode sec=0 2>/dev/null
	echo "SM4RS-TRACE-DONE $side"
	sleep 1
	side_unload "${tdrv:-ce}"
done
pass trace
