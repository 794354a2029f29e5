// SPDX-License-Identifier: GPL-2.0

//! SM4-GCM (NIST SP 800-38D over SM4; RFC 8998's `TLS_SM4_GCM_SM3`) with the ARMv8 Crypto
//! Extensions: SM4E for the counter mode and PMULL for GHASH, in `sm4_ce_gcm_core.S`.
//!
//! Registers the AEAD `gcm(sm4)` as `gcm-sm4-ce` (priority 400, as upstream's C driver):
//! 96-bit IVs, tags of 4, 8 and 12 to 16 bytes (`crypto_gcm_check_authsize()`); the
//! kernel's `rfc4106(gcm(sm4))` template builds on it. Loads only on CPUs with the SM4 and
//! PMULL instructions, and uses `sm4-ce`'s key schedule (`sm4_ce_expand_key`), as upstream's.

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
    edeadlk, InOut, Input, Neon, Secret, Simd, MAX_STEP,
};
use kernel::{
    error::code::{EINVAL, ENODEV},
    prelude::*,
};
use sm4::{RoundKeys, BLOCK_SIZE, KEY_SIZE};

module! {
    type: Sm4CeGcmModule,
    name: "sm4_ce_gcm",
    author: "The sm4-rs authors",
    description: "SM4-GCM (NIST SP 800-38D over SM4), ARMv8 Crypto Extensions",
    license: "GPL",
    alias: ["crypto-gcm(sm4)", "crypto-gcm-sm4-ce"],
}

/// The routines of `sm4_ce_gcm_core.S`; each must run in a kernel-mode NEON section.
mod asm {
    use super::{aead_mode::StepArgs, GcmState};
    use core::ffi::c_uint;

    extern "C" {
        pub(super) fn sm4rs_ce_gcm_init(rk: *const u32, htable: *mut u8);
        pub(super) fn sm4rs_ce_ghash(htable: *const u8, x: *mut u8, src: *const u8, n: c_uint);
        pub(super) fn sm4rs_ce_gcm_enc(
            key: *const u32,
            dst: *mut u8,
            src: *const u8,
            len: c_uint,
            st: *mut GcmState,
            ad: *const u8,
            step: StepArgs,
            iv: *const u8,
        );
        pub(super) fn sm4rs_ce_gcm_dec(
            key: *const u32,
            dst: *mut u8,
            src: *const u8,
            len: c_uint,
            st: *mut GcmState,
            ad: *const u8,
            step: StepArgs,
            iv: *const u8,
        );
    }
}

/// A block.
type Block = [u8; BLOCK_SIZE];

/// GCM's IV: 96 bits.
const IV_SIZE: usize = 12;

/// The hash key H = E(0) and its powers H^2 to H^8, bit-reflected (the core's form).
#[repr(C)]
struct HashKey([u8; 128]);

impl Default for HashKey {
    fn default() -> Self {
        Self([0; 128])
    }
}

impl HashKey {
    /// The table from the encryption schedule `rk` without NEON (a `setkey` where it may
    /// not be used): H with the Rust SM4 and the powers by a constant-time multiplication.
    /// H and its powers pass through wiped buffers only (as little-endian polynomials).
    fn compute(&mut self, rk: &RoundKeys) {
        let mut h = Secret::<BLOCK_SIZE>::zeroed();
        rk.crypt_block(&mut h);
        let h1 = reflect(&h);
        let mut p = Secret::new(*h1);
        for chunk in self.0.chunks_exact_mut(BLOCK_SIZE) {
            chunk.copy_from_slice(&p[..]);
            *p = gf_mul(u128::from_le_bytes(*p), u128::from_le_bytes(*h1)).to_le_bytes();
        }
    }
}

/// The block `b` as GF(2^128) polynomial, in the little-endian bytes of a `u128` whose bit
/// `i` is the coefficient of `x^i` (GCM's bit order is from the most significant bit of each
/// byte).
fn reflect(b: &Block) -> Secret<BLOCK_SIZE> {
    let mut r = Secret::<BLOCK_SIZE>::zeroed();
    for (o, i) in r.iter_mut().zip(b.iter()) {
        *o = i.reverse_bits();
    }
    r
}

/// `a * b` modulo x^128 + x^7 + x^2 + x + 1, in time independent of the values.
fn gf_mul(a: u128, b: u128) -> u128 {
    let (mut a, mut r) = (a, 0u128);
    for i in 0..128 {
        r ^= a & 0u128.wrapping_sub((b >> i) & 1);
        let carry = a >> 127;
        a = (a << 1) ^ (0x87 & 0u128.wrapping_sub(carry));
    }
    r
}

/// A transform's key: the encryption schedule and the hash key (wiped when dropped, with the
/// rest of the context); one block of memory for the cores, the table after the schedule.
#[derive(Default)]
#[repr(C)]
struct GcmKey {
    rk: RoundKeys,
    h: HashKey,
}

const _: () = assert!(core::mem::offset_of!(GcmKey, h) == 128);

/// The state of one request between its steps, as the cores read and write it (`struct
/// sm4rs_gcm_state` in `sm4_ce_gcm_core.S`); the hash and the tag's block wiped when dropped.
#[repr(C, align(16))]
struct GcmState {
    /// The counter block of the next keystream block, from the first step on.
    ctr: Block,
    /// The hash so far (GCM's byte order): with public associated data and ciphertext, H
    /// is a root of a known polynomial in it.
    x: Block,
    /// E(J0), which masks the tag, from the first step on; the tag after the last.
    tag: [u8; MAX_TAG],
    /// The lengths of the associated data and of the text, in bytes.
    lens: [u64; 2],
}

const _: () = {
    assert!(core::mem::offset_of!(GcmState, x) == 16);
    assert!(core::mem::offset_of!(GcmState, tag) == 32);
    assert!(core::mem::offset_of!(GcmState, lens) == 48);
};

impl GcmState {
    /// All zeros.
    #[inline(always)]
    fn zeroed() -> Self {
        // SAFETY: all zeros is a valid `GcmState`: byte arrays and integers.
        unsafe { core::mem::zeroed() }
    }
}

impl Drop for GcmState {
    fn drop(&mut self) {
        crypto::wipe(&mut self.x);
        crypto::wipe(&mut self.tag);
    }
}

/// A request's work, between NEON sections.
struct Gcm<'a> {
    key: &'a GcmKey,
    st: GcmState,
    /// The request's IV, from which the first step makes J0.
    iv: *const u8,
    decrypt: bool,
    /// [`FIRST`] until the first step, [`LAST`] after the last.
    flags: c_uint,
    /// The associated data's block that its pieces share, not yet hashed.
    ad: AssocBlocks,
}

impl<'a> Gcm<'a> {
    /// The work of `req`, none of it done.
    #[inline(always)]
    fn new(key: &'a GcmKey, req: &Request<'_, [u8; IV_SIZE]>, decrypt: bool) -> Self {
        let mut st = GcmState::zeroed();
        st.lens = [req.assoc_len() as u64, req.text_len() as u64];
        Self {
            key,
            st,
            iv: req.iv().as_ptr(),
            decrypt,
            flags: FIRST,
            ad: AssocBlocks::default(),
        }
    }

    /// A call of the core: E(J0) in the first, the associated data `ad` (whole, or empty),
    /// the whole blocks of `io`, and with `last` its partial last block and the tag.
    fn step(&mut self, _: &Neon, ad: Input<'_>, io: &mut InOut<'_>, last: bool) {
        let flags = self.flags | if last { LAST } else { 0 };
        let args = StepArgs {
            ad_len: ad.len() as c_uint,
            flags,
        };
        let (key, st) = (
            core::ptr::from_ref(self.key).cast::<u32>(),
            &raw mut self.st,
        );
        let (dst, src, len, ad) = (io.dst(), io.src(), io.len() as c_uint, ad.as_ptr());
        // Direct calls: the assembly has no kCFI type hash for a function pointer.
        // SAFETY: NEON is on (the token); `key` is the schedule followed by the table (the
        // `repr(C)` layout, asserted); `len` bytes at `src` and `dst`, the same or disjoint,
        // and `ad_len` at `ad` (lengths of `c_uint`s: `InOut`'s and `Input`'s invariants);
        // the state is the core's (`repr(C)`, asserted); `iv` the request's 12 bytes.
        unsafe {
            if self.decrypt {
                asm::sm4rs_ce_gcm_dec(key, dst, src, len, st, ad, args, self.iv)
            } else {
                asm::sm4rs_ce_gcm_enc(key, dst, src, len, st, ad, args, self.iv)
            }
        };
        self.flags = if last { LAST } else { 0 };
    }

    /// Hashes a piece of the associated data, as upstream's glue: its whole blocks, and
    /// the blocks it shares with the pieces before it or, with `last`, ends.
    fn ad(&mut self, _: &Neon, piece: Input<'_>, last: bool) {
        let (h, x) = (self.key.h.0.as_ptr(), self.st.x.as_mut_ptr());
        let mut piece = piece;
        while let Some(blocks) = self.ad.next(&mut piece, last) {
            // SAFETY: NEON is on (the token); the table is 128 bytes, the hash 16, and
            // `blocks` whole blocks.
            unsafe { asm::sm4rs_ce_ghash(h, x, blocks.as_ptr(), blocks.blocks(BLOCK_SIZE)) };
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

/// A request, as upstream's `gcm_crypt()`: the associated data a NEON section per piece of
/// the kernel's scatterwalk (or, in one piece of at most [`AD_WITH_TEXT_MAX`] bytes, in
/// the text's first section: kTLS, IPsec), the text a section per step of the kernel's walk,
/// the tag in the last; all in one section where the kernel lets a section span a request
/// (as its own glue does, Linux 7.3), if the request is longer than a step. Then the tag is
/// written or checked.
fn crypt(
    key: &GcmKey,
    req: &mut Request<'_, [u8; IV_SIZE]>,
    simd: &mut Simd,
    decrypt: bool,
) -> Result {
    let mut gcm = Gcm::new(key, req, decrypt);
    let (ad_len, worth) = (req.assoc_len(), req.assoc_len() + req.text_len() > MAX_STEP);
    simd.span(worth, |simd| {
        let mut ad = req.assoc();
        let first = match ad.whole(AD_WITH_TEXT_MAX) {
            Some(whole) => whole,
            None => {
                let mut seen = 0;
                while let Some(piece) = ad.next() {
                    seen += piece.len();
                    simd.neon(|neon| gcm.ad(neon, piece, seen == ad_len))
                        .ok_or_else(edeadlk)?;
                }
                Input::EMPTY
            }
        };
        gcm.text(req, simd, first)
    })?;
    req.finish(&gcm.st.tag)
}

/// `gcm(sm4)` with SM4E and PMULL.
struct GcmSm4Ce;

impl Aead for GcmSm4Ce {
    const NAME: &'static CStr = c"gcm(sm4)";
    const DRIVER_NAME: &'static CStr = c"gcm-sm4-ce";
    const PRIORITY: i32 = 400;
    const CHUNK_SIZE: u32 = BLOCK_SIZE as u32;
    const MIN_KEY_SIZE: u32 = KEY_SIZE as u32;
    const MAX_KEY_SIZE: u32 = KEY_SIZE as u32;
    const MAX_AUTH_SIZE: u32 = MAX_TAG as u32;

    type Iv = [u8; IV_SIZE];
    type Context = GcmKey;

    fn set_key(ctx: &mut GcmKey, key: &Key<'_>, simd: &mut Simd) -> Result {
        aead_mode::expand_encryption_key(key.bytes(), &mut ctx.rk, simd)?;
        let done = simd.neon(|_| {
            // SAFETY: NEON is on; a 32-word schedule and the 128-byte table.
            unsafe { asm::sm4rs_ce_gcm_init(ctx.rk.as_ptr(), ctx.h.0.as_mut_ptr()) }
        });
        if done.is_none() {
            ctx.h.compute(&ctx.rk);
        }
        Ok(())
    }

    fn check_auth_size(size: usize) -> Result {
        match size {
            4 | 8 | 12..=16 => Ok(()),
            _ => Err(EINVAL),
        }
    }

    fn encrypt(ctx: &GcmKey, req: &mut Request<'_, [u8; IV_SIZE]>, simd: &mut Simd) -> Result {
        crypt(ctx, req, simd, false)
    }

    fn decrypt(ctx: &GcmKey, req: &mut Request<'_, [u8; IV_SIZE]>, simd: &mut Simd) -> Result {
        crypt(ctx, req, simd, true)
    }
}

struct Sm4CeGcmModule {
    _aead: aead::Registration<1>,
}

impl kernel::Module for Sm4CeGcmModule {
    fn init(module: &'static ThisModule) -> Result<Self> {
        // Quietly, like the C driver's module_cpu_feature_match(SM4).
        if !crypto::cpu_has_sm4() || !crypto::cpu_has_pmull() {
            return Err(ENODEV);
        }
        Ok(Self {
            _aead: aead::Registration::new(module, [aead::alg::<GcmSm4Ce>()])?,
        })
    }
}
