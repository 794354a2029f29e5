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
tag="[$lane $cpu]"
# Built with clippy (the kernel's lints); any compiler or clippy warning fails the lane.
buildlog=$(mktemp)
if ! "$REPO/scripts/modules.sh" "$kdir" -s CLIPPY=1 W=1 modules >"$buildlog" 2>&1; then
	cat "$buildlog" >&2
	echo "FAIL $tag modules.build (see the compiler output above)"
	echo "0 1" >>"${SM4RS_COUNTS:-/dev/null}"
	rm -f "$buildlog"
	exit 1
fi
if grep -qE '(warning|error)(\[|:)' "$buildlog"; then
	cat "$buildlog" >&2
	warned=1
else
	warned=0
fi
rm -f "$buildlog"
work="$CACHE/vm/$lane-$mode-$cpu"
rm -rf "$work" && mkdir -p "$work/root"/{bin,sbin,proc,sys,dev,tmp,tests,lib/modules/sm4rs,lib/modules/kernel}
userspace=$("$REPO/scripts/userspace.sh")
cp -a "$userspace/." "$work/root/"
install -m 755 "$REPO/tests/vm/init" "$work/root/init"
cp "$REPO"/tests/vm/*.sh "$work/root/tests/"
for ko in "$REPO"/*.ko; do cp "$ko" "$work/root/lib/modules/sm4rs/"; done
find "$kdir" -name '*.ko' -exec cp {} "$work/root/lib/modules/kernel/" \;
(cd "$work/root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initramfs.cpio.gz"
# A 16 MiB scratch disk (/dev/vda) for the dm-crypt tests.
truncate -s 16M "$work/disk.img"

# --- boot ------------------------------------------------------------------------------
log="$work/console.log"
qemu_vm_args "$cpu" "$kdir/arch/arm64/boot/Image" "$work/initramfs.cpio.gz" \
	"console=ttyAMA0 rdinit=/init panic=-1 sm4rs.mode=$mode" "$work/disk.img"
set +e
# shellcheck disable=SC2086
timeout --foreground "$timeout_s" "$QEMU" "${QEMU_ARGS[@]}" ${SM4RS_QEMU_EXTRA:-} \
	-display none -monitor none -serial stdio </dev/null >"$log" 2>&1
qemu_rc=$?
set -e
tr -d '\r' <"$log" >"$log.txt"

# --- results ---------------------------------------------------------------------------
awk -v tag="$tag" -v qemu_rc="$qemu_rc" -v warned="$warned" -v counts="${SM4RS_COUNTS:-/dev/null}" '
	function result(ok, name, why) {
		if (ok) { npass++; printf "PASS %s %s\n", tag, name }
		else { nfail++; printf "FAIL %s %s%s\n", tag, name, (why != "" ? " (" why ")" : "") }
	}
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
	}
	# KTAP from KUnit: "# Subtest: <suite>" then indented "ok|not ok N <case>".
	# Only the suites of this project (sm4*) count, not those built into the kernel.
	/^ *# Subtest: / { suite = ($NF ~ /^sm4/) ? $NF : ""; if (suite != "") suites[suite] = 1; next }
	/^    (not )?ok [0-9]+ / && suite != "" {
		ok = ($1 == "ok"); n = ok ? $3 : $4
		if ($0 ~ /# SKIP/) { printf "SKIP %s kunit.%s.%s\n", tag, suite, n; nskip++; next }
		result(ok, "kunit." suite "." n, ok ? "" : "KUnit reported failure")
		next
	}
	/# .*check failed at |    # left: |    # right: / { print "     " $0 }
	# Anything the kernel reports as broken fails the run.
	/Oops|BUG:|WARNING:|Kernel panic|KASAN|UBSAN|possible circular locking|Unable to handle kernel|cut here|scheduling while atomic|rcu_sched self-detected stall|rcu: INFO/ {
		if (nbad < 20) bad[++nbad] = $0
	}
	END {
		for (m in loaded) {
			found = 0; mm = m; gsub(/-/, "_", mm)
			for (s in suites) if (index(s, mm) == 1) found = 1
			result(found, "kunit." m ".ran", found ? "" : "no KUnit suite of this module ran")
		}
		result(!warned, "modules.no-warnings", warned ? "the build printed warnings (above)" : "")
		result(begun && ended, "vm.completed",
			begun ? (ended ? "" : "guest did not finish (qemu exit " qemu_rc (qemu_rc == 124 ? ", timeout" : "") ")") : "guest never started")
		# A log that was never written is not a clean log.
		if (!booted) {
			result(0, "kernel.log-clean", "no kernel log: the kernel never booted" (first != "" ? "; qemu said: " first : ""))
		} else
			result(nbad == 0, "kernel.log-clean", nbad ? bad[1] : "")
		for (i = 2; i <= nbad; i++) print "     " bad[i]
		printf "%d %d\n", npass, nfail >> counts
		exit nfail != 0
	}' "$log.txt"
