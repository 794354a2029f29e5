#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tools.sh: builds the VM's test tools (tests/vm/tools/*.c, with the *.h they include) as
# static arm64 binaries into $CACHE/tools/<hash of the sources>/ and prints that directory.
# With them, the kernel's TLS selftest (tools/testing/selftests/net/tls.c, kselftest harness)
# of Linux 7.3's tree as `tls`, built against 7.3's UAPI headers (`make headers`): its copy
# has both SM4 variants (13_sm4_gcm, 13_sm4_ccm), and one build serves both lanes (Debian's
# 6.12 copy does not compile: a stable backport left tls_crypto_info_init() with three
# parameters and four-argument calls). Idempotent.
source "$(dirname "$0")/lib.sh"

CC=aarch64-linux-gnu-gcc
src73=$("$REPO/scripts/kernel.sh" 7.3 --source) || die "no Linux 7.3 source for the TLS selftest"
key=$({
	cat "$REPO"/tests/vm/tools/*.[ch] "$0"
	basename "$src73"
} | sha256sum | cut -c1-16)
out="$CACHE/tools/$key"
if [ ! -f "$out/.done" ]; then
	rm -rf "$CACHE/tools" && mkdir -p "$out"
	for src in "$REPO"/tests/vm/tools/*.c; do
		"$CC" -static -O2 -Wall -Werror -o "$out/$(basename "$src" .c)" "$src" ||
			die "cannot build $src"
	done
	hdr=$(mktemp -d)
	"${KMAKE[@]}" -C "$src73" O="$hdr" -s headers >/dev/null || die "make headers of $src73 failed"
	"$CC" -static -O2 -isystem "$hdr/usr/include" -I"$src73/tools/testing/selftests" \
		-o "$out/tls" "$src73/tools/testing/selftests/net/tls.c" ||
		die "cannot build the TLS selftest of $src73"
	rm -rf "$hdr"
	touch "$out/.done"
fi
echo "$out"
