// SPDX-License-Identifier: GPL-2.0

//! SM4 (GB/T 32907-2016) with plain NEON, for arm64 CPUs without the SM4 instructions.
//!
//! Registers the skciphers `ecb(sm4)`, `cbc(sm4)` and `ctr(sm4)` (and, as the mode layer
//! gives them for free, `cts(cbc(sm4))` and `xts(sm4)`; with `CRYPTO_SM4_RUST_CFB`, always out
//! of tree, `cfb(sm4)`) as `<mode>-sm4-neon`, priority 200. The block work is `sm4_neon_core.S`: eight blocks at a time with the S-box
//! in registers (`tbl`/`tbx`), so nothing depends on secret data for its timing. The modes
//! are `lib/modes.rs`, shared with the Crypto Extensions driver; the key schedule is the
//! Rust one of `lib/sm4.rs`.
//!
//! What is constant time and what is not:
//!
//! - ECB, CBC decryption, CFB decryption, CTR and XTS run in the NEON core, whose S-box
//!   lookups are `tbl`/`tbx` instructions over registers: no memory access or branch
//!   depends on the data or the key.
//! - CBC and CFB encryption are serial (each block needs the previous one) and go a block
//!   at a time through the Rust block function of `lib/sm4.rs`, which looks a table up in
//!   memory: the addresses it reads depend on the data and the round keys, so they are
//!   not constant time on CPUs with data caches (the C driver upstream does the same, for
//!   the same reason: one block through the eight-block NEON core costs more than twice as
//!   much). So are the last blocks of CTS encryption, which are CBC encryption.
//! - The key schedule is the Rust one, with the S-box in memory: its timing may depend on
//!   the key.

// sm4rs-oot-begin
// Out of tree, each module compiles its own copy of the abstraction and of the SM4 code and
// uses a part of them; their `pub` items are the API they would have in `kernel::crypto`.
#[path = "crypto/mod.rs"]
#[allow(dead_code, unreachable_pub)]
mod crypto;
// sm4rs-oot-end
#[path = "lib/modes.rs"]
#[allow(dead_code)]
mod modes;
#[path = "lib/sm4.rs"]
#[allow(dead_code, unreachable_pub)]
mod sm4;

use core::ffi::{c_uint, CStr};
use crypto::{
    simd::{self, Neon, Simd},
    skcipher::{self, InOut},
};
use kernel::{error::code::ENODEV, prelude::*};
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

/// The blocks of a group that the modes prepare at once (counters, tweaks, shifted
/// ciphertext) for one call of the core.
const GROUP: usize = 4 * BATCH;

/// Up to `N` blocks on the stack, 16-byte aligned so that whole-block operations are word
/// operations (each `u128` holds a block's bytes in memory order); wiped when it goes out
/// of scope.
#[repr(C, align(16))]
struct Blocks<const N: usize>([u128; N]);

impl<const N: usize> Blocks<N> {
    /// All zeros.
    const fn zeroed() -> Self {
        Self([0; N])
    }

    /// The bytes of the blocks.
    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: `[u128; N]` is `16 * N` initialised bytes, any value of which is a valid
        // `u8`; borrowed exclusively from `self`.
        unsafe { core::slice::from_raw_parts_mut(self.0.as_mut_ptr().cast::<u8>(), N * BLOCK_SIZE) }
    }
}

impl<const N: usize> Drop for Blocks<N> {
    fn drop(&mut self) {
        for b in self.0.iter_mut() {
            // SAFETY: `b` is a valid, exclusive, aligned reference.
            unsafe { core::ptr::write_volatile(b, 0) };
        }
    }
}

/// A block as a word of [`Blocks`] (its bytes in memory order).
fn word(b: &Iv) -> u128 {
    u128::from_ne_bytes(*b)
}

/// The operands of a run of the core; `Data` stands for the group's own source, `Stack`
/// for blocks prepared by the mode (as many as the group has, rounded up to 8).
#[derive(Clone, Copy)]
enum Op<'a> {
    None,
    Data,
    Stack(&'a [u128]),
}

/// `g.dst = E(src ^ pre) ^ post` for the `k` (1 to 32) blocks of the group `g`: its whole
/// batches of 8 in one call of the core on their memory, then the rest, 4 blocks on their
/// memory, other counts through a stack copy, so that the core, which does 4 or 8, reads
/// and writes nothing outside the data.
fn run(
    _: &Neon,
    rk: &RoundKeys,
    g: &mut InOut<'_>,
    k: usize,
    src: Op<'_>,
    pre: Op<'_>,
    post: Op<'_>,
) {
    let sbox = sm4::SBOX.as_ptr();
    let k = k.min(GROUP).min(g.len() / BLOCK_SIZE);
    let whole = k / BATCH;
    // The operands from block `i` on, with `data` as the data's.
    let at = |o: Op<'_>, i: usize, data: *const u8| match o {
        Op::None => core::ptr::null(),
        Op::Data => data,
        Op::Stack(b) => b[i.min(b.len())..].as_ptr().cast(),
    };
    if whole > 0 {
        let d = g.src();
        // SAFETY: a NEON section is open (the token); the group has `whole` batches of 8 at
        // its source and destination (equal or disjoint), and so do the stack operands;
        // `rk` is 32 round keys and the S-box 256 bytes.
        unsafe {
            asm::sm4rs_neon_crypt(
                rk.as_ptr(),
                g.dst(),
                at(src, 0, d),
                whole as c_uint,
                sbox,
                at(pre, 0, d),
                at(post, 0, d),
            )
        };
    }
    let r = k % BATCH;
    if r == 0 {
        return;
    }
    let first = whole * BATCH;
    let mut rest = g.range(first * BLOCK_SIZE, r * BLOCK_SIZE);
    // Other counts than 4 go through a copy (made only for them).
    let mut copy = if r == 4 {
        None
    } else {
        Some(Blocks::<BATCH>::zeroed())
    };
    let (d_in, d_out): (*const u8, *mut u8) = match copy.as_mut() {
        None => (rest.src(), rest.dst()),
        Some(c) => {
            rest.read(&mut c.bytes_mut()[..r * BLOCK_SIZE]);
            let p = c.bytes_mut().as_mut_ptr();
            (p.cast_const(), p)
        }
    };
    let (s, pr, po) = (
        at(src, first, d_in),
        at(pre, first, d_in),
        at(post, first, d_in),
    );
    if r <= 4 {
        // SAFETY: as above; every operand has 4 blocks from these addresses (the data when
        // it has 4, else an 8-block stack copy; stack operands are rounded up to 8 blocks).
        unsafe { asm::sm4rs_neon_crypt4(rk.as_ptr(), d_out, s, sbox, pr, po) };
    } else {
        // SAFETY: as above, with 8 blocks.
        unsafe { asm::sm4rs_neon_crypt(rk.as_ptr(), d_out, s, 1, sbox, pr, po) };
    }
    if let Some(c) = copy.as_mut() {
        rest.write(&c.bytes_mut()[..r * BLOCK_SIZE]);
    }
}

/// Runs `f` on each group of up to 32 blocks of the first `nblocks` blocks of `io` (`f`
/// gets the group, its number of blocks, and a stack buffer of as many blocks rounded up to
/// 8, for the operands the mode prepares; it is shared by the groups and wiped at the end).
fn by_group(
    io: &mut InOut<'_>,
    nblocks: usize,
    mut f: impl FnMut(&mut InOut<'_>, usize, &mut [u128]),
) {
    let nblocks = nblocks.min(io.len() / BLOCK_SIZE);
    // Short requests do not pay for zeroing and wiping a large buffer.
    let mut small = Blocks::<BATCH>::zeroed();
    let mut large;
    let buf: &mut [u128] = if nblocks <= BATCH {
        &mut small.0
    } else {
        large = Blocks::<GROUP>::zeroed();
        &mut large.0
    };
    let mut done = 0;
    while done < nblocks {
        let k = (nblocks - done).min(buf.len());
        f(&mut io.range(done * BLOCK_SIZE, k * BLOCK_SIZE), k, buf);
        done += k;
    }
}

/// The first `k` blocks of `buf` as bytes.
fn bytes(buf: &mut [u128], k: usize) -> &mut [u8] {
    let k = k.min(buf.len());
    // SAFETY: the first `k` words of `buf` are `16 * k` initialised bytes, any value of
    // which is a valid `u8`; borrowed exclusively from `buf`.
    unsafe { core::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<u8>(), k * BLOCK_SIZE) }
}

/// The NEON back end.
struct NeonBackend;

impl Backend for NeonBackend {
    const ECB: &'static CStr = c"ecb-sm4-neon";
    const CBC: &'static CStr = c"cbc-sm4-neon";
    #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
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
                    rk.as_ptr(),
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

    const CBC_ENC_PLAIN: Option<fn(&RoundKeys, &mut InOut<'_>, usize, &mut Iv)> =
        Some(cbc_enc_plain);

    fn cbc_enc(_: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        cbc_enc_plain(rk, io, nblocks, iv);
    }

    fn cbc_dec(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        by_group(io, nblocks, |g, k, prev| {
            // P[i] = D(C[i]) ^ C[i-1]: the IV and the group's ciphertext shifted by one.
            prev[0] = word(iv);
            g.read(&mut bytes(prev, k)[BLOCK_SIZE..]);
            g.range((k - 1) * BLOCK_SIZE, BLOCK_SIZE).read(iv);
            run(neon, rk, g, k, Op::Data, Op::None, Op::Stack(prev));
        });
    }

    #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
    fn cfb_enc(_: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        by_group(io, nblocks, |g, k, b| {
            g.read(bytes(b, k));
            let mut chain = *iv;
            for blk in b.iter_mut().take(k) {
                rk.crypt_block(&mut chain);
                *blk ^= word(&chain);
                chain = blk.to_ne_bytes();
            }
            *iv = chain;
            g.write(bytes(b, k));
        });
    }

    #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
    fn cfb_dec(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        by_group(io, nblocks, |g, k, ks| {
            // P[i] = E(C[i-1]) ^ C[i]: the keystream encrypts the IV and the group's
            // ciphertext shifted by one.
            ks[0] = word(iv);
            g.read(&mut bytes(ks, k)[BLOCK_SIZE..]);
            g.range((k - 1) * BLOCK_SIZE, BLOCK_SIZE).read(iv);
            run(neon, rk, g, k, Op::Stack(ks), Op::None, Op::Data);
        });
    }

    fn ctr(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        by_group(io, nblocks, |g, k, ks| {
            // The 128-bit big-endian counter, with its carry.
            let mut ctr = u128::from_be_bytes(*iv);
            for c in ks.iter_mut().take(k) {
                *c = u128::from_ne_bytes(ctr.to_be_bytes());
                ctr = ctr.wrapping_add(1);
            }
            *iv = ctr.to_be_bytes();
            run(neon, rk, g, k, Op::Stack(ks), Op::None, Op::Data);
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
        by_group(io, nblocks, |g, k, tw| {
            let mut t = u128::from_le_bytes(*tweak);
            for w in tw.iter_mut().take(k) {
                *w = u128::from_ne_bytes(t.to_le_bytes());
                // T * x in GF(2^128), little-endian (IEEE 1619).
                t = (t << 1) ^ ((t >> 127) * 0x87);
            }
            *tweak = t.to_le_bytes();
            run(neon, rk, g, k, Op::Data, Op::Stack(tw), Op::Stack(tw));
        });
    }
}

/// CBC encryption a block at a time with the Rust block function: serial, so the NEON core
/// (which does 4 or 8 blocks for the price of one) would not help.
fn cbc_enc_plain(rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
    by_group(io, nblocks, |g, k, b| {
        g.read(bytes(b, k));
        let mut chain = word(iv);
        for blk in b.iter_mut().take(k) {
            let mut x = (*blk ^ chain).to_ne_bytes();
            rk.crypt_block(&mut x);
            chain = u128::from_ne_bytes(x);
            *blk = chain;
        }
        *iv = chain.to_ne_bytes();
        g.write(bytes(b, k));
    });
}

struct Sm4NeonModule {
    _skciphers: skcipher::Registration<{ modes::MODES }>,
}

impl kernel::Module for Sm4NeonModule {
    fn init(module: &'static ThisModule) -> Result<Self> {
        // Every request needs NEON: without FP/ASIMD (`arm64.nofpsimd`) the drivers would
        // only fail, and the kernel's templates over `sm4-generic` must serve instead.
        // Quietly, as the C drivers' `module_cpu_feature_match()`.
        if !simd::fpsimd_usable() {
            return Err(ENODEV);
        }
        Ok(Self {
            _skciphers: skcipher::Registration::new(module, modes::algs::<NeonBackend>())?,
        })
    }
}
