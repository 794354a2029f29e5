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

/// The routine of `sm4_neon_core.S`: ECB over `n` batches of 8 blocks from `src` to `dst`
/// (the same or disjoint), in a kernel-mode NEON section.
mod asm {
    use core::ffi::c_uint;

    extern "C" {
        pub(super) fn sm4rs_neon_crypt(
            rk: *const u32,
            dst: *mut u8,
            src: *const u8,
            n: c_uint,
            sbox: *const u8,
        );
    }
}

/// The blocks of one batch of the core.
const BATCH: usize = 8;

/// A batch of blocks on the stack, wiped when it goes out of scope.
struct Batch([Iv; BATCH]);

impl Batch {
    /// An all-zero batch.
    const fn zeroed() -> Self {
        Self([[0; BLOCK_SIZE]; BATCH])
    }
}

impl core::ops::Deref for Batch {
    type Target = [Iv; BATCH];

    fn deref(&self) -> &[Iv; BATCH] {
        &self.0
    }
}

impl core::ops::DerefMut for Batch {
    fn deref_mut(&mut self) -> &mut [Iv; BATCH] {
        &mut self.0
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        for b in self.0.iter_mut() {
            // SAFETY: `b` is a valid, exclusive reference to a block.
            unsafe { core::ptr::write_volatile(b, [0; BLOCK_SIZE]) };
        }
    }
}

/// Runs the core over the whole batches of `io` (at most `nbatches`).
fn crypt_batches(_: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nbatches: usize) {
    let n = nbatches.min(io.len() / (BATCH * BLOCK_SIZE));
    let n = c_uint::try_from(n).unwrap_or(c_uint::MAX);
    // SAFETY: a NEON section is open (the token); `io` has `n` batches at its source and
    // destination, equal or disjoint; `rk` is 32 round keys and the S-box 256 bytes.
    unsafe { asm::sm4rs_neon_crypt(rk.0.as_ptr(), io.dst(), io.src(), n, sm4::SBOX.as_ptr()) };
}

/// The bytes of a batch.
fn bytes(batch: &Batch) -> &[u8] {
    // SAFETY: `[[u8; 16]; 8]` is 128 contiguous, initialised bytes, borrowed from `batch`.
    unsafe { core::slice::from_raw_parts(batch.0.as_ptr().cast::<u8>(), BATCH * BLOCK_SIZE) }
}

/// The bytes of a batch, writable.
fn bytes_mut(batch: &mut Batch) -> &mut [u8] {
    // SAFETY: as in `bytes`, borrowed exclusively; any byte value is a valid block byte.
    unsafe {
        core::slice::from_raw_parts_mut(batch.0.as_mut_ptr().cast::<u8>(), BATCH * BLOCK_SIZE)
    }
}

/// Runs the core over one batch on the stack, in place.
fn crypt_batch(neon: &Neon, rk: &RoundKeys, batch: &mut Batch) {
    crypt_batches(neon, rk, &mut InOut::in_place(bytes_mut(batch)), 1);
}

/// `dst ^= src`, block by block.
fn xor_blocks<'a>(dst: impl Iterator<Item = &'a mut Iv>, src: impl Iterator<Item = &'a Iv>) {
    for (d, s) in dst.zip(src) {
        for (x, y) in d.iter_mut().zip(s.iter()) {
            *x ^= y;
        }
    }
}

/// Runs `f` on each group of up to 8 blocks of the first `nblocks` blocks of `io`, copied
/// to a stack batch (`f` gets the batch and the number of blocks in it, and leaves the
/// output in the batch).
fn by_batch(io: &mut InOut<'_>, nblocks: usize, mut f: impl FnMut(&mut Batch, usize)) {
    let nblocks = nblocks.min(io.len() / BLOCK_SIZE);
    let mut done = 0;
    while done < nblocks {
        let k = (nblocks - done).min(BATCH);
        let mut part = io.range(done * BLOCK_SIZE, k * BLOCK_SIZE);
        let mut batch = Batch::zeroed();
        part.read(bytes_mut(&mut batch));
        f(&mut batch, k);
        part.write(bytes(&batch));
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
        // Whole batches in place, the rest through a stack batch.
        let nblocks = nblocks.min(io.len() / BLOCK_SIZE);
        let whole = nblocks / BATCH;
        crypt_batches(neon, rk, io, whole);
        let mut rest = io.range(whole * BATCH * BLOCK_SIZE, (nblocks % BATCH) * BLOCK_SIZE);
        by_batch(&mut rest, nblocks % BATCH, |batch, _| {
            crypt_batch(neon, rk, batch)
        });
    }

    fn cbc_enc(_: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        by_batch(io, nblocks, |batch, k| {
            for b in batch.iter_mut().take(k) {
                xor_blocks(core::iter::once(&mut *b), core::iter::once(&*iv));
                rk.crypt_block(b);
                *iv = *b;
            }
        });
    }

    fn cbc_dec(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        by_batch(io, nblocks, |batch, k| {
            // P[i] = D(C[i]) ^ C[i-1]: the IV and the batch's ciphertext shifted by one.
            let mut prev = Batch::zeroed();
            prev[0] = *iv;
            prev[1..].copy_from_slice(&batch[..BATCH - 1]);
            *iv = batch[k - 1];
            crypt_batch(neon, rk, batch);
            xor_blocks(batch.iter_mut().take(k), prev.iter());
        });
    }

    fn cfb_enc(_: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        by_batch(io, nblocks, |batch, k| {
            for b in batch.iter_mut().take(k) {
                rk.crypt_block(iv);
                xor_blocks(core::iter::once(&mut *b), core::iter::once(&*iv));
                *iv = *b;
            }
        });
    }

    fn cfb_dec(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        by_batch(io, nblocks, |batch, k| {
            // P[i] = E(C[i-1]) ^ C[i]: the keystream encrypts the IV and the batch's
            // ciphertext shifted by one.
            let mut ks = Batch::zeroed();
            ks[0] = *iv;
            ks[1..].copy_from_slice(&batch[..BATCH - 1]);
            *iv = batch[k - 1];
            crypt_batch(neon, rk, &mut ks);
            xor_blocks(batch.iter_mut().take(k), ks.iter());
        });
    }

    fn ctr(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        by_batch(io, nblocks, |batch, k| {
            // The 128-bit big-endian counter, with its carry.
            let mut ks = Batch::zeroed();
            let mut ctr = u128::from_be_bytes(*iv);
            for c in ks.iter_mut().take(k) {
                *c = ctr.to_be_bytes();
                ctr = ctr.wrapping_add(1);
            }
            *iv = ctr.to_be_bytes();
            crypt_batch(neon, rk, &mut ks);
            xor_blocks(batch.iter_mut().take(k), ks.iter());
        });
    }

    fn xts(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, tweak: &mut Iv) {
        by_batch(io, nblocks, |batch, k| {
            let mut tweaks = Batch::zeroed();
            for t in tweaks.iter_mut().take(k) {
                *t = *tweak;
                *tweak = modes::gf128_mul_x(tweak);
            }
            xor_blocks(batch.iter_mut().take(k), tweaks.iter());
            crypt_batch(neon, rk, batch);
            xor_blocks(batch.iter_mut().take(k), tweaks.iter());
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
