// SPDX-License-Identifier: GPL-2.0

//! Test clients of the crypto API: transforms allocated by name and used synchronously, for
//! KUnit suites. Only the test modules include this file (as `crate::testing`); drivers
//! never need it, so production modules carry none of it.
//!
//! Every call that runs an algorithm (set a key, encrypt, decrypt, digest) first asks
//! [`outside_section`]: called from inside a kernel-mode NEON section (a test algorithm's
//! closure is safe code), it fails with `EDEADLK` instead of reaching a C driver, whose
//! `kernel_neon_begin()` would BUG. The `*_in_section` variants skip the question, for the
//! tests of this abstraction's drivers, which must refuse by themselves.

use crate::bindings;
use crate::crypto::c_str_ptr;
use crate::crypto::outside_section;
use core::{
    ffi::{c_uint, CStr},
    mem::size_of,
    ptr,
};
use kernel::{
    alloc::{flags::GFP_KERNEL, KBox, KVec},
    error::{code::EINVAL, to_result, Result},
};

/// The driver name of the algorithm of `tfm`.
///
/// # Safety
///
/// `tfm` must be a live transform, and stay so while the name is used.
unsafe fn driver_name<'a>(tfm: *mut bindings::crypto_tfm) -> &'a CStr {
    // SAFETY: the transform and its algorithm are live (caller).
    let name = unsafe { &(*(*tfm).__crt_alg).cra_driver_name };
    // SAFETY: the array is initialised `c_char`s, which have the size of `u8`.
    let bytes = unsafe { core::slice::from_raw_parts(name.as_ptr().cast::<u8>(), name.len()) };
    CStr::from_bytes_until_nul(bytes).unwrap_or(c"")
}

/// A transform of a registered cipher, for tests: allocated by driver name, used one block
/// at a time through the algorithm's own callbacks.
///
/// # Invariants
///
/// `tfm` is a live single-block cipher transform owned by this object.
pub struct CipherTfm {
    tfm: *mut bindings::crypto_tfm,
}

impl CipherTfm {
    /// Allocates a transform of the cipher with driver (or algorithm) name `name`.
    pub fn new(name: &CStr) -> Result<Self> {
        // SAFETY: `name` is a valid C string; the type and mask select a cipher.
        let tfm = unsafe {
            bindings::crypto_alloc_base(
                c_str_ptr(name),
                bindings::CRYPTO_ALG_TYPE_CIPHER,
                bindings::CRYPTO_ALG_TYPE_MASK,
            )
        };
        let tfm = kernel::error::from_err_ptr(tfm)?;
        // INVARIANT: a successful allocation gives a live cipher transform.
        Ok(Self { tfm })
    }

    fn alg(&self) -> &bindings::cipher_alg {
        // SAFETY: by the type invariant `tfm` is live, its algorithm is a cipher, and the
        // algorithm outlives the transform.
        unsafe { &(*(*self.tfm).__crt_alg).cra_u.cipher }
    }

    /// Sets the key through the driver's `cia_setkey` (no length check by the API).
    pub fn set_key(&mut self, key: &[u8]) -> Result {
        outside_section()?;
        let setkey = self.alg().cia_setkey.ok_or(EINVAL)?;
        let len = c_uint::try_from(key.len()).map_err(|_| EINVAL)?;
        // SAFETY: the transform is live and exclusively ours; `key` is `len` bytes.
        to_result(unsafe { setkey(self.tfm, key.as_ptr(), len) })
    }

    /// Calls the driver's `cia_setkey` with a NULL key of length 0 (what a C caller may
    /// pass): it must refuse the key without making anything of the pointer.
    pub fn set_null_key(&mut self) -> Result {
        outside_section()?;
        let setkey = self.alg().cia_setkey.ok_or(EINVAL)?;
        // SAFETY: the transform is live and exclusively ours; the length is 0.
        to_result(unsafe { setkey(self.tfm, ptr::null(), 0) })
    }

    /// Encrypts `block` in place; `block` must be exactly one cipher block.
    pub fn encrypt(&self, block: &mut [u8]) -> Result {
        outside_section()?;
        self.crypt(block, self.alg().cia_encrypt)
    }

    /// As [`CipherTfm::encrypt`], without asking [`outside_section`]: for a test that calls
    /// one of this abstraction's ciphers from inside a section, which it must survive.
    ///
    /// # Safety
    ///
    /// If a kernel-mode NEON section is open, the cipher must be one of this abstraction's
    /// (which opens no section inside another).
    pub unsafe fn encrypt_in_section(&self, block: &mut [u8]) -> Result {
        self.crypt(block, self.alg().cia_encrypt)
    }

    /// Decrypts `block` in place; `block` must be exactly one cipher block.
    pub fn decrypt(&self, block: &mut [u8]) -> Result {
        outside_section()?;
        self.crypt(block, self.alg().cia_decrypt)
    }

    /// Encrypts `src` into `dst`, a buffer of its own; each must be exactly one cipher block.
    pub fn encrypt_to(&self, dst: &mut [u8], src: &[u8]) -> Result {
        outside_section()?;
        self.crypt_to(dst, src, self.alg().cia_encrypt)
    }

    /// Decrypts `src` into `dst`, as [`CipherTfm::encrypt_to`].
    pub fn decrypt_to(&self, dst: &mut [u8], src: &[u8]) -> Result {
        outside_section()?;
        self.crypt_to(dst, src, self.alg().cia_decrypt)
    }

    fn crypt(&self, block: &mut [u8], f: Option<CipherFn>) -> Result {
        self.check_block(block.len())?;
        let p = block.as_mut_ptr();
        // SAFETY: `p` is one writable block; in-place operation is allowed.
        unsafe { f.ok_or(EINVAL)?(self.tfm, p, p) };
        Ok(())
    }

    fn crypt_to(&self, dst: &mut [u8], src: &[u8], f: Option<CipherFn>) -> Result {
        self.check_block(dst.len())?;
        self.check_block(src.len())?;
        // SAFETY: one readable and one writable block, disjoint (`dst` is borrowed mutably).
        unsafe { f.ok_or(EINVAL)?(self.tfm, dst.as_mut_ptr(), src.as_ptr()) };
        Ok(())
    }

    fn check_block(&self, len: usize) -> Result {
        // SAFETY: the transform and its algorithm are live.
        let bs = unsafe { (*(*self.tfm).__crt_alg).cra_blocksize } as usize;
        if len == bs {
            Ok(())
        } else {
            Err(EINVAL)
        }
    }
}

/// Whether `t` takes `plain` to `cipher` and back out of place, from a source at byte `j % 8`
/// of an 8-byte aligned buffer to a destination at byte `3j % 8` of another (eight calls meet
/// every alignment of each, and both aligned), leaving the source as it was.
pub fn cipher_out_of_place(t: &CipherTfm, plain: &[u8; 16], cipher: &[u8; 16], j: usize) -> bool {
    #[repr(C, align(8))]
    struct Buf([u8; 24]);
    let (s, d) = (j % 8, 3 * j % 8);
    let (mut src, mut dst) = (Buf([0; 24]), Buf([0; 24]));
    let (src, dst) = (&mut src.0[s..s + 16], &mut dst.0[d..d + 16]);
    src.copy_from_slice(plain);
    let enc = t.encrypt_to(dst, src).is_ok();
    let (enc_ok, src_kept) = (dst == cipher, src == plain);
    src.copy_from_slice(cipher);
    let dec = t.decrypt_to(dst, src).is_ok();
    enc && enc_ok && src_kept && dec && dst == plain
}

/// A cipher's `cia_encrypt` or `cia_decrypt`.
type CipherFn = unsafe extern "C" fn(*mut bindings::crypto_tfm, *mut u8, *const u8);

impl Drop for CipherTfm {
    fn drop(&mut self) {
        // SAFETY: by the type invariant the transform is live and owned by us.
        unsafe { bindings::crypto_destroy_tfm(self.tfm.cast(), self.tfm) };
    }
}

/// A transform of a registered skcipher, for tests: allocated by name, used synchronously
/// on buffers given as scatterlists of chosen piece sizes.
///
/// # Invariants
///
/// `tfm` is a live skcipher transform owned by this object.
pub struct SkcipherTfm {
    tfm: *mut bindings::crypto_skcipher,
}

impl SkcipherTfm {
    /// Allocates a synchronous transform of the skcipher with driver or algorithm name `name`.
    pub fn new(name: &CStr) -> Result<Self> {
        // SAFETY: `name` is a valid C string; mask out asynchronous implementations.
        let tfm = unsafe {
            bindings::crypto_alloc_skcipher(c_str_ptr(name), 0, bindings::CRYPTO_ALG_ASYNC)
        };
        let tfm = kernel::error::from_err_ptr(tfm)?;
        // INVARIANT: a successful allocation gives a live transform.
        Ok(Self { tfm })
    }

    /// The driver name of the implementation.
    pub fn driver_name(&self) -> &CStr {
        // SAFETY: the transform is live.
        unsafe { driver_name(&raw mut (*self.tfm).base) }
    }

    /// What the implementation registered: its names, priority and sizes.
    pub fn params(&self) -> AlgParams {
        // SAFETY: the transform and its algorithm are live; an skcipher transform's algorithm
        // is the `base` of an `skcipher_alg`, whose common part is `co`.
        let alg = unsafe {
            &*(*self.tfm)
                .base
                .__crt_alg
                .cast::<u8>()
                .sub(core::mem::offset_of!(
                    bindings::skcipher_alg,
                    __bindgen_anon_1.co.base
                ))
                .cast::<bindings::skcipher_alg>()
        };
        // SAFETY: `co` is the active member of every registered skcipher's description.
        let co = unsafe { &alg.__bindgen_anon_1.co };
        AlgParams {
            priority: co.base.cra_priority,
            block_size: co.base.cra_blocksize,
            iv_size: co.ivsize,
            chunk_size: co.chunksize,
            walk_size: alg.walksize,
            min_key: co.min_keysize,
            max_key: co.max_keysize,
            async_: co.base.cra_flags & bindings::CRYPTO_ALG_ASYNC != 0,
        }
    }

    /// Sets the key (`crypto_skcipher_setkey()`).
    pub fn set_key(&mut self, key: &[u8]) -> Result {
        outside_section()?;
        let len = c_uint::try_from(key.len()).map_err(|_| EINVAL)?;
        // SAFETY: the transform is live and `key` is `len` bytes.
        to_result(unsafe { bindings::crypto_skcipher_setkey(self.tfm, key.as_ptr(), len) })
    }

    /// Sets or clears `CRYPTO_TFM_REQ_FORBID_WEAK_KEYS`.
    pub fn forbid_weak_keys(&mut self, on: bool) {
        // SAFETY: the transform is live and not in use.
        let flags = unsafe { &mut (*self.tfm).base.crt_flags };
        if on {
            *flags |= bindings::CRYPTO_TFM_REQ_FORBID_WEAK_KEYS;
        } else {
            *flags &= !bindings::CRYPTO_TFM_REQ_FORBID_WEAK_KEYS;
        }
    }

    /// Encrypts `src` into `dst` (or in place if `dst` is `None`), both given as
    /// scatterlists cut into pieces of the sizes in `pieces` (cycled); `iv` (of the
    /// algorithm's IV size, or empty for a NULL IV) is updated with the IV the request
    /// leaves.
    pub fn encrypt(
        &self,
        src: &mut KVec<u8>,
        dst: Option<&mut KVec<u8>>,
        iv: &mut [u8],
        pieces: &[usize],
    ) -> Result {
        let mut req = self.request(src, dst, iv, pieces)?;
        let r = req.encrypt();
        req.iv_out(iv);
        r
    }

    /// Decrypts, as [`SkcipherTfm::encrypt`].
    pub fn decrypt(
        &self,
        src: &mut KVec<u8>,
        dst: Option<&mut KVec<u8>>,
        iv: &mut [u8],
        pieces: &[usize],
    ) -> Result {
        let mut req = self.request(src, dst, iv, pieces)?;
        let r = req.decrypt();
        req.iv_out(iv);
        r
    }

    /// A request over `src` and `dst` (in place if `None`), cut into scatterlist pieces of
    /// the sizes in `pieces` (cycled), with the IV `iv` (empty for NULL). Everything it
    /// needs is allocated here, so it can then run where allocating is not allowed.
    pub fn request<'a>(
        &'a self,
        src: &'a mut KVec<u8>,
        dst: Option<&'a mut KVec<u8>>,
        iv: &[u8],
        pieces: &[usize],
    ) -> Result<TestRequest<'a>> {
        let len = src.len();
        if let Some(d) = &dst {
            if d.len() != len {
                return Err(EINVAL);
            }
        }
        // SAFETY: the transform is live.
        let reqsize = unsafe { (*self.tfm).reqsize } as usize;
        // The IV goes to the heap, in a buffer of the largest IV size (`MAX_IVLEN`), so a
        // short `iv` cannot make the driver read past it; one byte in (misaligned, as in
        // testmgr's unaligned configurations) when the data is cut in pieces. An empty `iv`
        // is passed as NULL, as callers of modes without an IV (ECB) do.
        let ivoff = usize::from(pieces != [usize::MAX]);
        let mut ivbuf = KVec::from_elem(0u8, 32 + ivoff, GFP_KERNEL)?;
        let ivsize = iv.len().min(32);
        ivbuf[ivoff..ivoff + ivsize].copy_from_slice(&iv[..ivsize]);
        let ivptr = if iv.is_empty() {
            ptr::null_mut()
        } else {
            // SAFETY: `ivoff + 32` bytes are allocated.
            unsafe { ivbuf.as_mut_ptr().add(ivoff) }
        };
        let src_sg = Sgl::new(src.as_mut_ptr(), len, pieces)?;
        let dst_sg = match dst {
            Some(d) => Some(Sgl::new(d.as_mut_ptr(), len, pieces)?),
            None => None,
        };
        // A request with its context, zeroed (no callback: the transform is synchronous).
        let words = (size_of::<bindings::skcipher_request>() + reqsize).div_ceil(8);
        let mut mem = KVec::<u64>::from_elem(0, words, GFP_KERNEL)?;
        let req = mem.as_mut_ptr().cast::<bindings::skcipher_request>();
        let src_ptr = src_sg.as_ptr();
        let dst_ptr = dst_sg.as_ref().map_or(src_ptr, |d| d.as_ptr());
        // SAFETY: `req` is zeroed memory of the request's size and alignment; this fills in
        // what `skcipher_request_set_tfm()` and `skcipher_request_set_crypt()` would.
        unsafe {
            (*req).base.tfm = &raw mut (*self.tfm).base;
            (*req).src = src_ptr;
            (*req).dst = dst_ptr;
            (*req).cryptlen = len as c_uint;
            (*req).iv = ivptr;
        }
        Ok(TestRequest {
            mem,
            ivbuf,
            ivoff,
            ivsize,
            _sg: (src_sg, dst_sg),
            _p: core::marker::PhantomData,
        })
    }
}

/// What an skcipher implementation registered (see [`SkcipherTfm::params`]).
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub struct AlgParams {
    /// `cra_priority`.
    pub priority: i32,
    /// `cra_blocksize`.
    pub block_size: u32,
    /// `ivsize`.
    pub iv_size: u32,
    /// `chunksize`.
    pub chunk_size: u32,
    /// `walksize`.
    pub walk_size: u32,
    /// `min_keysize`.
    pub min_key: u32,
    /// `max_keysize`.
    pub max_key: u32,
    /// `CRYPTO_ALG_ASYNC`.
    pub async_: bool,
}

/// A synchronous skcipher request whose memory is all allocated (see
/// [`SkcipherTfm::request`]).
///
/// # Invariants
///
/// `mem` holds a complete request on a live transform that outlives `'a`, over buffers and
/// scatterlists (`_sg`) that live as long as this object, with `ivbuf` from byte `ivoff` as
/// its IV (or NULL).
pub struct TestRequest<'a> {
    mem: KVec<u64>,
    ivbuf: KVec<u8>,
    ivoff: usize,
    ivsize: usize,
    _sg: (Sgl, Option<Sgl>),
    _p: core::marker::PhantomData<&'a mut [u8]>,
}

impl TestRequest<'_> {
    fn req(&mut self) -> *mut bindings::skcipher_request {
        self.mem.as_mut_ptr().cast()
    }

    /// Encrypts (`crypto_skcipher_encrypt()`); allocates nothing.
    pub fn encrypt(&mut self) -> Result {
        outside_section()?;
        // SAFETY: no section is open (checked).
        unsafe { self.encrypt_in_section() }
    }

    /// As [`TestRequest::encrypt`], without asking [`outside_section`]: for a test that
    /// sends requests to this abstraction's skciphers from inside a section, which they must
    /// refuse.
    ///
    /// # Safety
    ///
    /// If a kernel-mode NEON section is open, the algorithm must be one of this
    /// abstraction's (which opens no section inside another).
    pub unsafe fn encrypt_in_section(&mut self) -> Result {
        // SAFETY: the request is complete (type invariant); the call is synchronous.
        to_result(unsafe { bindings::crypto_skcipher_encrypt(self.req()) })
    }

    /// Decrypts (`crypto_skcipher_decrypt()`); allocates nothing.
    pub fn decrypt(&mut self) -> Result {
        outside_section()?;
        // SAFETY: as for `encrypt`.
        to_result(unsafe { bindings::crypto_skcipher_decrypt(self.req()) })
    }

    /// Sets or clears `CRYPTO_TFM_REQ_MAY_SLEEP`: whether the driver may sleep (and so should
    /// offer reschedule points) while it serves the request.
    pub fn set_may_sleep(&mut self, on: bool) {
        let req = self.req();
        // SAFETY: the request is complete and not running (type invariant, `&mut self`).
        let flags = unsafe { &mut (*req).base.flags };
        if on {
            *flags |= bindings::CRYPTO_TFM_REQ_MAY_SLEEP;
        } else {
            *flags &= !bindings::CRYPTO_TFM_REQ_MAY_SLEEP;
        }
    }

    /// Copies the IV the request left into `iv` (at most the IV's size).
    pub fn iv_out(&self, iv: &mut [u8]) {
        let n = iv.len().min(self.ivsize);
        iv[..n].copy_from_slice(&self.ivbuf[self.ivoff..self.ivoff + n]);
    }
}

impl Drop for SkcipherTfm {
    fn drop(&mut self) {
        // SAFETY: by the type invariant the transform is live and owned by us.
        unsafe { bindings::crypto_destroy_tfm(self.tfm.cast(), &raw mut (*self.tfm).base) };
    }
}

/// A transform of a registered AEAD, for tests: allocated by name, used synchronously on a
/// buffer holding the associated data, the text and (for decryption) the tag, given as
/// scatterlists of chosen piece sizes.
///
/// # Invariants
///
/// `tfm` is a live AEAD transform owned by this object.
pub struct AeadTfm {
    tfm: *mut bindings::crypto_aead,
}

impl AeadTfm {
    /// Allocates a synchronous transform of the AEAD with driver or algorithm name `name`.
    pub fn new(name: &CStr) -> Result<Self> {
        // SAFETY: `name` is a valid C string; mask out asynchronous implementations.
        let tfm =
            unsafe { bindings::crypto_alloc_aead(c_str_ptr(name), 0, bindings::CRYPTO_ALG_ASYNC) };
        let tfm = kernel::error::from_err_ptr(tfm)?;
        // INVARIANT: a successful allocation gives a live transform.
        Ok(Self { tfm })
    }

    /// The driver name of the implementation (for a template instance, e.g.
    /// `rfc4106(gcm-sm4-ce)`).
    pub fn driver_name(&self) -> &CStr {
        // SAFETY: the transform is live.
        unsafe { driver_name(&raw mut (*self.tfm).base) }
    }

    /// Sets the key (`crypto_aead_setkey()`).
    pub fn set_key(&mut self, key: &[u8]) -> Result {
        outside_section()?;
        let len = c_uint::try_from(key.len()).map_err(|_| EINVAL)?;
        // SAFETY: the transform is live and `key` is `len` bytes.
        to_result(unsafe { bindings::crypto_aead_setkey(self.tfm, key.as_ptr(), len) })
    }

    /// Sets the tag size (`crypto_aead_setauthsize()`).
    pub fn set_auth_size(&mut self, size: usize) -> Result {
        let size = c_uint::try_from(size).map_err(|_| EINVAL)?;
        // SAFETY: the transform is live and not in use.
        to_result(unsafe { bindings::crypto_aead_setauthsize(self.tfm, size) })
    }

    /// Runs `op` on the request over `src` (the associated data, `assoc` bytes, then the text
    /// and room for the tag, or the text and the tag) into `dst` (in place if `None`; as long
    /// as `src`), with `cryptlen` bytes after the associated data (the text, or for
    /// decryption the text and the tag) and the IV `iv` (copied to a 32-byte heap buffer),
    /// both scatterlists cut into pieces of the sizes in `pieces` (cycled).
    #[allow(clippy::too_many_arguments)]
    pub fn crypt(
        &self,
        op: AeadOp,
        src: &mut KVec<u8>,
        dst: Option<&mut KVec<u8>>,
        assoc: usize,
        cryptlen: usize,
        iv: &[u8],
        pieces: &[usize],
    ) -> Result {
        outside_section()?;
        let len = src.len();
        if dst.as_ref().is_some_and(|d| d.len() != len) || iv.len() > 32 {
            return Err(EINVAL);
        }
        // SAFETY: the transform is live.
        let reqsize = unsafe { (*self.tfm).reqsize } as usize;
        let mut ivbuf = KVec::from_elem(0u8, 32, GFP_KERNEL)?;
        ivbuf[..iv.len()].copy_from_slice(iv);
        let src_sg = Sgl::new(src.as_mut_ptr(), len, pieces)?;
        let dst_sg = match dst {
            Some(d) => Some(Sgl::new(d.as_mut_ptr(), len, pieces)?),
            None => None,
        };
        let words = (size_of::<bindings::aead_request>() + reqsize).div_ceil(8);
        let mut mem = KVec::<u64>::from_elem(0, words, GFP_KERNEL)?;
        let req = mem.as_mut_ptr().cast::<bindings::aead_request>();
        let src_ptr = src_sg.as_ptr();
        let dst_ptr = dst_sg.as_ref().map_or(src_ptr, |d| d.as_ptr());
        // SAFETY: `req` is zeroed memory of the request's size and alignment; this fills in
        // what `aead_request_set_tfm()`, `aead_request_set_crypt()` and
        // `aead_request_set_ad()` would. The buffers, scatterlists and IV outlive the call.
        unsafe {
            (*req).base.tfm = &raw mut (*self.tfm).base;
            (*req).src = src_ptr;
            (*req).dst = dst_ptr;
            (*req).assoclen = c_uint::try_from(assoc).map_err(|_| EINVAL)?;
            (*req).cryptlen = c_uint::try_from(cryptlen).map_err(|_| EINVAL)?;
            (*req).iv = ivbuf.as_mut_ptr();
        }
        // SAFETY: the request is complete; the transform is synchronous. The algorithm of a
        // live AEAD transform is the `base` of a live `aead_alg` (`crypto_aead_alg()`), and
        // its `decrypt` takes any complete request of it.
        to_result(unsafe {
            match op {
                AeadOp::Encrypt => bindings::crypto_aead_encrypt(req),
                AeadOp::Decrypt => bindings::crypto_aead_decrypt(req),
                AeadOp::DecryptAtDriver => {
                    let alg = (*self.tfm)
                        .base
                        .__crt_alg
                        .cast::<u8>()
                        .wrapping_sub(core::mem::offset_of!(bindings::aead_alg, base))
                        .cast::<bindings::aead_alg>();
                    match (*alg).decrypt {
                        Some(f) => f(req),
                        None => EINVAL.to_errno(),
                    }
                }
            }
        })
    }
}

/// What [`AeadTfm::crypt`] asks of the algorithm.
#[derive(Clone, Copy)]
pub enum AeadOp {
    /// `crypto_aead_encrypt()`.
    Encrypt,
    /// `crypto_aead_decrypt()`.
    Decrypt,
    /// A decryption handed to the driver's `decrypt` callback itself, without the checks
    /// `crypto_aead_decrypt()` makes first (a key set, `cryptlen` at least the tag size):
    /// what the driver must refuse by itself.
    DecryptAtDriver,
}

impl Drop for AeadTfm {
    fn drop(&mut self) {
        // SAFETY: by the type invariant the transform is live and owned by us.
        unsafe { bindings::crypto_destroy_tfm(self.tfm.cast(), &raw mut (*self.tfm).base) };
    }
}

/// A scatterlist over a heap buffer, cut into pieces.
struct Sgl {
    sg: KVec<bindings::scatterlist>,
}

impl Sgl {
    /// Describes `len` bytes at `buf` (kmalloc'd memory) in pieces of the sizes in
    /// `pieces`, cycled (a piece of 0 is taken as 1).
    fn new(buf: *mut u8, len: usize, pieces: &[usize]) -> Result<Self> {
        let mut sizes = KVec::new();
        let mut off = 0;
        let mut i = 0;
        while off < len || sizes.is_empty() {
            let p = pieces
                .get(i % pieces.len().max(1))
                .copied()
                .unwrap_or(len)
                .max(1);
            let p = p.min(len - off);
            sizes.push(p, GFP_KERNEL)?;
            off += p;
            i += 1;
            if len == 0 {
                break;
            }
        }
        let n = sizes.len();
        // SAFETY: all-zero is a valid scatterlist entry before `sg_init_table`.
        let mut sg = KVec::from_elem(unsafe { core::mem::zeroed() }, n, GFP_KERNEL)?;
        // SAFETY: `sg` has `n` entries.
        unsafe { bindings::sg_init_table(sg.as_mut_ptr(), n as c_uint) };
        let mut off = 0;
        for (k, &size) in sizes.iter().enumerate() {
            // SAFETY: `buf + off` is in the kmalloc'd buffer; `sg_init_one` sets one entry
            // for it (and marks it as the end, undone below for all but the last).
            unsafe { bindings::sg_init_one(&raw mut sg[k], buf.add(off).cast(), size as c_uint) };
            if k + 1 < n {
                clear_bits(&mut sg[k].page_link, bindings::SG_END as u8);
            }
            off += size;
        }
        Ok(Self { sg })
    }

    fn as_ptr(&self) -> *mut bindings::scatterlist {
        self.sg.as_ptr().cast_mut()
    }
}

/// A transform of a registered synchronous hash or MAC, for tests: allocated by name,
/// digests computed at once or over several updates.
///
/// # Invariants
///
/// `tfm` is a live shash transform owned by this object.
pub struct ShashTfm {
    tfm: *mut bindings::crypto_shash,
}

impl ShashTfm {
    /// Allocates a transform of the shash with driver or algorithm name `name`.
    pub fn new(name: &CStr) -> Result<Self> {
        // SAFETY: `name` is a valid C string.
        let tfm = unsafe { bindings::crypto_alloc_shash(c_str_ptr(name), 0, 0) };
        let tfm = kernel::error::from_err_ptr(tfm)?;
        // INVARIANT: a successful allocation gives a live transform.
        Ok(Self { tfm })
    }

    /// Sets the key (`crypto_shash_setkey()`).
    pub fn set_key(&mut self, key: &[u8]) -> Result {
        outside_section()?;
        let len = c_uint::try_from(key.len()).map_err(|_| EINVAL)?;
        // SAFETY: the transform is live and exclusively ours; `key` is `len` bytes.
        to_result(unsafe { bindings::crypto_shash_setkey(self.tfm, key.as_ptr(), len) })
    }

    /// Sets a NULL key of length 0 (`crypto_shash_setkey()` hands it to the driver as it
    /// is): it must be refused without anything made of the pointer.
    pub fn set_null_key(&mut self) -> Result {
        outside_section()?;
        // SAFETY: the transform is live and exclusively ours; the length is 0.
        to_result(unsafe { bindings::crypto_shash_setkey(self.tfm, ptr::null(), 0) })
    }

    /// A zeroed descriptor for the transform, in 8-byte words (every call that runs the
    /// algorithm starts here, so [`outside_section`] is asked here).
    fn desc(&self) -> Result<KVec<u64>> {
        outside_section()?;
        // SAFETY: the transform is live.
        let descsize = unsafe { bindings::crypto_shash_descsize(self.tfm) } as usize;
        let words = (size_of::<bindings::shash_desc>() + descsize).div_ceil(8);
        let mut mem = KVec::<u64>::from_elem(0, words, GFP_KERNEL)?;
        let desc = mem.as_mut_ptr().cast::<bindings::shash_desc>();
        // SAFETY: `desc` is zeroed memory of the descriptor's size and alignment.
        unsafe { (*desc).tfm = self.tfm };
        Ok(mem)
    }

    /// The digest of `data`, given to the algorithm in updates of the sizes in `pieces`
    /// (cycled; empty: one `crypto_shash_digest()` call), into `out` (the digest size).
    pub fn digest(&self, data: &[u8], pieces: &[usize], out: &mut [u8]) -> Result {
        let mut mem = self.desc()?;
        let desc = mem.as_mut_ptr().cast::<bindings::shash_desc>();
        // SAFETY: the transform is live.
        if out.len() != unsafe { bindings::crypto_shash_digestsize(self.tfm) } as usize {
            return Err(EINVAL);
        }
        let len = c_uint::try_from(data.len()).map_err(|_| EINVAL)?;
        if pieces.is_empty() {
            // SAFETY: `desc` is a descriptor of the live transform; `data` is `len` bytes
            // and `out` the digest size.
            return to_result(unsafe {
                bindings::crypto_shash_digest(desc, data.as_ptr(), len, out.as_mut_ptr())
            });
        }
        // SAFETY: as above.
        to_result(unsafe { bindings::crypto_shash_init(desc) })?;
        let mut rest = data;
        let mut i = 0;
        while !rest.is_empty() {
            let n = pieces[i % pieces.len()].clamp(1, rest.len());
            let (p, r) = rest.split_at(n);
            // SAFETY: `p` is `n` readable bytes; the descriptor is initialised.
            to_result(unsafe { bindings::crypto_shash_update(desc, p.as_ptr(), n as c_uint) })?;
            rest = r;
            i += 1;
        }
        // SAFETY: the descriptor is initialised; `out` is the digest size.
        to_result(unsafe { bindings::crypto_shash_final(desc, out.as_mut_ptr()) })
    }

    /// Takes in `data` (one update) in a new descriptor and exports its state into `state`
    /// (exactly the algorithm's state size).
    pub fn export_after(&self, data: &[u8], state: &mut [u8]) -> Result {
        let mut mem = self.desc()?;
        let desc = mem.as_mut_ptr().cast::<bindings::shash_desc>();
        // SAFETY: the transform is live.
        let statesize = unsafe { bindings::crypto_shash_statesize(self.tfm) } as usize;
        if state.len() != statesize {
            return Err(EINVAL);
        }
        let len = c_uint::try_from(data.len()).map_err(|_| EINVAL)?;
        // SAFETY: `desc` is a descriptor of the live transform.
        to_result(unsafe { bindings::crypto_shash_init(desc) })?;
        // SAFETY: the descriptor is initialised; `data` is `len` bytes.
        to_result(unsafe { bindings::crypto_shash_update(desc, data.as_ptr(), len) })?;
        // SAFETY: the descriptor is initialised; `state` is the state size.
        to_result(unsafe { bindings::crypto_shash_export(desc, state.as_mut_ptr().cast()) })
    }

    /// Imports `state` (exactly the algorithm's state size) into a new descriptor, takes in
    /// `data` and writes the digest: what the algorithm does with any state it is given.
    pub fn digest_from_state(&self, state: &[u8], data: &[u8], out: &mut [u8]) -> Result {
        let mut mem = self.desc()?;
        let desc = mem.as_mut_ptr().cast::<bindings::shash_desc>();
        // SAFETY: the transform is live.
        let statesize = unsafe { bindings::crypto_shash_statesize(self.tfm) } as usize;
        // SAFETY: the transform is live.
        let digestsize = unsafe { bindings::crypto_shash_digestsize(self.tfm) } as usize;
        if state.len() != statesize || out.len() != digestsize {
            return Err(EINVAL);
        }
        let len = c_uint::try_from(data.len()).map_err(|_| EINVAL)?;
        // SAFETY: `desc` is a descriptor of the live transform; `state` is the state size.
        to_result(unsafe { bindings::crypto_shash_import(desc, state.as_ptr().cast()) })?;
        // SAFETY: the descriptor holds an imported state; `data` is `len` bytes.
        to_result(unsafe { bindings::crypto_shash_update(desc, data.as_ptr(), len) })?;
        // SAFETY: as above; `out` is the digest size.
        to_result(unsafe { bindings::crypto_shash_final(desc, out.as_mut_ptr()) })
    }
}

impl Drop for ShashTfm {
    fn drop(&mut self) {
        // SAFETY: by the type invariant the transform is live and owned by us.
        unsafe { bindings::crypto_destroy_tfm(self.tfm.cast(), &raw mut (*self.tfm).base) };
    }
}

/// `*v &= !bits`, for an `unsigned long` field (`u64` or `usize`, as bindgen maps it).
fn clear_bits<T>(v: &mut T, bits: u8)
where
    T: Copy + From<u8> + core::ops::BitAnd<Output = T> + core::ops::Not<Output = T>,
{
    *v = *v & !T::from(bits);
}

/// An `irq_work` that runs a closure in hard interrupt context.
#[repr(C)]
struct HardIrq<F> {
    work: bindings::irq_work,
    f: Option<F>,
}

/// The `irq_work` callback.
///
/// # Safety
///
/// `work` must be the `work` field of a live `HardIrq<F>`, not otherwise accessed while
/// the callback runs.
unsafe extern "C" fn run_hard_irq<F: FnOnce()>(work: *mut bindings::irq_work) {
    // SAFETY: `work` is the first field of a `#[repr(C)]` `HardIrq<F>` (caller).
    let this = unsafe { &mut *work.cast::<HardIrq<F>>() };
    if let Some(f) = this.f.take() {
        f();
    }
}

/// Runs `f` in hard interrupt context on this CPU (an `irq_work` raised by an IPI) and waits
/// for it to finish.
pub fn in_hard_irq<F: FnOnce()>(f: F) -> Result {
    // SAFETY: all-zero is an idle `irq_work` (what `IRQ_WORK_INIT_HARD` leaves unset).
    let work: bindings::irq_work = unsafe { core::mem::zeroed() };
    let mut h = KBox::new(HardIrq { work, f: Some(f) }, GFP_KERNEL)?;
    h.work.node.__bindgen_anon_1.u_flags = bindings::IRQ_WORK_HARD_IRQ;
    h.work.func = Some(run_hard_irq::<F>);
    let w = &raw mut h.work;
    // SAFETY: `w` is an initialised, idle `irq_work` in `h`, which lives until after
    // `irq_work_sync` has waited for the callback.
    let queued = unsafe { bindings::irq_work_queue(w) };
    // SAFETY: as above; waits until the callback has run.
    unsafe { bindings::irq_work_sync(w) };
    if queued {
        Ok(())
    } else {
        Err(EINVAL)
    }
}
