// SPDX-License-Identifier: GPL-2.0

//! SM4 block cipher modes, written once over the block cores of a back end.
//!
//! A back end ([`Backend`]: the Crypto Extensions core, the NEON core) supplies assembly
//! routines that transform whole blocks inside a NEON section. This file turns them into
//! skciphers: the walk loop of each mode, the partial last block of the stream modes (CFB,
//! CTR), and the ciphertext stealing of CTS and XTS, which go through a 32-byte stack
//! buffer so that no routine reads or writes past the caller's data. Every stack buffer
//! that holds data, keystream or tweaks is a [`Secret`], wiped when it goes out of scope.
//!
//! NEON sections are opened with the walk step's [`Simd`]; where NEON may not be used
//! (`may_use_simd()` false: interrupts disabled, or a C caller inside its own section), a
//! request fails with `EDEADLK`, as the walk does in hard interrupt context.

use crate::crypto::{
    alg::Desc,
    c_name, edeadlk,
    simd::{Neon, Simd},
    skcipher::{InOut, Key, Request, Skcipher, SkcipherKind, Step},
    DriverName, Secret,
};
use crate::sm4::{self, RoundKeys, BLOCK_SIZE};
use core::{ffi::CStr, marker::PhantomData};
use kernel::error::{code::EINVAL, Result};
use mode_list::with_modes;

#[path = "mode_list.rs"]
mod mode_list;

/// An SM4 IV (or counter, or tweak).
pub(crate) type Iv = [u8; BLOCK_SIZE];

/// The block routines of a back end. Each transforms `nblocks` whole blocks of `io`
/// (which must hold at least that many) and, where it has one, updates `iv` to the value
/// that chains to the next call.
pub(crate) trait Backend: 'static {
    /// The implementation part of the back end's driver names (`sm4-ce` in `cbc-sm4-ce`).
    const DRIVER_SUFFIX: &'static str;
    /// The priority of the back end's skciphers.
    const PRIORITY: i32;
    /// The number of blocks the core processes in parallel (the walk size is a multiple).
    const STRIDE: u32;

    /// Expands `key` into the encryption and decryption schedules of `out`, in place
    /// (with NEON if `simd` allows it, without otherwise).
    fn expand_key(key: &[u8; sm4::KEY_SIZE], out: &mut sm4::Key, simd: &mut Simd);
    /// ECB with the schedule `rk` (encrypts or decrypts).
    fn ecb(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize);
    /// CBC encryption.
    fn cbc_enc(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv);
    /// CBC decryption (`rk` is the decryption schedule).
    fn cbc_dec(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv);
    /// CFB encryption.
    #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
    fn cfb_enc(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv);
    /// CFB decryption (`rk` is the encryption schedule).
    #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
    fn cfb_dec(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv);
    /// CTR with a 128-bit big-endian counter in `iv`.
    fn ctr(neon: &Neon, rk: &RoundKeys, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv);
    /// XTS without stealing: `tweak` is the encrypted tweak of the first block and is left
    /// as the tweak of the next. With `first` (the tweak key's encryption schedule),
    /// `tweak` holds the IV and is encrypted with it first, even for no blocks.
    fn xts(
        neon: &Neon,
        rk: &RoundKeys,
        io: &mut InOut<'_>,
        nblocks: usize,
        tweak: &mut Iv,
        first: Option<&RoundKeys>,
    );
}

/// The expanded key of the single-key modes.
#[derive(Default)]
pub(crate) struct Sm4Ctx {
    key: sm4::Key,
}

/// The expanded keys of XTS: data and tweak.
#[derive(Default)]
pub(crate) struct XtsCtx {
    data: sm4::Key,
    tweak: sm4::Key,
}

/// Expands a 16-byte key with the back end, into `out` (`EINVAL` for another length).
pub(crate) fn expand<B: Backend>(key: &[u8], out: &mut sm4::Key, simd: &mut Simd) -> Result {
    let key: &[u8; sm4::KEY_SIZE] = key.try_into().map_err(|_| EINVAL)?;
    B::expand_key(key, out, simd);
    Ok(())
}

/// Runs `f` in a NEON section, or fails with `EDEADLK` where NEON may not be used.
fn neon<R>(simd: &mut Simd, f: impl FnOnce(&Neon) -> R) -> Result<R> {
    simd.neon(f).ok_or_else(edeadlk)
}

/// How a stream mode (CFB, CTR) ends on a partial block.
#[derive(Clone, Copy, PartialEq)]
enum Tail {
    /// Not a stream mode: requests are whole blocks.
    None,
    /// The IV is left as it was before the partial block (CFB).
    #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
    KeepIv,
    /// The IV advances as for a whole block (CTR: the counter is incremented).
    AdvanceIv,
}

/// Runs `f` on the whole blocks of each step (`f` gets the block count); a partial block
/// at the very end goes through a zero-padded stack block.
fn walk_blocks<B: Backend>(
    req: &mut Request<'_, Iv>,
    tail: Tail,
    f: impl Fn(&Neon, &mut InOut<'_>, usize, &mut Iv),
) -> Result {
    req.walk(|step| {
        let (len, last) = (step.len(), step.len() == step.total());
        let nblocks = len / BLOCK_SIZE;
        let (io, iv, simd) = step.data();
        let (mut whole, mut rest) = io.split_at(nblocks * BLOCK_SIZE);
        if tail == Tail::None || !last || rest.is_empty() {
            // (A step of less than a block is left whole: no section for it.)
            if nblocks > 0 {
                neon(simd, |neon| f(neon, &mut whole, nblocks, iv))?;
            }
            return Ok(rest.len());
        }
        let mut buf = Secret::<BLOCK_SIZE>::zeroed();
        rest.read(&mut buf[..]);
        neon(simd, |neon| {
            f(neon, &mut whole, nblocks, iv);
            let mut tail_iv = Secret::new(*iv);
            let iv = if tail == Tail::AdvanceIv {
                iv
            } else {
                &mut *tail_iv
            };
            f(neon, &mut InOut::in_place(&mut buf[..]), 1, iv);
        })?;
        rest.write(&buf[..]);
        Ok(0)
    })
}

/// The one path of the ciphertext-stealing modes: a walk of `req` in which `bulk` gets the
/// whole blocks before the last `tail_len` bytes (at most two blocks), step by step, and
/// `end` the step that ends the request (its data, and the number of whole blocks before the
/// tail), in one NEON section: the whole request where it lies in one piece of memory (see
/// [`Request::walk_with_tail`]). Both get the mode's state `st` and the step's IV. Without a
/// tail, `bulk` does every step.
fn walk_stealing<S>(
    req: &mut Request<'_, Iv>,
    tail_len: usize,
    st: &mut S,
    bulk: impl Fn(&Neon, &mut S, &mut InOut<'_>, usize, &mut Iv),
    mut end: impl FnMut(&Neon, &mut S, InOut<'_>, usize, &mut Iv),
) -> Result {
    if tail_len == 0 {
        // Whole blocks only: the plain walk, whose steps need no test for the end.
        return req.walk(|step: &mut Step<'_, Iv>| {
            let nblocks = step.len() / BLOCK_SIZE;
            let (io, iv, simd) = step.data();
            let (mut whole, rest) = io.split_at(nblocks * BLOCK_SIZE);
            if nblocks > 0 {
                neon(simd, |n| bulk(n, st, &mut whole, nblocks, iv))?;
            }
            Ok(rest.len())
        });
    }
    req.walk_with_tail(tail_len, |step: &mut Step<'_, Iv>| {
        let (len, total) = (step.len(), step.total());
        let (io, iv, simd) = step.data();
        if len < total || tail_len == 0 {
            let nblocks = len.min(total - tail_len) / BLOCK_SIZE;
            let (mut whole, _) = io.split_at(nblocks * BLOCK_SIZE);
            if nblocks > 0 {
                neon(simd, |n| bulk(n, st, &mut whole, nblocks, iv))?;
            }
            return Ok(len - nblocks * BLOCK_SIZE);
        }
        neon(simd, |n| end(n, st, io, (len - tail_len) / BLOCK_SIZE, iv))?;
        Ok(0)
    })
}

/// The length of the end of a request of `len` bytes (more than one block) that ciphertext
/// stealing handles apart: the last whole block and what follows, 17 to 32 bytes.
fn stealing_tail(len: usize) -> usize {
    BLOCK_SIZE + (len - 1) % BLOCK_SIZE + 1
}

/// `tweak * x` in GF(2^128), little-endian as in IEEE 1619.
pub(crate) fn gf128_mul_x(t: &Iv) -> Iv {
    let lo = u64::from_le_bytes([t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]]);
    let hi = u64::from_le_bytes([t[8], t[9], t[10], t[11], t[12], t[13], t[14], t[15]]);
    let lo2 = (lo << 1) ^ ((hi >> 63) * 0x87);
    let hi2 = (hi << 1) | (lo >> 63);
    let mut out = [0u8; BLOCK_SIZE];
    out[..8].copy_from_slice(&lo2.to_le_bytes());
    out[8..].copy_from_slice(&hi2.to_le_bytes());
    out
}

/// Whether the requests of a mode whose list entry says `$sections` take one NEON section
/// where the kernel lets a section span a walk ([`Request::in_one_section`]).
macro_rules! one_section {
    (step) => {
        false
    };
    (request) => {
        true
    };
}

/// Declares the modes of the list (`sm4/mode_list.rs`): each mode's type and constants, the
/// number of modes ([`MODES`]), their registration ([`algs`]) and their module aliases
/// ([`aliases`]).
macro_rules! declare_modes {
    ($(
        $(#[$attr:meta])*
        $ty:ident: $alg:literal, $mode:literal, $key:literal, $iv:literal, $block:literal,
        $unit:literal, $reference:literal, $sections:ident;
    )*) => {
        $(
            $(#[$attr])*
            #[doc = concat!("The `", $alg, "` skcipher of a back end.")]
            pub(crate) struct $ty<B: Backend>(PhantomData<B>);

            $(#[$attr])*
            impl<B: Backend> $ty<B> {
                const NAME: &'static CStr = c_name(concat!($alg, "\0"));
                const DRIVER_BYTES: DriverName = DriverName::new($mode, B::DRIVER_SUFFIX);
                const DRIVER: &'static CStr = Self::DRIVER_BYTES.as_c_str();
                const BLOCK: u32 = $block;
                const KEY: u32 = $key;
                const ONE_SECTION: bool = one_section!($sections);
            }
        )*

        /// The number of skciphers of a back end.
        pub(crate) const MODES: usize = [$($(#[$attr])* $mode),*].len();

        /// The skciphers of a back end, for registration.
        pub(crate) fn algs<B: Backend>() -> [Desc<SkcipherKind>; MODES] {
            use crate::crypto::skcipher::alg;
            [$($(#[$attr])* alg::<$ty<B>>()),*]
        }

        /// The module aliases of a back end's skciphers (for `alias_crypto!`): each
        /// algorithm's name and each driver's, `suffix` the back end's
        /// [`Backend::DRIVER_SUFFIX`].
        pub(crate) const fn aliases(suffix: &'static str) -> [[&'static str; 3]; 2 * MODES] {
            let modes: [[&'static str; 2]; MODES] = [$($(#[$attr])* [$alg, $mode]),*];
            let mut out = [["", "", ""]; 2 * MODES];
            let mut i = 0;
            while i < MODES {
                out[2 * i] = [modes[i][0], "", ""];
                out[2 * i + 1] = [modes[i][1], "-", suffix];
                i += 1;
            }
            out
        }
    };
}

with_modes!(declare_modes);

/// The context and key setting of the modes with one SM4 key.
macro_rules! sm4_single_key {
    () => {
        type Context = Sm4Ctx;

        fn set_key(ctx: &mut Sm4Ctx, key: &Key<'_>, simd: &mut Simd) -> Result {
            expand::<B>(key.bytes(), &mut ctx.key, simd)
        }
    };
}

/// The constants of an skcipher declared by `declare_modes!`; `$walk` its walk size.
macro_rules! sm4_consts {
    ($walk:expr) => {
        const NAME: &'static CStr = Self::NAME;
        const DRIVER_NAME: &'static CStr = Self::DRIVER;
        const PRIORITY: i32 = B::PRIORITY;
        const BLOCK_SIZE: u32 = Self::BLOCK;
        const CHUNK_SIZE: u32 = BLOCK_SIZE as u32;
        const WALK_SIZE: u32 = $walk;
        const MIN_KEY_SIZE: u32 = Self::KEY;
        const MAX_KEY_SIZE: u32 = Self::KEY;

        fn encrypt(ctx: &Self::Context, req: &mut Request<'_, Self::Iv>) -> Result {
            if Self::ONE_SECTION {
                req.in_one_section(|req| Self::crypt(ctx, req, true))
            } else {
                Self::crypt(ctx, req, true)
            }
        }

        fn decrypt(ctx: &Self::Context, req: &mut Request<'_, Self::Iv>) -> Result {
            if Self::ONE_SECTION {
                req.in_one_section(|req| Self::crypt(ctx, req, false))
            } else {
                Self::crypt(ctx, req, false)
            }
        }
    };
}

impl<B: Backend> Skcipher for Ecb<B> {
    sm4_consts!(16 * B::STRIDE);
    type Iv = [u8; 0];
    sm4_single_key!();
}

impl<B: Backend> Ecb<B> {
    fn crypt(ctx: &Sm4Ctx, req: &mut Request<'_, [u8; 0]>, enc: bool) -> Result {
        let rk = if enc { &ctx.key.enc } else { &ctx.key.dec };
        req.walk(|step| {
            let nblocks = step.len() / BLOCK_SIZE;
            let (io, _, simd) = step.data();
            let (mut whole, rest) = io.split_at(nblocks * BLOCK_SIZE);
            if nblocks > 0 {
                neon(simd, |neon| B::ecb(neon, rk, &mut whole, nblocks))?;
            }
            Ok(rest.len())
        })
    }
}

impl<B: Backend> Skcipher for Cbc<B> {
    sm4_consts!(16 * B::STRIDE);
    type Iv = Iv;
    sm4_single_key!();
}

impl<B: Backend> Cbc<B> {
    fn crypt(ctx: &Sm4Ctx, req: &mut Request<'_, Iv>, enc: bool) -> Result {
        if enc {
            walk_blocks::<B>(req, Tail::None, |n, io, k, iv| {
                B::cbc_enc(n, &ctx.key.enc, io, k, iv)
            })
        } else {
            walk_blocks::<B>(req, Tail::None, |n, io, k, iv| {
                B::cbc_dec(n, &ctx.key.dec, io, k, iv)
            })
        }
    }
}

#[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
impl<B: Backend> Skcipher for Cfb<B> {
    sm4_consts!(16 * B::STRIDE);
    type Iv = Iv;
    sm4_single_key!();
}

#[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
impl<B: Backend> Cfb<B> {
    fn crypt(ctx: &Sm4Ctx, req: &mut Request<'_, Iv>, enc: bool) -> Result {
        if enc {
            walk_blocks::<B>(req, Tail::KeepIv, |n, io, k, iv| {
                B::cfb_enc(n, &ctx.key.enc, io, k, iv)
            })
        } else {
            walk_blocks::<B>(req, Tail::KeepIv, |n, io, k, iv| {
                B::cfb_dec(n, &ctx.key.enc, io, k, iv)
            })
        }
    }
}

impl<B: Backend> Skcipher for Ctr<B> {
    sm4_consts!(16 * B::STRIDE);
    type Iv = Iv;
    sm4_single_key!();
}

impl<B: Backend> Ctr<B> {
    fn crypt(ctx: &Sm4Ctx, req: &mut Request<'_, Iv>, _enc: bool) -> Result {
        walk_blocks::<B>(req, Tail::AdvanceIv, |n, io, k, iv| {
            B::ctr(n, &ctx.key.enc, io, k, iv)
        })
    }
}

impl<B: Backend> Skcipher for Cts<B> {
    sm4_consts!(32);
    type Iv = Iv;
    sm4_single_key!();
}

impl<B: Backend> Cts<B> {
    /// CBC with ciphertext stealing, the kernel's CS3 variant: the last two blocks are
    /// swapped, the final one truncated. A request of one block is plain CBC.
    fn crypt(ctx: &Sm4Ctx, req: &mut Request<'_, Iv>, enc: bool) -> Result {
        let k = &ctx.key;
        let len = req.len();
        if len < BLOCK_SIZE {
            return Err(EINVAL);
        }
        let tail_len = if len == BLOCK_SIZE {
            0
        } else {
            stealing_tail(len)
        };
        let cbc = |n: &Neon, io: &mut InOut<'_>, nblocks: usize, iv: &mut Iv| {
            if enc {
                B::cbc_enc(n, &k.enc, io, nblocks, iv)
            } else {
                B::cbc_dec(n, &k.dec, io, nblocks, iv)
            }
        };
        walk_stealing(
            req,
            tail_len,
            &mut (),
            |n, (), io, nb, iv| cbc(n, io, nb, iv),
            |n, (), mut io, nb, iv| {
                if tail_len == 2 * BLOCK_SIZE && (enc || io.is_in_place()) {
                    // Whole blocks: CBC with the last two blocks swapped (after encryption,
                    // before decryption).
                    if !enc {
                        io.swap_last_blocks();
                    }
                    cbc(n, &mut io, nb + 2, iv);
                    if enc {
                        io.swap_last_blocks();
                    }
                    return;
                }
                let (mut head, mut tail) = io.split_at(nb * BLOCK_SIZE);
                cbc(n, &mut head, nb, iv);
                let mut buf = Secret::<{ 2 * BLOCK_SIZE }>::zeroed();
                tail.read(&mut buf[..tail_len]);
                Self::tail(n, k, enc, &mut buf, tail_len - BLOCK_SIZE, iv);
                tail.write(&buf[..tail_len]);
            },
        )
    }

    /// The last `16 + r` bytes (r in 1..=16) of a CTS request, in `buf`, after the bulk
    /// left `iv` as the chaining value. (Not inlined: the partial tail stays out of the
    /// frame of the common path.)
    #[inline(never)]
    fn tail(
        n: &Neon,
        k: &sm4::Key,
        enc: bool,
        buf: &mut [u8; 2 * BLOCK_SIZE],
        r: usize,
        iv: &mut Iv,
    ) {
        if enc {
            // X = E(P[n-1] ^ IV), Y = E((P[n] || 0) ^ X); out: Y || X[..r]
            let mut x = Secret::<BLOCK_SIZE>::zeroed();
            x.copy_from_slice(&buf[..BLOCK_SIZE]);
            let mut y = Secret::<BLOCK_SIZE>::zeroed();
            y[..r].copy_from_slice(&buf[BLOCK_SIZE..BLOCK_SIZE + r]);
            B::cbc_enc(n, &k.enc, &mut InOut::in_place(&mut x[..]), 1, iv);
            B::cbc_enc(n, &k.enc, &mut InOut::in_place(&mut y[..]), 1, iv);
            buf[..BLOCK_SIZE].copy_from_slice(&y[..]);
            buf[BLOCK_SIZE..BLOCK_SIZE + r].copy_from_slice(&x[..r]);
        } else {
            // D(Y) = (P[n] || 0) ^ X, so X = Z || D(Y)[r..]; P[n] = D(Y)[..r] ^ Z,
            // P[n-1] = D(X) ^ IV. The IV is left as Y, as the cts template does.
            let mut y = Secret::<BLOCK_SIZE>::zeroed();
            y.copy_from_slice(&buf[..BLOCK_SIZE]);
            let mut dy = Secret::new(*y);
            B::ecb(n, &k.dec, &mut InOut::in_place(&mut dy[..]), 1);
            let mut x = Secret::new(*dy);
            x[..r].copy_from_slice(&buf[BLOCK_SIZE..BLOCK_SIZE + r]);
            for i in 0..r {
                buf[BLOCK_SIZE + i] = dy[i] ^ x[i];
            }
            B::cbc_dec(n, &k.dec, &mut InOut::in_place(&mut x[..]), 1, iv);
            *iv = *y;
            buf[..BLOCK_SIZE].copy_from_slice(&x[..]);
        }
    }
}

impl<B: Backend> Skcipher for Xts<B> {
    sm4_consts!(32);
    type Iv = Iv;
    type Context = XtsCtx;

    fn set_key(ctx: &mut XtsCtx, key: &Key<'_>, simd: &mut Simd) -> Result {
        key.verify_xts()?;
        let (k1, k2) = key.bytes().split_at(key.bytes().len() / 2);
        expand::<B>(k1, &mut ctx.data, simd)?;
        expand::<B>(k2, &mut ctx.tweak, simd)
    }
}

/// The running tweak of an XTS request, computed in the request's first NEON section (after
/// the walk started, so that a request the walk refuses never reaches the cipher).
struct XtsState<'a> {
    tweak_key: &'a RoundKeys,
    tweak: Secret<BLOCK_SIZE>,
    started: bool,
}

impl XtsState<'_> {
    /// Runs the back end's XTS over `nblocks` blocks of `io`, starting the tweak from the
    /// IV `iv` on the first call (the back end encrypts it in the same call).
    fn xts<B: Backend>(
        &mut self,
        n: &Neon,
        rk: &RoundKeys,
        io: &mut InOut<'_>,
        nblocks: usize,
        iv: &Iv,
    ) {
        let first = if self.started {
            None
        } else {
            *self.tweak = *iv;
            self.started = true;
            Some(self.tweak_key)
        };
        B::xts(n, rk, io, nblocks, &mut self.tweak, first);
    }

    /// The running tweak, started from the IV `iv` if no block was done yet.
    fn tweak<B: Backend>(&mut self, n: &Neon, rk: &RoundKeys, iv: &Iv) -> &mut Iv {
        if !self.started {
            self.xts::<B>(n, rk, &mut InOut::in_place(&mut []), 0, iv);
        }
        &mut self.tweak
    }
}

impl<B: Backend> Xts<B> {
    /// XTS (IEEE 1619) with ciphertext stealing for a partial last block. The IV is left as
    /// it was (as the kernel's xts template does).
    fn crypt(ctx: &XtsCtx, req: &mut Request<'_, Iv>, enc: bool) -> Result {
        let rk = if enc { &ctx.data.enc } else { &ctx.data.dec };
        let len = req.len();
        if len < BLOCK_SIZE {
            return Err(EINVAL);
        }
        let tail_len = if len % BLOCK_SIZE == 0 {
            0
        } else {
            stealing_tail(len)
        };
        let mut st = XtsState {
            tweak_key: &ctx.tweak.enc,
            tweak: Secret::zeroed(),
            started: false,
        };
        walk_stealing(
            req,
            tail_len,
            &mut st,
            |n, st, io, nb, iv| st.xts::<B>(n, rk, io, nb, iv),
            |n, st, io, nb, iv| {
                let (mut head, mut tail) = io.split_at(nb * BLOCK_SIZE);
                if nb > 0 {
                    st.xts::<B>(n, rk, &mut head, nb, iv);
                }
                let mut buf = Secret::<{ 2 * BLOCK_SIZE }>::zeroed();
                tail.read(&mut buf[..tail_len]);
                let t = st.tweak::<B>(n, rk, iv);
                Self::tail(n, rk, enc, &mut buf, tail_len - BLOCK_SIZE, t);
                tail.write(&buf[..tail_len]);
            },
        )
    }

    /// The last `16 + r` bytes (r in 1..=15) of an XTS request with stealing, in `buf`;
    /// `t` is the tweak of its first block. (Not inlined, as `Cts::tail`.)
    #[inline(never)]
    fn tail(n: &Neon, rk: &RoundKeys, enc: bool, buf: &mut [u8; 2 * BLOCK_SIZE], r: usize, t: &Iv) {
        // Encryption: CC = X(P[m-1], T), C[m-1] = X(P[m] || CC[r..], T*x), C[m] = CC[..r].
        // Decryption uses T*x first, then T.
        let (mut t1, mut t2) = if enc {
            (Secret::new(*t), Secret::new(gf128_mul_x(t)))
        } else {
            (Secret::new(gf128_mul_x(t)), Secret::new(*t))
        };
        let mut cc = Secret::<BLOCK_SIZE>::zeroed();
        cc.copy_from_slice(&buf[..BLOCK_SIZE]);
        B::xts(n, rk, &mut InOut::in_place(&mut cc[..]), 1, &mut t1, None);
        let mut pp = Secret::new(*cc);
        pp[..r].copy_from_slice(&buf[BLOCK_SIZE..BLOCK_SIZE + r]);
        B::xts(n, rk, &mut InOut::in_place(&mut pp[..]), 1, &mut t2, None);
        buf[..BLOCK_SIZE].copy_from_slice(&pp[..]);
        buf[BLOCK_SIZE..BLOCK_SIZE + r].copy_from_slice(&cc[..r]);
    }
}
