# SPDX-License-Identifier: GPL-2.0
# Common settings for the project's scripts. Sourced, never run.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Everything downloaded or built lives outside the checkout, keyed on its inputs.
CACHE=${SM4RS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sm4rs}
LANES_ALL=(6.12 7.3)
# The run this script belongs to: the outermost script's, inherited by all it starts.
# scripts/kernel.sh resolves a lane's source version once per run.
SM4RS_RUN=${SM4RS_RUN:-$$.$(date +%s)}
export SM4RS_RUN

# What scripts/bootstrap.sh installs from Debian (scripts/check-bootstrap.sh checks that
# every command and file the scripts use comes from these or from the base system).
HOST_PKGS=(clang-19 lld-19 llvm-19 libclang-19-dev rustc-web rust-web-src rust-web-clippy rustfmt-web cargo-web
	gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm qemu-user
	flex bison bc libelf-dev libssl-dev cpio kmod xz-utils make
	openssl python3 python3-matplotlib perl git)
# The kernel sources from Debian's own archive, installed when the archive has them: a lane
# whose package cannot be had prints NOT RUN, and the others still run and gate.
LANE_PKGS=(linux-source-6.12)

LLVM_BIN=/usr/lib/llvm-19/bin
export PATH="$LLVM_BIN:$PATH"
# Debian's rustc ships the core sources the kernel needs; the rustup proxy does not.
# Every tool that another installation could shadow on PATH (rustup's cargo, pyenv's
# python) is called by the full path of the Debian package that provides it.
RUSTC=/usr/bin/rustc
RUSTDOC=/usr/bin/rustdoc
CARGO=/usr/bin/cargo
GIT=/usr/bin/git
PYTHON=/usr/bin/python3
QEMU=/usr/bin/qemu-system-aarch64
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

# The modules, from their one declaration in Kbuild (scripts/kbuild-modules.awk): lines of
# MODULE SYMBOL OBJECT...; the test module's objects are under tests/.
kbuild_modules() {
	awk -f "$REPO/scripts/kbuild-modules.awk" "$REPO/Kbuild"
}

# Build directory of a kernel lane (prints it; empty if the lane has no source).
lane_build_dir() {
	local lane=$1 f
	f="$CACHE/build/current-$lane"
	[ -f "$f" ] && cat "$f"
}

# The VM's qemu command line without its console, in the array QEMU_ARGS:
#   qemu_vm_args CPU KERNEL INITRD APPEND [DISK...]
# -nodefaults: qemu creates no device that is not asked for here. In particular no default
# network card, whose option ROM (efi-virtio.rom) is in ipxe-qemu, a package the bootstrap
# does not install; with -kernel, -M virt then loads no ROM or firmware file from the host
# at all (scripts/check-bootstrap.sh proves it). Disks are virtio-mmio, which enumerate in
# reverse order: the last DISK is /dev/vda.
qemu_vm_args() {
	local cpu=$1 kernel=$2 initrd=$3 append=$4 disk i=0
	shift 4
	# -cpu max has pointer authentication, which the test kernels use on every function
	# return (ARM64_PTR_AUTH_KERNEL, needed by BTI); QEMU computes the architected
	# algorithm (QARMA) in software, which makes such a kernel several times slower. The
	# implementation-defined algorithm behaves the same for the guest, only faster.
	[ "$cpu" = max ] && cpu=max,pauth-impdef=on
	QEMU_ARGS=(-M virt -cpu "$cpu" -smp "${SM4RS_SMP:-2}" -m "${SM4RS_MEM:-1G}"
		-nodefaults -nic none -no-reboot
		-kernel "$kernel" -initrd "$initrd" -append "$append")
	for disk in "$@"; do
		QEMU_ARGS+=(-drive "file=$disk,format=raw,if=none,id=d$i" -device "virtio-blk-device,drive=d$i")
		i=$((i + 1))
	done
}
