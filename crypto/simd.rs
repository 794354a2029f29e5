// SPDX-License-Identifier: GPL-2.0

//! Kernel-mode NEON sections.
//!
//! C headers: [`arch/arm64/include/asm/neon.h`](srctree/arch/arm64/include/asm/neon.h),
//! [`arch/arm64/include/asm/simd.h`](srctree/arch/arm64/include/asm/simd.h),
//! [`include/crypto/internal/simd.h`](srctree/include/crypto/internal/simd.h).
//!
//! `kernel_neon_begin()` hits `BUG_ON()` where NEON may not be used or inside a section, so
//! a crypto API callback lends its driver a [`Simd`], and [`Simd::neon`] checks the context
//! and runs a closure in a section. The closure gets a [`Neon`] token, which wrappers of
//! assembly routines take, while the `Simd` stays borrowed, so sections cannot nest.

use super::bindings;
use core::marker::PhantomData;

/// Proof that a kernel-mode NEON section is open, lent by [`Simd::neon`] to its closure.
pub struct Neon {
    _not_send: PhantomData<*mut ()>,
}

/// The right to open kernel-mode NEON sections, lent by a crypto API callback to its driver.
///
/// # Invariants
///
/// A usable `Simd` is the only one, and no NEON section is open in its context but, with
/// `Held`, the one [`Simd::span`] opened.
pub struct Simd {
    context: Context,
    _not_send: PhantomData<*mut ()>,
}

/// A [`Simd`]'s context (`Held`: in a [`Simd::span`] section).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Refused,
    Task,
    Softirq,
    Held,
}

impl Simd {
    /// Creates the right to use NEON here; `crypto_api` also follows `crypto_simd_usable()`.
    ///
    /// # Safety
    ///
    /// While it lives, no other `Simd` may be usable here, nor a section be open that the
    /// context check misses. The check sees a section of this task (`TIF_KERNEL_FPSTATE`) and
    /// one of this abstraction in the softirq being served, not one that C code opened in a
    /// softirq: the crypto API must not be called from inside that (a C driver would nest).
    pub unsafe fn new(crypto_api: bool) -> Self {
        // The context, asked once: it does not change during the callback.
        // SAFETY: the helper reads per-CPU, context and thread state only.
        let context = match unsafe { bindings::neon_context(crypto_api) } {
            0 => Context::Refused,
            2 => Context::Softirq,
            _ => Context::Task,
        };
        // INVARIANT: the check refuses the sections it sees, the caller guarantees the rest.
        Self {
            context,
            _not_send: PhantomData,
        }
    }

    /// Whether [`Simd::neon`] may open a section here, or runs in a [`Simd::span`].
    pub fn allowed(&self) -> bool {
        self.context != Context::Refused
    }

    /// Runs `f` in a short NEON section, in which it must not sleep; `None` where NEON is unusable.
    #[inline(always)]
    pub fn neon<R>(&mut self, f: impl FnOnce(&Neon) -> R) -> Option<R> {
        let context = self.context;
        if context == Context::Refused {
            return None;
        }
        let token = Neon {
            _not_send: PhantomData,
        };
        let open = !(SECTION_MAY_SPAN_WALK && context == Context::Held);
        let softirq = context == Context::Softirq;
        let mut st = SectionState::new();
        if open {
            // SAFETY: NEON is usable and no section open (checked, type invariant); `st` stays put.
            unsafe { begin(&mut st, softirq) };
        }
        let r = f(&token);
        if open {
            // SAFETY: ends the section begun above with `st`, which has not moved.
            unsafe { end(&mut st, softirq) };
        }
        Some(r)
    }

    /// Runs `f` in one NEON section for all its [`Simd::neon`] calls, if `worth` it and allowed
    /// ([`SECTION_MAY_SPAN_WALK`]).
    #[inline]
    pub fn span<R>(&mut self, worth: bool, f: impl FnOnce(&mut Simd) -> R) -> R {
        let context = self.context;
        let open =
            SECTION_MAY_SPAN_WALK && worth && matches!(context, Context::Task | Context::Softirq);
        let softirq = context == Context::Softirq;
        let mut st = SectionState::new();
        if open {
            // SAFETY: NEON is usable, no section open (checked, invariant); `st` stays put.
            unsafe { begin(&mut st, softirq) };
            // INVARIANT: the section is open until `f` returns.
            self.context = Context::Held;
        }
        let r = f(self); // One call, so that `f` is inlined once.
        if open {
            self.context = context;
            // SAFETY: ends the section begun above with `st`, which has not moved.
            unsafe { end(&mut st, softirq) };
        }
        r
    }
}

/// # Safety
///
/// As for [`section_begin`]; [`end`] ends the section with the same `st` and `softirq`.
#[inline(always)]
unsafe fn begin(st: &mut SectionState, softirq: bool) {
    // SAFETY: as required (caller).
    unsafe { section_begin(st) };
    if softirq {
        // SAFETY: marks the section just opened in a softirq.
        unsafe { bindings::neon_softirq_mark(true) };
    }
}

/// # Safety
///
/// `st` and `softirq` began the section that is open, and `st` has not moved since.
#[inline(always)]
unsafe fn end(st: &mut SectionState, softirq: bool) {
    if softirq {
        // SAFETY: the section closes next.
        unsafe { bindings::neon_softirq_mark(false) };
    }
    // SAFETY: as required (caller).
    unsafe { section_end(st) };
}

/// Whether a NEON section may span a request's work: yes, as the kernel's own arm64 glue does
/// from Linux 6.19 (`kernel_neon_begin()` takes the caller's state buffer).
#[cfg(sm4rs_neon_state)]
pub const SECTION_MAY_SPAN_WALK: bool = true;

/// Whether a NEON section may span a request's work: no, each section ends between steps, as
/// the kernel's own arm64 glue does before Linux 6.19.
#[cfg(not(sm4rs_neon_state))]
pub const SECTION_MAY_SPAN_WALK: bool = false;

/// The FPSR that marks a state buffer the kernel did not write (saved FPSRs have zero RES0).
#[cfg(sm4rs_neon_state)]
const UNUSED_FPSR: u32 = u32::MAX;

/// What a NEON section keeps: the task's FPSIMD state buffer, where the kernel takes one.
struct SectionState {
    #[cfg(sm4rs_neon_state)]
    state: core::mem::MaybeUninit<bindings::user_fpsimd_state>,
}

impl SectionState {
    #[inline(always)]
    fn new() -> Self {
        Self {
            #[cfg(sm4rs_neon_state)]
            state: core::mem::MaybeUninit::uninit(),
        }
    }
}

/// # Safety
///
/// NEON must be usable and no section open; [`section_end`] ends it with the same, unmoved `st`.
#[inline(always)]
unsafe fn section_begin(st: &mut SectionState) {
    #[cfg(sm4rs_neon_state)]
    {
        let st = st.state.as_mut_ptr();
        // SAFETY: `st` is valid for writes; `fpsr` is a plain `u32` field.
        unsafe { core::ptr::addr_of_mut!((*st).fpsr).write(UNUSED_FPSR) };
        // SAFETY: NEON is usable and no section open; the buffer stays put (the caller).
        unsafe { bindings::kernel_neon_begin(st) };
    }
    #[cfg(not(sm4rs_neon_state))]
    {
        let _ = st;
        // SAFETY: NEON may be used here and no section is open (the caller).
        unsafe { bindings::kernel_neon_begin() };
    }
}

/// # Safety
///
/// `st` began the section that is open, and has not moved since.
#[inline(always)]
unsafe fn section_end(st: &mut SectionState) {
    #[cfg(sm4rs_neon_state)]
    {
        let p = st.state.as_mut_ptr();
        // SAFETY: ends the section begun with this buffer (the caller).
        unsafe { bindings::kernel_neon_end(p) };
        // SAFETY: `fpsr` was initialised; the kernel may have written it, hence volatile.
        if unsafe { core::ptr::addr_of!((*p).fpsr).read_volatile() } != UNUSED_FPSR {
            wipe_state(st);
        }
    }
    #[cfg(not(sm4rs_neon_state))]
    {
        let _ = st;
        // SAFETY: ends the section begun by `section_begin` (the caller).
        unsafe { bindings::kernel_neon_end() };
    }
}

/// Wipes a state buffer the kernel saved registers to (rare: out of the sections' code).
#[cfg(sm4rs_neon_state)]
#[cold]
#[inline(never)]
fn wipe_state(st: &mut SectionState) {
    let len = core::mem::size_of::<bindings::user_fpsimd_state>();
    // SAFETY: the buffer is ours, `len` bytes, and the kernel no longer uses it.
    unsafe { super::wipe_raw(st.state.as_mut_ptr().cast(), len) };
}

/// Fails with `EDEADLK` inside a NEON section of this task (or of ours in this softirq).
///
/// Rust code must ask this before calling C code that may use NEON, such as the crypto API.
pub fn outside_section() -> Result<(), kernel::error::Error> {
    // SAFETY: the helper reads per-CPU, context and thread state only.
    if unsafe { bindings::neon_section_open() } {
        Err(super::edeadlk())
    } else {
        Ok(())
    }
}

/// Whether the CPUs have the SM4 instructions (SM4E, SM4EKEY): `cpu_have_named_feature(SM4)`.
pub fn cpu_has_sm4() -> bool {
    // SAFETY: reads the system-wide CPU feature bits.
    unsafe { bindings::cpu_have_feature(bindings::KERNEL_HWCAP_SM4) }
}

/// Whether the CPUs have the AES instructions: `cpu_have_named_feature(AES)`.
pub fn cpu_has_aes() -> bool {
    // SAFETY: reads the system-wide CPU feature bits.
    unsafe { bindings::cpu_have_feature(bindings::KERNEL_HWCAP_AES) }
}

/// Whether the CPUs have 64-bit PMULL: `cpu_have_named_feature(PMULL)`.
pub fn cpu_has_pmull() -> bool {
    // SAFETY: reads the system-wide CPU feature bits.
    unsafe { bindings::cpu_have_feature(bindings::KERNEL_HWCAP_PMULL) }
}

/// Whether kernel-mode NEON can be used at all (`system_supports_fpsimd()`).
pub fn fpsimd_usable() -> bool {
    // SAFETY: reads the system-wide CPU capabilities.
    unsafe { bindings::system_supports_fpsimd() }
}
