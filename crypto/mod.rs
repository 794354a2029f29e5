// SPDX-License-Identifier: GPL-2.0

//! Crypto API providers: algorithms implemented in Rust and registered with the kernel's
//! crypto API.
//!
//! C headers: [`include/linux/crypto.h`](srctree/include/linux/crypto.h),
//! [`include/crypto/algapi.h`](srctree/include/crypto/algapi.h).
//!
//! This is written the way it would be proposed for `rust/kernel/crypto/`. Until then each
//! module of this project compiles it in as `crate::crypto` (with `#[path]`), and it binds the
//! C API through its own bindgen run ([`bindings`]), because the kernel's `bindings` crate has
//! no crypto headers. Drivers use the safe types here and never the raw bindings.
//!
//! - [`cipher`]: single-block ciphers (`CRYPTO_ALG_TYPE_CIPHER`).
//! - [`skcipher`]: symmetric key ciphers (block cipher modes) and the skcipher walk.
//! - [`simd`]: kernel-mode NEON sections.
//! - [`kunit`]: KUnit suites declared from Rust, on kernels with and without `#[kunit_tests]`.

pub mod bindings;
pub mod cipher;
mod compat;
pub mod kunit;
pub mod simd;
pub mod skcipher;

use core::ffi::{c_char, CStr};

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

/// Copies `name` into a fixed-size, NUL-padded C `char` array (e.g. `cra_name`).
///
/// Evaluated at compile time for the algorithm tables; a name that does not fit, with its
/// NUL terminator, stops the build.
pub(crate) const fn name_array<const N: usize>(name: &CStr) -> [c_char; N] {
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

/// The address of `s` for C (`CStr::as_ptr`, without the kernel's `char` signedness
/// concern: the kernel's `char` is unsigned, and so is `c_char` on arm64).
pub(crate) const fn c_str_ptr(s: &CStr) -> *const c_char {
    s.to_bytes_with_nul().as_ptr().cast()
}

/// Overwrites `len` bytes at `ptr` with zeros in a way the compiler may not elide.
///
/// # Safety
///
/// `ptr` must be valid for writes of `len` bytes.
pub(crate) unsafe fn wipe(ptr: *mut u8, len: usize) {
    for i in 0..len {
        // SAFETY: `ptr + i` is in bounds by the function's safety requirements.
        unsafe { core::ptr::write_volatile(ptr.add(i), 0) };
    }
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// Declares the module, hiding the differences between the `module!` macros of the kernels
/// this project supports (6.12 takes one `author`, later kernels a list of `authors`).
macro_rules! module {
    (
        type: $type:ident,
        name: $name:tt,
        author: $author:tt,
        description: $desc:tt,
        license: $license:tt,
        alias: [$($alias:tt),* $(,)?] $(,)?
    ) => {
        #[cfg(sm4rs_module_authors)]
        ::kernel::prelude::module! {
            type: $type,
            name: $name,
            authors: [$author],
            description: $desc,
            license: $license,
            alias: [$($alias),*],
        }
        #[cfg(not(sm4rs_module_authors))]
        ::kernel::prelude::module! {
            type: $type,
            name: $name,
            author: $author,
            description: $desc,
            license: $license,
            alias: [$($alias),*],
        }
    };
}
pub(crate) use module;
