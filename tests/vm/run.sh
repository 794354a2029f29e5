# SPDX-License-Identifier: GPL-2.0
# Scenario "run" (make run): load our modules, show which drivers serve SM4, run tcrypt's
# SM4 speed test (mode 218). Modules that do not apply to the CPU (sm4-ce without the SM4
# instructions) say so and are skipped.

for m in sm4-generic sm4-ce sm4-neon; do
	if insmod "/lib/modules/sm4rs/$m.ko" 2>/tmp/err; then
		echo "SM4RS-INFO loaded $m"
	else
		echo "SM4RS-INFO not loaded $m: $(sed 's/.*: //' /tmp/err)"
	fi
done
# Instantiate the template algorithms too, so that the table shows what serves them.
run_tcrypt_test 191 "ecb-cbc-ctr-xts(sm4)" >/dev/null
run_tcrypt_test 59 "cts(cbc(sm4))" >/dev/null
echo "SM4RS-TABLE-BEGIN"
sm4_table
echo "SM4RS-TABLE-END"
echo "SM4RS-TCRYPT-BEGIN"
dmesg -c >/dev/null
insmod /lib/modules/kernel/tcrypt.ko mode=218 sec=0 2>/dev/null
dmesg -c | grep -E 'testing speed|cycles|tcrypt:' | sed 's/^\[[^]]*\] //; s/^tcrypt: //'
echo "SM4RS-TCRYPT-END"
