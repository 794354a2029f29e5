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
#   modules.aliases       each driver has the "crypto-ALG(...)" module aliases of upstream's C
#                         module of its name (built from the lane's unmodified kernel)
#   modules.ct-check      no load, store or branch of the assembly routines depends on a
#                         secret (scripts/ct_check.py)
#   modules.ub-checks     on a kernel with CONFIG_RUST_DEBUG_ASSERTIONS, the drivers carry
#                         rustc's undefined-behaviour checks (null and misaligned pointer
#                         dereferences), i.e. they were not built by clippy-driver
# For the in-tree kernels (LANE-intree-m, LANE-intree-y: scripts/kernel.sh), the drivers come
# from the kernel's own build instead, checked by:
#   intree.build          the kernel build of the series printed no warning
#   intree.rust-drivers   the SM4 symbols built the Rust drivers (their objects are in the
#                         modules, or in the kernel), GCM and CCM included, and no C SM4
#                         driver was built
#   intree.gcm-ccm        sm4-ce-gcm and sm4-ce-ccm (=m) depend on sm4-ce
# then (=m) the three module checks above.
source "$(dirname "$0")/lib.sh"

lane=${1:?usage: stage-modules.sh LANE [--check]}
check=${2:-}
kdir=$(lane_build_dir "$lane")
[ -n "$kdir" ] && [ -f "$kdir/.sm4rs-done" ] || die "lane $lane has no built kernel (scripts/kernel.sh $lane)"
tag="[$lane]"
stage="$CACHE/vm/$lane-modules"
# The modules (Kbuild's list): the drivers, the test module, and each one's objects.
DRIVERS=() TESTMOD= declare -A OBJS
list=$(kbuild_modules) || die "Kbuild: no list of modules"
while read -r m sym objs; do
	OBJS[$m]=$objs
	case " $objs" in
	*" tests/"*) TESTMOD=$m ;;
	*) DRIVERS+=("$m") ;;
	esac
done <<<"$list"
[ -n "$TESTMOD" ] || die "Kbuild: no test module (objects under tests/)"
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

# --- in-tree kernels ---------------------------------------------------------------------
intree_checks() {
	local bad=() o f a c=arch/arm64/crypto
	if grep -E 'warning:' "$kdir/build.log" >"$log"; then
		cat "$log" >&2
		result 1 intree.build "the kernel build printed warnings (above)"
	else
		result 0 intree.build
	fi
	if [ "${lane##*-}" = m ]; then
		for m in "${!OBJS[@]}"; do
			for o in ${OBJS[$m]}; do
				grep -qw "$c/$o" "$kdir/$c/$m.mod" 2>/dev/null || bad+=("$m.ko lacks $o")
			done
		done
		grep -E "sm4-ce-cipher|sm4_generic|sm4-neon|sm4-ce" "$kdir/modules.order" |
			grep -vxE "$c/($(IFS='|'; echo "${DRIVERS[*]}"))\.o" >"$log" &&
			bad+=("C modules built: $(tr '\n' ' ' <"$log")")
	else
		# (The member list goes through a file: `echo "$a" | grep -q` under pipefail fails
		# whenever grep exits before echo has written everything.)
		"$LLVM_BIN/llvm-ar" t "$kdir/$c/built-in.a" >"$log"
		for o in ${OBJS[*]}; do
			grep -q "/$o\$\|^$o\$" "$log" || bad+=("$o not built in")
		done
		for o in sm4-ce-glue.o sm4-ce-cipher-glue.o sm4-neon-glue.o sm4-ce-gcm-glue.o \
			sm4-ce-ccm-glue.o; do
			grep -q "$o" "$log" && bad+=("C driver $o built in")
		done
		if [ ${#bad[@]} -ne 0 ]; then
			echo "$c/built-in.a of $kdir holds:" >&2
			sed 's/^/    /' "$log" >&2
		fi
		"$LLVM_BIN/llvm-ar" t "$kdir/crypto/built-in.a" >"$log"
		grep -q 'sm4_generic.o' "$log" && bad+=("C sm4_generic built in")
	fi
	if [ ${#bad[@]} -eq 0 ]; then result 0 intree.rust-drivers; else result 1 intree.rust-drivers "${bad[*]}"; fi
	bad=()
	if [ "${lane##*-}" = m ]; then
		for m in sm4-ce-gcm sm4-ce-ccm; do
			grep -qx "$c/$m.o" "$kdir/modules.order" || { bad+=("$m not built"); continue; }
			grep -ao 'depends=[a-z0-9_,-]*' "$kdir/$c/$m.ko" | grep -qE '[=,]sm4-ce(,|$)' ||
				bad+=("$m does not depend on sm4-ce")
		done
		if [ ${#bad[@]} -eq 0 ]; then result 0 intree.gcm-ccm; else result 1 intree.gcm-ccm "${bad[*]}"; fi
	fi
}

intree=
case $lane in *-intree-?) intree=1 ;; esac
if [ -n "$intree" ]; then
	rm -rf "$stage" && mkdir -p "$stage"
	intree_checks
	if [ "${lane##*-}" = y ]; then
		finish
		exit $?
	fi
	for m in "${!OBJS[@]}"; do
		cp "$kdir/arch/arm64/crypto/$m.ko" "$stage/$m.ko"
	done
elif [ "$check" = --check ]; then
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

# publish FILE: FILE into $stage, unless the same file is there; replaced by a rename, so that
# a VM copying the directory meanwhile reads each module whole, the old one or the new one
# (make test boots the lane's VMs while make run and make check build and stage again).
publish() {
	local tmp
	cmp -s "$1" "$stage/$(basename "$1")" && return 0
	tmp=$(mktemp "$stage.XXXXXX") && cp "$1" "$tmp" && mv -f "$tmp" "$stage/$(basename "$1")"
}

# The users' build: the README's `make KDIR=...`.
mkdir -p "$stage"
if [ -n "$intree" ]; then
	:
elif ! make -C "$REPO" -s KDIR="$kdir" modules >"$log" 2>&1; then
	cat "$log" >&2
	result 1 modules.build "make KDIR=$kdir failed (above)"
	finish
	exit 1
fi
missing=()
for m in "${DRIVERS[@]}" "$TESTMOD"; do
	if [ -z "$intree" ] && [ -f "$REPO/$m.ko" ]; then
		publish "$REPO/$m.ko"
	elif [ -z "$intree" ]; then
		rm -f "$stage/$m.ko"
	fi
	[ -f "$stage/$m.ko" ] || missing+=("$m.ko")
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
n=$("$NM" "$stage/$TESTMOD.ko" | grep -cE '5kunit|7testing|CipherTfm|SkcipherTfm' || true)
[ "$n" -gt 0 ] || bad+=("$TESTMOD.ko has no KUnit symbols: the check cannot see test code")
if [ ${#bad[@]} -eq 0 ]; then result 0 modules.no-test-code; else result 1 modules.no-test-code "${bad[*]}"; fi

# The module aliases: ours load on demand (request_module("crypto-NAME")) for every
# algorithm that upstream's C module of the same name does, built from the same kernel
# tree (its MODULE_ALIAS_CRYPTO() "crypto-ALG(...)" aliases are among ours). An in-tree
# kernel builds ours instead of upstream's: its lane's unmodified kernel has them.
aliases_of() {
	"$LLVM_BIN/llvm-readelf" -p .modinfo "$1" | sed -n 's/^ *\[ *[0-9a-f]*\] alias=//p'
}
upkdir=$kdir
[ -z "$intree" ] || upkdir=$(lane_build_dir "${lane%%-intree-*}")
bad=() seen=0
for m in "${DRIVERS[@]}"; do
	[ -n "$upkdir" ] && [ -f "$stage/$m.ko" ] || continue
	up=$(find "$upkdir/arch/arm64/crypto" "$upkdir/crypto" -name "$m.ko" -o -name "${m//-/_}.ko" |
		head -n 1)
	[ -n "$up" ] || continue
	seen=$((seen + 1))
	ours=$(aliases_of "$stage/$m.ko")
	for a in $(aliases_of "$up" | grep -x 'crypto-.*(.*)'); do
		grep -qxF -- "$a" <<<"$ours" || bad+=("$m.ko lacks $a")
	done
done
if [ "$seen" -eq 0 ]; then
	echo "NOT RUN $tag modules.aliases (no module of ours and upstream's C one of the same name to compare: ${upkdir:-no unmodified kernel of this lane})"
elif [ ${#bad[@]} -eq 0 ]; then
	result 0 modules.aliases
else
	result 1 modules.aliases "${bad[*]}"
fi

# Constant time: no load, store or branch of the assembly routines depends on a secret
# (scripts/ct_check.py, on the objects of this build).
if [ -n "$intree" ]; then
	objs=("$kdir"/arch/arm64/crypto/sm4_*_core.o)
else
	objs=("$REPO"/sm4_*_core.o)
fi
cores=("$REPO"/sm4_*_core.S)
if [ ${#objs[@]} -ne ${#cores[@]} ] || [ ! -f "${objs[0]}" ]; then
	result 1 modules.ct-check "not the ${#cores[@]} assembly objects: ${objs[*]}"
elif out=$(LLVM_BIN=$LLVM_BIN "$PYTHON" "$REPO/scripts/ct_check.py" "${objs[@]}" 2>&1); then
	echo "$out" | grep ' (known: ' | sed 's/^ct-check: /     /; s/ (known: .*/ (known: see scripts\/ct_check.py)/' || :
	result 0 modules.ct-check
else
	echo "$out" >&2
	result 1 modules.ct-check "$(echo "$out" | tail -n 1)"
fi

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
