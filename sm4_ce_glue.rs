// SPDX-License-Identifier: GPL-2.0

//! SM4 (GB/T 32907-2016) with the ARMv8 Crypto Extensions (SM4E, SM4EKEY).
//!
//! Registers the `sm4` cipher as `sm4-ce` (priority 300) and the skciphers `ecb(sm4)`,
//! `cbc(sm4)`, `cfb(sm4)`, `ctr(sm4)`, `cts(cbc(sm4))` and `xts(sm4)` as `<mode>-sm4-ce`
//! (priority 400). The block work is done by `sm4_ce_core.S`; the modes are `lib/modes.rs`.
//! Loads only on CPUs with the SM4 instructions.

// Out of tree, each module compiles its own copy of the abstraction and of the SM4 code and
// uses a part of them; their `pub` items are the API they would have in `kernel::crypto`.
#[path = "crypto/mod.rs"]
#[allow(dead_code, unreachable_pub)]
mod crypto;
#[path = "lib/modes.rs"]
#[allow(dead_code)]
mod modes;
#[path = "lib/sm4.rs"]
#[allow(dead_code, unreachable_pub)]
mod sm4;

use core::ffi::{c_uint, CStr};
use crypto::{
    cipher, simd,
    simd::{with_neon, Neon},
    skcipher::{self, InOut},
};
use kernel::{
    error::code::{EINVAL, ENODEV},
    prelude::*,
};
use modes::{Backend, Iv};
use sm4::{RoundKeys, BLOCK_SIZE, KEY_SIZE};

crypto::module! {
    type: Sm4CeModule,
    name: "sm4_ce",
    author: "The sm4-rs authors",
    description: "SM4 block cipher (GB/T 32907-2016), ARMv8 Crypto Extensions",
    license: "GPL",
    alias: [
        "cpu:type:*:feature:*0013*",
        "crypto-sm4", "crypto-sm4-ce",
        "crypto-ecb(sm4)", "crypto-ecb-sm4-ce",
        "crypto-cbc(sm4)", "crypto-cbc-sm4-ce",
        "crypto-cfb(sm4)", "crypto-cfb-sm4-ce",
        "crypto-ctr(sm4)", "crypto-ctr-sm4-ce",
        "crypto-cts(cbc(sm4))", "crypto-cts-cbc-sm4-ce",
        "crypto-xts(sm4)", "crypto-xts-sm4-ce",
    ],
}

/// The routines of `sm4_ce_core.S`. Each transforms exactly `nblocks` blocks from `src`
/// to `dst` (the same or disjoint) and must run in a kernel-mode NEON section.
mod asm {
    use core::ffi::c_uint;

    extern "C" {
        pub(super) fn sm4rs_ce_expand_key(
            key: *const u8,
            rk_enc: *mut u32,
            rk_dec: *mut u32,
            fk: *const u32,
            ck: *const u32,
        );
        pub(super) fn sm4rs_ce_crypt(rk: *const u32, dst: *mut u8, src: *const u8, n: c_uint);
        pub(super) fn sm4rs_ce_cbc_enc(
            rk: *const u32,
            dst: *mut u8,
            src: *const u8,
            n: c_uint,
            iv: *mut u8,
        );
        pub(super) fn sm4rs_ce_cbc_dec(
            rk: *const u32,
            dst: *mut u8,
            src: *const u8,
            n: c_uint,
            iv: *mut u8,
        );
        pub(super) fn sm4rs_ce_cfb_enc(
            rk: *const u32,
            dst: *mut u8,
            src: *const u8,
            n: c_uint,
            iv: *mut u8,
        );
        pub(super) fn sm4rs_ce_cfb_dec(
            rk: *const u32,
            dst: *mut u8,
            src: *const u8,
            n: c_uint,
            iv: *mut u8,
        );
        pub(super) fn sm4rs_ce_ctr(
            rk: *const u32,
            dst: *mut u8,
            src: *const u8,
            n: c_uint,
            iv: *mut u8,
        );
        pub(super) fn sm4rs_ce_xts(
            rk: *const u32,
            dst: *mut u8,
            src: *const u8,
            n: c_uint,
            tweak: *mut u8,
        );
    }
}

/// The type of the chained routines of `sm4_ce_core.S`.
type ChainFn = unsafe extern "C" fn(*const u32, *mut u8, *const u8, c_uint, *mut u8);

/// `nblocks`, limited to the whole blocks `io` has, as the routines' count.
fn blocks(io: &InOut<'_>, nblocks: usize) -> c_uint {
    let n = nblocks.min(io.len() / BLOCK_SIZE);
    c_uint::try_from(n).unwrap_or(c_uint::MAX)
}

/// Runs a chained routine over the first `nblocks` blocks of `io`.
fn chained(f: ChainFn, _: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
    let n = blocks(io, nblocks);
    // SAFETY: a NEON section is open (the token); `io` has at least `n` blocks at its
    // source and destination, which are equal or disjoint; `rk` is 32 round keys and `iv`
    // 16 bytes.
    unsafe { f(rk.0.as_ptr(), io.dst(), io.src(), n, iv.as_mut_ptr()) };
}

/// The Crypto Extensions back end.
struct Ce;

impl Backend for Ce {
    const ECB: &'static CStr = c"ecb-sm4-ce";
    const CBC: &'static CStr = c"cbc-sm4-ce";
    const CFB: &'static CStr = c"cfb-sm4-ce";
    const CTR: &'static CStr = c"ctr-sm4-ce";
    const CTS: &'static CStr = c"cts-cbc-sm4-ce";
    const XTS: &'static CStr = c"xts-sm4-ce";
    const PRIORITY: i32 = 400;
    const STRIDE: u32 = 8;

    fn expand_key(key: &[u8; KEY_SIZE]) -> sm4::Key {
        if !simd::usable() {
            return sm4::Key::from_bytes(key);
        }
        let mut k = sm4::Key::default();
        with_neon(|_| {
            // SAFETY: NEON is enabled; the pointers are to a 16-byte key, two 32-word
            // schedules, and the standard's 4 FK and 32 CK words.
            unsafe {
                asm::sm4rs_ce_expand_key(
                    key.as_ptr(),
                    k.enc.0.as_mut_ptr(),
                    k.dec.0.as_mut_ptr(),
                    sm4::FK.as_ptr(),
                    sm4::CK.as_ptr(),
                )
            }
        });
        k
    }

    fn ecb(_: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize) {
        let n = blocks(io, nblocks);
        // SAFETY: as in `chained`, without an IV.
        unsafe { asm::sm4rs_ce_crypt(rk.0.as_ptr(), io.dst(), io.src(), n) };
    }

    fn cbc_enc(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        chained(asm::sm4rs_ce_cbc_enc, neon, rk, io, nblocks, iv);
    }

    fn cbc_dec(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        chained(asm::sm4rs_ce_cbc_dec, neon, rk, io, nblocks, iv);
    }

    fn cfb_enc(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        chained(asm::sm4rs_ce_cfb_enc, neon, rk, io, nblocks, iv);
    }

    fn cfb_dec(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        chained(asm::sm4rs_ce_cfb_dec, neon, rk, io, nblocks, iv);
    }

    fn ctr(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        chained(asm::sm4rs_ce_ctr, neon, rk, io, nblocks, iv);
    }

    fn xts(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, tweak: &mut Iv) {
        chained(asm::sm4rs_ce_xts, neon, rk, io, nblocks, tweak);
    }
}

/// The `sm4` cipher with SM4E, one block at a time; the Rust code when NEON is not usable.
struct Sm4CeCipher;

impl cipher::Cipher for Sm4CeCipher {
    const NAME: &'static CStr = c"sm4";
    const DRIVER_NAME: &'static CStr = c"sm4-ce";
    const PRIORITY: i32 = 300;
    const MIN_KEY_SIZE: u32 = KEY_SIZE as u32;
    const MAX_KEY_SIZE: u32 = KEY_SIZE as u32;

    type Block = sm4::Block;
    type Context = sm4::Key;

    fn set_key(ctx: &mut sm4::Key, key: &[u8]) -> Result {
        let key: &[u8; KEY_SIZE] = key.try_into().map_err(|_| EINVAL)?;
        *ctx = Ce::expand_key(key);
        Ok(())
    }

    fn encrypt(ctx: &sm4::Key, block: &mut sm4::Block) {
        if simd::usable() {
            with_neon(|neon| Ce::ecb(neon, &ctx.enc, &mut InOut::in_place(block), 1));
        } else {
            ctx.encrypt_block(block);
        }
    }

    fn decrypt(ctx: &sm4::Key, block: &mut sm4::Block) {
        if simd::usable() {
            with_neon(|neon| Ce::ecb(neon, &ctx.dec, &mut InOut::in_place(block), 1));
        } else {
            ctx.decrypt_block(block);
        }
    }
}

struct Sm4CeModule {
    _cipher: cipher::Registration<Sm4CeCipher>,
    _skciphers: skcipher::Registration<6>,
}

impl kernel::Module for Sm4CeModule {
    fn init(module: &'static ThisModule) -> Result<Self> {
        if !simd::cpu_has_sm4() {
            pr_info!("the CPU has no SM4 instructions\n");
            return Err(ENODEV);
        }
        Ok(Self {
            _cipher: cipher::Registration::new(module)?,
            _skciphers: skcipher::Registration::new(module, modes::algs::<Ce>())?,
        })
    }
}

/// The back end and name of the shared KUnit suite.
type TestBackend = Ce;
const SUITE: &CStr = c"sm4_ce";

#[path = "tests/kunit/sm4_modes.rs"]
mod tests;
