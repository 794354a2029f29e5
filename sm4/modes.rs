// SPDX-License-Identifier: GPL-2.0

//! SM4 block cipher modes, written once over the block cores of a back end.
//!
//! A back end ([`Backend`]: the Crypto Extensions core, the NEON core) supplies assembly
//! routines that transform whole blocks inside a NEON section. This file turns them into
//! skciphers: the walk loop of each mode (the kernel's walk, a NEON section per step or,
//! where the kernel allows it, one for the request), the partial last block of the stream
//! modes (CFB, CTR), and the ciphertext stealing of CTS and XTS, whose last two blocks are
//! a walk of their own (a part of the request, as upstream's glue does) through a 32-byte
//! stack buffer, so that no routine reads or writes past the caller's data. Every stack
//! buffer that holds data, keystream or tweaks is a [`Secret`], wiped when it goes out of
//! scope.
//!
//! Where the request's [`Simd`] refuses NEON (`may_use_simd()` false: hard interrupt or NMI
//! context, and on Linux 6.12 interrupts disabled; or inside a section of this task, or of
//! this abstraction in the softirq being served), a request fails with `EDEADLK`.

use crate::crypto::{
    alg::{Alg, Key},
    c_name,
    skcipher::{Request, Skcipher, SkcipherKind},
    InOut, Neon, Secret, Simd, Walk, MAX_STEP, SECTION_MAY_SPAN_WALK,
};
use crate::sm4::{self, RoundKeys, BLOCK_SIZE};
use core::{ffi::CStr, marker::PhantomData};
use kernel::error::{code::EINVAL, Result};
use mode_list::with_modes;
pub(crate) use mode_list::DriverName;

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
    /// The number of blocks the core processes in parallel (the walk size of the block modes
    /// is a multiple; CTS's and XTS's is two blocks).
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
    /// as the tweak of the next. With `first` (the tweak key's encryption schedule and the
    /// IV), the tweak is first set to the IV encrypted with it, even for no blocks.
    fn xts(
        neon: &Neon,
        rk: &RoundKeys,
        io: &mut InOut<'_>,
        nblocks: usize,
        tweak: &mut Iv,
        first: Option<(&RoundKeys, &Iv)>,
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

/// Walks the whole blocks of each step through `f` (which gets their number and the IV): a
/// NEON section per step. A partial block left at the end of the data fails the walk with
/// `EINVAL` (the block modes' requests are whole blocks).
#[inline(always)]
fn blocks<Iv: crate::crypto::Block>(
    mut walk: Walk<'_, Iv>,
    mut f: impl FnMut(&Neon, &mut InOut<'_>, usize, &mut Iv),
) -> Result {
    while let Some(mut step) = walk.next()? {
        let n = step.len() / BLOCK_SIZE;
        step.neon(|neon, io, iv| f(neon, io, n, iv))?;
        step.leave(step.len() % BLOCK_SIZE);
    }
    Ok(())
}

/// How a stream mode (CFB, CTR) ends on a partial block.
#[derive(Clone, Copy, PartialEq)]
enum Tail {
    /// The IV is left as it was before the partial block (CFB).
    #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
    KeepIv,
    /// The IV advances as for a whole block (CTR: the counter is incremented).
    AdvanceIv,
}

/// [`blocks`] for a stream mode: the partial block that ends the data goes through a
/// zero-padded stack block, in the last step's section.
#[inline(always)]
fn stream(
    walk: &mut Walk<'_, Iv>,
    tail: Tail,
    f: impl Fn(&Neon, &mut InOut<'_>, usize, &mut Iv),
) -> Result {
    while let Some(mut step) = walk.next()? {
        let (len, last) = (step.len(), step.is_last());
        let (n, odd) = (len / BLOCK_SIZE, len % BLOCK_SIZE);
        let part = if last { odd } else { 0 };
        step.neon(|neon, io, iv| {
            f(neon, io, n, iv);
            if part > 0 {
                partial_block(neon, io.range(len - part, part), iv, tail, &f);
            }
        })?;
        step.leave(odd - part);
    }
    Ok(())
}

/// The partial block `rest` that ends a stream mode's data, through a zero-padded stack
/// block; out of line, so that the walk's loop stays short.
#[inline(never)]
fn partial_block(
    neon: &Neon,
    mut rest: InOut<'_>,
    iv: &mut Iv,
    tail: Tail,
    f: &impl Fn(&Neon, &mut InOut<'_>, usize, &mut Iv),
) {
    let part = rest.len();
    let mut buf = Secret::<BLOCK_SIZE>::zeroed();
    rest.read(&mut buf[..part]);
    if tail == Tail::AdvanceIv {
        f(neon, &mut InOut::in_place(&mut buf), 1, iv);
    } else {
        let mut kept = Secret::new(*iv);
        f(neon, &mut InOut::in_place(&mut buf), 1, &mut kept);
    }
    rest.write(&buf[..part]);
}

/// The length of the end of a request of `len` bytes (more than one block) that ciphertext
/// stealing handles apart: the last whole block and what follows, 17 to 32 bytes.
fn stealing_tail(len: usize) -> usize {
    BLOCK_SIZE + (len - 1) % BLOCK_SIZE + 1
}

/// The end of a request that ciphertext stealing handles apart (the last `tail` bytes, a
/// part of the request of its own), handed whole to `f` in one NEON section: the walk's
/// walk size (two blocks) makes it one step, in place or through the walk's buffer.
fn stealing_end(
    req: &mut Request<'_, Iv>,
    simd: &mut Simd,
    tail: usize,
    f: impl FnOnce(&Neon, &mut InOut<'_>, &mut Iv),
) -> Result {
    let mut part = req.part(req.len() - tail, tail)?;
    let mut walk = part.walk(simd);
    let mut f = Some(f);
    while let Some(mut step) = walk.next()? {
        let f = f.take().filter(|_| step.len() == tail).ok_or(EINVAL)?;
        step.neon(|neon, io, iv| f(neon, io, iv))?;
    }
    Ok(())
}

/// `tweak * x` in GF(2^128), little-endian as in IEEE 1619, into `out` (a [`Secret`]'s, so
/// that no copy of the tweak is left on the stack).
pub(crate) fn gf128_mul_x(t: &Iv, out: &mut Iv) {
    let lo = u64::from_le_bytes([t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]]);
    let hi = u64::from_le_bytes([t[8], t[9], t[10], t[11], t[12], t[13], t[14], t[15]]);
    let lo2 = (lo << 1) ^ ((hi >> 63) * 0x87);
    let hi2 = (hi << 1) | (lo >> 63);
    out[..8].copy_from_slice(&lo2.to_le_bytes());
    out[8..].copy_from_slice(&hi2.to_le_bytes());
}

/// Whether the requests of a mode whose list entry says `$sections` take one NEON section
/// where the kernel lets a section span a walk ([`Simd::span`]).
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
        pub(crate) fn algs<B: Backend>() -> [Alg<SkcipherKind>; MODES] {
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

/// The constants of an skcipher declared by `declare_modes!`, `$walk` its walk size, and
/// its requests: `Self::crypt`, in one NEON section over a request longer than a step where
/// the mode's requests take one ([`Simd::span`]); the other requests call it apart, so that
/// their copy is inlined without the spanning section's state.
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

        fn encrypt(
            ctx: &Self::Context,
            req: &mut Request<'_, Self::Iv>,
            simd: &mut Simd,
        ) -> Result {
            if !(Self::ONE_SECTION && SECTION_MAY_SPAN_WALK && req.len() > MAX_STEP) {
                return Self::crypt(ctx, req, simd, true);
            }
            simd.span(true, |simd| Self::crypt(ctx, req, simd, true))
        }

        fn decrypt(
            ctx: &Self::Context,
            req: &mut Request<'_, Self::Iv>,
            simd: &mut Simd,
        ) -> Result {
            if !(Self::ONE_SECTION && SECTION_MAY_SPAN_WALK && req.len() > MAX_STEP) {
                return Self::crypt(ctx, req, simd, false);
            }
            simd.span(true, |simd| Self::crypt(ctx, req, simd, false))
        }
    };
}

impl<B: Backend> Skcipher for Ecb<B> {
    sm4_consts!(16 * B::STRIDE);
    type Iv = [u8; 0];
    sm4_single_key!();
}

impl<B: Backend> Ecb<B> {
    fn crypt(ctx: &Sm4Ctx, req: &mut Request<'_, [u8; 0]>, simd: &mut Simd, enc: bool) -> Result {
        let rk = if enc { &ctx.key.enc } else { &ctx.key.dec };
        blocks(req.walk(simd), |neon, io, n, _| B::ecb(neon, rk, io, n))
    }
}

impl<B: Backend> Skcipher for Cbc<B> {
    sm4_consts!(16 * B::STRIDE);
    type Iv = Iv;
    sm4_single_key!();
}

impl<B: Backend> Cbc<B> {
    #[inline(always)]
    fn crypt(ctx: &Sm4Ctx, req: &mut Request<'_, Iv>, simd: &mut Simd, enc: bool) -> Result {
        Self::walk(&ctx.key, req.walk(simd), enc)
    }

    /// CBC over the whole blocks of a walk (also CTS's, but for its last two blocks).
    #[inline(always)]
    fn walk(k: &sm4::Key, walk: Walk<'_, Iv>, enc: bool) -> Result {
        if enc {
            blocks(walk, |neon, io, n, iv| B::cbc_enc(neon, &k.enc, io, n, iv))
        } else {
            blocks(walk, |neon, io, n, iv| B::cbc_dec(neon, &k.dec, io, n, iv))
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
    #[inline(always)]
    fn crypt(ctx: &Sm4Ctx, req: &mut Request<'_, Iv>, simd: &mut Simd, enc: bool) -> Result {
        let (rk, mut walk) = (&ctx.key.enc, req.walk(simd));
        if enc {
            stream(&mut walk, Tail::KeepIv, |n, io, k, iv| {
                B::cfb_enc(n, rk, io, k, iv)
            })
        } else {
            stream(&mut walk, Tail::KeepIv, |n, io, k, iv| {
                B::cfb_dec(n, rk, io, k, iv)
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
    #[inline(always)]
    fn crypt(ctx: &Sm4Ctx, req: &mut Request<'_, Iv>, simd: &mut Simd, _enc: bool) -> Result {
        let rk = &ctx.key.enc;
        stream(&mut req.walk(simd), Tail::AdvanceIv, |n, io, k, iv| {
            B::ctr(n, rk, io, k, iv)
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
    /// swapped, the final one truncated. A request of one block is plain CBC. The blocks
    /// before the last two are a part of the request walked as CBC, and the last two (17 to
    /// 32 bytes) another, in one step ([`stealing_end`]), as upstream's glue does.
    #[inline(always)]
    fn crypt(ctx: &Sm4Ctx, req: &mut Request<'_, Iv>, simd: &mut Simd, enc: bool) -> Result {
        let (k, len) = (&ctx.key, req.len());
        if len < BLOCK_SIZE {
            return Err(EINVAL);
        }
        if len == BLOCK_SIZE {
            return Cbc::<B>::walk(k, req.walk(simd), enc);
        }
        let tail = stealing_tail(len);
        if len > tail {
            let mut part = req.part(0, len - tail)?;
            Cbc::<B>::walk(k, part.walk(simd), enc)?;
        }
        stealing_end(req, simd, tail, |n, io, iv| {
            let cbc = |io: &mut InOut<'_>, iv: &mut Iv| {
                if enc {
                    B::cbc_enc(n, &k.enc, io, 2, iv)
                } else {
                    B::cbc_dec(n, &k.dec, io, 2, iv)
                }
            };
            if tail == 2 * BLOCK_SIZE && (enc || io.is_in_place()) {
                // Whole blocks: CBC with the last two swapped (after encryption, before
                // decryption).
                if !enc {
                    io.swap_last_blocks();
                }
                cbc(io, iv);
                if enc {
                    io.swap_last_blocks();
                }
                return;
            }
            Self::tail(n, k, enc, io, iv);
        })
    }

    /// The last `16 + r` bytes (r in 1..=16) of a CTS request, `io`, through a stack buffer,
    /// after the bulk left `iv` as the chaining value. (Not inlined: the buffer stays out of
    /// the frame of the whole blocks' path, so that its section's closure is inlined.)
    #[inline(never)]
    fn tail(n: &Neon, k: &sm4::Key, enc: bool, io: &mut InOut<'_>, iv: &mut Iv) {
        let mut buf = Secret::<{ 2 * BLOCK_SIZE }>::zeroed();
        let r = io.len() - BLOCK_SIZE;
        io.read(&mut buf[..BLOCK_SIZE + r]);
        if enc {
            // X = E(P[n-1] ^ IV), Y = E((P[n] || 0) ^ X); out: Y || X[..r]
            let mut x = Secret::<BLOCK_SIZE>::zeroed();
            x.copy_from_slice(&buf[..BLOCK_SIZE]);
            let mut y = Secret::<BLOCK_SIZE>::zeroed();
            y[..r].copy_from_slice(&buf[BLOCK_SIZE..BLOCK_SIZE + r]);
            B::cbc_enc(n, &k.enc, &mut InOut::in_place(&mut x), 1, iv);
            B::cbc_enc(n, &k.enc, &mut InOut::in_place(&mut y), 1, iv);
            buf[..BLOCK_SIZE].copy_from_slice(&y[..]);
            buf[BLOCK_SIZE..BLOCK_SIZE + r].copy_from_slice(&x[..r]);
        } else {
            // D(Y) = (P[n] || 0) ^ X, so X = Z || D(Y)[r..]; P[n] = D(Y)[..r] ^ Z,
            // P[n-1] = D(X) ^ IV. The IV is left as Y, as the cts template does.
            let mut y = Secret::<BLOCK_SIZE>::zeroed();
            y.copy_from_slice(&buf[..BLOCK_SIZE]);
            let mut dy = Secret::new(*y);
            B::ecb(n, &k.dec, &mut InOut::in_place(&mut dy), 1);
            let mut x = Secret::new(*dy);
            x[..r].copy_from_slice(&buf[BLOCK_SIZE..BLOCK_SIZE + r]);
            for i in 0..r {
                buf[BLOCK_SIZE + i] = dy[i] ^ x[i];
            }
            B::cbc_dec(n, &k.dec, &mut InOut::in_place(&mut x), 1, iv);
            *iv = *y;
            buf[..BLOCK_SIZE].copy_from_slice(&x[..]);
        }
        io.write(&buf[..BLOCK_SIZE + r]);
    }
}

impl<B: Backend> Skcipher for Xts<B> {
    sm4_consts!(32);
    const XTS_KEY: bool = true;
    type Iv = Iv;
    type Context = XtsCtx;

    fn set_key(ctx: &mut XtsCtx, key: &Key<'_>, simd: &mut Simd) -> Result {
        let (k1, k2) = key.bytes().split_at(key.bytes().len() / 2);
        expand::<B>(k1, &mut ctx.data, simd)?;
        expand::<B>(k2, &mut ctx.tweak, simd)
    }
}

/// The running tweak of an XTS request, computed in the request's first NEON section (after
/// the walk started, so that a request the walk refuses never reaches the cipher).
struct XtsState<'a> {
    tweak_key: &'a RoundKeys,
    tweak: &'a mut Iv,
    started: bool,
}

impl<'a> XtsState<'a> {
    /// Not started, with the tweak key `tweak_key` and the tweak's buffer `tweak`.
    fn new(tweak_key: &'a RoundKeys, tweak: &'a mut Iv) -> Self {
        Self {
            tweak_key,
            tweak,
            started: false,
        }
    }

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
            self.started = true;
            Some((self.tweak_key, iv))
        };
        B::xts(n, rk, io, nblocks, self.tweak, first);
    }

    /// The running tweak, started from the IV `iv` if no block was done yet.
    fn tweak<B: Backend>(&mut self, n: &Neon, rk: &RoundKeys, iv: &Iv) -> &mut Iv {
        if !self.started {
            self.xts::<B>(n, rk, &mut InOut::in_place(&mut []), 0, iv);
        }
        self.tweak
    }
}

impl<B: Backend> Xts<B> {
    /// XTS (IEEE 1619) with ciphertext stealing for a partial last block. The IV is left as
    /// it was (as the kernel's xts template does). Whole blocks are one walk; with stealing
    /// ([`Self::stealing`]), two.
    #[inline(always)]
    fn crypt(ctx: &XtsCtx, req: &mut Request<'_, Iv>, simd: &mut Simd, enc: bool) -> Result {
        let len = req.len();
        if len < BLOCK_SIZE {
            return Err(EINVAL);
        }
        if len % BLOCK_SIZE != 0 {
            return Self::stealing(ctx, req, simd, enc);
        }
        let rk = if enc { &ctx.data.enc } else { &ctx.data.dec };
        // The tweak apart from the state, as the back end is given its address.
        let mut tweak = Secret::<BLOCK_SIZE>::zeroed();
        let mut st = XtsState::new(&ctx.tweak.enc, &mut tweak);
        blocks(req.walk(simd), |n, io, k, iv| st.xts::<B>(n, rk, io, k, iv))
    }

    /// [`Self::crypt`] with stealing: the blocks before the last whole one are a part of the
    /// request, the last 17 to 31 bytes another, in one step ([`stealing_end`]), as
    /// upstream's glue does. Out of line, so that its state does not weigh on whole blocks.
    #[inline(never)]
    fn stealing(ctx: &XtsCtx, req: &mut Request<'_, Iv>, simd: &mut Simd, enc: bool) -> Result {
        let (len, rk) = (req.len(), if enc { &ctx.data.enc } else { &ctx.data.dec });
        let mut tweak = Secret::<BLOCK_SIZE>::zeroed();
        let mut st = XtsState::new(&ctx.tweak.enc, &mut tweak);
        let tail = stealing_tail(len);
        if len > tail {
            let mut part = req.part(0, len - tail)?;
            blocks(part.walk(simd), |n, io, k, iv| {
                st.xts::<B>(n, rk, io, k, iv)
            })?;
        }
        stealing_end(req, simd, tail, |n, io, iv| {
            let mut buf = Secret::<{ 2 * BLOCK_SIZE }>::zeroed();
            io.read(&mut buf[..tail]);
            let t = st.tweak::<B>(n, rk, iv);
            Self::tail(n, rk, enc, &mut buf, tail - BLOCK_SIZE, t);
            io.write(&buf[..tail]);
        })
    }

    /// The last `16 + r` bytes (r in 1..=15) of an XTS request with stealing, in `buf`;
    /// `t` is the tweak of its first block. (Not inlined, as `Cts::tail`.)
    #[inline(never)]
    fn tail(n: &Neon, rk: &RoundKeys, enc: bool, buf: &mut [u8; 2 * BLOCK_SIZE], r: usize, t: &Iv) {
        // Encryption: CC = X(P[m-1], T), C[m-1] = X(P[m] || CC[r..], T*x), C[m] = CC[..r].
        // Decryption uses T*x first, then T.
        let (mut t1, mut t2) = (Secret::new(*t), Secret::new(*t));
        gf128_mul_x(t, if enc { &mut t2 } else { &mut t1 });
        let mut cc = Secret::<BLOCK_SIZE>::zeroed();
        cc.copy_from_slice(&buf[..BLOCK_SIZE]);
        B::xts(n, rk, &mut InOut::in_place(&mut cc), 1, &mut t1, None);
        let mut pp = Secret::new(*cc);
        pp[..r].copy_from_slice(&buf[BLOCK_SIZE..BLOCK_SIZE + r]);
        B::xts(n, rk, &mut InOut::in_place(&mut pp), 1, &mut t2, None);
        buf[..BLOCK_SIZE].copy_from_slice(&pp[..]);
        buf[BLOCK_SIZE..BLOCK_SIZE + r].copy_from_slice(&cc[..r]);
    }
}
