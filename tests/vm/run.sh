# SPDX-License-Identifier: GPL-2.0
# Scenario "run" (make run): load our modules, show which drivers serve SM4, run tcrypt.

for m in /lib/modules/sm4rs/*.ko; do
	m=${m##*/}
	load_ours "${m%.ko}"
done
run_tcrypt_test 191 "ecb-cbc-ctr-xts(sm4)" >/dev/null
run_tcrypt_test 59 "cts(cbc(sm4))" >/dev/null
echo "SM4RS-TABLE-BEGIN"
sm4_table
echo "SM4RS-TABLE-END"
echo "SM4RS-TCRYPT-BEGIN"
dmesg -c >/dev/null
insmod /lib/modules/kernel/tcrypt.ko mode=218 sec=1 2>/dev/null
dmesg -c | grep -E 'testing speed|bytes|tcrypt' | head -n 80
echo "SM4RS-TCRYPT-END"
