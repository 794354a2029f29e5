// SPDX-License-Identifier: GPL-2.0

//! SM4 (GB/T 32907-2016) in Rust: the `sm4` cipher, driver `sm4-generic`, priority 100.
//! With `CRYPTO_SM4_RUST_CFB`, also `cfb(sm4)` as `cfb-sm4-generic` (priority 100, below the
//! accelerated drivers): the kernel has no `cfb` template any more, so without it CFB would
//! vanish whenever the accelerated modules are not loaded.
//!
//! The portable reference implementation: testmgr compares the accelerated SM4 drivers
//! against it. The algorithm itself is `sm4/sm4.rs`, shared with the host tests; its KUnit
//! suite is in the separate test module (`tests/kunit/sm4_kunit_main.rs`).

// sm4rs-oot-begin
// Out of tree, each module compiles its own copy of the abstraction and of the SM4 core and
// uses a part of them; their `pub` items are the API they would have in `kernel::crypto`.
#[path = "crypto/mod.rs"]
#[allow(dead_code, unreachable_pub)]
mod crypto;
use crypto::module;
// sm4rs-oot-end
// sm4rs-in-tree: use kernel::crypto;
#[path = "sm4/sm4.rs"]
#[allow(dead_code, unreachable_pub)]
mod sm4;

use core::ffi::CStr;
#[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
use crypto::skcipher;
use crypto::{
    cipher::{self, BlockIo},
    Simd,
};
use kernel::{error::code::EINVAL, prelude::*};

module! {
    type: Sm4GenericModule,
    name: "sm4_generic",
    author: "The sm4-rs authors",
    description: "SM4 block cipher (GB/T 32907-2016), generic Rust implementation",
    license: "GPL",
    alias: ["crypto-sm4", "crypto-sm4-generic"],
}

// `cfb(sm4)`'s aliases, where it is built.
#[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
crypto::alg::alias_crypto!(
    "sm4_generic",
    &[["cfb(sm4)", "", ""], ["cfb-sm4-generic", "", ""]]
);

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

    // Inlined into the kernel's callback: one function a block, as C's.
    #[inline(always)]
    fn encrypt(ctx: &sm4::Key, block: &mut BlockIo<'_, sm4::Block>, _: &mut Simd) {
        let out = ctx.enc.rounds(block.src());
        sm4::store_words(block.dst(), out);
    }

    // Inlined into the kernel's callback: one function a block, as C's.
    #[inline(always)]
    fn decrypt(ctx: &sm4::Key, block: &mut BlockIo<'_, sm4::Block>, _: &mut Simd) {
        let out = ctx.enc.rounds_reversed(block.src());
        sm4::store_words(block.dst(), out);
    }
}

/// `cfb(sm4)`: the kernel lost its `cfb` template in Linux 6.8, for lack of in-kernel users.
#[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
mod cfb {
    use super::sm4;
    use crate::crypto::{
        alg::Key,
        skcipher::{Request, Skcipher},
        Secret, Simd,
    };
    use core::ffi::CStr;
    use kernel::{error::code::EINVAL, prelude::*};

    /// `cfb(sm4)` over the Rust block function (CFB-128, as the kernel's former template: a
    /// partial last block leaves the IV as the last whole ciphertext block).
    pub(crate) struct Sm4GenericCfb;

    impl Skcipher for Sm4GenericCfb {
        const NAME: &'static CStr = c"cfb(sm4)";
        const DRIVER_NAME: &'static CStr = c"cfb-sm4-generic";
        const PRIORITY: i32 = 100;
        const BLOCK_SIZE: u32 = 1;
        const CHUNK_SIZE: u32 = sm4::BLOCK_SIZE as u32;
        const MIN_KEY_SIZE: u32 = sm4::KEY_SIZE as u32;
        const MAX_KEY_SIZE: u32 = sm4::KEY_SIZE as u32;

        type Iv = [u8; sm4::BLOCK_SIZE];
        type Context = sm4::Key;

        fn set_key(ctx: &mut sm4::Key, key: &Key<'_>, _: &mut Simd) -> Result {
            let key: &[u8; sm4::KEY_SIZE] = key.bytes().try_into().map_err(|_| EINVAL)?;
            ctx.expand_into(key);
            Ok(())
        }

        fn encrypt(ctx: &sm4::Key, req: &mut Request<'_, Self::Iv>, simd: &mut Simd) -> Result {
            cfb(ctx, req, simd, true)
        }

        fn decrypt(ctx: &sm4::Key, req: &mut Request<'_, Self::Iv>, simd: &mut Simd) -> Result {
            cfb(ctx, req, simd, false)
        }
    }

    /// CFB over a request, a block at a time through a wiped stack block.
    fn cfb(
        key: &sm4::Key,
        req: &mut Request<'_, [u8; sm4::BLOCK_SIZE]>,
        simd: &mut Simd,
        enc: bool,
    ) -> Result {
        let mut walk = req.walk(simd);
        while let Some(mut step) = walk.next()? {
            // Whole blocks, and a partial one only at the end of the request.
            let n = if step.is_last() {
                step.len()
            } else {
                step.len() / sm4::BLOCK_SIZE * sm4::BLOCK_SIZE
            };
            let (mut io, iv, _) = step.parts();
            let mut blk = Secret::<{ sm4::BLOCK_SIZE }>::zeroed();
            let mut ks = Secret::<{ sm4::BLOCK_SIZE }>::zeroed();
            let mut off = 0;
            while off < n {
                let k = (n - off).min(sm4::BLOCK_SIZE);
                let mut part = io.range(off, k);
                part.read(&mut blk[..k]);
                // C[i] = P[i] ^ E(C[i-1]), C[-1] the IV; a whole block is the next IV.
                *ks = *iv;
                key.encrypt_block(&mut ks);
                if k == sm4::BLOCK_SIZE && !enc {
                    iv.copy_from_slice(&blk[..]);
                }
                for (b, s) in blk[..k].iter_mut().zip(ks.iter()) {
                    *b ^= s;
                }
                if k == sm4::BLOCK_SIZE && enc {
                    iv.copy_from_slice(&blk[..]);
                }
                part.write(&blk[..k]);
                off += k;
            }
            let left = io.len() - n;
            step.leave(left);
        }
        Ok(())
    }
}

struct Sm4GenericModule {
    _cipher: cipher::Registration<1>,
    #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
    _cfb: skcipher::Registration<1>,
}

impl kernel::Module for Sm4GenericModule {
    fn init(module: &'static ThisModule) -> Result<Self> {
        Ok(Self {
            _cipher: cipher::Registration::new(module, [cipher::alg::<Sm4Generic>()])?,
            #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
            _cfb: skcipher::Registration::new(module, [skcipher::alg::<cfb::Sm4GenericCfb>()])?,
        })
    }
}
