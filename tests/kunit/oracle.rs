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
//! on data copied in and out by the kernel's scatterlist copy (none of the abstraction's
//! walk), checked against OpenSSL's vectors by the suites.

use crate::bindings;
use crate::crypto::{
    alg::Key,
    cipher::{self, Cipher},
    simd::Simd,
    skcipher::{self, Request, Skcipher},
    Secret,
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

    fn encrypt(ctx: &OracleKey, block: &mut [u8; 16], _: &mut Simd) {
        ctx.encrypt(block);
    }

    fn decrypt(ctx: &OracleKey, block: &mut [u8; 16], _: &mut Simd) {
        ctx.decrypt(block);
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

    fn encrypt(ctx: &OracleKey, req: &mut Request<'_, [u8; 16]>, _: &mut Simd) -> Result {
        cfb(ctx, req, true)
    }

    fn decrypt(ctx: &OracleKey, req: &mut Request<'_, [u8; 16]>, _: &mut Simd) -> Result {
        cfb(ctx, req, false)
    }
}

/// The bytes [`cfb`] copies in and out at a time: whole blocks, on the stack.
const CFB_CHUNK: usize = 512;

/// CFB over a request, one block at a time: `C[i] = P[i] ^ E(C[i-1])`, `C[-1]` the IV.
///
/// It uses no walk: the data is copied in and out a chunk at a time
/// by the kernel's `scatterwalk_map_and_copy()` ([`Request::read_at`], [`Request::write_at`])
/// and each block goes through the C block function, so a bug of the walk at a stream
/// mode's tail cannot hide in the reference as well as in the driver under test.
fn cfb(key: &OracleKey, req: &mut Request<'_, [u8; 16]>, enc: bool) -> Result {
    let len = req.len();
    let mut iv = Secret::new(*req.iv());
    let mut buf = Secret::<CFB_CHUNK>::zeroed();
    let mut off = 0;
    while off < len {
        let n = (len - off).min(CFB_CHUNK);
        req.read_at(off, &mut buf[..n])?;
        for block in buf[..n].chunks_mut(16) {
            let mut ks = Secret::new(*iv);
            key.encrypt(&mut ks);
            let mut c = Secret::<16>::zeroed();
            for (i, b) in block.iter_mut().enumerate() {
                c[i] = if enc { *b ^ ks[i] } else { *b };
                *b ^= ks[i];
            }
            // A partial last block leaves the IV as the last whole ciphertext block.
            if block.len() == 16 {
                *iv = *c;
            }
        }
        req.write_at(off, &buf[..n])?;
        off += n;
    }
    *req.iv() = *iv;
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
