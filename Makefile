# SPDX-License-Identifier: GPL-2.0
#
# SM4 for arm64 in Rust. Kbuild reads ./Kbuild; this Makefile is for people:
#
#   make run            build everything needed, boot the default VM, show the SM4 drivers
#   make test           all test lanes (host, Linux 6.12, Linux 7.3)
#   make check          the quick loop: the modules built, one VM, the KUnit suites of the
#                       drivers the uncommitted change touches (CHECK_BASE=<rev> for more)
#   make test-long      the same with the load tests (concurrency, unloading under load,
#                       more fault runs) 120 s each instead of 8, and test-max on Linux 6.12
#                       built PREEMPT_RT and on Linux 7.3 with 64 KiB pages
#   make test-gcc       make KDIR= on a Linux 6.12 kernel built with GCC, and its test-max VM
#   make check-bootstrap  prove that the scripts need nothing the bootstrap does not install
#   make mutants        the mutation table: small wrong changes, each caught by a VM test
#   make ct-check       the assembly routines checked for secret-dependent addresses and
#                       branches (scripts/ct_check.py; make test runs it on every lane)
#   make bench          llvm-mca models of the assembly loops, ours and upstream's
#   make patches        the in-tree patch series for each kernel, in patches/<version>/
#   make series-check   every prefix of each series builds (make test-long runs it too)
#   make KDIR=<dir>     build the modules against your own kernel build directory
#   make clean

KDIR ?=
LANE ?= 6.12
CPU ?= max
# The assembly cores (what `make ct-check` reads).
CORE_OBJS := $(patsubst %.S,%.o,$(wildcard sm4_*_core.S))

.PHONY: all modules run test check test-long bench clean kernel check-bootstrap patches series-check test-gcc mutants ct-check

all: modules

modules:
ifeq ($(KDIR),)
	scripts/bootstrap.sh
	scripts/kernel.sh $(LANE)
	scripts/modules.sh $(LANE) modules
else
	scripts/modules.sh $(KDIR) modules
endif

kernel:
	scripts/bootstrap.sh
	scripts/kernel.sh $(LANE)

run:
	LANE=$(LANE) CPU=$(CPU) scripts/make-run.sh

test:
	scripts/test.sh

check:
	LANE=$(LANE) scripts/make-check.sh

test-long:
	SM4RS_LOAD_SECS=120 SM4RS_VARIANTS="6.12-rt 7.3-64k" scripts/test.sh
	scripts/series-check.sh

test-gcc:
	scripts/test-gcc.sh

check-bootstrap:
	scripts/bootstrap.sh
	scripts/check-bootstrap.sh

bench:
	LANE=$(LANE) scripts/make-bench.sh

ct-check:
	scripts/bootstrap.sh
	scripts/kernel.sh $(LANE)
	scripts/modules.sh $(LANE) $(CORE_OBJS)
	scripts/ct_check.py $(CORE_OBJS)

mutants:
	scripts/bootstrap.sh
	scripts/kernel.sh 6.12
	scripts/mutants.py

patches:
	scripts/bootstrap.sh
	scripts/patches.sh

series-check:
	scripts/bootstrap.sh
	scripts/series-check.sh

clean:
	rm -f *.o *.ko *.mod *.mod.c *.mod.o .*.cmd modules.order Module.symvers \
		crypto_bindings_generated.rs .crypto_bindings_generated.rs.d \
		crypto_helpers_generated.c sm4_*_helpers.c tests/kunit/*.o tests/kunit/.*.cmd
