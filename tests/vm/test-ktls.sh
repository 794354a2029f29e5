# SPDX-License-Identifier: GPL-2.0
# Scenario "test-ktls" (-cpu max): gcm(sm4) and ccm(sm4) against upstream's C drivers.
#   init     sm4-generic and sm4-ce with a driver name they register last taken (the squat
#            fixture): their inits fail with the self-tests of the registrations before in
#            flight, and nothing of them is left registered or touched after; sm4-ce's
#            cipher held meanwhile past a minute (the holder fixture), which the failed init
#            waits for
#   exports  upstream's C sm4-ce-gcm and sm4-ce-ccm, of this kernel's build, load on our
#            sm4-ce's exports and pass testmgr and tcrypt
#   kTLS     the kernel's TLS selftest (its SM4 variants) on ours and on upstream's C
#            drivers, with the same verdicts
#   ccm-fix  the kernel's ccm template at exactly 2^(8L) bytes, before and after the fix of
#            upstream/ (built from this kernel's source: scripts/fixtures.sh)
# (A boot without kmemleak, which makes every allocation of the network stack several times
# slower, and on one CPU, for qemu's sake: test-aead checks our AEADs for leaks and under
# concurrent load.)

# (KASAN is on, kmemleak is not: an init that fails part-way leaks its descriptions, on
# purpose, crypto/alg.rs.)
check_init_fails_late sm4-generic cfb-sm4-generic
check_init_fails_late sm4-ce cbcmac-sm4-ce sm4-ce 90000

# sm4-ce's own drivers and our AEADs are not this boot's subject (test-max and test-aead run
# testmgr's slow tests on them): the fixed vectors only, but for upstream's AEADs.
slow_selftests off
[ -w /proc/sys/crypto/af_alg_restrict ] && echo 0 >/proc/sys/crypto/af_alg_restrict
if load_ours sm4-generic && load_ours sm4-ce && settle_selftests $(drivers_of sm4-ce $SKCIPHERS); then
	check_upstream_aead
	check_ktls
	check_ccm_length_fix
fi
