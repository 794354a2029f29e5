// SPDX-License-Identifier: GPL-2.0

//! What the SM4 AEAD drivers share: the key schedule, the step arguments of their cores
//! (one routine per direction, a call per step of the walk), and the associated data that
//! is not in one piece, handed over in pieces of any length (the kernel's scatterwalk's,
//! as [`Input`]s: raw views of the caller's memory), fed to a block function in whole
//! blocks ([`Feed`]: the hash of GCM, the CBC-MAC of CCM).

use crate::crypto::{simd::Simd, Input};
use crate::sm4::{self, RoundKeys, BLOCK_SIZE, KEY_SIZE};
use core::ffi::c_uint;
use kernel::error::{code::EINVAL, Result};

extern "C" {
    /// `sm4-ce`'s export (upstream's interface): both schedules of `key`, with SM4EKEY; must
    /// run in a kernel-mode NEON section.
    fn sm4_ce_expand_key(
        key: *const u8,
        rk_enc: *mut u32,
        rk_dec: *mut u32,
        fk: *const u32,
        ck: *const u32,
    );
}

/// The encryption schedule of `key` into `rk`, in place: with `sm4-ce`'s SM4EKEY where NEON
/// may be used, with the Rust schedule otherwise (a `setkey` where it may not). `EINVAL`
/// unless the key is 16 bytes.
pub(crate) fn expand_encryption_key(key: &[u8], rk: &mut RoundKeys, simd: &mut Simd) -> Result {
    let key: &[u8; KEY_SIZE] = key.try_into().map_err(|_| EINVAL)?;
    let mut dec = RoundKeys::default();
    let done = simd.neon(|_| {
        // SAFETY: NEON is on; a 16-byte key, two 32-word schedules, the standard's 4 FK and
        // 32 CK words.
        unsafe {
            sm4_ce_expand_key(
                key.as_ptr(),
                rk.as_mut_ptr(),
                dec.as_mut_ptr(),
                sm4::FK.as_ptr(),
                sm4::CK.as_ptr(),
            )
        }
    });
    if done.is_none() {
        rk.expand_into(key);
    }
    Ok(())
}

/// A step's flag (bit 0 of [`StepArgs::flags`]): the request's first step, which also
/// makes the block that masks the tag.
pub(crate) const FIRST: c_uint = 1;
/// A step's flag (bit 1 of [`StepArgs::flags`]): the request's last step, which also does
/// the partial block that ends the text and computes the tag.
pub(crate) const LAST: c_uint = 2;

/// What a core's step gets besides its pointers (`struct sm4rs_aead_step` of the cores,
/// passed by value: one register).
#[repr(C)]
pub(crate) struct StepArgs {
    /// The length of the associated data in one piece the step takes (0: none).
    pub(crate) ad_len: c_uint,
    /// [`FIRST`], [`LAST`], both or neither.
    pub(crate) flags: c_uint,
}

/// The most associated data hashed in the NEON section of the text's first step (kTLS sends
/// 13 bytes, IPsec 8 to 20): the section stays within a page of text and a little more.
pub(crate) const AD_WITH_TEXT_MAX: usize = 256;

/// A partial block kept between pieces.
///
/// # Invariants
///
/// `fill < BLOCK_SIZE` between calls.
pub(crate) struct Feed {
    part: [u8; BLOCK_SIZE],
    fill: usize,
}

impl Feed {
    /// An empty feed, or one that starts with `prefix` (CCM's encoded length of the
    /// associated data; at most a block).
    pub(crate) fn new(prefix: &[u8]) -> Self {
        let mut part = [0; BLOCK_SIZE];
        let fill = prefix.len().min(BLOCK_SIZE - 1);
        part[..fill].copy_from_slice(&prefix[..fill]);
        // INVARIANT: `fill < BLOCK_SIZE`.
        Self { part, fill }
    }

    /// Feeds `data`: `f(p, n)` gets `n` whole blocks at `p` (in this buffer or in `data`),
    /// in order; what is left of a block waits for the next piece.
    pub(crate) fn feed(&mut self, data: Input<'_>, mut f: impl FnMut(*const u8, c_uint)) {
        let mut data = data;
        if self.fill > 0 {
            let k = (BLOCK_SIZE - self.fill).min(data.len());
            let (head, rest) = data.split_at(k);
            head.read(&mut self.part[self.fill..self.fill + k]);
            self.fill += k;
            data = rest;
            if self.fill < BLOCK_SIZE {
                return;
            }
            f(self.part.as_ptr(), 1);
            self.fill = 0;
        }
        let whole = data.blocks(BLOCK_SIZE);
        if whole > 0 {
            f(data.as_ptr(), whole);
        }
        let (_, rest) = data.split_at(whole as usize * BLOCK_SIZE);
        rest.read(&mut self.part[..rest.len()]);
        // INVARIANT: `rest` is shorter than a block.
        self.fill = rest.len();
    }

    /// Feeds what is left padded with zeros to a block (nothing if nothing is left).
    pub(crate) fn flush(&mut self, mut f: impl FnMut(*const u8, c_uint)) {
        if self.fill > 0 {
            self.part[self.fill..].fill(0);
            f(self.part.as_ptr(), 1);
            self.fill = 0;
        }
    }
}
