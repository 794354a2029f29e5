/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C declarations the Rust crypto abstraction binds. bindgen runs over this header at
 * module build time with the kernel's own C flags (see Kbuild), allowlisted to what the
 * abstraction uses, because the kernel's `bindings` crate has no crypto API.
 */
#include <linux/crypto.h>
#include <crypto/algapi.h>
#include <crypto/skcipher.h>
#include <crypto/internal/skcipher.h>
#include <kunit/test.h>

/* Values bindgen cannot read from macros that expand to expressions. */
const size_t SM4RS_CONST_CRYPTO_MINALIGN = CRYPTO_MINALIGN;
