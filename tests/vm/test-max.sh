# SPDX-License-Identifier: GPL-2.0
# Scenario "test-max" (-cpu max, with SM4 and NEON): sm4-generic, sm4-ce and sm4-neon. The
# KUnit suites of all three run when sm4_kunit is loaded; testmgr (with the extended tests)
# checks every algorithm on registration; the crypto API must pick sm4-ce, and testmgr
# checks it again through tcrypt; sm4-neon, outranked, is tested by driver name. Our
# sm4-ce-gcm and sm4-ce-ccm (loaded before sm4_kunit, so that their suites run) serve
# gcm(sm4) and ccm(sm4) and pass testmgr and tcrypt (their KUnit suites compare them, and the
# kernel's rfc4106 and rfc4309 templates over them, with the templates over the oracle). fscrypt
# (ext4) and cryptsetup LUKS2 data written by the boots before (sm4-neon, the templates over
# sm4-generic) reads back with sm4-ce. The references (KUnit, dm-crypt, AF_ALG) are upstream's C SM4, registered by sm4_kunit.

CE_DRIVERS="sm4-ce $(drivers_of sm4-ce $SKCIPHERS $MACS)"
NEON_DRIVERS=$(drivers_of sm4-neon $SKCIPHERS)

# The kernel's GCM and CCM templates over our ctr and cbcmac, before our AEADs register (the
# template instances that their self-tests build would serve gcm(sm4) after them).
if load_ours sm4-generic && load_ours sm4-ce && load_ours sm4-neon; then
	instantiate "gcm(sm4)" "ccm(sm4)"
	slow_selftests off
	run_tcrypt_test 55 "gcm(sm4).template-over-ctr-sm4-ce" "gcm(sm4)=gcm_base(ctr-sm4-ce,*)"
	run_tcrypt_test 56 "ccm(sm4).template-over-sm4-ce" "ccm(sm4)=ccm_base(ctr-sm4-ce,cbcmac-sm4-ce)"
	# (For the drivers registered next.)
	slow_selftests on
fi
if grep -q '^sm4_neon ' /proc/modules && load_ours sm4-ce-gcm && load_ours sm4-ce-ccm &&
	load_ours sm4_kunit; then
	for drv in sm4-generic $CE_DRIVERS $NEON_DRIVERS; do
		check_selftest "$drv"
	done
	# testmgr has no test for cfb(sm4) (the KUnit suites test it): never a self-test PASS.
	check_no_selftest cfb-sm4-ce
	# (gcm-sm4-ce and ccm-sm4-ce, loaded before sm4_kunit, passed theirs too: checked below.)
	wait_selftest gcm-sm4-ce 100 && wait_selftest ccm-sm4-ce 100 || :
	slow_selftests off
	check_served served.sm4 sm4 sm4-ce
	check_served_all sm4-ce $SKCIPHERS $OPTIONAL $MACS
	run_tcrypt_test 191 "ecb-cbc-ctr-xts(sm4-ce)" "ecb(sm4)=ecb-sm4-ce" "cbc(sm4)=cbc-sm4-ce" \
		"ctr(sm4)=ctr-sm4-ce" "xts(sm4)=xts-sm4-ce"
	run_tcrypt_test 59 "cts(cbc(sm4-ce))" "cts(cbc(sm4))=cts-cbc-sm4-ce"
	check_our_aead
	# (They pin sm4-ce, whose unloading is tested below.)
	rmmod sm4_ce_gcm sm4_ce_ccm
	run_tcrypt_speed "sm4-ce"
	check_af_alg ""
	check_af_alg "-sm4-neon"
	check_dm_crypt "xts(sm4)"
	check_dm_crypt "xts-sm4-neon"
	rmmod sm4_kunit
	# Transforms held through AF_ALG pin their modules; closed, the modules unload.
	check_unload_held sm4-ce "xts(sm4)" $XTS_KEY
	check_unload_held sm4-neon cbc-sm4-neon 000102030405060708090a0b0c0d0e0f
	for m in sm4-ce sm4-neon; do
		if grep -q -- "-$m\$" /proc/crypto; then
			fail "unload.$m.unregistered" "drivers of $m still registered"
		else
			pass "unload.$m.unregistered"
		fi
	done
	# Real clients on our drivers (loaded again) read back the data of the boots before.
	# Last: on Linux 7.3 fscrypt's blk-crypto-fallback keeps its xts(sm4) for good.
	if ! have_client_disks; then
		fail "clients.disks" "no /dev/vdb and /dev/vdc"
	elif reload_ours sm4-ce && reload_ours sm4-neon; then
		fscrypt_client last xts-sm4-ce cts-cbc-sm4-ce
		luks_client last xts-sm4-ce
		luks_benchmark
	fi
fi
