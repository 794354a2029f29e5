# SPDX-License-Identifier: GPL-2.0
# Scenario "trace" (scripts/trace-request.py): loads upstream's C sm4-ce drivers (with
# sm4rs.tdrv=neon, its sm4-neon, as make bench does), then ours, and runs tcrypt mode
# sm4rs.tmode=N on each while the host single-steps requests through QEMU's gdb stub.
# Prints where each side's modules are loaded.
tmode=$(sed -n 's/.*sm4rs\.tmode=\([0-9]*\).*/\1/p' /proc/cmdline)
tdrv=$(sed -n 's/.*sm4rs\.tdrv=\([a-z]*\).*/\1/p' /proc/cmdline)
K=/lib/modules/kernel
O=/lib/modules/sm4rs
echo 1 >/proc/sys/kernel/printk
echo 0 >/proc/sys/kernel/kptr_restrict
for side in upstream ours; do
	case ${tdrv:-ce}:$side in
	ce:upstream) mods="$K/sm4.ko $K/sm4-ce-cipher.ko $K/sm4-ce.ko $K/sm4-ce-gcm.ko $K/sm4-ce-ccm.ko" ;;
	ce:ours) mods="$O/sm4-ce.ko $O/sm4-ce-gcm.ko $O/sm4-ce-ccm.ko" ;;
	# Upstream's XTS is the template over ecb-sm4-neon, whose tweak needs the sm4 cipher.
	neon:upstream) mods="$K/sm4.ko $K/sm4_generic.ko $K/sm4-neon.ko" ;;
	neon:ours) mods="$O/sm4-neon.ko" ;;
	esac
	for m in $mods; do insmod "$m" || fail "trace.load.$side" "$m"; done
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
	# (busybox's rmmod stops at the first module that is not loaded.)
	case ${tdrv:-ce} in
	ce) rmmod sm4_ce_gcm sm4_ce_ccm sm4_ce sm4_ce_cipher 2>/dev/null ;;
	neon) rmmod sm4_neon sm4_generic 2>/dev/null ;;
	esac
done
pass trace
