# SPDX-License-Identifier: GPL-2.0
# Scenario "test-nosm4" (-cpu cortex-a72, NEON without SM4): sm4-ce refuses to load with
# -ENODEV and leaves nothing registered; SM4 is still served.

load_ours sm4_generic
if insmod /lib/modules/sm4rs/sm4-ce.ko 2>/tmp/err; then
	fail "sm4-ce.refuses-without-sm4" "loaded on a CPU without SM4"
elif grep -q "No such device" /tmp/err; then
	pass "sm4-ce.refuses-without-sm4"
else
	fail "sm4-ce.refuses-without-sm4" "$(cat /tmp/err)"
fi
if grep -q -- '-sm4-ce' /proc/crypto; then
	fail "sm4-ce.nothing-registered" "sm4-ce drivers in /proc/crypto"
else
	pass "sm4-ce.nothing-registered"
fi
drv=$(serving_driver sm4)
if [ "$drv" = sm4-generic ]; then pass "served.sm4"; else fail "served.sm4" "served by '$drv'"; fi
run_tcrypt_test 191 "ecb-cbc-ctr-xts(sm4) without SM4"
