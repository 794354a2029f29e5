// SPDX-License-Identifier: GPL-2.0

//! SM4 (GB/T 32907-2016) with plain NEON, for arm64 CPUs without the SM4 instructions.
//!
//! Registers the skciphers `ecb(sm4)`, `cbc(sm4)`, `cfb(sm4)` and `ctr(sm4)` (and, as the
//! mode layer gives them for free, `cts(cbc(sm4))` and `xts(sm4)`) as `<mode>-sm4-neon`,
//! priority 200. The block work is `sm4_neon_core.S`: eight blocks at a time with the S-box
//! in registers (`tbl`/`tbx`), so nothing depends on secret data for its timing. The modes
//! are `lib/modes.rs`, shared with the Crypto Extensions driver; the key schedule is the
//! Rust one of `lib/sm4.rs`.
//!
//! What is constant time and what is not:
//!
//! - ECB, CBC decryption, CFB decryption, CTR and the bulk of XTS run in the NEON core,
//!   whose S-box lookups are `tbl` instructions over registers: no memory access or branch
//!   depends on the data or the key.
//! - CBC and CFB encryption are serial (each block needs the previous one) and go a block
//!   at a time through the Rust block function of `lib/sm4.rs`, which looks its S-box up
//!   in memory: the addresses it reads depend on the data and the round keys, so they are
//!   not constant time on CPUs with data caches (the C driver upstream does the same, for
//!   the same reason: one block through the eight-block NEON core costs more than twice as
//!   much). So are the last blocks of CTS encryption, which are CBC encryption.
//! - The key schedule is the Rust one, with the same in-memory S-box: its timing may
//!   depend on the key.

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
    simd::{Neon, Simd},
    skcipher::{self, InOut},
};
use kernel::prelude::*;
use modes::{Backend, Iv};
use sm4::{RoundKeys, BLOCK_SIZE, KEY_SIZE};

crypto::module! {
    type: Sm4NeonModule,
    name: "sm4_neon",
    author: "The sm4-rs authors",
    description: "SM4 block cipher (GB/T 32907-2016), NEON",
    license: "GPL",
    alias: [
        "crypto-ecb(sm4)", "crypto-ecb-sm4-neon",
        "crypto-cbc(sm4)", "crypto-cbc-sm4-neon",
        "crypto-cfb(sm4)", "crypto-cfb-sm4-neon",
        "crypto-ctr(sm4)", "crypto-ctr-sm4-neon",
        "crypto-cts(cbc(sm4))", "crypto-cts-cbc-sm4-neon",
        "crypto-xts(sm4)", "crypto-xts-sm4-neon",
    ],
}

/// The routines of `sm4_neon_core.S`: `dst = E(src ^ pre) ^ post` over batches of 8
/// blocks, or exactly 4 blocks, where `pre` and `post` may be NULL; in a kernel-mode NEON
/// section.
mod asm {
    use core::ffi::c_uint;

    extern "C" {
        pub(super) fn sm4rs_neon_crypt(
            rk: *const u32,
            dst: *mut u8,
            src: *const u8,
            n: c_uint,
            sbox: *const u8,
            pre: *const u8,
            post: *const u8,
        );
        pub(super) fn sm4rs_neon_crypt4(
            rk: *const u32,
            dst: *mut u8,
            src: *const u8,
            sbox: *const u8,
            pre: *const u8,
            post: *const u8,
        );
    }
}

/// The blocks of one batch of the core.
const BATCH: usize = 8;

/// Up to 8 blocks on the stack, 16-byte aligned so that whole-block operations are word
/// operations (each `u128` holds a block's bytes in memory order); wiped when it goes out
/// of scope.
#[repr(C, align(16))]
struct Batch([u128; BATCH]);

impl Batch {
    /// All zeros.
    const fn zeroed() -> Self {
        Self([0; BATCH])
    }

    /// The batch's bytes.
    fn bytes_mut(&mut self) -> &mut [u8; BATCH * BLOCK_SIZE] {
        // SAFETY: `[u128; 8]` is 128 initialised bytes, any value of which is a valid `u8`;
        // borrowed exclusively from `self`.
        unsafe { &mut *self.0.as_mut_ptr().cast::<[u8; BATCH * BLOCK_SIZE]>() }
    }

    fn ptr(&self) -> *const u8 {
        self.0.as_ptr().cast()
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        for b in self.0.iter_mut() {
            // SAFETY: `b` is a valid, exclusive, aligned reference.
            unsafe { core::ptr::write_volatile(b, 0) };
        }
    }
}

/// A block as a batch word (its bytes in memory order).
fn word(b: &Iv) -> u128 {
    u128::from_ne_bytes(*b)
}

/// The operands of one run of the core; `Data` stands for the group's own source.
#[derive(Clone, Copy)]
enum Op<'a> {
    None,
    Data,
    Stack(&'a Batch),
}

/// `g.dst = E(src ^ pre) ^ post` for the `k` (1 to 8) blocks of the group `g`. Groups of 4
/// or 8 blocks run on their memory; others are copied to a stack batch and back, so that
/// the core, which does 4 or 8, reads and writes nothing outside the data.
fn run(
    _: &Neon,
    rk: &RoundKeys,
    g: &mut InOut<'_>,
    k: usize,
    src: Op<'_>,
    pre: Op<'_>,
    post: Op<'_>,
) {
    let mut copy = Batch::zeroed();
    let direct = k == 4 || k == BATCH;
    let (data_in, data_out): (*const u8, *mut u8) = if direct {
        (g.src(), g.dst())
    } else {
        g.read(&mut copy.bytes_mut()[..k * BLOCK_SIZE]);
        let p = copy.bytes_mut().as_mut_ptr();
        (p.cast_const(), p)
    };
    let op = |o: Op<'_>| match o {
        Op::None => core::ptr::null(),
        Op::Data => data_in,
        Op::Stack(b) => b.ptr(),
    };
    let (s, pr, po) = (op(src), op(pre), op(post));
    let sbox = sm4::SBOX.as_ptr();
    if k <= 4 {
        // SAFETY: a NEON section is open (the token); every operand has 4 blocks (the
        // group's memory when it has 4, else 8-block stack batches), the destination is
        // the source, an operand, or disjoint from them; `rk` is 32 round keys and the
        // S-box 256 bytes.
        unsafe { asm::sm4rs_neon_crypt4(rk.0.as_ptr(), data_out, s, sbox, pr, po) };
    } else {
        // SAFETY: as above, with 8 blocks.
        unsafe { asm::sm4rs_neon_crypt(rk.0.as_ptr(), data_out, s, 1, sbox, pr, po) };
    }
    if !direct {
        g.write(&copy.bytes_mut()[..k * BLOCK_SIZE]);
    }
}

/// Runs `f` on each group of up to 8 blocks of the first `nblocks` blocks of `io` (`f` gets
/// the group and its number of blocks).
fn by_group(io: &mut InOut<'_>, nblocks: usize, mut f: impl FnMut(&mut InOut<'_>, usize)) {
    let nblocks = nblocks.min(io.len() / BLOCK_SIZE);
    let mut done = 0;
    while done < nblocks {
        let k = (nblocks - done).min(BATCH);
        f(&mut io.range(done * BLOCK_SIZE, k * BLOCK_SIZE), k);
        done += k;
    }
}

/// The NEON back end.
struct NeonBackend;

impl Backend for NeonBackend {
    const ECB: &'static CStr = c"ecb-sm4-neon";
    const CBC: &'static CStr = c"cbc-sm4-neon";
    const CFB: &'static CStr = c"cfb-sm4-neon";
    const CTR: &'static CStr = c"ctr-sm4-neon";
    const CTS: &'static CStr = c"cts-cbc-sm4-neon";
    const XTS: &'static CStr = c"xts-sm4-neon";
    const PRIORITY: i32 = 200;
    const STRIDE: u32 = BATCH as u32;

    fn expand_key(key: &[u8; KEY_SIZE], out: &mut sm4::Key, _: &mut Simd) {
        out.expand_into(key);
    }

    fn ecb(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize) {
        let nblocks = nblocks.min(io.len() / BLOCK_SIZE);
        let whole = nblocks / BATCH;
        if whole > 0 {
            let n = c_uint::try_from(whole).unwrap_or(c_uint::MAX);
            let null = core::ptr::null();
            // SAFETY: a NEON section is open (the token); `io` has `whole` batches at its
            // source and destination, equal or disjoint; `rk` is 32 round keys and the S-box
            // 256 bytes.
            unsafe {
                asm::sm4rs_neon_crypt(
                    rk.0.as_ptr(),
                    io.dst(),
                    io.src(),
                    n,
                    sm4::SBOX.as_ptr(),
                    null,
                    null,
                )
            };
        }
        let k = nblocks % BATCH;
        if k > 0 {
            let mut rest = io.range(whole * BATCH * BLOCK_SIZE, k * BLOCK_SIZE);
            run(neon, rk, &mut rest, k, Op::Data, Op::None, Op::None);
        }
    }

    fn cbc_enc(_: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        by_group(io, nblocks, |g, k| {
            let mut b = Batch::zeroed();
            g.read(&mut b.bytes_mut()[..k * BLOCK_SIZE]);
            let mut chain = word(iv);
            for blk in b.0.iter_mut().take(k) {
                let mut x = (*blk ^ chain).to_ne_bytes();
                rk.crypt_block(&mut x);
                chain = u128::from_ne_bytes(x);
                *blk = chain;
            }
            *iv = chain.to_ne_bytes();
            g.write(&b.bytes_mut()[..k * BLOCK_SIZE]);
        });
    }

    fn cbc_dec(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        by_group(io, nblocks, |g, k| {
            // P[i] = D(C[i]) ^ C[i-1]: the IV and the group's ciphertext shifted by one.
            let mut prev = Batch::zeroed();
            prev.0[0] = word(iv);
            g.read(&mut prev.bytes_mut()[BLOCK_SIZE..k * BLOCK_SIZE]);
            g.range((k - 1) * BLOCK_SIZE, BLOCK_SIZE).read(iv);
            run(neon, rk, g, k, Op::Data, Op::None, Op::Stack(&prev));
        });
    }

    fn cfb_enc(_: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        by_group(io, nblocks, |g, k| {
            let mut b = Batch::zeroed();
            g.read(&mut b.bytes_mut()[..k * BLOCK_SIZE]);
            let mut chain = *iv;
            for blk in b.0.iter_mut().take(k) {
                rk.crypt_block(&mut chain);
                *blk ^= word(&chain);
                chain = blk.to_ne_bytes();
            }
            *iv = chain;
            g.write(&b.bytes_mut()[..k * BLOCK_SIZE]);
        });
    }

    fn cfb_dec(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        by_group(io, nblocks, |g, k| {
            // P[i] = E(C[i-1]) ^ C[i]: the keystream encrypts the IV and the group's
            // ciphertext shifted by one.
            let mut ks = Batch::zeroed();
            ks.0[0] = word(iv);
            g.read(&mut ks.bytes_mut()[BLOCK_SIZE..k * BLOCK_SIZE]);
            g.range((k - 1) * BLOCK_SIZE, BLOCK_SIZE).read(iv);
            run(neon, rk, g, k, Op::Stack(&ks), Op::None, Op::Data);
        });
    }

    fn ctr(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        by_group(io, nblocks, |g, k| {
            // The 128-bit big-endian counter, with its carry.
            let mut ks = Batch::zeroed();
            let mut ctr = u128::from_be_bytes(*iv);
            for c in ks.0.iter_mut().take(k) {
                *c = u128::from_ne_bytes(ctr.to_be_bytes());
                ctr = ctr.wrapping_add(1);
            }
            *iv = ctr.to_be_bytes();
            run(neon, rk, g, k, Op::Stack(&ks), Op::None, Op::Data);
        });
    }

    fn xts(
        neon: &Neon,
        rk: &RoundKeys,
        io: &mut InOut<'_>,
        nblocks: usize,
        tweak: &mut Iv,
        first: Option<&RoundKeys>,
    ) {
        if let Some(k) = first {
            Self::ecb(neon, k, &mut InOut::in_place(tweak), 1);
        }
        by_group(io, nblocks, |g, k| {
            let mut tw = Batch::zeroed();
            let mut t = u128::from_le_bytes(*tweak);
            for w in tw.0.iter_mut().take(k) {
                *w = u128::from_ne_bytes(t.to_le_bytes());
                // T * x in GF(2^128), little-endian (IEEE 1619).
                t = (t << 1) ^ ((t >> 127) * 0x87);
            }
            *tweak = t.to_le_bytes();
            run(neon, rk, g, k, Op::Data, Op::Stack(&tw), Op::Stack(&tw));
        });
    }
}

struct Sm4NeonModule {
    _skciphers: skcipher::Registration<6>,
}

impl kernel::Module for Sm4NeonModule {
    fn init(module: &'static ThisModule) -> Result<Self> {
        Ok(Self {
            _skciphers: skcipher::Registration::new(module, modes::algs::<NeonBackend>())?,
        })
    }
}
