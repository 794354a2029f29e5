// SPDX-License-Identifier: GPL-2.0

//! Crypto API providers: algorithms implemented in Rust and registered with the kernel's
//! crypto API.
//!
//! C headers: [`include/linux/crypto.h`](srctree/include/linux/crypto.h),
//! [`include/crypto/algapi.h`](srctree/include/crypto/algapi.h).
//!
//! Drivers use the safe types here and never the raw bindings.
//!
// sm4rs-oot-begin
//! This is written the way it is proposed for `rust/kernel/crypto/` (`make patches` turns it
//! into that). Out of tree each module compiles it in as `crate::crypto` (with `#[path]`),
//! and it binds the C API through its own bindgen run ([`bindings`]), because the kernel's
//! `bindings` crate has no crypto headers.
//!
// sm4rs-oot-end
//! - [`alg`]: what the kinds share: registration and the per-transform context.
//! - [`cipher`]: single-block ciphers (`CRYPTO_ALG_TYPE_CIPHER`).
//! - [`skcipher`]: symmetric key ciphers (block cipher modes) and the skcipher walk.
//! - [`shash`]: synchronous hashes and MACs.
//! - [`aead`]: authenticated encryption with associated data.
//! - [`simd`]: kernel-mode NEON sections.
//! - [`param`]: read-only string module parameters (a driver's choice of implementation).

// sm4rs-oot-begin
pub mod bindings;
pub mod kunit;
// sm4rs-oot-end
// sm4rs-in-tree: use crate::bindings;
pub mod aead;
pub mod alg;
pub mod cipher;
pub mod compat;
pub mod param;
pub mod shash;
pub mod simd;
pub mod skcipher;

use core::ffi::{c_char, CStr};

/// `CRYPTO_MINALIGN`, the alignment of a transform's context area. (bindgen gives it the type
/// `size_t` out of tree, and in the kernel's bindings, where it is a literal, one of its
/// choosing.)
#[allow(clippy::unnecessary_cast)]
pub(crate) const CRYPTO_MINALIGN: usize = bindings::SM4RS_CONST_CRYPTO_MINALIGN as usize;

/// `EDEADLK`, which the skcipher walk returns in hard interrupt context, and requests where
/// NEON may not be used (Linux 6.12's `kernel::error::code` lacks it).
pub fn edeadlk() -> kernel::error::Error {
    kernel::error::Error::from_errno(-(bindings::SM4RS_CONST_EDEADLK as i32))
}

/// `EOVERFLOW`, for lengths a mode cannot encode (CCM's text longer than its IV's counter
/// field allows). (Linux 6.12's `kernel::error::code` lacks it.)
pub fn eoverflow() -> kernel::error::Error {
    kernel::error::Error::from_errno(-(bindings::SM4RS_CONST_EOVERFLOW as i32))
}

/// A block of bytes: the unit an algorithm transforms, and the type of its IVs.
///
/// Implemented only for byte arrays, so a driver's `type Block = [u8; 16]` fixes every length
/// the abstraction hands it.
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

/// `len` bytes at `p` as a slice; empty (and `p` not used, so it may be NULL) if `len` is 0.
///
/// # Safety
///
/// If `len > 0`, `p` must be valid for reads of `len` bytes during `'a`, not written
/// meanwhile.
pub(crate) unsafe fn byte_slice<'a>(p: *const u8, len: core::ffi::c_uint) -> &'a [u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: guaranteed by the caller.
    unsafe { core::slice::from_raw_parts(p, len as usize) }
}

/// Copies `name` into a fixed-size, NUL-padded C `char` array (e.g. `cra_name`).
///
/// Evaluated at compile time for the algorithm tables; a name that does not fit, with its
/// NUL terminator, stops the build.
pub const fn name_array<const N: usize>(name: &CStr) -> [c_char; N] {
    let bytes = name.to_bytes();
    assert!(bytes.len() < N, "name too long for its C array");
    let mut out = [0 as c_char; N];
    let mut i = 0;
    while i < bytes.len() {
        out[i] = bytes[i] as c_char;
        i += 1;
    }
    out
}

/// The address of `s` for C. (`CStr::as_ptr` is disallowed by the kernel's clippy
/// configuration for the signedness of `char`: the kernel's `char` is unsigned, and so is
/// `c_char` on arm64.)
pub const fn c_str_ptr(s: &CStr) -> *const c_char {
    s.to_bytes_with_nul().as_ptr().cast()
}

/// Bytes that hold secret or sensitive data on the stack (key material, plaintext,
/// keystream, tweaks), overwritten with zeros when they go out of scope.
///
/// Not `Clone`: copying the data out (`*secret`) is explicit. 16-byte aligned, so that a
/// block-sized one is wiped with two word stores rather than a call.
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
        if N % 8 != 0 || N > 64 {
            // SAFETY: `self.0` is `N` writable bytes.
            unsafe { wipe(self.0.as_mut_ptr(), N) };
            return;
        }
        let words = self.0.as_mut_ptr().cast::<u64>();
        for i in 0..N / 8 {
            // SAFETY: `self` is 16-byte aligned (`repr`) and `N` bytes long, so word `i < N / 8`
            // is an aligned, writable `u64` inside it. Volatile: the stores are not elided.
            unsafe { core::ptr::write_volatile(words.add(i), 0) };
        }
        core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
    }
}

/// Overwrites `len` bytes at `ptr` with zeros in a way the compiler may not elide
/// (`memzero_explicit()`).
///
/// # Safety
///
/// `ptr` must be valid for writes of `len` bytes.
pub(crate) unsafe fn wipe(ptr: *mut u8, len: usize) {
    // SAFETY: `ptr` is valid for writes of `len` bytes (caller).
    unsafe { bindings::sm4rs_memzero_explicit(ptr.cast(), len) };
}

// sm4rs-oot-begin
pub(crate) use compat::module;
// sm4rs-oot-end
