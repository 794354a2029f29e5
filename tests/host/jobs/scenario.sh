#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The host check "jobs-counts" (scripts/test.sh): scripts/jobs.sh runs jobs that pass, fail,
# die without reporting, cannot run (exit 3), or are skipped behind one that died; the
# results it prints and the counts it adds up must be tests/host/jobs/expected.txt's.
source "$(dirname "$0")/../../../scripts/lib.sh"
JOBS_DIR=$(mktemp -d)
source "$REPO/scripts/jobs.sh"
counts=$(mktemp)
export SM4RS_COUNTS=$counts
trap 'rm -rf "$counts" "$JOBS_DIR"' EXIT
dies() { return 1; }
passes() { echo "PASS [fixture] $1"; echo "1 0" >>"$SM4RS_COUNTS"; }
fails() { echo "FAIL [fixture] $1"; echo "0 1" >>"$SM4RS_COUNTS"; return 1; }
cannot() { return 3; }
job dies 1 "" dies
job passes 1 "" passes passes
job fails 1 "" fails fails
job cannot 1 "" cannot
job after-dies 1 dies passes after-dies
on_skip after-dies "FAIL [fixture] after-dies (not run)"
# (The jobs end in any order.)
run_jobs | LC_ALL=C sort
awk '{ p += $1; f += $2 } END { print p + 0 " passed, " f + 0 " failed" }' "$counts"
