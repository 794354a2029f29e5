// SPDX-License-Identifier: GPL-2.0

//! Single-block ciphers: `struct crypto_alg` of type `CRYPTO_ALG_TYPE_CIPHER`.
//!
//! C header: [`include/linux/crypto.h`](srctree/include/linux/crypto.h).

use super::{
    alg::{ctx, exit_tfm, init_tfm, kind},
    bindings, byte_slice, name_array,
    simd::Simd,
    Block,
};
use core::{
    ffi::{c_int, c_uint, CStr},
    marker::PhantomData,
    mem::{align_of, size_of},
    ptr,
};
use kernel::error::Result;

/// A single-block cipher, called in any context: it may not sleep, and needs a non-NEON path.
pub trait Cipher: 'static {
    /// Algorithm name (`cra_name`), e.g. `c"sm4"`.
    const NAME: &'static CStr;
    /// Driver name (`cra_driver_name`), e.g. `c"sm4-ce"`.
    const DRIVER_NAME: &'static CStr;
    /// Priority among the implementations of [`Cipher::NAME`].
    const PRIORITY: i32;
    /// Smallest key length in bytes.
    const MIN_KEY_SIZE: u32;
    /// Largest key length in bytes.
    const MAX_KEY_SIZE: u32;

    /// The block the cipher transforms, e.g. `[u8; 16]`.
    type Block: Block;
    /// Per-transform state (the expanded key), created with `Default`, wiped when freed.
    type Context: Default + Send + Sync;

    /// Sets the key, whose length the crypto API has checked; `simd` is the right to use NEON.
    fn set_key(ctx: &mut Self::Context, key: &[u8], simd: &mut Simd) -> Result;

    /// Encrypts one block in place.
    fn encrypt(ctx: &Self::Context, block: &mut Self::Block, simd: &mut Simd);

    /// Decrypts one block in place.
    fn decrypt(ctx: &Self::Context, block: &mut Self::Block, simd: &mut Simd);
}

struct Adapter<T: Cipher>(PhantomData<T>);

impl<T: Cipher> Adapter<T> {
    const ALG: bindings::crypto_alg = {
        assert!(
            align_of::<T::Context>() <= super::CRYPTO_MINALIGN,
            "the context area is only aligned to CRYPTO_MINALIGN"
        );
        assert!(T::MIN_KEY_SIZE <= T::MAX_KEY_SIZE);
        // SAFETY: zero is valid for this C struct of integers, arrays and (function) pointers.
        let mut alg: bindings::crypto_alg = unsafe { core::mem::zeroed() };
        alg.cra_flags = bindings::CRYPTO_ALG_TYPE_CIPHER;
        alg.cra_blocksize = T::Block::SIZE as c_uint;
        alg.cra_ctxsize = size_of::<T::Context>() as c_uint;
        alg.cra_priority = T::PRIORITY;
        alg.cra_name = name_array(T::NAME);
        alg.cra_driver_name = name_array(T::DRIVER_NAME);
        alg.cra_init = Some(init_tfm::<CipherKind, T::Context>);
        alg.cra_exit = Some(exit_tfm::<CipherKind, T::Context>);
        alg.cra_u.cipher = bindings::cipher_alg {
            cia_min_keysize: T::MIN_KEY_SIZE,
            cia_max_keysize: T::MAX_KEY_SIZE,
            cia_setkey: Some(Self::setkey),
            cia_encrypt: Some(Self::encrypt),
            cia_decrypt: Some(Self::decrypt),
        };
        alg
    };

    /// # Safety
    ///
    /// Called by the crypto API with a live transform, ours, and `len` bytes at `key`.
    unsafe extern "C" fn setkey(
        tfm: *mut bindings::crypto_tfm,
        key: *const u8,
        len: c_uint,
    ) -> c_int {
        // SAFETY: setkey has exclusive use of the transform, whose context `init` created.
        let ctx = unsafe { &mut *ctx::<T::Context>(tfm) };
        // SAFETY: `key` points to `len` readable bytes.
        let key = unsafe { byte_slice(key, len) };
        // SAFETY: no NEON section is open in a crypto API callback; this is the only `Simd`.
        let mut simd = unsafe { Simd::new(true) };
        match T::set_key(ctx, key, &mut simd) {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        }
    }

    /// # Safety
    ///
    /// `src` must be readable and `dst` writable for one block, and `dst` ours while borrowed.
    unsafe fn block<'a>(dst: *mut u8, src: *const u8) -> &'a mut T::Block {
        if !ptr::eq(dst.cast_const(), src) {
            if T::Block::SIZE == 16 && (dst as usize | src as usize) % 8 == 0 {
                let (s, d) = (src.cast::<u64>(), dst.cast::<u64>());
                // SAFETY: both are valid for 16 bytes and 8-byte aligned; both reads come first.
                unsafe {
                    let (a, b) = (ptr::read(s), ptr::read(s.add(1)));
                    ptr::write(d, a);
                    ptr::write(d.add(1), b);
                }
            } else {
                // SAFETY: both are valid for one block; `copy` allows them to overlap.
                unsafe { ptr::copy(src, dst, T::Block::SIZE) };
            }
        }
        // SAFETY: `T::Block` is a byte array (sealed), so any address is aligned for it.
        unsafe { &mut *dst.cast::<T::Block>() }
    }

    /// # Safety
    ///
    /// Called by the crypto API with a live transform and a block at `src` and at `dst`.
    unsafe extern "C" fn encrypt(tfm: *mut bindings::crypto_tfm, dst: *mut u8, src: *const u8) {
        // SAFETY: the transform is live and its context initialised; requests only read it.
        let ctx = unsafe { &*ctx::<T::Context>(tfm) };
        // SAFETY: no NEON section is open in a crypto API callback; this is the only `Simd`.
        let mut simd = unsafe { Simd::new(true) };
        // SAFETY: guaranteed by the caller.
        T::encrypt(ctx, unsafe { Self::block(dst, src) }, &mut simd);
    }

    /// # Safety
    ///
    /// As for [`Self::encrypt`].
    unsafe extern "C" fn decrypt(tfm: *mut bindings::crypto_tfm, dst: *mut u8, src: *const u8) {
        // SAFETY: the transform is live and its context initialised; requests only read it.
        let ctx = unsafe { &*ctx::<T::Context>(tfm) };
        // SAFETY: no NEON section is open in a crypto API callback; this is the only `Simd`.
        let mut simd = unsafe { Simd::new(true) };
        // SAFETY: guaranteed by the caller.
        T::decrypt(ctx, unsafe { Self::block(dst, src) }, &mut simd);
    }
}

// SAFETY: `crypto_register_alg()` and `crypto_unregister_alg()` register a bare `crypto_alg`.
kind! {
    /// The kind of the single-block ciphers: `struct crypto_alg` itself.
    pub struct CipherKind for Cipher ("ciphers") {
        raw: crypto_alg,
        tfm: crypto_tfm,
        unsafe register: crypto_register_alg, crypto_unregister_alg,
    }
}
