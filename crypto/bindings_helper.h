/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C declarations the Rust crypto abstraction binds. bindgen runs over this header at
 * module build time with the kernel's own C flags (see Kbuild), allowlisted to what the
 * abstraction uses, because the kernel's `bindings` crate has no crypto API.
 */
#include <linux/crypto.h>
#include <linux/scatterlist.h>
#include <crypto/aead.h>
#include <crypto/algapi.h>
#include <crypto/internal/aead.h>
#include <crypto/hash.h>
#include <crypto/internal/hash.h>
#include <crypto/scatterwalk.h>
#include <crypto/skcipher.h>
#include <crypto/xts.h>
#include <crypto/internal/skcipher.h>
#include <crypto/internal/simd.h>
#include <crypto/utils.h>
#include <crypto/sm4.h>
#include <kunit/test.h>
#include <linux/cpufeature.h>
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <asm/neon.h>
#include <asm/simd.h>

/* Values bindgen cannot read from macros that expand to expressions. */
const size_t SM4RS_CONST_CRYPTO_MINALIGN = CRYPTO_MINALIGN;
const unsigned int SM4RS_CONST_KERNEL_HWCAP_SM4 = KERNEL_HWCAP_SM4;
const unsigned int SM4RS_CONST_KERNEL_HWCAP_AES = KERNEL_HWCAP_AES;
const unsigned int SM4RS_CONST_KERNEL_HWCAP_PMULL = KERNEL_HWCAP_PMULL;
const unsigned int SM4RS_CONST_IRQ_WORK_HARD_IRQ = IRQ_WORK_HARD_IRQ;
const unsigned int SM4RS_CONST_EDEADLK = EDEADLK;
const unsigned int SM4RS_CONST_EBADMSG = EBADMSG;
const unsigned int SM4RS_CONST_EOVERFLOW = EOVERFLOW;
const size_t SM4RS_CONST_ARCH_SLAB_MINALIGN = ARCH_SLAB_MINALIGN;
const size_t SM4RS_CONST_HASH_MAX_DESCSIZE = HASH_MAX_DESCSIZE;
const size_t SM4RS_CONST_PAGE_SIZE = PAGE_SIZE;

/*
 * Kernel-mode NEON sections opened through the Rust abstraction in softirq context on this
 * CPU (0 or 1). The kernel marks a section opened in task context (TIF_KERNEL_FPSTATE), not
 * one opened in a softirq (which can neither be preempted nor migrate), so a second section
 * opened in the same softirq would go unnoticed. Where the interrupted task has a section
 * of its own, Linux 6.12 saves the first one's registers over that task's kernel-mode
 * state (7.3 keeps them, in the second section's buffer); where it has none, both kernels
 * lose them.
 */
static DEFINE_PER_CPU(unsigned int, sm4rs_softirq_neon);

/*
 * Whether kernel_neon_begin() may be called now, in one call: 0 if not (!may_use_simd();
 * a section of this task open, which kernel_neon_begin() BUG()s on except in a softirq that
 * interrupted it, and always on PREEMPT_RT, where softirqs run in threads; a section of
 * ours open in the softirq being served; with crypto_api, !crypto_simd_usable(), which the
 * self-tests turn off), else 2 in a softirq whose sections of ours must be marked
 * (sm4rs_neon_softirq_mark()), else 1.
 */
static inline int sm4rs_neon_context(bool crypto_api)
{
	bool softirq = !IS_ENABLED(CONFIG_PREEMPT_RT) && in_serving_softirq();

	/* crypto_simd_usable() is may_use_simd() and the self-tests' switch: one of them. */
	if (!(crypto_api ? crypto_simd_usable() : may_use_simd()))
		return 0;
	if (test_thread_flag(TIF_KERNEL_FPSTATE) && !softirq)
		return 0;
	if (softirq && __this_cpu_read(sm4rs_softirq_neon))
		return 0;
	return softirq ? 2 : 1;
}

/*
 * Whether a kernel-mode NEON section is open that code called from here would be inside:
 * one of this task, outside a softirq (the kernel marks it with TIF_KERNEL_FPSTATE; on
 * PREEMPT_RT, softirqs run in threads and are tasks too), or one of ours in the softirq
 * being served. A C driver called from inside one would BUG() in kernel_neon_begin() (task
 * context) or save its registers over the open section's (softirq): the crypto API must not
 * be called from here.
 */
static inline bool sm4rs_neon_section_open(void)
{
	if (!IS_ENABLED(CONFIG_PREEMPT_RT) && in_serving_softirq())
		return __this_cpu_read(sm4rs_softirq_neon);
	return test_thread_flag(TIF_KERNEL_FPSTATE);
}

/*
 * Records that a section of ours opens (open) or closes in the softirq being served, right
 * after kernel_neon_begin() and before kernel_neon_end(); called only where
 * sm4rs_neon_context() said 2.
 */
static inline void sm4rs_neon_softirq_mark(bool open)
{
	__this_cpu_write(sm4rs_softirq_neon, open);
}

/*
 * Whether the init of the module mod is running (mod NULL: code built in, never freed). If
 * that init fails, the module is freed at once, whatever references to it are left.
 */
static inline bool sm4rs_module_in_init(struct module *mod)
{
	return mod && module_is_coming(mod);
}

/*
 * Waits (sleeping) until at most refs references to alg are left. A self-test in flight
 * holds one until it ends, and so does a user that found the algorithm once its test
 * passed. No bound: the caller's module is freed as soon as its failed init returns, with
 * the code such a holder still runs. A warning every minute names the algorithm.
 */
static inline void sm4rs_alg_wait_refs(struct crypto_alg *alg, unsigned int refs)
{
	unsigned long warn = jiffies + 60 * HZ;

	while (refcount_read(&alg->cra_refcnt) > refs) {
		if (time_after(jiffies, warn)) {
			pr_warn("%s: a failed module init waits for the users of %s to end\n",
				module_name(alg->cra_module), alg->cra_driver_name);
			warn = jiffies + 60 * HZ;
		}
		msleep(20);
	}
}

/* crypto_memneq(): compares in time independent of the contents. */
static inline bool sm4rs_crypto_memneq(const void *a, const void *b, size_t size)
{
	return crypto_memneq(a, b, size) != 0;
}

/* Whether the CPUs have FP/ASIMD and the kernel uses it (not so with arm64.nofpsimd). */
static inline bool sm4rs_system_supports_fpsimd(void)
{
	return system_supports_fpsimd();
}

/*
 * Swaps the 16 bytes at a with the 16 at b (disjoint; any alignment): ciphertext stealing's
 * final swap, in four word loads and stores, where Rust code for the kernel's target
 * (+strict-align) would move them a byte at a time.
 */
static inline void sm4rs_swap16(u8 *a, u8 *b)
{
	u64 a0 = get_unaligned((u64 *)a), a1 = get_unaligned((u64 *)(a + 8));

	put_unaligned(get_unaligned((u64 *)b), (u64 *)a);
	put_unaligned(get_unaligned((u64 *)(b + 8)), (u64 *)(a + 8));
	put_unaligned(a0, (u64 *)b);
	put_unaligned(a1, (u64 *)(b + 8));
}

/* The current task, as an address to compare (for tests). */
static inline void *sm4rs_current_task(void)
{
	return current;
}

/* Whether this runs in task context, not in an interrupt or softirq (for tests). */
static inline bool sm4rs_in_task(void)
{
	return in_task();
}

/* Whether this runs in a softirq being served (for tests). */
static inline bool sm4rs_in_serving_softirq(void)
{
	return in_serving_softirq();
}

/* Argument register n (0 to 7) of the function a kprobe at its entry stopped (for tests). */
static inline u64 sm4rs_regs_arg(struct pt_regs *regs, unsigned int n)
{
	return n < 8 ? regs->regs[n] : 0;
}

/*
 * Sets (on) or clears, as testmgr does, the self-tests' switch that makes
 * crypto_simd_usable() false on this CPU, with migration off while it is set; false where
 * the kernel has no such switch (for tests).
 */
static inline bool sm4rs_simd_test_switch(bool on)
{
#if defined(CONFIG_CRYPTO_MANAGER_EXTRA_TESTS) || defined(CONFIG_CRYPTO_SELFTESTS_FULL)
	if (on)
		migrate_disable();
	__this_cpu_write(crypto_simd_disabled_for_test, on);
	if (!on)
		migrate_enable();
	return true;
#else
	return false;
#endif
}

/* Whether this runs in hard interrupt context (for tests). */
static inline bool sm4rs_in_hardirq(void)
{
	return in_hardirq();
}
