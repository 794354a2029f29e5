#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Installs what the project needs on a Debian 12 machine. Idempotent and quick when
# everything is already there.
source "$(dirname "$0")/lib.sh"

missing=()
for p in "${HOST_PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
lane_missing=()
for p in "${LANE_PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || lane_missing+=("$p")
done
SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
if [ ${#missing[@]} -gt 0 ] || [ ${#lane_missing[@]} -gt 0 ]; then
	$SUDO apt-get update -q >/dev/null
fi
if [ ${#missing[@]} -gt 0 ]; then
	log "installing host packages: ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
for p in ${lane_missing[@]+"${lane_missing[@]}"}; do
	log "installing $p"
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "$p" >/dev/null ||
		warn "$p cannot be installed: its lane will not run"
done

have_bindgen=$("$BINDGEN" --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have_bindgen" != "$BINDGEN_VERSION" ]; then
	log "installing bindgen-cli $BINDGEN_VERSION from the Rust registry (a few minutes)"
	"$CARGO" install --locked --quiet --force --version "$BINDGEN_VERSION" bindgen-cli
fi
log "host toolchain ready: $(toolchain_id)"
