#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# fixtures.sh LANE: builds the test VM's C kernel modules for the test kernel of LANE and
# prints the directory that holds them (scripts/vm.sh copies them to /lib/modules/fixtures):
#   squat.ko      tests/vm/fixtures/squat.c: a cipher registered under a given driver name
#   holder.ko     tests/vm/fixtures/holder.c: holds a cipher from its registration on, for a
#                 given time, then runs it (what a failed init must wait for)
#   cneon.ko      tests/vm/fixtures/cneon.c: a C cipher that opens a kernel-mode NEON section
#                 as C drivers do (sm4_kunit's c_driver_in_section_refused calls it)
#   ccm_fixed.ko  the kernel's CCM template with the fix of upstream/ applied
#                 (0001-crypto-ccm-refuse-a-message-of-exactly-2-8L-bytes.patch, a patch of
#                 its own for the kernel, not part of the SM4 series): LANE's own
#                 crypto/ccm.c with the patch, its template names given a "_fixed" suffix
#                 (ccm_fixed_base, ccm_fixed, rfc4309_fixed, cbcmac_fixed) so that it loads
#                 beside the built-in template; test-ktls compares the two at 2^(8L) bytes
# Idempotent (cached by the hash of the inputs).
source "$(dirname "$0")/lib.sh"

lane=${1:?usage: fixtures.sh LANE}
kdir=$(lane_build_dir "$lane")
[ -n "$kdir" ] && [ -f "$kdir/.sm4rs-done" ] || die "lane $lane has no built kernel (scripts/kernel.sh $lane)"
src=$("$REPO/scripts/kernel.sh" "$lane" --source) || die "no source for lane $lane"
patch=$REPO/upstream/0001-crypto-ccm-refuse-a-message-of-exactly-2-8L-bytes.patch
key=$(cat "$src/crypto/ccm.c" "$patch" "$0" "$kdir/.config" "$REPO"/tests/vm/fixtures/*.c |
	sha256sum | cut -c1-16)
out="$CACHE/fixtures/$lane-$key"
# (Built aside and renamed into place: make mutants boots two VMs of a lane at once.)
if [ ! -f "$out/.done" ]; then
	mkdir -p "$CACHE/fixtures"
	tmp=$(mktemp -d "$CACHE/fixtures/.$lane.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	mkdir "$tmp/crypto"
	cp "$REPO"/tests/vm/fixtures/*.c "$tmp/"
	cp "$src/crypto/ccm.c" "$tmp/crypto/ccm.c"
	(cd "$tmp" && "$GIT" apply "$patch") || die "$patch does not apply to $src/crypto/ccm.c"
	# The names, each of which must come out once (or the copy would register a second
	# template under the kernel's name).
	sed -e 's/"ccm_base/"ccm_fixed_base/g' \
		-e 's/^\(\t*\.name = "\)\(ccm\|rfc4309\|cbcmac\)",$/\1\2_fixed",/' \
		-e 's/^MODULE_ALIAS_CRYPTO("\(ccm\|rfc4309\|cbcmac\)");$/MODULE_ALIAS_CRYPTO("\1_fixed");/' \
		"$tmp/crypto/ccm.c" >"$tmp/ccm_fixed.c"
	for n in '.name = "ccm_fixed_base",' '.name = "ccm_fixed",' '.name = "rfc4309_fixed",' \
		'.name = "cbcmac_fixed",' '"ccm_fixed_base(%s,%s)"'; do
		[ "$(grep -cF "$n" "$tmp/ccm_fixed.c")" -eq 1 ] ||
			die "$src/crypto/ccm.c: '$n' not made exactly once (scripts/fixtures.sh renames the templates)"
	done
	echo "obj-m := ccm_fixed.o $(cd "$REPO/tests/vm/fixtures" && ls *.c | sed 's/\.c$/.o/' | tr '\n' ' ')" \
		>"$tmp/Kbuild"
	"${KMAKE[@]}" -C "$kdir" M="$tmp" -s W=1 modules >"$tmp/build.log" 2>&1 &&
		! grep -q '\.c:[0-9]*:[0-9]*: warning:' "$tmp/build.log" ||
		{ cat "$tmp/build.log" >&2; die "the fixtures did not build for lane $lane, or with warnings"; }
	touch "$tmp/.done"
	# (If another run's got there first, it is the same: it stays.)
	mv -T "$tmp" "$out" 2>/dev/null || [ -f "$out/.done" ] || die "cannot make $out"
	find "$CACHE/fixtures" -mindepth 1 -maxdepth 1 -name "$lane-*" ! -name "$(basename "$out")" \
		-exec rm -rf {} +
fi
echo "$out"
