// SPDX-License-Identifier: GPL-2.0

//! The SM4 block cipher (GB/T 32907-2016), in plain `core` Rust.
//!
//! This file has no kernel dependency: the kernel modules include it with `#[path]` and the
//! host test crate (`tests/host`) compiles the very same file, so the algorithm is checked
//! against the standard's vectors and an independent implementation on the host as well as in
//! the kernel.
//!
//! SM4 has a 128-bit block and a 128-bit key; a block is 32 rounds of
//! `X[i+4] = X[i] ^ T(X[i+1] ^ X[i+2] ^ X[i+3] ^ rk[i])` over big-endian 32-bit words.

/// Size of an SM4 block in bytes.
pub const BLOCK_SIZE: usize = 16;
/// Size of an SM4 key in bytes.
pub const KEY_SIZE: usize = 16;
/// Number of rounds (and of round keys).
pub const ROUNDS: usize = 32;

/// One SM4 block.
pub type Block = [u8; BLOCK_SIZE];

/// A 256-byte table on its own cache lines (`align(64)`: arm64's `L1_CACHE_BYTES`), so that
/// it spans exactly four lines and [`touch_sbox`] can bring all of them in.
#[repr(C, align(64))]
pub struct Sbox(pub [u8; 256]);

/// The S-box, GB/T 32907-2016 section 6.2 (table 1). The only table indexed by secret data
/// in this file (the scalar block function and key schedule look it up; the NEON and SM4E
/// cores hold it in registers or do not use it).
pub static SBOX: Sbox = Sbox(SBOX_BYTES);

/// The bytes of [`SBOX`], for constants computed from them.
const SBOX_BYTES: [u8; 256] = [
    0xd6, 0x90, 0xe9, 0xfe, 0xcc, 0xe1, 0x3d, 0xb7, 0x16, 0xb6, 0x14, 0xc2, 0x28, 0xfb, 0x2c, 0x05,
    0x2b, 0x67, 0x9a, 0x76, 0x2a, 0xbe, 0x04, 0xc3, 0xaa, 0x44, 0x13, 0x26, 0x49, 0x86, 0x06, 0x99,
    0x9c, 0x42, 0x50, 0xf4, 0x91, 0xef, 0x98, 0x7a, 0x33, 0x54, 0x0b, 0x43, 0xed, 0xcf, 0xac, 0x62,
    0xe4, 0xb3, 0x1c, 0xa9, 0xc9, 0x08, 0xe8, 0x95, 0x80, 0xdf, 0x94, 0xfa, 0x75, 0x8f, 0x3f, 0xa6,
    0x47, 0x07, 0xa7, 0xfc, 0xf3, 0x73, 0x17, 0xba, 0x83, 0x59, 0x3c, 0x19, 0xe6, 0x85, 0x4f, 0xa8,
    0x68, 0x6b, 0x81, 0xb2, 0x71, 0x64, 0xda, 0x8b, 0xf8, 0xeb, 0x0f, 0x4b, 0x70, 0x56, 0x9d, 0x35,
    0x1e, 0x24, 0x0e, 0x5e, 0x63, 0x58, 0xd1, 0xa2, 0x25, 0x22, 0x7c, 0x3b, 0x01, 0x21, 0x78, 0x87,
    0xd4, 0x00, 0x46, 0x57, 0x9f, 0xd3, 0x27, 0x52, 0x4c, 0x36, 0x02, 0xe7, 0xa0, 0xc4, 0xc8, 0x9e,
    0xea, 0xbf, 0x8a, 0xd2, 0x40, 0xc7, 0x38, 0xb5, 0xa3, 0xf7, 0xf2, 0xce, 0xf9, 0x61, 0x15, 0xa1,
    0xe0, 0xae, 0x5d, 0xa4, 0x9b, 0x34, 0x1a, 0x55, 0xad, 0x93, 0x32, 0x30, 0xf5, 0x8c, 0xb1, 0xe3,
    0x1d, 0xf6, 0xe2, 0x2e, 0x82, 0x66, 0xca, 0x60, 0xc0, 0x29, 0x23, 0xab, 0x0d, 0x53, 0x4e, 0x6f,
    0xd5, 0xdb, 0x37, 0x45, 0xde, 0xfd, 0x8e, 0x2f, 0x03, 0xff, 0x6a, 0x72, 0x6d, 0x6c, 0x5b, 0x51,
    0x8d, 0x1b, 0xaf, 0x92, 0xbb, 0xdd, 0xbc, 0x7f, 0x11, 0xd9, 0x5c, 0x41, 0x1f, 0x10, 0x5a, 0xd8,
    0x0a, 0xc1, 0x31, 0x88, 0xa5, 0xcd, 0x7b, 0xbd, 0x2d, 0x74, 0xd0, 0x12, 0xb8, 0xe5, 0xb4, 0xb0,
    0x89, 0x69, 0x97, 0x4a, 0x0c, 0x96, 0x77, 0x7e, 0x65, 0xb9, 0xf1, 0x09, 0xc5, 0x6e, 0xc6, 0x84,
    0x18, 0xf0, 0x7d, 0xec, 0x3a, 0xdc, 0x4d, 0x20, 0x79, 0xee, 0x5f, 0x3e, 0xd7, 0xcb, 0x39, 0x48,
];

impl Sbox {
    /// The table's first byte, for assembly routines that load it whole.
    pub fn as_ptr(&self) -> *const u8 {
        self.0.as_ptr()
    }
}

/// The stride at which [`touch_sbox`] reads: the smallest data cache line of the arm64 CPUs
/// (64 bytes; a CPU with larger lines is covered as well).
const LINE: usize = 64;

/// The byte [`touch_sbox`] reads in each cache line of [`SBOX`]: one per line, chosen so
/// that their S-box values XOR to zero (as the kernel's AES library picks its own), so the
/// sum needs no correcting constant.
const TOUCHED: [usize; 4] = [0, 64, 128, 214];

const _: () = {
    let mut acc = 0u8;
    let mut i = 0;
    while i < TOUCHED.len() {
        // One byte in each line, in order.
        assert!(TOUCHED[i] / LINE == i);
        acc ^= SBOX_BYTES[TOUCHED[i]];
        i += 1;
    }
    assert!(acc == 0);
    assert!(TOUCHED.len() * LINE == SBOX_BYTES.len());
};

/// Reads one byte of every cache line of [`SBOX`], so that the lookups that follow find
/// all of it in the cache whatever their indices: a block's or key's timing then does not
/// depend on which lines its secret indices select (as the kernel's AES library does for its
/// tables). Called before every block and every key schedule.
///
/// Returns zero, which the compiler cannot know: the caller XORs it into a word the first
/// lookup's index depends on, so that no lookup can be issued before the reads have
/// completed, even out of order.
#[inline(always)]
fn touch_sbox() -> u32 {
    let mut acc = 0u8;
    for &i in TOUCHED.iter() {
        // SAFETY: `i < 256` (checked at compile time above): an in-bounds, aligned read of a
        // `u8` of a static. Volatile so that the compiler neither drops nor moves it, nor
        // knows its value.
        acc ^= unsafe { core::ptr::read_volatile(&SBOX.0[i]) };
    }
    u32::from(acc)
}

/// System parameter FK, GB/T 32907-2016 section 7.3.
pub static FK: [u32; 4] = [0xa3b1bac6, 0x56aa3350, 0x677d9197, 0xb27022dc];

/// Fixed parameters CK, GB/T 32907-2016 section 7.3: byte `j` of `CK[i]` is `(4i + j) * 7 mod 256`.
pub static CK: [u32; ROUNDS] = [
    0x00070e15, 0x1c232a31, 0x383f464d, 0x545b6269, 0x70777e85, 0x8c939aa1, 0xa8afb6bd, 0xc4cbd2d9,
    0xe0e7eef5, 0xfc030a11, 0x181f262d, 0x343b4249, 0x50575e65, 0x6c737a81, 0x888f969d, 0xa4abb2b9,
    0xc0c7ced5, 0xdce3eaf1, 0xf8ff060d, 0x141b2229, 0x30373e45, 0x4c535a61, 0x686f767d, 0x848b9299,
    0xa0a7aeb5, 0xbcc3cad1, 0xd8dfe6ed, 0xf4fb0209, 0x10171e25, 0x2c333a41, 0x484f565d, 0x646b7279,
];

/// The non-linear substitution `tau`: the S-box on each byte of a word.
#[inline(always)]
fn tau(a: u32) -> u32 {
    // Each byte by shifts and a mask (no byte reversal of the word), from the low byte
    // up, so that each of the others is ORed in with its shift.
    let s = |x: u32| u32::from(SBOX.0[(x & 0xff) as usize]);
    s(a) | (s(a >> 8) << 8) | (s(a >> 16) << 16) | (s(a >> 24) << 24)
}

/// The round function's mixer `T = L(tau(.))`, GB/T 32907-2016 section 6.2:
/// `L(B) = B ^ (B <<< 2) ^ (B <<< 10) ^ (B <<< 18) ^ (B <<< 24)`.
#[inline(always)]
fn t_round(a: u32) -> u32 {
    let b = tau(a);
    b ^ b.rotate_left(2) ^ b.rotate_left(10) ^ b.rotate_left(18) ^ b.rotate_left(24)
}

/// The key schedule's mixer `T' = L'(tau(.))`.
#[inline(always)]
fn t_key(a: u32) -> u32 {
    let b = tau(a);
    b ^ b.rotate_left(13) ^ b.rotate_left(23)
}

/// The four big-endian words of a block. The kernel's Rust target forbids unaligned word
/// loads (`+strict-align`), so a block that is not 4-byte aligned is read byte by byte; an
/// aligned one (the usual case) with four word loads.
#[inline(always)]
fn load_words(b: &Block) -> [u32; 4] {
    let p = b.as_ptr();
    if p as usize % 4 == 0 {
        // SAFETY: `p` points to 16 readable bytes (a `Block`) and is 4-byte aligned, so it is
        // valid for a read of `[u32; 4]`, any bits of which are a valid value.
        let w = unsafe { core::ptr::read(p.cast::<[u32; 4]>()) };
        w.map(u32::from_be)
    } else {
        let v = u128::from_be_bytes(*b);
        [
            (v >> 96) as u32,
            (v >> 64) as u32,
            (v >> 32) as u32,
            v as u32,
        ]
    }
}

/// Writes four words to a block, big-endian, as [`load_words`] reads them.
#[inline(always)]
pub fn store_words(b: &mut Block, w: [u32; 4]) {
    let p = b.as_mut_ptr();
    if p as usize % 4 == 0 {
        // SAFETY: `p` points to 16 writable bytes (a `Block`, borrowed exclusively) and is
        // 4-byte aligned, so it is valid for a write of `[u32; 4]`.
        unsafe { core::ptr::write(p.cast::<[u32; 4]>(), w.map(u32::to_be)) };
    } else {
        let v = (u128::from(w[0]) << 96)
            | (u128::from(w[1]) << 64)
            | (u128::from(w[2]) << 32)
            | u128::from(w[3]);
        *b = v.to_be_bytes();
    }
}

/// Overwrites `v` with zeros in a way the compiler may not elide.
fn wipe_words(v: &mut [u32]) {
    for w in v.iter_mut() {
        // SAFETY: `w` is a valid, exclusive reference.
        unsafe { core::ptr::write_volatile(w, 0) };
    }
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// The 32 round keys of one direction.
///
/// Encryption uses them in order, decryption in reverse ([`Key`] holds both). Key material:
/// neither `Copy`, `Clone`, `Debug` nor `PartialEq`, and its words are private (so it is not
/// copied, printed or compared in data-dependent time by accident), and wiped when dropped;
/// expand keys in place ([`RoundKeys::expand_into`], [`Key::expand_into`]) so that no copy
/// is left behind.
#[derive(Default)]
#[repr(C)]
pub struct RoundKeys([u32; ROUNDS]);

impl Drop for RoundKeys {
    fn drop(&mut self) {
        wipe_words(&mut self.0);
    }
}

impl RoundKeys {
    /// Expands a 128-bit key into the encryption round keys (GB/T 32907-2016 section 7.3).
    pub fn expand(key: &[u8; KEY_SIZE]) -> Self {
        let mut rk = RoundKeys::default();
        rk.expand_into(key);
        rk
    }

    /// Expands a 128-bit key into these encryption round keys, in place.
    pub fn expand_into(&mut self, key: &[u8; KEY_SIZE]) {
        let zero = touch_sbox();
        let mut k = [0u32; 4];
        for (i, w) in k.iter_mut().enumerate() {
            *w = u32::from_be_bytes([key[4 * i], key[4 * i + 1], key[4 * i + 2], key[4 * i + 3]])
                ^ FK[i];
        }
        // The first lookup's index depends on K1: after the S-box's lines are in.
        k[1] ^= zero;
        for (i, r) in self.0.iter_mut().enumerate() {
            let next = k[0] ^ t_key(k[1] ^ k[2] ^ k[3] ^ CK[i]);
            *r = next;
            k = [k[1], k[2], k[3], next];
        }
        wipe_words(&mut k);
    }

    /// The round keys, for assembly routines (32 words).
    pub fn as_ptr(&self) -> *const u32 {
        self.0.as_ptr()
    }

    /// The round keys, for assembly routines that write them (32 words).
    pub fn as_mut_ptr(&mut self) -> *mut u32 {
        self.0.as_mut_ptr()
    }

    /// Round key `i` (0 to 31), for known-answer tests of the schedule.
    pub fn word(&self, i: usize) -> u32 {
        self.0[i % ROUNDS]
    }

    /// Sets these keys to `enc` in reverse order: the schedule that decrypts.
    pub fn reverse_from(&mut self, enc: &RoundKeys) {
        for (d, e) in self.0.iter_mut().zip(enc.0.iter().rev()) {
            *d = *e;
        }
    }

    /// Runs the 32 rounds over one block in place (encrypts with an encryption schedule,
    /// decrypts with a reversed one).
    pub fn crypt_block(&self, block: &mut Block) {
        let out = self.rounds(block);
        store_words(block, out);
    }

    /// Runs the 32 rounds over `src` and returns the output block's words, for
    /// [`store_words`]: a block read from one place and written to another.
    #[inline(always)]
    pub fn rounds(&self, src: &Block) -> [u32; 4] {
        self.rounds_in::<false>(src)
    }

    /// As [`RoundKeys::rounds`] with the keys in reverse order: decrypts with an encryption
    /// schedule (whose keys lie within a load pair's reach of the context, where the
    /// reversed copy's last ones do not).
    #[inline(always)]
    pub fn rounds_reversed(&self, src: &Block) -> [u32; 4] {
        self.rounds_in::<true>(src)
    }

    #[inline(always)]
    fn rounds_in<const REVERSED: bool>(&self, src: &Block) -> [u32; 4] {
        let zero = touch_sbox();
        let mut x = load_words(src);
        // The first lookup's index depends on X1: after the S-box's lines are in.
        x[1] ^= zero;
        // Unrolled (a loop would spend three instructions a group on its count), four rounds
        // at a time, so that the words rotate through the variables instead of being moved.
        four_rounds::<REVERSED>(&mut x, &self.0, 0);
        four_rounds::<REVERSED>(&mut x, &self.0, 4);
        four_rounds::<REVERSED>(&mut x, &self.0, 8);
        four_rounds::<REVERSED>(&mut x, &self.0, 12);
        four_rounds::<REVERSED>(&mut x, &self.0, 16);
        four_rounds::<REVERSED>(&mut x, &self.0, 20);
        four_rounds::<REVERSED>(&mut x, &self.0, 24);
        four_rounds::<REVERSED>(&mut x, &self.0, 28);
        // The reverse transformation R: the output is (X35, X34, X33, X32).
        [x[3], x[2], x[1], x[0]]
    }
}

/// Rounds `i` to `i + 3` (`i` a multiple of 4 below 32) of the state `x`, with the keys `rk`
/// in order or reversed.
#[inline(always)]
fn four_rounds<const REVERSED: bool>(x: &mut [u32; 4], rk: &[u32; ROUNDS], i: usize) {
    let k = |j: usize| {
        rk[if REVERSED {
            ROUNDS - 1 - j % ROUNDS
        } else {
            j % ROUNDS
        }]
    };
    let [x0, x1, x2, x3] = x;
    *x0 ^= t_round(*x1 ^ *x2 ^ *x3 ^ k(i));
    *x1 ^= t_round(*x2 ^ *x3 ^ *x0 ^ k(i + 1));
    *x2 ^= t_round(*x3 ^ *x0 ^ *x1 ^ k(i + 2));
    *x3 ^= t_round(*x0 ^ *x1 ^ *x2 ^ k(i + 3));
}

/// An expanded SM4 key: the encryption and decryption schedules (wiped when dropped).
#[derive(Default)]
#[repr(C)]
pub struct Key {
    /// Round keys in encryption order.
    pub enc: RoundKeys,
    /// Round keys in decryption order.
    pub dec: RoundKeys,
}

impl Key {
    /// Expands `key`; `None` unless it is exactly [`KEY_SIZE`] bytes long.
    pub fn new(key: &[u8]) -> Option<Self> {
        Some(Self::from_bytes(key.try_into().ok()?))
    }

    /// Expands a key of exactly [`KEY_SIZE`] bytes.
    pub fn from_bytes(key: &[u8; KEY_SIZE]) -> Self {
        let mut k = Key::default();
        k.expand_into(key);
        k
    }

    /// Expands a key of exactly [`KEY_SIZE`] bytes into this one, in place.
    pub fn expand_into(&mut self, key: &[u8; KEY_SIZE]) {
        self.enc.expand_into(key);
        self.dec.reverse_from(&self.enc);
    }

    /// Encrypts one block in place.
    pub fn encrypt_block(&self, block: &mut Block) {
        self.enc.crypt_block(block);
    }

    /// Decrypts one block in place.
    pub fn decrypt_block(&self, block: &mut Block) {
        self.dec.crypt_block(block);
    }
}

/// Known-answer vectors shared by the host tests and the kernel's KUnit suites.
pub mod vectors {
    /// GB/T 32907-2016 appendix A, example 1: key and plaintext `0123456789abcdeffedcba9876543210`.
    pub const STD_KEY: [u8; 16] = [
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32,
        0x10,
    ];
    /// Appendix A, example 1: the ciphertext of [`STD_KEY`] under [`STD_KEY`].
    pub const STD_CT: [u8; 16] = [
        0x68, 0x1e, 0xdf, 0x34, 0xd2, 0x06, 0x96, 0x5e, 0x86, 0xb3, 0xe9, 0x4f, 0x53, 0x6e, 0x42,
        0x46,
    ];
    /// Appendix A, example 2: the same block encrypted 1,000,000 times under the same key.
    pub const STD_CT_1M: [u8; 16] = [
        0x59, 0x52, 0x98, 0xc7, 0xc6, 0xfd, 0x27, 0x1f, 0x04, 0x02, 0xf8, 0x04, 0xc3, 0x3d, 0x3f,
        0x66,
    ];
    /// Appendix A, example 1: the first and last round keys of [`STD_KEY`].
    pub const STD_RK0: u32 = 0xf12186f9;
    /// See [`STD_RK0`].
    pub const STD_RK31: u32 = 0x9124a012;

    /// CFB: key [`STD_KEY`], IV `00 01 .. 0f`, plaintext `00 01 .. 3f` (64 bytes), the
    /// ciphertext from OpenSSL 3.0.22, checked against Python `cryptography`'s SM4-CFB:
    /// `head -c 64 <bytes 00..3f> | openssl enc -sm4-cfb -K 0123456789abcdeffedcba9876543210
    /// -iv 000102030405060708090a0b0c0d0e0f -nopad`. A 37-byte message is its prefix.
    pub const CFB_CT: [u8; 64] = [
        0x06, 0x99, 0x9e, 0x62, 0x39, 0xa3, 0x6e, 0xaa, 0x22, 0x84, 0xfd, 0x89, 0xed, 0xa5, 0xf7,
        0x65, 0xca, 0xb2, 0x43, 0xc9, 0x11, 0xb8, 0x74, 0x79, 0xb3, 0xc4, 0x87, 0xb4, 0x5e, 0xce,
        0xa6, 0x58, 0x4a, 0x2e, 0xeb, 0x37, 0x8d, 0x6d, 0x61, 0x2d, 0x5d, 0xd9, 0x7f, 0x41, 0x2d,
        0x7f, 0x67, 0x13, 0x76, 0x8d, 0xe8, 0xf4, 0x44, 0x6c, 0x78, 0x6b, 0xe3, 0x06, 0xb6, 0xee,
        0xfb, 0x0c, 0x6c, 0xa8,
    ];
}
