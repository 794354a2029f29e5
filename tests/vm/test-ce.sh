# SPDX-License-Identifier: GPL-2.0
# Scenario "test-ce" (-cpu max): sm4_generic, then sm4-ce. The KUnit suites of both run at
# load; testmgr (with the extended tests) checks every sm4-ce algorithm on registration and
# again through tcrypt, which must pick the sm4-ce drivers.

if load_ours sm4_generic && load_ours sm4-ce; then
	for drv in sm4-generic sm4-ce ecb-sm4-ce cbc-sm4-ce ctr-sm4-ce cts-cbc-sm4-ce xts-sm4-ce; do
		check_selftest "$drv"
	done
	for pair in "sm4 sm4-ce" "ecb(sm4) ecb-sm4-ce" "cbc(sm4) cbc-sm4-ce" "cfb(sm4) cfb-sm4-ce" \
		"ctr(sm4) ctr-sm4-ce" "cts(cbc(sm4)) cts-cbc-sm4-ce" "xts(sm4) xts-sm4-ce"; do
		set -- $pair
		drv=$(serving_driver "$1")
		if [ "$drv" = "$2" ]; then pass "served.$1"; else fail "served.$1" "served by '$drv'"; fi
	done
	run_tcrypt_test 191 "ecb-cbc-ctr-xts(sm4-ce)"
	run_tcrypt_test 59 "cts(cbc(sm4-ce))"
	run_tcrypt_test 55 "gcm(sm4) over ctr-sm4-ce"
	run_tcrypt_test 56 "ccm(sm4) over sm4-ce"
	dmesg -c >/dev/null
	if insmod /lib/modules/kernel/tcrypt.ko mode=218 sec=0 num_mb=1 2>/dev/null || true; then
		if dmesg | grep -q "testing speed of .*xts(sm4)"; then
			pass "tcrypt.mode218"
		else
			fail "tcrypt.mode218" "did not reach xts(sm4)"
		fi
	fi
	if rmmod sm4-ce && [ -z "$(crypto_field ecb-sm4-ce selftest)" ]; then
		pass "unload.sm4-ce"
	else
		fail "unload.sm4-ce" "rmmod failed or drivers still registered"
	fi
fi
