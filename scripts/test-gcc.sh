#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test-gcc.sh (make test-gcc): `make KDIR=` on a kernel built with GCC. Builds the Linux 6.12
# test kernel with aarch64-linux-gnu-gcc (configs/gcc.config: no KASAN and no kCFI, which
# Rust allows only with clang), builds the modules against it as users do (Kbuild hands
# bindgen the kernel's own filtered C flags), checks them like the other lanes, and boots
# the test-max scenario on them. Not part of make test (one more kernel configuration).
# Prints one line per test and closes with "N passed, N failed".
source "$(dirname "$0")/lib.sh"

lane=${1:-6.12}-gcc
counts=$(mktemp)
export SM4RS_COUNTS=$counts
trap 'rm -f "$counts"' EXIT
"$REPO/scripts/bootstrap.sh"
if "$REPO/scripts/kernel.sh" "$lane"; then
	before=$(wc -l <"$counts")
	"$REPO/scripts/stage-modules.sh" "$lane" --check || true
	if [ -f "$CACHE/vm/$lane-modules/sm4_kunit.ko" ]; then
		disks="$CACHE/vm/$lane-disks"
		rm -rf "$disks" && mkdir -p "$disks"
		truncate -s 64M "$disks/fscrypt.img" "$disks/luks.img"
		before=$(wc -l <"$counts")
		SM4RS_DISKS="$disks/fscrypt.img $disks/luks.img" SM4RS_SMP=2 \
			"$REPO/scripts/vm.sh" "$lane" test-max max || true
		[ "$(wc -l <"$counts")" -ne "$before" ] || { echo "FAIL [$lane] test-max (no report)"; echo "0 1" >>"$counts"; }
	elif [ "$(wc -l <"$counts")" -eq "$before" ]; then
		echo "FAIL [$lane] modules (the build stopped before reporting)"
		echo "0 1" >>"$counts"
	fi
else
	echo "FAIL [$lane] kernel build"
	echo "0 1" >>"$counts"
fi
read -r passed failed < <(awk '{p += $1; f += $2} END {print p + 0, f + 0}' "$counts")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
