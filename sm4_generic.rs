// SPDX-License-Identifier: GPL-2.0

//! SM4 (GB/T 32907-2016) in Rust: the `sm4` cipher, driver `sm4-generic`, priority 100.
//!
//! The portable reference implementation: testmgr compares the accelerated SM4 drivers
//! against it. The algorithm itself is `lib/sm4.rs`, shared with the host tests.

// Out of tree, each module compiles its own copy of the abstraction and of the SM4 core and
// uses a part of them; their `pub` items are the API they would have in `kernel::crypto`.
#[path = "crypto/mod.rs"]
#[allow(dead_code, unreachable_pub)]
mod crypto;
#[path = "lib/sm4.rs"]
#[allow(dead_code, unreachable_pub)]
mod sm4;

use core::ffi::CStr;
use crypto::cipher;
use kernel::{error::code::EINVAL, prelude::*};

crypto::module! {
    type: Sm4GenericModule,
    name: "sm4_generic",
    author: "The sm4-rs authors",
    description: "SM4 block cipher (GB/T 32907-2016), generic Rust implementation",
    license: "GPL",
    alias: ["crypto-sm4", "crypto-sm4-generic"],
}

/// The SM4 cipher, one block at a time.
struct Sm4Generic;

impl cipher::Cipher for Sm4Generic {
    const NAME: &'static CStr = c"sm4";
    const DRIVER_NAME: &'static CStr = c"sm4-generic";
    const PRIORITY: i32 = 100;
    const MIN_KEY_SIZE: u32 = sm4::KEY_SIZE as u32;
    const MAX_KEY_SIZE: u32 = sm4::KEY_SIZE as u32;

    type Block = sm4::Block;
    type Context = sm4::Key;

    fn set_key(ctx: &mut sm4::Key, key: &[u8]) -> Result {
        *ctx = sm4::Key::new(key).ok_or(EINVAL)?;
        Ok(())
    }

    fn encrypt(ctx: &sm4::Key, block: &mut sm4::Block) {
        ctx.encrypt_block(block);
    }

    fn decrypt(ctx: &sm4::Key, block: &mut sm4::Block) {
        ctx.decrypt_block(block);
    }
}

struct Sm4GenericModule {
    _cipher: cipher::Registration<Sm4Generic>,
}

impl kernel::Module for Sm4GenericModule {
    fn init(module: &'static ThisModule) -> Result<Self> {
        Ok(Self {
            _cipher: cipher::Registration::new(module)?,
        })
    }
}

/// KUnit suite `sm4_generic`: the algorithm and its registration with the crypto API.
mod tests {
    use super::crypto::{
        cipher::Tfm,
        kunit::{check, check_eq, check_ok, suite, TestResult},
    };
    use super::sm4::{self, vectors};

    /// GB/T 32907-2016 appendix A, example 1, on the algorithm directly.
    fn standard_vector() -> TestResult {
        let key = check_ok!(sm4::Key::new(&vectors::STD_KEY).ok_or(()));
        check_eq!(key.enc.0[0], vectors::STD_RK0);
        check_eq!(key.enc.0[31], vectors::STD_RK31);
        let mut b = vectors::STD_KEY;
        key.encrypt_block(&mut b);
        check_eq!(b, vectors::STD_CT);
        key.decrypt_block(&mut b);
        check_eq!(b, vectors::STD_KEY);
        Ok(())
    }

    /// Appendix A, example 2: one block encrypted 1,000,000 times.
    fn standard_million() -> TestResult {
        let key = check_ok!(sm4::Key::new(&vectors::STD_KEY).ok_or(()));
        let mut b = vectors::STD_KEY;
        for _ in 0..1_000_000 {
            key.encrypt_block(&mut b);
        }
        check_eq!(b, vectors::STD_CT_1M);
        Ok(())
    }

    /// Example 1 through the crypto API: the registered driver, its setkey and callbacks.
    fn registered_cipher() -> TestResult {
        let mut t = check_ok!(Tfm::new(c"sm4-generic"));
        check!(t.set_key(&vectors::STD_KEY).is_ok());
        let mut b = vectors::STD_KEY;
        check!(t.encrypt(&mut b).is_ok());
        check_eq!(b, vectors::STD_CT);
        check!(t.decrypt(&mut b).is_ok());
        check_eq!(b, vectors::STD_KEY);
        Ok(())
    }

    /// Keys of the wrong length are refused with -EINVAL and leave the key unchanged.
    fn bad_key_length() -> TestResult {
        let mut t = check_ok!(Tfm::new(c"sm4-generic"));
        check!(t.set_key(&vectors::STD_KEY).is_ok());
        for len in [0usize, 1, 15, 17, 24, 32] {
            let key = [0x5au8; 32];
            let r = t.set_key(&key[..len]);
            check!(r.map_err(|e| e.to_errno()) == Err(-22));
        }
        let mut b = vectors::STD_KEY;
        check!(t.encrypt(&mut b).is_ok());
        check_eq!(b, vectors::STD_CT);
        Ok(())
    }

    /// A block of the wrong size is refused by the test transform.
    fn bad_block_length() -> TestResult {
        let t = check_ok!(Tfm::new(c"sm4-generic"));
        let mut short = [0u8; 15];
        check!(t.encrypt(&mut short).is_err());
        Ok(())
    }

    suite!(
        c"sm4_generic",
        [
            standard_vector,
            standard_million,
            registered_cipher,
            bad_key_length,
            bad_block_length
        ]
    );
}
