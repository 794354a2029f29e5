// SPDX-License-Identifier: GPL-2.0

//! Single-block ciphers: `struct crypto_alg` of type `CRYPTO_ALG_TYPE_CIPHER`.
//!
//! C header: [`include/linux/crypto.h`](srctree/include/linux/crypto.h).

use super::{
    alg::{exit_tfm, init_tfm, kind},
    bindings, byte_slice, ctx, name_array, Block, Simd,
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

    /// Encrypts one block.
    fn encrypt(ctx: &Self::Context, block: &mut BlockIo<'_, Self::Block>, simd: &mut Simd);

    /// Decrypts one block.
    fn decrypt(ctx: &Self::Context, block: &mut BlockIo<'_, Self::Block>, simd: &mut Simd);
}

/// The block of one cipher call: read from a source, written to a destination, which the
/// kernel may make the same block.
///
/// # Invariants
///
/// `src` is readable and `dst` writable for one `B`, ours for `'a` (they may overlap).
pub struct BlockIo<'a, B> {
    src: *const B,
    dst: *mut B,
    _p: PhantomData<&'a mut B>,
}

impl<B: Block> BlockIo<'_, B> {
    /// The source block (changed by writes to the destination, if they overlap).
    pub fn src(&self) -> &B {
        // SAFETY: readable (invariant); no `&mut` to `dst` lives while `self` is borrowed.
        unsafe { &*self.src }
    }

    /// The destination block.
    pub fn dst(&mut self) -> &mut B {
        // SAFETY: writable and ours (invariant); no `&` from `src()` lives while this borrow does.
        unsafe { &mut *self.dst }
    }

    /// The block to transform in place: the destination, holding the source.
    pub fn in_place(&mut self) -> &mut B {
        let (s, d) = (self.src.cast::<u64>(), self.dst.cast::<u64>());
        if B::SIZE == 16 && !ptr::eq(s, d) && (s as usize | d as usize) % 8 == 0 {
            // SAFETY: both are valid for 16 bytes (invariant) and 8-byte aligned; both words
            // are read before either is written.
            unsafe {
                let (a, b) = (s.read(), s.add(1).read());
                (d.write(a), d.add(1).write(b))
            };
        } else if !ptr::eq(s, d) {
            // SAFETY: both are valid for one block (invariant); `copy` allows an overlap.
            unsafe { ptr::copy(self.src, self.dst, 1) };
        }
        self.dst()
    }
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
            cia_encrypt: Some(Self::crypt::<true>),
            cia_decrypt: Some(Self::crypt::<false>),
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
        // SAFETY: a crypto API callback: no section the check misses (`Simd::new`); one `Simd`.
        let mut simd = unsafe { Simd::new(true) };
        match T::set_key(ctx, key, &mut simd) {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        }
    }

    /// # Safety
    ///
    /// Called by the crypto API with a live transform and a block at `src` and at `dst`.
    unsafe extern "C" fn crypt<const ENCRYPT: bool>(
        tfm: *mut bindings::crypto_tfm,
        dst: *mut u8,
        src: *const u8,
    ) {
        // SAFETY: the transform is live and its context initialised; requests only read it.
        let ctx = unsafe { &*ctx::<T::Context>(tfm) };
        // SAFETY: a crypto API callback: no section the check misses (`Simd::new`); one `Simd`.
        let mut simd = unsafe { Simd::new(true) };
        // INVARIANT: the crypto API passes a readable and a writable block.
        let mut io = BlockIo {
            src: src.cast(),
            dst: dst.cast(),
            _p: PhantomData,
        };
        if ENCRYPT {
            T::encrypt(ctx, &mut io, &mut simd)
        } else {
            T::decrypt(ctx, &mut io, &mut simd)
        }
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
