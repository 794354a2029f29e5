// SPDX-License-Identifier: GPL-2.0

//! Crypto API providers: algorithms implemented in Rust for the kernel's crypto API.
//!
//! C headers: [`include/linux/crypto.h`](srctree/include/linux/crypto.h),
//! [`include/crypto/algapi.h`](srctree/include/crypto/algapi.h),
//! [`arch/arm64/include/asm/neon.h`](srctree/arch/arm64/include/asm/neon.h),
//! [`arch/arm64/include/asm/simd.h`](srctree/arch/arm64/include/asm/simd.h),
//! [`include/crypto/internal/simd.h`](srctree/include/crypto/internal/simd.h).
//!
// sm4rs-oot-begin
//! Out of tree each module compiles this in as `crate::crypto`, with its own [`bindings`].
//!
// sm4rs-oot-end
//! What every kind of algorithm uses is here:
//!
//! - the bytes of a request that are only read: [`Input`].
//! - kernel-mode NEON sections: [`Simd`], [`Neon`].
//! - wiping: [`Secret`], [`wipe`].
//! - the skcipher walk, which skciphers and AEADs step through: [`Walk`], [`Step`], [`InOut`].
//!
//! Each kind of algorithm has a module of its own:
//!
//! - [`alg`]: registration and per-transform contexts, shared by every kind of algorithm.
//! - [`cipher`]: single-block ciphers (`CRYPTO_ALG_TYPE_CIPHER`).
//! - [`skcipher`]: symmetric key ciphers.
//! - [`shash`]: synchronous hashes and MACs.
//! - [`aead`]: authenticated encryption with associated data.
//! - [`param`]: read-only string module parameters.

// sm4rs-oot-begin
pub mod bindings;
// sm4rs-oot-end
// sm4rs-in-tree: use crate::bindings;
pub mod aead;
pub mod alg;
pub mod cipher;
pub mod param;
pub mod shash;
pub mod shash_buffer;
pub mod skcipher;

use core::{
    ffi::{c_char, c_uint, CStr},
    marker::PhantomData,
};
use kernel::error::{Error, Result};

/// `CRYPTO_MINALIGN`, the alignment of a transform's context area (its bindgen type varies).
#[allow(clippy::unnecessary_cast)]
pub(crate) const CRYPTO_MINALIGN: usize = bindings::CRYPTO_MINALIGN as usize;

/// The context area of the transform `tfm`, as a `C`.
///
/// # Safety
///
/// `tfm` must be a live transform whose context area fits a `C`.
pub(crate) unsafe fn ctx<C>(tfm: *mut bindings::crypto_tfm) -> *mut C {
    // SAFETY: `tfm` is live (caller); its context follows it.
    unsafe { (*tfm).__crt_ctx.as_mut_ptr().cast() }
}

/// The `EDEADLK` error: NEON may not be used in this context.
pub fn edeadlk() -> Error {
    Error::from_errno(-(bindings::EDEADLK as i32))
}

/// The `EOVERFLOW` error: a length the mode cannot encode.
pub fn eoverflow() -> Error {
    Error::from_errno(-(bindings::EOVERFLOW as i32))
}

/// A block of bytes, the unit an algorithm transforms: a byte array, aligned anywhere (sealed).
pub trait Block: private::Sealed + Sized + 'static {
    /// The size in bytes.
    const SIZE: usize;
}

impl<const N: usize> Block for [u8; N] {
    const SIZE: usize = N;
}

mod private {
    pub trait Sealed {}
    impl<const N: usize> Sealed for [u8; N] {}
}

/// The `len` bytes at `p` as a slice (empty, and `p` unused, if `len` is 0).
///
/// # Safety
///
/// If `len > 0`, `p` must be valid for reads of `len` bytes, not written during `'a`.
pub(crate) unsafe fn byte_slice<'a>(p: *const u8, len: c_uint) -> &'a [u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: guaranteed by the caller.
    unsafe { core::slice::from_raw_parts(p, len as usize) }
}

/// Bytes of a caller's buffer that are only read: hash data, AEAD associated data.
///
/// Not a slice, as other threads may write the buffer meanwhile (AF_ALG's user pages).
///
/// # Invariants
///
/// `ptr` is valid for reads of `len` (a `c_uint`) bytes during `'a` (any pointer, NULL too,
/// if `len` is 0).
#[derive(Clone, Copy)]
pub struct Input<'a> {
    ptr: *const u8,
    len: usize,
    _p: PhantomData<&'a [u8]>,
}

impl<'a> Input<'a> {
    /// No bytes.
    // INVARIANT: no bytes.
    pub const EMPTY: Input<'static> = Input {
        ptr: core::ptr::null(),
        len: 0,
        _p: PhantomData,
    };

    /// The `len` bytes at `ptr`.
    ///
    /// # Safety
    ///
    /// `ptr` must be valid for reads of `len` bytes during `'a` (or `len` 0).
    pub unsafe fn new(ptr: *const u8, len: c_uint) -> Self {
        // INVARIANT: as required of the caller.
        Self {
            ptr,
            len: len as usize,
            _p: PhantomData,
        }
    }

    /// The bytes of `buf`, e.g. a buffer of a partial block.
    pub fn from_array<const N: usize>(buf: &'a [u8; N]) -> Self {
        const { assert!(N <= c_uint::MAX as usize) };
        // SAFETY: an array is readable for its length (a `c_uint`) while it is borrowed.
        unsafe { Self::new(buf.as_ptr(), N as c_uint) }
    }

    /// The number of bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of whole blocks of `size` bytes (not zero), as assembly takes it.
    pub fn blocks(&self, size: usize) -> c_uint {
        whole_blocks(self.len, size)
    }

    /// The first byte, readable for [`Input::len`] bytes (for assembly routines).
    pub fn as_ptr(&self) -> *const u8 {
        self.ptr
    }

    /// Splits into the first `n` bytes (at most [`Input::len`]) and the rest.
    pub fn split_at(&self, n: usize) -> (Input<'a>, Input<'a>) {
        let n = n.min(self.len);
        // INVARIANT: both parts lie in the original range.
        (
            Input { len: n, ..*self },
            Input {
                ptr: self.ptr.wrapping_add(n),
                len: self.len - n,
                ..*self
            },
        )
    }

    /// Copies the first `buf.len()` bytes (at most [`Input::len`]) into `buf`.
    pub fn read(&self, buf: &mut [u8]) {
        self.read_at(0, buf);
    }

    /// Copies `buf.len()` bytes from byte `offset` on (at most what is there) into `buf`.
    pub fn read_at(&self, offset: usize, buf: &mut [u8]) {
        let offset = offset.min(self.len);
        let n = buf.len().min(self.len - offset);
        if n > 0 {
            // SAFETY: `ptr` is readable for `offset + n` bytes (invariant); `buf` is distinct.
            unsafe { core::ptr::copy_nonoverlapping(self.ptr.add(offset), buf.as_mut_ptr(), n) };
        }
    }
}

/// The whole blocks of `size` bytes (not zero) in `len` bytes, a `c_uint` as `len` is
/// (the byte views' invariants).
#[inline(always)]
fn whole_blocks(len: usize, size: usize) -> c_uint {
    (len / size.max(1)) as c_uint
}

/// Copies `name` into a NUL-padded C `char` array (e.g. `cra_name`) at compile time; an
/// empty name, or one too long for the array, fails the build.
pub const fn name_array<const N: usize>(name: &CStr) -> [c_char; N] {
    let bytes = name.to_bytes();
    assert!(!bytes.is_empty(), "an empty name");
    assert!(bytes.len() < N, "name too long for its C array");
    let mut out = [0 as c_char; N];
    let mut i = 0;
    while i < bytes.len() {
        out[i] = bytes[i] as c_char;
        i += 1;
    }
    out
}

/// `s`, a name and its NUL (as `concat!(name, "\0")` gives), as a C string; empty if invalid
/// (which [`name_array`] refuses).
pub const fn c_name(s: &'static str) -> &'static CStr {
    match CStr::from_bytes_with_nul(s.as_bytes()) {
        Ok(name) => name,
        Err(_) => c"",
    }
}

/// The address of `s` for C (the kernel's clippy configuration disallows `CStr::as_ptr`).
pub const fn c_str_ptr(s: &CStr) -> *const c_char {
    s.to_bytes_with_nul().as_ptr().cast()
}

/// Secret bytes on the stack (keys, plaintext, keystream), zeroed when they go out of scope.
#[repr(C, align(16))]
pub struct Secret<const N: usize>([u8; N]);

impl<const N: usize> Secret<N> {
    /// All zeros.
    pub const fn zeroed() -> Self {
        Self([0; N])
    }

    /// Takes `v` (the caller's copy is the caller's to wipe).
    pub const fn new(v: [u8; N]) -> Self {
        Self(v)
    }
}

impl<const N: usize> core::ops::Deref for Secret<N> {
    type Target = [u8; N];

    fn deref(&self) -> &[u8; N] {
        &self.0
    }
}

impl<const N: usize> core::ops::DerefMut for Secret<N> {
    fn deref_mut(&mut self) -> &mut [u8; N] {
        &mut self.0
    }
}

impl<const N: usize> Drop for Secret<N> {
    fn drop(&mut self) {
        wipe(&mut self.0);
    }
}

/// Overwrites `bytes` with zeros that the compiler may not elide: volatile stores, then a fence.
pub fn wipe(bytes: &mut [u8]) {
    // SAFETY: any bytes are a valid `u64`, and `align_to_mut` gives the aligned middle.
    let (head, words, tail) = unsafe { bytes.align_to_mut::<u64>() };
    for w in words.iter_mut() {
        // SAFETY: `w` is a valid, exclusive, aligned reference.
        unsafe { core::ptr::write_volatile(w, 0) };
    }
    // (A loop each, not one over their chain, which compiles to a longer loop.)
    for b in head.iter_mut() {
        // SAFETY: `b` is a valid, exclusive reference.
        unsafe { core::ptr::write_volatile(b, 0) };
    }
    for b in tail.iter_mut() {
        // SAFETY: `b` is a valid, exclusive reference.
        unsafe { core::ptr::write_volatile(b, 0) };
    }
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// [`wipe`] over `len` bytes at `ptr` (memory the C side owns, e.g. a transform's context).
///
/// # Safety
///
/// `ptr` must be valid for writes of `len` bytes and not be accessed otherwise meanwhile.
pub unsafe fn wipe_raw(ptr: *mut u8, len: usize) {
    // SAFETY: `ptr` is valid for `len` bytes and not otherwise used meanwhile (caller).
    wipe(unsafe { core::slice::from_raw_parts_mut(ptr, len) });
}

// Kernel-mode NEON sections.

/// Proof that a kernel-mode NEON section is open, lent by [`Simd::neon`] to its closure.
pub struct Neon {
    _not_send: PhantomData<*mut ()>,
}

/// The right to open kernel-mode NEON sections, lent by a crypto API callback to its driver.
///
/// `kernel_neon_begin()` hits `BUG_ON()` where NEON may not be used or inside a section, so
/// no safe code calls it: [`Simd::neon`] checks the context and runs a closure in a section.
/// The closure gets a [`Neon`] token, which wrappers of assembly routines take, while the
/// `Simd` stays borrowed, so sections cannot nest.
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
    unsafe { wipe_raw(st.state.as_mut_ptr().cast(), len) };
}

/// Fails with `EDEADLK` inside a NEON section of this task (or of ours in this softirq).
///
/// Rust code must ask this before calling C code that may use NEON, such as the crypto API.
pub fn outside_section() -> Result {
    // SAFETY: the helper reads per-CPU, context and thread state only.
    if unsafe { bindings::neon_section_open() } {
        Err(edeadlk())
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

// sm4rs-oot-begin
/// `module!` with one `author`, given as the list of `authors` that kernels after 6.12 take.
macro_rules! module {
    (
        type: $type:ident,
        name: $name:tt,
        author: $author:tt,
        description: $desc:tt,
        license: $license:tt
        $(, alias: [$($alias:tt),* $(,)?])? $(,)?
    ) => {
        #[cfg(sm4rs_module_authors)]
        ::kernel::prelude::module! {
            type: $type,
            name: $name,
            authors: [$author],
            description: $desc,
            license: $license,
            $(alias: [$($alias),*],)?
        }
        #[cfg(not(sm4rs_module_authors))]
        ::kernel::prelude::module! {
            type: $type,
            name: $name,
            author: $author,
            description: $desc,
            license: $license,
            $(alias: [$($alias),*],)?
        }
    };
}
pub(crate) use module;
// sm4rs-oot-end

// The skcipher walk (`struct skcipher_walk`), which skciphers and AEADs step through.
// C header: include/crypto/internal/skcipher.h.

/// The most data a step of the kernel's walks holds (a page): a NEON section's bound but a span's.
pub const MAX_STEP: usize = bindings::PAGE_SIZE;

/// The kernel's state of a [`Walk`] (`struct skcipher_walk`), kept by the request it walks.
pub(crate) type WalkState = core::mem::MaybeUninit<bindings::skcipher_walk>;

/// How a [`Walk`] starts: the kernel's function for the request (only this crate makes a
/// `Walk`: `Walk::new` is crate-private).
#[derive(Clone, Copy)]
pub enum Start {
    /// `skcipher_walk_virt()` over an skcipher request.
    Skcipher(*mut bindings::skcipher_request),
    /// `skcipher_walk_aead_encrypt()` over an AEAD request's text.
    AeadEncrypt(*mut bindings::aead_request),
    /// `skcipher_walk_aead_decrypt()` over an AEAD request's text.
    AeadDecrypt(*mut bindings::aead_request),
}

/// The kernel's walk of a request's data (`struct skcipher_walk`), started by [`Walk::next`].
///
/// A driver's `encrypt` and `decrypt` walk the data (an skcipher's, or an AEAD's text) in
/// their own loop, as C glue does; [`Walk::next`] ends the previous step
/// (`skcipher_walk_done()`) outside the step's section (inside a section that spans the walk,
/// where the kernel allows one: [`Simd::span`]):
///
/// ```ignore
/// let mut walk = req.walk(simd);
/// while let Some(mut step) = walk.next()? { // skcipher_walk_virt(), then _done()
///     step.neon(|neon, io, iv| my_core(neon, io, iv))?;
///     step.leave(step.len() % BLOCK_SIZE);
/// }
/// ```
///
/// # Invariants
///
/// `w` virtually walks a borrowed request, begun once `start` is `None`; `left` is set in a step.
pub struct Walk<'s, Iv: Block> {
    w: &'s mut WalkState,
    start: Option<Start>,
    simd: &'s mut Simd,
    left: Option<usize>,
    _p: PhantomData<(&'s mut [u8], Iv)>,
}

impl<'s, Iv: Block> Walk<'s, Iv> {
    /// A walk that `start` starts.
    ///
    /// # Safety
    ///
    /// `start`'s request must be valid, with an IV of `Iv::SIZE` bytes, and ours for `'s`.
    pub(crate) unsafe fn new(simd: &'s mut Simd, w: &'s mut WalkState, start: Start) -> Self {
        // INVARIANT: not started.
        Self {
            w,
            start: Some(start),
            simd,
            left: None,
            _p: PhantomData,
        }
    }

    /// Starts the walk, or ends the previous step with the bytes it left, and hands out the
    /// next step; `None` at the end.
    #[inline(always)]
    pub fn next(&mut self) -> Result<Option<Step<'_, Iv>>> {
        let w = self.w.as_mut_ptr();
        if let Some(start) = self.start.take() {
            // SAFETY: `w` is ours (the kernel keeps no pointer into it) and the request valid and
            // borrowed (type invariant); Linux 6.12 reads `flags` before setting it.
            let r = unsafe {
                (&raw mut (*w).flags).write(0);
                match start {
                    Start::Skcipher(r) => bindings::skcipher_walk_virt(w, r, false),
                    Start::AeadEncrypt(r) => bindings::skcipher_walk_aead_encrypt(w, r, false),
                    Start::AeadDecrypt(r) => bindings::skcipher_walk_aead_decrypt(w, r, false),
                }
            };
            walk_result(r)?;
        } else if let Some(left) = self.left.take() {
            // SAFETY: the walk is started (type invariant).
            let nbytes = unsafe { (*w).nbytes } as usize;
            let res = if left < nbytes {
                left as core::ffi::c_int
            } else {
                kernel::error::code::EINVAL.to_errno()
            };
            // SAFETY: the walk is started and its step done with `res`.
            walk_result(unsafe { bindings::skcipher_walk_done(w, res) })?;
        }
        // SAFETY: started above or before.
        let w = unsafe { &*w };
        if w.nbytes == 0 {
            return Ok(None);
        }
        let (src, dst) = walk_addrs(w);
        // INVARIANT: a step is handed out.
        let left = self.left.insert(0);
        // INVARIANT: the step's data and IV stay mapped while the step borrows the walk.
        Ok(Some(Step {
            io: InOut {
                src,
                dst,
                len: w.nbytes as usize,
                _p: PhantomData,
            },
            total: w.total as usize,
            iv: w.iv.cast(),
            simd: &mut *self.simd,
            left,
            _p: PhantomData,
        }))
    }
}

/// `kernel::error::to_result()`, inlined into the walk's loop (the kernel's is not `#[inline]`).
#[inline(always)]
fn walk_result(r: core::ffi::c_int) -> Result {
    (r >= 0).then_some(()).ok_or_else(|| Error::from_errno(r))
}

impl<Iv: Block> Drop for Walk<'_, Iv> {
    fn drop(&mut self) {
        // SAFETY: read only once started (type invariant).
        if self.start.is_none() && unsafe { self.w.assume_init_ref() }.nbytes != 0 {
            // SAFETY: the walk is started and not ended.
            unsafe { bindings::skcipher_walk_abort(self.w.as_mut_ptr()) };
        }
    }
}

fn walk_addrs(walk: &bindings::skcipher_walk) -> (*const u8, *mut u8) {
    #[cfg(not(sm4rs_walk_anon))]
    // SAFETY: a started virtual walk, for which `virt` is the active member.
    let (src, dst) = unsafe { (walk.src.virt.addr, walk.dst.virt.addr) };
    #[cfg(sm4rs_walk_anon)]
    // SAFETY: a started virtual walk, for which `virt` is the active member.
    let (src, dst) = unsafe {
        (
            walk.__bindgen_anon_1.src.virt.addr,
            walk.__bindgen_anon_2.dst.virt.addr,
        )
    };
    let src: *const u8 = src.cast();
    (src, dst.cast())
}

/// One step of a [`Walk`]: the data mapped now, the IV, and the right to use NEON on them.
///
/// # Invariants
///
/// `io` and the `Iv::SIZE` bytes at `iv` are ours for `'w`; `total` is what is left.
pub struct Step<'w, Iv: Block> {
    io: InOut<'w>,
    total: usize,
    iv: *mut u8,
    simd: &'w mut Simd,
    left: &'w mut usize,
    _p: PhantomData<&'w mut Iv>,
}

impl<Iv: Block> Step<'_, Iv> {
    /// The number of bytes in this step.
    pub fn len(&self) -> usize {
        self.io.len
    }

    /// Whether the step is empty (never).
    pub fn is_empty(&self) -> bool {
        self.io.len == 0
    }

    /// Whether this is the last step.
    pub fn is_last(&self) -> bool {
        self.io.len == self.total
    }

    /// Leaves the last `n` bytes (fewer than the step has) to the next step.
    pub fn leave(&mut self, n: usize) {
        *self.left = n;
    }

    /// The step's data, its IV and the right to use NEON on them.
    #[inline(always)]
    pub fn parts(&mut self) -> (InOut<'_>, &mut Iv, &mut Simd) {
        // SAFETY: the IV has `Iv::SIZE` bytes, ours while the step is borrowed (invariant).
        let iv = unsafe { iv_mut(self.iv) };
        (self.io.reborrow(), iv, &mut *self.simd)
    }

    /// Runs `f` on the step's data and IV in a NEON section; `EDEADLK` if NEON is unusable.
    #[inline(always)]
    pub fn neon<R>(&mut self, f: impl FnOnce(&Neon, &mut InOut<'_>, &mut Iv) -> R) -> Result<R> {
        let (mut io, iv, simd) = self.parts();
        simd.neon(|neon| f(neon, &mut io, iv)).ok_or_else(edeadlk)
    }
}

/// The IV at `p` as an `I` (a dangling reference if `I` is zero-sized: NULL `p` is allowed then).
///
/// # Safety
///
/// If `I::SIZE > 0`, `p` must be valid for reads and writes of `I::SIZE` bytes, ours for `'a`.
pub(crate) unsafe fn iv_mut<'a, I: Block>(p: *mut u8) -> &'a mut I {
    if I::SIZE == 0 {
        // SAFETY: `I` is zero-sized, so any non-null, aligned pointer is valid for it.
        unsafe { core::ptr::NonNull::<I>::dangling().as_mut() }
    } else {
        // SAFETY: valid (caller); `I` is a byte array, aligned anywhere.
        unsafe { &mut *p.cast::<I>() }
    }
}

/// Data to transform: `len` bytes read from `src` and written to `dst` (the same or disjoint).
///
/// # Invariants
///
/// `src` is readable and `dst` writable for `len` (a `c_uint`) bytes, ours for `'a`.
pub struct InOut<'a> {
    src: *const u8,
    dst: *mut u8,
    len: usize,
    _p: PhantomData<&'a mut [u8]>,
}

impl<'a> InOut<'a> {
    /// In-place data in a buffer of the caller's (a block on the stack).
    pub fn in_place<const N: usize>(buf: &'a mut [u8; N]) -> Self {
        const { assert!(N <= c_uint::MAX as usize) };
        let p = buf.as_mut_ptr();
        // INVARIANT: `buf` is ours for `'a`; source and destination are the same memory.
        Self {
            src: p,
            dst: p,
            len: N,
            _p: PhantomData,
        }
    }

    fn reborrow(&mut self) -> InOut<'_> {
        // INVARIANT: the same bytes, borrowed from `self` for a shorter lifetime.
        InOut {
            _p: PhantomData,
            ..*self
        }
    }

    /// The number of bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of whole blocks of `size` bytes (not zero), as assembly takes it.
    pub fn blocks(&self, size: usize) -> c_uint {
        whole_blocks(self.len, size)
    }

    /// The source, readable for [`InOut::len`] bytes (for assembly routines).
    pub fn src(&self) -> *const u8 {
        self.src
    }

    /// The destination, writable for [`InOut::len`] bytes (for assembly routines).
    pub fn dst(&mut self) -> *mut u8 {
        self.dst
    }

    /// Splits into the first `n` bytes (at most [`InOut::len`]) and the rest.
    pub fn split_at(self, n: usize) -> (InOut<'a>, InOut<'a>) {
        let n = n.min(self.len);
        // INVARIANT: both halves are within the original ranges, and disjoint.
        (
            InOut { len: n, ..self },
            InOut {
                src: self.src.wrapping_add(n),
                dst: self.dst.wrapping_add(n),
                len: self.len - n,
                _p: PhantomData,
            },
        )
    }

    /// At most `len` bytes of the data from byte `start` on, for the lifetime of the borrow.
    pub fn range(&mut self, start: usize, len: usize) -> InOut<'_> {
        let start = start.min(self.len);
        // INVARIANT: a sub-range of ours, borrowed from `self`.
        InOut {
            src: self.src.wrapping_add(start),
            dst: self.dst.wrapping_add(start),
            len: len.min(self.len - start),
            _p: PhantomData,
        }
    }

    /// Copies the first `buf.len()` source bytes (at most [`InOut::len`]) into `buf`.
    pub fn read(&self, buf: &mut [u8]) {
        let n = buf.len().min(self.len);
        // SAFETY: `src` is readable for `len >= n` bytes and `buf` is a distinct buffer.
        unsafe { core::ptr::copy_nonoverlapping(self.src, buf.as_mut_ptr(), n) };
    }

    /// Writes `buf` (at most [`InOut::len`] bytes of it) to the destination.
    pub fn write(&mut self, buf: &[u8]) {
        let n = buf.len().min(self.len);
        // SAFETY: `dst` is writable for `len >= n` bytes and `buf` is a distinct buffer.
        unsafe { core::ptr::copy_nonoverlapping(buf.as_ptr(), self.dst, n) };
    }

    /// Whether the source and the destination are the same memory.
    pub fn is_in_place(&self) -> bool {
        self.src == self.dst.cast_const()
    }

    /// Swaps the last two 16-byte blocks of the destination, if any: ciphertext stealing's swap.
    pub fn swap_last_blocks(&mut self) {
        if self.len < 32 {
            return;
        }
        // SAFETY: the last 32 bytes of `dst` are ours for `'a`; the two blocks are disjoint.
        unsafe { bindings::swap16(self.dst.add(self.len - 32), self.dst.add(self.len - 16)) };
    }
}
