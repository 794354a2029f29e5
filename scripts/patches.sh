#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# patches.sh [LANE [OUTDIR]]: writes the in-tree patch series of this repository for Linux
# LANE (default: every lane, each into $REPO/patches/LANE) into OUTDIR, generated from the
# repository's sources (scripts/patches.py) against the lane's pristine kernel source, and
# checks that `git am` applies it to the pristine files it touches. (scripts/kernel.sh
# LANE-intree-m applies it to the whole tree and builds it.) A lane whose kernel source cannot
# be had is left out, with a warning (exit 3 if no lane had one).
source "$(dirname "$0")/lib.sh"

lanes=(${1:-${LANES_ALL[*]}})
written=0
for lane in "${lanes[@]}"; do
	out=${2:-$REPO/patches/$lane}
	rc=0
	src=$("$REPO/scripts/kernel.sh" "$lane" --source) || rc=$?
	if [ $rc -eq 3 ]; then
		warn "[$lane] no series: the kernel source cannot be had"
		continue
	fi
	[ $rc -eq 0 ] || die "[$lane] no kernel source"
	GIT=$GIT "$PYTHON" "$REPO/scripts/patches.py" "$REPO" "$src" "$lane" "$out"
	# git am onto a repository of the pristine versions of the files the series touches.
	t=$(mktemp -d)
	g=("$GIT" -C "$t" -c user.name=sm4rs -c user.email=sm4rs@localhost)
	"$GIT" init -q "$t"
	for f in $(sed -n 's|^--- a/||p' "$out"/*.patch | sort -u); do
		[ -f "$src/$f" ] && install -D -m 644 "$src/$f" "$t/$f"
	done
	"${g[@]}" add -A
	"${g[@]}" commit -qm pristine --allow-empty
	if "${g[@]}" am -q $(ls "$out"/*.patch | grep -v 0000-cover-letter) >"$t.log" 2>&1; then
		log "[$lane] a cover letter and $(ls "$out"/*.patch | grep -vc 0000-cover-letter) patches in $out; git am applies them to Linux $(basename "$src" | sed "s/^linux-$lane-//")"
	else
		cat "$t.log" >&2
		rm -rf "$t" "$t.log"
		die "[$lane] git am of the series failed"
	fi
	rm -rf "$t" "$t.log"
	written=$((written + 1))
done
[ $written -gt 0 ] || exit 3
