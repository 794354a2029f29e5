// SPDX-License-Identifier: GPL-2.0

//! Symmetric key ciphers (`struct skcipher_alg`).
//!
//! C headers: [`include/crypto/skcipher.h`](srctree/include/crypto/skcipher.h),
//! [`include/crypto/internal/skcipher.h`](srctree/include/crypto/internal/skcipher.h).
//!
//! A driver's `encrypt` and `decrypt` walk the data with the kernel's walk: [`Request::walk`]
//! gives a [`Walk`] (the crate root's, which AEADs use too), and [`Request::part`] a part of
//! the request as a request of its own.

use super::{
    alg::{exit_tfm, init_tfm, kind, Key},
    bindings, byte_slice, ctx, iv_mut, name_array, Block, Simd, Start, Walk, WalkState,
};
use core::{
    ffi::{c_int, c_uint, CStr},
    marker::PhantomData,
    mem::{align_of, size_of, MaybeUninit},
    ptr,
};
use kernel::error::{code::EINVAL, Result};

/// A symmetric key cipher: one mode of a block cipher.
pub trait Skcipher: 'static {
    /// Algorithm name (`cra_name`), e.g. `c"cbc(sm4)"`.
    const NAME: &'static CStr;
    /// Driver name (`cra_driver_name`), e.g. `c"cbc-sm4-ce"`.
    const DRIVER_NAME: &'static CStr;
    /// Priority among the implementations of [`Skcipher::NAME`].
    const PRIORITY: i32;
    /// `cra_blocksize` (1 for stream modes); requests are multiples of it but with stealing.
    const BLOCK_SIZE: u32;
    /// The unit the mode works in (the underlying cipher's block for stream modes).
    const CHUNK_SIZE: u32 = Self::BLOCK_SIZE;
    /// The smallest step the walk presents while more data remains (`walksize`).
    const WALK_SIZE: u32 = Self::CHUNK_SIZE;
    /// Smallest key length in bytes.
    const MIN_KEY_SIZE: u32;
    /// Largest key length in bytes.
    const MAX_KEY_SIZE: u32;
    /// Whether a key is XTS's two keys, which the kernel's `xts_verify_key()` checks first.
    const XTS_KEY: bool = false;

    /// The IV, e.g. `[u8; 16]`, or `[u8; 0]` for modes without one.
    type Iv: Block;
    /// Per-transform state (the expanded keys), created with `Default`, wiped when freed.
    type Context: Default + Send + Sync;

    /// Sets the key, whose length the crypto API has checked; `simd` is the right to use NEON.
    fn set_key(ctx: &mut Self::Context, key: &Key<'_>, simd: &mut Simd) -> Result;

    /// Encrypts the request.
    fn encrypt(ctx: &Self::Context, req: &mut Request<'_, Self::Iv>, simd: &mut Simd) -> Result;

    /// Decrypts the request.
    fn decrypt(ctx: &Self::Context, req: &mut Request<'_, Self::Iv>, simd: &mut Simd) -> Result;
}

struct Adapter<T: Skcipher>(PhantomData<T>);

impl<T: Skcipher> Adapter<T> {
    const ALG: bindings::skcipher_alg = {
        assert!(
            align_of::<T::Context>() <= super::CRYPTO_MINALIGN,
            "the context area is only aligned to CRYPTO_MINALIGN"
        );
        assert!(T::MIN_KEY_SIZE <= T::MAX_KEY_SIZE);
        assert!(T::WALK_SIZE % T::CHUNK_SIZE == 0);
        // SAFETY: zero is valid for this C struct of integers, arrays and (function) pointers.
        let mut alg: bindings::skcipher_alg = unsafe { core::mem::zeroed() };
        alg.setkey = Some(Self::setkey);
        alg.encrypt = Some(Self::crypt::<true>);
        alg.decrypt = Some(Self::crypt::<false>);
        alg.init = Some(init_tfm::<SkcipherKind, T::Context>);
        alg.exit = Some(exit_tfm::<SkcipherKind, T::Context>);
        alg.walksize = T::WALK_SIZE;
        // SAFETY: zero is valid for the common part too.
        let mut co: bindings::skcipher_alg_common = unsafe { core::mem::zeroed() };
        co.min_keysize = T::MIN_KEY_SIZE;
        co.max_keysize = T::MAX_KEY_SIZE;
        co.ivsize = T::Iv::SIZE as c_uint;
        co.chunksize = T::CHUNK_SIZE;
        co.base.cra_blocksize = T::BLOCK_SIZE;
        co.base.cra_ctxsize = size_of::<T::Context>() as c_uint;
        co.base.cra_priority = T::PRIORITY;
        co.base.cra_name = name_array(T::NAME);
        co.base.cra_driver_name = name_array(T::DRIVER_NAME);
        alg.__bindgen_anon_1.co = co;
        alg
    };

    /// # Safety
    ///
    /// Called by the crypto API with a live transform, ours, and `len` bytes at `key`.
    unsafe extern "C" fn setkey(
        tfm: *mut bindings::crypto_skcipher,
        key: *const u8,
        len: c_uint,
    ) -> c_int {
        if T::XTS_KEY {
            // SAFETY: the transform is live, and `len` bytes at `key` readable.
            let err = unsafe { bindings::xts_verify_key(tfm, key, len) };
            if err != 0 {
                return err;
            }
        }
        // SAFETY: the transform is live; `base` is its `crypto_tfm`.
        let base = unsafe { &raw mut (*tfm).base };
        // SAFETY: setkey has exclusive use of the transform, whose context `init` created.
        let ctx = unsafe { &mut *ctx::<T::Context>(base) };
        // SAFETY: `key` points to `len` readable bytes; the transform is live.
        let key = Key::new(unsafe { byte_slice(key, len) }, unsafe {
            (*base).crt_flags
        });
        // SAFETY: a crypto API callback: no section the check misses (`Simd::new`); one `Simd`.
        let mut simd = unsafe { Simd::new(true) };
        match T::set_key(ctx, &key, &mut simd) {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        }
    }

    /// # Safety
    ///
    /// Called by the crypto API with a valid request on a transform of this algorithm.
    unsafe extern "C" fn crypt<const ENCRYPT: bool>(req: *mut bindings::skcipher_request) -> c_int {
        // SAFETY: the request is valid. (Modes without an IV may get NULL.)
        if T::Iv::SIZE > 0 && unsafe { (*req).iv }.is_null() {
            return EINVAL.to_errno();
        }
        // SAFETY: the transform is live and its context initialised; requests only read it.
        let ctx = unsafe { &*ctx::<T::Context>((*req).base.tfm) };
        // The walks' kernel state, apart from the `Walk`s so that their fields stay in registers.
        let mut w = MaybeUninit::uninit();
        // INVARIANT: as the crypto API guarantees, the IV checked above.
        let mut r = Request {
            req,
            w: &mut w,
            _p: PhantomData,
        };
        // SAFETY: a crypto API callback: no section the check misses (`Simd::new`); one `Simd`.
        let mut simd = unsafe { Simd::new(false) };
        let done = if ENCRYPT {
            T::encrypt(ctx, &mut r, &mut simd)
        } else {
            T::decrypt(ctx, &mut r, &mut simd)
        };
        match done {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        }
    }
}

// SAFETY: `crypto_register_skcipher()` and `crypto_unregister_skcipher()` (un)register one.
kind! {
    /// The kind of the symmetric key ciphers: `struct skcipher_alg`.
    pub struct SkcipherKind for Skcipher ("skciphers") {
        raw: skcipher_alg at __bindgen_anon_1.co.base,
        tfm: crypto_skcipher at base,
        unsafe register: crypto_register_skcipher, crypto_unregister_skcipher,
    }
}

/// A request handed to [`Skcipher::encrypt`] or [`Skcipher::decrypt`].
///
/// # Invariants
///
/// `req` is a valid request, ours for `'a`, with a non-NULL IV of `Iv::SIZE` bytes if not 0.
pub struct Request<'a, Iv: Block> {
    req: *mut bindings::skcipher_request,
    w: &'a mut WalkState,
    _p: PhantomData<(&'a mut bindings::skcipher_request, Iv)>,
}

impl<Iv: Block> Request<'_, Iv> {
    /// The length of the data in bytes.
    pub fn len(&self) -> usize {
        // SAFETY: the request is valid (type invariant).
        unsafe { (*self.req).cryptlen as usize }
    }

    /// Whether the request has no data.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The request's IV, which each walk starts from and updates.
    pub fn iv(&mut self) -> &mut Iv {
        // SAFETY: the IV has `Iv::SIZE` bytes, ours while the request is borrowed (invariant).
        unsafe { iv_mut((*self.req).iv) }
    }

    /// Walks the data (`skcipher_walk_virt()`), with `simd` for the steps.
    pub fn walk<'s>(&'s mut self, simd: &'s mut Simd) -> Walk<'s, Iv> {
        // SAFETY: the request, with its IV, is valid and ours while the walk borrows it.
        unsafe { Walk::new(simd, &mut *self.w, Start::Skcipher(self.req)) }
    }

    /// The `len` bytes from byte `from` on as a request of their own (`scatterwalk_ffwd()`).
    pub fn part(&mut self, from: usize, len: usize) -> Result<Part<'_, Iv>> {
        if from.checked_add(len).ok_or(EINVAL)? > self.len() {
            return Err(EINVAL);
        }
        let mut sub = MaybeUninit::<bindings::skcipher_request>::uninit();
        let (r, s) = (self.req, sub.as_mut_ptr());
        // SAFETY: the request is valid (type invariant). The fields a walk reads, set as
        // `skcipher_request_set_{tfm,callback,crypt}()` do (not copied whole: a call of memcpy).
        let whole = unsafe {
            ((*s).base.tfm, (*s).base.flags) = ((*r).base.tfm, (*r).base.flags);
            ((*s).base.complete, (*s).base.data) = (None, ptr::null_mut());
            ((*s).cryptlen, (*s).iv) = (len as c_uint, (*r).iv);
            ((*s).src, (*s).dst) = ((*r).src, (*r).dst);
            ((*r).src, (*r).dst)
        };
        // INVARIANT: a part of this request, which it borrows.
        Ok(Part {
            sub,
            w: MaybeUninit::uninit(),
            from: from as c_uint,
            whole,
            sg: MaybeUninit::uninit(),
            _p: PhantomData,
        })
    }
}

/// Bytes of a [`Request`] as a request of their own ([`Request::part`]).
///
/// # Invariants
///
/// `sub` has the fields a walk reads of a borrowed request but its data, `whole`'s from `from`.
pub struct Part<'r, Iv: Block> {
    sub: MaybeUninit<bindings::skcipher_request>,
    w: WalkState,
    from: c_uint,
    whole: (*mut bindings::scatterlist, *mut bindings::scatterlist),
    sg: MaybeUninit<[[bindings::scatterlist; 2]; 2]>,
    _p: PhantomData<(&'r mut bindings::skcipher_request, Iv)>,
}

impl<Iv: Block> Part<'_, Iv> {
    /// Walks the part's data, as [`Request::walk`].
    pub fn walk<'s>(&'s mut self, simd: &'s mut Simd) -> Walk<'s, Iv> {
        let (s, (src, dst)) = (self.sub.as_mut_ptr(), self.whole);
        if self.from > 0 {
            let sg = self.sg.as_mut_ptr().cast::<[bindings::scatterlist; 2]>();
            // SAFETY: `src` and `dst` hold `from + cryptlen` bytes (invariant); the entries made at
            // `sg` at each walk (the part may move between) stay put while the walk borrows it.
            unsafe {
                (*s).src = bindings::scatterwalk_ffwd(sg.cast(), src, self.from);
                (*s).dst = if dst == src {
                    (*s).src
                } else {
                    bindings::scatterwalk_ffwd(sg.add(1).cast(), dst, self.from)
                };
            }
        }
        // SAFETY: `sub` has what a walk reads (type invariant); it and `sg` stay put meanwhile.
        unsafe { Walk::new(simd, &mut self.w, Start::Skcipher(s)) }
    }
}
