// SPDX-License-Identifier: GPL-2.0

//! Synchronous hashes and MACs (`struct shash_alg`).
//!
//! C headers: [`include/crypto/hash.h`](srctree/include/crypto/hash.h),
//! [`include/crypto/internal/hash.h`](srctree/include/crypto/internal/hash.h).
//!
//! [`Shash::update`] gets whole blocks and [`Shash::finup`] the rest; the request state lives
//! in the `shash_desc`, which the crypto API copies as bytes ([`PlainState`]).

use super::{
    alg::{exit_tfm, init_tfm, kind},
    bindings, byte_slice, ctx, name_array,
    shash_buffer::Partial,
    Block, Input, Simd,
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
/// Every bit pattern must be a valid value, with no padding and no `Drop`.
pub unsafe trait PlainState: Copy + Send + 'static {}

/// A synchronous hash or MAC, called in any context: it may not sleep, and needs a non-NEON path.
pub trait Shash: 'static {
    /// Algorithm name (`cra_name`), e.g. `c"cmac(sm4)"`.
    const NAME: &'static CStr;
    /// Driver name (`cra_driver_name`), e.g. `c"cmac-sm4-ce"`.
    const DRIVER_NAME: &'static CStr;
    /// Priority among the implementations of [`Shash::NAME`].
    const PRIORITY: i32;
    /// The block size, of which [`Shash::update`] takes whole blocks.
    const BLOCK_SIZE: u32;
    /// `cra_blocksize`, if not [`Shash::BLOCK_SIZE`] (the `cbcmac` template's before Linux 6.16).
    const CRA_BLOCK_SIZE: u32 = Self::BLOCK_SIZE;
    /// Whether [`Shash::finup`] gets a last whole block too (`CRYPTO_AHASH_ALG_FINAL_NONZERO`).
    const FINAL_NONZERO: bool;

    /// The digest, e.g. `[u8; 16]`; its size is the algorithm's `digestsize`.
    type Digest: Block;
    /// Per-transform state (the expanded key), created with `Default`, wiped when freed.
    type Key: Default + Send + Sync;
    /// Per-request state, kept in the request's descriptor.
    type State: PlainState;

    /// Sets the key, of any length (an unkeyed algorithm returns an error).
    fn set_key(key: &mut Self::Key, bytes: &[u8], simd: &mut Simd) -> Result;

    /// The state of a new request.
    fn init(key: &Self::Key) -> Self::State;

    /// Takes in `blocks`: whole blocks of [`Shash::BLOCK_SIZE`], at least one.
    fn update(key: &Self::Key, state: &mut Self::State, blocks: Input<'_>, simd: &mut Simd);

    /// Takes in the last 0 to [`Shash::BLOCK_SIZE`] bytes and writes the digest.
    fn finup(
        key: &Self::Key,
        state: &mut Self::State,
        last: Input<'_>,
        out: &mut Self::Digest,
        simd: &mut Simd,
    );
}

#[derive(Clone, Copy)]
#[repr(C)]
struct DescState<S> {
    state: S,
    partial: Partial,
}

struct Adapter<T: Shash>(PhantomData<T>);

impl<T: Shash> Adapter<T> {
    const ALG: bindings::shash_alg = {
        assert!(
            align_of::<T::Key>() <= super::CRYPTO_MINALIGN,
            "the context area is only aligned to CRYPTO_MINALIGN"
        );
        assert!(
            align_of::<T::State>() <= bindings::ARCH_SLAB_MINALIGN,
            "the descriptor's context is only aligned to ARCH_SLAB_MINALIGN"
        );
        assert!(
            size_of::<DescState<T::State>>() == size_of::<T::State>() + size_of::<Partial>(),
            "the state's alignment would pad the descriptor"
        );
        assert!(size_of::<DescState<T::State>>() <= bindings::HASH_MAX_DESCSIZE);
        assert!(
            Partial::serves(T::BLOCK_SIZE, T::CRA_BLOCK_SIZE),
            "a block size this kernel's hash interface cannot serve"
        );
        // SAFETY: zero is valid for this C struct of integers, arrays and (function) pointers.
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

    /// # Safety
    ///
    /// `desc` must be an initialised descriptor of a live transform, ours for `'a`.
    unsafe fn desc<'a>(
        desc: *mut bindings::shash_desc,
    ) -> (&'a T::Key, &'a mut DescState<T::State>) {
        // SAFETY: the transform is live and its context initialised; requests only read it.
        let key = unsafe { &*ctx::<T::Key>(&raw mut (*(*desc).tfm).base) };
        // SAFETY: the descriptor's aligned `descsize` bytes hold a `DescState` (any bytes do).
        let state = unsafe { &mut *(*desc).__ctx.as_mut_ptr().cast::<DescState<T::State>>() };
        (key, state)
    }

    /// # Safety
    ///
    /// Called by the crypto API with a live transform, ours, and `len` bytes at `key`.
    unsafe extern "C" fn setkey(
        tfm: *mut bindings::crypto_shash,
        key: *const u8,
        len: c_uint,
    ) -> c_int {
        // SAFETY: setkey has exclusive use of the transform, whose context `init_tfm` created.
        let ctx = unsafe { &mut *ctx::<T::Key>(&raw mut (*tfm).base) };
        // SAFETY: `key` points to `len` readable bytes.
        let bytes = unsafe { byte_slice(key, len) };
        // SAFETY: a crypto API callback: no section the check misses (`Simd::new`); one `Simd`.
        let mut simd = unsafe { Simd::new(true) };
        match T::set_key(ctx, bytes, &mut simd) {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        }
    }

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

    /// # Safety
    ///
    /// Called by the crypto API with an initialised descriptor, ours, and `len` bytes at `data`.
    unsafe extern "C" fn update(
        desc: *mut bindings::shash_desc,
        data: *const u8,
        len: c_uint,
    ) -> c_int {
        // SAFETY: guaranteed by the caller.
        let (key, st) = unsafe { Self::desc(desc) };
        // SAFETY: `data` points to `len` bytes that stay readable during the call.
        let data = unsafe { Input::new(data, len) };
        // SAFETY: a crypto API callback: no section the check misses (`Simd::new`); one `Simd`.
        let mut cx = (&mut st.state, unsafe { Simd::new(true) });
        let left = st.partial.update(
            &mut cx,
            data,
            T::BLOCK_SIZE as usize,
            T::FINAL_NONZERO,
            |(state, simd), blocks| T::update(key, state, blocks, simd),
        );
        left as c_int
    }

    /// # Safety
    ///
    /// Called by the crypto API with an initialised descriptor, ours, `len` bytes at `data` and
    /// `digestsize` writable bytes at `out`.
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
        // SAFETY: `out` is `T::Digest::SIZE` writable bytes; a byte array is aligned anywhere.
        let out = unsafe { &mut *out.cast::<T::Digest>() };
        // SAFETY: a crypto API callback: no section the check misses (`Simd::new`); one `Simd`.
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

// SAFETY: `crypto_register_shash()` and `crypto_unregister_shash()` register a `shash_alg`.
kind! {
    /// The kind of the synchronous hashes: `struct shash_alg`.
    pub struct ShashKind for Shash ("hashes") {
        raw: shash_alg at __bindgen_anon_1.halg.base,
        tfm: crypto_shash at base,
        unsafe register: crypto_register_shash, crypto_unregister_shash,
    }
}

/// The block size of the kernel's `cbcmac` template: 1 before the block-only hash interface.
#[cfg(not(sm4rs_shash_block_only))]
pub const fn cbcmac_block_size(_cipher_block_size: u32) -> u32 {
    1
}
/// The block size of the kernel's `cbcmac` template: the cipher's, with block-only hashes.
#[cfg(sm4rs_shash_block_only)]
pub const fn cbcmac_block_size(cipher_block_size: u32) -> u32 {
    cipher_block_size
}
