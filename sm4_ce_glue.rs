// SPDX-License-Identifier: GPL-2.0

//! SM4 (GB/T 32907-2016) with the ARMv8 Crypto Extensions (SM4E, SM4EKEY).
//!
//! Registers the `sm4` cipher as `sm4-ce` (priority 300) and the skciphers `ecb(sm4)`,
//! `cbc(sm4)`, `ctr(sm4)`, `cts(cbc(sm4))`, `xts(sm4)` (and, with `CRYPTO_SM4_RUST_CFB`,
//! `cfb(sm4)`) as `<mode>-sm4-ce` (priority 400), and the MACs
//! `cmac(sm4)`, `xcbc(sm4)` and `cbcmac(sm4)` as `<mac>-sm4-ce` (priority 400). The block
//! work is done by `sm4_ce_core.S`; the modes are `sm4/modes.rs`, the MACs `sm4/mac.rs`.
//! Loads only on CPUs with the SM4 instructions.
//!
//! `sm4_ce_core.S` also exports upstream's C interface of this module (`sm4_ce_expand_key`,
//! `sm4_ce_crypt_block`, `sm4_ce_cbc_enc`), which the `sm4-ce-gcm` and `sm4-ce-ccm` modules
//! link against.

// sm4rs-oot-begin
// Out of tree, each module compiles its own copy of the abstraction and of the SM4 code and
// uses a part of them; their `pub` items are the API they would have in `kernel::crypto`.
#[path = "crypto/mod.rs"]
#[allow(dead_code, unreachable_pub)]
mod crypto;
use crypto::module;
// sm4rs-oot-end
// sm4rs-in-tree: use kernel::crypto;
#[path = "sm4/mac.rs"]
#[allow(dead_code)]
mod mac;
#[path = "sm4/modes.rs"]
#[allow(dead_code)]
mod modes;
#[path = "sm4/sm4.rs"]
#[allow(dead_code, unreachable_pub)]
mod sm4;

use core::ffi::{c_uint, CStr};
use crypto::{
    cipher::{self, BlockIo},
    shash, skcipher, InOut, Input, Neon, Simd,
};
use kernel::{
    error::code::{EINVAL, ENODEV},
    prelude::*,
};
use mac::MacBackend;
use modes::{Backend, Iv};
use sm4::{RoundKeys, BLOCK_SIZE, KEY_SIZE};

module! {
    type: Sm4CeModule,
    name: "sm4_ce",
    author: "The sm4-rs authors",
    description: "SM4 block cipher (GB/T 32907-2016), ARMv8 Crypto Extensions",
    license: "GPL",
    alias: [
        "cpu:type:*:feature:*0013*",
        "crypto-sm4", "crypto-sm4-ce",
        "crypto-cmac(sm4)", "crypto-cmac-sm4-ce",
        "crypto-xcbc(sm4)", "crypto-xcbc-sm4-ce",
        "crypto-cbcmac(sm4)", "crypto-cbcmac-sm4-ce",
    ],
}

// The skciphers' aliases, from the list of modes.
crypto::alg::alias_crypto!("sm4_ce", &modes::aliases(Ce::DRIVER_SUFFIX));

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
        #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
        pub(super) fn sm4rs_ce_cfb_enc(
            rk: *const u32,
            dst: *mut u8,
            src: *const u8,
            n: c_uint,
            iv: *mut u8,
        );
        #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
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
            rk2: *const u32,
            iv: *const u8,
        );
        pub(super) fn sm4rs_ce_cbcmac(rk: *const u32, mac: *mut u8, src: *const u8, n: c_uint);
    }
}

/// `nblocks`, limited to the whole blocks `io` has, as the routines' count.
fn blocks(io: &InOut<'_>, nblocks: usize) -> c_uint {
    let whole = io.blocks(BLOCK_SIZE);
    // (Not more than `whole`, a `c_uint`.)
    nblocks.min(whole as usize) as c_uint
}

/// Calls the chained routine `$f` of `sm4_ce_core.S` directly (no function pointer: the
/// assembly has no kCFI type hash) over the first `$n` blocks of `$io`.
macro_rules! chained {
    ($f:ident, $rk:expr, $io:expr, $n:expr, $iv:expr) => {{
        let (rk, io, iv): (&RoundKeys, &mut InOut<'_>, &mut Iv) = ($rk, $io, $iv);
        let n = blocks(io, $n);
        // SAFETY: a NEON section is open (the caller holds the token); `io` has at least
        // `n` blocks at its source and destination, which are equal or disjoint; `rk` is 32
        // round keys and `iv` 16 bytes.
        unsafe { asm::$f(rk.as_ptr(), io.dst(), io.src(), n, iv.as_mut_ptr()) }
    }};
}

/// The Crypto Extensions back end.
struct Ce;

impl Backend for Ce {
    const DRIVER_SUFFIX: &'static str = "sm4-ce";
    const PRIORITY: i32 = 400;
    const STRIDE: u32 = 8;

    fn expand_key(key: &[u8; KEY_SIZE], out: &mut sm4::Key, simd: &mut Simd) {
        let done = simd.neon(|_| {
            // SAFETY: NEON is enabled; the pointers are to a 16-byte key, two 32-word
            // schedules, and the standard's 4 FK and 32 CK words.
            unsafe {
                asm::sm4rs_ce_expand_key(
                    key.as_ptr(),
                    out.enc.as_mut_ptr(),
                    out.dec.as_mut_ptr(),
                    sm4::FK.as_ptr(),
                    sm4::CK.as_ptr(),
                )
            }
        });
        if done.is_none() {
            out.expand_into(key);
        }
    }

    fn ecb(_: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize) {
        let n = blocks(io, nblocks);
        // SAFETY: as in `chained!`, without an IV.
        unsafe { asm::sm4rs_ce_crypt(rk.as_ptr(), io.dst(), io.src(), n) };
    }

    fn cbc_enc(_: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        chained!(sm4rs_ce_cbc_enc, rk, io, nblocks, iv);
    }

    fn cbc_dec(_: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        chained!(sm4rs_ce_cbc_dec, rk, io, nblocks, iv);
    }

    #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
    fn cfb_enc(_: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        chained!(sm4rs_ce_cfb_enc, rk, io, nblocks, iv);
    }

    #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
    fn cfb_dec(_: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        chained!(sm4rs_ce_cfb_dec, rk, io, nblocks, iv);
    }

    fn ctr(_: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        chained!(sm4rs_ce_ctr, rk, io, nblocks, iv);
    }

    fn xts(
        _: &Neon,
        rk: &RoundKeys,
        io: &mut InOut<'_>,
        nblocks: usize,
        tweak: &mut Iv,
        first: Option<(&RoundKeys, &Iv)>,
    ) {
        let n = blocks(io, nblocks);
        let (rk2, iv) = first.map_or((core::ptr::null(), core::ptr::null()), |(k, iv)| {
            (k.as_ptr(), iv.as_ptr())
        });
        let (dst, src, t) = (io.dst(), io.src(), tweak.as_mut_ptr());
        // SAFETY: a NEON section is open (the caller holds the token); `io` has at least
        // `n` blocks at its source and destination, equal or disjoint; `rk` (and `rk2` if
        // not NULL) is 32 round keys, `tweak` 16 bytes and `iv`, read with `rk2`, too.
        unsafe { asm::sm4rs_ce_xts(rk.as_ptr(), dst, src, n, t, rk2, iv) }
    }
}

impl MacBackend for Ce {
    fn cbcmac(_: &Neon, rk: &RoundKeys, mac: &mut sm4::Block, data: &Input<'_>) {
        let n = data.blocks(BLOCK_SIZE);
        // SAFETY: a NEON section is open (the caller holds the token); `data` has `n` whole
        // readable blocks, `mac` is one block and `rk` 32 round keys.
        unsafe { asm::sm4rs_ce_cbcmac(rk.as_ptr(), mac.as_mut_ptr(), data.as_ptr(), n) }
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

    fn set_key(ctx: &mut sm4::Key, key: &[u8], simd: &mut Simd) -> Result {
        let key: &[u8; KEY_SIZE] = key.try_into().map_err(|_| EINVAL)?;
        Ce::expand_key(key, ctx, simd);
        Ok(())
    }

    fn encrypt(ctx: &sm4::Key, block: &mut BlockIo<'_, sm4::Block>, simd: &mut Simd) {
        let block = block.in_place();
        let done = simd.neon(|neon| Ce::ecb(neon, &ctx.enc, &mut InOut::in_place(block), 1));
        if done.is_none() {
            ctx.encrypt_block(block);
        }
    }

    fn decrypt(ctx: &sm4::Key, block: &mut BlockIo<'_, sm4::Block>, simd: &mut Simd) {
        let block = block.in_place();
        let done = simd.neon(|neon| Ce::ecb(neon, &ctx.dec, &mut InOut::in_place(block), 1));
        if done.is_none() {
            ctx.decrypt_block(block);
        }
    }
}

struct Sm4CeModule {
    _cipher: cipher::Registration<1>,
    _skciphers: skcipher::Registration<{ modes::MODES }>,
    _macs: shash::Registration<3>,
}

impl kernel::Module for Sm4CeModule {
    fn init(module: &'static ThisModule) -> Result<Self> {
        // Quietly, like the C drivers' module_cpu_feature_match(): on CPUs without SM4 every
        // boot tries to load the module for its aliases.
        if !crypto::cpu_has_sm4() {
            return Err(ENODEV);
        }
        Ok(Self {
            _cipher: cipher::Registration::new(module, [cipher::alg::<Sm4CeCipher>()])?,
            _skciphers: skcipher::Registration::new(module, modes::algs::<Ce>())?,
            _macs: shash::Registration::new(
                module,
                [
                    shash::alg::<mac::Cmac<Ce>>(),
                    shash::alg::<mac::Xcbc<Ce>>(),
                    shash::alg::<mac::CbcMac<Ce>>(),
                ],
            )?,
        })
    }
}
