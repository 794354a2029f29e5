/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C declarations the Rust crypto abstraction binds. bindgen runs over this header at
 * module build time with the kernel's own C flags (see Kbuild), allowlisted to what the
 * abstraction uses, because the kernel's `bindings` crate has no crypto API.
 */
#include <linux/crypto.h>
#include <linux/fips.h>
#include <linux/scatterlist.h>
#include <crypto/algapi.h>
#include <crypto/scatterwalk.h>
#include <crypto/skcipher.h>
#include <crypto/internal/skcipher.h>
#include <crypto/internal/simd.h>
#include <kunit/test.h>
#include <asm/cpufeature.h>
#include <asm/neon.h>
#include <asm/simd.h>

/* Values bindgen cannot read from macros that expand to expressions. */
const size_t SM4RS_CONST_CRYPTO_MINALIGN = CRYPTO_MINALIGN;
const unsigned int SM4RS_CONST_KERNEL_HWCAP_SM4 = KERNEL_HWCAP_SM4;

/*
 * crypto_simd_usable() is a macro over inline functions and per-CPU data; bindgen wraps
 * this in an out-of-line function (--wrap-static-fns) compiled into the module.
 */
static inline bool sm4rs_crypto_simd_usable(void)
{
	return crypto_simd_usable();
}
