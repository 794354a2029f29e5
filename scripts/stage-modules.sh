#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# stage-modules.sh LANE [--check]: builds this repository's modules for the kernel of LANE
# exactly as users build them (`make KDIR=<kernel build>`: plain rustc with the kernel's
# flags) and copies them to $CACHE/vm/LANE-modules, where the VMs take them from.
#
# With --check (the test lanes), first a lint pass that users do not run: clippy with the
# kernel's lints and W=1 (its objects are not the ones loaded: clippy-driver's objects lack
# rustc's debug-assertion checks). Then it checks what was built and prints one line per
# check (appending "<pass> <fail>" to $SM4RS_COUNTS if set):
#   modules.lint          the clippy + W=1 pass printed no warning
#   modules.build         `make KDIR=` built the three drivers and the test module
#   modules.no-test-code  the drivers hold no KUnit or test-client code (sm4_kunit has it)
#   modules.ub-checks     on a kernel with CONFIG_RUST_DEBUG_ASSERTIONS, the drivers carry
#                         rustc's undefined-behaviour checks (null and misaligned pointer
#                         dereferences), i.e. they were not built by clippy-driver
source "$(dirname "$0")/lib.sh"

lane=${1:?usage: stage-modules.sh LANE [--check]}
check=${2:-}
kdir=$(lane_build_dir "$lane")
[ -n "$kdir" ] && [ -f "$kdir/.sm4rs-done" ] || die "lane $lane has no built kernel (scripts/kernel.sh $lane)"
tag="[$lane]"
stage="$CACHE/vm/$lane-modules"
DRIVERS=(sm4-generic sm4-ce sm4-neon)
npass=0 nfail=0
result() {
	if [ "$1" = 0 ]; then
		echo "PASS $tag $2"
		npass=$((npass + 1))
	else
		echo "FAIL $tag $2 ($3)"
		nfail=$((nfail + 1))
	fi
}
finish() {
	[ "$check" = --check ] && echo "$npass $nfail" >>"${SM4RS_COUNTS:-/dev/null}"
	[ "$nfail" -eq 0 ]
}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

if [ "$check" = --check ]; then
	if "$REPO/scripts/modules.sh" "$kdir" -s CLIPPY=1 W=1 modules >"$log" 2>&1; then
		if grep -qE '(warning|error)(\[|:)' "$log"; then
			cat "$log" >&2
			result 1 modules.lint "clippy or W=1 printed warnings (above)"
		else
			result 0 modules.lint
		fi
	else
		cat "$log" >&2
		result 1 modules.lint "the clippy build failed (above)"
	fi
fi

# The users' build: the README's `make KDIR=...`.
rm -rf "$stage" && mkdir -p "$stage"
if ! make -C "$REPO" -s KDIR="$kdir" modules >"$log" 2>&1; then
	cat "$log" >&2
	result 1 modules.build "make KDIR=$kdir failed (above)"
	finish
	exit 1
fi
missing=()
for m in "${DRIVERS[@]}" sm4_kunit; do
	if [ -f "$REPO/$m.ko" ]; then cp "$REPO/$m.ko" "$stage/"; else missing+=("$m.ko"); fi
done
if [ ${#missing[@]} -gt 0 ]; then
	result 1 modules.build "not built: ${missing[*]}"
	finish
	exit 1
fi
[ "$check" = --check ] || exit 0
result 0 modules.build

NM="$LLVM_BIN/llvm-nm"
bad=()
for m in "${DRIVERS[@]}"; do
	n=$("$NM" "$stage/$m.ko" | grep -cE '5kunit|7testing|CipherTfm|SkcipherTfm' || true)
	[ "$n" -eq 0 ] || bad+=("$m.ko has $n test symbols")
done
n=$("$NM" "$stage/sm4_kunit.ko" | grep -cE '5kunit|7testing|CipherTfm|SkcipherTfm' || true)
[ "$n" -gt 0 ] || bad+=("sm4_kunit.ko has no KUnit symbols: the check cannot see test code")
if [ ${#bad[@]} -eq 0 ]; then result 0 modules.no-test-code; else result 1 modules.no-test-code "${bad[*]}"; fi

if grep -q '^CONFIG_RUST_DEBUG_ASSERTIONS=y' "$kdir/.config"; then
	bad=()
	for m in "${DRIVERS[@]}"; do
		n=$("$NM" -u "$stage/$m.ko" | grep -cE 'panic_(null|misaligned)_pointer_dereference' || true)
		[ "$n" -gt 0 ] || bad+=("$m.ko")
	done
	if [ ${#bad[@]} -eq 0 ]; then
		result 0 modules.ub-checks
	else
		result 1 modules.ub-checks "no pointer-dereference checks in ${bad[*]}"
	fi
else
	echo "NOT RUN $tag modules.ub-checks (the kernel has no CONFIG_RUST_DEBUG_ASSERTIONS)"
fi
finish
