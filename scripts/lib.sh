# SPDX-License-Identifier: GPL-2.0
# Common settings for the project's scripts. Sourced, never run.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Everything downloaded or built lives outside the checkout, keyed on its inputs.
CACHE=${SM4RS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sm4rs}
LANES_ALL=(6.12 7.3)

LLVM_BIN=/usr/lib/llvm-19/bin
export PATH="$LLVM_BIN:$PATH"
# Debian's rustc ships the core sources the kernel needs; the rustup proxy does not.
RUSTC=/usr/bin/rustc
RUSTDOC=/usr/bin/rustdoc
BINDGEN=${CARGO_HOME:-$HOME/.cargo}/bin/bindgen
BINDGEN_VERSION=0.73.2
KMAKE=(make ARCH=arm64 LLVM=1 "RUSTC=$RUSTC" "RUSTDOC=$RUSTDOC" "BINDGEN=$BINDGEN"
	"CLIPPY_DRIVER=/usr/bin/clippy-driver" "RUSTFMT=/usr/bin/rustfmt")

log() { printf '==> %s\n' "$*" >&2; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The mirror the machine's own apt sources use (no host name is written into the project).
apt_mirror() {
	local uri
	uri=$(grep -hoE '^(URIs:|deb) +[a-z]+://[^ ]+' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
		awk '{print $2}' | grep -v -- '-security' | head -n1)
	[ -n "$uri" ] || die "cannot find a Debian mirror in /etc/apt/sources*"
	echo "${uri%/}"
}

# apt options that use a private source list and lists directory under $1.
apt_private_opts() {
	local dir=$1
	echo "-o Dir::Etc::SourceList=$dir/sources.list -o Dir::Etc::SourceParts=/dev/null" \
		"-o Dir::State::Lists=$dir/lists -o Dir::Cache=$dir/cache -o APT::Get::List-Cleanup=0" \
		"-o Debug::NoLocking=1"
}

# Toolchain identity, part of every build cache key.
toolchain_id() {
	{
		"$LLVM_BIN/clang" --version | head -n1
		"$RUSTC" --version
		"$BINDGEN" --version 2>/dev/null | head -n1
	} | tr '\n' ';'
}

# Build directory of a kernel lane (prints it; empty if the lane has no source).
lane_build_dir() {
	local lane=$1 f
	f="$CACHE/build/current-$lane"
	[ -f "$f" ] && cat "$f"
}
