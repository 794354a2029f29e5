# SPDX-License-Identifier: GPL-2.0
# Scenario "run" (make run): load our modules, show which drivers serve SM4, run tcrypt's
# SM4 speed test (mode 218). Modules that do not apply to the CPU (sm4-ce without the SM4
# instructions) say so and are skipped. Its checks: the best of ours for the CPU (sm4-ce
# with the SM4 instructions, sm4-neon without) serves each mode and passes testmgr's tests
# through tcrypt (which also makes the template instances the table shows), and the speed
# test runs to its end on it.

# (The table, not testmgr's slow tests, is what this boot is for: the fixed vectors only.)
slow_selftests off
for m in sm4-generic sm4-ce sm4-neon; do
	if insmod "/lib/modules/sm4rs/$m.ko" 2>/tmp/err; then
		echo "SM4RS-INFO loaded $m"
	else
		echo "SM4RS-INFO not loaded $m: $(sed 's/.*: //' /tmp/err)"
	fi
done
best=sm4-neon
grep -q '^Features.* sm4\( \|$\)' /proc/cpuinfo && best=sm4-ce
run_tcrypt_test 191 "ecb-cbc-ctr-xts(sm4)" "ecb(sm4)=ecb-$best" "cbc(sm4)=cbc-$best" \
	"ctr(sm4)=ctr-$best" "xts(sm4)=xts-$best"
run_tcrypt_test 59 "cts(cbc(sm4))" "cts(cbc(sm4))=cts-cbc-$best"
echo "SM4RS-TABLE-BEGIN"
sm4_table
echo "SM4RS-TABLE-END"
klog_new >/dev/null
before=$(wc -l </tmp/klog)
run_tcrypt_speed "$best" >/tmp/speed
echo "SM4RS-TCRYPT-BEGIN"
tail -n +$((before + 1)) /tmp/klog | grep -E 'testing speed|cycles|tcrypt:' | sed 's/^\[[^]]*\] //; s/^tcrypt: //'
echo "SM4RS-TCRYPT-END"
cat /tmp/speed
