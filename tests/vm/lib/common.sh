# SPDX-License-Identifier: GPL-2.0
# Helpers for the guest scenarios. Results are KTAP (Documentation/dev-tools/ktap.rst), the
# format of the KUnit suites that run in the same boot, and scripts/vm.sh reads both with one
# parser: /init prints the version line, each result is
#   ok <n> <test name>
#   not ok <n> <test name> # <reason>
# numbered from 1 without a gap (the parser checks that none was lost), and /init closes
# with a diagnostic line that gives the count. This file: results, the kernel log, loading
# and unloading modules; by concern, the other files of lib/ (sourced at the end):
#   crypto.sh   what /proc/crypto says: registered, served, self-tested; the lists of modes
#   users.sh    the kernel's own users: tcrypt, AF_ALG, dm-crypt; unloading while held
#   aead.sh     gcm(sm4) and ccm(sm4): upstream's C AEADs on our exports, ours, kTLS
#   clients.sh  real clients over shared disks: fscrypt, cryptsetup LUKS2
#   load.sh     load, unloading under load, fault injection, errors for bad input, kmemleak

# ktap_result "ok"|"not ok" NAME [REASON]: one KTAP result line. The count is kept in a file,
# so that results printed from a subshell are numbered too.
ktap_result() {
	local n
	n=$(($(cat /tmp/ktap.count 2>/dev/null || echo 0) + 1))
	echo $n >/tmp/ktap.count
	# (A reason of several lines is printed on one.)
	echo "$1 $n $2${3:+ # $(printf '%s' "$3" | tr '\n' ' ')}"
	# (The guest's uptime: the host's parser tells how long each result took.)
	echo "# at $(cut -d' ' -f1 /proc/uptime)"
}
# The number of results printed so far.
ktap_count() { cat /tmp/ktap.count 2>/dev/null || echo 0; }
# ktap_aside COMMAND...: runs a check whose results its caller reads from its output (a check
# of the check) instead of reporting them: the count of results is left as it was.
ktap_aside() {
	local n
	n=$(ktap_count)
	"$@"
	echo "$n" >/tmp/ktap.count
}
pass() { ktap_result ok "$1"; }
fail() { ktap_result "not ok" "$1" "$2"; }
# notrun NAME REASON: a check that could not run (KTAP's SKIP; the host prints NOT RUN).
notrun() { ktap_result ok "$1" "SKIP $2"; }

# The kernel messages printed since the last call (dmesg -c empties the kernel's buffer, so a
# copy of every message taken is kept in /tmp/klog for klog_all).
klog_new() { dmesg -c | tee -a /tmp/klog; }
# Every kernel message of the boot so far.
klog_all() {
	cat /tmp/klog 2>/dev/null
	dmesg
}

# Loads the C SM4 library (crypto/sm4.ko, unless built in): the oracle of the test module
# (sm4_kunit) is upstream's C SM4.
load_sm4_library() {
	grep -q '^sm4 ' /proc/modules && return 0
	[ -f /lib/modules/kernel/sm4.ko ] || return 0
	insmod /lib/modules/kernel/sm4.ko
}

# side_modules DRIVER SIDE: the modules, in load order, of one side of the comparisons of
# make bench and trace-request.py (DRIVER ce, neon or generic; SIDE upstream or ours).
# Upstream's XTS over sm4-neon is the template over ecb-sm4-neon, whose tweak needs the sm4
# cipher (sm4_generic).
side_modules() {
	local k=/lib/modules/kernel o=/lib/modules/sm4rs
	case $1:$2 in
	ce:upstream) echo "$k/sm4.ko $k/sm4-ce-cipher.ko $k/sm4-ce.ko $k/sm4-ce-gcm.ko $k/sm4-ce-ccm.ko" ;;
	ce:ours) echo "$o/sm4-ce.ko $o/sm4-ce-gcm.ko $o/sm4-ce-ccm.ko" ;;
	neon:upstream) echo "$k/sm4.ko $k/sm4_generic.ko $k/sm4-neon.ko" ;;
	neon:ours) echo "$o/sm4-neon.ko" ;;
	generic:upstream) echo "$k/sm4.ko $k/sm4_generic.ko" ;;
	generic:ours) echo "$o/sm4-generic.ko" ;;
	esac
}
# side_unload DRIVER: unloads either side's drivers of side_modules (and the template
# instances over them; the sm4 library stays). (busybox's rmmod stops at the first module
# that is not loaded: the names are those both sides may have.)
side_unload() {
	case $1 in
	ce) rmmod sm4_ce_gcm sm4_ce_ccm sm4_ce sm4_ce_cipher 2>/dev/null ;;
	neon) rmmod sm4_neon sm4_generic 2>/dev/null ;;
	generic) rmmod sm4_generic 2>/dev/null ;;
	esac
}

# Loads one of our modules by file name (sm4_kunit: the KUnit suites run during its load,
# after it registered the oracle, for which the C SM4 library is loaded first).
load_ours() {
	[ "$1" != sm4_kunit ] || load_sm4_library || { fail "load.$1" "the C SM4 library did not load"; return 1; }
	# (And the C NEON cipher of sm4_abstraction's c_driver_in_section_refused, where the
	# fixtures are built: not in the kernel tree's lanes.)
	[ "$1" != sm4_kunit ] || [ ! -f /lib/modules/fixtures/cneon.ko ] || grep -q '^cneon ' /proc/modules ||
		insmod /lib/modules/fixtures/cneon.ko || { fail "load.$1" "the C NEON fixture did not load"; return 1; }
	if insmod "/lib/modules/sm4rs/$1.ko"; then
		pass "load.$1"
	else
		fail "load.$1" "insmod failed"
		return 1
	fi
}

# Registers the oracle without running the KUnit suites (the VM boots with kunit.enable=0):
# the C SM4 library and the test module, which registers upstream's C SM4 as sm4-oracle and
# cfb-sm4-oracle, the references of the AF_ALG checks.
load_oracle() {
	if ! load_sm4_library || ! insmod /lib/modules/sm4rs/sm4_kunit.ko; then
		fail "load.oracle" "the C SM4 library or the test module did not load"
		return 1
	fi
	# (testmgr tests the cipher asynchronously: wait for it, up to 10 s.)
	if wait_selftest sm4-oracle 100 && [ "$(crypto_field cfb-sm4-oracle name)" = "cfb(sm4)" ]; then
		pass "load.oracle"
	else
		fail "load.oracle" "sm4-oracle not registered and self-tested within 10 s (selftest: '$(crypto_field sm4-oracle selftest)')"
		return 1
	fi
}

# slow_selftests on|off: testmgr's slow self-tests (random requests compared with the generic
# implementation, random scatterlist layouts over the vectors: Linux 6.12's extra tests, 7.3's
# full ones) on or off for the algorithms registered or tested from now on. Each driver gets
# them once per boot, on its first registration: a scenario turns them off once the drivers it
# loaded have passed them, so that reloads and tcrypt's tests of drivers already tested run the
# fixed vectors only, and on again before a driver new in the boot registers. (The self-test
# runs after the registration, in the background: switch before loading, and back once
# wait_selftest or check_selftest saw it pass.)
# A boot with sm4rs.fixed_selftests on its command line (and cryptomgr's own parameter set)
# keeps them off throughout: see scripts/test.sh, vm_variant.
slow_selftests() {
	local p v=1
	[ "$1" = on ] && ! grep -qw sm4rs.fixed_selftests /proc/cmdline && v=0
	for p in noextratests noslowtests; do
		p=/sys/module/cryptomgr/parameters/$p
		if [ -w "$p" ]; then echo $v >"$p"; fi
	done
}

# Loads one of our modules again, after a test unloaded it.
reload_ours() {
	if insmod "/lib/modules/sm4rs/$1.ko"; then
		pass "reload.$1"
	else
		fail "reload.$1" "insmod failed"
		return 1
	fi
}

# wait_unused MODULE TENTHS: waits up to TENTHS tenths of a second for MODULE to have no user
# (its reference count 0); fails if it does not come.
wait_unused() {
	local name i=0
	name=$(echo "$1" | tr - _)
	while [ "$(cat /sys/module/$name/refcnt 2>/dev/null)" != 0 ]; do
		[ $i -lt "$2" ] || return 1
		i=$((i + 1))
		sleep 0.1
	done
}

# rmmod_settled MODULE...: rmmod once the users are gone; the kernel may still hold the
# module for a moment (the crypto manager testing what a reload registered), so a busy
# module is tried again for up to 5 s.
rmmod_settled() {
	local m i
	for m in "$@"; do
		i=0
		while ! rmmod "$m" 2>/tmp/rmmod.err; do
			i=$((i + 1))
			[ $i -lt 50 ] || { cat /tmp/rmmod.err; return 1; }
			sleep 0.1
		done
	done
}

for f in /tests/lib/*.sh; do
	[ "$f" = /tests/lib/common.sh ] || . "$f"
done
unset f
