#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test.sh (make test): installs what is missing, then runs every test lane:
#   host    cargo tests of the SM4 core (standard vectors, RustCrypto oracle)
#   6.12    Linux 6.12 LTS VMs (always gates), each scenario of tests/vm on its CPU, on
#           three kernels: the unmodified test kernel with the modules built out of tree,
#           and the kernel with the patch series (make patches) applied, the SM4 drivers
#           built =m (intree-m) and built in (intree-y):
#             modules: built as users build them (make KDIR=), after a clippy + W=1
#                                      pass; no test code in the drivers; UB checks in;
#                                      in-tree: the series applies (git am) and builds
#                                      without warnings, the Rust drivers replace the C ones
#             test-max (-cpu max, intree-m) sm4-generic + sm4-ce + sm4-neon: KUnit, testmgr,
#                                      tcrypt mode 218 on sm4-ce; upstream's C GCM/CCM on
#                                      sm4-ce's exports; fscrypt and LUKS2 data written
#             test-generic (-cpu max)  sm4-generic alone; the fscrypt and LUKS2 data read
#                                      back over the kernel's templates, more written
#             test-a72 (-cpu cortex-a72, 4 CPUs) sm4-ce refuses to load; sm4-neon serves:
#                                      KUnit, testmgr, tcrypt mode 218 on sm4-neon; all
#                                      fscrypt and LUKS2 data read back; unloading under load
#             test-upstream (-cpu max) no Rust SM4 at all: upstream's C drivers read all
#                                      the fscrypt and LUKS2 data back
#             test-builtin (-cpu max, intree-y) everything built in: KUnit at boot,
#                                      testmgr, GCM/CCM, clients' data read back
#             test-load (-cpu max, 4 CPUs, kmemleak) concurrent users of every kind,
#                                      unloading under load, allocation failures, errors
#                                      for bad input as the generic templates give them
#   7.3     the same on Linux 7.3 (if the kernel package can be had)
# Prints one line per test and closes with "N passed, N failed".
source "$(dirname "$0")/lib.sh"

LANES=(${SM4RS_LANES:-${LANES_ALL[*]}})
# The timed load tests (concurrency, unloading under load) last LOAD_SECS seconds each;
# make test-long sets more.
LOAD_SECS=${SM4RS_LOAD_SECS:-8}
# (At least twice what a VM takes on a quiet 2-core machine: test-max 263 s on 6.12.)
VM_TIMEOUT=${SM4RS_VM_TIMEOUT:-$((540 + 15 * LOAD_SECS))}
counts=$(mktemp)
export SM4RS_COUNTS=$counts
trap 'rm -f "$counts"' EXIT
notrun=()
t0=$(date +%s)

"$REPO/scripts/bootstrap.sh"

# --- fresh-machine check ----------------------------------------------------------------
# Nothing the scripts use may come from outside the bootstrap (this machine may have more).
# (A check that dies before reporting is a failure, like the lanes.)
before=$(wc -l <"$counts")
"$REPO/scripts/check-bootstrap.sh" || true
if [ "$(wc -l <"$counts")" -eq "$before" ]; then
	echo "FAIL [host] check-bootstrap (stopped before reporting)"
	echo "0 1" >>"$counts"
fi

# --- host -------------------------------------------------------------------------------
log "[host] cargo test of lib/sm4.rs"
hostlog=$(mktemp)
set +e
CARGO_TARGET_DIR="$CACHE/host-target" "$CARGO" test --release \
	--manifest-path "$REPO/tests/host/Cargo.toml" -- --test-threads=2 >"$hostlog" 2>&1
host_rc=$?
set -e
awk '
	/^test .* \.\.\. ok$/ { p++; print "PASS [host] " $2 }
	/^test .* \.\.\. FAILED$/ { f++; print "FAIL [host] " $2 }
	END { printf "%d %d\n", p, f >> "'"$counts"'" }' "$hostlog"
if { [ $host_rc -ne 0 ] && ! grep -q FAILED "$hostlog"; } || ! grep -q '^test .* \.\.\. ok$' "$hostlog"; then
	tail -n 20 "$hostlog"
	echo "FAIL [host] cargo-test (exit $host_rc, or no test ran)"
	echo "0 1" >>"$counts"
fi
rm -f "$hostlog"

# --- the AESE variant's tables ------------------------------------------------------------
if "$PYTHON" "$REPO/scripts/sm4_aese_tables.py" --check; then
	echo "PASS [host] aese-tables"
	echo "1 0" >>"$counts"
else
	echo "FAIL [host] aese-tables (sm4_neon_core.S's AESE tables are not the derivation's)"
	echo "0 1" >>"$counts"
fi

# --- the VM results parser -----------------------------------------------------------------
# scripts/results.awk on a console log made up to hold every kind of result and problem
# (tests/host/results/console.log) must give the results written down for it, and fail.
fixture=$REPO/tests/host/results
set +e
got=$(awk -v tag="[fixture]" -f "$REPO/scripts/results.awk" "$fixture/console.log" | LC_ALL=C sort)
parser_rc=$?
set -e
if [ "$parser_rc" -ne 0 ] && [ "$got" = "$(cat "$fixture/expected.txt")" ]; then
	echo "PASS [host] results-parser"
	echo "1 0" >>"$counts"
else
	diff <(echo "$got") "$fixture/expected.txt" | head -n 20 || true
	echo "FAIL [host] results-parser (scripts/results.awk: not the results of tests/host/results/expected.txt, or exit 0)"
	echo "0 1" >>"$counts"
fi

# --- formatting --------------------------------------------------------------------------
# The crate roots (rustfmt follows their modules) and the suite they include!.
rust_files=("$REPO"/sm4_*.rs "$REPO"/tests/host/tests/*.rs "$REPO"/tests/kunit/sm4_kunit_main.rs
	"$REPO"/tests/kunit/sm4_modes.rs)
if /usr/bin/rustfmt --check --config-path "$REPO/.rustfmt.toml" "${rust_files[@]}" >/dev/null 2>&1; then
	echo "PASS [host] rustfmt"
	echo "1 0" >>"$counts"
else
	/usr/bin/rustfmt --check --config-path "$REPO/.rustfmt.toml" "${rust_files[@]}" | head -n 40 || true
	echo "FAIL [host] rustfmt (run rustfmt --config-path .rustfmt.toml on the files above)"
	echo "0 1" >>"$counts"
fi

# --- kernel lanes ----------------------------------------------------------------------
for lane in "${LANES[@]}"; do
	l0=$(date +%s)
	set +e
	"$REPO/scripts/kernel.sh" "$lane"
	rc=$?
	set -e
	if [ $rc -eq 3 ] && [ "$lane" != 6.12 ]; then
		echo "NOT RUN [$lane] the linux-source-$lane package cannot be had from the archive"
		notrun+=("$lane")
		continue
	elif [ $rc -ne 0 ]; then
		echo "FAIL [$lane] kernel build"
		echo "0 1" >>"$counts"
		continue
	fi
	log "[$lane] kernel ready in $(($(date +%s) - l0)) s; building the modules"
	before=$(wc -l <"$counts")
	"$REPO/scripts/stage-modules.sh" "$lane" --check || true
	if [ "$(wc -l <"$counts")" -eq "$before" ] || [ ! -f "$CACHE/vm/$lane-modules/sm4_kunit.ko" ]; then
		[ "$(wc -l <"$counts")" -ne "$before" ] || { echo "FAIL [$lane] modules (the build stopped before reporting)"; echo "0 1" >>"$counts"; }
		continue
	fi
	# The in-tree kernels: the series applied, built =m, then =y (cached like the others).
	intree_ok=1
	for v in m y; do
		k0=$(date +%s)
		if ! "$REPO/scripts/kernel.sh" "$lane-intree-$v"; then
			echo "FAIL [$lane] in-tree kernel ($v): the series did not apply or build (above)"
			echo "0 1" >>"$counts"
			intree_ok=0
			break
		fi
		log "[$lane-intree-$v] kernel ready in $(($(date +%s) - k0)) s"
		before=$(wc -l <"$counts")
		"$REPO/scripts/stage-modules.sh" "$lane-intree-$v" --check || intree_ok=0
		[ "$(wc -l <"$counts")" -ne "$before" ] || { echo "FAIL [$lane-intree-$v] checks (stopped before reporting)"; echo "0 1" >>"$counts"; intree_ok=0; }
	done
	# The series (written by kernel.sh LANE-intree-m) and the kernel's checkpatch --strict.
	if [ $intree_ok = 1 ]; then
		src=$("$REPO/scripts/kernel.sh" "$lane" --source 2>/dev/null)
		cp_log=$(for p in "$CACHE/patches/$lane"/*.patch; do
			# (checkpatch exits non-zero on warnings too)
			(cd "$src" && perl scripts/checkpatch.pl --strict --no-color "$p" 2>&1 |
				grep -E '^(ERROR|WARNING|CHECK):|^total:') || true
		done)
		errors=$(echo "$cp_log" | awk '/^total:/ { e += $2 } END { print e + 0 }')
		what=$(echo "$cp_log" | grep -E '^(WARNING|CHECK):' | sort | uniq -c | sed 's/^ *//' | paste -sd ';' -)
		npatches=$(ls "$CACHE/patches/$lane"/*.patch | wc -l)
		if [ "$errors" -eq 0 ] && [ "$(echo "$cp_log" | grep -c '^total:')" -eq 4 ] && [ "$npatches" -eq 4 ]; then
			echo "PASS [$lane] patches.checkpatch (0 errors; ${what:-no warnings})"
			echo "1 0" >>"$counts"
		else
			echo "$cp_log"
			echo "FAIL [$lane] patches.checkpatch ($errors errors, or not 4 patches checked)"
			echo "0 1" >>"$counts"
		fi
	fi
	log "[$lane] booting the test VMs"
	v0=$(date +%s)
	# Disks shared between boots: test-max writes fscrypt and LUKS2 data with our drivers,
	# test-generic (templates over sm4-generic) reads it and writes more, test-a72 (sm4-neon),
	# test-upstream (upstream's C drivers, no Rust SM4 loaded) and test-builtin read both;
	# test-load gets its own file system.
	disks="$CACHE/vm/$lane-disks"
	rm -rf "$disks" && mkdir -p "$disks"
	truncate -s 64M "$disks/fscrypt.img" "$disks/luks.img" "$disks/load.img"
	shared="$disks/fscrypt.img $disks/luks.img"
	for scenario in "test-max max 2 -intree-m" "test-generic max 2" "test-a72 cortex-a72 4" \
		"test-upstream max 2" "test-builtin max 2 -intree-y" "test-load max 4"; do
		set -- $scenario
		if [ -n "${4:-}" ] && [ $intree_ok = 0 ]; then
			echo "FAIL [$lane$4 $2] $1 (not run: no in-tree kernel)"
			echo "0 1" >>"$counts"
			continue
		fi
		before=$(wc -l <"$counts")
		s0=$(date +%s)
		rc=0
		vmdisks=$shared append=
		timeout_s=$VM_TIMEOUT
		if [ "$1" = test-load ]; then
			# (KUnit off: the test module is loaded for its oracle only.)
			vmdisks="$disks/load.img"
			append="kmemleak=on kunit.enable=0"
			# Five timed parts and the AEADs' faults, self-tests, tcrypt runs and four
			# runs of the TLS selftest: 774 s (6.12) and 835 s (7.3) in a CI run.
			timeout_s=$((VM_TIMEOUT + 840))
		fi
		SM4RS_DISKS=$vmdisks SM4RS_SMP=$3 SM4RS_APPEND="$append sm4rs.secs=$LOAD_SECS" \
			SM4RS_VM_TIMEOUT=$timeout_s "$REPO/scripts/vm.sh" "$lane${4:-}" "$1" "$2" || rc=$?
		if [ "$(wc -l <"$counts")" -eq "$before" ]; then
			echo "FAIL [$lane $2] $1 (the VM runner stopped with exit $rc before reporting)"
			echo "0 1" >>"$counts"
		fi
		log "[$lane${4:-}] $1 took $(($(date +%s) - s0)) s (limit $timeout_s s)"
	done
	log "[$lane] VM tests took $(($(date +%s) - v0)) s"
done

read -r passed failed < <(awk '{p += $1; f += $2} END {print p + 0, f + 0}' "$counts")
log "all lanes took $(($(date +%s) - t0)) s"
[ ${#notrun[@]} -eq 0 ] || echo "lanes not run: ${notrun[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
