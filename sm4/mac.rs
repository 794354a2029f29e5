// SPDX-License-Identifier: GPL-2.0

//! SM4 MACs over a back end's block cores: CBC-MAC (the `cbcmac` that `ccm` is built on),
//! CMAC (NIST SP 800-38B) and XCBC-MAC (RFC 3566).
//!
//! The three share their state (the MAC so far) and their update: whole blocks go through
//! the back end's CBC-MAC core, a NEON section per page at most; where NEON may not be used,
//! the plain Rust SM4 does the same work. The last block comes apart, to `finup` (for CMAC
//! and XCBC even when it is whole: they XOR a key-derived constant into it before its
//! encryption). One type, [`Mac`], is all three: its [`Kind`] decides the name, the key
//! derivation and how the last block is closed.

use crate::crypto::{
    shash::{PlainState, Shash},
    wipe, InOut, Input, Neon, Secret, Simd, MAX_STEP,
};
use crate::modes::{expand, Backend, DriverName};
use crate::sm4::{self, Block, RoundKeys, BLOCK_SIZE};
use core::{ffi::CStr, marker::PhantomData};
use kernel::error::Result;

/// The MAC routines of a back end, over its [`Backend`] key schedule and ECB core (and its
/// driver names' suffix).
pub(crate) trait MacBackend: Backend {
    /// `mac <- E(mac ^ block)` for each whole block of `data` (a multiple of the block
    /// size), with the encryption schedule `rk`.
    fn cbcmac(neon: &Neon, rk: &RoundKeys, mac: &mut Block, data: &Input<'_>);
}

/// The key of a MAC transform: the cipher's schedule and the two constants XORed into the
/// last block (CMAC: K1 for a whole block, K2 for a padded one; XCBC: K2 and K3).
/// Wiped when dropped.
#[derive(Default)]
pub(crate) struct MacKey {
    key: sm4::Key,
    whole: Block,
    padded: Block,
}

impl Drop for MacKey {
    fn drop(&mut self) {
        wipe(&mut self.whole);
        wipe(&mut self.padded);
    }
}

/// The state of a MAC request: the MAC of the whole blocks taken in.
#[derive(Clone, Copy)]
#[repr(C)]
pub(crate) struct MacState {
    mac: Block,
}

// SAFETY: a byte array, no padding, no `Drop`; every value is valid.
unsafe impl PlainState for MacState {}

fn xor_into(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= s;
    }
}

/// Encrypts `block` in place with the encryption schedule of `key`.
fn encrypt<B: MacBackend>(key: &sm4::Key, block: &mut Block, simd: &mut Simd) {
    let done = simd.neon(|neon| B::ecb(neon, &key.enc, &mut InOut::in_place(block), 1));
    if done.is_none() {
        key.enc.crypt_block(block);
    }
}

/// Multiplication by x in GF(2^128) (big-endian, x^128 = x^7 + x^2 + x + 1), in time
/// independent of the value.
fn double(b: &Block) -> Block {
    let v = u128::from_be_bytes(*b);
    let carry = (v >> 127) as u8;
    let mut out = (v << 1).to_be_bytes();
    out[BLOCK_SIZE - 1] ^= 0x87 & 0u8.wrapping_sub(carry);
    out
}

/// Takes in `blocks` (whole blocks): `mac <- E(mac ^ block)` for each.
fn update<B: MacBackend>(key: &MacKey, st: &mut MacState, blocks: Input<'_>, simd: &mut Simd) {
    let rk = &key.key.enc;
    // A NEON section per page of data at most, as the skcipher walks give; one for the
    // whole update where the kernel lets a section span it (as its own glue does).
    let done = simd.span(blocks.len() > MAX_STEP, |simd| {
        let (first, mut rest) = blocks.split_at(MAX_STEP);
        let done = simd.neon(|neon| B::cbcmac(neon, rk, &mut st.mac, &first));
        if done.is_some() {
            while !rest.is_empty() {
                let (part, r) = rest.split_at(MAX_STEP);
                rest = r;
                // (The context cannot change within the callback: this one is granted too.)
                simd.neon(|neon| B::cbcmac(neon, rk, &mut st.mac, &part));
            }
        }
        done
    });
    if done.is_none() {
        let mut buf = Secret::<BLOCK_SIZE>::zeroed();
        let mut off = 0;
        while off + BLOCK_SIZE <= blocks.len() {
            blocks.read_at(off, &mut buf[..]);
            xor_into(&mut st.mac, &buf[..]);
            rk.crypt_block(&mut st.mac);
            off += BLOCK_SIZE;
        }
    }
}

/// The three MACs: what their keys derive and how their last block is closed.
pub(crate) enum Kind {
    /// `cmac(sm4)` (NIST SP 800-38B): the last block, whole or padded with 0x80 0x00...,
    /// XORed with K1 or K2, derived from E(K, 0).
    Cmac,
    /// `xcbc(sm4)` (RFC 3566): as CMAC, with K2 and K3 encrypted from constants and the
    /// MAC keyed with K1.
    Xcbc,
    /// `cbcmac(sm4)`: CBC-MAC with a zero IV, the last block zero-padded and no constant (as
    /// the kernel's `cbcmac` template, which `ccm` uses).
    CbcMac,
}

/// A type-level [`Kind`], the parameter of [`Mac`].
pub(crate) trait MacKind: 'static {
    /// The MAC it names.
    const KIND: Kind;
}

/// [`Kind::Cmac`].
pub(crate) struct CmacKind;
impl MacKind for CmacKind {
    const KIND: Kind = Kind::Cmac;
}

/// [`Kind::Xcbc`].
pub(crate) struct XcbcKind;
impl MacKind for XcbcKind {
    const KIND: Kind = Kind::Xcbc;
}

/// [`Kind::CbcMac`].
pub(crate) struct CbcMacKind;
impl MacKind for CbcMacKind {
    const KIND: Kind = Kind::CbcMac;
}

/// `cmac(sm4)`, `xcbc(sm4)` or `cbcmac(sm4)` over the back end `B`.
pub(crate) struct Mac<B, K>(PhantomData<(B, K)>);

/// `cmac(sm4)`.
pub(crate) type Cmac<B> = Mac<B, CmacKind>;
/// `xcbc(sm4)`.
pub(crate) type Xcbc<B> = Mac<B, XcbcKind>;
/// `cbcmac(sm4)`.
pub(crate) type CbcMac<B> = Mac<B, CbcMacKind>;

/// The block size of `cbcmac`: the kernel's template's (which testmgr compares with).
const CBCMAC_BLOCK_SIZE: u32 = crate::crypto::shash::cbcmac_block_size(BLOCK_SIZE as u32);

impl<B: MacBackend, K: MacKind> Mac<B, K> {
    const DRIVER_BYTES: DriverName = DriverName::new(
        match K::KIND {
            Kind::Cmac => "cmac",
            Kind::Xcbc => "xcbc",
            Kind::CbcMac => "cbcmac",
        },
        B::DRIVER_SUFFIX,
    );
}

impl<B: MacBackend, K: MacKind> Shash for Mac<B, K> {
    const NAME: &'static CStr = match K::KIND {
        Kind::Cmac => c"cmac(sm4)",
        Kind::Xcbc => c"xcbc(sm4)",
        Kind::CbcMac => c"cbcmac(sm4)",
    };
    const DRIVER_NAME: &'static CStr = Self::DRIVER_BYTES.as_c_str();
    const PRIORITY: i32 = B::PRIORITY;
    const BLOCK_SIZE: u32 = BLOCK_SIZE as u32;
    const CRA_BLOCK_SIZE: u32 = match K::KIND {
        Kind::CbcMac => CBCMAC_BLOCK_SIZE,
        Kind::Cmac | Kind::Xcbc => BLOCK_SIZE as u32,
    };
    const FINAL_NONZERO: bool = match K::KIND {
        Kind::Cmac | Kind::Xcbc => true,
        Kind::CbcMac => false,
    };
    type Digest = Block;
    type Key = MacKey;
    type State = MacState;

    fn set_key(key: &mut MacKey, bytes: &[u8], simd: &mut Simd) -> Result {
        expand::<B>(bytes, &mut key.key, simd)?;
        match K::KIND {
            // L = E(K, 0), K1 = L * x, K2 = K1 * x (SP 800-38B, 6.1).
            Kind::Cmac => {
                let mut l = [0u8; BLOCK_SIZE];
                encrypt::<B>(&key.key, &mut l, simd);
                key.whole = double(&l);
                key.padded = double(&key.whole);
                wipe(&mut l);
            }
            // K1 = E(K, 0x01..), K2 = E(K, 0x02..), K3 = E(K, 0x03..); the MAC is keyed
            // with K1 (RFC 3566, 4).
            Kind::Xcbc => {
                let mut k1 = [0x01u8; BLOCK_SIZE];
                key.whole = [0x02; BLOCK_SIZE];
                key.padded = [0x03; BLOCK_SIZE];
                encrypt::<B>(&key.key, &mut k1, simd);
                encrypt::<B>(&key.key, &mut key.whole, simd);
                encrypt::<B>(&key.key, &mut key.padded, simd);
                B::expand_key(&k1, &mut key.key, simd);
                wipe(&mut k1);
            }
            Kind::CbcMac => {}
        }
        Ok(())
    }

    fn init(_: &MacKey) -> MacState {
        MacState {
            mac: [0; BLOCK_SIZE],
        }
    }

    fn update(key: &MacKey, st: &mut MacState, blocks: Input<'_>, simd: &mut Simd) {
        update::<B>(key, st, blocks, simd);
    }

    fn finup(key: &MacKey, st: &mut MacState, last: Input<'_>, out: &mut Block, simd: &mut Simd) {
        // (At most a block: the abstraction's promise.)
        let len = last.len().min(BLOCK_SIZE);
        let mut buf = Secret::<BLOCK_SIZE>::zeroed();
        last.read(&mut buf[..len]);
        xor_into(&mut st.mac, &buf[..len]);
        match K::KIND {
            Kind::Cmac | Kind::Xcbc => {
                if len == BLOCK_SIZE {
                    xor_into(&mut st.mac, &key.whole);
                } else {
                    st.mac[len] ^= 0x80;
                    xor_into(&mut st.mac, &key.padded);
                }
                encrypt::<B>(&key.key, &mut st.mac, simd);
            }
            Kind::CbcMac => {
                if len > 0 {
                    encrypt::<B>(&key.key, &mut st.mac, simd);
                }
            }
        }
        *out = st.mac;
        wipe(&mut st.mac);
    }
}
