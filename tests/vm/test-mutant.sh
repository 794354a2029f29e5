# SPDX-License-Identifier: GPL-2.0
# Scenario "test-mutant" (make mutants, scripts/mutants.py): the run that should catch one
# mutant of the sources. The VM boots with testmgr's self-tests off (cryptomgr.notests=1) and
# the KUnit suites filtered to the mutant's (kunit.filter_glob), so what fails here is a
# differential test against the oracle (upstream's C SM4), an AF_ALG known answer computed
# outside this project, the dm-crypt read-back through the oracle, or the kernel's own
# checkers (KASAN, BUG), never testmgr's fixed vectors or the host tests.

if load_ours sm4-generic && load_ours sm4-ce && load_ours sm4-neon && load_ours sm4-ce-gcm &&
	load_ours sm4-ce-ccm && load_ours sm4_kunit; then
	check_af_alg ""
	check_af_alg "-sm4-neon"
	check_dm_crypt "xts(sm4)"
	check_dm_crypt "xts-sm4-neon"
fi
