# SPDX-License-Identifier: GPL-2.0
# Scenario "test-aead" (-cpu max, kmemleak on): our sm4-ce-gcm and sm4-ce-ccm under load.
#   unloading      unloaded and loaded again and again while AF_ALG users (a quarter of their
#                  requests gcm(sm4) or ccm(sm4), random associated data and tag sizes)
#                  keep arriving
#   concurrency    such users on every CPU at once
#   faults         every allocation of an AF_ALG AEAD request (13 bytes of associated data,
#                  4100 of text, as TLS sends) failing once
#   kmemleak       nothing leaked once everything is unloaded
# (Upstream's C AEADs on our exports, and kTLS, have a boot without kmemleak: test-ktls.)
# The references are upstream's C SM4, registered by the test module (sm4_kunit), loaded
# without running its suites (the VM boots with kunit.enable=0). The timed parts last
# sm4rs.secs seconds each (make test: 8, make test-long: 120).

SECS=$(load_start)
# sm4-ce's own drivers are not this boot's subject (test-max and test-load run testmgr's slow
# tests on them): the fixed vectors only, until the AEADs register.
slow_selftests off
if load_ours sm4-generic && load_ours sm4-ce && settle_selftests $(drivers_of sm4-ce $SKCIPHERS) &&
	load_oracle; then
	phase aead
	# (Their first registration in this boot: testmgr's slow tests too.)
	slow_selftests on
	if load_ours sm4-ce-gcm && load_ours sm4-ce-ccm; then
		settle_selftests gcm-sm4-ce ccm-sm4-ce
		slow_selftests off
		export AFALG_AEAD=1
		check_unload_under_load "$SECS" unload-under-load-aead sm4-ce-gcm sm4-ce-ccm
		for m in gcm ccm; do
			if grep -q "^sm4_ce_$m " /proc/modules && wait_selftest $m-sm4-ce 50; then
				pass "unload-under-load-aead.sm4-ce-$m-back"
			else
				fail "unload-under-load-aead.sm4-ce-$m-back" "not loaded and self-tested at the end"
			fi
		done
		phase concurrency
		stress_start 4 "$SECS" concurrent-aead
		stress_check concurrent-aead
		phase faults
		if faults_setup; then
			for m in "gcm-sm4-ce 000102030405060708090a0b" "ccm-sm4-ce 03000102030405060708090a0b0c0d0e"; do
				set -- $m
				if out=$(afalg faults "$1" "$AF_KEY" "$2" 4100 2>&1); then
					pass "faults.af_alg.$1"
					echo "SM4RS-INFO faults.af_alg.$1: $out"
				else
					fail "faults.af_alg.$1" "$out"
				fi
			done
		else
			fail "faults.setup" "no failslab / fail_page_alloc in debugfs"
		fi
		unset AFALG_AEAD
	fi
	# (The algorithms' descriptions are freed by the crypto API as they go: kmemleak below
	# reports any that is not.)
	for m in sm4_ce_gcm sm4_ce_ccm; do
		if grep -q "^$m " /proc/modules; then
			rmmod_settled $m || fail "aead.unload" "rmmod $m failed"
		fi
	done
	rmmod_settled sm4-ce sm4_kunit sm4-generic || fail "load.unload-all" "rmmod failed at the end"
	phase kmemleak
	check_kmemleak
	phase end
fi
