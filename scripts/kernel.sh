#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# kernel.sh LANE: fetch, configure and build the test kernel of LANE (6.12 or 7.3), in a
# build directory inside the source tree, keyed on (source version, config fragments,
# toolchain). LANE-bench (6.12-bench, 7.3-bench) is the benchmark kernel of that version: the
# same fragments, then configs/bench.config and configs/bench-VERSION.config over them.
# LANE-intree-m and LANE-intree-y are the kernel with this repository's patch series applied
# (`make patches`) and the SM4 drivers built from it, as modules (configs/intree.config) or
# built in (configs/intree-y.config over it); see build_intree below. LANE-gcc, LANE-rt and
# LANE-64k are the test kernel built with GCC, PREEMPT_RT or 64 KiB pages
# (configs/gcc.config, rt.config, 64k.config over the lane's fragments).
# An unchanged re-run does nothing. Exit 3 means the lane's source cannot be had.
source "$(dirname "$0")/lib.sh"

kernel=${1:?usage: kernel.sh 6.12|7.3|6.12-bench|7.3-bench|LANE-intree-m|LANE-intree-y|LANE-gcc|LANE-rt|LANE-64k}
variant=
case $kernel in
*-intree-m | *-intree-y) variant=${kernel##*-}; lane=${kernel%-intree-?} ;;
*-gcc | *-rt | *-64k) lane=${kernel%-*} ;;
*) lane=${kernel%-bench} ;;
esac
[ -f "$REPO/configs/$lane.config" ] || die "unknown lane $lane"
FRAGMENTS=("$REPO/configs/common.config" "$REPO/configs/$lane.config")
case $kernel in
*-bench) FRAGMENTS+=("$REPO/configs/bench.config" "$REPO/configs/bench-$lane.config") ;;
*-gcc)
	# LANE-gcc: the test kernel built with GCC (make test-gcc), for `make KDIR=` on such kernels.
	FRAGMENTS+=("$REPO/configs/gcc.config")
	KMAKE=("${KMAKE[@]/LLVM=1/LLVM=}" CROSS_COMPILE=aarch64-linux-gnu-)
	;;
*-rt | *-64k) FRAGMENTS+=("$REPO/configs/${kernel##*-}.config") ;;
esac
mkdir -p "$CACHE/src" "$CACHE/build"

# --- source -----------------------------------------------------------------
# Sets SRC_TARBALL (the source tarball) and SRC_VERSION; exits 3 if the lane's source cannot
# be had. SM4RS_HIDE_SOURCES="7.3" makes it so for the lanes named, as if their package had
# left the archive: the other lanes must run and gate without them (make test shows it).
fetch_source() {
	case " ${SM4RS_HIDE_SOURCES:-} " in *" $lane "*)
		warn "linux-source-$lane is hidden (SM4RS_HIDE_SOURCES): lane $lane cannot run"
		exit 3
		;;
	esac
	case $lane in
	6.12)
		# (scripts/bootstrap.sh installs it when the archive has it.)
		SRC_VERSION=$(dpkg-query -W -f='${Status} ${Version}' linux-source-6.12 2>/dev/null |
			sed -n 's/^install ok installed //p')
		[ -n "$SRC_VERSION" ] && [ -f /usr/src/linux-source-6.12.tar.xz ] ||
			{ warn "linux-source-6.12 is not installed (not in the archive): lane 6.12 cannot run"; exit 3; }
		SRC_TARBALL=/usr/src/linux-source-6.12.tar.xz
		;;
	*)
		# Mainline comes from trixie-backports, read through a private apt setup. The
		# version is resolved once per run (SM4RS_RUN, scripts/lib.sh) and kept in $pin:
		# extracting a newer upload removes the older trees and the kernels built in them,
		# which the run's later steps still boot. A new upload is taken by the next run.
		local d="$CACHE/apt-bpo" opts deb pin
		mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
		pin="$d/pin-$lane"
		echo "deb $(apt_mirror) trixie-backports main" >"$d/sources.list"
		opts=$(apt_private_opts "$d")
		SRC_VERSION=
		if [ -f "$pin" ] && [ "$(sed -n 1p "$pin")" = "$SM4RS_RUN" ]; then
			SRC_VERSION=$(sed -n 2p "$pin")
		else
			if [ -z "$(find "$d/lists" -name '*Packages*' -mmin -1440 2>/dev/null)" ]; then
				log "[$lane] reading trixie-backports package lists"
				# shellcheck disable=SC2086
				apt-get $opts update -q >/dev/null 2>&1 || warn "apt update of trixie-backports failed"
			fi
			# shellcheck disable=SC2086
			SRC_VERSION=$(apt-cache $opts show "linux-source-$lane" 2>/dev/null |
				awk '/^Version:/{print $2; exit}')
		fi
		if [ -n "$SRC_VERSION" ]; then
			deb="$d/linux-source-${lane}_${SRC_VERSION//:/%3a}_all.deb"
			if [ ! -f "$deb" ]; then
				log "[$lane] downloading linux-source-$lane $SRC_VERSION"
				# shellcheck disable=SC2086
				if (cd "$d" && apt-get $opts download -q "linux-source-$lane=$SRC_VERSION" >/dev/null 2>&1); then
					find "$d" -maxdepth 1 -name "linux-source-${lane}_*.deb" ! -path "$deb" -delete
				else
					warn "download of linux-source-$lane $SRC_VERSION failed"
					SRC_VERSION=
				fi
			fi
		fi
		if [ -z "$SRC_VERSION" ]; then
			deb=$(ls "$d"/linux-source-"$lane"_*.deb 2>/dev/null | tail -n1)
			[ -n "$deb" ] || { warn "linux-source-$lane cannot be had from the archive (trixie-backports): lane $lane cannot run"; exit 3; }
			SRC_VERSION=$(dpkg-deb -f "$deb" Version)
			warn "linux-source-$lane: using the cached $SRC_VERSION"
		fi
		printf '%s\n%s\n' "$SM4RS_RUN" "$SRC_VERSION" >"$pin"
		SRC_TARBALL="$d/linux-source-$lane.tar.xz"
		if [ ! -f "$SRC_TARBALL.stamp" ] || [ "$(cat "$SRC_TARBALL.stamp")" != "$SRC_VERSION" ]; then
			dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/linux-source-$lane.tar.xz" >"$SRC_TARBALL"
			echo "$SRC_VERSION" >"$SRC_TARBALL.stamp"
		fi
		;;
	esac
}

# merge_config.sh drops options whose dependencies are unmet without failing: check the
# value each option has in the last fragment that sets it.
check_config() { # OUT FRAGMENT...
	local out=$1 bad=0 opt val
	shift
	while IFS='=' read -r opt val; do
		if [ "$val" = n ]; then
			grep -q "^$opt=" "$out/.config" && { warn "$opt should be unset"; bad=1; }
		else
			grep -qx "$opt=$val" "$out/.config" || { warn "$opt=$val did not stick (got: $(grep "^$opt=" "$out/.config" || echo unset))"; bad=1; }
		fi
	done < <(cat "$@" | grep -E '^CONFIG_[A-Z0-9_]+=' | awk -F= '{v[$1] = $2; if (!($1 in o)) o[$1] = ++n; k[o[$1]] = $1} END {for (i = 1; i <= n; i++) print k[i] "=" v[k[i]]}')
	[ $bad -eq 0 ] || die "[$kernel] the kernel configuration lacks required options (see above)"
}

# The in-tree kernels. Their build starts from a copy of a built kernel and its build
# directory: the lane's test kernel for =m (then the series is applied), the =m kernel for
# =y. The source is copied as hard links (a kernel build with O= writes nothing into it), but
# for the files the series touches, which get copies of their own before it is applied with
# `git apply` (scripts/patches.sh has checked that `git am` applies it to the pristine
# files); the build directory is copied whole. The build directories sit inside their source
# trees, so kbuild records relative paths (srctree is ".."), and make rebuilds only what the
# series and the configuration change.
build_intree() {
	local base=$lane patches key it out start
	if [ "$variant" = y ]; then base=$lane-intree-m; fi
	"$0" "$base" || exit $?
	local base_out base_src
	base_out=$(lane_build_dir "$base")
	base_src=$(dirname "$base_out")
	patches="$CACHE/patches/$lane"
	"$REPO/scripts/patches.sh" "$lane" "$patches" >/dev/null
	key=$(
		{
			# (Raised when no in-tree kernel built before may be reused. 2: a cached =y
			# kernel of a CI machine lacked sm4_ce_ccm_core.o in its built-in.a.)
			echo "in-tree build 2"
			echo "$base_out"
			# (not their Date: lines, the date of the repository's last commit)
			grep -hv '^Date: ' "$patches"/*.patch
			cat "$REPO/configs/intree.config"
			if [ "$variant" = y ]; then cat "$REPO/configs/intree-y.config"; fi
		} | sha256sum | cut -c1-16
	)
	it="$CACHE/src/linux-$kernel-$key"
	out="$it/$(basename "$base_out")"
	if [ -f "$it/.sm4rs-done" ]; then
		echo "$out" >"$CACHE/build/current-$kernel"
		log "[$kernel] kernel cached: $out"
		exit 0
	fi
	start=$(date +%s)
	find "$CACHE/src" -maxdepth 1 -name "linux-$kernel-*" -exec rm -rf {} +
	log "[$kernel] copying $base_src (linked) and its build"
	mkdir -p "$it"
	(cd "$base_src" && find . -mindepth 1 -maxdepth 1 ! -name 'build-*' ! -name '.sm4rs-*' \
		-exec cp -al {} "$it/" \;)
	cp -a "$base_out" "$out"
	rm -f "$it/.sm4rs-done" "$out/.sm4rs-done"
	if [ "$variant" = m ]; then
		log "[$kernel] applying the series ($(ls "$patches"/0*.patch | grep -vc cover-letter) patches)"
		local f p
		for f in $(sed -n 's|^--- a/||p; s|^+++ b/||p' "$patches"/*.patch | sort -u); do
			if [ -f "$it/$f" ]; then cp "$it/$f" "$it/$f.sm4rs" && mv "$it/$f.sm4rs" "$it/$f"; fi
		done
		for p in "$patches"/*.patch; do
			case $p in *0000-cover-letter.patch) continue ;; esac
			# (No repository above the tree is looked for: the paths are the tree's own.)
			(cd "$it" && GIT_CEILING_DIRECTORIES=$(dirname "$it") "$GIT" apply "$p") >>"$out/apply.log" 2>&1 ||
				{ cat "$out/apply.log" >&2; die "[$kernel] the series does not apply: $(basename "$p")"; }
		done
	fi
	local frags=("$REPO/configs/intree.config")
	if [ "$variant" = y ]; then frags+=("$REPO/configs/intree-y.config"); fi
	"$it/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" >"$out/merge-intree.log" 2>&1
	"${KMAKE[@]}" -C "$it" O="$out" -s olddefconfig >/dev/null
	check_config "$out" "${frags[@]}"
	log "[$kernel] building Image and modules"
	"${KMAKE[@]}" -C "$it" O="$out" -j"$(nproc)" -s Image modules >"$out/build.log" 2>&1 ||
		{ tail -n 40 "$out/build.log" >&2; die "[$kernel] kernel build failed (log: $out/build.log)"; }
	touch "$it/.sm4rs-done" "$out/.sm4rs-done"
	echo "$out" >"$CACHE/build/current-$kernel"
	log "[$kernel] kernel built in $(($(date +%s) - start)) s"
	exit 0
}

# The lane's source is resolved, downloaded and extracted by one kernel.sh at a time (the
# lanes of make test start several at once); the lock is let go once it is in place.
exec 9>"$CACHE/src/.lock-$lane"
flock 9
fetch_source
[ -z "$variant" ] || { exec 9>&-; build_intree; }
SRC="$CACHE/src/linux-$lane-$SRC_VERSION"
if [ ! -f "$SRC/.sm4rs-extracted" ]; then
	log "[$lane] extracting kernel source $SRC_VERSION"
	rm -rf "$SRC" "$SRC.tmp" && mkdir -p "$SRC.tmp"
	tar -xJf "$SRC_TARBALL" -C "$SRC.tmp" --strip-components=1
	mv "$SRC.tmp" "$SRC" && touch "$SRC/.sm4rs-extracted"
	find "$CACHE/src" -maxdepth 1 -name "linux-$lane-*" ! -path "$SRC" -exec rm -rf {} + || true
fi
exec 9>&-

# kernel.sh LANE --source: only fetch and extract; print the pristine source tree.
if [ "${2:-}" = --source ]; then
	echo "$SRC"
	exit 0
fi

# --- configure and build ----------------------------------------------------
key=$(
	{
		echo "$lane $SRC_VERSION"
		cat "${FRAGMENTS[@]}"
		toolchain_id
		case $kernel in *-gcc) aarch64-linux-gnu-gcc --version | head -n 1 ;; esac
	} | sha256sum | cut -c1-16
)
# Inside the source tree, so that the build records relative paths (see build_intree).
OUT="$SRC/build-$kernel-$key"
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

check_config "$OUT" "${FRAGMENTS[@]}"

log "[$kernel] building Image and modules (several minutes)"
"${KMAKE[@]}" -C "$SRC" O="$OUT" -j"$(nproc)" -s Image modules >"$OUT/build.log" 2>&1 ||
	{ tail -n 40 "$OUT/build.log" >&2; die "[$kernel] kernel build failed (log: $OUT/build.log)"; }
touch "$OUT/.sm4rs-done"
echo "$OUT" >"$CACHE/build/current-$kernel"
log "[$kernel] kernel built in $(($(date +%s) - start)) s"
# Keep only the current build of each kernel (builds of an earlier layout lived in
# $CACHE/build).
find "$SRC" -maxdepth 1 -name "build-$kernel-????????????????" ! -path "$OUT" -exec rm -rf {} + || true
find "$CACHE/build" -maxdepth 1 -name "linux-$kernel-????????????????" -exec rm -rf {} + || true
