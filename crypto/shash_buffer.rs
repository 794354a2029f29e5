// SPDX-License-Identifier: GPL-2.0

//! The partial block of a hash request between its updates ([`super::shash`]).
//!
//! [`Partial`] keeps it in the driver's part of the descriptor where the kernel does not
//! (before the block-only hash interface, `CRYPTO_AHASH_ALG_BLOCK_ONLY`).
// sm4rs-oot-begin
//!
//! Its two forms are cfg'd on `sm4rs_shash_block_only` (`kernel-differences.txt`).
// sm4rs-oot-end

use super::{bindings, Input};

/// The partial block of a hash request between its updates, where the kernel does not keep it.
///
/// # Invariants
///
/// None: any bytes are a value; `len` is read as at most the block size.
#[cfg(not(sm4rs_shash_block_only))]
#[derive(Clone, Copy)]
#[repr(C)]
pub(crate) struct Partial {
    buf: [u8; Partial::MAX_BLOCK],
    len: u8,
}

#[cfg(not(sm4rs_shash_block_only))]
impl Partial {
    /// The largest block this buffer holds.
    const MAX_BLOCK: usize = 16;

    /// Completes the description of a hash for this kernel: a `final` that calls its `finup`.
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

    /// `update`: hands whole blocks to `blocks`, keeps the rest and returns 0 (none for the API).
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
        let end = (have + data.len()).min(block);
        data.read(&mut self.buf[have..end]);
        self.len = end as u8;
        0
    }

    /// `finup`: takes in `data` as [`Partial::update`] does and hands the bytes kept to `last`.
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
/// Called by the crypto API with a descriptor of a [`Partial::adapt`] hash and `digestsize`
/// bytes at `out`.
#[cfg(not(sm4rs_shash_block_only))]
unsafe extern "C" fn final_by_finup(
    desc: *mut bindings::shash_desc,
    out: *mut u8,
) -> core::ffi::c_int {
    // SAFETY: the transform is live, and so is its algorithm, a registered `shash_alg`.
    let finup = unsafe { (*bindings::crypto_shash_alg((*desc).tfm)).finup };
    match finup {
        // SAFETY: the descriptor and `out` as the caller gave them; no data.
        Some(finup) => unsafe { finup(desc, core::ptr::null(), 0, out) },
        None => kernel::error::code::EINVAL.to_errno(),
    }
}

/// The partial block of a hash request between its updates: nothing, as the hash API keeps it.
#[cfg(sm4rs_shash_block_only)]
#[derive(Clone, Copy)]
#[repr(C)]
pub(crate) struct Partial;

#[cfg(sm4rs_shash_block_only)]
impl Partial {
    /// Completes the description of a hash for this kernel's block-only hash interface.
    pub(crate) const fn adapt(alg: &mut bindings::shash_alg, final_nonzero: bool) {
        let mut flags = bindings::CRYPTO_AHASH_ALG_BLOCK_ONLY;
        if final_nonzero {
            flags |= bindings::CRYPTO_AHASH_ALG_FINAL_NONZERO;
        }
        // SAFETY: `halg` is the member of the union that the hash API uses.
        unsafe { alg.__bindgen_anon_1.halg.base.cra_flags |= flags };
    }

    /// Whether a hash of this block size (and `cra_blocksize`) can be served.
    pub(crate) const fn serves(block: u32, cra_block: u32) -> bool {
        block == cra_block && block > 0
    }

    /// Nothing to keep.
    pub(crate) const fn new() -> Self {
        Self
    }

    /// `update`: hands the whole blocks of `data` to `blocks` and returns the bytes left.
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

    /// `finup`: whole blocks go to `blocks`, the last 1 to `block` bytes (or none) to `last`.
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
