#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# userspace.sh: fetches the arm64 userspace of the test VM (Debian packages, extracted into
# $CACHE/userspace/root) and prints that directory. Idempotent.
source "$(dirname "$0")/lib.sh"

# busybox for the shell; kcapi (AF_ALG), dmsetup (dm-crypt), mkfs.ext4 (fscrypt) and
# cryptsetup (LUKS2) with the libraries they load.
PKGS=(busybox-static kcapi-tools libkcapi1 dmsetup libdevmapper1.02.1 libc6 libgcc-s1
	libselinux1 libudev1 libpcre2-8-0 e2fsprogs libext2fs2 libcom-err2 libss2 libblkid1
	libuuid1 cryptsetup-bin libcryptsetup12 libpopt0 libargon2-1 libjson-c5 libssl3)
d="$CACHE/apt-arm64"
root="$CACHE/userspace/root"
stamp="$CACHE/userspace/.done-$(echo "${PKGS[*]}" | sha256sum | cut -c1-12)"
if [ -f "$stamp" ]; then
	echo "$root"
	exit 0
fi
log "fetching the VM's arm64 userspace: ${PKGS[*]}"
mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/debs"
echo "deb $(apt_mirror) bookworm main" >"$d/sources.list"
opts="$(apt_private_opts "$d") -o APT::Architecture=arm64 -o APT::Architectures=arm64"
# shellcheck disable=SC2086
apt-get $opts update -q >/dev/null 2>&1 || die "cannot read the arm64 package lists"
rm -f "$d"/debs/*.deb
# shellcheck disable=SC2086
(cd "$d/debs" && apt-get $opts download -q "${PKGS[@]/%/:arm64}" >/dev/null 2>&1) ||
	die "cannot download ${PKGS[*]} (arm64)"
rm -rf "$root" && mkdir -p "$root"
for deb in "$d"/debs/*.deb; do dpkg-deb -x "$deb" "$root"; done
# What the VM does not need.
rm -rf "$root"/usr/share "$root"/usr/lib/aarch64-linux-gnu/gconv "$root"/etc/ld.so.conf.d
rm -f "$CACHE"/userspace/.done-*
touch "$stamp"
echo "$root"
