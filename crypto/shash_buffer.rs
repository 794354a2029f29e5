// SPDX-License-Identifier: GPL-2.0

//! The partial block of a hash request between its updates ([`super::shash`]).
//!
//! A hash of this abstraction takes whole blocks in `update` and the last 0 to `block` bytes
//! in `finup`, as the kernel's block-only hash interface (`CRYPTO_AHASH_ALG_BLOCK_ONLY`)
//! hands them. [`Partial`] is what the abstraction keeps of a partial block in the driver's
//! part of the descriptor: the block itself where the kernel does not keep it (before Linux
//! 6.16), nothing where it does.
// sm4rs-oot-begin
//!
//! Its two forms are cfg'd on `sm4rs_shash_block_only` (`kernel-differences.txt`).
// sm4rs-oot-end

use super::{bindings, Input};

/// The partial block of a hash request between its updates, where the kernel does not keep
/// it: in the driver's part of the descriptor (before the block-only hash interface).
///
/// A hash ([`super::shash::Shash`]) takes whole blocks in `update` and the last 0 to
/// `block` bytes in `finup`, as the block-only interface of later kernels hands them; this
/// buffer does the hash API's part of that here.
///
/// # Invariants
///
/// None: any bytes are a value (an imported state is whatever the caller gives); `len` is
/// read as at most the block size.
#[cfg(not(sm4rs_shash_block_only))]
#[derive(Clone, Copy)]
#[repr(C)]
pub(crate) struct Partial {
    buf: [u8; Partial::MAX_BLOCK],
    len: u8,
}

#[cfg(not(sm4rs_shash_block_only))]
impl Partial {
    /// The largest block this buffer holds (the SM4 MACs': 16 bytes).
    const MAX_BLOCK: usize = 16;

    /// Completes the description of such a hash (whose `update` and `finup` are set) for
    /// this kernel's hash interface: a `final`, which is its `finup` with no data.
    pub(crate) const fn adapt(alg: &mut bindings::shash_alg, _final_nonzero: bool) {
        alg.final_ = Some(final_by_finup);
    }

    /// Whether a hash of this block size (and `cra_blocksize`) can be served.
    pub(crate) const fn serves(block: u32, _cra_block: u32) -> bool {
        block as usize <= Self::MAX_BLOCK && block > 0
    }

    /// The buffer of a new request: empty.
    pub(crate) const fn new() -> Self {
        Self {
            buf: [0; Self::MAX_BLOCK],
            len: 0,
        }
    }

    /// `update`: hands the whole blocks of the buffered bytes and `data` to `blocks` and
    /// keeps the rest, 0 to `block - 1` bytes (1 to `block` with `final_nonzero`, if any
    /// were taken in: the last block is then kept whole for `finup`). Returns the count of
    /// bytes left to the API: always 0.
    pub(crate) fn update<C>(
        &mut self,
        cx: &mut C,
        data: Input<'_>,
        block: usize,
        final_nonzero: bool,
        mut blocks: impl FnMut(&mut C, Input<'_>),
    ) -> usize {
        let nz = usize::from(final_nonzero);
        let mut have = usize::from(self.len).min(block);
        let mut data = data;
        if have + data.len() >= block + nz && have > 0 {
            // The buffered block is completed, and more follows (or need not).
            let (head, rest) = data.split_at(block - have);
            head.read(&mut self.buf[have..block]);
            blocks(cx, Input::from_array(&self.buf).split_at(block).0);
            data = rest;
            have = 0;
        }
        if have == 0 && data.len() >= block + nz {
            let keep = (data.len() - nz) % block + nz;
            let (whole, rest) = data.split_at(data.len() - keep);
            blocks(cx, whole);
            data = rest;
        }
        // What is left fits: `have + data.len() < block + nz`.
        let end = (have + data.len()).min(block);
        data.read(&mut self.buf[have..end]);
        self.len = end as u8;
        0
    }

    /// `finup` (`final` when `data` is empty): takes in `data` as [`Partial::update`] does
    /// and hands the bytes kept to `last`; the buffer is wiped.
    pub(crate) fn finup<C>(
        &mut self,
        cx: &mut C,
        data: Input<'_>,
        block: usize,
        final_nonzero: bool,
        blocks: impl FnMut(&mut C, Input<'_>),
        last: impl FnOnce(&mut C, Input<'_>),
    ) {
        self.update(cx, data, block, final_nonzero, blocks);
        let len = usize::from(self.len).min(block);
        last(cx, Input::from_array(&self.buf).split_at(len).0);
        super::wipe(&mut self.buf);
        self.len = 0;
    }
}

/// `final` of a hash of this abstraction: its own `finup`, with no data.
///
/// # Safety
///
/// Called by the crypto API with an initialised descriptor of a live transform of a hash
/// described by [`Partial::adapt`], and `digestsize` writable bytes at `out`.
#[cfg(not(sm4rs_shash_block_only))]
unsafe extern "C" fn final_by_finup(
    desc: *mut bindings::shash_desc,
    out: *mut u8,
) -> core::ffi::c_int {
    use super::alg::Kind;
    // SAFETY: the transform is live; its algorithm's `crypto_alg` is the one in the
    // `shash_alg` registered (at offset `BASE`), which lives while the transform does.
    let finup = unsafe {
        let base = (*(*desc).tfm).base.__crt_alg.cast::<u8>();
        (*base
            .sub(super::shash::ShashKind::BASE)
            .cast::<bindings::shash_alg>())
        .finup
    };
    match finup {
        // SAFETY: the descriptor and `out` as the caller gave them; no data.
        Some(finup) => unsafe { finup(desc, core::ptr::null(), 0, out) },
        None => kernel::error::code::EINVAL.to_errno(),
    }
}

/// The partial block of a hash request between its updates: kept by the hash API
/// (`CRYPTO_AHASH_ALG_BLOCK_ONLY`), so nothing in the driver's part of the descriptor.
///
/// A hash ([`super::shash::Shash`]) takes whole blocks in `update`, which tells the API how
/// many bytes at the end of its data it did not take, and the last 0 to `block` bytes in
/// `finup`.
#[cfg(sm4rs_shash_block_only)]
#[derive(Clone, Copy)]
#[repr(C)]
pub(crate) struct Partial;

#[cfg(sm4rs_shash_block_only)]
impl Partial {
    /// Completes the description of such a hash (whose `update` and `finup` are set) for
    /// this kernel's hash interface: the API keeps partial blocks, and with
    /// `final_nonzero` the last block even when it is whole; it makes `final` a `finup`.
    pub(crate) const fn adapt(alg: &mut bindings::shash_alg, final_nonzero: bool) {
        let mut flags = bindings::CRYPTO_AHASH_ALG_BLOCK_ONLY;
        if final_nonzero {
            flags |= bindings::CRYPTO_AHASH_ALG_FINAL_NONZERO;
        }
        // SAFETY: `halg` is the member of the union that the hash API uses.
        unsafe { alg.__bindgen_anon_1.halg.base.cra_flags |= flags };
    }

    /// Whether a hash of this block size (and `cra_blocksize`) can be served: the API
    /// keeps partial blocks of `cra_blocksize`.
    pub(crate) const fn serves(block: u32, cra_block: u32) -> bool {
        block == cra_block && block > 0
    }

    /// Nothing to keep.
    pub(crate) const fn new() -> Self {
        Self
    }

    /// `update`: hands the whole blocks of `data` to `blocks`; returns the count of bytes
    /// after them, which the API keeps.
    pub(crate) fn update<C>(
        &mut self,
        cx: &mut C,
        data: Input<'_>,
        block: usize,
        _final_nonzero: bool,
        mut blocks: impl FnMut(&mut C, Input<'_>),
    ) -> usize {
        let rest = data.len() % block;
        let (whole, _) = data.split_at(data.len() - rest);
        if !whole.is_empty() {
            blocks(cx, whole);
        }
        rest
    }

    /// `finup`: the API hands at most a block here (the bytes it kept, or the end of the
    /// caller's data); should more come, the whole blocks before the last 1 to `block`
    /// bytes go to `blocks`, and those to `last`.
    pub(crate) fn finup<C>(
        &mut self,
        cx: &mut C,
        data: Input<'_>,
        block: usize,
        _final_nonzero: bool,
        mut blocks: impl FnMut(&mut C, Input<'_>),
        last: impl FnOnce(&mut C, Input<'_>),
    ) {
        let keep = if data.is_empty() {
            0
        } else {
            (data.len() - 1) % block + 1
        };
        let (whole, tail) = data.split_at(data.len() - keep);
        if !whole.is_empty() {
            blocks(cx, whole);
        }
        last(cx, tail);
    }
}
