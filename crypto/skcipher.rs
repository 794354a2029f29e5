// SPDX-License-Identifier: GPL-2.0

//! Symmetric key ciphers (`struct skcipher_alg`), and the skcipher walk.
//!
//! C headers: [`include/crypto/skcipher.h`](srctree/include/crypto/skcipher.h),
//! [`include/crypto/internal/skcipher.h`](srctree/include/crypto/internal/skcipher.h).
//!
//! A driver implements [`Skcipher`] for each mode and registers them with [`Registration`].
//! Its `encrypt` and `decrypt` get the [`Request`] and the right to use NEON ([`Simd`]), and
//! walk the data with the kernel's walk, as the C glue does:
//!
//! ```ignore
//! let mut walk = req.walk(simd)?; // skcipher_walk_virt()
//! while let Some(mut step) = walk.next()? {
//!     let n = step.len() / BLOCK_SIZE;
//!     step.neon(|neon, io, iv| my_core(neon, io, n, iv))?;
//!     step.leave(step.len() % BLOCK_SIZE);
//! }
//! ```
//!
//! [`Walk::next`] ends the step before it (`skcipher_walk_done()`, with the bytes that step
//! left) outside any NEON section: the step borrows the walk, and its sections borrow the
//! step. A walk dropped before its end (an error) is aborted. The same [`Walk`] serves an
//! AEAD's text ([`super::aead::Request::walk`]).

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
use kernel::error::{code::EINVAL, to_result, Result};

/// A symmetric key cipher: one mode of a block cipher.
pub trait Skcipher: 'static {
    /// Algorithm name (`cra_name`), e.g. `c"cbc(sm4)"`.
    const NAME: &'static CStr;
    /// Driver name (`cra_driver_name`), e.g. `c"cbc-sm4-ce"`.
    const DRIVER_NAME: &'static CStr;
    /// Priority among the implementations of [`Skcipher::NAME`].
    const PRIORITY: i32;
    /// The length requests must be a multiple of: the block size, or 1 for stream modes.
    const BLOCK_SIZE: u32;
    /// The unit the mode works in (the underlying cipher's block for stream modes).
    const CHUNK_SIZE: u32 = Self::BLOCK_SIZE;
    /// The smallest step the walk presents while more data remains (`walksize`): a multiple
    /// of the chunk size, e.g. the two blocks that ciphertext stealing needs together.
    const WALK_SIZE: u32 = Self::CHUNK_SIZE;
    /// Smallest key length in bytes.
    const MIN_KEY_SIZE: u32;
    /// Largest key length in bytes.
    const MAX_KEY_SIZE: u32;

    /// The IV, e.g. `[u8; 16]`, or `[u8; 0]` for modes without one.
    type Iv: Block;
    /// Per-transform state (the expanded keys). Created with `Default`, dropped and wiped
    /// when the transform is freed.
    type Context: Default + Send + Sync;

    /// Sets the key; the crypto API has checked its length against the limits above.
    /// `simd` is the right to use NEON here (absent when the crypto API wants the non-SIMD
    /// path tested).
    fn set_key(ctx: &mut Self::Context, key: &Key<'_>, simd: &mut Simd) -> Result;

    /// Encrypts the request.
    fn encrypt(ctx: &Self::Context, req: &mut Request<'_, Self::Iv>, simd: &mut Simd) -> Result;

    /// Decrypts the request.
    fn decrypt(ctx: &Self::Context, req: &mut Request<'_, Self::Iv>, simd: &mut Simd) -> Result;
}

/// The C callbacks of an [`Skcipher`].
struct Adapter<T: Skcipher>(PhantomData<T>);

impl<T: Skcipher> Adapter<T> {
    /// The algorithm as the C API sees it, without `cra_module` (set at registration).
    const ALG: bindings::skcipher_alg = {
        assert!(
            align_of::<T::Context>() <= super::CRYPTO_MINALIGN,
            "the context area is only aligned to CRYPTO_MINALIGN"
        );
        assert!(T::MIN_KEY_SIZE <= T::MAX_KEY_SIZE);
        assert!(T::WALK_SIZE % T::CHUNK_SIZE == 0);
        // SAFETY: `skcipher_alg` is a C struct of integers, arrays, pointers and optional
        // function pointers, for all of which zero is valid.
        let mut alg: bindings::skcipher_alg = unsafe { core::mem::zeroed() };
        alg.setkey = Some(Self::setkey);
        alg.encrypt = Some(Self::encrypt);
        alg.decrypt = Some(Self::decrypt);
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
    /// Called by the crypto API with a live transform (not used concurrently) and `len`
    /// readable bytes at `key`.
    unsafe extern "C" fn setkey(
        tfm: *mut bindings::crypto_skcipher,
        key: *const u8,
        len: c_uint,
    ) -> c_int {
        // SAFETY: the transform is live; `base` is its `crypto_tfm`.
        let base = unsafe { &raw mut (*tfm).base };
        // SAFETY: setkey has exclusive use of the transform, whose context `init` created.
        let ctx = unsafe { &mut *ctx::<T::Context>(base) };
        // SAFETY: `key` points to `len` readable bytes (or `len` is 0); the transform is live.
        let key = Key::new(unsafe { byte_slice(key, len) }, unsafe {
            (*base).crt_flags
        });
        // SAFETY: no NEON section is open in a crypto API callback; this is the only `Simd`.
        let mut simd = unsafe { Simd::new(true) };
        match T::set_key(ctx, &key, &mut simd) {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        }
    }

    /// Runs `f` (`T::encrypt` or `T::decrypt`) on the request.
    ///
    /// # Safety
    ///
    /// `req` must be a valid request on a live transform of this algorithm, not used
    /// elsewhere during the call (what the crypto API guarantees to `encrypt`/`decrypt`).
    unsafe fn crypt(
        req: *mut bindings::skcipher_request,
        f: impl FnOnce(&T::Context, &mut Request<'_, T::Iv>, &mut Simd) -> Result,
    ) -> c_int {
        // Modes with an IV need one; for modes without (ECB), callers pass NULL.
        // SAFETY: the request is valid.
        if T::Iv::SIZE > 0 && unsafe { (*req).iv }.is_null() {
            return EINVAL.to_errno();
        }
        // SAFETY: the transform is live and its context initialised by `init`; requests
        // only read it.
        let ctx = unsafe { &*ctx::<T::Context>((*req).base.tfm) };
        // INVARIANT: as the crypto API guarantees, the IV checked above.
        let mut r = Request {
            req,
            _p: PhantomData,
        };
        // SAFETY: no section is open in a crypto API callback; this is the only `Simd`.
        // Requests have no non-SIMD path to test: NEON is allowed wherever it may be used.
        let mut simd = unsafe { Simd::new(false) };
        match f(ctx, &mut r, &mut simd) {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        }
    }

    /// # Safety
    ///
    /// Called by the crypto API with a valid request on a transform of this algorithm.
    unsafe extern "C" fn encrypt(req: *mut bindings::skcipher_request) -> c_int {
        // SAFETY: as guaranteed by the crypto API.
        unsafe { Self::crypt(req, T::encrypt) }
    }

    /// # Safety
    ///
    /// As for [`Self::encrypt`].
    unsafe extern "C" fn decrypt(req: *mut bindings::skcipher_request) -> c_int {
        // SAFETY: as guaranteed by the crypto API.
        unsafe { Self::crypt(req, T::decrypt) }
    }
}

// SAFETY: `crypto_register_skcipher()` and `crypto_unregister_skcipher()` register and
// unregister the algorithm a `skcipher_alg` describes.
kind! {
    /// The kind of the symmetric key ciphers: `struct skcipher_alg`.
    pub struct SkcipherKind for Skcipher ("skciphers") {
        raw: skcipher_alg at __bindgen_anon_1.co.base,
        tfm: crypto_skcipher at base,
        unsafe register: crypto_register_skcipher, crypto_unregister_skcipher,
    }
}

/// The most data a step of the kernel's walks holds: a page (`scatterwalk_clamp()`). A NEON
/// section per step is bounded by it; so should be other sections, where the kernel bounds
/// them.
pub const MAX_STEP: usize = bindings::PAGE_SIZE;

/// A request handed to [`Skcipher::encrypt`] or [`Skcipher::decrypt`].
///
/// # Invariants
///
/// `req` is a valid request, exclusively ours for `'a`, on a transform whose IV size is
/// `Iv::SIZE`; if that is not zero, its `iv` is non-NULL.
pub struct Request<'a, Iv: Block> {
    req: *mut bindings::skcipher_request,
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

    /// The request's IV (each walk starts from it and writes back the value it leaves).
    pub fn iv(&mut self) -> &mut Iv {
        // SAFETY: the IV has `Iv::SIZE` bytes, non-NULL if that is not zero, ours while the
        // request is borrowed (type invariant).
        unsafe { iv_mut((*self.req).iv) }
    }

    /// Copies `buf.len()` bytes of the source data from byte `at` on into `buf`
    /// (`scatterwalk_map_and_copy()`); `EINVAL` if they are not in the request.
    pub fn read_at(&self, at: usize, buf: &mut [u8]) -> Result {
        let n = self.range_c(at, buf.len())?;
        // SAFETY: the source holds the request's data (type invariant), `at + n` bytes of
        // it at least; `buf` is writable for `n` bytes.
        unsafe {
            bindings::scatterwalk_map_and_copy(
                buf.as_mut_ptr().cast(),
                (*self.req).src,
                at as c_uint,
                n,
                0,
            )
        };
        Ok(())
    }

    /// Copies `buf` into the destination data from byte `at` on, as [`Request::read_at`].
    pub fn write_at(&mut self, at: usize, buf: &[u8]) -> Result {
        let n = self.range_c(at, buf.len())?;
        // SAFETY: as in `read_at`, for the destination; the function only reads `buf`.
        unsafe {
            bindings::scatterwalk_map_and_copy(
                buf.as_ptr().cast_mut().cast(),
                (*self.req).dst,
                at as c_uint,
                n,
                1,
            )
        };
        Ok(())
    }

    /// `len` as a C length, if `len` bytes from byte `at` on lie in the request (then `at`
    /// fits a `c_uint` too).
    fn range_c(&self, at: usize, len: usize) -> Result<c_uint> {
        match at.checked_add(len) {
            Some(end) if end <= self.len() => Ok(len as c_uint),
            _ => Err(EINVAL),
        }
    }

    /// Walks the data (`skcipher_walk_virt()`); the steps have the right to use NEON that
    /// `simd` is.
    pub fn walk<'s>(&'s mut self, simd: &'s mut Simd) -> Result<Walk<'s, Iv>> {
        let req = self.req;
        // SAFETY: the request is valid and ours while the walk borrows it (type invariant),
        // its IV of `Iv::SIZE` bytes, non-NULL if that is not zero.
        unsafe { Walk::start(simd, |w| bindings::skcipher_walk_virt(w, req, false)) }
    }

    /// The `len` bytes of the data from byte `from` on, as a request of their own with this
    /// one's IV (`scatterwalk_ffwd()`), for modes that handle the end of a request apart, as
    /// ciphertext stealing does. `EINVAL` if the range is not in the request.
    pub fn part(&mut self, from: usize, len: usize) -> Result<Part<'_, Iv>> {
        let end = from.checked_add(len).ok_or(EINVAL)?;
        if end > self.len() {
            return Err(EINVAL);
        }
        // A copy of the request's header (not its context): the walk reads the transform,
        // the flags, the scatterlists, the length and the IV pointer from it.
        // SAFETY: the request is valid (type invariant); `skcipher_request` is plain data.
        let mut sub = unsafe { ptr::read(self.req) };
        // (Both fit: at most `cryptlen`, a `c_uint`.)
        sub.cryptlen = len as c_uint;
        // INVARIANT: a part of this request, which it borrows.
        Ok(Part {
            sub,
            from: from as c_uint,
            sg: MaybeUninit::uninit(),
            _p: PhantomData,
        })
    }
}

/// Bytes of a [`Request`] as a request of their own ([`Request::part`]).
///
/// # Invariants
///
/// `sub` is a copy of the header of a valid request that is borrowed for `'r`, with
/// `cryptlen` bytes from byte `from` on of its data, which it holds.
pub struct Part<'r, Iv: Block> {
    sub: bindings::skcipher_request,
    from: c_uint,
    /// The entries `scatterwalk_ffwd()` makes for the source and the destination.
    sg: MaybeUninit<[[bindings::scatterlist; 2]; 2]>,
    _p: PhantomData<(&'r mut bindings::skcipher_request, Iv)>,
}

impl<Iv: Block> Part<'_, Iv> {
    /// Walks the part's data, as [`Request::walk`].
    pub fn walk<'s>(&'s mut self, simd: &'s mut Simd) -> Result<Walk<'s, Iv>> {
        if self.from > 0 {
            let (src, dst) = (self.sub.src, self.sub.dst);
            let sg = self.sg.as_mut_ptr().cast::<[bindings::scatterlist; 2]>();
            // SAFETY: `src` is the request's source, which holds `from + cryptlen` bytes (type
            // invariant); `sg` has room for the two entries `scatterwalk_ffwd()` may write
            // (it initialises them), and stays put while the walk borrows `self`.
            self.sub.src = unsafe { bindings::scatterwalk_ffwd(sg.cast(), src, self.from) };
            self.sub.dst = if dst == src {
                self.sub.src
            } else {
                // SAFETY: as above, for the destination, in the second pair of entries.
                unsafe { bindings::scatterwalk_ffwd(sg.add(1).cast(), dst, self.from) }
            };
            // (Forwarded once: a second walk starts from the part itself.)
            self.from = 0;
        }
        let sub = &raw mut self.sub;
        // SAFETY: `sub` is a valid request over data of the borrowed request (type
        // invariant), with its IV; it and its entries stay put while the walk borrows `self`.
        unsafe { Walk::start(simd, |w| bindings::skcipher_walk_virt(w, sub, false)) }
    }
}

/// The kernel's walk of a request's data (`struct skcipher_walk`): see [`Walk::next`].
///
/// # Invariants
///
/// `w` is a started walk over the data of a request (with its IV, of `Iv::SIZE` bytes,
/// non-NULL if that is not zero) that is borrowed for `'s`, and that holds no pointer into
/// itself (the kernel's virtual walks do not), so it may move; `left` is `Some` while a step
/// handed out is not done.
pub struct Walk<'s, Iv: Block> {
    w: bindings::skcipher_walk,
    simd: &'s mut Simd,
    left: Option<usize>,
    _p: PhantomData<(&'s mut [u8], Iv)>,
}

impl<'s, Iv: Block> Walk<'s, Iv> {
    /// Starts a walk with `start` (`skcipher_walk_virt()`, `skcipher_walk_aead_encrypt()`,
    /// ...), which gets the walk to start.
    ///
    /// # Safety
    ///
    /// `start` must start a virtual walk, over data that is ours during `'s` (the source
    /// readable, the destination writable, the same or disjoint), with an IV of `Iv::SIZE`
    /// bytes, non-NULL if that is not zero, valid and ours during `'s`.
    pub(crate) unsafe fn start(
        simd: &'s mut Simd,
        start: impl FnOnce(*mut bindings::skcipher_walk) -> c_int,
    ) -> Result<Self> {
        // SAFETY: all zeros is a valid walk not started (integers and pointers); Linux 6.12
        // reads `flags` before setting it.
        let mut w: bindings::skcipher_walk = unsafe { core::mem::zeroed() };
        to_result(start(&mut w))?;
        // INVARIANT: started over such data (the caller); nothing handed out yet.
        Ok(Self {
            w,
            simd,
            left: None,
            _p: PhantomData,
        })
    }

    /// Ends the step handed out before, if any, with the bytes it left
    /// (`skcipher_walk_done()`, outside any NEON section, where a request that may sleep gets
    /// a reschedule point), and hands out the next step; `None` at the end of the data.
    ///
    /// A step has whole chunks of the algorithm, at least its walk size (or all that is left)
    /// but for the last; leaving bytes of the last step fails the walk with `EINVAL` if they
    /// are not the partial chunk a block mode refuses.
    pub fn next(&mut self) -> Result<Option<Step<'_, Iv>>> {
        if let Some(left) = self.left.take() {
            // Leaving the whole step would present it again, forever: a driver's error.
            let res = if left < self.w.nbytes as usize {
                left as c_int
            } else {
                EINVAL.to_errno()
            };
            // SAFETY: the walk is started and its step done with `res` (type invariant).
            to_result(unsafe { bindings::skcipher_walk_done(&mut self.w, res) })?;
        }
        if self.w.nbytes == 0 {
            return Ok(None);
        }
        let (src, dst) = walk_addrs(&self.w);
        // INVARIANT: a step is handed out.
        let left = self.left.insert(0);
        // INVARIANT: the walk maps its step's `nbytes` bytes at `src` and `dst` (the same or
        // disjoint) until it is done, which the step's borrow of the walk keeps from
        // happening; the IV is the request's (or the walk's aligned copy of it).
        Ok(Some(Step {
            io: InOut {
                src,
                dst,
                len: self.w.nbytes as usize,
                _p: PhantomData,
            },
            total: self.w.total as usize,
            iv: self.w.iv.cast(),
            simd: &mut *self.simd,
            left,
            _p: PhantomData,
        }))
    }
}

impl<Iv: Block> Drop for Walk<'_, Iv> {
    fn drop(&mut self) {
        if self.w.nbytes != 0 {
            // A walk left before its end (an error): its step mapped, maybe a buffer.
            // SAFETY: the walk is started and not ended (type invariant).
            unsafe { bindings::skcipher_walk_abort(&mut self.w) };
        }
    }
}

/// The virtual source and destination of the current step of a walk.
///
/// Linux 6.12 keeps them in `union { phys; virt; } src, dst`; later kernels in anonymous
/// unions with the scatterlist walkers.
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
/// `io` is the step's data and `iv`, if `Iv::SIZE > 0`, points to `Iv::SIZE` bytes, both
/// valid and ours during `'w`; `total >= io.len` is what is left of the walk from this
/// step on; `left` is where the walk reads the bytes the step leaves.
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

    /// Whether the step is empty (never, for steps the walk hands out).
    pub fn is_empty(&self) -> bool {
        self.io.len == 0
    }

    /// The number of bytes left of the walk, this step included.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Whether this is the last step.
    pub fn is_last(&self) -> bool {
        self.io.len == self.total
    }

    /// Leaves the last `n` bytes of the step to the next (fewer than the step has: leaving
    /// it whole fails the walk with `EINVAL`).
    pub fn leave(&mut self, n: usize) {
        *self.left = n;
    }

    /// The step's data, its IV and the right to use NEON on them.
    pub fn parts(&mut self) -> (InOut<'_>, &mut Iv, &mut Simd) {
        // SAFETY: the IV has `Iv::SIZE` bytes (non-NULL if that is not zero), ours while the
        // step is borrowed (type invariant).
        let iv = unsafe { iv_mut(self.iv) };
        (self.io.reborrow(), iv, &mut *self.simd)
    }

    /// Runs `f` on the step's data and IV in a NEON section; `EDEADLK` where NEON may not be
    /// used.
    #[inline(always)]
    pub fn neon<R>(&mut self, f: impl FnOnce(&Neon, &mut InOut<'_>, &mut Iv) -> R) -> Result<R> {
        let (mut io, iv, simd) = self.parts();
        simd.neon(|neon| f(neon, &mut io, iv)).ok_or_else(edeadlk)
    }
}

/// A reference to an IV of `I::SIZE` bytes at `p`; from a dangling pointer, never `p`, for
/// a zero-sized IV (modes without one get NULL, and a reference must not be null).
///
/// # Safety
///
/// If `I::SIZE > 0`, `p` must be valid for reads and writes of `I::SIZE` bytes and not
/// accessed otherwise during `'a`.
unsafe fn iv_mut<'a, I: Block>(p: *mut u8) -> &'a mut I {
    if I::SIZE == 0 {
        // SAFETY: `I` is zero-sized, so any non-null, aligned pointer is valid for it.
        unsafe { NonNull::<I>::dangling().as_mut() }
    } else {
        // SAFETY: valid by the caller's guarantee; `I` is a byte array (`Block` is sealed),
        // so any address is aligned for it.
        unsafe { &mut *p.cast::<I>() }
    }
}

/// Data to transform: `len` bytes read from `src` and written to `dst`, which are the same
/// memory (in place) or do not overlap. (Not slices: other threads may write the memory
/// meanwhile, as AF_ALG's user pages; assembly reads and writes it, Rust copies it.)
///
/// # Invariants
///
/// `src` is readable and `dst` writable for `len` bytes during `'a`, and `len` fits a
/// `c_uint`; they are equal or disjoint, and nothing else of ours accesses them during `'a`.
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

    /// The same data, for the lifetime of the borrow.
    fn reborrow(&mut self) -> InOut<'_> {
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

    /// The number of whole blocks of `size` bytes (not zero) in the data, as assembly takes
    /// it.
    pub fn blocks(&self, size: usize) -> c_uint {
        // (At most `len`, which fits: type invariant.)
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

    /// The data from byte `start` on, at most `len` bytes of it, for the lifetime of the
    /// borrow.
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

    /// Swaps the two 16-byte blocks that end the destination (nothing if it is shorter than
    /// two blocks): ciphertext stealing's final swap.
    pub fn swap_last_blocks(&mut self) {
        if self.len < 32 {
            return;
        }
        // SAFETY: the last 32 bytes of `dst` are writable (and readable: they are ours for
        // `'a`); the two blocks do not overlap; the helper only moves them.
        unsafe { bindings::swap16(self.dst.add(self.len - 32), self.dst.add(self.len - 16)) };
    }
}
