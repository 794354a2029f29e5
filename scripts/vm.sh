#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm.sh LANE MODE CPU: boots the LANE test kernel on `qemu-system-aarch64 -M virt -cpu CPU`
# with an initramfs holding busybox, this repository's modules (built for LANE) and the
# guest scenario tests/vm/MODE.sh. Prints one line per test result and appends
# "<pass> <fail>" to $SM4RS_COUNTS if set. Exit status: 0 if everything passed.
source "$(dirname "$0")/lib.sh"

lane=${1:?usage: vm.sh LANE MODE CPU} mode=${2:?} cpu=${3:?}
kdir=$(lane_build_dir "$lane")
[ -n "$kdir" ] && [ -f "$kdir/.sm4rs-done" ] || die "lane $lane has no built kernel (scripts/kernel.sh $lane)"
timeout_s=${SM4RS_VM_TIMEOUT:-300}

# --- modules and initramfs -------------------------------------------------------------
# The modules come built and checked from scripts/stage-modules.sh (as `make KDIR=` builds
# them for users).
tag="[$lane $cpu]"
stage="$CACHE/vm/$lane-modules"
# (LANE-intree-y has none: everything is built in.)
case $lane in
*-intree-y) mkdir -p "$stage" ;;
*) [ -f "$stage/sm4-generic.ko" ] || die "no modules staged for $lane (scripts/stage-modules.sh $lane)" ;;
esac
work="$CACHE/vm/$lane-$mode-$cpu"
rm -rf "$work" && mkdir -p "$work/root"/{bin,sbin,proc,sys,dev,tmp,tests,lib/modules/sm4rs,lib/modules/kernel}
userspace=$("$REPO/scripts/userspace.sh")
cp -a "$userspace/." "$work/root/"
cp "$("$REPO/scripts/tools.sh")"/* "$work/root/bin/"
install -m 755 "$REPO/tests/vm/init" "$work/root/init"
cp "$REPO"/tests/vm/*.sh "$work/root/tests/"
cp "$stage"/. -r "$work/root/lib/modules/sm4rs/"
# The kernel's modules: those of its modules.order (a build directory may hold stale ones).
sed 's/\.o$/.ko/' "$kdir/modules.order" | while read -r m; do
	cp "$kdir/$m" "$work/root/lib/modules/kernel/"
done
(cd "$work/root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initramfs.cpio.gz"
# A 16 MiB scratch disk (/dev/vda) for the dm-crypt tests; the disks named in $SM4RS_DISKS
# (shared between boots by scripts/test.sh) come before it: /dev/vdb, /dev/vdc, ...
truncate -s 16M "$work/disk.img"
disks_rev=()
for d in ${SM4RS_DISKS:-}; do disks_rev=("$d" ${disks_rev[@]+"${disks_rev[@]}"}); done

# --- boot ------------------------------------------------------------------------------
log="$work/console.log"
qemu_vm_args "$cpu" "$kdir/arch/arm64/boot/Image" "$work/initramfs.cpio.gz" \
	"console=ttyAMA0 rdinit=/init panic=-1 sm4rs.mode=$mode ${SM4RS_APPEND:-}" \
	${disks_rev[@]+"${disks_rev[@]}"} "$work/disk.img"
set +e
# shellcheck disable=SC2086
timeout --foreground "$timeout_s" "$QEMU" "${QEMU_ARGS[@]}" ${SM4RS_QEMU_EXTRA:-} \
	-display none -monitor none -serial stdio </dev/null >"$log" 2>&1
qemu_rc=$?
set -e
tr -d '\r' <"$log" >"$log.txt"

# --- results ---------------------------------------------------------------------------
awk -v tag="$tag" -v qemu_rc="$qemu_rc" -v counts="${SM4RS_COUNTS:-/dev/null}" '
	function result(ok, name, why) {
		if (ok) { npass++; printf "PASS %s %s\n", tag, name }
		else { nfail++; printf "FAIL %s %s%s\n", tag, name, (why != "" ? " (" why ")" : "") }
	}
	# Kernel timestamps (printk.time=1) are not part of the messages.
	{ sub(/^\[ *[0-9]+\.[0-9]+\] /, "") }
	NR == 1 { first = $0 }
	/Linux version [0-9]/ { booted = 1 }
	/SM4RS-BEGIN/ { begun = 1 }
	/SM4RS-END/ { ended = 1 }
	/^SM4RS-RESULT / {
		name = $3; why = ""
		rest = substr($0, index($0, " " name) + length(name) + 1)
		if (rest ~ /^ \(.*\)$/) why = substr(rest, 3, length(rest) - 3)
		result($2 == "PASS", name, why)
		if ($2 == "PASS" && name ~ /^load\./) loaded[substr(name, 6)] = 1
		if ($2 == "PASS" && name ~ /^builtin\./) loaded[substr(name, 9)] = 1
	}
	# KTAP from KUnit: "# Subtest: <suite>" then indented "ok|not ok N <case>".
	# Only the suites of this project (sm4*) count, not those built into the kernel.
	/^ *# Subtest: / { suite = ($NF ~ /^sm4/) ? $NF : ""; if (suite != "") suites[suite] = 1; next }
	/^    (not )?ok [0-9]+ / && suite != "" {
		ok = ($1 == "ok"); n = ok ? $3 : $4
		if ($0 ~ /# SKIP/) { printf "SKIP %s kunit.%s.%s\n", tag, suite, n; nskip++; next }
		result(ok, "kunit." suite "." n, ok ? "" : "KUnit reported failure")
		if (ok) ran[suite]++
		next
	}
	/# .*check failed at |    # left: |    # right: / { print "     " $0 }
	# Kernel warnings that a test provokes on purpose (announced by the test) are
	# counted apart; nothing else between the markers is excused.
	/SM4RS-EXPECT-WARN-BEGIN/ { expecting = 1; next }
	/SM4RS-EXPECT-WARN-END/ { expecting = 0; next }
	expecting && /WARNING:|cut here|end trace/ { nexpected++; next }
	# Anything the kernel reports as broken fails the run.
	/Oops|BUG:|WARNING:|Kernel panic|KASAN|UBSAN|possible circular locking|Unable to handle kernel|cut here|scheduling while atomic|rcu_sched self-detected stall|rcu: INFO|CFI failure|kmemleak: [0-9]+ new suspected/ {
		if (nbad < 20) bad[++nbad] = $0
	}
	END {
		# If sm4_kunit was loaded, each driver loaded has its suite (same name) in it, which
		# must have run cases, not only skipped them; so must the abstraction suite.
		for (m in loaded) {
			if (!("sm4_kunit" in loaded)) break
			s = m; gsub(/-/, "_", s)
			if (s == "sm4_kunit") s = "sm4_abstraction"
			result(ran[s] > 0, "kunit." s ".ran", ran[s] > 0 ? "" : "no case of this suite ran")
		}
		result(begun && ended, "vm.completed",
			begun ? (ended ? "" : "guest did not finish (qemu exit " qemu_rc (qemu_rc == 124 ? ", timeout" : "") ")") : "guest never started")
		# A log that was never written is not a clean log.
		if (!booted) {
			result(0, "kernel.log-clean", "no kernel log: the kernel never booted" (first != "" ? "; qemu said: " first : ""))
		} else
			result(nbad == 0, "kernel.log-clean", nbad ? bad[1] : "")
		for (i = 2; i <= nbad; i++) print "     " bad[i]
		if (nexpected) printf "     (%d kernel warning lines provoked on purpose by tests, not counted)\n", nexpected
		printf "%d %d\n", npass, nfail >> counts
		exit nfail != 0
	}' "$log.txt"
