#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make-check.sh (make check): the quick loop for one change. Builds the modules for the Linux
# 6.12 test kernel (LANE=7.3: 7.3's; the kernel is built first if it is not cached) as users
# build them (make KDIR=), boots one VM (-cpu max, scenario tests/vm/check.sh) that loads
# every module of ours, runs the KUnit suites of the drivers the change touches, checks
# testmgr's self-tests of every driver and AF_ALG and dm-crypt known answers, and prints the
# results as make test does (the same KTAP parser), then "N passed, N failed".
#
# The change: the files that differ from CHECK_BASE (default HEAD, i.e. what is not
# committed; CHECK_BASE=origin/main for a branch), tracked or not. SUITES=<glob> (KUnit's
# kunit.filter_glob, e.g. "sm4_neon*") picks the suites by hand. With --results (make test)
# only the results are printed, and counted in $SM4RS_COUNTS.
source "$(dirname "$0")/lib.sh"

lane=${LANE:-6.12}
results_only=
[ "${1:-}" = --results ] && results_only=1

# The KUnit suites a file's change can break (globs over suite names: sm4_generic,
# sm4_ce, sm4_ce_cipher, sm4_ce_mac, sm4_ce_gcm, sm4_ce_ccm, sm4_neon, sm4_neon_variants,
# sm4_abstraction). Files the drivers do not build from break none.
suites_of() {
	case $1 in
	sm4_generic.rs | sm4/sm4.rs) echo "sm4_generic" ;;
	sm4_neon_*) echo "sm4_neon*" ;;
	sm4_ce_gcm_*) echo "sm4_ce_gcm" ;;
	sm4_ce_ccm_*) echo "sm4_ce_ccm" ;;
	sm4/aead_mode.rs | sm4/sm4-ce-partial.S) echo "sm4_ce_gcm sm4_ce_ccm" ;;
	sm4/modes.rs | sm4/mode_list.rs) echo "sm4_ce sm4_neon" ;;
	sm4/mac.rs) echo "sm4_ce_mac" ;;
	# (sm4-ce's exports serve the AEADs too)
	sm4_ce_* | sm4/sm4-ce-asm.h) echo "sm4_ce*" ;;
	sm4/sm4-asm.h) echo "sm4_ce* sm4_neon*" ;;
	crypto/* | tests/kunit/* | Kbuild | Kconfig | kernel-differences.txt) echo "sm4*" ;;
	esac
}
# One glob for all of them (kunit.filter_glob takes one): the suite itself if there is one,
# else every suite; sm4_abstraction (a few seconds) when the change touches none.
glob=${SUITES:-}
if [ -z "$glob" ]; then
	changed=$(cd "$REPO" && { "$GIT" diff --name-only "${CHECK_BASE:-HEAD}" --; "$GIT" ls-files --others --exclude-standard; } | sort -u)
	globs=$(for f in $changed; do suites_of "$f"; done | tr ' ' '\n' | sort -u | grep . || :)
	case $(echo "$globs" | grep -c .) in
	0) glob=sm4_abstraction ;;
	1) glob=$globs ;;
	*) glob='sm4*' ;;
	esac
	[ -n "$results_only" ] || log "changed: $(echo $changed); KUnit suites: $glob"
fi

if [ -z "$results_only" ]; then
	"$REPO/scripts/bootstrap.sh"
	"$REPO/scripts/kernel.sh" "$lane"
	counts=$(mktemp)
	trap 'rm -f "$counts"' EXIT
	export SM4RS_COUNTS=$counts
fi
"$REPO/scripts/stage-modules.sh" "$lane" >/dev/null || die "the module build failed"
rc=0
SM4RS_APPEND="kunit.filter_glob=$glob" "$REPO/scripts/vm.sh" "$lane" check max || rc=$?
if [ -z "$results_only" ]; then
	read -r passed failed < <(awk '{p += $1; f += $2} END {print p + 0, f + 0}' "$counts")
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
else
	exit $rc
fi
