// SPDX-License-Identifier: GPL-2.0

//! Authenticated encryption with associated data (`struct aead_alg`).
//!
//! C headers: [`include/crypto/aead.h`](srctree/include/crypto/aead.h),
//! [`include/crypto/internal/aead.h`](srctree/include/crypto/internal/aead.h).
//!
//! A driver implements [`Aead`] and registers it with [`Registration`]. A request's source
//! and destination each hold the associated data, then the text (then, for decryption, the
//! tag in the source; for encryption the tag goes to the destination after the text). Its
//! `encrypt`/`decrypt` get a [`Request`]: [`Request::for_each_ad`] hands the associated data
//! over in pieces, each an [`Input`] (a raw view: the caller's memory, which others may write
//! meanwhile), [`Request::walk`] walks the text as the skcipher walk does (in place or
//! out of place, a step of at most a page at a time, one NEON section per step), and
//! [`Request::finish`] ends it with the tag: written, or checked (`crypto_memneq()`,
//! `EBADMSG`). As with upstream's drivers, a decryption whose tag does not
//! match has written the text it decrypted to the destination; the caller gets `EBADMSG`
//! and must not use it.

use super::{
    alg::{ctx, exit_tfm, init_tfm, kind},
    bindings, byte_slice, name_array,
    shash::Input,
    simd::Simd,
    skcipher::{walk_span, Key, Span, Step, MAX_STEP},
    Block,
};
use core::{
    ffi::{c_int, c_uint, CStr},
    marker::PhantomData,
    mem::{align_of, size_of},
};
use kernel::error::{code::EINVAL, Error, Result};

/// `EBADMSG`: the tag does not match.
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
    /// The unit the mode works in (the walk hands over whole chunks but for the last step).
    const CHUNK_SIZE: u32;
    /// Smallest key length in bytes.
    const MIN_KEY_SIZE: u32;
    /// Largest key length in bytes.
    const MAX_KEY_SIZE: u32;
    /// The largest tag, in bytes (the default tag size of a new transform).
    const MAX_AUTH_SIZE: u32;

    /// The IV, e.g. `[u8; 12]`.
    type Iv: Block;
    /// Per-transform state (the expanded keys). Created with `Default`, dropped and wiped
    /// when the transform is freed.
    type Context: Default + Send + Sync;

    /// Sets the key; the crypto API has checked nothing but that the transform is not in
    /// use. `simd` is the right to use NEON (absent when the non-SIMD path is tested).
    fn set_key(ctx: &mut Self::Context, key: &Key<'_>, simd: &mut Simd) -> Result;

    /// Whether tags of `size` bytes are allowed (`setauthsize`; `size` is at most
    /// [`Aead::MAX_AUTH_SIZE`], the crypto API checked).
    fn check_auth_size(size: usize) -> Result;

    /// Encrypts the request and writes its tag.
    fn encrypt(ctx: &Self::Context, req: &mut Request<'_, Self::Iv>) -> Result;

    /// Decrypts the request and checks its tag.
    fn decrypt(ctx: &Self::Context, req: &mut Request<'_, Self::Iv>) -> Result;
}

/// The C callbacks of an [`Aead`].
struct Adapter<T: Aead>(PhantomData<T>);

impl<T: Aead> Adapter<T> {
    /// The algorithm as the C API sees it, without `cra_module` (set at registration).
    const ALG: bindings::aead_alg = {
        assert!(
            align_of::<T::Context>() <= super::CRYPTO_MINALIGN,
            "the context area is only aligned to CRYPTO_MINALIGN"
        );
        assert!(T::MIN_KEY_SIZE <= T::MAX_KEY_SIZE);
        assert!(T::MAX_AUTH_SIZE as usize <= MAX_TAG);
        // SAFETY: `aead_alg` is a C struct of integers, arrays, pointers and optional
        // function pointers, for all of which zero is valid.
        let mut alg: bindings::aead_alg = unsafe { core::mem::zeroed() };
        alg.setkey = Some(Self::setkey);
        alg.setauthsize = Some(Self::setauthsize);
        alg.encrypt = Some(Self::encrypt);
        alg.decrypt = Some(Self::decrypt);
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
    /// Called by the crypto API with a live transform (not used concurrently) and `len`
    /// readable bytes at `key`.
    unsafe extern "C" fn setkey(
        tfm: *mut bindings::crypto_aead,
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

    /// `setauthsize`: the crypto API stores the size if this accepts it.
    ///
    /// # Safety
    ///
    /// Called by the crypto API with a live transform.
    unsafe extern "C" fn setauthsize(_tfm: *mut bindings::crypto_aead, size: c_uint) -> c_int {
        match T::check_auth_size(size as usize) {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        }
    }

    /// Runs `f` on the request.
    ///
    /// # Safety
    ///
    /// `req` must be a valid request on a live transform of this algorithm, not used
    /// elsewhere during the call (what the crypto API guarantees to `encrypt`/`decrypt`).
    unsafe fn crypt(
        req: *mut bindings::aead_request,
        decrypt: bool,
        f: impl FnOnce(&T::Context, &mut Request<'_, T::Iv>) -> Result,
    ) -> c_int {
        // SAFETY: the request is valid, on a live transform.
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
        // SAFETY: the request's `crypto_tfm` is the `base` of its `crypto_aead`.
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
        // SAFETY: the transform is live and its context initialised by `init`; requests
        // only read it.
        let ctx = unsafe { &*ctx::<T::Context>(&raw mut (*tfm).base) };
        // INVARIANT: checked and guaranteed above.
        let mut r = Request {
            req,
            text,
            auth,
            decrypt,
            // SAFETY: no section is open in a crypto API callback; the request owns the
            // only `Simd`.
            simd: unsafe { Simd::new(false) },
            tag: TagPlace {
                p: core::ptr::null_mut(),
                sg: core::ptr::null_mut(),
                off: 0,
            },
            _p: PhantomData,
        };
        match f(ctx, &mut r) {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        }
    }

    /// # Safety
    ///
    /// Called by the crypto API with a valid request on a transform of this algorithm.
    unsafe extern "C" fn encrypt(req: *mut bindings::aead_request) -> c_int {
        // SAFETY: as guaranteed by the crypto API.
        unsafe { Self::crypt(req, false, T::encrypt) }
    }

    /// # Safety
    ///
    /// As for [`Self::encrypt`].
    unsafe extern "C" fn decrypt(req: *mut bindings::aead_request) -> c_int {
        // SAFETY: as guaranteed by the crypto API.
        unsafe { Self::crypt(req, true, T::decrypt) }
    }
}

/// The largest tag the abstraction handles (the block size of the ciphers it is used with).
pub const MAX_TAG: usize = 16;

// SAFETY: `crypto_register_aead()` and `crypto_unregister_aead()` register and unregister
// the algorithm an `aead_alg` describes.
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
/// `req` is a valid request, exclusively ours for `'a`, with a non-NULL IV of `Iv::SIZE`
/// bytes if that is not zero; `text` is the length of its text (`cryptlen`, less the tag
/// for a decryption), `auth` its tag size (at most [`MAX_TAG`]), and `assoclen + cryptlen`
/// does not overflow. `simd` is the callback's right to use NEON. `tag`, if not NULL, is
/// the tag's place in the kernel's linear map (as [`TagPlace`] says).
pub struct Request<'a, Iv: Block> {
    req: *mut bindings::aead_request,
    text: c_uint,
    auth: c_uint,
    decrypt: bool,
    simd: Simd,
    tag: TagPlace,
    _p: PhantomData<(&'a mut bindings::aead_request, Iv)>,
}

/// Where a request's tag lies in the kernel's linear map, found by [`Request::one_step`] for
/// a request in one piece: `p` the tag's `auth` bytes after the text (in the destination for
/// an encryption, writable; in the source for a decryption); the destination's text (and an
/// encryption's tag after it) in entry `sg` from byte `off` of its data on; `p` NULL if not
/// found.
struct TagPlace {
    p: *mut u8,
    sg: *mut bindings::scatterlist,
    off: c_uint,
}

impl<'a, Iv: Block> Request<'a, Iv> {
    /// The length of the associated data in bytes.
    pub fn assoc_len(&self) -> usize {
        // SAFETY: the request is valid by the type invariant.
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
    pub fn iv(&mut self) -> &Iv {
        if Iv::SIZE == 0 {
            // SAFETY: `Iv` is zero-sized, so any non-null, aligned pointer is valid for it.
            return unsafe { core::ptr::NonNull::<Iv>::dangling().as_ref() };
        }
        // SAFETY: the IV is non-NULL with `Iv::SIZE` bytes (type invariant); `Iv` is a byte
        // array, so any address is aligned for it.
        unsafe { &*(*self.req).iv.cast::<Iv>() }
    }

    /// The right to use NEON outside a walk.
    pub fn simd(&mut self) -> &mut Simd {
        &mut self.simd
    }

    /// Runs `f` on the request in one NEON section where the kernel's rule lets a section
    /// span the request's work (its associated data, walk and tag; see [`Simd::span`]) and
    /// that work is more than a step ([`MAX_STEP`]), with a section per [`Simd::neon`]
    /// otherwise. (A shorter request in one piece of memory, the common case, takes one
    /// section anyway; the spanning one would cost it some 50 instructions.)
    #[inline]
    pub fn in_one_section<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let want = self.assoc_len() + self.text as usize > MAX_STEP;
        super::simd::span_section(self, want, |r| &mut r.simd, f)
    }

    /// The associated data, if there is some and it lies in one scatterlist entry of the
    /// source with a permanent mapping (as kTLS and IPsec send it); `None` otherwise. A driver
    /// may then hash it in the NEON section of the text's first step instead of using
    /// [`Request::for_each_ad`].
    pub fn ad_in_one_piece(&self) -> Option<Input<'a>> {
        // SAFETY: the request is valid (type invariant).
        let (sg, len) = unsafe { ((*self.req).src, (*self.req).assoclen) };
        if len == 0 {
            return None;
        }
        // SAFETY: the source of a valid request describes at least `assoclen` bytes; the
        // helper only reads it.
        let p = unsafe { bindings::sg_linear(sg, len) };
        if p.is_null() {
            return None;
        }
        // SAFETY: `len` bytes at `p` in the linear map (permanently mapped) are the request's
        // associated data, which the caller keeps readable while the request is ours (`'a`).
        Some(unsafe { Input::new(p.cast_const().cast::<u8>(), len) })
    }

    /// Hands the associated data to `f` in order, in pieces of at most [`MAX_STEP`] bytes
    /// (each scatterlist entry's part of it, split at that size), with the right to use
    /// NEON on each; a request that may sleep gets a reschedule point between pieces (a
    /// driver opens one NEON section per piece). Pieces may have any length and alignment.
    pub fn for_each_ad(&mut self, mut f: impl FnMut(Input<'_>, &mut Simd) -> Result) -> Result {
        let mut left = self.assoc_len();
        // SAFETY: the request is valid (type invariant).
        let may_sleep = unsafe { (*self.req).base.flags } & bindings::CRYPTO_TFM_REQ_MAY_SLEEP != 0;
        // After a piece, with `more` to come.
        let pause = |more: bool| {
            if may_sleep && more {
                // SAFETY: the caller allows sleeping and no NEON section is open here.
                unsafe { bindings::cond_resched() };
            }
        };
        // SAFETY: the request is valid (type invariant).
        let mut sg = unsafe { (*self.req).src };
        let mut at = 0usize;
        while left > 0 {
            if sg.is_null() {
                return Err(EINVAL);
            }
            let mut len: c_uint = 0;
            // SAFETY: `sg` is an entry of the request's valid source scatterlist.
            let p = unsafe { bindings::sg_entry(sg, &mut len) };
            let n = (len as usize).min(left);
            if !p.is_null() {
                // SAFETY: the entry's `len >= n` bytes are mapped at `p` (permanently), and the
                // caller keeps the request's source readable while the request is ours.
                let mut data = unsafe { Input::new(p.cast_const().cast::<u8>(), n as c_uint) };
                let mut rest = left;
                while !data.is_empty() {
                    let (piece, tail) = data.split_at(MAX_STEP);
                    rest -= piece.len();
                    f(piece, &mut self.simd)?;
                    pause(rest > 0);
                    data = tail;
                }
            } else {
                // Without a permanent mapping (highmem): copied out a little at a time (the
                // buffer only here: zeroing it costs a short request some 80 instructions).
                let mut buf = [0u8; 256];
                let mut done = 0;
                while done < n {
                    let k = (n - done).min(buf.len());
                    let piece = buf.get_mut(..k).ok_or(EINVAL)?;
                    // SAFETY: the source holds `assoclen` bytes and `at + done + k` is
                    // within them; `piece` is writable for `k` bytes.
                    unsafe {
                        bindings::sg_copy(
                            piece.as_mut_ptr().cast(),
                            (*self.req).src,
                            (at + done) as c_uint,
                            k as c_uint,
                            0,
                        )
                    };
                    done += k;
                    f(Input::from_slice(piece), &mut self.simd)?;
                    pause(left > done);
                }
            }
            left -= n;
            at += n;
            // SAFETY: `sg` is a valid entry; `sg_next` gives the next one or NULL.
            sg = unsafe { bindings::sg_next(sg) };
        }
        Ok(())
    }

    /// The whole text as one step, if the request lies in one piece (see
    /// [`Request::one_piece`]: what kTLS, IPsec and most short requests send); its tag's
    /// place is then kept for [`Request::finish`], which flushes the destination's pages
    /// with the tag's. `None` otherwise (and for an empty text): use [`Request::walk`].
    pub fn one_step(&mut self) -> Option<Step<'_, [u8; 0]>> {
        let (src, dst) = self.one_piece()?;
        let n = self.text as usize;
        // SAFETY: the text's source and destination in the linear map, `n` bytes each, the
        // same or disjoint, the request's while it is ours (`one_piece`); no IV (`[u8; 0]`).
        Some(unsafe { Step::new(src, dst, n, n, core::ptr::null_mut(), &mut self.simd) })
    }

    /// Walks the text, as [`super::skcipher::Request::walk`] walks an skcipher's data: `f`
    /// gets each step (whole chunks but for the last step) and returns how many bytes at
    /// its end it left for the next one.
    pub fn walk(&mut self, f: impl FnMut(&mut Step<'_, [u8; 0]>) -> Result<usize>) -> Result {
        let req = self.req;
        // SAFETY: the request is valid (type invariant).
        let span = unsafe {
            Span {
                src: (*req).src,
                dst: (*req).dst,
                off: (*req).assoclen,
                len: self.text,
                iv: (*req).iv.cast(),
                flags: (*req).base.flags,
            }
        };
        let decrypt = self.decrypt;
        // SAFETY: the span is the request's text (the kernel's AEAD walks cover the same
        // bytes: `cryptlen`, less the tag when decrypting, after the associated data); the
        // request is ours; the steps get no IV (`[u8; 0]`).
        unsafe {
            walk_span::<[u8; 0], true>(
                &span,
                &mut self.simd,
                |w| {
                    if decrypt {
                        bindings::skcipher_walk_aead_decrypt(w, req, false)
                    } else {
                        bindings::skcipher_walk_aead_encrypt(w, req, false)
                    }
                },
                f,
            )
        }
    }

    /// Ends the request with `tag`, the tag computed: an encryption writes its first
    /// [`Request::auth_size`] bytes after the text in the destination; a decryption
    /// compares them with the request's (after the text in the source) in time independent
    /// of their contents, `EBADMSG` if they differ ([`end_with_tag`] either way).
    pub fn finish(&mut self, tag: &[u8; MAX_TAG]) -> Result {
        let decrypt = self.decrypt;
        if !self.tag.p.is_null() {
            let (p, sg, off) = (self.tag.p, self.tag.sg, self.tag.off);
            // SAFETY: `p` is the tag's place, `auth` bytes, writable for an encryption (type
            // invariant).
            let r = unsafe { end_with_tag(p, tag, self.auth, decrypt) };
            let n = if decrypt {
                self.text
            } else {
                self.text + self.auth
            };
            // SAFETY: the entry `sg` holds the destination's text, and an encryption's tag
            // after it, from byte `off` on (type invariant); the pages are flushed as the
            // walk and the scatterlist copy do.
            unsafe { bindings::sg_flush_dcache(sg, off, n) };
            return r;
        }
        // SAFETY: the request is valid (type invariant); `assoclen + text` does not overflow.
        let (list, at) = unsafe {
            let r = &*self.req;
            (if decrypt { r.src } else { r.dst }, r.assoclen + self.text)
        };
        let (mut sg, mut off) = (list, at);
        // SAFETY: the tag's scatterlist describes `assoclen + text + auth` bytes (the
        // destination of an encryption, the source of a decryption); the helper only reads
        // it and writes the two locals.
        let linear = unsafe { bindings::sg_linear_at(&mut sg, &mut off, self.auth) };
        let mut copy = super::Secret::<MAX_TAG>::zeroed();
        let p = if linear.is_null() {
            copy.as_mut_ptr()
        } else {
            linear.cast::<u8>()
        };
        if linear.is_null() && decrypt {
            // SAFETY: the source holds the tag's `auth <= MAX_TAG` bytes at `at`; `copy` has
            // room for them.
            unsafe { bindings::sg_copy(p.cast(), list, at, self.auth, 0) };
        }
        // SAFETY: `p` is the tag's place, `auth` bytes: in the linear map (the destination's,
        // ours to write, or the source's) or the copy.
        let r = unsafe { end_with_tag(p, tag, self.auth, decrypt) };
        if !decrypt {
            if linear.is_null() {
                // SAFETY: the destination holds `assoclen + cryptlen + authsize` bytes for an
                // encryption; `copy` holds the tag's `auth` bytes and is only read.
                unsafe { bindings::sg_copy(p.cast(), list, at, self.auth, 1) };
            } else {
                // SAFETY: the entry `sg` holds the bytes just written, from byte `off` of its
                // data on; the page is flushed as the kernel's scatterlist copy does.
                unsafe { bindings::sg_flush_dcache(sg, off, self.auth) };
            }
        }
        r
    }

    /// The text and the tag in the kernel's linear map, if the text is at most [`MAX_STEP`]
    /// bytes (a page) and lies, with the tag after it where the tag is (the destination of
    /// an encryption, the source of a decryption), in one entry of each scatterlist, with a
    /// permanent mapping: then the text's source and destination (the same memory or
    /// disjoint); the tag's place, and the destination's entry and the text's offset in it,
    /// kept in `self.tag`. `None` otherwise, and for an empty text.
    fn one_piece(&mut self) -> Option<(*const u8, *mut u8)> {
        let (text, auth) = (self.text, self.auth);
        if text == 0 || text as usize > MAX_STEP {
            return None;
        }
        // SAFETY: the request is valid (type invariant).
        let (src_sg, dst_sg, ad_len) =
            unsafe { ((*self.req).src, (*self.req).dst, (*self.req).assoclen) };
        let (tag_sg, other_sg) = if self.decrypt {
            (src_sg, dst_sg)
        } else {
            (dst_sg, src_sg)
        };
        let (mut sg, mut off) = (tag_sg, ad_len);
        // SAFETY: the scatterlist holding the tag describes `assoclen + text + auth` bytes
        // (`text + auth` does not overflow: the text is at most a page, the tag at most
        // `MAX_TAG`); the helper only reads it and writes the two locals.
        let with_tag = unsafe { bindings::sg_linear_at(&mut sg, &mut off, text + auth) };
        if with_tag.is_null() {
            return None;
        }
        let other = if other_sg == tag_sg {
            with_tag
        } else {
            let (mut osg, mut ooff) = (other_sg, ad_len);
            // SAFETY: the other scatterlist describes at least `assoclen + text` bytes; as
            // above.
            let p = unsafe { bindings::sg_linear_at(&mut osg, &mut ooff, text) };
            if p.is_null() {
                return None;
            }
            if self.decrypt {
                // The destination's entry, for the flush (an encryption's is the tag's).
                (sg, off) = (osg, ooff);
            }
            p
        };
        // INVARIANT: the tag's `auth` bytes after the text; `sg`/`off` the destination's
        // entry and the text's offset in it, with an encryption's tag after the text.
        self.tag = TagPlace {
            p: with_tag.cast::<u8>().wrapping_add(text as usize),
            sg,
            off,
        };
        let (src, dst) = if self.decrypt {
            (with_tag, other)
        } else {
            (other, with_tag)
        };
        Some((src.cast_const().cast::<u8>(), dst.cast::<u8>()))
    }
}

/// The tag moved, in one place: for an encryption, the first `auth` bytes of `tag` written
/// at `p`; for a decryption, compared with the `auth` bytes at `p` with `crypto_memneq()`
/// (time independent of their contents), `EBADMSG` if they differ.
///
/// # Safety
///
/// `auth <= MAX_TAG`; `p` is valid for `auth` bytes: writable for an encryption, readable
/// for a decryption.
unsafe fn end_with_tag(p: *mut u8, tag: &[u8; MAX_TAG], auth: c_uint, decrypt: bool) -> Result {
    if !decrypt {
        // SAFETY: `p` is writable for `auth <= MAX_TAG` bytes (caller), `tag` is another
        // object.
        unsafe { core::ptr::copy_nonoverlapping(tag.as_ptr(), p, auth as usize) };
        return Ok(());
    }
    // SAFETY: both are readable for `auth <= MAX_TAG` bytes (caller).
    let differ = unsafe {
        bindings::crypto_memneq(tag.as_ptr().cast(), p.cast_const().cast(), auth as usize)
    };
    if differ {
        Err(ebadmsg())
    } else {
        Ok(())
    }
}
