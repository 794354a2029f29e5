// SPDX-License-Identifier: GPL-2.0

//! Kernel-mode NEON sections.
//!
//! C headers: [`arch/arm64/include/asm/neon.h`](srctree/arch/arm64/include/asm/neon.h),
//! [`arch/arm64/include/asm/simd.h`](srctree/arch/arm64/include/asm/simd.h),
//! [`include/crypto/internal/simd.h`](srctree/include/crypto/internal/simd.h).
//!
//! Assembly that uses the vector registers may only run between `kernel_neon_begin()` and
//! `kernel_neon_end()`, and `kernel_neon_begin()` hits `BUG_ON()` where `may_use_simd()` is
//! false (hard interrupts, interrupts disabled) or when a section of the same task is
//! already open. So sections are not opened by a free function here: the crypto API
//! callbacks of this abstraction lend the driver a [`Simd`], the right to open sections in
//! the callback's context, and [`Simd::neon`] opens one around a closure:
//!
//! - it checks the context each time and returns `None` where NEON may not be used, so a
//!   safe caller cannot reach the `BUG_ON()`, nor open a section inside another one that
//!   the kernel or this abstraction knows of (see [`Simd::allowed`]: a section opened by C
//!   code in a softirq cannot be seen, and crypto API callers must not call it there);
//! - it borrows the [`Simd`] mutably for the whole section and the closure gets only a
//!   [`Neon`] token, so a section cannot be opened inside another (the abstraction never
//!   calls back into a driver while a section is open);
//! - wrappers of assembly routines take `&Neon`, so they cannot run outside a section, and
//!   the token cannot outlive it;
//! - code that calls into the crypto API (where a C driver may open a section it cannot
//!   refuse) asks [`outside_section`] first, which fails inside any section of the task, and
//!   inside one of this abstraction in a softirq.
//!
//! The difference between the kernels (6.12's `kernel_neon_begin(void)`, 7.3's
//! `kernel_neon_begin(struct user_fpsimd_state *)` with a buffer that must stay put for the
//! whole section) is hidden in `section_begin` and `section_end`.

use super::bindings;
use core::marker::PhantomData;

/// Proof that a kernel-mode NEON section is open on this CPU.
///
/// Only [`Simd::neon`] creates one, and lends it to its closure by reference, so it cannot
/// escape the section; it is neither `Send` nor `Sync`.
pub struct Neon {
    _not_send: PhantomData<*mut ()>,
}

/// The right to open kernel-mode NEON sections, lent by a crypto API callback to the driver
/// for the duration of the callback.
///
/// Drivers only ever get it by mutable reference, so they cannot keep it past the callback;
/// it is neither `Send` nor `Sync`.
///
/// # Invariants
///
/// While a `Simd` can be used, no kernel-mode NEON section is open in its context but, with
/// [`Context::Held`], the one [`Simd::span`] opened around that use: `Simd`s are created
/// only by the callback trampolines, outside any section, at most one usable at a time, and
/// [`Simd::neon`] and [`Simd::span`] borrow it for the whole section. With `crypto_api`,
/// the callback also follows `crypto_simd_usable()` (which the crypto self-tests turn off to
/// exercise non-SIMD fallbacks, see [`Simd::allowed`]).
pub struct Simd {
    crypto_api: bool,
    context: Context,
    _not_send: PhantomData<*mut ()>,
}

/// What a [`Simd`] knows of its context.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    /// Not asked yet (callbacks that never use NEON do not pay for the question).
    Unknown,
    /// No section may be opened here.
    Refused,
    /// Sections may be opened, in task context (or a softirq on PREEMPT_RT).
    Task,
    /// Sections may be opened, in a softirq, where the abstraction marks them.
    Softirq,
    /// A section is open around this use ([`Simd::span`]): [`Simd::neon`] runs in it.
    Held,
}

impl Simd {
    /// Creates the right to use NEON in the current context.
    ///
    /// `crypto_api` selects the crypto API's view (`crypto_simd_usable()`, which the
    /// self-tests turn off to exercise non-SIMD fallbacks) instead of the CPU's
    /// (`may_use_simd()` alone, for code that has no fallback).
    ///
    /// # Safety
    ///
    /// No kernel-mode NEON section may be open in this context (by the caller or any caller
    /// up the stack) while the result lives, and no other `Simd` may be usable meanwhile.
    pub(crate) unsafe fn new(crypto_api: bool) -> Self {
        // INVARIANT: guaranteed by the caller.
        Self {
            crypto_api,
            context: Context::Unknown,
            _not_send: PhantomData,
        }
    }

    /// Whether a section could be opened now: the callback allows NEON, `may_use_simd()`
    /// holds, and no kernel-mode NEON section is open that a new one would nest in: none of
    /// this task (one that a C caller left open around the crypto API call, which the kernel
    /// marks with `TIF_KERNEL_FPSTATE`; allowed only from a softirq that interrupted it,
    /// never on PREEMPT_RT), and none of this abstraction in the softirq being served (which
    /// the abstraction marks per CPU, as the kernel does not); or a section spanning this use
    /// is open ([`Simd::span`]).
    pub fn allowed(&mut self) -> bool {
        self.context() != Context::Refused
    }

    /// The context, asked once: it cannot change during the callback that lent the `Simd`.
    fn context(&mut self) -> Context {
        if self.context == Context::Unknown {
            // SAFETY: the helper reads per-CPU, context and thread state only.
            self.context = match unsafe { bindings::neon_context(self.crypto_api) } {
                0 => Context::Refused,
                2 => Context::Softirq,
                _ => Context::Task,
            };
        }
        self.context
    }

    /// Runs `f` inside a kernel-mode NEON section and returns its result, or returns `None`
    /// without running it where NEON may not be used (see [`Simd::allowed`]).
    ///
    /// The section must be short (a walk's step at most, a page) and `f` must not sleep.
    /// Inside a section that spans the caller's work ([`Simd::span`]), `f` runs in that one.
    #[inline(always)]
    pub fn neon<R>(&mut self, f: impl FnOnce(&Neon) -> R) -> Option<R> {
        let context = self.context();
        if context == Context::Refused {
            return None;
        }
        let token = Neon {
            _not_send: PhantomData,
        };
        // (`Held` only where sections may span a request's work.)
        let open = !(SECTION_MAY_SPAN_WALK && context == Context::Held);
        let softirq = context == Context::Softirq;
        let mut st = SectionState::new();
        if open {
            // SAFETY: NEON may be used here and no section is open (checked above, and by
            // the type invariant); `st` stays in this frame until the section ends below;
            // `f` cannot open another section (`self` is borrowed).
            unsafe { begin(&mut st, softirq) };
        }
        let r = f(&token);
        if open {
            // SAFETY: ends the section begun above with `st`, which has not moved.
            unsafe { end(&mut st, softirq) };
        }
        Some(r)
    }

    /// Runs `f` with this `Simd` in one kernel-mode NEON section, if `worth` it and the
    /// kernel's rule lets a section span a request's work
    /// ([`SECTION_MAY_SPAN_WALK`]): the walk between its steps, an AEAD's
    /// associated data and tag. Its [`Simd::neon`] sections are then that one. Otherwise
    /// (or where NEON may not be used, or inside such a section already) `f` runs as it is.
    ///
    /// `f` may then sleep where the caller may: the kernel keeps a task's section across a
    /// reschedule.
    #[inline]
    pub fn span<R>(&mut self, worth: bool, f: impl FnOnce(&mut Simd) -> R) -> R {
        let context = if SECTION_MAY_SPAN_WALK && worth {
            self.context()
        } else {
            Context::Refused
        };
        let open = matches!(context, Context::Task | Context::Softirq);
        if !open {
            return f(self);
        }
        let softirq = context == Context::Softirq;
        let mut st = SectionState::new();
        // SAFETY: NEON may be used here and no section is open (checked above, and by the
        // type invariant: the `Simd` is not `Held`); `st` stays in this frame until the
        // section ends below; `f`'s sections are this one (`Held`).
        unsafe { begin(&mut st, softirq) };
        // INVARIANT: the section is open until `f` returns; `Held` says so meanwhile.
        self.context = Context::Held;
        let r = f(self);
        self.context = context;
        // SAFETY: ends the section begun above with `st`, which has not moved.
        unsafe { end(&mut st, softirq) };
        r
    }
}

/// Begins a section of this abstraction ([`section_begin`]), marked as such
/// in a softirq (`softirq`: the context is 2).
///
/// # Safety
///
/// As for [`section_begin`]; [`end`] ends it with the same `st` and
/// `softirq`.
#[inline(always)]
unsafe fn begin(st: &mut SectionState, softirq: bool) {
    // SAFETY: as required (caller).
    unsafe { section_begin(st) };
    if softirq {
        // SAFETY: marks the section just opened in a softirq.
        unsafe { bindings::neon_softirq_mark(true) };
    }
}

/// Ends the section [`begin`] began.
///
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

/// Whether a kernel-mode NEON section may span a request's work: a walk's steps, with the
/// kernel's walk (`skcipher_walk_done()`, which may sleep) between them, and an AEAD's
/// associated data and tag. With the section's state buffer on the caller's stack (Linux
/// 6.19, `scoped_ksimd()`), the kernel keeps a task's section across a reschedule, and its
/// own arm64 glue (7.3's, which this follows) opens one section over the whole walk of XTS
/// (`arch/arm64/crypto/sm4-ce-glue.c`, `sm4_xts_crypt()`), over the whole of a GCM or CCM
/// request (`sm4-ce-gcm-glue.c` `gcm_crypt()`, `sm4-ce-ccm-glue.c` `ccm_crypt()`) and over
/// a whole hash update (`sm4_mac_update()`), and one per walk step for the other modes.
/// Before (6.12's glue), every section ends before the walk goes on, and holds at most a
/// page ([`super::skcipher::MAX_STEP`]). Used by [`Simd::span`].
#[cfg(sm4rs_neon_state)]
pub const SECTION_MAY_SPAN_WALK: bool = true;

/// See the other form.
#[cfg(not(sm4rs_neon_state))]
pub const SECTION_MAY_SPAN_WALK: bool = false;

/// The FPSR value that marks a section's state buffer as not written by the kernel: all
/// ones, which no saved FPSR is (its RES0 bits read as zero).
#[cfg(sm4rs_neon_state)]
const UNUSED_FPSR: u32 = u32::MAX;

/// What a kernel-mode NEON section keeps from its start to its end: from Linux 6.19, the
/// buffer for the task's FPSIMD state that `kernel_neon_begin()` takes, which must stay at
/// its address for the whole section (the caller's stack frame); before, nothing.
struct SectionState {
    #[cfg(sm4rs_neon_state)]
    state: core::mem::MaybeUninit<bindings::user_fpsimd_state>,
}

impl SectionState {
    /// A state for one section (nothing is written before [`section_begin`]).
    #[inline(always)]
    fn new() -> Self {
        Self {
            #[cfg(sm4rs_neon_state)]
            state: core::mem::MaybeUninit::uninit(),
        }
    }
}

/// Begins a kernel-mode NEON section: `kernel_neon_begin()`, with `st`'s buffer for the
/// task's FPSIMD state (Linux 6.19 and later).
///
/// # Safety
///
/// NEON may be used in this context and no section is open on this CPU; [`section_end`]
/// ends the section with the same `st`, which does not move meanwhile, and nothing between
/// opens another section.
#[inline(always)]
unsafe fn section_begin(st: &mut SectionState) {
    #[cfg(sm4rs_neon_state)]
    {
        let st = st.state.as_mut_ptr();
        // The kernel writes the buffer only when it saves an FPSIMD context there: this
        // section's, if the task is scheduled out during it, or, in a softirq, that of the
        // task's own kernel-mode section it interrupted. A saved FPSR has its RES0 bits
        // clear, so an all-ones FPSR marks a buffer the kernel did not use, which then holds
        // nothing to wipe (wiping all 528 bytes after every section would cost more than a
        // short request's SM4).
        // SAFETY: `st` is valid for writes; `fpsr` is a plain `u32` field.
        unsafe { core::ptr::addr_of_mut!((*st).fpsr).write(UNUSED_FPSR) };
        // SAFETY: NEON may be used here and no section is open (the caller); the buffer
        // stays at this address until the matching `kernel_neon_end()` (the caller).
        unsafe { bindings::kernel_neon_begin(st) };
    }
    #[cfg(not(sm4rs_neon_state))]
    {
        let _ = st;
        // SAFETY: NEON may be used here and no section is open (the caller).
        unsafe { bindings::kernel_neon_begin() };
    }
}

/// Ends the section [`section_begin`] began with `st`: `kernel_neon_end()`, and on Linux
/// 6.19 and later the state buffer wiped if the kernel wrote to it.
///
/// # Safety
///
/// `st` began the section that is open, and has not moved since.
#[inline(always)]
unsafe fn section_end(st: &mut SectionState) {
    #[cfg(sm4rs_neon_state)]
    {
        let st = st.state.as_mut_ptr();
        // SAFETY: ends the section begun with this buffer (the caller).
        unsafe { bindings::kernel_neon_end(st) };
        // SAFETY: `fpsr` was initialised by `section_begin` and the kernel no longer uses
        // the buffer; volatile, as the kernel may have written it behind the compiler's back.
        let used = unsafe { core::ptr::addr_of!((*st).fpsr).read_volatile() } != UNUSED_FPSR;
        if used {
            // The buffer holds registers of this section (saved on preemption: round keys,
            // data) or of the task it interrupted.
            // SAFETY: `st` is the buffer, `size_of` bytes, no longer used by the kernel.
            unsafe {
                super::wipe_raw(
                    st.cast(),
                    core::mem::size_of::<bindings::user_fpsimd_state>(),
                )
            };
        }
    }
    #[cfg(not(sm4rs_neon_state))]
    {
        let _ = st;
        // SAFETY: ends the section begun by `section_begin` (the caller).
        unsafe { bindings::kernel_neon_end() };
    }
}

/// Fails with `EDEADLK` where a kernel-mode NEON section is open that code called from here
/// would run inside: one of this task (opened by C or Rust code; the kernel marks it), or
/// one of this abstraction in the softirq being served.
///
/// Rust code that calls into the crypto API, or into any C code that may use kernel-mode
/// NEON, must ask this first: [`Simd::neon`]'s closure is safe code, and a C driver called
/// from inside its section would hit `BUG_ON()` in `kernel_neon_begin()` (task context) or
/// save its registers over the section's (softirq), and cannot be made to refuse. This
/// abstraction's own drivers refuse a nested section by themselves ([`Simd::allowed`]); C
/// drivers do not. (Nothing in the abstraction calls the crypto API; a client API built on
/// it calls this on each call that runs an algorithm.)
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

/// Whether the CPUs have the AES instructions (AESE, AESD, AESMC, AESIMC):
/// `cpu_have_named_feature(AES)`.
pub fn cpu_has_aes() -> bool {
    // SAFETY: reads the system-wide CPU feature bits.
    unsafe { bindings::cpu_have_feature(bindings::KERNEL_HWCAP_AES) }
}

/// Whether the CPUs have the 64-bit polynomial multiplication (PMULL, PMULL2 on 1Q):
/// `cpu_have_named_feature(PMULL)`.
pub fn cpu_has_pmull() -> bool {
    // SAFETY: reads the system-wide CPU feature bits.
    unsafe { bindings::cpu_have_feature(bindings::KERNEL_HWCAP_PMULL) }
}

/// The `MIDR_EL1` of the CPU running the section `_neon`: the implementer (bits 31-24) and
/// part number (bits 15-4), for drivers that pick the code that suits the CPU (big.LITTLE
/// systems mix parts). A hint only: a section in task context may be preempted and resumed
/// on another CPU (Linux 6.8 on), so the choice must not matter for correctness.
pub fn cpu_midr(_neon: &Neon) -> u32 {
    // SAFETY: reads this CPU's identification register.
    unsafe { bindings::cpu_midr() }
}

/// The `MIDR_EL1` of the CPU running the caller now, outside any section: for messages only
/// (the caller may run on another CPU right after); code that picks by CPU uses
/// [`cpu_midr`] in its section.
pub fn cpu_midr_now() -> u32 {
    // SAFETY: reads this CPU's identification register.
    unsafe { bindings::cpu_midr() }
}

/// Whether kernel-mode NEON can be used at all: the CPUs have FP/ASIMD and the kernel uses it
/// (`system_supports_fpsimd()`: not with `arm64.nofpsimd`). A driver without a path that
/// avoids NEON should not register where this is false.
pub fn fpsimd_usable() -> bool {
    // SAFETY: reads the system-wide CPU capabilities.
    unsafe { bindings::system_supports_fpsimd() }
}
