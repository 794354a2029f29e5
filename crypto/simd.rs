// SPDX-License-Identifier: GPL-2.0

//! Kernel-mode NEON sections.
//!
//! C headers: [`arch/arm64/include/asm/neon.h`](srctree/arch/arm64/include/asm/neon.h),
//! [`include/crypto/internal/simd.h`](srctree/include/crypto/internal/simd.h).
//!
//! Assembly that uses the vector registers may only run between `kernel_neon_begin()` and
//! `kernel_neon_end()`. [`with_neon`] opens such a section around a closure and hands it a
//! [`Neon`] token; wrappers of assembly routines take `&Neon`, so they cannot be called
//! outside a section, and the token cannot outlive it. The difference between the kernels
//! (6.12's `kernel_neon_begin(void)`, 7.3's `kernel_neon_begin(struct user_fpsimd_state *)`
//! with a buffer that must stay put for the whole section) is hidden here.

use super::bindings;
use core::marker::PhantomData;

/// Proof that a kernel-mode NEON section is open on this CPU.
///
/// Only [`with_neon`] creates one, and lends it to its closure by reference, so it cannot
/// escape the section; it is neither `Send` nor `Sync`.
pub struct Neon {
    _not_send: PhantomData<*mut ()>,
}

/// Whether NEON may be used now: `crypto_simd_usable()` (false in hard interrupt context,
/// and when the crypto self-tests force the non-SIMD fallbacks).
pub fn usable() -> bool {
    // SAFETY: the helper only reads per-CPU and context state.
    unsafe { bindings::sm4rs_crypto_simd_usable() }
}

/// Runs `f` inside a kernel-mode NEON section and returns its result.
///
/// The section must be short and `f` must not sleep; callers in process or softirq context
/// (skcipher requests) may call it directly, others must check [`usable`] first. Sections
/// do not nest.
#[inline]
pub fn with_neon<R>(f: impl FnOnce(&Neon) -> R) -> R {
    let token = Neon {
        _not_send: PhantomData,
    };
    #[cfg(sm4rs_neon_state)]
    {
        let mut state = core::mem::MaybeUninit::<bindings::user_fpsimd_state>::uninit();
        // SAFETY: `state` is a buffer for the task's FPSIMD state that stays at this
        // address until the matching `kernel_neon_end()` below.
        unsafe { bindings::kernel_neon_begin(state.as_mut_ptr()) };
        let r = f(&token);
        // SAFETY: ends the section begun above, with the same buffer.
        unsafe { bindings::kernel_neon_end(state.as_mut_ptr()) };
        r
    }
    #[cfg(not(sm4rs_neon_state))]
    {
        // SAFETY: begins a section; `f` cannot sleep or nest another one.
        unsafe { bindings::kernel_neon_begin() };
        let r = f(&token);
        // SAFETY: ends the section begun above.
        unsafe { bindings::kernel_neon_end() };
        r
    }
}

/// Whether the CPUs have the SM4 instructions (SM4E, SM4EKEY): `cpu_have_named_feature(SM4)`.
pub fn cpu_has_sm4() -> bool {
    // SAFETY: reads the system-wide CPU feature bits.
    unsafe { bindings::cpu_have_feature(bindings::SM4RS_CONST_KERNEL_HWCAP_SM4) }
}
