#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tools.sh: builds the VM's test tools (tests/vm/tools/*.c, with the *.h they include) as
# static arm64 binaries into $CACHE/tools/<hash of the sources>/ and prints that directory.
# Idempotent.
source "$(dirname "$0")/lib.sh"

CC=aarch64-linux-gnu-gcc
key=$(cat "$REPO"/tests/vm/tools/*.[ch] "$0" | sha256sum | cut -c1-16)
out="$CACHE/tools/$key"
if [ ! -f "$out/.done" ]; then
	rm -rf "$CACHE/tools" && mkdir -p "$out"
	for src in "$REPO"/tests/vm/tools/*.c; do
		"$CC" -static -O2 -Wall -Werror -o "$out/$(basename "$src" .c)" "$src" ||
			die "cannot build $src"
	done
	touch "$out/.done"
fi
echo "$out"
