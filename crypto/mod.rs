// SPDX-License-Identifier: GPL-2.0

//! Crypto API providers: algorithms implemented in Rust for the kernel's crypto API.
//!
//! C headers: [`include/linux/crypto.h`](srctree/include/linux/crypto.h),
//! [`include/crypto/algapi.h`](srctree/include/crypto/algapi.h).
//!
// sm4rs-oot-begin
//! Out of tree each module compiles this in as `crate::crypto`, with its own [`bindings`].
//!
// sm4rs-oot-end
//! - [`alg`]: registration and per-transform contexts, shared by every kind of algorithm.
//! - [`cipher`]: single-block ciphers (`CRYPTO_ALG_TYPE_CIPHER`).
//! - [`skcipher`]: symmetric key ciphers and the skcipher walk.
//! - [`shash`]: synchronous hashes and MACs.
//! - [`aead`]: authenticated encryption with associated data.
//! - [`simd`]: kernel-mode NEON sections.
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
pub mod simd;
pub mod skcipher;

use core::{
    ffi::{c_char, c_uint, CStr},
    marker::PhantomData,
};

/// `CRYPTO_MINALIGN`, the alignment of a transform's context area (its bindgen type varies).
#[allow(clippy::unnecessary_cast)]
pub(crate) const CRYPTO_MINALIGN: usize = bindings::CRYPTO_MINALIGN as usize;

/// The `EDEADLK` error: NEON may not be used in this context.
pub fn edeadlk() -> kernel::error::Error {
    kernel::error::Error::from_errno(-(bindings::EDEADLK as i32))
}

/// The `EOVERFLOW` error: a length the mode cannot encode.
pub fn eoverflow() -> kernel::error::Error {
    kernel::error::Error::from_errno(-(bindings::EOVERFLOW as i32))
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
        (self.len / size.max(1)) as c_uint
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
