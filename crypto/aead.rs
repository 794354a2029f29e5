// SPDX-License-Identifier: GPL-2.0

//! Authenticated encryption with associated data (`struct aead_alg`).
//!
//! C headers: [`include/crypto/aead.h`](srctree/include/crypto/aead.h),
//! [`include/crypto/internal/aead.h`](srctree/include/crypto/internal/aead.h).
//!
//! A driver reads the associated data with [`Request::assoc`] (in blocks with
//! [`AssocBlocks`]), walks the text with [`Request::walk`] and writes or checks the tag with
//! [`Request::finish`]. As in C, a decryption whose tag does not match has written its
//! plaintext to the destination.

use super::{
    alg::{exit_tfm, init_tfm, kind, Key},
    bindings, byte_slice, ctx, name_array, Block, Input, Simd, Start, Walk, WalkState,
};
use core::{
    ffi::{c_int, c_uint, CStr},
    marker::PhantomData,
    mem::{align_of, size_of},
};
use kernel::error::{code::EINVAL, Error, Result};

/// The `EBADMSG` error: the tag does not match.
pub fn ebadmsg() -> Error {
    Error::from_errno(-(bindings::EBADMSG as i32))
}

/// An AEAD algorithm.
pub trait Aead: 'static {
    /// Algorithm name (`cra_name`), e.g. `c"gcm(sm4)"`.
    const NAME: &'static CStr;
    /// Driver name (`cra_driver_name`), e.g. `c"gcm-sm4-ce"`.
    const DRIVER_NAME: &'static CStr;
    /// Priority among the implementations of [`Aead::NAME`].
    const PRIORITY: i32;
    /// The mode's unit (`chunksize`): a step may end inside one, which the driver leaves.
    const CHUNK_SIZE: u32;
    /// Smallest key length in bytes; the adapter refuses others (`EINVAL`): the crypto API
    /// checks no AEAD's key length.
    const MIN_KEY_SIZE: u32;
    /// Largest key length in bytes, checked likewise.
    const MAX_KEY_SIZE: u32;
    /// The largest tag, in bytes (the default tag size of a new transform).
    const MAX_AUTH_SIZE: u32;

    /// The IV, e.g. `[u8; 12]`.
    type Iv: Block;
    /// Per-transform state (the expanded keys), created with `Default`, wiped when freed.
    type Context: Default + Send + Sync;

    /// Sets a key of [`Aead::MIN_KEY_SIZE`] to [`Aead::MAX_KEY_SIZE`] bytes, `simd` to use NEON.
    fn set_key(ctx: &mut Self::Context, key: &Key<'_>, simd: &mut Simd) -> Result;

    /// Whether tags of `size` bytes (at most [`Aead::MAX_AUTH_SIZE`]) are allowed.
    fn check_auth_size(size: usize) -> Result;

    /// Encrypts the request and writes its tag.
    fn encrypt(ctx: &Self::Context, req: &mut Request<'_, Self::Iv>, simd: &mut Simd) -> Result;

    /// Decrypts the request and checks its tag.
    fn decrypt(ctx: &Self::Context, req: &mut Request<'_, Self::Iv>, simd: &mut Simd) -> Result;
}

struct Adapter<T: Aead>(PhantomData<T>);

impl<T: Aead> Adapter<T> {
    const ALG: bindings::aead_alg = {
        assert!(
            align_of::<T::Context>() <= super::CRYPTO_MINALIGN,
            "the context area is only aligned to CRYPTO_MINALIGN"
        );
        assert!(T::MIN_KEY_SIZE <= T::MAX_KEY_SIZE);
        assert!(T::MAX_AUTH_SIZE as usize <= MAX_TAG);
        // SAFETY: zero is valid for this C struct of integers, arrays and (function) pointers.
        let mut alg: bindings::aead_alg = unsafe { core::mem::zeroed() };
        alg.setkey = Some(Self::setkey);
        alg.setauthsize = Some(Self::setauthsize);
        alg.encrypt = Some(Self::crypt::<true>);
        alg.decrypt = Some(Self::crypt::<false>);
        alg.init = Some(init_tfm::<AeadKind, T::Context>);
        alg.exit = Some(exit_tfm::<AeadKind, T::Context>);
        alg.ivsize = T::Iv::SIZE as c_uint;
        alg.maxauthsize = T::MAX_AUTH_SIZE;
        alg.chunksize = T::CHUNK_SIZE;
        alg.base.cra_blocksize = 1;
        alg.base.cra_ctxsize = size_of::<T::Context>() as c_uint;
        alg.base.cra_priority = T::PRIORITY;
        alg.base.cra_name = name_array(T::NAME);
        alg.base.cra_driver_name = name_array(T::DRIVER_NAME);
        alg
    };

    /// # Safety
    ///
    /// Called by the crypto API with a live transform, ours, and `len` bytes at `key`.
    unsafe extern "C" fn setkey(
        tfm: *mut bindings::crypto_aead,
        key: *const u8,
        len: c_uint,
    ) -> c_int {
        if !(T::MIN_KEY_SIZE..=T::MAX_KEY_SIZE).contains(&len) {
            return EINVAL.to_errno();
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
    /// Called by the crypto API with a live transform.
    unsafe extern "C" fn setauthsize(_tfm: *mut bindings::crypto_aead, size: c_uint) -> c_int {
        match T::check_auth_size(size as usize) {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        }
    }

    /// # Safety
    ///
    /// Called by the crypto API with a valid request on a transform of this algorithm.
    unsafe extern "C" fn crypt<const ENCRYPT: bool>(req: *mut bindings::aead_request) -> c_int {
        let decrypt = !ENCRYPT;
        // SAFETY: the request is valid; its `crypto_tfm` is the `base` of a `crypto_aead`.
        let (iv, tfm, cryptlen, assoclen) = unsafe {
            let tfm = (*req).base.tfm;
            (
                (*req).iv,
                tfm.cast::<u8>()
                    .wrapping_sub(core::mem::offset_of!(bindings::crypto_aead, base))
                    .cast::<bindings::crypto_aead>(),
                (*req).cryptlen,
                (*req).assoclen,
            )
        };
        if T::Iv::SIZE > 0 && iv.is_null() {
            return EINVAL.to_errno();
        }
        // SAFETY: as above.
        let auth = unsafe { (*tfm).authsize };
        let text = if decrypt {
            match cryptlen.checked_sub(auth) {
                Some(t) => t,
                None => return EINVAL.to_errno(),
            }
        } else {
            cryptlen
        };
        if assoclen.checked_add(cryptlen).is_none() || auth as usize > MAX_TAG {
            return EINVAL.to_errno();
        }
        // SAFETY: the transform is live and its context initialised; requests only read it.
        let ctx = unsafe { &*ctx::<T::Context>(&raw mut (*tfm).base) };
        let mut w = WalkState::uninit();
        // INVARIANT: checked and guaranteed above.
        let mut r = Request {
            req,
            w: &mut w,
            text,
            auth,
            decrypt,
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

/// The largest tag the abstraction handles (the block size of its ciphers).
pub const MAX_TAG: usize = 16;

// SAFETY: `crypto_register_aead()` and `crypto_unregister_aead()` register an `aead_alg`.
kind! {
    /// The kind of the AEADs: `struct aead_alg`.
    pub struct AeadKind for Aead ("AEADs") {
        raw: aead_alg at base,
        tfm: crypto_aead at base,
        unsafe register: crypto_register_aead, crypto_unregister_aead,
    }
}

/// A request handed to [`Aead::encrypt`] or [`Aead::decrypt`].
///
/// # Invariants
///
/// `req` is valid, ours for `'a`, with a non-NULL IV of `Iv::SIZE` bytes if not 0; `text` and
/// `auth` are its text's and tag's lengths (`auth <= MAX_TAG`), and `assoclen + cryptlen` fits.
pub struct Request<'a, Iv: Block> {
    req: *mut bindings::aead_request,
    w: &'a mut WalkState,
    text: c_uint,
    auth: c_uint,
    decrypt: bool,
    _p: PhantomData<(&'a mut bindings::aead_request, Iv)>,
}

impl<'a, Iv: Block> Request<'a, Iv> {
    /// The length of the associated data in bytes.
    pub fn assoc_len(&self) -> usize {
        // SAFETY: the request is valid (type invariant).
        unsafe { (*self.req).assoclen as usize }
    }

    /// The length of the text (plaintext or ciphertext, without the tag) in bytes.
    pub fn text_len(&self) -> usize {
        self.text as usize
    }

    /// The size of the tag in bytes.
    pub fn auth_size(&self) -> usize {
        self.auth as usize
    }

    /// The request's IV.
    pub fn iv(&self) -> &'a Iv {
        if Iv::SIZE == 0 {
            // SAFETY: `Iv` is zero-sized, so any non-null, aligned pointer is valid for it.
            return unsafe { core::ptr::NonNull::<Iv>::dangling().as_ref() };
        }
        // SAFETY: the IV has `Iv::SIZE` bytes, the request's for `'a` (type invariant).
        unsafe { &*(*self.req).iv.cast::<Iv>() }
    }

    /// The associated data, a piece at a time; it may be read while the text is walked.
    pub fn assoc(&self) -> AssocData<'a> {
        // SAFETY: the request is valid (type invariant).
        let (sg, len) = unsafe { ((*self.req).src, (*self.req).assoclen) };
        // INVARIANT: the source holds `assoclen` bytes of associated data, ours for `'a`.
        AssocData {
            walk: ScatterWalk::new(sg),
            left: len,
            again: None,
            _p: PhantomData,
        }
    }

    /// Walks the text (`skcipher_walk_aead_encrypt()` or `_decrypt()`); its steps have no IV.
    pub fn walk<'s>(&'s mut self, simd: &'s mut Simd) -> Walk<'s, [u8; 0]> {
        let start = if self.decrypt {
            Start::AeadDecrypt(self.req)
        } else {
            Start::AeadEncrypt(self.req)
        };
        // SAFETY: the request is ours while the walk borrows it; the walk covers only its text.
        unsafe { Walk::new(simd, &mut *self.w, start) }
    }

    /// Ends the request with the computed `tag`: writes it, or checks it (`EBADMSG` if it differs).
    pub fn finish(&mut self, tag: &[u8; MAX_TAG]) -> Result {
        // SAFETY: the request is valid (type invariant); `assoclen + text` does not overflow.
        let (at, src, dst) = unsafe {
            let r = &*self.req;
            (r.assoclen + self.text, r.src, r.dst)
        };
        if !self.decrypt {
            // SAFETY: the destination holds the tag's `auth <= MAX_TAG` bytes after the text.
            unsafe {
                bindings::scatterwalk_map_and_copy(
                    tag.as_ptr().cast_mut().cast(),
                    dst,
                    at,
                    self.auth,
                    1,
                )
            };
            return Ok(());
        }
        let mut theirs = super::Secret::<MAX_TAG>::zeroed();
        // SAFETY: the source holds the tag after the text; `theirs` has room for it.
        unsafe {
            bindings::scatterwalk_map_and_copy(theirs.as_mut_ptr().cast(), src, at, self.auth, 0)
        };
        // SAFETY: both are readable for `auth <= MAX_TAG` bytes.
        let differ = unsafe {
            bindings::crypto_memneq(
                tag.as_ptr().cast(),
                theirs.as_ptr().cast(),
                self.auth as usize,
            )
        };
        if differ {
            Err(ebadmsg())
        } else {
            Ok(())
        }
    }
}

/// The associated data of a request, a mapped piece at a time ([`Request::assoc`]).
///
/// # Invariants
///
/// `walk` reads the request's source, readable for `'a`, with `left` bytes of associated data
/// after the piece mapped; `again` is a mapped piece to hand out again.
pub struct AssocData<'a> {
    walk: ScatterWalk,
    left: c_uint,
    again: Option<Input<'a>>,
    _p: PhantomData<&'a [u8]>,
}

impl AssocData<'_> {
    /// Ends the previous piece and hands out the next, of at most a page; `None` at the end.
    pub fn next(&mut self) -> Option<Input<'_>> {
        if let Some(piece) = self.again.take() {
            return Some(piece);
        }
        self.walk.done(self.left > 0);
        if self.left == 0 {
            return None;
        }
        // SAFETY: `left` bytes are still to come (type invariant).
        let (p, n) = unsafe { self.walk.next(self.left) };
        self.left -= n;
        // SAFETY: the piece stays mapped until the walk is told it is done (`&mut self`).
        Some(unsafe { Input::new(p, n) })
    }

    /// The associated data if it is one piece of at most `max` bytes, asked before [`Self::next`].
    pub fn whole(&mut self, max: usize) -> Option<Input<'_>> {
        let all = self.left as usize;
        if all == 0 || all > max || self.walk.started {
            return None;
        }
        // SAFETY: `left > 0` bytes are to come (type invariant); not started, so none mapped.
        let (p, n) = unsafe { self.walk.next(self.left) };
        self.left -= n;
        // SAFETY: as in `next`; `next` or the drop ends the piece.
        let piece = unsafe { Input::new(p, n) };
        if n as usize == all {
            return Some(piece);
        }
        self.again = Some(piece);
        None
    }
}

impl Drop for AssocData<'_> {
    fn drop(&mut self) {
        self.walk.done(false);
    }
}

/// Associated data in whole 16-byte blocks, the last padded with zeros (as GHASH and CBC-MAC
/// take it), from pieces of any length ([`AssocData::next`]): a piece's whole blocks where
/// they lie, and the blocks that pieces share gathered here.
///
/// # Invariants
///
/// `fill < 16`: the first `fill` bytes of `buf` begin a block.
#[derive(Default)]
pub struct AssocBlocks {
    buf: [u8; 16],
    fill: usize,
}

impl AssocBlocks {
    /// The next whole blocks taken from `data`, or a block gathered from its bytes and those
    /// before them; with `last` (`data` ends the associated data), the rest padded with
    /// zeros. `None` when `data` is used up.
    pub fn next<'s, 'd: 's>(&'s mut self, data: &mut Input<'d>, last: bool) -> Option<Input<'s>> {
        let whole = data.len() & !15;
        if self.fill == 0 && whole > 0 {
            let blocks;
            (blocks, *data) = data.split_at(whole);
            return Some(blocks);
        }
        let head;
        (head, *data) = data.split_at(16 - self.fill);
        head.read(&mut self.buf[self.fill..]);
        let fill = self.fill + head.len();
        if fill < 16 && !(last && data.is_empty() && fill > 0) {
            // INVARIANT: less than a block.
            self.fill = fill;
            return None;
        }
        self.buf[fill..].fill(0);
        // INVARIANT: the block is handed out whole.
        self.fill = 0;
        Some(Input::from_array(&self.buf))
    }
}

/// A walk of a scatterlist that is only read (`struct scatter_walk`), a mapped piece at a time.
///
/// # Invariants
///
/// `piece` is the piece mapped (null: none), of `len` bytes (maybe 0); `w` is started if `started`.
struct ScatterWalk {
    w: bindings::scatter_walk,
    sg: *mut bindings::scatterlist,
    started: bool,
    piece: *const u8,
    len: core::ffi::c_uint,
}

impl ScatterWalk {
    fn new(sg: *mut bindings::scatterlist) -> Self {
        // INVARIANT: nothing mapped, not started.
        Self {
            // SAFETY: all zeros is a valid walk not started (pointers and integers).
            w: unsafe { core::mem::zeroed() },
            sg,
            started: false,
            piece: core::ptr::null(),
            len: 0,
        }
    }

    /// Maps the next piece, of at most `total` bytes and a page: its address and length.
    ///
    /// # Safety
    ///
    /// `total > 0` bytes must be left in the scatterlist, and no piece mapped.
    #[inline(always)]
    unsafe fn next(&mut self, total: core::ffi::c_uint) -> (*const u8, core::ffi::c_uint) {
        if !self.started {
            // SAFETY: `sg` is a valid entry (there are bytes left: caller).
            unsafe { bindings::scatterwalk_start(&mut self.w, self.sg) };
            self.started = true;
        }
        #[cfg(sm4rs_scatterwalk_next)]
        // SAFETY: a started walk with `total` bytes left (caller).
        let (p, n) = unsafe {
            let n = bindings::scatterwalk_next(&mut self.w, total);
            (self.w.__bindgen_anon_1.addr.cast::<u8>(), n)
        };
        #[cfg(not(sm4rs_scatterwalk_next))]
        // SAFETY: as above; at an entry's end the walk moves to the next, which exists.
        let (p, n) = unsafe {
            let mut n = bindings::scatterwalk_clamp(&mut self.w, total);
            if n == 0 {
                bindings::scatterwalk_start(&mut self.w, bindings::sg_next(self.w.sg));
                n = bindings::scatterwalk_clamp(&mut self.w, total);
            }
            (
                bindings::scatterwalk_map(&mut self.w)
                    .cast_const()
                    .cast::<u8>(),
                n,
            )
        };
        // INVARIANT: the piece mapped.
        (self.piece, self.len) = (p, n);
        (p, n)
    }

    /// Ends the piece mapped, if any; `more` says whether data is left to walk.
    fn done(&mut self, more: bool) {
        if self.piece.is_null() {
            return;
        }
        let n = core::mem::take(&mut self.len);
        #[cfg(sm4rs_scatterwalk_next)]
        let _ = more;
        #[cfg(sm4rs_scatterwalk_next)]
        // SAFETY: a piece of `n` bytes is mapped (type invariant).
        unsafe {
            bindings::scatterwalk_done_src(&mut self.w, n)
        };
        #[cfg(not(sm4rs_scatterwalk_next))]
        // SAFETY: a piece of `n` bytes is mapped at `piece` (type invariant).
        unsafe {
            bindings::scatterwalk_unmap(self.piece.cast_mut().cast());
            bindings::scatterwalk_advance(&mut self.w, n);
            bindings::scatterwalk_done(&mut self.w, 0, core::ffi::c_int::from(more));
        };
        // INVARIANT: nothing mapped.
        self.piece = core::ptr::null();
    }
}
