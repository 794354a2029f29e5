#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tools.sh: builds the VM's test tools (tests/vm/tools/*.c, with the *.h they include) as
# static arm64 binaries into $CACHE/tools/<hash of the sources>/ and prints that directory.
# With them, the kernel's TLS selftest (tools/testing/selftests/net/tls.c, kselftest harness)
# of Linux 7.3's tree as `tls`, built against 7.3's UAPI headers (`make headers`): its copy
# has both SM4 variants (13_sm4_gcm, 13_sm4_ccm), and one build serves both lanes (Debian's
# 6.12 copy does not compile: a stable backport left tls_crypto_info_init() with three
# parameters and four-argument calls). Without the 7.3 source (its package cannot be had) the
# tools are built without it, and tls.notrun says why: the kTLS checks print NOT RUN then.
# Idempotent.
source "$(dirname "$0")/lib.sh"

CC=aarch64-linux-gnu-gcc
rc=0
src73=$("$REPO/scripts/kernel.sh" 7.3 --source) || rc=$?
[ $rc -eq 0 ] || [ $rc -eq 3 ] || die "the Linux 7.3 source for the TLS selftest: kernel.sh failed"
key=$({
	cat "$REPO"/tests/vm/tools/*.[ch] "$0"
	[ -z "$src73" ] || basename "$src73"
} | sha256sum | cut -c1-16)
out="$CACHE/tools/$key"
if [ ! -f "$out/.done" ]; then
	rm -rf "$CACHE/tools" && mkdir -p "$out"
	for src in "$REPO"/tests/vm/tools/*.c; do
		"$CC" -static -O2 -Wall -Werror -o "$out/$(basename "$src" .c)" "$src" ||
			die "cannot build $src"
	done
	if [ -z "$src73" ]; then
		echo "the TLS selftest is built from Linux 7.3's tree, whose source package cannot be had" \
			>"$out/tls.notrun"
		touch "$out/.done"
		echo "$out"
		exit 0
	fi
	hdr=$(mktemp -d)
	"${KMAKE[@]}" -C "$src73" O="$hdr" -s headers >/dev/null || die "make headers of $src73 failed"
	# The harness's 30 s per test is for hardware: on qemu with KASAN, and a busy host,
	# multi_chunk_sendfile (thousands of records of 1 to 300 bytes) can outlast it, which
	# says nothing about the driver. A copy of the header with 120 s, its only change (a
	# test that hangs still ends), found before the original.
	sed 's/^#define TEST_TIMEOUT_DEFAULT 30$/#define TEST_TIMEOUT_DEFAULT 120/' \
		"$src73/tools/testing/selftests/kselftest_harness.h" >"$hdr/kselftest_harness.h"
	grep -q '^#define TEST_TIMEOUT_DEFAULT 120$' "$hdr/kselftest_harness.h" ||
		die "the kselftest harness of $src73 has no 30 s default timeout to raise"
	"$CC" -static -O2 -isystem "$hdr/usr/include" -I"$hdr" -I"$src73/tools/testing/selftests" \
		-o "$out/tls" "$src73/tools/testing/selftests/net/tls.c" ||
		die "cannot build the TLS selftest of $src73"
	rm -rf "$hdr"
	touch "$out/.done"
fi
echo "$out"
