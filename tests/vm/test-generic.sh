# SPDX-License-Identifier: GPL-2.0
# Scenario "test-generic": our sm4-generic alone serves SM4. testmgr checks the cipher on
# registration and every SM4 template built over it; the KUnit suites run when sm4_kunit is
# loaded (those of the absent drivers are skipped): sm4-generic and cfb-sm4-generic against
# upstream's C SM4. cfb(sm4) is served by cfb-sm4-generic (testmgr has no test for it).
# fscrypt and LUKS2 data written by test-a72 with sm4-neon is read back here, and more written.

if load_ours sm4-generic && load_ours sm4_kunit; then
	check_selftest sm4-generic
	instantiate "ecb(sm4)" "cbc(sm4)" "ctr(sm4)" "xts(sm4)" "cts(cbc(sm4))" "gcm(sm4)" "ccm(sm4)"
	slow_selftests off
	run_tcrypt_test 191 "ecb-cbc-ctr-xts(sm4-generic)" "ecb(sm4)=*sm4-generic*" \
		"cbc(sm4)=*sm4-generic*" "ctr(sm4)=*sm4-generic*" "xts(sm4)=*sm4-generic*"
	run_tcrypt_test 59 "cts(cbc(sm4-generic))" "cts(cbc(sm4))=*sm4-generic*"
	run_tcrypt_test 55 "gcm(sm4-generic)" "gcm(sm4)=gcm_base(*sm4-generic*"
	run_tcrypt_test 56 "ccm(sm4-generic)" "ccm(sm4)=ccm_base(*sm4-generic*"
	# (Every mode of the list: the kernel's templates, and sm4-generic's cfb(sm4).)
	for alg in $(awk '{ print $1 }' "$MODES_LIST"); do
		drv=$(serving_driver "$alg")
		case $drv in
		*sm4-generic*) pass "served.$alg" ;;
		*) fail "served.$alg" "served by '$drv', not a template over sm4-generic" ;;
		esac
	done
	rmmod sm4_kunit
	# A transform held through AF_ALG (a template over sm4-generic) pins the module.
	check_unload_held sm4-generic "xts(sm4)" $XTS_KEY
	# Unloading removed the cipher and every template instance built on it.
	if [ -z "$(crypto_field sm4-generic selftest)" ]; then
		pass "unload.sm4-generic.unregistered"
	else
		fail "unload.sm4-generic.unregistered" "sm4-generic still registered"
	fi
	# The data test-a72 wrote with sm4-neon reads back over the kernel's templates
	# (sm4-generic loaded again); more is written for the last boots to read.
	if ! have_client_disks; then
		fail "clients.disks" "no /dev/vdb and /dev/vdc"
	elif reload_ours sm4-generic; then
		fscrypt_client middle "xts(*sm4-generic*)" "cts(*sm4-generic*)"
		luks_client middle "xts(*sm4-generic*)"
	fi
fi
# The silicon command (scripts/silicon.sh), for function only: upstream's C sm4-ce and ours
# timed in turn by tcrypt, side by side. Under QEMU its figures mean nothing, and it says so.
if SEC=1 MHZ=1000 UPSTREAM_DIR=/lib/modules/kernel INSMOD=finit silicon.sh /lib/modules/sm4rs >/tmp/silicon.out 2>&1 &&
	grep -q '^xts(sm4) *dec *4096 ' /tmp/silicon.out && grep -q 'ours c/B' /tmp/silicon.out &&
	grep -q 'NOTE: this is QEMU' /tmp/silicon.out; then
	pass "silicon.runs"
	grep -E '^(mode|xts\(sm4\) *dec *4096) ' /tmp/silicon.out | sed 's/^/# silicon: /'
else
	fail "silicon.runs" "$(tail -n 3 /tmp/silicon.out | tr '\n' ' ')"
fi
