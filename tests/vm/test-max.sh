# SPDX-License-Identifier: GPL-2.0
# Scenario "test-max" (-cpu max, with SM4 and NEON): sm4_generic, sm4-ce and sm4-neon. The
# KUnit suites of all three run at load; testmgr (with the extended tests) checks every
# algorithm on registration; the crypto API must pick sm4-ce, and testmgr checks it again
# through tcrypt; sm4-neon, outranked, is tested by driver name (its KUnit suite).

CE_DRIVERS="sm4-ce ecb-sm4-ce cbc-sm4-ce ctr-sm4-ce cts-cbc-sm4-ce xts-sm4-ce"
NEON_DRIVERS="ecb-sm4-neon cbc-sm4-neon ctr-sm4-neon cts-cbc-sm4-neon xts-sm4-neon"

if load_ours sm4_generic && load_ours sm4-ce && load_ours sm4-neon; then
	for drv in sm4-generic $CE_DRIVERS $NEON_DRIVERS; do
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
	run_tcrypt_speed "sm4-ce"
	check_af_alg ""
	check_af_alg "-sm4-neon"
	check_dm_crypt "xts(sm4)"
	check_dm_crypt "xts-sm4-neon"
	for m in sm4-ce sm4-neon; do
		if rmmod "$m" && ! grep -q -- "-$m\$" /proc/crypto; then
			pass "unload.$m"
		else
			fail "unload.$m" "rmmod failed or drivers still registered"
		fi
	done
fi
