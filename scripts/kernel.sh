#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# kernel.sh LANE: fetch, configure and build the test kernel of LANE (6.12 or 7.3) out of
# tree, into a cache directory keyed on (source version, config fragments, toolchain).
# LANE-bench (6.12-bench, 7.3-bench) is the benchmark kernel of that version: the same
# fragments, then configs/bench.config and configs/bench-VERSION.config over them.
# An unchanged re-run does nothing. Exit 3 means the lane's source cannot be had.
source "$(dirname "$0")/lib.sh"

kernel=${1:?usage: kernel.sh 6.12|7.3|6.12-bench|7.3-bench}
lane=${kernel%-bench}
[ -f "$REPO/configs/$lane.config" ] || die "unknown lane $lane"
FRAGMENTS=("$REPO/configs/common.config" "$REPO/configs/$lane.config")
if [ "$kernel" != "$lane" ]; then
	FRAGMENTS+=("$REPO/configs/bench.config" "$REPO/configs/bench-$lane.config")
fi
mkdir -p "$CACHE/src" "$CACHE/build"

# --- source -----------------------------------------------------------------
# Prints the path of the source tarball and sets SRC_VERSION.
fetch_source() {
	case $lane in
	6.12)
		SRC_VERSION=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
			die "linux-source-6.12 is not installed (run scripts/bootstrap.sh)"
		SRC_TARBALL=/usr/src/linux-source-6.12.tar.xz
		;;
	*)
		# Mainline comes from trixie-backports, read through a private apt setup.
		local d="$CACHE/apt-bpo" opts deb
		mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
		echo "deb $(apt_mirror) trixie-backports main" >"$d/sources.list"
		opts=$(apt_private_opts "$d")
		if [ -z "$(find "$d/lists" -name '*Packages*' -mmin -1440 2>/dev/null)" ]; then
			log "[$lane] reading trixie-backports package lists"
			# shellcheck disable=SC2086
			apt-get $opts update -q >/dev/null 2>&1 || warn "apt update of trixie-backports failed"
		fi
		# shellcheck disable=SC2086
		SRC_VERSION=$(apt-cache $opts show "linux-source-$lane" 2>/dev/null |
			awk '/^Version:/{print $2; exit}')
		if [ -z "$SRC_VERSION" ]; then
			deb=$(ls "$d"/linux-source-"$lane"_*.deb 2>/dev/null | tail -n1)
			[ -n "$deb" ] || { warn "linux-source-$lane is not in the archive (trixie-backports): lane $lane cannot run"; exit 3; }
			warn "linux-source-$lane has left the archive; using the cached $deb"
			SRC_VERSION=$(dpkg-deb -f "$deb" Version)
		fi
		deb="$d/linux-source-${lane}_${SRC_VERSION//:/%3a}_all.deb"
		if [ ! -f "$deb" ]; then
			log "[$lane] downloading linux-source-$lane $SRC_VERSION"
			rm -f "$d"/linux-source-"$lane"_*.deb
			# shellcheck disable=SC2086
			(cd "$d" && apt-get $opts download -q "linux-source-$lane=$SRC_VERSION" >/dev/null 2>&1) ||
				{ warn "download of linux-source-$lane failed: lane $lane cannot run"; exit 3; }
		fi
		SRC_TARBALL="$d/linux-source-$lane.tar.xz"
		if [ ! -f "$SRC_TARBALL.stamp" ] || [ "$(cat "$SRC_TARBALL.stamp")" != "$SRC_VERSION" ]; then
			dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/linux-source-$lane.tar.xz" >"$SRC_TARBALL"
			echo "$SRC_VERSION" >"$SRC_TARBALL.stamp"
		fi
		;;
	esac
}

fetch_source
SRC="$CACHE/src/linux-$lane-$SRC_VERSION"
if [ ! -f "$SRC/.sm4rs-extracted" ]; then
	log "[$lane] extracting kernel source $SRC_VERSION"
	rm -rf "$SRC" "$SRC.tmp" && mkdir -p "$SRC.tmp"
	tar -xJf "$SRC_TARBALL" -C "$SRC.tmp" --strip-components=1
	mv "$SRC.tmp" "$SRC" && touch "$SRC/.sm4rs-extracted"
	find "$CACHE/src" -maxdepth 1 -name "linux-$lane-*" ! -path "$SRC" -exec rm -rf {} + || true
fi

# --- configure and build ----------------------------------------------------
key=$(
	{
		echo "$lane $SRC_VERSION"
		cat "${FRAGMENTS[@]}"
		toolchain_id
	} | sha256sum | cut -c1-16
)
OUT="$CACHE/build/linux-$kernel-$key"
if [ -f "$OUT/.sm4rs-done" ]; then
	echo "$OUT" >"$CACHE/build/current-$kernel"
	log "[$kernel] kernel cached: $OUT"
	exit 0
fi

start=$(date +%s)
log "[$kernel] configuring $SRC_VERSION in $OUT"
rm -rf "$OUT" && mkdir -p "$OUT"
"${KMAKE[@]}" -C "$SRC" O="$OUT" -s allnoconfig >/dev/null
"$SRC/scripts/kconfig/merge_config.sh" -m -O "$OUT" "$OUT/.config" "${FRAGMENTS[@]}" \
	>"$OUT/merge.log" 2>&1
"${KMAKE[@]}" -C "$SRC" O="$OUT" -s olddefconfig >/dev/null

# merge_config.sh drops options whose dependencies are unmet without failing: check the
# value each option has in the last fragment that sets it.
bad=0
while IFS='=' read -r opt val; do
	if [ "$val" = n ]; then
		grep -q "^$opt=" "$OUT/.config" && { warn "$opt should be unset"; bad=1; }
	else
		grep -qx "$opt=$val" "$OUT/.config" || { warn "$opt=$val did not stick (got: $(grep "^$opt=" "$OUT/.config" || echo unset))"; bad=1; }
	fi
done < <(cat "${FRAGMENTS[@]}" | grep -E '^CONFIG_[A-Z0-9_]+=' | awk -F= '{v[$1] = $2; if (!($1 in o)) o[$1] = ++n; k[o[$1]] = $1} END {for (i = 1; i <= n; i++) print k[i] "=" v[k[i]]}')
[ $bad -eq 0 ] || die "[$kernel] the kernel configuration lacks required options (see above)"

log "[$kernel] building Image and modules (several minutes)"
"${KMAKE[@]}" -C "$SRC" O="$OUT" -j"$(nproc)" -s Image modules >"$OUT/build.log" 2>&1 ||
	{ tail -n 40 "$OUT/build.log" >&2; die "[$kernel] kernel build failed (log: $OUT/build.log)"; }
touch "$OUT/.sm4rs-done"
echo "$OUT" >"$CACHE/build/current-$kernel"
log "[$kernel] kernel built in $(($(date +%s) - start)) s"
# Keep only the current build of each kernel.
find "$CACHE/build" -maxdepth 1 -name "linux-$kernel-????????????????" ! -path "$OUT" -exec rm -rf {} + || true
