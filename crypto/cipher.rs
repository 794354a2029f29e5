// SPDX-License-Identifier: GPL-2.0

//! Single-block ciphers: `struct crypto_alg` of type `CRYPTO_ALG_TYPE_CIPHER`.
//!
//! C header: [`include/linux/crypto.h`](srctree/include/linux/crypto.h).
//!
//! A driver implements [`Cipher`] and keeps a [`Registration`] alive for as long as the
//! algorithm is to be offered. The C table is built at compile time from the trait's
//! constants; the per-transform context is typed ([`Cipher::Context`]), created when a
//! transform is allocated and wiped when it is freed.

use super::{bindings, name_array, wipe, Block};
use core::{
    ffi::{c_int, c_uint, CStr},
    marker::PhantomData,
    mem::{align_of, size_of},
    pin::Pin,
    ptr,
};
use kernel::{
    alloc::{flags::GFP_KERNEL, KBox},
    error::{
        code::{EINVAL, ENOMEM},
        to_result, Result,
    },
    types::Opaque,
    ThisModule,
};

/// A single-block cipher algorithm.
///
/// The crypto API calls it one block at a time (the `ecb`, `cbc`, ... templates, testmgr,
/// `crypto_cipher_encrypt_one()`); none of its operations may sleep.
pub trait Cipher: 'static {
    /// Algorithm name (`cra_name`), e.g. `c"sm4"`.
    const NAME: &'static CStr;
    /// Driver name (`cra_driver_name`), unique among registered algorithms.
    const DRIVER_NAME: &'static CStr;
    /// Priority among the implementations of [`Cipher::NAME`]; the highest is chosen.
    const PRIORITY: i32;
    /// Smallest key length in bytes.
    const MIN_KEY_SIZE: u32;
    /// Largest key length in bytes.
    const MAX_KEY_SIZE: u32;

    /// The block the cipher transforms, e.g. `[u8; 16]`.
    type Block: Block;
    /// Per-transform state: the expanded key. Created with `Default` when a transform is
    /// allocated, dropped and wiped when it is freed.
    type Context: Default + Send + Sync;

    /// Sets the key. The crypto API has already checked the length against
    /// [`Cipher::MIN_KEY_SIZE`] and [`Cipher::MAX_KEY_SIZE`].
    fn set_key(ctx: &mut Self::Context, key: &[u8]) -> Result;

    /// Encrypts one block in place.
    fn encrypt(ctx: &Self::Context, block: &mut Self::Block);

    /// Decrypts one block in place.
    fn decrypt(ctx: &Self::Context, block: &mut Self::Block);
}

/// The C callbacks and table of a [`Cipher`].
struct Adapter<T: Cipher>(PhantomData<T>);

impl<T: Cipher> Adapter<T> {
    /// The algorithm as the C API sees it, without `cra_module` (set at registration).
    const ALG: bindings::crypto_alg = {
        assert!(
            align_of::<T::Context>() <= bindings::SM4RS_CONST_CRYPTO_MINALIGN,
            "the context area is only aligned to CRYPTO_MINALIGN"
        );
        assert!(T::MIN_KEY_SIZE <= T::MAX_KEY_SIZE);
        // SAFETY: `crypto_alg` is a C struct of integers, pointers, arrays and optional
        // function pointers, for all of which zero is a valid value.
        let mut alg: bindings::crypto_alg = unsafe { core::mem::zeroed() };
        alg.cra_flags = bindings::CRYPTO_ALG_TYPE_CIPHER;
        alg.cra_blocksize = T::Block::SIZE as c_uint;
        alg.cra_ctxsize = size_of::<T::Context>() as c_uint;
        alg.cra_priority = T::PRIORITY;
        alg.cra_name = name_array(T::NAME);
        alg.cra_driver_name = name_array(T::DRIVER_NAME);
        alg.cra_init = Some(Self::init);
        alg.cra_exit = Some(Self::exit);
        alg.cra_u.cipher = bindings::cipher_alg {
            cia_min_keysize: T::MIN_KEY_SIZE,
            cia_max_keysize: T::MAX_KEY_SIZE,
            cia_setkey: Some(Self::setkey),
            cia_encrypt: Some(Self::encrypt),
            cia_decrypt: Some(Self::decrypt),
        };
        alg
    };

    /// Returns the context of `tfm`.
    ///
    /// # Safety
    ///
    /// `tfm` must be a live transform of this algorithm.
    unsafe fn ctx(tfm: *mut bindings::crypto_tfm) -> *mut T::Context {
        // SAFETY: `tfm` is valid; the crypto API allocated `cra_ctxsize` bytes, aligned to
        // `CRYPTO_MINALIGN` (checked against `T::Context` in `ALG`), behind it.
        unsafe { (*tfm).__crt_ctx.as_mut_ptr().cast() }
    }

    /// `cra_init`: creates the context.
    ///
    /// # Safety
    ///
    /// Called by the crypto API with a new transform of this algorithm.
    unsafe extern "C" fn init(tfm: *mut bindings::crypto_tfm) -> c_int {
        // SAFETY: the context area is allocated and not yet initialised.
        unsafe { ptr::write(Self::ctx(tfm), T::Context::default()) };
        0
    }

    /// `cra_exit`: drops the context and wipes its memory.
    ///
    /// # Safety
    ///
    /// Called by the crypto API once, when a transform initialised by `init` is freed.
    unsafe extern "C" fn exit(tfm: *mut bindings::crypto_tfm) {
        // SAFETY: `tfm` is live and its context was created by `init`.
        let ctx = unsafe { Self::ctx(tfm) };
        // SAFETY: the context is initialised and never used again.
        unsafe { ptr::drop_in_place(ctx) };
        // SAFETY: the area is `size_of::<T::Context>()` bytes long.
        unsafe { wipe(ctx.cast(), size_of::<T::Context>()) };
    }

    /// `cia_setkey`.
    ///
    /// # Safety
    ///
    /// Called by the crypto API with a live transform and `len` readable bytes at `key`;
    /// no other operation runs on the transform at the same time.
    unsafe extern "C" fn setkey(
        tfm: *mut bindings::crypto_tfm,
        key: *const u8,
        len: c_uint,
    ) -> c_int {
        // SAFETY: the caller gives exclusive use of a live transform.
        let ctx = unsafe { &mut *Self::ctx(tfm) };
        // SAFETY: `key` points to `len` readable bytes.
        let key = unsafe { core::slice::from_raw_parts(key, len as usize) };
        match T::set_key(ctx, key) {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        }
    }

    /// Copies `src` to `dst` (which may be the same block) and returns `dst` as a block.
    ///
    /// # Safety
    ///
    /// `src` must be readable and `dst` writable for one block, and `dst` not otherwise
    /// accessed while the returned reference lives.
    unsafe fn block<'a>(dst: *mut u8, src: *const u8) -> &'a mut T::Block {
        // SAFETY: both are valid for one block; `copy` allows them to overlap.
        unsafe { ptr::copy(src, dst, T::Block::SIZE) };
        // SAFETY: `T::Block` is a byte array (sealed), so any address is aligned for it.
        unsafe { &mut *dst.cast::<T::Block>() }
    }

    /// `cia_encrypt`.
    ///
    /// # Safety
    ///
    /// Called by the crypto API with a live transform, one readable block at `src` and one
    /// writable block at `dst` (possibly the same).
    unsafe extern "C" fn encrypt(tfm: *mut bindings::crypto_tfm, dst: *mut u8, src: *const u8) {
        // SAFETY: the transform is live; encryption only reads the context.
        let ctx = unsafe { &*Self::ctx(tfm) };
        // SAFETY: guaranteed by the caller.
        T::encrypt(ctx, unsafe { Self::block(dst, src) });
    }

    /// `cia_decrypt`.
    ///
    /// # Safety
    ///
    /// As for [`Self::encrypt`].
    unsafe extern "C" fn decrypt(tfm: *mut bindings::crypto_tfm, dst: *mut u8, src: *const u8) {
        // SAFETY: the transform is live; decryption only reads the context.
        let ctx = unsafe { &*Self::ctx(tfm) };
        // SAFETY: guaranteed by the caller.
        T::decrypt(ctx, unsafe { Self::block(dst, src) });
    }
}

/// A registered [`Cipher`]; dropping it unregisters the algorithm.
///
/// # Invariants
///
/// `alg` is registered with the crypto API for the lifetime of the object.
pub struct Registration<T: Cipher> {
    alg: Pin<KBox<Opaque<bindings::crypto_alg>>>,
    _cipher: PhantomData<T>,
}

impl<T: Cipher> Registration<T> {
    /// Registers `T`, owned by `module`: a live transform of the algorithm keeps the module
    /// loaded.
    pub fn new(module: &'static ThisModule) -> Result<Self> {
        let mut alg = Adapter::<T>::ALG;
        alg.cra_module = module.as_ptr().cast();
        let alg = KBox::pin(Opaque::new(alg), GFP_KERNEL).map_err(|_| ENOMEM)?;
        // SAFETY: `alg` is a valid, pinned `crypto_alg` that outlives its registration
        // (unregistered in `drop` before it is freed).
        to_result(unsafe { bindings::crypto_register_alg(alg.get()) })?;
        // INVARIANT: registered just above.
        Ok(Self {
            alg,
            _cipher: PhantomData,
        })
    }
}

impl<T: Cipher> Drop for Registration<T> {
    fn drop(&mut self) {
        // SAFETY: registered by the type invariant. Transforms pin the module, so none
        // is alive when the module's registrations are dropped.
        unsafe { bindings::crypto_unregister_alg(self.alg.get()) };
    }
}

// SAFETY: the registration is only touched on creation and drop; the crypto API
// synchronises its own use of the `crypto_alg`.
unsafe impl<T: Cipher> Send for Registration<T> {}
// SAFETY: `&Registration` gives no access to the `crypto_alg`.
unsafe impl<T: Cipher> Sync for Registration<T> {}

/// A transform of a registered cipher, for tests: allocated by driver name, used one block
/// at a time through the algorithm's own callbacks.
///
/// # Invariants
///
/// `tfm` is a live single-block cipher transform owned by this object.
pub struct Tfm {
    tfm: *mut bindings::crypto_tfm,
}

impl Tfm {
    /// Allocates a transform of the cipher with driver (or algorithm) name `name`.
    pub fn new(name: &CStr) -> Result<Self> {
        // SAFETY: `name` is a valid C string; the type and mask select a cipher.
        let tfm = unsafe {
            bindings::crypto_alloc_base(
                super::c_str_ptr(name),
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
        let setkey = self.alg().cia_setkey.ok_or(EINVAL)?;
        let len = c_uint::try_from(key.len()).map_err(|_| EINVAL)?;
        // SAFETY: the transform is live and exclusively ours; `key` is `len` bytes.
        to_result(unsafe { setkey(self.tfm, key.as_ptr(), len) })
    }

    /// Encrypts `block` in place; `block` must be exactly one cipher block.
    pub fn encrypt(&self, block: &mut [u8]) -> Result {
        self.crypt(block, self.alg().cia_encrypt)
    }

    /// Decrypts `block` in place; `block` must be exactly one cipher block.
    pub fn decrypt(&self, block: &mut [u8]) -> Result {
        self.crypt(block, self.alg().cia_decrypt)
    }

    fn crypt(
        &self,
        block: &mut [u8],
        f: Option<unsafe extern "C" fn(*mut bindings::crypto_tfm, *mut u8, *const u8)>,
    ) -> Result {
        let f = f.ok_or(EINVAL)?;
        // SAFETY: the transform and its algorithm are live.
        let bs = unsafe { (*(*self.tfm).__crt_alg).cra_blocksize } as usize;
        if block.len() != bs {
            return Err(EINVAL);
        }
        let p = block.as_mut_ptr();
        // SAFETY: `p` is one writable block; in-place operation is allowed.
        unsafe { f(self.tfm, p, p) };
        Ok(())
    }
}

impl Drop for Tfm {
    fn drop(&mut self) {
        // SAFETY: by the type invariant the transform is live and owned by us.
        unsafe { bindings::crypto_destroy_tfm(self.tfm.cast(), self.tfm) };
    }
}
