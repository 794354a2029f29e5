# SPDX-License-Identifier: GPL-2.0
# Scenario "test-load" (-cpu max, kmemleak on; /dev/vda scratch, /dev/vdb ext4):
#   unloading      sm4-ce and sm4-neon removed and loaded again and again while AF_ALG
#                  users keep arriving (they fall back to the next driver)
#   concurrency    on every CPU at once: AF_ALG users of every mode and random lengths,
#                  dm-crypt I/O and fscrypt file I/O, all checked; without sm4-ce
#                  (sm4-neon serves), then with it
#   faults         every allocation of an AF_ALG request of each mode, and of a dm-crypt
#                  table load, fails once: a clean error, and the next request works
#   bad input      AF_ALG errors for bad keys, IVs and lengths: the same as the kernel's
#                  templates over the oracle give
# The references are upstream's C SM4, registered by the test module (sm4_kunit), loaded
# without running its suites (the VM boots with kunit.enable=0).
#   kmemleak       nothing leaked at the end
# The timed parts last sm4rs.secs seconds each (make test: 8, make test-long: 120). The
# AEADs have a boot of their own, test-aead.

SECS=$(load_start)

# Each phase: four AF_ALG users, one dm-crypt and one fscrypt user at once.
concurrent_users() {
	local tag=$1 mnt=/mnt/load key id
	mount -t ext4 /dev/vdb $mnt 2>/dev/null || { fail "$tag.mount" "cannot mount /dev/vdb"; return; }
	key=$(head -c 64 /dev/urandom | bin2hex)
	id=$(fscrypt add $mnt "$key")
	mkdir $mnt/$tag
	fscrypt set $mnt/$tag "$id" || fail "$tag.fscrypt-policy" "cannot set the policy"
	stress_start 4 "$SECS" "$tag"
	dm_worker "$SECS" /dev/vda "$tag" &
	fs_worker "$SECS" $mnt/$tag "$tag" &
	echo "SM4RS-INFO $tag: xts(sm4) by $(serving_driver "xts(sm4)"), cbc(sm4) by $(serving_driver "cbc(sm4)")"
	stress_check "$tag"
	worker_check "$tag.dm-crypt-user" /tmp/dmw.$tag "256 KiB writes read back"
	worker_check "$tag.fscrypt-user" /tmp/fsw.$tag "files read back"
	fscrypt remove $mnt "$id" >/dev/null
	umount $mnt
}

mkdir -p /mnt/load
if ! mkfs.ext4 -q -F -O encrypt -E nodiscard /dev/vdb >/tmp/mkfs.out 2>&1; then
	fail "load.mkfs" "$(tail -n 1 /tmp/mkfs.out)"
# Once the drivers loaded have passed testmgr's slow tests, the oracle (the reference, not a
# subject: 11 s of slow tests) and the reloads below run its vectors only.
elif load_ours sm4-generic && load_ours sm4-ce &&
	settle_selftests sm4-ce $(drivers_of sm4-ce $SKCIPHERS $MACS) &&
	load_ours sm4-neon && settle_selftests $(drivers_of sm4-neon $SKCIPHERS) &&
	slow_selftests off && load_oracle; then
	# Unloading first: on Linux 7.3 the first fscrypt user makes blk-crypto-fallback take
	# xts(sm4) from the driver that serves it then, for good.
	phase unloading
	check_unload_under_load "$SECS" unload-under-load sm4-ce sm4-neon
	for m in sm4-ce sm4-neon; do
		# Back, registered and self-tested; a reload at the loop's last moment may still be
		# registering: wait up to 5 s.
		i=0
		while ! { grep -q "^$(echo $m | tr - _) " /proc/modules &&
			[ "$(crypto_field ecb-$m selftest)" = passed ]; } && [ $i -lt 50 ]; do
			i=$((i + 1))
			sleep 0.1
		done
		if grep -q "^$(echo $m | tr - _) " /proc/modules && [ "$(crypto_field ecb-$m selftest)" = passed ]; then
			pass "unload-under-load.$m-back"
		else
			fail "unload-under-load.$m-back" "$m not loaded and registered at the end: $(grep "^$(echo $m | tr - _) " /proc/modules), selftest '$(crypto_field ecb-$m selftest)'"
		fi
	done
	phase concurrency
	if rmmod_settled sm4-ce; then
		concurrent_users concurrent-neon
		reload_ours sm4-ce
		concurrent_users concurrent-ce
	else
		fail "concurrent-neon.rmmod" "sm4-ce could not be removed"
	fi
	phase faults
	if faults_setup; then
		# The modes share the glue and the abstraction: make test runs every mode of
		# sm4-ce and two of sm4-neon, make test-long all of both.
		check_faults_af_alg -sm4-ce
		if [ "$SECS" -gt 30 ]; then
			check_faults_af_alg -sm4-neon
		else
			check_faults_af_alg -sm4-neon cbc xts
		fi
		# dm-crypt's constructor makes hundreds of allocations for its pools after the
		# transform (about 0.2 s each to fail and undo under KASAN): make test fails the
		# first 60 of xts(sm4), make test-long the first 400 of xts(sm4) and the first 60
		# of the other modes.
		if [ "$SECS" -gt 30 ]; then
			check_faults_dm "capi:xts(sm4)-plain64" 400
			for c in "capi:cbc(sm4)-plain64" "capi:ctr(sm4)-plain64" "capi:cfb(sm4)-plain64" \
				"capi:cts(cbc(sm4))-plain64" "capi:xts-sm4-neon-plain64"; do
				check_faults_dm "$c" 60
			done
		else
			check_faults_dm "capi:xts(sm4)-plain64" 60
		fi
	else
		fail "faults.setup" "no failslab / fail_page_alloc in debugfs"
	fi
	phase errors
	check_errnos -sm4-ce
	check_errnos -sm4-neon
	# (The algorithms' descriptions are freed by the crypto API as they go: kmemleak below
	# reports any that is not.)
	rmmod_settled sm4-ce sm4_kunit || fail "load.unload-all" "rmmod sm4-ce or sm4_kunit failed at the end"
	if klog_all | grep -q "using blk-crypto-fallback"; then
		echo "SM4RS-INFO sm4-neon stays loaded: blk-crypto-fallback holds xts(sm4) until reboot"
	else
		rmmod_settled sm4-neon sm4-generic || fail "load.unload-all" "rmmod failed at the end"
	fi
	phase kmemleak
	check_kmemleak
	phase end
fi
