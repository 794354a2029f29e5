# SPDX-License-Identifier: GPL-2.0
# Scenario "test-generic": our sm4_generic alone serves SM4. Its KUnit suite runs at load;
# testmgr checks the cipher on registration and every SM4 template built over it.

if load_ours sm4_generic; then
	check_selftest sm4-generic
	run_tcrypt_test 191 "ecb-cbc-ctr-xts(sm4-generic)"
	run_tcrypt_test 59 "cts(cbc(sm4-generic))"
	run_tcrypt_test 55 "gcm(sm4-generic)"
	run_tcrypt_test 56 "ccm(sm4-generic)"
	for alg in "ecb(sm4)" "cbc(sm4)" "ctr(sm4)" "xts(sm4)" "cts(cbc(sm4))"; do
		drv=$(serving_driver "$alg")
		case $drv in
		*sm4-generic*) pass "served.$alg" ;;
		*) fail "served.$alg" "served by '$drv', not a template over sm4-generic" ;;
		esac
	done
	# Unloading removes the cipher and every template instance built on it.
	if rmmod sm4_generic && [ -z "$(crypto_field sm4-generic selftest)" ]; then
		pass "unload.sm4_generic"
	else
		fail "unload.sm4_generic" "rmmod failed or sm4-generic still registered"
	fi
fi
