#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# silicon.sh [OURS]: run on an arm64 machine, as root, on the machine itself. Times tcrypt's
# SM4 speed test (mode 218: ecb, cbc, cts(cbc), ctr, xts; encryption and decryption; 16 to
# 4096 bytes) on upstream's C SM4 driver of the running kernel and on ours, loaded in turn,
# and prints bytes per second and cycles per byte side by side, with the sm4-neon variant
# ours picked. The driver is sm4-ce where the CPU has the SM4 instructions, else sm4-neon.
#
#   OURS          the directory of our modules (sm4-ce.ko, sm4-neon.ko), default the
#                 repository this script is in, built with
#                 `make KDIR=/lib/modules/$(uname -r)/build`
#   SEC=1         seconds per measurement (tcrypt's sec=)
#   MHZ=...       the CPU clock for cycles per byte, default cpufreq's cpuinfo_max_freq of
#                 CPU 0 (none: no cycles column). Cycles are time x clock, not counted: pin
#                 the clock (the performance governor, no turbo) for figures to trust.
#   UPSTREAM_DIR  where upstream's modules are (sm4.ko, sm4-ce.ko, sm4-neon.ko, tcrypt.ko),
#                 default: modprobe finds them
#   INSMOD        what loads tcrypt.ko from UPSTREAM_DIR, default insmod (the test VM's
#                 BusyBox insmod loads a module whose init fails a second time, and tcrypt's
#                 always fails after its tests: the VM passes its finit tool)
#
# The SM4 modules loaded when it starts (ours or upstream's) are unloaded first; it needs
# them unused (no dm-crypt or fscrypt user of SM4). It leaves none of them loaded.
# Under QEMU (make test runs it there, for function only) the figures mean nothing; it says
# so. Exit status: 0 if both sides were measured, 1 otherwise.

set -u
OURS=${1:-$(cd "$(dirname "$0")/.." && pwd)}
SEC=${SEC:-1}
UPSTREAM_DIR=${UPSTREAM_DIR:-}
tmp=$(mktemp -d /tmp/silicon.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

die() {
	echo "silicon.sh: $*" >&2
	exit 1
}

[ "$(uname -m)" = aarch64 ] || die "not an arm64 machine ($(uname -m))"
[ "$(id -u)" = 0 ] || die "needs root (it loads and unloads modules)"
if grep -q '^Features.* sm4\( \|$\)' /proc/cpuinfo; then
	drv=sm4-ce
else
	drv=sm4-neon
fi
[ -f "$OURS/$drv.ko" ] || die "no $OURS/$drv.ko: build ours for this kernel first (make KDIR=/lib/modules/$(uname -r)/build)"
MHZ=${MHZ:-}
if [ -z "$MHZ" ] && [ -r /sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq ]; then
	MHZ=$(($(cat /sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq) / 1000))
fi
qemu=
if grep -qs 'linux,dummy-virt' /proc/device-tree/compatible; then
	qemu=1
fi

# Loads upstream's module $1 (and what it needs), from UPSTREAM_DIR or by modprobe.
load_upstream() {
	if [ -n "$UPSTREAM_DIR" ]; then
		[ ! -f "$UPSTREAM_DIR/sm4.ko" ] || insmod "$UPSTREAM_DIR/sm4.ko" 2>/dev/null || :
		insmod "$UPSTREAM_DIR/$1.ko"
	else
		modprobe "$1"
	fi
}

# Unloads every SM4 module of either side (our modules have upstream's names).
unload_all() {
	for m in sm4_ce_gcm sm4_ce_ccm sm4_ce sm4_ce_cipher sm4_neon; do
		if grep -q "^$m " /proc/modules; then
			rmmod "$m" || die "cannot unload $m (in use?)"
		fi
	done
}

# Runs tcrypt mode 218 and writes "alg dir bytes bytes-per-second driver" lines to $1.
measure() {
	dmesg -c >/dev/null
	if [ -n "$UPSTREAM_DIR" ]; then
		${INSMOD:-insmod} "$UPSTREAM_DIR/tcrypt.ko" mode=218 sec="$SEC" 2>/dev/null
	else
		modprobe tcrypt mode=218 sec="$SEC" 2>/dev/null
	fi
	# (tcrypt always fails to load, by design, after its tests.)
	dmesg -c | awk -v sec="$SEC" '
		/testing speed of/ {
			alg = $0; sub(/.*testing speed of ((a)?sync )?/, "", alg)
			d = alg; sub(/^[^ ]* \(/, "", d); sub(/\) (en|de)cryption.*/, "", d)
			sub(/ .*/, "", alg)
			dir = ($0 ~ /encryption/) ? "enc" : "dec"
		}
		/operations in [0-9]+ seconds/ {
			match($0, /\([0-9]+ bit key, [0-9]+ byte blocks\)/)
			split(substr($0, RSTART + 1, RLENGTH - 2), f, " ")
			b = $0; sub(/.*seconds \(/, "", b); sub(/ bytes\).*/, "", b)
			printf "%s %s %s %.0f %s\n", alg, dir, f[4], b / sec, d
		}' >"$1"
	[ -s "$1" ] || return 1
}

echo "sm4-rs silicon: $drv on $(uname -r), CPU $(grep -m1 'CPU implementer' /proc/cpuinfo | sed 's/.*: //')/$(grep -m1 'CPU part' /proc/cpuinfo | sed 's/.*: //'), ${MHZ:-unknown} MHz, tcrypt mode 218, sec=$SEC"
[ -z "$qemu" ] || echo "NOTE: this is QEMU (linux,dummy-virt): the figures below mean nothing (a test of the command only)."
unload_all
rc=0
load_upstream "$drv" || die "upstream's $drv did not load"
measure "$tmp/upstream" || { echo "silicon.sh: no measurement of upstream's $drv" >&2; rc=1; }
unload_all
insmod "$OURS/$drv.ko" || die "our $OURS/$drv.ko did not load"
variant=$(dmesg | grep -o 'S-box.*' | tail -n 1)
measure "$tmp/ours" || { echo "silicon.sh: no measurement of our $drv" >&2; rc=1; }
unload_all
[ "$drv" != sm4-neon ] || echo "sm4-neon: ${variant:-no load message}"
awk -v mhz="${MHZ:-0}" '
	FNR == NR { up[$1 " " $2 " " $3] = $4; next }
	{
		k = $1 " " $2 " " $3
		if (!(k in up)) next
		if (!head++) {
			printf "%-14s %-3s %6s %12s %12s %6s", "mode", "dir", "bytes", "upstream B/s", "ours B/s", "ours/up"
			if (mhz > 0) printf " %9s %9s", "up c/B", "ours c/B"
			printf "  %s\n", "driver"
		}
		printf "%-14s %-3s %6s %12d %12d %6.2f", $1, $2, $3, up[k], $4, $4 / up[k]
		if (mhz > 0) printf " %9.2f %9.2f", mhz * 1e6 / up[k], mhz * 1e6 / $4
		printf "  %s\n", $5
	}
	END { if (!head) { print "silicon.sh: no row measured on both sides" > "/dev/stderr"; exit 1 } }
' "$tmp/upstream" "$tmp/ours" || rc=1
exit $rc
