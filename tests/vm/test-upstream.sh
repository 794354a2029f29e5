# SPDX-License-Identifier: GPL-2.0
# Scenario "test-upstream" (-cpu max): no Rust SM4 at all. Upstream's C SM4 drivers (the SM4
# library and sm4-ce, from this kernel's own build; the initramfs of this boot holds none of
# this project's modules) read back every fscrypt and LUKS2 file that the boots before wrote
# with this project's drivers: test-a72 with sm4-neon (set A), test-generic with the kernel's
# templates over the Rust sm4-generic (set B).

if [ -n "$(ls /lib/modules/sm4rs 2>/dev/null)" ]; then
	fail "upstream.no-rust-modules" "this project's modules are in the initramfs: $(ls /lib/modules/sm4rs | tr '\n' ' ')"
elif insmod /lib/modules/kernel/sm4.ko && insmod /lib/modules/kernel/sm4-ce.ko; then
	pass "upstream.no-rust-modules"
	pass "upstream.load-c-sm4-ce"
	check_selftest xts-sm4-ce
	check_selftest cts-cbc-sm4-ce
	check_served "served.xts(sm4)" "xts(sm4)" xts-sm4-ce
	check_served "served.cts(cbc(sm4))" "cts(cbc(sm4))" cts-cbc-sm4-ce
	if ! have_client_disks; then
		fail "clients.disks" "no /dev/vdb and /dev/vdc"
	else
		fscrypt_client last xts-sm4-ce cts-cbc-sm4-ce
		luks_client last xts-sm4-ce
	fi
else
	fail "upstream.load-c-sm4-ce" "upstream's C sm4.ko or sm4-ce.ko did not load"
fi
