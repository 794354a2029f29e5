#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# series-check.sh [LANE...] (make series-check; make test-long runs it): every prefix of the
# patch series (make patches) builds. For each lane (default: every lane), the series is
# written for the lane's pristine source and applied a patch at a time to a copy of its test
# kernel (the tree linked, its build directory copied, as scripts/kernel.sh LANE-intree-m
# does), configured with configs/intree.config over the test kernel's configuration (the
# symbols a prefix does not have yet are left out), and built after each patch (Image and
# modules, incrementally). Prints one KTAP-style line per prefix, and "N passed, N failed".
source "$(dirname "$0")/lib.sh"

lanes=(${@:-${LANES_ALL[*]}})
pass=0 fail=0
for lane in "${lanes[@]}"; do
	rc=0
	"$REPO/scripts/kernel.sh" "$lane" >/dev/null || rc=$?
	if [ $rc -eq 3 ]; then
		echo "NOT RUN [$lane] series.prefixes (the kernel source cannot be had)"
		continue
	fi
	[ $rc -eq 0 ] || die "[$lane] no test kernel"
	base_out=$(lane_build_dir "$lane")
	base_src=$(dirname "$base_out")
	work="$CACHE/series-check/$lane"
	rm -rf "$work" && mkdir -p "$work/src"
	"$REPO/scripts/patches.sh" "$lane" "$work/patches" >/dev/null
	(cd "$base_src" && find . -mindepth 1 -maxdepth 1 ! -name 'build-*' ! -name '.sm4rs-*' \
		-exec cp -al {} "$work/src/" \;)
	out="$work/src/$(basename "$base_out")"
	cp -a "$base_out" "$out"
	# (The tree's files are hard links to the pristine source's: those the series changes
	# are copied first, so that applying it does not change the pristine source.)
	for f in $(sed -n 's|^--- a/||p; s|^+++ b/||p' "$work"/patches/*.patch | sort -u); do
		if [ -f "$work/src/$f" ]; then cp "$work/src/$f" "$work/src/$f.sm4rs" && mv "$work/src/$f.sm4rs" "$work/src/$f"; fi
	done
	n=0
	for p in $(ls "$work"/patches/*.patch | grep -v '/0000-cover-letter\.patch$'); do
		n=$((n + 1))
		name="series.prefix-$n"
		subject=$(sed -n 's/^Subject: \[PATCH [0-9/]*\] //p' "$p" | head -n 1)
		if ! (cd "$work/src" && GIT_CEILING_DIRECTORIES="$work" "$GIT" apply "$p") >"$work/apply-$n.log" 2>&1; then
			echo "FAIL [$lane] $name ($subject: does not apply)"
			fail=$((fail + 1))
			break
		fi
		start=$(date +%s)
		touch "$work/stamp-$n"
		"$work/src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
			"$REPO/configs/intree.config" >"$work/merge-$n.log" 2>&1
		"${KMAKE[@]}" -C "$work/src" O="$out" -s olddefconfig >/dev/null 2>&1
		if "${KMAKE[@]}" -C "$work/src" O="$out" -j"$(nproc)" -s Image modules >"$work/build-$n.log" 2>&1 &&
			! grep -qE '^(warning|error)(\[|:)|: warning:' "$work/build-$n.log"; then
			built=$(find "$out" -newer "$work/stamp-$n" \( -name '*.o' -o -name '*.ko' \) | wc -l)
			kos=$(find "$out" -newer "$work/stamp-$n" -name 'sm4*.ko' -printf '%f ' | sort)
			echo "PASS [$lane] $name ($subject; $(($(date +%s) - start)) s, $built objects built${kos:+: $kos})"
			pass=$((pass + 1))
		else
			grep -E '(warning|error)(\[|:)' -A 6 "$work/build-$n.log" | head -n 30
			echo "FAIL [$lane] $name ($subject: the build failed or warned, $work/build-$n.log)"
			fail=$((fail + 1))
		fi
	done
	[ $fail -eq 0 ] && rm -rf "$work"
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
