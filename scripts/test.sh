#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test.sh (make test): installs what is missing, then runs every test lane:
#   host    cargo tests of the SM4 core (standard vectors, RustCrypto oracle)
#   6.12    Linux 6.12 LTS VM: KUnit suites, testmgr, module behaviour (always gates)
#   7.3     Linux 7.3 VM: the same (if the kernel package can be had)
# Prints one line per test and closes with "N passed, N failed".
source "$(dirname "$0")/lib.sh"

LANES=(${SM4RS_LANES:-${LANES_ALL[*]}})
counts=$(mktemp)
export SM4RS_COUNTS=$counts
trap 'rm -f "$counts"' EXIT
notrun=()
t0=$(date +%s)

"$REPO/scripts/bootstrap.sh"

# --- host -------------------------------------------------------------------------------
log "[host] cargo test of lib/sm4.rs"
hostlog=$(mktemp)
set +e
CARGO_TARGET_DIR="$CACHE/host-target" cargo test --release --quiet \
	--manifest-path "$REPO/tests/host/Cargo.toml" -- --test-threads=2 >"$hostlog" 2>&1
host_rc=$?
set -e
awk '
	/^test .* \.\.\. ok$/ { p++; print "PASS [host] " $2 }
	/^test .* \.\.\. FAILED$/ { f++; print "FAIL [host] " $2 }
	END { printf "%d %d\n", p, f >> "'"$counts"'" }' "$hostlog"
if [ $host_rc -ne 0 ] && ! grep -q FAILED "$hostlog"; then
	tail -n 20 "$hostlog"
	echo "FAIL [host] cargo-test (exit $host_rc)"
	echo "0 1" >>"$counts"
fi
rm -f "$hostlog"

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
	log "[$lane] kernel ready in $(($(date +%s) - l0)) s; booting the test VM"
	v0=$(date +%s)
	"$REPO/scripts/vm.sh" "$lane" test-generic max || true
	log "[$lane] VM tests took $(($(date +%s) - v0)) s"
done

read -r passed failed < <(awk '{p += $1; f += $2} END {print p + 0, f + 0}' "$counts")
log "all lanes took $(($(date +%s) - t0)) s"
[ ${#notrun[@]} -eq 0 ] || echo "lanes not run: ${notrun[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
