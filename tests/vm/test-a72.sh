# SPDX-License-Identifier: GPL-2.0
# Scenario "test-a72" (-cpu cortex-a72: NEON without SM4): sm4-ce refuses to load with
# -ENODEV, quietly, and leaves nothing registered; sm4-neon serves ECB/CBC/CFB/CTR (and
# CTS/XTS), passes testmgr's extended self-tests and its KUnit suite, and tcrypt mode 218
# completes. fscrypt and LUKS2 data is written with sm4-neon (set A), for the next boots to
# read back; AF_ALG users keep getting right results while sm4-neon is unloaded and loaded;
# the module parameter impl refuses a wrong name and forces a variant.

NEON_DRIVERS=$(drivers_of sm4-neon $SKCIPHERS)

load_ours sm4-generic
klog_new >/dev/null
if insmod /lib/modules/sm4rs/sm4-ce.ko 2>/tmp/err; then
	fail "sm4-ce.refuses-without-sm4" "loaded on a CPU without SM4"
elif grep -q "No such device" /tmp/err; then
	pass "sm4-ce.refuses-without-sm4"
else
	fail "sm4-ce.refuses-without-sm4" "$(cat /tmp/err)"
fi
if dmesg | grep -q .; then
	fail "sm4-ce.quiet-without-sm4" "the kernel printed: $(dmesg | head -n 1)"
else
	pass "sm4-ce.quiet-without-sm4"
fi
if grep -q -- '-sm4-ce' /proc/crypto; then
	fail "sm4-ce.nothing-registered" "sm4-ce drivers in /proc/crypto"
else
	pass "sm4-ce.nothing-registered"
fi
if load_ours sm4-neon && load_ours sm4_kunit; then
	for drv in $NEON_DRIVERS; do
		check_selftest "$drv"
	done
	# The variant the CPU table (sm4_neon_glue.rs CPUS) gives Cortex-A72 with AES: aese.
	if klog_all | grep -q 'impl=auto; AES and PMULL: yes; the loading CPU, MIDR 0x410fd08[0-9a-f]: "aese"'; then
		pass "param.impl-auto-a72"
	else
		fail "param.impl-auto-a72" "no load message naming aese for Cortex-A72 (MIDR 0x410fd08x): $(klog_all | grep -m1 'S-box for each CPU')"
	fi
	slow_selftests off
	check_served served.sm4 sm4 sm4-generic
	check_served_all sm4-neon $SKCIPHERS $OPTIONAL
	run_tcrypt_test 191 "ecb-cbc-ctr-xts(sm4-neon)" "ecb(sm4)=ecb-sm4-neon" \
		"cbc(sm4)=cbc-sm4-neon" "ctr(sm4)=ctr-sm4-neon" "xts(sm4)=xts-sm4-neon"
	run_tcrypt_test 59 "cts(cbc(sm4-neon))" "cts(cbc(sm4))=cts-cbc-sm4-neon"
	run_tcrypt_speed "sm4-neon"
	check_af_alg ""
	check_dm_crypt "xts(sm4)"
	# AF_ALG users of every mode (cfb too: cfb-sm4-generic serves while sm4-neon is out),
	# checked against the oracle of sm4_kunit, while sm4-neon comes and goes.
	check_unload_under_load "$(load_secs)" unload-under-load sm4-neon
	rmmod sm4_kunit
	check_unload_held sm4-neon "xts(sm4)" $XTS_KEY
	# The parameter impl: a name that is no variant is refused, with the reason; a forced
	# variant loads and serves (KUnit's sm4_neon_variants checks what each computes).
	grep -q '^sm4_neon ' /proc/modules && rmmod sm4_neon
	klog_new >/dev/null
	if insmod /lib/modules/sm4rs/sm4-neon.ko impl=bogus 2>/tmp/err; then
		fail "param.impl-refused" "loaded with impl=bogus"
		rmmod sm4_neon
	elif grep -q "Invalid argument" /tmp/err && klog_new | grep -q 'impl="bogus": not one of'; then
		pass "param.impl-refused"
	else
		fail "param.impl-refused" "$(cat /tmp/err)"
	fi
	if insmod /lib/modules/sm4rs/sm4-neon.ko impl=tbl 2>/tmp/err; then
		if klog_new | grep -q 'S-box impl="tbl"' &&
			[ "$(cat /sys/module/sm4_neon/parameters/impl)" = tbl ]; then
			pass "param.impl-forced"
		else
			fail "param.impl-forced" "no load message, or the parameter is not tbl"
		fi
		check_served "param.impl-forced.served" "xts(sm4)" "xts-sm4-neon"
		# (Unloaded once testmgr's self-tests of the new drivers have let it go.)
		if ! { wait_unused sm4-neon 100 && rmmod sm4_neon; }; then
			fail "param.impl-forced.unload" "sm4-neon still in use 10 s after loading"
		fi
	else
		fail "param.impl-forced" "$(cat /tmp/err)"
	fi
	# The clients write set A with sm4-neon (loaded again), for the next boots to read.
	if ! have_client_disks; then
		fail "clients.disks" "no /dev/vdb and /dev/vdc"
	elif reload_ours sm4-neon; then
		fscrypt_client first xts-sm4-neon cts-cbc-sm4-neon
		luks_client first xts-sm4-neon
	fi
fi
