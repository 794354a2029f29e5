// SPDX-License-Identifier: GPL-2.0

//! SM4 (GB/T 32907-2016) with plain NEON, for arm64 CPUs without the SM4 instructions.
//!
//! Registers the skciphers `ecb(sm4)`, `cbc(sm4)` and `ctr(sm4)` (and, as the mode layer
//! gives them for free, `cts(cbc(sm4))` and `xts(sm4)`; with `CRYPTO_SM4_RUST_CFB`,
//! `cfb(sm4)`) as `<mode>-sm4-neon`, priority 200. The block work is
//! `sm4_neon_core.S`, with the S-box in registers or through AESE, in the variant that suits
//! the CPU ([`Variant`]; the parameter `impl` forces one), so nothing depends on secret data
//! for its timing. The modes are `sm4/modes.rs`, shared with the Crypto Extensions driver.
//!
//! Constant time: no memory access or branch depends on the key or the data.
//!
//! - ECB, CBC decryption, CFB decryption, CTR and XTS run in batches in the [`Variant`]
//!   picked: eight (or four) blocks with the S-box held whole in v16-v31 and looked up with
//!   `tbl`/`tbx`, or twelve through AESE between two affine maps.
//! - CBC and CFB encryption, which are serial (so are the last blocks of CTS encryption,
//!   which are CBC encryption), run a block at a time in the core's serial routines: AESE
//!   and PMULL with the `aese` variant, else the S-box in the same registers (four
//!   independent `tbl`, which wait less than the `tbl`/`tbx` chain: each block waits for
//!   the one before).
//! - The key schedule runs in the core too, the same way. Only where NEON may not be used
//!   (a `setkey` in a hard interrupt, or with interrupts disabled on 6.12, inside a section,
//!   or where the self-tests turn SIMD off) does it fall back to `sm4/sm4.rs`, whose one
//!   256-byte S-box has all its cache lines read before each schedule.

// sm4rs-oot-begin
// Out of tree, each module compiles its own copy of the abstraction and of the SM4 code and
// uses a part of them; their `pub` items are the API they would have in `kernel::crypto`.
#[path = "crypto/mod.rs"]
#[allow(dead_code, unreachable_pub)]
mod crypto;
use crypto::module;
// sm4rs-oot-end
// sm4rs-in-tree: use kernel::crypto;
#[path = "sm4/modes.rs"]
#[allow(dead_code)]
mod modes;
#[path = "sm4/sm4.rs"]
#[allow(dead_code, unreachable_pub)]
mod sm4;

use core::ffi::{c_uint, CStr};
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicU64, Ordering};
use crypto::{skcipher, InOut, Neon, Simd};
use kernel::{
    error::code::{EINVAL, ENODEV},
    prelude::*,
};
use modes::{Backend, Iv};
use sm4::{RoundKeys, BLOCK_SIZE, KEY_SIZE};

module! {
    type: Sm4NeonModule,
    name: "sm4_neon",
    author: "The sm4-rs authors",
    description: "SM4 block cipher (GB/T 32907-2016), NEON",
    license: "GPL",
}

// The skciphers' aliases, from the list of modes.
crypto::alg::alias_crypto!("sm4_neon", &modes::aliases(NeonBackend::DRIVER_SUFFIX));

/// The routines of `sm4_neon_core.S`, all in a kernel-mode NEON section: `dst = E(src ^
/// pre) ^ post` over batches of 8 blocks, or over 1 to 8 blocks, where `pre` and `post` may
/// be NULL, in three variants (see [`Variant`]); CBC and CFB encryption a block at a time;
/// the key schedule.
mod asm {
    use core::ffi::c_uint;
    use core::sync::atomic::AtomicU32;

    /// Declares batch routines, which all take the same arguments: `n` batches of 8
    /// blocks (`sm4rs_neon_crypt_*`) or `n` blocks, 1 to 8 (`sm4rs_neon_cryptn_*`).
    macro_rules! batch_routines {
        ($($name:ident),* $(,)?) => {
            extern "C" {
                $(
                    pub(super) fn $name(
                        rk: *const u32,
                        dst: *mut u8,
                        src: *const u8,
                        n: c_uint,
                        sbox: *const u8,
                        pre: *const u8,
                        post: *const u8,
                    );
                )*
            }
        };
    }

    batch_routines!(
        sm4rs_neon_crypt_tbx,
        sm4rs_neon_cryptn_tbx,
        sm4rs_neon_crypt_tbl,
        sm4rs_neon_cryptn_tbl,
        sm4rs_neon_crypt_aese,
        sm4rs_neon_cryptn_aese,
        sm4rs_neon_crypt1_aese,
    );

    /// Declares serial routines (CBC and CFB encryption, a block at a time), which all take
    /// the same arguments.
    macro_rules! serial_routines {
        ($($(#[$attr:meta])* $name:ident),* $(,)?) => {
            extern "C" {
                $(
                    $(#[$attr])*
                    pub(super) fn $name(
                        rk: *const u32,
                        dst: *mut u8,
                        src: *const u8,
                        nblocks: c_uint,
                        sbox: *const u8,
                        iv: *mut u8,
                    );
                )*
            }
        };
    }

    serial_routines!(
        sm4rs_neon_cbc_enc,
        sm4rs_neon_cbc_enc_aese,
        #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
        sm4rs_neon_cfb_enc,
        #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
        sm4rs_neon_cfb_enc_aese,
    );

    extern "C" {
        pub(super) fn sm4rs_neon_expand_key(
            key: *const u8,
            enc: *mut u32,
            dec: *mut u32,
            sbox: *const u8,
            fk: *const u32,
            ck: *const u32,
        );
        /// The variant in use: 0 picks one for each CPU, else a [`super::Variant`]
        /// (written at load and by the KUnit suite `sm4_neon_variants`).
        pub(super) static sm4rs_neon_impl: AtomicU32;
    }
}

/// The ways the batch routines do the S-box; which is fastest depends on the CPU (cycles
/// per byte modelled by `make bench`; see the README).
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
enum Variant {
    /// The S-box in registers, `tbl` and three `tbx` in a chain, two groups of four blocks
    /// interleaved: the fewest instructions, for in-order cores (Cortex-A53/A55/A510/A520,
    /// ThunderX) and a few others without AES ([`CPUS`]).
    Tbx = 1,
    /// The same table, four independent `tbl` ORed together: for out-of-order cores
    /// without AES.
    Tbl = 2,
    /// SM4's S-box through AES's (AESE between two affine maps), batches of 12 blocks:
    /// on CPUs with FEAT_AES (and FEAT_PMULL, which its single blocks and serial paths
    /// use) but the in-order ones.
    Aese = 3,
}

impl Variant {
    /// The variants, by the number `sm4rs_neon_impl` holds.
    const ALL: [Variant; 3] = [Variant::Tbx, Variant::Tbl, Variant::Aese];

    /// The name the module parameter `impl` gives it.
    fn name(self) -> &'static CStr {
        match self {
            Variant::Tbx => c"tbx",
            Variant::Tbl => c"tbl",
            Variant::Aese => c"aese",
        }
    }

    /// `nbatches` batches of 8 blocks through the variant's routine: `dst = E(src ^ pre) ^
    /// post` (direct calls: kCFI has no type for the assembly routines).
    ///
    /// # Safety
    ///
    /// A NEON section is open; `rk` is 32 round keys, `sbox` the 256-byte S-box; `src`,
    /// `dst` and `pre`/`post` (unless NULL) have `8 * nbatches` blocks, `dst` equal to or
    /// disjoint from each of the others.
    #[allow(clippy::too_many_arguments)]
    unsafe fn crypt(
        self,
        rk: *const u32,
        dst: *mut u8,
        src: *const u8,
        nbatches: c_uint,
        sbox: *const u8,
        pre: *const u8,
        post: *const u8,
    ) {
        // SAFETY: guaranteed by the caller.
        unsafe {
            match self {
                Variant::Tbx => asm::sm4rs_neon_crypt_tbx(rk, dst, src, nbatches, sbox, pre, post),
                Variant::Tbl => asm::sm4rs_neon_crypt_tbl(rk, dst, src, nbatches, sbox, pre, post),
                Variant::Aese => {
                    asm::sm4rs_neon_crypt_aese(rk, dst, src, nbatches, sbox, pre, post)
                }
            }
        }
    }

    /// `nblocks` blocks, 1 to 8, through the variant's routine for them, as
    /// [`Variant::crypt`]: each block read and written where it is.
    ///
    /// # Safety
    ///
    /// As [`Variant::crypt`], with `nblocks` (1 to 8) blocks.
    #[allow(clippy::too_many_arguments)]
    unsafe fn cryptn(
        self,
        rk: *const u32,
        dst: *mut u8,
        src: *const u8,
        nblocks: c_uint,
        sbox: *const u8,
        pre: *const u8,
        post: *const u8,
    ) {
        // SAFETY: guaranteed by the caller.
        unsafe {
            match self {
                Variant::Tbx => asm::sm4rs_neon_cryptn_tbx(rk, dst, src, nblocks, sbox, pre, post),
                Variant::Tbl => asm::sm4rs_neon_cryptn_tbl(rk, dst, src, nblocks, sbox, pre, post),
                Variant::Aese => {
                    asm::sm4rs_neon_cryptn_aese(rk, dst, src, nblocks, sbox, pre, post)
                }
            }
        }
    }

    /// The variant for the CPU with this `MIDR_EL1`, with or without FEAT_AES: its line of
    /// [`CPUS`], else `aese` with AES, `tbl` without.
    fn for_cpu(midr: u32, aes: bool) -> Variant {
        let (implementer, part) = (midr >> 24, (midr >> 4) & 0xfff);
        match CPUS.iter().find(|c| c.0 == implementer && c.1 == part) {
            Some(c) if aes => c.2,
            Some(c) => c.3,
            None if aes => Variant::Aese,
            None => Variant::Tbl,
        }
    }

    /// The variant numbered `n` (as `sm4rs_neon_impl` holds it), if one is.
    #[inline(always)]
    fn from_number(n: u64) -> Option<Variant> {
        Variant::ALL.into_iter().find(|&v| v as u64 == n)
    }

    /// The variant to use in the section `_neon`: the one forced (by the module parameter,
    /// or a test), else the one for this CPU. AESE only where the CPUs have it.
    ///
    /// Every section asks, so the usual case is inline and a leaf: nothing forced, and the
    /// CPU the same kind as the last one asked about (big.LITTLE systems mix kinds). The
    /// MIDR and its variant are one word, so a race only costs a search.
    #[inline(always)]
    fn current(_neon: &Neon) -> Variant {
        // SAFETY: `sm4rs_neon_impl` is a 4-byte, 4-byte-aligned `.long` of
        // `sm4_neon_core.S` (the layout of an `AtomicU32`), only accessed atomically.
        let forced = unsafe { &asm::sm4rs_neon_impl }.load(Ordering::Relaxed);
        let midr = cpu_midr();
        let last = LAST_CPU.load(Ordering::Relaxed);
        match Variant::from_number(last & 0xff) {
            Some(v) if forced == 0 && last >> 32 == u64::from(midr) => v,
            _ => Variant::search(forced, midr),
        }
    }

    /// [`Variant::current`] the long way: the variant forced, if usable, else the line of
    /// [`CPUS`] for the CPU with this `MIDR_EL1` (and the CPUs' FEAT_AES), remembered.
    fn search(forced: u32, midr: u32) -> Variant {
        match Variant::from_number(forced.into()) {
            Some(v) if v != Variant::Aese || aese_usable() => v,
            _ => {
                let v = Variant::for_cpu(midr, aese_usable());
                LAST_CPU.store(u64::from(midr) << 32 | v as u64, Ordering::Relaxed);
                v
            }
        }
    }
}

/// The `MIDR_EL1` of the CPU running the caller (`read_cpuid_id()`): in a section, a hint, as
/// the section may migrate. Inline, not through a C helper: every section asks.
#[inline(always)]
fn cpu_midr() -> u32 {
    let midr: u64;
    // SAFETY: reads this CPU's identification register, which EL1 may always read; no
    // memory, stack or flags are touched.
    unsafe {
        core::arch::asm!(
            "mrs {}, midr_el1",
            out(reg) midr,
            options(nomem, nostack, preserves_flags)
        )
    };
    // The upper half is RES0.
    midr as u32
}

/// The `MIDR_EL1` of the last CPU whose variant [`Variant::search`] looked up (upper half),
/// and that variant's number (lowest byte); 0 before the first.
static LAST_CPU: AtomicU64 = AtomicU64::new(0);

use Variant::{Aese, Tbl, Tbx};

/// The variant for each CPU that LLVM's scheduling models know, the fastest in cycles by
/// them (`make bench` models every line with the llvm-mca models its comment names, and
/// fails if a pick is more than 3% slower than that CPU's best): `(implementer, part,
/// with FEAT_AES, without)` of `MIDR_EL1`. (The aese form is never a pick without AES.)
/// Where the models and silicon disagree, see docs/PERFORMANCE.md; `sm4_neon.impl=`
/// overrides the pick.
#[rustfmt::skip]
const CPUS: [(u32, u32, Variant, Variant); 48] = [
    (0x41, 0xd04, Tbx, Tbx), // Cortex-A35 (cortex-a35)
    (0x41, 0xd03, Tbx, Tbx), // Cortex-A53 (cortex-a53)
    (0x41, 0xd05, Tbx, Tbx), // Cortex-A55 (cortex-a55)
    (0x41, 0xd46, Tbx, Tbx), // Cortex-A510 (cortex-a510)
    (0x41, 0xd80, Tbx, Tbx), // Cortex-A520 (cortex-a520)
    (0x41, 0xd07, Aese, Tbl), // Cortex-A57 (cortex-a57)
    (0x41, 0xd08, Aese, Tbl), // Cortex-A72 (cortex-a72)
    (0x41, 0xd09, Aese, Tbl), // Cortex-A73 (cortex-a73)
    (0x41, 0xd0a, Aese, Tbl), // Cortex-A75 (cortex-a75)
    (0x41, 0xd0b, Aese, Tbl), // Cortex-A76 (cortex-a76)
    (0x41, 0xd0e, Aese, Tbl), // Cortex-A76AE (cortex-a76ae)
    (0x41, 0xd0d, Aese, Tbl), // Cortex-A77 (cortex-a77)
    (0x41, 0xd41, Aese, Tbl), // Cortex-A78 (cortex-a78)
    (0x41, 0xd42, Aese, Tbl), // Cortex-A78AE (cortex-a78ae)
    (0x41, 0xd4b, Aese, Tbl), // Cortex-A78C (cortex-a78c)
    (0x41, 0xd44, Aese, Tbl), // Cortex-X1 (cortex-x1)
    (0x41, 0xd4c, Aese, Tbl), // Cortex-X1C (cortex-x1c)
    (0x41, 0xd47, Aese, Tbl), // Cortex-A710 (cortex-a710)
    (0x41, 0xd48, Aese, Tbl), // Cortex-X2 (cortex-x2)
    (0x41, 0xd4d, Aese, Tbl), // Cortex-A715 (cortex-a715)
    (0x41, 0xd4e, Aese, Tbl), // Cortex-X3 (cortex-x3)
    (0x41, 0xd81, Aese, Tbl), // Cortex-A720 (cortex-a720)
    (0x41, 0xd82, Aese, Tbl), // Cortex-X4 (cortex-x4)
    (0x41, 0xd87, Aese, Tbl), // Cortex-A725 (cortex-a725)
    (0x41, 0xd85, Aese, Tbl), // Cortex-X925 (cortex-x925)
    (0x41, 0xd0c, Aese, Tbl), // Neoverse N1 (neoverse-n1)
    (0x41, 0xd49, Aese, Tbl), // Neoverse N2 (neoverse-n2)
    (0x41, 0xd8e, Aese, Tbl), // Neoverse N3 (neoverse-n3)
    (0x41, 0xd4a, Tbx, Tbx), // Neoverse E1 (neoverse-e1)
    (0x41, 0xd40, Aese, Tbl), // Neoverse V1 (neoverse-v1)
    (0x41, 0xd4f, Aese, Tbl), // Neoverse V2 (neoverse-v2)
    (0x41, 0xd84, Aese, Tbl), // Neoverse V3 (neoverse-v3)
    (0x42, 0x100, Tbx, Tbx), // Broadcom Brahma-B53 (cortex-a53)
    (0x42, 0x516, Aese, Tbx), // Broadcom Vulcan (thunderx2t99)
    (0x43, 0x0a1, Tbx, Tbx), // Cavium ThunderX 88xx (thunderxt88)
    (0x43, 0x0a2, Tbx, Tbx), // Cavium ThunderX 81xx (thunderxt81)
    (0x43, 0x0a3, Tbx, Tbx), // Cavium ThunderX 83xx (thunderxt83)
    (0x43, 0x0af, Aese, Tbx), // Cavium ThunderX2 (thunderx2t99)
    (0x43, 0x0b8, Aese, Tbl), // Marvell ThunderX3 (thunderx3t110)
    (0x46, 0x001, Aese, Tbl), // Fujitsu A64FX (a64fx)
    (0x48, 0xd01, Aese, Tbx), // HiSilicon TSV110, Kunpeng 920 (tsv110)
    (0x51, 0x801, Tbx, Tbx), // Qualcomm Kryo 2xx Silver (cortex-a53)
    (0x51, 0x803, Tbx, Tbx), // Qualcomm Kryo 3xx Silver (cortex-a55)
    (0x51, 0x805, Tbx, Tbx), // Qualcomm Kryo 4xx Silver (cortex-a55)
    (0x51, 0xc00, Aese, Tbx), // Qualcomm Falkor (falkor)
    (0x61, 0x022, Aese, Tbx), // Apple M1 Icestorm (apple-a14)
    (0x61, 0x023, Aese, Tbx), // Apple M1 Firestorm (apple-a14)
    (0xc0, 0xac3, Aese, Tbl), // Ampere Ampere-1 (ampere1)
];

/// The blocks of one batch of the core.
const BATCH: usize = 8;

/// The blocks of a group that the modes prepare at once (counters, tweaks, shifted
/// ciphertext) for one call of the core.
const GROUP: usize = 4 * BATCH;

/// Up to `N` blocks on the stack, 16-byte aligned so that whole-block operations are word
/// operations (each `u128` holds a block's bytes in memory order). Each block is written
/// before it is read, never zeroed first (a short request pays for what it uses); of those
/// used, the first `S` are wiped when the buffer goes out of scope: the words that may hold
/// secrets, where the others hold ciphertext.
///
/// # Invariants
///
/// `used <= N`, and the first `used` words are initialised.
#[repr(C, align(16))]
struct Blocks<const N: usize, const S: usize> {
    words: [MaybeUninit<u128>; N],
    used: usize,
}

impl<const N: usize, const S: usize> Blocks<N, S> {
    /// None used.
    const fn new() -> Self {
        // INVARIANT: none used.
        Self {
            words: [const { MaybeUninit::uninit() }; N],
            used: 0,
        }
    }

    /// The first `k` blocks (at most `N`), written without zeroing first: `word(x)` for
    /// each of the values `x0`, `step(x0)`, `step(step(x0))`...; and the value after them.
    #[inline(always)]
    fn fill(
        &mut self,
        k: usize,
        x0: u128,
        word: impl Fn(u128) -> u128,
        step: impl Fn(u128) -> u128,
    ) -> (&mut [u128], u128) {
        let k = k.min(N);
        let mut x = x0;
        for w in &mut self.words[..k] {
            w.write(word(x));
            x = step(x);
        }
        // INVARIANT: the first `k` words were just written; those after are as they were.
        self.used = self.used.max(k);
        // SAFETY: the first `k` words are initialised (just written), and a
        // `MaybeUninit<u128>` has the layout of a `u128`.
        let words = unsafe { &mut *(core::ptr::from_mut(&mut self.words[..k]) as *mut [u128]) };
        (words, x)
    }

    /// The block `first` followed by a copy of the first `k` blocks of `g`'s source (at most
    /// what it and the buffer hold): the ciphertext shifted by one block, written without
    /// zeroing first.
    fn shifted(&mut self, first: u128, g: &InOut<'_>, k: usize) -> &mut [u128] {
        const { assert!(N > 0) };
        let k = k.min(N.saturating_sub(1)).min(g.len() / BLOCK_SIZE);
        let words = self.words.as_mut_ptr();
        // SAFETY: `k + 1 <= N` words at `words` are ours; `g`'s source is readable for `k`
        // blocks, and not the stack buffer.
        unsafe {
            (*words).write(first);
            core::ptr::copy_nonoverlapping(g.src(), words.add(1).cast::<u8>(), k * BLOCK_SIZE);
        }
        // INVARIANT: words 0 to `k` were just written; those after are as they were.
        self.used = self.used.max(k + 1);
        // SAFETY: the first `k + 1` words were just written, and a `MaybeUninit<u128>` has
        // the layout of a `u128`.
        unsafe { &mut *core::ptr::slice_from_raw_parts_mut(words.cast::<u128>(), k + 1) }
    }
}

impl<const N: usize, const S: usize> Drop for Blocks<N, S> {
    fn drop(&mut self) {
        // As `wipe()` does (stores the compiler keeps, then a fence), a block at a time.
        zero(&mut self.words[..self.used.min(S).min(N)]);
        core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
    }
}

/// Zeroes `words` with volatile stores, a block's pair each: LLVM makes plain stores a
/// loop, and `write_bytes` a call of `memset`, both longer for the one or two blocks of a
/// short request.
#[inline(always)]
fn zero(words: &mut [MaybeUninit<u128>]) {
    for w in words {
        // SAFETY: `w` is a valid, exclusive, aligned word.
        unsafe { core::ptr::write_volatile(w.as_mut_ptr(), 0) };
    }
}

/// The block `b` as a word of [`Blocks`] (its bytes in memory order): two word loads where
/// it is 8-byte aligned, as IVs from the kernel's walks and their callers are, else a byte at
/// a time (the Rust target's `+strict-align` has no unaligned word access). The branch is on
/// the address, not on the data.
#[inline(always)]
fn load(b: &Iv) -> u128 {
    // SAFETY: `b` is 16 readable bytes.
    unsafe { load_at(b.as_ptr()) }
}

/// The block at `b`, read as [`load`] reads it.
///
/// # Safety
///
/// `b` must be readable for 16 bytes.
#[inline(always)]
unsafe fn load_at(b: *const u8) -> u128 {
    let p = b.cast::<u64>();
    if p as usize % core::mem::align_of::<u64>() == 0 {
        // Two loads of a word each: as one load of the block, LLVM would merge this path
        // with the other into the byte loads both can take.
        // SAFETY: 16 readable bytes (caller), here aligned for two `u64`s.
        let w = unsafe { [p.read(), p.add(1).read()] };
        // SAFETY: the same 16 bytes as a `u128`, any bits of which are valid.
        unsafe { core::mem::transmute::<[u64; 2], u128>(w) }
    } else {
        // SAFETY: 16 readable bytes (caller), read with no alignment asked.
        u128::from_ne_bytes(unsafe { b.cast::<Iv>().read_unaligned() })
    }
}

/// Stores `w` (bytes in memory order, as [`load`] gives them) into `b`, as [`load`] reads.
#[inline(always)]
fn store(b: &mut Iv, w: u128) {
    let p = b.as_mut_ptr().cast::<[u64; 2]>();
    if p as usize % core::mem::align_of::<[u64; 2]>() == 0 {
        // SAFETY: the 16 bytes of `w` as two words (any bits are valid).
        let w = unsafe { core::mem::transmute::<u128, [u64; 2]>(w) };
        // SAFETY: `b` is 16 writable bytes, here aligned for `[u64; 2]`.
        unsafe { p.write(w) };
    } else {
        *b = w.to_ne_bytes();
    }
}

/// A NEON section (the token) and the variant [`Variant::current`] picks for this CPU, found
/// once per call of the back end rather than per group of blocks.
///
/// # Invariants
///
/// `variant` is `Aese` only where the CPUs have AES and PMULL.
#[derive(Clone, Copy)]
struct Here<'a> {
    _neon: &'a Neon,
    variant: Variant,
}

impl<'a> Here<'a> {
    /// This CPU's variant, in the section of `neon`.
    #[inline(always)]
    fn new(neon: &'a Neon) -> Self {
        // INVARIANT: `Variant::current` picks `Aese` only where the CPUs have AES and PMULL.
        Self {
            _neon: neon,
            variant: Variant::current(neon),
        }
    }
}

/// The operands of a run of the core; `Data` stands for the group's own source, `Stack`
/// for blocks prepared by the mode (at least as many as the group has), `Block` for one
/// block where the mode keeps it (an IV or counter: a run of it is one block long).
#[derive(Clone, Copy)]
enum Op<'a> {
    None,
    Data,
    Stack(&'a [u128]),
    Block(&'a Iv),
}

/// `g.dst = E(src ^ pre) ^ post` for the first `k` (at most 32) blocks of the group `g`: its
/// whole batches of 8 in one call of the core, then the rest (1 to 7 blocks) in one call of
/// the routine for them, all on their memory. `k` is first limited to the blocks that `g`
/// and every operand of the mode's hold (a `Block` one), so the core reads and writes
/// nothing outside them. (Inlined: each mode's operands are constants, and the limits and
/// pointers of those it does not use fold away.)
#[inline(always)]
fn run(
    here: Here<'_>,
    rk: &RoundKeys,
    g: &mut InOut<'_>,
    k: usize,
    src: Op<'_>,
    pre: Op<'_>,
    post: Op<'_>,
) {
    let (sbox, variant) = (sm4::SBOX.as_ptr(), here.variant);
    let mut k = k.min(GROUP).min(g.len() / BLOCK_SIZE);
    for o in [src, pre, post] {
        match o {
            Op::Stack(b) => k = k.min(b.len()),
            Op::Block(_) => k = k.min(1),
            Op::None | Op::Data => {}
        }
    }
    let whole = k / BATCH;
    // The operands from block `i` on, with `data` as the data's.
    let at = |o: Op<'_>, i: usize, data: *const u8| match o {
        Op::None => core::ptr::null(),
        Op::Data => data,
        Op::Stack(b) => b[i.min(b.len())..].as_ptr().cast(),
        Op::Block(b) => b[(i * BLOCK_SIZE).min(BLOCK_SIZE)..].as_ptr(),
    };
    if whole > 0 {
        let d = g.src();
        // SAFETY: a NEON section is open (`here`); the group has `whole` batches of 8 at
        // its source and destination (equal or disjoint), and so do the mode's operands (`k`
        // is limited to their blocks); `rk` is 32 round keys and the S-box 256 bytes.
        unsafe {
            variant.crypt(
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
    let d = rest.src();
    let (dst, s, p, q) = (
        rest.dst(),
        at(src, first, d),
        at(pre, first, d),
        at(post, first, d),
    );
    // SAFETY: as above, with `r` (1 to 7) blocks at the rest's source and destination and
    // at the mode's operands from block `first` on (`first + r = k`, at most their blocks);
    // `aese` runs only where the CPUs have AES and PMULL (`Here`'s invariant).
    unsafe {
        if r == 1 && variant == Variant::Aese {
            asm::sm4rs_neon_crypt1_aese(rk.as_ptr(), dst, s, 1, sbox, p, q)
        } else {
            variant.cryptn(rk.as_ptr(), dst, s, r as c_uint, sbox, p, q)
        }
    };
}

/// If the first `nblocks` blocks of `io` are one block (a short request's usual share),
/// that block of the source, read as [`load`] reads (before the core may overwrite it in
/// place).
#[inline(always)]
fn one_block(io: &InOut<'_>, nblocks: usize) -> Option<u128> {
    if nblocks.min(io.len() / BLOCK_SIZE) != 1 {
        return None;
    }
    // SAFETY: `io`'s source has at least one block.
    Some(unsafe { load_at(io.src()) })
}

/// Runs `f` on each group of up to 32 blocks of the first `nblocks` blocks of `io` (`f`
/// gets the group, its number of blocks `k`, and the stack buffer for the operands the mode
/// prepares, which the groups share and whose first `S` blocks are wiped, as far as used, at
/// the end). Inlined with `f`: each mode has one call.
#[inline(always)]
fn by_group<const S: usize>(
    io: &mut InOut<'_>,
    nblocks: usize,
    mut f: impl FnMut(&mut InOut<'_>, usize, &mut Blocks<{ GROUP + 1 }, S>),
) {
    let nblocks = nblocks.min(io.len() / BLOCK_SIZE);
    let mut buf = Blocks::new();
    let mut done = 0;
    while done < nblocks {
        let k = (nblocks - done).min(GROUP);
        f(
            &mut io.range(done * BLOCK_SIZE, k * BLOCK_SIZE),
            k,
            &mut buf,
        );
        done += k;
    }
}

/// The NEON back end.
struct NeonBackend;

impl Backend for NeonBackend {
    const DRIVER_SUFFIX: &'static str = "sm4-neon";
    const PRIORITY: i32 = 200;
    const STRIDE: u32 = BATCH as u32;

    fn expand_key(key: &[u8; KEY_SIZE], out: &mut sm4::Key, simd: &mut Simd) {
        let done = simd.neon(|_| {
            // SAFETY: a NEON section is open; the pointers are to a 16-byte key, two
            // 32-word schedules, the 256-byte S-box and the standard's 4 FK and 32 CK words.
            unsafe {
                asm::sm4rs_neon_expand_key(
                    key.as_ptr(),
                    out.enc.as_mut_ptr(),
                    out.dec.as_mut_ptr(),
                    sm4::SBOX.as_ptr(),
                    sm4::FK.as_ptr(),
                    sm4::CK.as_ptr(),
                )
            }
        });
        // Where NEON may not be used: the scalar schedule (its S-box's lines all touched
        // first).
        if done.is_none() {
            out.expand_into(key);
        }
    }

    fn ecb(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize) {
        let here = Here::new(neon);
        let nblocks = nblocks.min(io.len() / BLOCK_SIZE);
        let whole = nblocks / BATCH;
        if whole > 0 {
            // (At most the data's whole blocks, a `c_uint`.)
            let n = whole as c_uint;
            let null = core::ptr::null();
            // SAFETY: a NEON section is open (the token); `io` has `whole` batches at its
            // source and destination, equal or disjoint; `rk` is 32 round keys and the S-box
            // 256 bytes.
            unsafe {
                here.variant.crypt(
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
            run(here, rk, &mut rest, k, Op::Data, Op::None, Op::None);
        }
    }

    fn cbc_enc(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        serial(neon, Serial::CbcEnc, rk, io, nblocks, iv);
    }

    fn cbc_dec(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        let here = Here::new(neon);
        if let Some(c) = one_block(io, nblocks) {
            // P = D(C) ^ IV, with the IV read where it is and C, read first (in place it is
            // overwritten), the next IV: nothing on the stack to fill or wipe.
            run(here, rk, io, 1, Op::Data, Op::None, Op::Block(iv));
            store(iv, c);
            return;
        }
        // Only the first block is wiped: the IV (ESSIV's is derived from a key); the others
        // are ciphertext.
        by_group::<1>(io, nblocks, |g, k, buf| {
            // P[i] = D(C[i]) ^ C[i-1]: the IV and the group's ciphertext shifted by one;
            // its last block is the next IV.
            let prev = buf.shifted(load(iv), g, k);
            if let Some(&c) = prev.last() {
                store(iv, c);
            }
            run(here, rk, g, k, Op::Data, Op::None, Op::Stack(prev));
        });
    }

    #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
    fn cfb_enc(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        serial(neon, Serial::CfbEnc, rk, io, nblocks, iv);
    }

    #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
    fn cfb_dec(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        let here = Here::new(neon);
        if let Some(c) = one_block(io, nblocks) {
            // P = E(IV) ^ C, as `cbc_dec`'s one block.
            run(here, rk, io, 1, Op::Block(iv), Op::None, Op::Data);
            store(iv, c);
            return;
        }
        // The IV wiped, as in `cbc_dec`; the rest is ciphertext.
        by_group::<1>(io, nblocks, |g, k, buf| {
            // P[i] = E(C[i-1]) ^ C[i]: the keystream encrypts the IV and the group's
            // ciphertext shifted by one.
            let ks = buf.shifted(load(iv), g, k);
            if let Some(&c) = ks.last() {
                store(iv, c);
            }
            run(here, rk, g, k, Op::Stack(ks), Op::None, Op::Data);
        });
    }

    fn ctr(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv) {
        let here = Here::new(neon);
        if one_block(io, nblocks).is_some() {
            // The keystream E(counter) from the counter where it is, then the counter
            // advanced there: no copy of it on the stack to wipe.
            run(here, rk, io, 1, Op::Block(iv), Op::None, Op::Data);
            store(iv, u128::from_be(load(iv)).wrapping_add(1).to_be());
            return;
        }
        // All wiped: a counter block may hold key material (rfc3686's nonce).
        by_group::<{ GROUP + 1 }>(io, nblocks, |g, k, buf| {
            // The 128-bit big-endian counter, with its carry.
            let ctr = u128::from_be(load(iv));
            let (ks, next) = buf.fill(k, ctr, u128::to_be, |c| c.wrapping_add(1));
            store(iv, next.to_be());
            run(here, rk, g, k, Op::Stack(ks), Op::None, Op::Data);
        });
    }

    fn xts(
        neon: &Neon,
        rk: &RoundKeys,
        io: &mut InOut<'_>,
        nblocks: usize,
        tweak: &mut Iv,
        first: Option<(&RoundKeys, &Iv)>,
    ) {
        let here = Here::new(neon);
        if let Some((k, iv)) = first {
            // The first tweak, E(IV), by the one-block routine itself (`ecb()` is a call).
            let mut block = InOut::in_place(tweak);
            run(here, k, &mut block, 1, Op::Block(iv), Op::None, Op::None);
        }
        // All wiped: the tweaks are E(IV) under the tweak key, times powers of x.
        by_group::<{ GROUP + 1 }>(io, nblocks, |g, k, buf| {
            let t = u128::from_le(load(tweak));
            // T * x in GF(2^128), little-endian (IEEE 1619).
            let (tw, next) = buf.fill(k, t, u128::to_le, |t| (t << 1) ^ ((t >> 127) * 0x87));
            store(tweak, next.to_le());
            run(here, rk, g, k, Op::Data, Op::Stack(tw), Op::Stack(tw));
        });
    }
}

/// The serial routines of `sm4_neon_core.S`.
#[derive(Clone, Copy)]
enum Serial {
    /// CBC encryption.
    CbcEnc,
    /// CFB encryption.
    #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
    CfbEnc,
}

/// Whether the `aese` variant can run: the CPUs have AES and PMULL (`FEAT_PMULL` comes with
/// `FEAT_AES` on every core known, but is a feature of its own).
fn aese_usable() -> bool {
    crypto::cpu_has_aes() && crypto::cpu_has_pmull()
}

/// The first `nblocks` blocks of `io` through a serial routine, a block at a time, with the
/// S-box in registers; `iv` is left as the last ciphertext block. With the `aese` variant
/// (and PMULL), the routine whose S-box is AESE and whose L is PMULL: its chain is the
/// shorter where AESE is not in-order cores' (docs/PERFORMANCE.md, "serial").
fn serial(
    neon: &Neon,
    which: Serial,
    rk: &RoundKeys,
    io: &mut InOut<'_>,
    nblocks: usize,
    iv: &mut Iv,
) {
    // (At most the data's whole blocks, a `c_uint`.)
    let n = nblocks.min(io.blocks(BLOCK_SIZE) as usize) as c_uint;
    let aese = Variant::current(neon) == Variant::Aese;
    let (rk, dst, src, sbox, iv) = (
        rk.as_ptr(),
        io.dst(),
        io.src(),
        sm4::SBOX.as_ptr(),
        iv.as_mut_ptr(),
    );
    // Direct calls: kCFI has no type for the assembly routines.
    // SAFETY: a NEON section is open (the token); `io` has `n` blocks at its source and
    // destination, equal or disjoint (the routines read each block before they write it);
    // `rk` is 32 round keys, the S-box 256 bytes and `iv` 16; AESE and PMULL only where
    // the CPUs have them (`Variant::current`).
    unsafe {
        match (which, aese) {
            (Serial::CbcEnc, false) => asm::sm4rs_neon_cbc_enc(rk, dst, src, n, sbox, iv),
            (Serial::CbcEnc, true) => asm::sm4rs_neon_cbc_enc_aese(rk, dst, src, n, sbox, iv),
            #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
            (Serial::CfbEnc, false) => asm::sm4rs_neon_cfb_enc(rk, dst, src, n, sbox, iv),
            #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
            (Serial::CfbEnc, true) => asm::sm4rs_neon_cfb_enc_aese(rk, dst, src, n, sbox, iv),
        }
    }
}

crypto::param::str_param!(
    IMPL,
    "impl",
    "sm4_neon",
    c"auto",
    "the S-box of the parallel modes: auto (for each CPU), tbx, tbl or aese (FEAT_AES, FEAT_PMULL)"
);

/// The variant the module parameter `impl` names (`None`: auto), or an error for a name
/// that is not one, or AESE on CPUs without it.
fn forced_variant() -> Result<Option<Variant>> {
    let name = IMPL.get();
    if name == c"auto" {
        return Ok(None);
    }
    match Variant::ALL.iter().find(|v| v.name() == name) {
        Some(&Variant::Aese) if !aese_usable() => {
            pr_err!("impl=aese: these CPUs have no AES and PMULL instructions\n");
            Err(ENODEV)
        }
        Some(&v) => Ok(Some(v)),
        None => {
            pr_err!("impl={:?}: not one of auto, tbx, tbl, aese\n", name);
            Err(EINVAL)
        }
    }
}

struct Sm4NeonModule {
    _skciphers: skcipher::Registration<{ modes::MODES }>,
}

impl kernel::Module for Sm4NeonModule {
    fn init(module: &'static ThisModule) -> Result<Self> {
        // Every request needs NEON: without FP/ASIMD (`arm64.nofpsimd`) the drivers would
        // only fail, and the kernel's templates over `sm4-generic` must serve instead.
        // Quietly, as the C drivers' `module_cpu_feature_match()`.
        if !crypto::fpsimd_usable() {
            return Err(ENODEV);
        }
        let forced = forced_variant()?;
        // SAFETY: as in `Variant::current`.
        unsafe { &asm::sm4rs_neon_impl }.store(forced.map_or(0, |v| v as u32), Ordering::Relaxed);
        match forced {
            Some(v) => pr_info!("parallel modes with the S-box impl={:?}\n", v.name()),
            None => {
                let (aes, midr) = (aese_usable(), cpu_midr());
                pr_info!(
                    "parallel modes with the S-box for each CPU (impl=auto; AES and PMULL: {}; \
                     the loading CPU, MIDR {:#010x}: {:?})\n",
                    if aes { "yes" } else { "no" },
                    midr,
                    Variant::for_cpu(midr, aes).name()
                )
            }
        }
        Ok(Self {
            _skciphers: skcipher::Registration::new(module, modes::algs::<NeonBackend>())?,
        })
    }
}
