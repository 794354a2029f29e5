# SPDX-License-Identifier: GPL-2.0
# The kernel's own users of the drivers: tcrypt (testmgr's tests and speed), AF_ALG known
# answers, dm-crypt against the oracle; unloading a module while a transform holds it.

# run_tcrypt_test MODE NAME [ALG=DRIVER...]: tcrypt in mode MODE (testmgr's tests of that
# mode's algorithms, by algorithm name). Passes only if tcrypt ran to its end (it then
# refuses to stay loaded, with EAGAIN), reported no failure, and each ALG is served by
# DRIVER (a shell pattern): the tests ran on the implementation the result names. (tcrypt is
# loaded with the test tool finit: BusyBox's insmod loads a module whose init fails a second
# time, which ran every tcrypt mode twice.)
run_tcrypt_test() {
	local mode=$1 name=$2 log pair alg want drv
	shift 2
	if [ ! -f /lib/modules/kernel/tcrypt.ko ]; then
		fail "testmgr.$name" "no tcrypt.ko in this kernel's modules"
		return
	fi
	klog_new >/dev/null
	finit /lib/modules/kernel/tcrypt.ko mode="$mode" sec=0 2>/tmp/tcrypt.err
	log=$(klog_new)
	if ! grep -qE 'Resource temporarily unavailable|Try again' /tmp/tcrypt.err; then
		fail "testmgr.$name" "tcrypt mode=$mode did not run to its end: $(cat /tmp/tcrypt.err)"
		return
	fi
	if echo "$log" | grep -qE 'one or more tests failed|alg: .*(fail|FAIL)'; then
		echo "$log" | grep -E 'tcrypt|alg:' | head -n 5
		fail "testmgr.$name" "tcrypt mode=$mode reported failures"
		return
	fi
	for pair in "$@"; do
		alg=${pair%%=*} want=${pair#*=}
		drv=$(serving_driver "$alg")
		case $drv in
		$want) ;;
		*)
			fail "testmgr.$name" "$alg was served by '${drv:-nobody}', not '$want'"
			return
			;;
		esac
	done
	pass "testmgr.$name"
}

# instantiate ALG...: makes the kernel build each ALG as its first user would (an AF_ALG
# socket bound to it with a key, then let go): a template instance that serves it is made
# and gets testmgr's self-test then (the bind waits for it), so that tcrypt's tests of it
# after slow_selftests off are its second, on the fixed vectors.
instantiate() {
	local a key
	[ -w /proc/sys/crypto/af_alg_restrict ] && echo 0 >/proc/sys/crypto/af_alg_restrict
	for a in "$@"; do
		case $a in xts*) key=$XTS_KEY ;; *) key=$AF_KEY ;; esac
		afalg hold "$a" "$key" </dev/null >/dev/null 2>&1 || :
	done
}

# Runs tcrypt mode 218 (the SM4 speed test: ecb, cbc, cts(cbc), ctr, xts; sec=0 means a
# fixed small number of iterations) and checks that it reached its last algorithm with the
# expected driver ($1) and reported no failure.
run_tcrypt_speed() {
	local log
	klog_new >/dev/null
	finit /lib/modules/kernel/tcrypt.ko mode=218 sec=0 2>/tmp/tcrypt.err
	log=$(klog_new)
	if ! grep -qE 'Resource temporarily unavailable|Try again' /tmp/tcrypt.err; then
		fail "tcrypt.mode218" "tcrypt did not run to its end: $(cat /tmp/tcrypt.err)"
	elif ! echo "$log" | grep -q "testing speed of .*xts(sm4) (xts-$1) decryption"; then
		echo "$log" | grep -E "testing speed|failed" | tail -n 3
		fail "tcrypt.mode218" "did not reach xts(sm4) decryption with xts-$1"
	elif echo "$log" | grep -qiE "failed|error"; then
		fail "tcrypt.mode218" "tcrypt reported a failure"
	else
		pass "tcrypt.mode218"
	fi
}

# AF_ALG (CRYPTO_USER_API_SKCIPHER) with kcapi-enc: ECB, CBC and CTR of sm4 through the
# crypto user API, by algorithm name, or by driver name if $1 is a driver suffix (e.g.
# "-sm4-neon" gives cbc-sm4-neon). The expected outputs were computed independently with
# Python's cryptography package: key 0123456789abcdeffedcba9876543210, IV 000102..0f,
# plaintext 000102..3f (64 bytes). kcapi-enc pads what it encrypts (the first 64 bytes of
# its output are compared) and is told not to unpad what it decrypts.
AF_KEY=0123456789abcdeffedcba9876543210
# The 256-bit key of the XTS tests (AF_ALG, dm-crypt).
XTS_KEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
AF_IV=000102030405060708090a0b0c0d0e0f
AF_PT=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f
AF_ECB=06989c613da668ad2a8df782e1a8f96a4b910651754b5553f10cfa0c8a09e9e5f42952cf94ac83688437c9b671d6c7fad55bfd68e7901219f41fab48427ab58d
AF_CBC=2677f46b09c122cc975533105bd4a22ad9ee98830e69745c9827f934a19621f8db45a48645909eefda6bae89a72e659ba6394a4e05bd7cfe514852a2ab9a2d80
AF_CTR=06999e6239a36eaa2284fd89eda5f7657f161f5854b6ea16c28809fe9d1db3053cfb70c3ee0ad1492ac453e5df31aa42f4996449643f266e08abb2059a04c090
hex2bin() { echo -n "$1" | xxd -r -p; }
bin2hex() { xxd -p | tr -d '\n'; }
check_af_alg() {
	local suffix=$1 mode name expect out back
	# Linux 7.3 limits AF_ALG to an allowlist of algorithms by default (SM4 is not on it):
	# lift it, as a distribution that offers SM4 to userspace would.
	[ -w /proc/sys/crypto/af_alg_restrict ] && echo 0 >/proc/sys/crypto/af_alg_restrict
	hex2bin $AF_KEY >/tmp/af_key
	for mode in ecb cbc ctr; do
		if [ -n "$suffix" ]; then name="$mode$suffix"; else name="$mode(sm4)"; fi
		case $mode in
		ecb) expect=$AF_ECB ;;
		cbc) expect=$AF_CBC ;;
		ctr) expect=$AF_CTR ;;
		esac
		if [ $mode = ecb ]; then set --; else set -- --iv $AF_IV; fi
		out=$(hex2bin $AF_PT | kcapi-enc -q -e -c "$name" --keyfd 3 "$@" 3</tmp/af_key | bin2hex | cut -c1-128)
		back=$(hex2bin "$expect" | kcapi-enc -q -d --nounpad -c "$name" --keyfd 3 "$@" 3</tmp/af_key | bin2hex)
		if [ "$out" = "$expect" ] && [ "$back" = "$AF_PT" ]; then
			pass "af_alg.$name"
		else
			fail "af_alg.$name" "encrypt gave '$out', decrypt gave '$back'"
		fi
	done
}

# dm-crypt on /dev/vda: data written through a mapping whose cipher is $1 (a crypto API
# name, e.g. xts(sm4) or a driver name) reads back the same through a mapping that uses the
# kernel's template over the oracle (upstream's C SM4, registered by sm4_kunit), and is not
# on the disk in clear.
check_dm_crypt() {
	local cipher=$1 key=$XTS_KEY sectors
	sectors=$(cat /sys/block/vda/size 2>/dev/null)
	if [ -z "$sectors" ]; then
		fail "dm-crypt.$cipher" "no /dev/vda"
		return
	fi
	export DM_DISABLE_UDEV=1
	dd if=/dev/urandom of=/tmp/pattern bs=4096 count=64 2>/dev/null
	if ! dmsetup create --noudevsync sm4a --table "0 $sectors crypt capi:$cipher-plain64 $key 0 /dev/vda 0" ||
		! dmsetup create --noudevsync sm4b --table "0 $sectors crypt capi:xts(ecb(sm4-oracle))-plain64 $key 0 /dev/vda 0"; then
		fail "dm-crypt.$cipher" "dmsetup create failed"
		dmsetup remove --noudevsync sm4a 2>/dev/null
		return
	fi
	dd if=/tmp/pattern of=/dev/mapper/sm4a bs=4096 seek=3 2>/dev/null
	sync
	echo 3 >/proc/sys/vm/drop_caches
	dd if=/dev/mapper/sm4b of=/tmp/back bs=4096 skip=3 count=64 2>/dev/null
	dd if=/dev/vda of=/tmp/raw bs=4096 skip=3 count=64 2>/dev/null
	if cmp -s /tmp/pattern /tmp/back && ! cmp -s /tmp/pattern /tmp/raw; then
		pass "dm-crypt.$cipher"
	else
		fail "dm-crypt.$cipher" "data read through xts(ecb(sm4-oracle)) differs"
	fi
	dmsetup remove --noudevsync sm4a
	dmsetup remove --noudevsync sm4b
}

# Unloading module $1 while an AF_ALG socket holds a transform of algorithm $2 (key $3) is
# refused; once the socket is closed, the module unloads and its drivers are gone.
check_unload_held() {
	local mod=$1 alg=$2 key=$3 pid i name
	name=$(echo "$mod" | tr - _)
	rm -f /tmp/hold.fifo /tmp/hold.out
	mkfifo /tmp/hold.fifo
	[ -w /proc/sys/crypto/af_alg_restrict ] && echo 0 >/proc/sys/crypto/af_alg_restrict
	afalg hold "$alg" "$key" </tmp/hold.fifo >/tmp/hold.out 2>&1 &
	pid=$!
	# The tool starts once the FIFO has a writer; closing it ends the hold.
	exec 3>/tmp/hold.fifo
	i=0
	while ! grep -q '^held' /tmp/hold.out && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if ! grep -q '^held' /tmp/hold.out; then
		fail "unload.$mod.refused-while-held" "afalg could not hold $alg: $(cat /tmp/hold.out)"
	elif rmmod "$mod" 2>/tmp/rmmod.err; then
		fail "unload.$mod.refused-while-held" "rmmod succeeded while $alg was held"
	elif grep -q "^$name " /proc/modules; then
		pass "unload.$mod.refused-while-held"
	else
		fail "unload.$mod.refused-while-held" "rmmod failed but the module is gone: $(cat /tmp/rmmod.err)"
	fi
	exec 3>&-
	wait $pid
	# The socket's transform is freed when the socket goes, which the kernel may finish a
	# moment after the process has ended: wait (up to 10 s) for the module's last user.
	if ! wait_unused "$mod" 100; then
		fail "unload.$mod" "still in use 10 s after the socket was closed (refcnt $(cat /sys/module/$name/refcnt))"
	elif rmmod "$mod" 2>/tmp/rmmod.err && ! grep -q "^$name " /proc/modules; then
		pass "unload.$mod"
	else
		fail "unload.$mod" "rmmod failed with no user left: $(cat /tmp/rmmod.err)"
	fi
}
