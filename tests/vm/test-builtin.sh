# SPDX-License-Identifier: GPL-2.0
# Scenario "test-builtin" (-cpu max): the kernel built from the patch series with every SM4
# symbol =y (LANE-intree-y): the Rust drivers, GCM and CCM included, registered at boot
# and passed testmgr; the KUnit suites ran at
# boot; the crypto API serves every SM4 algorithm from them; tcrypt's tests of the modes, GCM
# and CCM pass; AF_ALG gives right results; the fscrypt and LUKS2 data of the boots before
# reads back.

# (Not the cfb(sm4) drivers: testmgr has no test for them; the KUnit suites test them.)
CE_DRIVERS="sm4-ce $(drivers_of sm4-ce $SKCIPHERS $MACS)"
NEON_DRIVERS=$(drivers_of sm4-neon $SKCIPHERS)

# Built in: registered by "kernel", not by a module.
# ("builtin.<module>" stands for "load.<module>" of the other scenarios: vm.sh then checks
# that the module's KUnit suite ran cases.)
for pair in "builtin.sm4-generic sm4-generic" "builtin.sm4-ce sm4-ce" \
	"builtin.sm4-neon ecb-sm4-neon" "builtin.sm4-ce-gcm gcm-sm4-ce" "builtin.sm4-ce-ccm ccm-sm4-ce"; do
	set -- $pair
	m=$(crypto_field "$2" module)
	if [ "$m" = kernel ]; then pass "$1"; else fail "$1" "$2 registered by '${m:-nobody}'"; fi
done
# The suites of sm4_kunit ran at boot (vm.sh then checks each driver's suite ran cases).
if klog_all | grep -q '# Subtest: sm4_abstraction'; then
	pass "builtin.sm4_kunit"
else
	fail "builtin.sm4_kunit" "no sm4 KUnit suite ran at boot"
fi
for drv in sm4-generic $CE_DRIVERS $NEON_DRIVERS gcm-sm4-ce ccm-sm4-ce; do
	check_selftest "$drv"
done
slow_selftests off
# CRYPTO_SM4_RUST_CFB is off here: no driver of ours has cfb(sm4) (only the test module's
# oracle, cfb-sm4-oracle, registers it).
if grep -qE '^driver *: cfb-sm4-(generic|neon|ce)$' /proc/crypto; then
	fail "cfb.off" "a cfb(sm4) driver is registered without CRYPTO_SM4_RUST_CFB"
else
	pass "cfb.off"
fi
check_served served.sm4 sm4 sm4-ce
check_served_all sm4-ce $SKCIPHERS $MACS "gcm(sm4):gcm" "ccm(sm4):ccm"
run_tcrypt_test 191 "ecb-cbc-ctr-xts(sm4-ce)" "ecb(sm4)=ecb-sm4-ce" "cbc(sm4)=cbc-sm4-ce" \
	"ctr(sm4)=ctr-sm4-ce" "xts(sm4)=xts-sm4-ce"
run_tcrypt_test 59 "cts(cbc(sm4-ce))" "cts(cbc(sm4))=cts-cbc-sm4-ce"
run_tcrypt_test 55 "gcm(sm4).gcm-sm4-ce" "gcm(sm4)=gcm-sm4-ce"
run_tcrypt_test 56 "ccm(sm4).ccm-sm4-ce" "ccm(sm4)=ccm-sm4-ce"
check_af_alg ""
if ! have_client_disks; then
	fail "clients.disks" "no /dev/vdb and /dev/vdc"
else
	fscrypt_client last xts-sm4-ce cts-cbc-sm4-ce
	luks_client last xts-sm4-ce
fi
