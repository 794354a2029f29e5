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
//! data of an update is an [`Input`]: a virtually contiguous buffer, but not a slice, as
//! other threads may write it meanwhile.
//!
//! A hash sees its data in whole blocks: [`Shash::update`] gets whole blocks only and
//! [`Shash::finup`] the last 0 to [`Shash::BLOCK_SIZE`] bytes, as the kernel's block-only
//! hash interface (`CRYPTO_AHASH_ALG_BLOCK_ONLY`) hands them; where the kernel keeps the
//! partial block between updates, it does so, else the abstraction does
//! ([`shash_buffer::Partial`](super::shash_buffer::Partial)).

use super::{
    alg::{ctx, exit_tfm, init_tfm, kind},
    bindings, byte_slice, name_array,
    shash_buffer::Partial,
    simd::Simd,
    Block, Input,
};
use core::{
    ffi::{c_int, c_uint, CStr},
    marker::PhantomData,
    mem::{align_of, size_of},
    ptr,
};
use kernel::error::Result;

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
    /// The block size: [`Shash::update`] takes whole blocks of it. Also `cra_blocksize`,
    /// unless [`Shash::CRA_BLOCK_SIZE`] says otherwise.
    const BLOCK_SIZE: u32;
    /// The `cra_blocksize` the kernel's interface wants for this algorithm, if it is not
    /// [`Shash::BLOCK_SIZE`] (the `cbcmac` template's is 1 before Linux 6.16). Kernels
    /// that keep partial blocks for the driver need the two equal.
    const CRA_BLOCK_SIZE: u32 = Self::BLOCK_SIZE;
    /// Whether [`Shash::finup`] must get the last block even when it is whole (at least one
    /// byte, unless nothing was taken in), as CMAC closes its last block differently from
    /// the others (`CRYPTO_AHASH_ALG_FINAL_NONZERO`).
    const FINAL_NONZERO: bool;

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

    /// Takes in `blocks`: whole blocks of [`Shash::BLOCK_SIZE`], at least one.
    fn update(key: &Self::Key, state: &mut Self::State, blocks: Input<'_>, simd: &mut Simd);

    /// Takes in `last`, the last 0 to [`Shash::BLOCK_SIZE`] bytes of the data (1 to
    /// [`Shash::BLOCK_SIZE`] with [`Shash::FINAL_NONZERO`] if there was any data), and
    /// writes the digest of everything taken in. The state is not used again unless the
    /// request is initialised (or imported) anew.
    fn finup(
        key: &Self::Key,
        state: &mut Self::State,
        last: Input<'_>,
        out: &mut Self::Digest,
        simd: &mut Simd,
    );
}

/// What a descriptor holds: the algorithm's state, then what the abstraction keeps of a
/// partial block where the kernel does not ([`Partial`]: nothing where it does).
#[derive(Clone, Copy)]
#[repr(C)]
struct DescState<S> {
    state: S,
    partial: Partial,
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
            align_of::<T::State>() <= bindings::ARCH_SLAB_MINALIGN,
            "the descriptor's context is only aligned to ARCH_SLAB_MINALIGN"
        );
        // (No padding in the descriptor's part: it is exported as bytes.)
        assert!(
            size_of::<DescState<T::State>>() == size_of::<T::State>() + size_of::<Partial>(),
            "the state's alignment would pad the descriptor"
        );
        assert!(size_of::<DescState<T::State>>() <= bindings::HASH_MAX_DESCSIZE);
        assert!(
            Partial::serves(T::BLOCK_SIZE, T::CRA_BLOCK_SIZE),
            "a block size this kernel's hash interface cannot serve"
        );
        // SAFETY: `shash_alg` is a C struct of integers, arrays, pointers and optional
        // function pointers, for all of which zero is valid.
        let mut alg: bindings::shash_alg = unsafe { core::mem::zeroed() };
        alg.init = Some(Self::init);
        alg.update = Some(Self::update);
        alg.finup = Some(Self::finup);
        alg.setkey = Some(Self::setkey);
        alg.init_tfm = Some(init_tfm::<ShashKind, T::Key>);
        alg.exit_tfm = Some(exit_tfm::<ShashKind, T::Key>);
        alg.descsize = size_of::<DescState<T::State>>() as c_uint;
        // SAFETY: zero is valid for the common part too.
        let mut halg: bindings::hash_alg_common = unsafe { core::mem::zeroed() };
        halg.digestsize = T::Digest::SIZE as c_uint;
        halg.statesize = size_of::<DescState<T::State>>() as c_uint;
        halg.base.cra_blocksize = T::CRA_BLOCK_SIZE;
        halg.base.cra_ctxsize = size_of::<T::Key>() as c_uint;
        halg.base.cra_priority = T::PRIORITY;
        halg.base.cra_name = name_array(T::NAME);
        halg.base.cra_driver_name = name_array(T::DRIVER_NAME);
        alg.__bindgen_anon_1.halg = halg;
        Partial::adapt(&mut alg, T::FINAL_NONZERO);
        alg
    };

    /// The state in `desc` and the context of its transform.
    ///
    /// # Safety
    ///
    /// `desc` must be a descriptor of a live transform of this algorithm, used by nobody
    /// else for `'a`, whose state area has been written by `init` or by an import.
    unsafe fn desc<'a>(
        desc: *mut bindings::shash_desc,
    ) -> (&'a T::Key, &'a mut DescState<T::State>) {
        // SAFETY: the descriptor is valid; its transform is live and its context initialised
        // by `init_tfm`. Requests only read the context.
        let key = unsafe { &*ctx::<T::Key>(&raw mut (*(*desc).tfm).base) };
        // SAFETY: `descsize` bytes follow the descriptor, aligned to ARCH_SLAB_MINALIGN
        // (checked in `ALG`); they hold a `DescState` (any bytes are one: `PlainState` and
        // `Partial`'s invariants).
        let state = unsafe { &mut *(*desc).__ctx.as_mut_ptr().cast::<DescState<T::State>>() };
        (key, state)
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
        // SAFETY: setkey has exclusive use of the transform, whose context `init_tfm` created.
        let ctx = unsafe { &mut *ctx::<T::Key>(&raw mut (*tfm).base) };
        // SAFETY: `key` points to `len` readable bytes, or `len` is 0.
        let bytes = unsafe { byte_slice(key, len) };
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
        // SAFETY: the transform is live and its context initialised by `init_tfm`.
        let key = unsafe { &*ctx::<T::Key>(&raw mut (*(*desc).tfm).base) };
        let state = DescState {
            state: T::init(key),
            partial: Partial::new(),
        };
        // SAFETY: the descriptor has `descsize` bytes of state area, aligned for `T::State`.
        unsafe { ptr::write((*desc).__ctx.as_mut_ptr().cast(), state) };
        0
    }

    /// `update`: the whole blocks to [`Shash::update`]; returns the count of bytes at the
    /// end of `data` that the kernel keeps for the next call (0 where it does not).
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
        let (key, st) = unsafe { Self::desc(desc) };
        // SAFETY: `data` points to `len` bytes that stay readable during the call.
        let data = unsafe { Input::new(data, len) };
        // SAFETY: no NEON section is open in a crypto API callback; this is the only `Simd`.
        let mut cx = (&mut st.state, unsafe { Simd::new(true) });
        let left = st.partial.update(
            &mut cx,
            data,
            T::BLOCK_SIZE as usize,
            T::FINAL_NONZERO,
            |(state, simd), blocks| T::update(key, state, blocks, simd),
        );
        // (Less than a block.)
        left as c_int
    }

    /// `finup`: the data to [`Shash::update`] and [`Shash::finup`], the digest to `out`.
    ///
    /// # Safety
    ///
    /// Called by the crypto API with an initialised descriptor that it does not use
    /// otherwise during the call, `len` readable bytes at `data` and `digestsize` writable
    /// bytes at `out`.
    unsafe extern "C" fn finup(
        desc: *mut bindings::shash_desc,
        data: *const u8,
        len: c_uint,
        out: *mut u8,
    ) -> c_int {
        // SAFETY: guaranteed by the caller.
        let (key, st) = unsafe { Self::desc(desc) };
        // SAFETY: `data` points to `len` bytes that stay readable during the call.
        let data = unsafe { Input::new(data, len) };
        // SAFETY: `out` is `T::Digest::SIZE` writable bytes; a byte array is aligned
        // anywhere (`Block` is sealed).
        let out = unsafe { &mut *out.cast::<T::Digest>() };
        // SAFETY: no NEON section is open in a crypto API callback; this is the only `Simd`.
        let mut cx = (&mut st.state, unsafe { Simd::new(true) });
        st.partial.finup(
            &mut cx,
            data,
            T::BLOCK_SIZE as usize,
            T::FINAL_NONZERO,
            |(state, simd), blocks| T::update(key, state, blocks, simd),
            |(state, simd), last| T::finup(key, state, last, out, simd),
        );
        0
    }
}

// SAFETY: `crypto_register_shash()` and `crypto_unregister_shash()` register and unregister
// the algorithm a `shash_alg` describes.
kind! {
    /// The kind of the synchronous hashes: `struct shash_alg`.
    pub struct ShashKind for Shash ("hashes") {
        raw: shash_alg at __bindgen_anon_1.halg.base,
        tfm: crypto_shash at base,
        unsafe register: crypto_register_shash, crypto_unregister_shash,
    }
}

/// The block size of the kernel's `cbcmac` template (which testmgr compares a driver's
/// with): 1 before the block-only hash interface, the cipher's after.
#[cfg(not(sm4rs_shash_block_only))]
pub const fn cbcmac_block_size(_cipher_block_size: u32) -> u32 {
    1
}
/// The block size of the kernel's `cbcmac` template (which testmgr compares a driver's
/// with): 1 before the block-only hash interface, the cipher's after.
#[cfg(sm4rs_shash_block_only)]
pub const fn cbcmac_block_size(cipher_block_size: u32) -> u32 {
    cipher_block_size
}
