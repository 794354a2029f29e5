// SPDX-License-Identifier: GPL-2.0

//! What the SM4 AEAD drivers share: the key schedule and the step arguments of their cores
//! (one routine per direction, a call per step of the walk).

use crate::crypto::Simd;
use crate::sm4::{self, RoundKeys, KEY_SIZE};
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
