// SPDX-License-Identifier: GPL-2.0

//! SM4 (GB/T 32907-2016) in Rust: the `sm4` cipher, driver `sm4-generic`, priority 100.
//!
//! The portable reference implementation: testmgr compares the accelerated SM4 drivers
//! against it. The algorithm itself is `lib/sm4.rs`, shared with the host tests; its KUnit
//! suite is the separate test module `tests/kunit/sm4_generic_kunit.rs`.

// Out of tree, each module compiles its own copy of the abstraction and of the SM4 core and
// uses a part of them; their `pub` items are the API they would have in `kernel::crypto`.
#[path = "crypto/mod.rs"]
#[allow(dead_code, unreachable_pub)]
mod crypto;
#[path = "lib/sm4.rs"]
#[allow(dead_code, unreachable_pub)]
mod sm4;

use core::ffi::CStr;
use crypto::{cipher, simd::Simd};
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

    fn set_key(ctx: &mut sm4::Key, key: &[u8], _: &mut Simd) -> Result {
        let key: &[u8; sm4::KEY_SIZE] = key.try_into().map_err(|_| EINVAL)?;
        ctx.expand_into(key);
        Ok(())
    }

    fn encrypt(ctx: &sm4::Key, block: &mut sm4::Block, _: &mut Simd) {
        ctx.encrypt_block(block);
    }

    fn decrypt(ctx: &sm4::Key, block: &mut sm4::Block, _: &mut Simd) {
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
