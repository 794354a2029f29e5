// SPDX-License-Identifier: GPL-2.0

//! SM4-CCM (NIST SP 800-38C, RFC 3610 over SM4; RFC 8998's `TLS_SM4_CCM_SM3`) with the
//! ARMv8 Crypto Extensions: SM4E for the CBC-MAC and the counter mode, in
//! `sm4_ce_ccm_core.S`.
//!
//! Registers the AEAD `ccm(sm4)` as `ccm-sm4-ce` (priority 400, as upstream's C driver):
//! the kernel's CCM interface (a 16-byte IV whose first byte is L - 1, 1 to 7, followed by
//! the nonce), tags of 4 to 16 bytes in steps of 2; the kernel's `rfc4309(ccm(sm4))`
//! template builds on it. Loads only on CPUs with the SM4 instructions, and uses `sm4-ce`'s
//! key schedule (`sm4_ce_expand_key`), as upstream's.

// sm4rs-oot-begin
// Out of tree, each module compiles its own copy of the abstraction and of the SM4 code and
// uses a part of them; their `pub` items are the API they would have in `kernel::crypto`.
#[path = "crypto/mod.rs"]
#[allow(dead_code, unreachable_pub)]
mod crypto;
use crypto::module;
// sm4rs-oot-end
// sm4rs-in-tree: use kernel::crypto;
#[path = "sm4/aead_mode.rs"]
mod aead_mode;
#[path = "sm4/sm4.rs"]
#[allow(dead_code, unreachable_pub)]
mod sm4;

use aead_mode::{StepArgs, AD_WITH_TEXT_MAX, FIRST, LAST};
use core::ffi::{c_uint, CStr};
use crypto::{
    aead::{self, Aead, AssocBlocks, Request, MAX_TAG},
    alg::Key,
    edeadlk, eoverflow, InOut, Input, Neon, Simd, MAX_STEP,
};
use kernel::{
    error::code::{EINVAL, ENODEV},
    prelude::*,
};
use sm4::{RoundKeys, BLOCK_SIZE, KEY_SIZE};

module! {
    type: Sm4CeCcmModule,
    name: "sm4_ce_ccm",
    author: "The sm4-rs authors",
    description: "SM4-CCM (NIST SP 800-38C over SM4), ARMv8 Crypto Extensions",
    license: "GPL",
    alias: ["crypto-ccm(sm4)", "crypto-ccm-sm4-ce"],
}

/// The routines of `sm4_ce_ccm_core.S`; each must run in a kernel-mode NEON section.
mod asm {
    use super::{aead_mode::StepArgs, CcmState};
    use core::ffi::c_uint;

    extern "C" {
        pub(super) fn sm4rs_ce_ccm_mac(rk: *const u32, mac: *mut u8, src: *const u8, n: c_uint);
        pub(super) fn sm4rs_ce_ccm_enc(
            rk: *const u32,
            dst: *mut u8,
            src: *const u8,
            len: c_uint,
            st: *mut CcmState,
            ad: *const u8,
            step: StepArgs,
        );
        pub(super) fn sm4rs_ce_ccm_dec(
            rk: *const u32,
            dst: *mut u8,
            src: *const u8,
            len: c_uint,
            st: *mut CcmState,
            ad: *const u8,
            step: StepArgs,
        );
    }
}

/// A block.
type Block = [u8; BLOCK_SIZE];

/// The kernel's CCM IV: L - 1, the nonce, and room for the counter.
const IV_SIZE: usize = 16;

/// The state of one request between its steps, as the cores read and write it (`struct
/// sm4rs_ccm_state` in `sm4_ce_ccm_core.S`); the MAC and the tag's block wiped when dropped.
#[repr(C, align(16))]
struct CcmState {
    /// B0 until the first step, then the CBC-MAC so far (unmasked: the tag without S0).
    mac: Block,
    /// The counter block of the next keystream block (A0 until the first step).
    ctr: Block,
    /// S0 = E(A0), which masks the tag, from the first step on; the tag after the last.
    tag: [u8; MAX_TAG],
}

impl Drop for CcmState {
    fn drop(&mut self) {
        crypto::wipe(&mut self.mac);
        crypto::wipe(&mut self.tag);
    }
}

const _: () = {
    assert!(core::mem::offset_of!(CcmState, ctr) == 16);
    assert!(core::mem::offset_of!(CcmState, tag) == 32);
};

/// B0 and A0 of a request (RFC 3610 2.2, 2.3) with the kernel's IV `iv` (L - 1, the nonce,
/// room for the counter), from the lengths of its associated data, text and tag; `EINVAL`
/// for an IV whose L is not 2 to 8, `EOVERFLOW` for a text too long for L bytes.
fn first_blocks(
    iv: &[u8; IV_SIZE],
    ad_len: usize,
    text_len: usize,
    tag_len: usize,
) -> Result<[Block; 2]> {
    let lp = iv[0];
    if !(1..=7).contains(&lp) {
        return Err(EINVAL);
    }
    // The counter field: the last L bytes, 16 to 64 bits.
    let bits = 8 * (u32::from(lp) + 1);
    let len = text_len as u64;
    if bits < 64 && len >> bits != 0 {
        return Err(eoverflow());
    }
    let a0 = u128::from_be_bytes(*iv) & !((1u128 << bits) - 1);
    let tag_field = (tag_len.saturating_sub(2) / 2) as u8;
    let flags = lp | (tag_field << 3) | if ad_len > 0 { 0x40 } else { 0 };
    let b0 = (a0 & !(0xffu128 << 120)) | (u128::from(flags) << 120) | u128::from(len);
    Ok([b0.to_be_bytes(), a0.to_be_bytes()])
}

/// A request's work, between NEON sections.
struct Ccm<'a> {
    rk: &'a RoundKeys,
    st: CcmState,
    decrypt: bool,
    /// [`FIRST`] until the first step, [`LAST`] after the last.
    flags: c_uint,
    /// The block that the associated data's pieces (after its length) share, not yet MACed.
    ad: AssocBlocks,
}

impl<'a> Ccm<'a> {
    /// The work of a request with B0 and A0 (`first_blocks`), none of it done.
    fn new(rk: &'a RoundKeys, [b0, ctr]: [Block; 2], decrypt: bool) -> Self {
        Self {
            rk,
            st: CcmState {
                mac: b0,
                ctr,
                tag: [0; MAX_TAG],
            },
            decrypt,
            flags: FIRST,
            ad: AssocBlocks::default(),
        }
    }

    /// MACs the encoded length of associated data of `ad_len` bytes (more than none; RFC
    /// 3610 2.2), which comes before them (after the first step).
    fn ad_len(&mut self, neon: &Neon, ad_len: usize) {
        let mut prefix = [0u8; 6];
        let n = if ad_len < 0xff00 {
            prefix[..2].copy_from_slice(&(ad_len as u16).to_be_bytes());
            2
        } else {
            prefix[..2].copy_from_slice(&[0xff, 0xfe]);
            prefix[2..].copy_from_slice(&(ad_len as u32).to_be_bytes());
            6
        };
        self.ad(neon, Input::from_array(&prefix).split_at(n).0, false);
    }

    /// A call of the core: E(B0) and S0 in the first, the associated data `ad` (whole, or
    /// empty) after its length, the whole blocks of `io`, and with `last` its partial last
    /// block and the tag.
    fn step(&mut self, _: &Neon, ad: Input<'_>, io: &mut InOut<'_>, last: bool) {
        let flags = self.flags | if last { LAST } else { 0 };
        let args = StepArgs {
            ad_len: ad.len() as c_uint,
            flags,
        };
        let (rk, st) = (self.rk.as_ptr(), &raw mut self.st);
        let (dst, src, len, ad) = (io.dst(), io.src(), io.len() as c_uint, ad.as_ptr());
        // Direct calls: the assembly has no kCFI type hash for a function pointer.
        // SAFETY: NEON is on (the token); the schedule is 32 words; `len` bytes at `src` and
        // `dst`, the same or disjoint, and `ad_len` at `ad` (lengths of `c_uint`s:
        // `InOut`'s and `Input`'s invariants); the state is the core's (`repr(C)`,
        // asserted).
        unsafe {
            if self.decrypt {
                asm::sm4rs_ce_ccm_dec(rk, dst, src, len, st, ad, args)
            } else {
                asm::sm4rs_ce_ccm_enc(rk, dst, src, len, st, ad, args)
            }
        };
        self.flags = if last { LAST } else { 0 };
    }

    /// MACs a piece of the associated data (after the first step), as upstream's glue: its
    /// whole blocks, and the blocks it shares with the pieces before it or, with `last`,
    /// ends.
    fn ad(&mut self, _: &Neon, piece: Input<'_>, last: bool) {
        let (rk, mac) = (self.rk.as_ptr(), self.st.mac.as_mut_ptr());
        let mut piece = piece;
        while let Some(blocks) = self.ad.next(&mut piece, last) {
            // SAFETY: NEON is on (the token); the schedule is 32 words, the MAC 16 bytes,
            // and `blocks` whole blocks.
            unsafe { asm::sm4rs_ce_ccm_mac(rk, mac, blocks.as_ptr(), blocks.blocks(BLOCK_SIZE)) };
        }
    }

    /// The text, a NEON section per step of the kernel's walk (or `Simd::span`'s one), with
    /// `ad` (the associated data whole, or empty) in the first; the tag in the last (a step of
    /// its own if there is no text).
    fn text(
        &mut self,
        req: &mut Request<'_, [u8; IV_SIZE]>,
        simd: &mut Simd,
        ad: Input<'_>,
    ) -> Result {
        let mut ad = Some(ad);
        {
            // (Ended in place at the block's end: `drop(walk)` would copy it.)
            let mut walk = req.walk(simd);
            while let Some(mut step) = walk.next()? {
                let last = step.is_last();
                let a = ad.take().unwrap_or(Input::EMPTY);
                step.neon(|neon, io, _| self.step(neon, a, io, last))?;
                if !last {
                    step.leave(step.len() % BLOCK_SIZE);
                }
            }
        }
        if self.flags != LAST {
            let a = ad.take().unwrap_or(Input::EMPTY);
            let mut none = [0u8; 0];
            simd.neon(|neon| self.step(neon, a, &mut InOut::in_place(&mut none), true))
                .ok_or_else(edeadlk)?;
        }
        Ok(())
    }
}

/// A request, as upstream's `ccm_crypt()`: B0 and A0 from the IV and the lengths; the
/// associated data (after the first step, which starts the MAC with E(B0)) a NEON section
/// per piece of the kernel's scatterwalk (or, in one piece of at most [`AD_WITH_TEXT_MAX`]
/// bytes, in the text's first section), the text a section per step of the kernel's walk,
/// the tag in the last; all in one section where the kernel lets a section span a request
/// (Linux 7.3), if the request is longer than a step. Then the tag is written or checked.
fn crypt(
    rk: &RoundKeys,
    req: &mut Request<'_, [u8; IV_SIZE]>,
    simd: &mut Simd,
    decrypt: bool,
) -> Result {
    let (ad_len, text_len, tag_len) = (req.assoc_len(), req.text_len(), req.auth_size());
    let mut ccm = Ccm::new(
        rk,
        first_blocks(req.iv(), ad_len, text_len, tag_len)?,
        decrypt,
    );
    simd.span(ad_len + text_len > MAX_STEP, |simd| {
        let mut ad = req.assoc();
        let first = match ad.whole(AD_WITH_TEXT_MAX) {
            Some(whole) => whole,
            None => {
                let mut seen = 0;
                while let Some(piece) = ad.next() {
                    seen += piece.len();
                    simd.neon(|neon| {
                        if ccm.flags == FIRST {
                            let mut none = [0u8; 0];
                            ccm.step(neon, Input::EMPTY, &mut InOut::in_place(&mut none), false);
                            ccm.ad_len(neon, ad_len);
                        }
                        ccm.ad(neon, piece, seen == ad_len)
                    })
                    .ok_or_else(edeadlk)?;
                }
                Input::EMPTY
            }
        };
        ccm.text(req, simd, first)
    })?;
    req.finish(&ccm.st.tag)
}

/// `ccm(sm4)` with SM4E.
struct CcmSm4Ce;

impl Aead for CcmSm4Ce {
    const NAME: &'static CStr = c"ccm(sm4)";
    const DRIVER_NAME: &'static CStr = c"ccm-sm4-ce";
    const PRIORITY: i32 = 400;
    const CHUNK_SIZE: u32 = BLOCK_SIZE as u32;
    const MIN_KEY_SIZE: u32 = KEY_SIZE as u32;
    const MAX_KEY_SIZE: u32 = KEY_SIZE as u32;
    const MAX_AUTH_SIZE: u32 = MAX_TAG as u32;

    type Iv = [u8; IV_SIZE];
    type Context = RoundKeys;

    fn set_key(ctx: &mut RoundKeys, key: &Key<'_>, simd: &mut Simd) -> Result {
        aead_mode::expand_encryption_key(key.bytes(), ctx, simd)
    }

    fn check_auth_size(size: usize) -> Result {
        match size {
            4..=16 if size % 2 == 0 => Ok(()),
            _ => Err(EINVAL),
        }
    }

    fn encrypt(ctx: &RoundKeys, req: &mut Request<'_, [u8; IV_SIZE]>, simd: &mut Simd) -> Result {
        crypt(ctx, req, simd, false)
    }

    fn decrypt(ctx: &RoundKeys, req: &mut Request<'_, [u8; IV_SIZE]>, simd: &mut Simd) -> Result {
        crypt(ctx, req, simd, true)
    }
}

struct Sm4CeCcmModule {
    _aead: aead::Registration<1>,
}

impl kernel::Module for Sm4CeCcmModule {
    fn init(module: &'static ThisModule) -> Result<Self> {
        // Quietly, like the C driver's module_cpu_feature_match(SM4).
        if !crypto::cpu_has_sm4() {
            return Err(ENODEV);
        }
        Ok(Self {
            _aead: aead::Registration::new(module, [aead::alg::<CcmSm4Ce>()])?,
        })
    }
}
