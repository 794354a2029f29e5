// SPDX-License-Identifier: GPL-2.0

//! Synchronous hashes and MACs (`struct shash_alg`).
//!
//! C headers: [`include/crypto/hash.h`](srctree/include/crypto/hash.h),
//! [`include/crypto/internal/hash.h`](srctree/include/crypto/internal/hash.h).
//!
//! A driver implements [`Shash`] for each algorithm and registers them together with
//! [`Registration`]. The per-transform context ([`Shash::Key`], the expanded key) is typed,
//! created when a transform is allocated and wiped when it is freed. The per-request state
//! ([`Shash::State`]) lives in the `shash_desc`, which the crypto API copies as bytes
//! (export, import, cloning a descriptor), so it must be plain data ([`PlainState`]). The
//! data of an update is a byte slice: shash callers pass virtually contiguous buffers.

use super::{bindings, name_array, simd::Simd, wipe, Block};
use core::{
    ffi::{c_int, c_uint, CStr},
    marker::PhantomData,
    mem::{align_of, size_of, ManuallyDrop},
    pin::Pin,
    ptr,
};
use kernel::{
    alloc::{flags::GFP_KERNEL, KBox},
    error::{code::ENOMEM, to_result, Result},
    types::Opaque,
    ThisModule,
};

/// A type that the crypto API may copy as bytes and hand back: the state of a hash request.
///
/// # Safety
///
/// Every bit pattern of `size_of::<Self>()` bytes must be a valid value (an imported state
/// is whatever bytes the caller gives), the type must have no padding (exported bytes are
/// all initialised) and no `Drop` (the crypto API frees descriptors without telling the
/// driver).
pub unsafe trait PlainState: Copy + Send + 'static {}

/// A synchronous hash or MAC algorithm.
///
/// The crypto API calls it in any context, including soft interrupts; none of its
/// operations may sleep. `simd` is the right to use NEON there; a driver that uses NEON must
/// have a path without it.
pub trait Shash: 'static {
    /// Algorithm name (`cra_name`), e.g. `c"cmac(sm4)"`.
    const NAME: &'static CStr;
    /// Driver name (`cra_driver_name`), unique among registered algorithms.
    const DRIVER_NAME: &'static CStr;
    /// Priority among the implementations of [`Shash::NAME`]; the highest is chosen.
    const PRIORITY: i32;
    /// The algorithm's block size (`cra_blocksize`).
    const BLOCK_SIZE: u32;

    /// The digest, e.g. `[u8; 16]`; its size is the algorithm's `digestsize`.
    type Digest: Block;
    /// Per-transform context (the expanded key). Created with `Default` when a transform is
    /// allocated, dropped and wiped when it is freed.
    type Key: Default + Send + Sync;
    /// Per-request state, kept in the request's descriptor.
    type State: PlainState;

    /// Sets the key (any length: the driver checks it). Unkeyed algorithms return an error.
    fn set_key(key: &mut Self::Key, bytes: &[u8], simd: &mut Simd) -> Result;

    /// The state of a new request.
    fn init(key: &Self::Key) -> Self::State;

    /// Takes in `data`.
    fn update(key: &Self::Key, state: &mut Self::State, data: &[u8], simd: &mut Simd);

    /// Writes the digest of everything taken in. The state is not used again unless the
    /// request is initialised (or imported) anew.
    fn finish(key: &Self::Key, state: &mut Self::State, out: &mut Self::Digest, simd: &mut Simd);
}

/// The C callbacks and table of a [`Shash`].
struct Adapter<T: Shash>(PhantomData<T>);

impl<T: Shash> Adapter<T> {
    /// The algorithm as the C API sees it, without `cra_module` (set at registration).
    const ALG: bindings::shash_alg = {
        assert!(
            align_of::<T::Key>() <= super::CRYPTO_MINALIGN,
            "the context area is only aligned to CRYPTO_MINALIGN"
        );
        assert!(
            align_of::<T::State>() <= bindings::SM4RS_CONST_ARCH_SLAB_MINALIGN,
            "the descriptor's context is only aligned to ARCH_SLAB_MINALIGN"
        );
        assert!(size_of::<T::State>() <= bindings::SM4RS_CONST_HASH_MAX_DESCSIZE);
        // SAFETY: `shash_alg` is a C struct of integers, arrays, pointers and optional
        // function pointers, for all of which zero is valid.
        let mut alg: bindings::shash_alg = unsafe { core::mem::zeroed() };
        alg.init = Some(Self::init);
        alg.update = Some(Self::update);
        alg.final_ = Some(Self::final_);
        alg.setkey = Some(Self::setkey);
        alg.init_tfm = Some(Self::init_tfm);
        alg.exit_tfm = Some(Self::exit_tfm);
        alg.descsize = size_of::<T::State>() as c_uint;
        // SAFETY: zero is valid for the common part too.
        let mut halg: bindings::hash_alg_common = unsafe { core::mem::zeroed() };
        halg.digestsize = T::Digest::SIZE as c_uint;
        halg.statesize = size_of::<T::State>() as c_uint;
        halg.base.cra_blocksize = T::BLOCK_SIZE;
        halg.base.cra_ctxsize = size_of::<T::Key>() as c_uint;
        halg.base.cra_priority = T::PRIORITY;
        halg.base.cra_name = name_array(T::NAME);
        halg.base.cra_driver_name = name_array(T::DRIVER_NAME);
        alg.__bindgen_anon_1.halg = halg;
        alg
    };

    /// The context of the transform `tfm`.
    ///
    /// # Safety
    ///
    /// `tfm` must be a live transform of this algorithm.
    unsafe fn key(tfm: *mut bindings::crypto_shash) -> *mut T::Key {
        // SAFETY: the crypto API allocated `cra_ctxsize` bytes after the transform, aligned
        // to CRYPTO_MINALIGN (enough for `T::Key`, checked in `ALG`).
        unsafe { (*tfm).base.__crt_ctx.as_mut_ptr().cast() }
    }

    /// The state in `desc` and the context of its transform.
    ///
    /// # Safety
    ///
    /// `desc` must be a descriptor of a live transform of this algorithm, used by nobody
    /// else for `'a`, whose state area has been written by `init` or by an import.
    unsafe fn desc<'a>(desc: *mut bindings::shash_desc) -> (&'a T::Key, &'a mut T::State) {
        // SAFETY: the descriptor is valid; its transform is live and its context initialised
        // by `init_tfm`. Requests only read the context.
        let key = unsafe { &*Self::key((*desc).tfm) };
        // SAFETY: `descsize` bytes follow the descriptor, aligned to ARCH_SLAB_MINALIGN
        // (checked in `ALG`); they hold a `T::State` (any bytes are one: `PlainState`).
        let state = unsafe { &mut *(*desc).__ctx.as_mut_ptr().cast::<T::State>() };
        (key, state)
    }

    /// `init_tfm`: creates the context.
    ///
    /// # Safety
    ///
    /// Called by the crypto API with a new transform of this algorithm.
    unsafe extern "C" fn init_tfm(tfm: *mut bindings::crypto_shash) -> c_int {
        // SAFETY: the context area is allocated and not yet initialised.
        unsafe { ptr::write(Self::key(tfm), T::Key::default()) };
        0
    }

    /// `exit_tfm`: drops the context and wipes its memory.
    ///
    /// # Safety
    ///
    /// Called by the crypto API once, when a transform initialised by `init_tfm` is freed.
    unsafe extern "C" fn exit_tfm(tfm: *mut bindings::crypto_shash) {
        // SAFETY: the transform is live and its context initialised.
        let key = unsafe { Self::key(tfm) };
        // SAFETY: the context is never used again.
        unsafe { ptr::drop_in_place(key) };
        // SAFETY: the area is `size_of::<T::Key>()` bytes long.
        unsafe { wipe(key.cast(), size_of::<T::Key>()) };
    }

    /// `setkey`.
    ///
    /// # Safety
    ///
    /// Called by the crypto API with a live transform and `len` readable bytes at `key`
    /// (which may be NULL if `len` is 0); no other operation runs on the transform.
    unsafe extern "C" fn setkey(
        tfm: *mut bindings::crypto_shash,
        key: *const u8,
        len: c_uint,
    ) -> c_int {
        // SAFETY: setkey has exclusive use of the transform.
        let ctx = unsafe { &mut *Self::key(tfm) };
        // SAFETY: `key` points to `len` readable bytes, or `len` is 0.
        let bytes = unsafe { slice(key, len) };
        // SAFETY: no NEON section is open in a crypto API callback; this is the only `Simd`.
        let mut simd = unsafe { Simd::new(true) };
        match T::set_key(ctx, bytes, &mut simd) {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        }
    }

    /// `init`.
    ///
    /// # Safety
    ///
    /// Called by the crypto API with a descriptor of a live, keyed transform.
    unsafe extern "C" fn init(desc: *mut bindings::shash_desc) -> c_int {
        // SAFETY: the transform is live and its context initialised.
        let key = unsafe { &*Self::key((*desc).tfm) };
        let state = T::init(key);
        // SAFETY: the descriptor has `descsize` bytes of state area, aligned for `T::State`.
        unsafe { ptr::write((*desc).__ctx.as_mut_ptr().cast::<T::State>(), state) };
        0
    }

    /// `update`.
    ///
    /// # Safety
    ///
    /// Called by the crypto API with an initialised descriptor that it does not use
    /// otherwise during the call, and `len` readable bytes at `data`.
    unsafe extern "C" fn update(
        desc: *mut bindings::shash_desc,
        data: *const u8,
        len: c_uint,
    ) -> c_int {
        // SAFETY: guaranteed by the caller.
        let (key, state) = unsafe { Self::desc(desc) };
        // SAFETY: `data` points to `len` readable bytes, or `len` is 0.
        let data = unsafe { slice(data, len) };
        // SAFETY: no NEON section is open in a crypto API callback; this is the only `Simd`.
        let mut simd = unsafe { Simd::new(true) };
        T::update(key, state, data, &mut simd);
        0
    }

    /// `final`.
    ///
    /// # Safety
    ///
    /// Called by the crypto API with an initialised descriptor that it does not use
    /// otherwise during the call, and `digestsize` writable bytes at `out`.
    unsafe extern "C" fn final_(desc: *mut bindings::shash_desc, out: *mut u8) -> c_int {
        // SAFETY: guaranteed by the caller.
        let (key, state) = unsafe { Self::desc(desc) };
        // SAFETY: `out` is `T::Digest::SIZE` writable bytes; a byte array is aligned
        // anywhere (`Block` is sealed).
        let out = unsafe { &mut *out.cast::<T::Digest>() };
        // SAFETY: no NEON section is open in a crypto API callback; this is the only `Simd`.
        let mut simd = unsafe { Simd::new(true) };
        T::finish(key, state, out, &mut simd);
        0
    }
}

/// `len` bytes at `p` as a slice; empty (and `p` not used) if `len` is 0.
///
/// # Safety
///
/// If `len > 0`, `p` must be valid for reads of `len` bytes during `'a`.
unsafe fn slice<'a>(p: *const u8, len: c_uint) -> &'a [u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: guaranteed by the caller.
    unsafe { core::slice::from_raw_parts(p, len as usize) }
}

/// A [`Shash`] algorithm's C description, made by [`alg`] for [`Registration::new`].
pub struct Alg(bindings::shash_alg);

/// The description of `T`, at compile time.
pub const fn alg<T: Shash>() -> Alg {
    Alg(Adapter::<T>::ALG)
}

/// `N` registered [`Shash`] algorithms; dropping it unregisters them.
///
/// Like the other registrations of this abstraction: meant to live in the module object;
/// if dropped while transforms are alive, the descriptions are leaked (never freed) rather
/// than freed under their users.
///
/// # Invariants
///
/// The `N` descriptions in `algs` are registered with the crypto API for the lifetime of
/// the object, and only dropped in `Drop::drop`.
pub struct Registration<const N: usize> {
    algs: ManuallyDrop<Pin<KBox<Opaque<[bindings::shash_alg; N]>>>>,
}

impl<const N: usize> Registration<N> {
    /// Registers `algs` (all or none), owned by `module`.
    pub fn new(module: &'static ThisModule, algs: [Alg; N]) -> Result<Self> {
        let mut c = algs.map(|a| a.0);
        for a in c.iter_mut() {
            a.__bindgen_anon_1.halg.base.cra_module = module.as_ptr().cast();
        }
        let algs = KBox::pin(Opaque::new(c), GFP_KERNEL).map_err(|_| ENOMEM)?;
        // SAFETY: `algs` holds `N` valid, pinned descriptions that outlive their
        // registration (undone in `drop`). The call registers all or none.
        to_result(unsafe { bindings::crypto_register_shashes(algs.get().cast(), N as c_int) })?;
        // INVARIANT: registered above.
        Ok(Self {
            algs: ManuallyDrop::new(algs),
        })
    }
}

impl<const N: usize> Drop for Registration<N> {
    fn drop(&mut self) {
        let algs: *mut bindings::shash_alg = self.algs.get().cast();
        // SAFETY: registered by the type invariant.
        unsafe { bindings::crypto_unregister_shashes(algs, N as c_int) };
        let mut in_use = false;
        for i in 0..N {
            // SAFETY: `algs` has `N` entries, still allocated.
            let base = unsafe { &raw mut (*algs.add(i)).__bindgen_anon_1.halg.base };
            // SAFETY: `base` is a valid, just unregistered `crypto_alg`.
            in_use |= unsafe { super::compat::alg_in_use_after_unregister(base) };
        }
        if !in_use {
            // SAFETY: unregistered and unused, so the crypto API no longer refers to the
            // descriptions; they are dropped once, here.
            unsafe { ManuallyDrop::drop(&mut self.algs) };
        } else {
            // SAFETY: the allocation is valid; kmemleak only records the address.
            unsafe { bindings::sm4rs_crypto_keep_alg(self.algs.get().cast()) };
        }
    }
}

// SAFETY: only touched on creation and drop; the crypto API synchronises its own use.
unsafe impl<const N: usize> Send for Registration<N> {}
// SAFETY: `&Registration` gives no access to the algorithms.
unsafe impl<const N: usize> Sync for Registration<N> {}
