// SPDX-License-Identifier: GPL-2.0

//! Host tests of `sm4/sm4.rs`: the standard's vectors and a comparison with RustCrypto's `sm4`.

use sm4::cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
use sm4_core::{vectors, Key, RoundKeys, CK, SBOX};

#[path = "../../kunit/rng.rs"]
mod rng;
use rng::Rng;

/// A random block.
fn block(rng: &mut Rng) -> [u8; 16] {
    let mut b = [0u8; 16];
    rng.fill(&mut b);
    b
}

#[test]
fn standard_example_1_encrypt_decrypt() {
    let key = Key::new(&vectors::STD_KEY).expect("16-byte key");
    let mut b = vectors::STD_KEY;
    key.encrypt_block(&mut b);
    assert_eq!(b, vectors::STD_CT);
    key.decrypt_block(&mut b);
    assert_eq!(b, vectors::STD_KEY);
}

#[test]
fn standard_example_1_round_keys() {
    let rk = RoundKeys::expand(&vectors::STD_KEY);
    assert_eq!(rk.word(0), vectors::STD_RK0);
    assert_eq!(rk.word(31), vectors::STD_RK31);
}

#[test]
fn standard_example_2_million_encryptions() {
    let key = Key::new(&vectors::STD_KEY).expect("16-byte key");
    let mut b = vectors::STD_KEY;
    for _ in 0..1_000_000 {
        key.encrypt_block(&mut b);
    }
    assert_eq!(b, vectors::STD_CT_1M);
    for _ in 0..1_000_000 {
        key.decrypt_block(&mut b);
    }
    assert_eq!(b, vectors::STD_KEY);
}

#[test]
fn ck_follows_the_standard_formula() {
    for (i, ck) in CK.iter().enumerate() {
        let bytes: Vec<u8> = (0..4).map(|j| ((4 * i + j) * 7 % 256) as u8).collect();
        assert_eq!(ck.to_be_bytes().to_vec(), bytes, "CK[{i}]");
    }
}

#[test]
fn sbox_is_a_permutation() {
    let mut seen = [false; 256];
    for &v in SBOX.0.iter() {
        assert!(!seen[v as usize], "S-box value {v:#04x} appears twice");
        seen[v as usize] = true;
    }
}

#[test]
fn wrong_key_lengths_are_refused() {
    for len in [0usize, 1, 15, 17, 24, 32] {
        assert!(Key::new(&vec![0u8; len]).is_none(), "length {len}");
    }
}

#[test]
fn matches_rustcrypto_sm4_on_random_keys_and_blocks() {
    let mut rng = Rng(0x5eed_5a4d_0000_0001);
    for _ in 0..2000 {
        let k = block(&mut rng);
        let ours = Key::new(&k).expect("16-byte key");
        let theirs = sm4::Sm4::new(&k.into());
        for _ in 0..8 {
            let p = block(&mut rng);
            let mut a = p;
            ours.encrypt_block(&mut a);
            let mut b = p.into();
            theirs.encrypt_block(&mut b);
            assert_eq!(
                a,
                <[u8; 16]>::from(b),
                "encrypt key {k:02x?} block {p:02x?}"
            );
            let mut c = p.into();
            theirs.decrypt_block(&mut c);
            let mut d = p;
            ours.decrypt_block(&mut d);
            assert_eq!(
                d,
                <[u8; 16]>::from(c),
                "decrypt key {k:02x?} block {p:02x?}"
            );
        }
    }
}

/// CFB-128 over the block function, as the kernel's former `cfb` template (a partial last
/// block leaves the IV as the last whole ciphertext block).
fn cfb(key: &Key, iv: &mut [u8; 16], data: &mut [u8], enc: bool) {
    for chunk in data.chunks_mut(16) {
        let mut ks = *iv;
        key.encrypt_block(&mut ks);
        let input: Vec<u8> = chunk.to_vec();
        for (d, k) in chunk.iter_mut().zip(ks.iter()) {
            *d ^= k;
        }
        if chunk.len() == 16 {
            let c = if enc { &*chunk } else { &input[..] };
            iv.copy_from_slice(c);
        }
    }
}

#[test]
fn cfb_matches_openssl_whole_and_partial() {
    let key = Key::new(&vectors::STD_KEY).expect("16-byte key");
    let iv0: [u8; 16] = core::array::from_fn(|i| i as u8);
    for len in [64usize, 37, 16, 5, 0] {
        let pt: Vec<u8> = (0..len as u8).collect();
        let mut ct = pt.clone();
        let mut iv = iv0;
        cfb(&key, &mut iv, &mut ct, true);
        assert_eq!(ct[..], vectors::CFB_CT[..len], "encrypt, length {len}");
        let mut back = ct.clone();
        let mut iv = iv0;
        cfb(&key, &mut iv, &mut back, false);
        assert_eq!(back, pt, "decrypt, length {len}");
    }
}

#[test]
fn sbox_spans_exactly_four_cache_lines() {
    // The constant-time argument of the scalar code: the 256 bytes start on a 64-byte line,
    // so the four lines that the block function touches before each block are all of it.
    assert_eq!(core::mem::size_of_val(&SBOX), 256);
    assert_eq!(SBOX.as_ptr() as usize % 64, 0);
}
