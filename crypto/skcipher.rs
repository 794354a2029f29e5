// SPDX-License-Identifier: GPL-2.0

//! Symmetric key ciphers (`struct skcipher_alg`) and the skcipher walk.
//!
//! C headers: [`include/crypto/skcipher.h`](srctree/include/crypto/skcipher.h),
//! [`include/crypto/internal/skcipher.h`](srctree/include/crypto/internal/skcipher.h).
//!
//! A driver's `encrypt` and `decrypt` walk the data with the kernel's walk, as C glue does;
//! [`Walk::next`] ends the previous step (`skcipher_walk_done()`) outside the step's section
//! (inside a section that spans the walk, where the kernel allows one: `Simd::span`):
//!
//! ```ignore
//! let mut walk = req.walk(simd);
//! while let Some(mut step) = walk.next()? { // skcipher_walk_virt(), then _done()
//!     step.neon(|neon, io, iv| my_core(neon, io, iv))?;
//!     step.leave(step.len() % BLOCK_SIZE);
//! }
//! ```

use super::{
    alg::{ctx, exit_tfm, init_tfm, kind, Key},
    bindings, byte_slice, edeadlk, name_array,
    simd::{Neon, Simd},
    Block,
};
use core::{
    ffi::{c_int, c_uint, CStr},
    marker::PhantomData,
    mem::{align_of, size_of, MaybeUninit},
    ptr::{self, NonNull},
};
use kernel::error::{code::EINVAL, Error, Result};

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

/// The most data a step of the kernel's walks holds (a page): a NEON section's bound but a span's.
pub const MAX_STEP: usize = bindings::PAGE_SIZE;

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

/// The kernel's state of a [`Walk`] (`struct skcipher_walk`), kept by the request it walks.
pub(crate) type WalkState = MaybeUninit<bindings::skcipher_walk>;

/// How a [`Walk`] starts: the kernel's function for the request (only this crate starts one).
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
            check(r)?;
        } else if let Some(left) = self.left.take() {
            // SAFETY: the walk is started (type invariant).
            let nbytes = unsafe { (*w).nbytes } as usize;
            let res = if left < nbytes {
                left as c_int
            } else {
                EINVAL.to_errno()
            };
            // SAFETY: the walk is started and its step done with `res`.
            check(unsafe { bindings::skcipher_walk_done(w, res) })?;
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

#[inline(always)]
fn check(r: c_int) -> Result {
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

/// # Safety
///
/// If `I::SIZE > 0`, `p` must be valid for reads and writes of `I::SIZE` bytes, ours for `'a`.
unsafe fn iv_mut<'a, I: Block>(p: *mut u8) -> &'a mut I {
    if I::SIZE == 0 {
        // SAFETY: `I` is zero-sized, so any non-null, aligned pointer is valid for it.
        unsafe { NonNull::<I>::dangling().as_mut() }
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

    /// The number of whole blocks of `size` bytes (not zero).
    pub fn blocks(&self, size: usize) -> c_uint {
        (self.len / size.max(1)) as c_uint
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
        unsafe { ptr::copy_nonoverlapping(self.src, buf.as_mut_ptr(), n) };
    }

    /// Writes `buf` (at most [`InOut::len`] bytes of it) to the destination.
    pub fn write(&mut self, buf: &[u8]) {
        let n = buf.len().min(self.len);
        // SAFETY: `dst` is writable for `len >= n` bytes and `buf` is a distinct buffer.
        unsafe { ptr::copy_nonoverlapping(buf.as_ptr(), self.dst, n) };
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
