#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm.sh LANE MODE CPU: boots the LANE test kernel on `qemu-system-aarch64 -M virt -cpu CPU`
# with an initramfs holding busybox, this repository's modules (built for LANE) and the
# guest scenario tests/vm/MODE.sh. Prints one line per test result (read from the console
# log by scripts/results.awk) and appends "<pass> <fail>" to $SM4RS_COUNTS if set. Exit
# status: 0 if everything passed.
source "$(dirname "$0")/lib.sh"

lane=${1:?usage: vm.sh LANE MODE CPU} mode=${2:?} cpu=${3:?}
kdir=$(lane_build_dir "$lane")
[ -n "$kdir" ] && [ -f "$kdir/.sm4rs-done" ] || die "lane $lane has no built kernel (scripts/kernel.sh $lane)"
timeout_s=${SM4RS_VM_TIMEOUT:-300}

# --- modules and initramfs -------------------------------------------------------------
# The modules come built and checked from scripts/stage-modules.sh (as `make KDIR=` builds
# them for users).
tag="[$lane $mode]"
# (make mutants stages each mutant's modules elsewhere: SM4RS_STAGE.)
stage=${SM4RS_STAGE:-$CACHE/vm/$lane-modules}
# (LANE-intree-y has none: everything is built in.)
case $lane in
*-intree-y) mkdir -p "$stage" ;;
*) [ -f "$stage/sm4-generic.ko" ] || die "no modules staged for $lane (scripts/stage-modules.sh $lane)" ;;
esac
# (make mutants boots several at once, each in a directory of its own: SM4RS_VM_WORK.)
work=${SM4RS_VM_WORK:-$CACHE/vm/$lane-$mode-$cpu}
rm -rf "$work" && mkdir -p "$work/root"/{bin,sbin,proc,sys,dev,tmp,tests,lib/modules/sm4rs,lib/modules/kernel}
userspace=$("$REPO/scripts/userspace.sh")
cp -a "$userspace/." "$work/root/"
cp "$("$REPO/scripts/tools.sh")"/* "$work/root/bin/"
install -m 755 "$REPO/tests/vm/init" "$work/root/init"
# The silicon command (test-generic runs it, for function).
install -m 755 "$REPO/scripts/silicon.sh" "$work/root/bin/silicon.sh"
cp "$REPO"/tests/vm/*.sh "$work/root/tests/"
cp -r "$REPO/tests/vm/lib" "$work/root/tests/"
# The list of modes, as the scenarios and the AF_ALG tool read it.
"$REPO/scripts/modes.sh" >"$work/root/tests/lib/modes.list" || die "the list of modes (above)"
# (test-upstream: none of this project's modules, only the kernel's.)
[ "$mode" = test-upstream ] || cp "$stage"/. -r "$work/root/lib/modules/sm4rs/"
# The kernel's modules: those of its modules.order (a build directory may hold stale ones).
sed 's/\.o$/.ko/' "$kdir/modules.order" | while read -r m; do
	cp "$kdir/$m" "$work/root/lib/modules/kernel/"
done
# The test's own C modules (scripts/fixtures.sh), for the lanes of the unmodified kernels.
case $lane in
*-intree-*) ;;
*)
	fixtures=$("$REPO/scripts/fixtures.sh" "$lane") || die "the fixtures did not build for $lane"
	mkdir -p "$work/root/lib/modules/fixtures"
	cp "$fixtures"/*.ko "$work/root/lib/modules/fixtures/"
	;;
esac
# Not compressed: the guest unpacks it about 1.5 s sooner than with gzip -1 (KASAN, TCG).
(cd "$work/root" && find . | cpio -o -H newc --quiet) >"$work/initramfs.cpio"
# A 16 MiB scratch disk (/dev/vda) for the dm-crypt tests; the disks named in $SM4RS_DISKS
# (shared between boots by scripts/test.sh) come before it: /dev/vdb, /dev/vdc, ...
truncate -s 16M "$work/disk.img"
disks_rev=()
for d in ${SM4RS_DISKS:-}; do disks_rev=("$d" ${disks_rev[@]+"${disks_rev[@]}"}); done

# --- boot ------------------------------------------------------------------------------
log="$work/console.log"
qemu_vm_args "$cpu" "$kdir/arch/arm64/boot/Image" "$work/initramfs.cpio" \
	"console=ttyAMA0 rdinit=/init panic=-1 printk.time=1 sm4rs.mode=$mode ${SM4RS_APPEND:-}" \
	${disks_rev[@]+"${disks_rev[@]}"} "$work/disk.img"
set +e
# shellcheck disable=SC2086
timeout --foreground "$timeout_s" "$QEMU" "${QEMU_ARGS[@]}" ${SM4RS_QEMU_EXTRA:-} \
	-display none -monitor none -serial stdio </dev/null >"$log" 2>&1
qemu_rc=$?
set -e
# A message that the console printed cut short is printed again whole after this marker
# (printk, seen on 7.3): the cut copy goes, or it would count as a result of its own.
tr -d '\r' <"$log" | awk '
	/^\*\* replaying previous printk message \*\*$/ { held = 0; next }
	held { print prev }
	{ prev = $0; held = 1 }
	END { if (held) print prev }' >"$log.txt"

# --- results ---------------------------------------------------------------------------
rm -f "$work/durations"
rc=0
awk -v tag="$tag" -v qemu_rc="$qemu_rc" -v counts="${SM4RS_COUNTS:-/dev/null}" \
	-v durations="$work/durations" \
	-v kunit_filter="$(echo "${SM4RS_APPEND:-}" | sed -n 's/.*kunit\.filter_glob=\([^ ]*\).*/\1/p')" \
	-f "$REPO/scripts/results.awk" "$log.txt" || rc=$?
# Where the time went, for the phase table of scripts/jobs.sh: the boot's length and its
# slowest results.
if [ -n "${SM4RS_JOB_NOTE:-}" ]; then
	{
		printf 'guest %s s; ' "$(sed -n 's/^\[ *\([0-9]*\)\.[0-9]*\] reboot: .*/\1/p' "$log.txt" | tail -n 1)"
		sort -rn "$work/durations" 2>/dev/null | head -n 3 | awk '{ printf "%s %s s%s", $2, $1, NR < 3 ? ", " : "" }'
	} >"$SM4RS_JOB_NOTE"
fi
exit $rc
