// SPDX-License-Identifier: GPL-2.0

//! Symmetric key ciphers (`struct skcipher_alg`): block cipher modes over whole requests.
//!
//! C headers: [`include/crypto/skcipher.h`](srctree/include/crypto/skcipher.h),
//! [`include/crypto/internal/skcipher.h`](srctree/include/crypto/internal/skcipher.h).
//!
//! A driver implements [`Skcipher`] for each mode and registers them together with
//! [`Registration`]. Its `encrypt`/`decrypt` receive a [`Request`] whose data they process
//! with [`Request::walk`]: the walk maps the request's scatterlists a virtually contiguous
//! step at a time, and the driver says how many bytes of each step it left for the next one.
//! Neither a step's data nor its IV can be used after the step, and the abstraction calls
//! `skcipher_walk_done()` itself, outside any NEON section.

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
    ptr::{self, NonNull},
};
use kernel::error::{code::EINVAL, to_result, Result};

/// A key as given to [`Skcipher::set_key`], with the transform's request flags.
pub struct Key<'a> {
    bytes: &'a [u8],
    flags: u32,
}

impl<'a> Key<'a> {
    /// A key given with the transform flags `flags` (`crt_flags`).
    pub(crate) fn new(bytes: &'a [u8], flags: u32) -> Self {
        Self { bytes, flags }
    }

    /// The key bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Whether the user asked for weak keys to be refused (`CRYPTO_TFM_REQ_FORBID_WEAK_KEYS`).
    pub fn forbids_weak_keys(&self) -> bool {
        self.flags & bindings::CRYPTO_TFM_REQ_FORBID_WEAK_KEYS != 0
    }

    /// The kernel's XTS key check (`xts_verify_key()`): an even length, and two different
    /// halves when weak keys are forbidden or the kernel is in FIPS mode. The halves are
    /// compared with `crypto_memneq()`, in time independent of their contents.
    pub fn verify_xts(&self) -> Result {
        let b = self.bytes;
        if b.len() % 2 != 0 {
            return Err(EINVAL);
        }
        let (k1, k2) = b.split_at(b.len() / 2);
        if fips_enabled() || self.forbids_weak_keys() {
            // SAFETY: both halves are readable for `k1.len()` bytes.
            let differ = unsafe {
                bindings::crypto_memneq(k1.as_ptr().cast(), k2.as_ptr().cast(), k1.len())
            };
            if !differ {
                return Err(EINVAL);
            }
        }
        Ok(())
    }
}

#[cfg(CONFIG_CRYPTO_FIPS)]
fn fips_enabled() -> bool {
    // SAFETY: `fips_enabled` is set once at boot and only read afterwards.
    unsafe { bindings::fips_enabled != 0 }
}

#[cfg(not(CONFIG_CRYPTO_FIPS))]
fn fips_enabled() -> bool {
    false
}

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
    /// The smallest step the walk should present when more data remains: a multiple of the
    /// chunk size that the driver processes efficiently, or needs whole (ciphertext
    /// stealing needs the last two blocks in one step).
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
    fn encrypt(ctx: &Self::Context, req: &mut Request<'_, Self::Iv>) -> Result;

    /// Decrypts the request.
    fn decrypt(ctx: &Self::Context, req: &mut Request<'_, Self::Iv>) -> Result;
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
        let key = Key {
            // SAFETY: `key` points to `len` readable bytes (or `len` is 0).
            bytes: unsafe { byte_slice(key, len) },
            // SAFETY: the transform is live.
            flags: unsafe { (*base).crt_flags },
        };
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
        f: impl FnOnce(&T::Context, &mut Request<'_, T::Iv>) -> Result,
    ) -> c_int {
        // An IV is required whenever the mode has one (`ivsize` > 0); for modes without one
        // (ECB) callers pass NULL.
        // SAFETY: the request is valid.
        if T::Iv::SIZE > 0 && unsafe { (*req).iv }.is_null() {
            return EINVAL.to_errno();
        }
        // SAFETY: the transform is live and its context initialised by `init`; requests
        // only read it.
        let ctx = unsafe { &*ctx::<T::Context>((*req).base.tfm) };
        // SAFETY: the request is valid, its transform's IV size is `T::Iv::SIZE` and its IV
        // is non-NULL if that is not zero (checked above); it is ours for the call.
        let mut req = unsafe { Request::new(req) };
        match f(ctx, &mut req) {
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

/// A reference to an IV of `I::SIZE` bytes at `p`.
///
/// A zero-sized IV (modes without one, such as ECB) is made from a dangling pointer, never
/// from `p`, which is NULL for those: a reference must not be null even to a zero-sized
/// value.
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

/// A request handed to [`Skcipher::encrypt`] or [`Skcipher::decrypt`].
///
/// # Invariants
///
/// `req` is a valid request, exclusively ours for `'a`; if `Iv::SIZE > 0`, its `iv` is
/// non-NULL and points to `Iv::SIZE` bytes. `simd` is the callback's right to use NEON.
pub struct Request<'a, Iv: Block> {
    req: *mut bindings::skcipher_request,
    simd: Simd,
    _p: PhantomData<(&'a mut bindings::skcipher_request, Iv)>,
}

impl<Iv: Block> Request<'_, Iv> {
    /// # Safety
    ///
    /// `req` must be a valid request on a transform whose IV size is `Iv::SIZE`, with a
    /// non-NULL IV if that is not zero, not used elsewhere while the returned object lives;
    /// no NEON section may be open (the caller is a crypto API callback).
    unsafe fn new(req: *mut bindings::skcipher_request) -> Self {
        // INVARIANT: guaranteed by the caller. Requests have no non-SIMD path to test, so
        // NEON is allowed wherever `may_use_simd()` holds.
        Self {
            req,
            // SAFETY: no section is open (caller); the request owns the only `Simd`.
            simd: unsafe { Simd::new(false) },
            _p: PhantomData,
        }
    }

    /// The length of the data in bytes.
    pub fn len(&self) -> usize {
        // SAFETY: the request is valid by the type invariant.
        unsafe { (*self.req).cryptlen as usize }
    }

    /// The request's IV (read before and between walks; each walk starts from it and
    /// writes back the value it leaves).
    pub fn iv(&mut self) -> &mut Iv {
        // SAFETY: the request is valid and its IV has `Iv::SIZE` bytes, non-NULL if that is
        // not zero (type invariant); `&mut self` makes it exclusive.
        unsafe { iv_mut((*self.req).iv) }
    }

    /// Whether the request has no data.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The right to use NEON outside a walk (none is open while this borrow lives).
    pub fn simd(&mut self) -> &mut Simd {
        &mut self.simd
    }

    /// Runs `f` on the request in one NEON section where the kernel's rule lets a section
    /// span the request's work (its walks; see [`Simd::span`]) and the request is longer
    /// than a step ([`MAX_STEP`]), with a section per [`Simd::neon`] otherwise. (A shorter
    /// request in one piece of memory, the common case, takes one section anyway; the
    /// spanning one would cost it a few instructions.)
    #[inline(always)]
    pub fn in_one_section<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        if !super::compat::SECTION_MAY_SPAN_WALK || self.len() <= MAX_STEP {
            return f(self);
        }
        self.spanned(f)
    }

    /// [`Request::in_one_section`]'s section. (Out of line: the section's state stays out
    /// of the frame of the requests that take no such section.)
    #[inline(never)]
    fn spanned<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        super::simd::span_section(self, true, |r| &mut r.simd, f)
    }

    /// Processes the data a step at a time (`skcipher_walk_virt()`).
    ///
    /// `f` gets each step and returns how many bytes at its end it left unprocessed (fewer
    /// than the step has: leaving all of it fails the walk with `EINVAL`); they come again
    /// at the start of the next step. A step has at least the algorithm's walk
    /// size (or all that remains), and whole chunks unless it is the last; a request whose
    /// length is not a multiple of the block size fails with `EINVAL`. Leaving bytes of a
    /// step that the walk had to bounce through its own buffer also fails with `EINVAL`, so
    /// `f` should only leave a partial chunk. The IV given to the steps is the request's,
    /// written back at the end. Errors from `f` end the walk.
    pub fn walk(&mut self, f: impl FnMut(&mut Step<'_, Iv>) -> Result<usize>) -> Result {
        let req = self.req;
        // SAFETY: the request is valid and ours (type invariant), its IV as required.
        unsafe { walk_request(req, &mut self.simd, f) }
    }

    /// As [`Request::walk`], with the last `tail` bytes of the data (at most [`MAX_TAIL`])
    /// handed over whole at the end of the last step, for modes that work on them together
    /// (ciphertext stealing). In each step, the bytes from `total() - tail` on belong to
    /// the tail: `f` leaves those of a step that is not the last. Data in one piece of the
    /// kernel's linear map is walked over its addresses, so the tail is in place and in the
    /// same NEON section as the blocks before it in its step; other data is walked up to the
    /// tail, which then comes as a step of its own, copied to the stack and back. `EINVAL` if
    /// `tail` is longer than [`MAX_TAIL`] or the data, or if `f` leaves bytes of the last
    /// step.
    pub fn walk_with_tail(
        &mut self,
        tail: usize,
        mut f: impl FnMut(&mut Step<'_, Iv>) -> Result<usize>,
    ) -> Result {
        let len = self.len();
        if tail > MAX_TAIL || tail > len {
            return Err(EINVAL);
        }
        if tail == 0 {
            return self.walk(f);
        }
        // SAFETY: the request is valid (type invariant).
        let span = unsafe { Span::of(self.req) };
        // SAFETY: the request is ours (type invariant), its IV as required.
        if let Some(lin) = unsafe { Linear::of(&span) } {
            if len <= MAX_STEP {
                return match lin.step(0, len, &mut self.simd, f)? {
                    0 => Ok(()),
                    _ => Err(EINVAL),
                };
            }
            return lin.walk(&mut self.simd, &mut f);
        }
        let bulk = len - tail;
        if bulk > 0 {
            self.walk_range(0, bulk, |step| {
                // INVARIANT: what is left of the request, the tail included.
                step.total += tail;
                f(step)
            })?;
        }
        let mut buf = super::Secret::<MAX_TAIL>::zeroed();
        self.read_at(bulk, &mut buf[..tail])?;
        let p = buf.as_mut_ptr();
        // SAFETY: the tail's copy, ours for the step, in place; the last `tail` bytes of the
        // request; the request's IV (the request is valid: type invariant).
        let mut step = unsafe {
            Step::new(
                p.cast_const(),
                p,
                tail,
                tail,
                (*self.req).iv.cast(),
                &mut self.simd,
            )
        };
        match f(&mut step)? {
            0 => self.write_at(bulk, &buf[..tail]),
            _ => Err(EINVAL),
        }
    }

    /// Copies `buf.len()` bytes of the source data from byte `offset` on into `buf`
    /// (`scatterwalk_map_and_copy()`). Ciphertext stealing reads the end of a request this
    /// way when it is not in one piece.
    pub fn read_at(&self, offset: usize, buf: &mut [u8]) -> Result {
        let (start, n) = self.range_c(offset, buf.len())?;
        // SAFETY: the request is valid (type invariant) and its source holds at least
        // `offset + buf.len()` bytes (checked); `buf` is writable for `n` bytes.
        unsafe { bindings::sg_copy(buf.as_mut_ptr().cast(), (*self.req).src, start, n, 0) };
        Ok(())
    }

    /// Copies `buf` into the destination data from byte `offset` on, as
    /// [`Request::read_at`].
    pub fn write_at(&mut self, offset: usize, buf: &[u8]) -> Result {
        let (start, n) = self.range_c(offset, buf.len())?;
        // SAFETY: as in `read_at`, for the destination; the function only reads `buf`.
        unsafe { bindings::sg_copy(buf.as_ptr().cast_mut().cast(), (*self.req).dst, start, n, 1) };
        Ok(())
    }

    /// `offset` and `len` as C lengths, if the range lies in the request.
    fn range_c(&self, offset: usize, len: usize) -> Result<(c_uint, c_uint)> {
        let end = offset.checked_add(len).ok_or(EINVAL)?;
        if end > self.len() {
            return Err(EINVAL);
        }
        Ok((
            c_uint::try_from(offset).map_err(|_| EINVAL)?,
            c_uint::try_from(len).map_err(|_| EINVAL)?,
        ))
    }

    /// As [`Request::walk`], over `len` bytes of the data starting at `offset`, with the
    /// request's IV (the bulk of [`Request::walk_with_tail`]).
    fn walk_range(
        &mut self,
        offset: usize,
        len: usize,
        f: impl FnMut(&mut Step<'_, Iv>) -> Result<usize>,
    ) -> Result {
        let end = offset.checked_add(len).ok_or(EINVAL)?;
        if end > self.len() {
            return Err(EINVAL);
        }
        if offset == 0 && len == self.len() {
            return self.walk(f);
        }
        let (offset_c, len_c) = (c_uint::try_from(offset), c_uint::try_from(len));
        let (Ok(offset_c), Ok(len_c)) = (offset_c, len_c) else {
            return Err(EINVAL);
        };
        // A copy of the request's header (not its context), limited to the range: the walk
        // only reads the transform, flags, lengths, scatterlists and IV pointer from it.
        // SAFETY: the request is valid; `skcipher_request` is plain data.
        let mut sub = unsafe { ptr::read(self.req) };
        sub.cryptlen = len_c;
        // `scatterwalk_ffwd` initialises the entries it uses (`sg_init_table`).
        let mut sg = core::mem::MaybeUninit::<[[bindings::scatterlist; 2]; 2]>::uninit();
        let sg = sg.as_mut_ptr().cast::<[bindings::scatterlist; 2]>();
        if offset > 0 {
            let (src, dst) = (sub.src, sub.dst);
            // SAFETY: `src` is the request's valid source scatterlist, at least `end` bytes
            // long; `sg[0]` has room for the two entries `scatterwalk_ffwd` may write.
            sub.src = unsafe { bindings::scatterwalk_ffwd(sg.cast(), src, offset_c) };
            sub.dst = if dst == src {
                sub.src
            } else {
                // SAFETY: as above, for the destination, in `sg[1]`.
                unsafe { bindings::scatterwalk_ffwd(sg.add(1).cast(), dst, offset_c) }
            };
        }
        // SAFETY: `sub` is a valid request over part of ours (with `sg`, it outlives the
        // walk), with our IV.
        unsafe { walk_request(&raw mut sub, &mut self.simd, f) }
    }
}

/// The most data that one step of a walk hands a driver: a page, as the kernel's skcipher
/// walk maps it. Drivers open one NEON section per step, so no section covers more, and
/// between steps a request that may sleep gets a reschedule point.
pub const MAX_STEP: usize = bindings::PAGE_SIZE;

/// The longest end of a request that [`Request::walk_with_tail`] hands over whole: two
/// 16-byte blocks, what ciphertext stealing works on.
pub const MAX_TAIL: usize = 32;

/// Runs a virtual walk over `req`, handing each step to `f`.
///
/// # Safety
///
/// `req` must be a valid request, not used elsewhere during the call, whose IV has
/// `Iv::SIZE` bytes and is non-NULL if that is not zero.
unsafe fn walk_request<Iv: Block>(
    req: *mut bindings::skcipher_request,
    simd: &mut Simd,
    f: impl FnMut(&mut Step<'_, Iv>) -> Result<usize>,
) -> Result {
    // SAFETY: the request is valid (caller).
    let span = unsafe { Span::of(req) };
    // SAFETY: `span` describes the request's data, which is ours (caller); the walk is
    // started over the same request.
    unsafe {
        walk_span::<Iv, false>(
            &span,
            simd,
            |w| bindings::skcipher_walk_virt(w, req, false),
            f,
        )
    }
}

/// The data a walk covers: `len` bytes from byte `off` on of the scatterlists `src` and
/// `dst`, the IV and the request flags. For skciphers the whole request; for AEADs the
/// text after the associated data.
pub(crate) struct Span {
    pub(crate) src: *mut bindings::scatterlist,
    pub(crate) dst: *mut bindings::scatterlist,
    pub(crate) off: c_uint,
    pub(crate) len: c_uint,
    pub(crate) iv: *mut u8,
    pub(crate) flags: u32,
}

impl Span {
    /// The whole data of `req`.
    ///
    /// # Safety
    ///
    /// `req` must be a valid request.
    unsafe fn of(req: *mut bindings::skcipher_request) -> Self {
        // SAFETY: the request is valid (caller).
        unsafe {
            Span {
                src: (*req).src,
                dst: (*req).dst,
                off: 0,
                len: (*req).cryptlen,
                iv: (*req).iv.cast(),
                flags: (*req).base.flags,
            }
        }
    }
}

/// Runs a virtual walk over `span`, handing each step to `f`.
///
/// Data whose source and destination each lie in the first entry of their scatterlist
/// (dm-crypt's sectors, fscrypt's pages, most small requests), or with `AT` in any one entry
/// (an AEAD's text after its associated data's entry), is walked over its addresses in
/// the kernel's linear map, without the kernel's walk, in steps of at most [`MAX_STEP`]
/// bytes, as the walk would; its destination pages are then flushed as the walk does
/// (`flush_dcache_page()`). Other data goes through the kernel's walk, which `start`
/// starts (`skcipher_walk_virt()`, `skcipher_walk_aead_encrypt()`, ...) over the same data.
///
/// # Safety
///
/// `span` must describe data of a valid request that is not used elsewhere during the call,
/// with an IV of `Iv::SIZE` bytes, non-NULL if that is not zero; `start` must start a virtual
/// walk over exactly that data and IV in the walk it is given.
pub(crate) unsafe fn walk_span<Iv: Block, const AT: bool>(
    span: &Span,
    simd: &mut Simd,
    start: impl FnOnce(*mut bindings::skcipher_walk) -> c_int,
    mut f: impl FnMut(&mut Step<'_, Iv>) -> Result<usize>,
) -> Result {
    if span.len == 0 {
        // As the walk: nothing to do, the IV is left alone.
        return Ok(());
    }
    // SAFETY: as required (caller).
    let lin = unsafe {
        if AT {
            Linear::of_at(span)
        } else {
            Linear::of(span)
        }
    };
    if let Some(lin) = lin {
        return lin.walk(simd, &mut f);
    }
    let mut walk = core::mem::MaybeUninit::<bindings::skcipher_walk>::uninit();
    let w = walk.as_mut_ptr();
    // The kernel's walk initialises the walk, but Linux 6.12 clears bits of `flags` before
    // setting it: start from 0, as the C callers' uninitialised walks need not.
    // SAFETY: `w` points to memory for a walk; `flags` is written, not read.
    unsafe { core::ptr::addr_of_mut!((*w).flags).write(0) };
    // `w` is an unstarted walk that does not move until it ends (it is not used after the
    // last `skcipher_walk_done`); `start` starts it over the span (caller).
    let mut err = start(w);
    // SAFETY: `w` is live; `nbytes` is 0 once the walk ended.
    while err == 0 && unsafe { (*w).nbytes } != 0 {
        let (src, dst) = super::compat::walk_addrs(w);
        // SAFETY: the walk is live; it maps its step's `nbytes` bytes at `src` and `dst`
        // (equal or disjoint) until `skcipher_walk_done`; its IV is the request's (or an
        // aligned copy of it), with `Iv::SIZE` bytes, non-NULL if that is not zero.
        let mut step = unsafe {
            Step::new(
                src,
                dst,
                (*w).nbytes as usize,
                (*w).total as usize,
                (*w).iv.cast(),
                &mut *simd,
            )
        };
        let n = step.len;
        // Leaving the whole step would present it again, forever: a driver bug.
        let res = match f(&mut step) {
            Ok(left) if left < n => left as c_int,
            Ok(_) => EINVAL.to_errno(),
            Err(e) => e.to_errno(),
        };
        // SAFETY: ends the step (`res` bytes left, or an error that ends the walk); it
        // yields to the scheduler between steps of a request that may sleep.
        err = unsafe { bindings::skcipher_walk_done(w, res) };
    }
    to_result(err)
}

/// Data whose source and destination each lie in one entry of their scatterlist, with a
/// permanent mapping: walked over their addresses in the kernel's linear map.
///
/// # Invariants
///
/// `src` is readable and `dst` writable for `len` bytes (the same memory, or disjoint) while
/// the request is ours; the entry `dst_sg` holds `dst`, from byte `off` of its data on; `iv`
/// is the request's IV.
struct Linear {
    src: *const u8,
    dst: *mut u8,
    len: usize,
    dst_sg: *mut bindings::scatterlist,
    off: usize,
    iv: *mut u8,
    may_sleep: bool,
}

impl Linear {
    /// The linear view of `span`, or `None` if its data is not in one piece each.
    ///
    /// # Safety
    ///
    /// As for [`walk_span`]; the result must not be used after the request.
    unsafe fn of(span: &Span) -> Option<Self> {
        let end = span.off.checked_add(span.len)?;
        // SAFETY: the scatterlists of a valid request describe at least `off + len` bytes.
        let src = unsafe { bindings::sg_linear(span.src, end) };
        let dst = if span.dst == span.src {
            src
        } else {
            // SAFETY: as above.
            unsafe { bindings::sg_linear(span.dst, end) }
        };
        if src.is_null() || dst.is_null() {
            return None;
        }
        let off = span.off as usize;
        // INVARIANT: the span's source and destination, `len` bytes each in the linear map
        // after `off` bytes of the first entry, the same or (as the API requires of distinct
        // scatterlists) disjoint.
        Some(Self {
            src: src.cast_const().cast::<u8>().wrapping_add(off),
            dst: dst.cast::<u8>().wrapping_add(off),
            len: span.len as usize,
            dst_sg: span.dst,
            off,
            iv: span.iv,
            may_sleep: span.flags & bindings::CRYPTO_TFM_REQ_MAY_SLEEP != 0,
        })
    }

    /// The same, for data in any one entry of each scatterlist (not only the first).
    ///
    /// # Safety
    ///
    /// As for [`walk_span`]; the result must not be used after the request.
    unsafe fn of_at(span: &Span) -> Option<Self> {
        let (mut src_sg, mut src_off) = (span.src, span.off);
        // SAFETY: the scatterlists of a valid request describe at least `off + len` bytes;
        // the helper only reads them and writes the two locals.
        let src = unsafe { bindings::sg_linear_at(&mut src_sg, &mut src_off, span.len) };
        let (dst, dst_sg, dst_off) = if span.dst == span.src {
            (src, src_sg, src_off)
        } else {
            let (mut sg, mut off) = (span.dst, span.off);
            // SAFETY: as above.
            let p = unsafe { bindings::sg_linear_at(&mut sg, &mut off, span.len) };
            (p, sg, off)
        };
        if src.is_null() || dst.is_null() {
            return None;
        }
        // INVARIANT: the span's source and destination, `len` bytes each in the linear map
        // in one entry each (`dst_sg`, from byte `off` of its data on), the same or (as the
        // API requires of distinct scatterlists) disjoint.
        Some(Self {
            src: src.cast_const().cast::<u8>(),
            dst: dst.cast::<u8>(),
            len: span.len as usize,
            dst_sg,
            off: dst_off as usize,
            iv: span.iv,
            may_sleep: span.flags & bindings::CRYPTO_TFM_REQ_MAY_SLEEP != 0,
        })
    }

    /// Runs `f` on the `n` bytes from byte `at` on as one step (`at + n <= len`).
    fn step<Iv: Block, R>(
        &self,
        at: usize,
        n: usize,
        simd: &mut Simd,
        f: impl FnOnce(&mut Step<'_, Iv>) -> R,
    ) -> R {
        let n = n.min(self.len.saturating_sub(at));
        // SAFETY: a sub-range of the request's data (type invariant), and its IV.
        let mut step = unsafe {
            Step::new(
                self.src.wrapping_add(at),
                self.dst.wrapping_add(at),
                n,
                self.len - at,
                self.iv,
                simd,
            )
        };
        let r = f(&mut step);
        // SAFETY: the entry `dst_sg` holds the bytes just written (type invariant), at
        // offsets below `off + len`, a `c_uint`.
        unsafe { bindings::sg_flush_dcache(self.dst_sg, (self.off + at) as c_uint, n as c_uint) };
        r
    }

    /// Walks the data in steps of at most [`MAX_STEP`] bytes, as the kernel's walk would:
    /// bytes that `f` leaves come again at the start of the next step, a step left whole
    /// ends the walk with `EINVAL`, and a request that may sleep gets a reschedule point
    /// between steps.
    fn walk<Iv: Block>(
        &self,
        simd: &mut Simd,
        f: &mut impl FnMut(&mut Step<'_, Iv>) -> Result<usize>,
    ) -> Result {
        if self.may_sleep {
            // SAFETY: the debug check of a function that may sleep, as the walk's.
            unsafe { bindings::might_sleep() };
        }
        let mut done = 0;
        while done < self.len {
            let n = (self.len - done).min(MAX_STEP);
            match self.step(done, n, simd, &mut *f) {
                Ok(left) if left < n => done += n - left,
                // Leaving the whole step would present it again, forever (or the data ends
                // in a partial block the mode refuses).
                Ok(_) => return Err(EINVAL),
                Err(e) => return Err(e),
            }
            if self.may_sleep && done < self.len {
                // SAFETY: the caller allows sleeping and no NEON section is open here.
                unsafe { bindings::cond_resched() };
            }
        }
        Ok(())
    }
}

/// One step of a walk: the data mapped now, the IV, and the right to use NEON on them.
///
/// # Invariants
///
/// `src` is readable and `dst` writable for `len` bytes during `'a`, equal or disjoint, and
/// not otherwise accessed; `total >= len` is what is left of the request from this step on;
/// if `Iv::SIZE > 0`, `iv` points to `Iv::SIZE` bytes, valid and exclusive during `'a`.
pub struct Step<'a, Iv: Block> {
    src: *const u8,
    dst: *mut u8,
    len: usize,
    total: usize,
    iv: *mut u8,
    simd: &'a mut Simd,
    _p: PhantomData<(&'a mut [u8], Iv)>,
}

impl<'a, Iv: Block> Step<'a, Iv> {
    /// A step of `len` bytes at `src` and `dst`, `total` bytes left of the request from it
    /// on, with the IV at `iv` and the right to use NEON `simd`.
    ///
    /// # Safety
    ///
    /// As the type's invariants: `src` readable and `dst` writable for `len` bytes during
    /// `'a`, equal or disjoint and not otherwise accessed; `total >= len`; `iv` valid and
    /// exclusive for `Iv::SIZE` bytes during `'a` if that is not zero.
    pub(crate) unsafe fn new(
        src: *const u8,
        dst: *mut u8,
        len: usize,
        total: usize,
        iv: *mut u8,
        simd: &'a mut Simd,
    ) -> Self {
        // INVARIANT: as the caller guarantees.
        Self {
            src,
            dst,
            len,
            total,
            iv,
            simd,
            _p: PhantomData,
        }
    }
}

impl<Iv: Block> Step<'_, Iv> {
    /// The number of bytes in this step.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the step is empty (never, for steps the walk hands out).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of bytes left in the request, this step included.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The step's data, the IV, and the right to use NEON on them.
    pub fn data(&mut self) -> (InOut<'_>, &mut Iv, &mut Simd) {
        // INVARIANT: the step's data, borrowed from the step.
        let io = InOut {
            src: self.src,
            dst: self.dst,
            len: self.len,
            _p: PhantomData,
        };
        // SAFETY: the IV has `Iv::SIZE` bytes (non-NULL if that is not zero) and is ours
        // while the step is borrowed (type invariant).
        let iv = unsafe { iv_mut(self.iv) };
        (io, iv, &mut *self.simd)
    }
}

/// Data to transform: `len` bytes read from `src` and written to `dst`, which are the same
/// memory (in place) or do not overlap.
///
/// # Invariants
///
/// `src` is readable and `dst` writable for `len` bytes during `'a`; they are equal or
/// disjoint, and nothing else accesses them during `'a`.
pub struct InOut<'a> {
    src: *const u8,
    dst: *mut u8,
    len: usize,
    _p: PhantomData<&'a mut [u8]>,
}

impl<'a> InOut<'a> {
    /// In-place data in a buffer of the caller's (e.g. a block on the stack).
    pub fn in_place(buf: &'a mut [u8]) -> Self {
        let p = buf.as_mut_ptr();
        // INVARIANT: `buf` is ours for `'a`; source and destination are the same memory.
        Self {
            src: p,
            dst: p,
            len: buf.len(),
            _p: PhantomData,
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
        // INVARIANT: both halves are within the original ranges and disjoint.
        (
            InOut { len: n, ..self },
            InOut {
                // SAFETY: `n <= len`, so the offsets stay in bounds.
                src: unsafe { self.src.add(n) },
                // SAFETY: as above.
                dst: unsafe { self.dst.add(n) },
                len: self.len - n,
                _p: PhantomData,
            },
        )
    }

    /// The data from byte `start` on, at most `len` bytes of it, for the lifetime of the
    /// borrow.
    pub fn range(&mut self, start: usize, len: usize) -> InOut<'_> {
        let start = start.min(self.len);
        let len = len.min(self.len - start);
        // INVARIANT: a sub-range of ours, borrowed from `self`.
        InOut {
            // SAFETY: `start <= len`, so the offsets stay in bounds.
            src: unsafe { self.src.add(start) },
            // SAFETY: as above.
            dst: unsafe { self.dst.add(start) },
            len,
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
    /// two blocks): ciphertext stealing's final swap, after a transformation.
    pub fn swap_last_blocks(&mut self) {
        if self.len < 32 {
            return;
        }
        // SAFETY: the last 32 bytes of `dst` are writable (and readable: they are ours for
        // `'a`); the two blocks do not overlap; the helper only moves them.
        unsafe { bindings::swap16(self.dst.add(self.len - 32), self.dst.add(self.len - 16)) };
    }
}
