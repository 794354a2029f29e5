// SPDX-License-Identifier: GPL-2.0

//! The reference of every differential test: an SM4 this project did not write.
//!
//! Upstream's C SM4 (the `CRYPTO_SM4` library, `crypto/sm4.c`: `sm4_expandkey()`,
//! `sm4_crypt_block()`) is registered by the test module as the cipher `sm4` with the driver
//! name `sm4-oracle`, at priority 0 (below every driver, so it never serves `sm4` while one
//! is loaded). The kernel's own templates over it (`ecb(sm4-oracle)`, `cbc(sm4-oracle)`,
//! `ctr(sm4-oracle)`, `cts(cbc(sm4-oracle))`, `xts(ecb(sm4-oracle))`, `cmac(sm4-oracle)`,
//! `xcbc(sm4-oracle)`, `cbcmac(sm4-oracle)`) are then references that share no code with the
//! drivers under test: not the block function, not the key schedule, not the modes. The KUnit
//! suites, the AF_ALG clients and the dm-crypt checks of the VM tests compare with them.
//!
//! The kernel has no `cfb` template any more, so `cfb(sm4)` is registered here too, as
//! `cfb-sm4-oracle` (priority 0): CFB-128 written for this test over the C block function,
//! on the kernel's walk's steps (none of the drivers' mode code), checked against OpenSSL's
//! vectors by the suites.

use crate::bindings;
use crate::crypto::{
    alg::Key,
    cipher::{self, BlockIo, Cipher},
    skcipher::{self, Request, Skcipher},
    Secret, Simd,
};
use core::ffi::CStr;
use kernel::{error::code::EINVAL, prelude::*};

/// The driver name of the oracle cipher.
pub(crate) const CIPHER: &CStr = c"sm4-oracle";
/// The driver name of the oracle CFB.
pub(crate) const CFB: &CStr = c"cfb-sm4-oracle";

/// The C library's expanded key (`struct sm4_ctx`): encryption and decryption round keys.
pub(crate) struct OracleKey(bindings::sm4_ctx);

impl Default for OracleKey {
    fn default() -> Self {
        // SAFETY: `sm4_ctx` is two arrays of integers; all zeros is a valid value.
        Self(unsafe { core::mem::zeroed() })
    }
}

impl OracleKey {
    /// Expands `key` with the C key schedule (`sm4_expandkey()`, which checks the length).
    pub(crate) fn set(&mut self, key: &[u8]) -> Result {
        let len = u32::try_from(key.len()).map_err(|_| EINVAL)?;
        // SAFETY: `self.0` is a writable `sm4_ctx`; `key` is `len` readable bytes (the C
        // function reads none unless `len` is 16).
        kernel::error::to_result(unsafe { bindings::sm4_expandkey(&mut self.0, key.as_ptr(), len) })
    }

    /// Encrypts `block` in place with the C block function.
    pub(crate) fn encrypt(&self, block: &mut [u8; 16]) {
        let p = block.as_mut_ptr();
        // SAFETY: 32 round keys; `p` is one block, read wholly before it is written.
        unsafe { bindings::sm4_crypt_block(self.0.rkey_enc.as_ptr(), p, p) };
    }

    /// Decrypts `block` in place with the C block function.
    pub(crate) fn decrypt(&self, block: &mut [u8; 16]) {
        let p = block.as_mut_ptr();
        // SAFETY: as in `encrypt`.
        unsafe { bindings::sm4_crypt_block(self.0.rkey_dec.as_ptr(), p, p) };
    }
}

/// `sm4` over the C library, driver `sm4-oracle`.
pub(crate) struct OracleCipher;

impl Cipher for OracleCipher {
    const NAME: &'static CStr = c"sm4";
    const DRIVER_NAME: &'static CStr = CIPHER;
    const PRIORITY: i32 = 0;
    const MIN_KEY_SIZE: u32 = 16;
    const MAX_KEY_SIZE: u32 = 16;

    type Block = [u8; 16];
    type Context = OracleKey;

    fn set_key(ctx: &mut OracleKey, key: &[u8], _: &mut Simd) -> Result {
        ctx.set(key)
    }

    fn encrypt(ctx: &OracleKey, block: &mut BlockIo<'_, [u8; 16]>, _: &mut Simd) {
        ctx.encrypt(block.in_place());
    }

    fn decrypt(ctx: &OracleKey, block: &mut BlockIo<'_, [u8; 16]>, _: &mut Simd) {
        ctx.decrypt(block.in_place());
    }
}

/// `cfb(sm4)` over the C library, driver `cfb-sm4-oracle`: CFB-128 as the kernel's former
/// template (a partial last block leaves the IV as the last whole ciphertext block).
pub(crate) struct OracleCfb;

impl Skcipher for OracleCfb {
    const NAME: &'static CStr = c"cfb(sm4)";
    const DRIVER_NAME: &'static CStr = CFB;
    const PRIORITY: i32 = 0;
    const BLOCK_SIZE: u32 = 1;
    const CHUNK_SIZE: u32 = 16;
    const MIN_KEY_SIZE: u32 = 16;
    const MAX_KEY_SIZE: u32 = 16;

    type Iv = [u8; 16];
    type Context = OracleKey;

    fn set_key(ctx: &mut OracleKey, key: &Key<'_>, _: &mut Simd) -> Result {
        ctx.set(key.bytes())
    }

    fn encrypt(ctx: &OracleKey, req: &mut Request<'_, [u8; 16]>, simd: &mut Simd) -> Result {
        cfb(ctx, req, simd, true)
    }

    fn decrypt(ctx: &OracleKey, req: &mut Request<'_, [u8; 16]>, simd: &mut Simd) -> Result {
        cfb(ctx, req, simd, false)
    }
}

/// CFB over a request, one block at a time: `C[i] = P[i] ^ E(C[i-1])`, `C[-1]` the IV.
///
/// Each block goes through the C block function, copied out of the kernel's walk's steps
/// and back a byte at a time, with none of the drivers' code (their stream modes' tails go
/// through `sm4/modes.rs`).
fn cfb(key: &OracleKey, req: &mut Request<'_, [u8; 16]>, simd: &mut Simd, enc: bool) -> Result {
    let mut walk = req.walk(simd);
    while let Some(mut step) = walk.next()? {
        // Whole blocks, and a partial one only at the end of the request.
        let len = step.len();
        let n = if step.is_last() { len } else { len / 16 * 16 };
        let (mut io, iv, _) = step.parts();
        let mut off = 0;
        while off < n {
            let k = (n - off).min(16);
            let mut block = Secret::<16>::zeroed();
            let mut part = io.range(off, k);
            part.read(&mut block[..k]);
            let mut ks = Secret::new(*iv);
            key.encrypt(&mut ks);
            let mut c = Secret::<16>::zeroed();
            for i in 0..k {
                c[i] = if enc { block[i] ^ ks[i] } else { block[i] };
                block[i] ^= ks[i];
            }
            // A partial last block leaves the IV as the last whole ciphertext block.
            if k == 16 {
                *iv = *c;
            }
            part.write(&block[..k]);
            off += k;
        }
        step.leave(len - n);
    }
    Ok(())
}

/// The registrations of the oracle, held by the test module while it is loaded.
pub(crate) struct Oracle {
    _cipher: cipher::Registration<1>,
    _cfb: skcipher::Registration<1>,
}

impl Oracle {
    /// Registers `sm4-oracle` and `cfb-sm4-oracle`.
    pub(crate) fn register(module: &'static ThisModule) -> Result<Self> {
        Ok(Self {
            _cipher: cipher::Registration::new(module, [cipher::alg::<OracleCipher>()])?,
            _cfb: skcipher::Registration::new(module, [skcipher::alg::<OracleCfb>()])?,
        })
    }
}
