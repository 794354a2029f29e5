#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# modules.sh KDIR|LANE [make args...]: builds this repository's modules out of tree against
# the kernel build directory KDIR, or the cached test kernel of LANE (6.12, 7.3), as
# make -C KDIR M=<repo>, with the toolchain that built the kernel.
source "$(dirname "$0")/lib.sh"

kdir=${1:?usage: modules.sh KDIR|LANE [make args]}
shift
case " ${LANES_ALL[*]} " in *" $kdir "*) kdir=$(lane_build_dir "$kdir") ;; esac
[ -f "$kdir/Module.symvers" ] || die "$kdir is not a built kernel tree (no Module.symvers)"
grep -q '^CONFIG_RUST=y' "$kdir/.config" || die "$kdir was built without CONFIG_RUST"
# The Kconfig symbols of this repository's modules (Kbuild's list); the KUnit suites' test
# module only where the kernel has KUnit built in (the Kconfig option depends on KUNIT=y:
# #[kunit_tests] compiles its suites only then).
MODS=()
list=$(kbuild_modules) || die "Kbuild: no list of modules"
while read -r m sym objs; do
	case " $objs" in
	*" tests/"*) grep -q '^CONFIG_KUNIT=y' "$kdir/.config" || continue ;;
	esac
	MODS+=("CONFIG_$sym=m")
done <<<"$list"
make=("${KMAKE[@]}")
# A kernel built with GCC: its modules are built with the same GCC (Kbuild hands bindgen the
# C flags the kernel's own bindgen run gets).
if grep -q '^CONFIG_CC_IS_GCC=y' "$kdir/.config"; then
	gcc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$kdir/.config")
	command -v aarch64-linux-gnu-gcc >/dev/null ||
		die "$kdir was built with GCC ($gcc): building its modules needs aarch64-linux-gnu-gcc, which is not installed"
	make=("${make[@]/LLVM=1/LLVM=}" CROSS_COMPILE=aarch64-linux-gnu-)
fi
"${make[@]}" -C "$kdir" M="$REPO" "${MODS[@]}" "$@"
