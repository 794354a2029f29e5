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
//! whole section) is hidden in `compat::section_begin` and `compat::section_end`.

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
/// for the duration of the callback (or of one walk step).
///
/// Drivers only ever get it by mutable reference, so they cannot keep it past the callback;
/// it is neither `Send` nor `Sync`.
///
/// # Invariants
///
/// While a `Simd` can be used, no kernel-mode NEON section opened by this abstraction is
/// open, but with `context` [`HELD`] the one [`span_section`] opened around that use (the
/// kernel's rule letting it span several steps, [`super::compat::SECTION_MAY_SPAN_WALK`]):
/// they are
/// created only by the abstraction's callback trampolines and walk, outside any section,
/// at most one usable at a time, and [`Simd::neon`] and [`span_section`] borrow it for the
/// whole section. With `crypto_api`, the callback also follows `crypto_simd_usable()`
/// (which the crypto self-tests turn off to exercise non-SIMD fallbacks, see
/// [`Simd::allowed`]).
pub struct Simd {
    crypto_api: bool,
    /// `bindings::neon_context()`, once asked: 0 no NEON, 1 NEON, 2 NEON in a softirq; or
    /// [`HELD`] while a section is open around this use of the `Simd` ([`span_section`]),
    /// which [`Simd::neon`] then runs its closures in.
    context: Option<core::ffi::c_int>,
    _not_send: PhantomData<*mut ()>,
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
        // INVARIANT: guaranteed by the caller. The context is checked when a section is
        // asked for, so callbacks that never use NEON pay nothing.
        Self {
            crypto_api,
            context: None,
            _not_send: PhantomData,
        }
    }

    /// Whether a section could be opened now: the callback allows NEON, `may_use_simd()`
    /// holds, and no kernel-mode NEON section is open that a new one would nest in: none of
    /// this task (one that a C caller would have left open around the crypto API call, which
    /// the kernel marks with `TIF_KERNEL_FPSTATE`; allowed only from a softirq that
    /// interrupted it, never on PREEMPT_RT), and none of this abstraction in the softirq
    /// being served (which the abstraction marks per CPU, as the kernel does not). Or: a
    /// section spanning this use of the `Simd` is open ([`Simd::span`]), which
    /// [`Simd::neon`] runs its closures in.
    pub fn allowed(&self) -> bool {
        self.context == Some(HELD) || self.context() != 0
    }

    /// `bindings::neon_context()`: 0 where no section may be opened, 1 where one may, 2 where
    /// one may in a softirq (whose sections the abstraction marks).
    fn context(&self) -> core::ffi::c_int {
        // SAFETY: the helper reads per-CPU, context and thread state only.
        unsafe { bindings::neon_context(self.crypto_api) }
    }

    /// [`Simd::context`], asked once: the context cannot change during the callback (or
    /// walk) that lent the `Simd`.
    fn context_once(&mut self) -> core::ffi::c_int {
        match self.context {
            Some(c) => c,
            None => *self.context.insert(self.context()),
        }
    }

    /// Runs `f` inside a kernel-mode NEON section and returns its result, or returns `None`
    /// without running it where NEON may not be used (see [`Simd::allowed`]).
    ///
    /// The section must be short (the walks hand drivers at most a page at a time) and `f`
    /// must not sleep. The context is checked the first time only: it cannot change during
    /// the callback (or walk) that lent the `Simd`, and the sections of one `Simd` never
    /// nest. Inside a section that spans the caller's work ([`Simd::span`]), `f` runs in
    /// that one.
    #[inline(always)]
    pub fn neon<R>(&mut self, f: impl FnOnce(&Neon) -> R) -> Option<R> {
        let context = self.context_once();
        if context == 0 {
            return None;
        }
        let token = Neon {
            _not_send: PhantomData,
        };
        // In the section `span_section` opened (`HELD`, never where sections do not span
        // walks), `f` runs in it; otherwise in a section of its own.
        let open = !(super::compat::SECTION_MAY_SPAN_WALK && context == HELD);
        let softirq = context == 2;
        let mut st = super::compat::SectionState::new();
        if open {
            // SAFETY: NEON may be used here and no section is open (checked above, and by
            // the type invariant); `st` stays in this frame until the section ends below, and
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

    /// Runs `f` with this `Simd`, in one kernel-mode NEON section where the kernel's rule
    /// lets a section span a request's work ([`super::compat::SECTION_MAY_SPAN_WALK`]): the
    /// sections `f` asks for ([`Simd::neon`]) are then that one. Elsewhere (or where NEON
    /// may not be used, or inside such a section already), `f` runs as it is, with a
    /// section per [`Simd::neon`].
    ///
    /// `f` may then sleep where the caller may: the kernel keeps a task's section across a
    /// reschedule.
    #[inline]
    pub fn span<R>(&mut self, f: impl FnOnce(&mut Simd) -> R) -> R {
        span_section(self, true, |s| s, f)
    }
}

/// The context of a [`Simd`] while a section is open around its use ([`span_section`]).
const HELD: core::ffi::c_int = 3;

/// [`Simd::span`] for work that needs the owner of the `Simd` (`simd` finds it in `owner`:
/// a request, whose walks take it); without `want`, `f` just runs (the owner's work is too
/// small for a section around it to pay).
#[inline]
pub(crate) fn span_section<T, R>(
    owner: &mut T,
    want: bool,
    simd: impl Fn(&mut T) -> &mut Simd,
    f: impl FnOnce(&mut T) -> R,
) -> R {
    let mut context = 0;
    if super::compat::SECTION_MAY_SPAN_WALK && want {
        context = simd(owner).context_once();
    }
    // (One call of `f` below, so that it is inlined once.)
    let open = context != 0 && context != HELD;
    let softirq = context == 2;
    let mut st = super::compat::SectionState::new();
    if open {
        // SAFETY: NEON may be used here and no section is open (checked above, and by the
        // type invariant: the `Simd` is not `HELD`); `st` stays in this frame until the
        // section ends below; `f` cannot open another one: its sections are this one
        // (`HELD`), and the `Simd` is the only one usable.
        unsafe { begin(&mut st, softirq) };
        // INVARIANT: the section is open until `f` returns; `HELD` says so meanwhile.
        simd(owner).context = Some(HELD);
    }
    let r = f(owner);
    if open {
        simd(owner).context = Some(context);
        // SAFETY: ends the section begun above with `st`, which has not moved.
        unsafe { end(&mut st, softirq) };
    }
    r
}

/// Begins a section of this abstraction ([`super::compat::section_begin`]), marked as such
/// in a softirq (`softirq`: the context is 2).
///
/// # Safety
///
/// As for [`super::compat::section_begin`]; [`end`] ends it with the same `st` and
/// `softirq`.
#[inline(always)]
unsafe fn begin(st: &mut super::compat::SectionState, softirq: bool) {
    // SAFETY: as required (caller).
    unsafe { super::compat::section_begin(st) };
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
unsafe fn end(st: &mut super::compat::SectionState, softirq: bool) {
    if softirq {
        // SAFETY: the section closes next.
        unsafe { bindings::neon_softirq_mark(false) };
    }
    // SAFETY: as required (caller).
    unsafe { super::compat::section_end(st) };
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
