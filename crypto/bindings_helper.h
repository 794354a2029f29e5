/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C declarations the Rust crypto abstraction binds. bindgen runs over this header at
 * module build time with the kernel's own C flags (see Kbuild), allowlisted to what the
 * abstraction uses, because the kernel's `bindings` crate has no crypto API.
 */
#include <linux/crypto.h>
#include <linux/fips.h>
#include <linux/highmem.h>
#include <linux/scatterlist.h>
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <crypto/internal/hash.h>
#include <crypto/scatterwalk.h>
#include <crypto/skcipher.h>
#include <crypto/internal/skcipher.h>
#include <crypto/internal/simd.h>
#include <crypto/utils.h>
#include <kunit/test.h>
#include <linux/irq_work.h>
#include <linux/kmemleak.h>
#include <linux/refcount.h>
#include <linux/cpufeature.h>
#include <asm/neon.h>
#include <asm/simd.h>

/* Values bindgen cannot read from macros that expand to expressions. */
const size_t SM4RS_CONST_CRYPTO_MINALIGN = CRYPTO_MINALIGN;
const unsigned int SM4RS_CONST_KERNEL_HWCAP_SM4 = KERNEL_HWCAP_SM4;
const unsigned int SM4RS_CONST_IRQ_WORK_HARD_IRQ = IRQ_WORK_HARD_IRQ;
const unsigned int SM4RS_CONST_EDEADLK = EDEADLK;
const size_t SM4RS_CONST_ARCH_SLAB_MINALIGN = ARCH_SLAB_MINALIGN;
const size_t SM4RS_CONST_HASH_MAX_DESCSIZE = HASH_MAX_DESCSIZE;

/* crypto_simd_usable(), a macro over inline functions and per-CPU data. */
static inline bool sm4rs_crypto_simd_usable(void)
{
	return crypto_simd_usable();
}

/*
 * Whether kernel_neon_begin() may be called now: may_use_simd(), and not inside a
 * kernel-mode NEON section of this task already (kernel_neon_begin() would BUG).
 */
static inline bool sm4rs_may_use_neon(void)
{
	if (!may_use_simd())
		return false;
#ifdef TIF_KERNEL_FPSTATE
	if (!in_serving_softirq() && test_thread_flag(TIF_KERNEL_FPSTATE))
		return false;
#endif
	return true;
}

/* The number of references to a registered algorithm (1: only the registration's). */
static inline unsigned int sm4rs_crypto_alg_refcount(struct crypto_alg *alg)
{
	return refcount_read(&alg->cra_refcnt);
}

/* crypto_memneq(): compares in time independent of the contents. */
static inline bool sm4rs_crypto_memneq(const void *a, const void *b, size_t size)
{
	return crypto_memneq(a, b, size) != 0;
}

/*
 * The address in the kernel's linear map of the first len bytes described by sg, if they
 * all lie in its first entry and that has a permanent mapping (no highmem); NULL otherwise.
 */
static inline void *sm4rs_sg_linear(struct scatterlist *sg, unsigned int len)
{
	if (!sg || sg->length < len)
		return NULL;
	if (IS_ENABLED(CONFIG_HIGHMEM) && PageHighMem(sg_page(sg)))
		return NULL;
	return sg_virt(sg);
}

/*
 * What the scatterlist walker does to each destination page it wrote (flush_dcache_page(),
 * where the architecture needs it), for the first len bytes of sg's first entry.
 */
static inline void sm4rs_sg_flush_dcache(struct scatterlist *sg, unsigned int len)
{
#if ARCH_IMPLEMENTS_FLUSH_DCACHE_PAGE
	struct page *page = sg_page(sg) + (sg->offset >> PAGE_SHIFT);
	unsigned int n = (offset_in_page(sg->offset) + len + PAGE_SIZE - 1) >> PAGE_SHIFT;

	while (n--)
		flush_dcache_page(page++);
#endif
}

/*
 * Copies nbytes between buf and the data described by sg from byte start on (out: into
 * sg), as scatterwalk_map_and_copy() (an exported function on 6.12, inline later).
 */
static inline void sm4rs_sg_copy(void *buf, struct scatterlist *sg, unsigned int start,
				 unsigned int nbytes, int out)
{
	scatterwalk_map_and_copy(buf, sg, start, nbytes, out);
}

/*
 * Tells kmemleak that an algorithm description deliberately never freed (still used after
 * its registration was dropped) is not a leak.
 */
static inline void sm4rs_crypto_keep_alg(const void *p)
{
	kmemleak_not_leak(p);
}

/* Whether this runs in hard interrupt context (for tests). */
static inline bool sm4rs_in_hardirq(void)
{
	return in_hardirq();
}
