# SPDX-License-Identifier: GPL-2.0
# Scenario "check" (-cpu max): the quick loop of one change (make check, scripts/make-check.sh)
# and the run that should catch one mutant (make mutants, scripts/mutants.py). Every module
# of ours is loaded; the KUnit suites run are those named by kunit.filter_glob on the kernel
# command line (the suites of the drivers the change touches); testmgr's self-tests of every
# driver loaded are checked, unless the boot turned them off (cryptomgr.notests=1: make
# mutants, so that what fails is a differential test against the oracle, not testmgr's fixed
# vectors); then AF_ALG known answers computed outside this project and dm-crypt read back
# through the oracle, by algorithm name and with sm4-neon forced.

if load_ours sm4-generic && load_ours sm4-ce && load_ours sm4-neon && load_ours sm4-ce-gcm &&
	load_ours sm4-ce-ccm && load_ours sm4_kunit; then
	if [ "$(cat /sys/module/cryptomgr/parameters/notests 2>/dev/null)" != Y ]; then
		for drv in sm4-generic sm4-ce $(drivers_of sm4-ce $SKCIPHERS $MACS) \
			$(drivers_of sm4-neon $SKCIPHERS) gcm-sm4-ce ccm-sm4-ce; do
			check_selftest "$drv"
		done
	fi
	check_af_alg ""
	check_af_alg "-sm4-neon"
	check_dm_crypt "xts(sm4)"
	check_dm_crypt "xts-sm4-neon"
fi
