#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Installs what the project needs on a Debian 12 machine. Idempotent and quick when
# everything is already there.
source "$(dirname "$0")/lib.sh"

missing=()
for p in "${HOST_PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
	log "installing host packages: ${missing[*]}"
	$SUDO apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

have_bindgen=$("$BINDGEN" --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have_bindgen" != "$BINDGEN_VERSION" ]; then
	log "installing bindgen-cli $BINDGEN_VERSION from the Rust registry (a few minutes)"
	"$CARGO" install --locked --quiet --force --version "$BINDGEN_VERSION" bindgen-cli
fi
log "host toolchain ready: $(toolchain_id)"
