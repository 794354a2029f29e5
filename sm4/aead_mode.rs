// SPDX-License-Identifier: GPL-2.0

//! What the SM4 AEAD modes share: the order of a request's work over its NEON sections
//! ([`Chain`], [`run`], [`crypt`]: one core routine per direction, a call per step), and the
//! associated data that is not in one piece, handed over in pieces of any length (one
//! scatterlist entry at a time, as [`Input`]s: raw views of the caller's memory), fed to a
//! block function in whole blocks ([`Feed`]: the hash of GCM, the CBC-MAC of CCM).

use crate::crypto::{
    aead::{Request, MAX_TAG},
    edeadlk,
    shash::Input,
    simd::{Neon, Simd},
    skcipher::{InOut, Step},
    Block,
};
use crate::sm4::{self, RoundKeys, BLOCK_SIZE, KEY_SIZE};
use core::ffi::c_uint;
use kernel::error::{code::EINVAL, Result};

extern "C" {
    /// `sm4-ce`'s export (upstream's interface): both schedules of `key`, with SM4EKEY; must
    /// run in a kernel-mode NEON section.
    fn sm4_ce_expand_key(
        key: *const u8,
        rk_enc: *mut u32,
        rk_dec: *mut u32,
        fk: *const u32,
        ck: *const u32,
    );
}

/// The encryption schedule of `key` into `rk`, in place: with `sm4-ce`'s SM4EKEY where NEON
/// may be used, with the Rust schedule otherwise (a `setkey` where it may not). `EINVAL`
/// unless the key is 16 bytes.
pub(crate) fn expand_encryption_key(key: &[u8], rk: &mut RoundKeys, simd: &mut Simd) -> Result {
    let key: &[u8; KEY_SIZE] = key.try_into().map_err(|_| EINVAL)?;
    let mut dec = RoundKeys::default();
    let done = simd.neon(|_| {
        // SAFETY: NEON is on; a 16-byte key, two 32-word schedules, the standard's 4 FK and
        // 32 CK words.
        unsafe {
            sm4_ce_expand_key(
                key.as_ptr(),
                rk.as_mut_ptr(),
                dec.as_mut_ptr(),
                sm4::FK.as_ptr(),
                sm4::CK.as_ptr(),
            )
        }
    });
    if done.is_none() {
        rk.expand_into(key);
    }
    Ok(())
}

/// A step's flag (bit 0 of [`StepArgs::flags`]): the request's first step, which also
/// makes the block that masks the tag.
pub(crate) const FIRST: c_uint = 1;
/// A step's flag (bit 1 of [`StepArgs::flags`]): the request's last step, which also does
/// the partial block that ends the text and computes the tag.
pub(crate) const LAST: c_uint = 2;

/// What a core's step gets besides its pointers (`struct sm4rs_aead_step` of the cores,
/// passed by value: one register).
#[repr(C)]
pub(crate) struct StepArgs {
    /// The length of the associated data in one piece the step takes (0: none).
    pub(crate) ad_len: c_uint,
    /// [`FIRST`], [`LAST`], both or neither.
    pub(crate) flags: c_uint,
}

/// A step of a core in the C types its routines take: the text's `len` bytes at `src` to
/// `dst` (the same or disjoint), the associated data in one piece at `ad`, and the
/// [`StepArgs`].
pub(crate) struct CoreStep {
    pub(crate) dst: *mut u8,
    pub(crate) src: *const u8,
    pub(crate) len: c_uint,
    pub(crate) ad: *const u8,
    pub(crate) args: StepArgs,
}

impl CoreStep {
    /// The step of `io` with the associated data `ad` (empty: none) and `flags`: the
    /// pointers of both, valid while they are.
    #[inline(always)]
    pub(crate) fn new(ad: &Input<'_>, io: &mut InOut<'_>, flags: c_uint) -> Self {
        // The lengths fit: a step is at most what a walk hands over (a `c_uint`), and the
        // associated data in one piece at most `AD_WITH_TEXT_MAX` bytes (fewer than 0xff00,
        // as CCM's core needs).
        Self {
            dst: io.dst(),
            src: io.src(),
            len: io.len() as c_uint,
            ad: ad.as_ptr(),
            args: StepArgs {
                ad_len: ad.len() as c_uint,
                flags,
            },
        }
    }
}

/// The state of one request of a mode, advanced inside NEON sections (the token), by one
/// core routine per direction.
pub(crate) trait Chain {
    /// One call of the mode's core: with [`FIRST`] the request's first work (the block
    /// that masks the tag); the associated data `ad` whole (empty if there is none or it
    /// went to [`Chain::ad`]); the whole blocks of `io`; with [`LAST`] the partial block
    /// that ends the text, and the tag ([`Chain::tag`]).
    fn step(&mut self, neon: &Neon, ad: Input<'_>, io: &mut InOut<'_>, flags: c_uint);
    /// A piece of associated data that is not in one piece (after the step with
    /// [`FIRST`], before the text); `last` with the piece that ends it. (`EINVAL` for a
    /// piece whose blocks a core could not count.)
    fn ad(&mut self, neon: &Neon, data: Input<'_>, last: bool) -> Result;
    /// The tag, after the step with [`LAST`] (whole: the request takes its first
    /// `authsize` bytes).
    fn tag(&self) -> &[u8; MAX_TAG];
}

/// The most associated data hashed in the NEON section of the text's first step (kTLS sends
/// 13 bytes, IPsec 8 to 20): the section stays within a page of text and a little more.
pub(crate) const AD_WITH_TEXT_MAX: usize = 256;

/// Runs the request through `c`, a core call per step of the walk (a request in one piece,
/// as kTLS and IPsec send them, is one step, [`Request::one_step`]: one call). Associated
/// data in one piece of at most [`AD_WITH_TEXT_MAX`] bytes goes with the first step, other
/// associated data a piece per section before the text; the tag comes with the last step
/// (a step of its own if there is no text), [`Chain::tag`] then. `EDEADLK` where NEON may
/// not be used.
pub(crate) fn run<C: Chain, Iv: Block>(c: &mut C, req: &mut Request<'_, Iv>) -> Result {
    let mut first = FIRST;
    let ad_len = req.assoc_len();
    let mut ad = req
        .ad_in_one_piece()
        .filter(|a| a.len() <= AD_WITH_TEXT_MAX);
    if ad.is_none() && ad_len > 0 {
        let mut seen = 0;
        req.for_each_ad(|piece, simd| {
            seen += piece.len();
            simd.neon(|neon| {
                if first != 0 {
                    c.step(
                        neon,
                        Input::from_slice(&[]),
                        &mut InOut::in_place(&mut []),
                        first,
                    );
                    first = 0;
                }
                c.ad(neon, piece, seen == ad_len)
            })
            .ok_or_else(edeadlk)?
        })?;
    }
    let mut ended = false;
    if let Some(mut step) = req.one_step() {
        // The whole text: its last step.
        text_step(c, &mut step, &mut ad, &mut first, &mut ended)?;
    } else {
        req.walk(|step| text_step(c, step, &mut ad, &mut first, &mut ended))?;
    }
    if !ended {
        let ad = ad.take().unwrap_or(Input::from_slice(&[]));
        req.simd()
            .neon(|neon| c.step(neon, ad, &mut InOut::in_place(&mut []), first | LAST))
            .ok_or_else(edeadlk)?;
    }
    Ok(())
}

/// A step of the text through `c` in a NEON section: with the associated data `ad` (taken)
/// and the flags `first` (cleared); `ended` set if it was the last. Returns how many bytes
/// it left (a partial block of a step that is not the last). (Always inlined: a request in
/// one piece, the common case, is one such step, [`Request::one_step`], without a call.)
#[inline(always)]
fn text_step<C: Chain>(
    c: &mut C,
    step: &mut Step<'_, [u8; 0]>,
    ad: &mut Option<Input<'_>>,
    first: &mut c_uint,
    ended: &mut bool,
) -> Result<usize> {
    let last = step.len() == step.total();
    let (mut io, _, simd) = step.data();
    simd.neon(|neon| {
        let a = ad.take().unwrap_or(Input::from_slice(&[]));
        c.step(neon, a, &mut io, *first | if last { LAST } else { 0 });
        *first = 0;
        *ended = last;
        if last {
            0
        } else {
            io.len() % BLOCK_SIZE
        }
    })
    .ok_or_else(edeadlk)
}

/// A request of a mode through the state `chain` makes ([`run`]: in one NEON section where
/// the kernel lets a section span a request, as its own glue does, see
/// [`Request::in_one_section`]), then ended with its tag ([`Request::finish`]: written
/// after the text, or checked).
pub(crate) fn crypt<C: Chain, Iv: Block>(
    req: &mut Request<'_, Iv>,
    chain: impl FnOnce(&mut Request<'_, Iv>) -> C,
) -> Result {
    req.in_one_section(|req| {
        let mut c = chain(req);
        run(&mut c, req)?;
        req.finish(c.tag())
    })
}

/// A partial block kept between pieces.
///
/// # Invariants
///
/// `fill < BLOCK_SIZE` between calls.
pub(crate) struct Feed {
    part: [u8; BLOCK_SIZE],
    fill: usize,
}

impl Feed {
    /// An empty feed, or one that starts with `prefix` (CCM's encoded length of the
    /// associated data; at most a block).
    pub(crate) fn new(prefix: &[u8]) -> Self {
        let mut part = [0; BLOCK_SIZE];
        let fill = prefix.len().min(BLOCK_SIZE - 1);
        part[..fill].copy_from_slice(&prefix[..fill]);
        // INVARIANT: `fill < BLOCK_SIZE`.
        Self { part, fill }
    }

    /// Feeds `data`: `f(p, n)` gets `n` whole blocks at `p` (in this buffer or in `data`),
    /// in order; what is left of a block waits for the next piece. `EINVAL`, and nothing
    /// fed, if `data` has more blocks than a `c_uint` counts.
    pub(crate) fn feed(&mut self, data: Input<'_>, mut f: impl FnMut(*const u8, c_uint)) -> Result {
        let whole = c_uint::try_from(data.len() / BLOCK_SIZE).map_err(|_| EINVAL)?;
        let mut data = data;
        if self.fill > 0 {
            let k = (BLOCK_SIZE - self.fill).min(data.len());
            let (head, rest) = data.split_at(k);
            head.read(&mut self.part[self.fill..self.fill + k]);
            self.fill += k;
            data = rest;
            if self.fill < BLOCK_SIZE {
                return Ok(());
            }
            f(self.part.as_ptr(), 1);
            self.fill = 0;
        }
        // (At most the blocks counted above: `data` only got shorter.)
        let whole = whole.min((data.len() / BLOCK_SIZE) as c_uint);
        if whole > 0 {
            f(data.as_ptr(), whole);
        }
        let (_, rest) = data.split_at(whole as usize * BLOCK_SIZE);
        rest.read(&mut self.part[..rest.len()]);
        // INVARIANT: `rest` is shorter than a block.
        self.fill = rest.len();
        Ok(())
    }

    /// Feeds what is left padded with zeros to a block (nothing if nothing is left).
    pub(crate) fn flush(&mut self, mut f: impl FnMut(*const u8, c_uint)) {
        if self.fill > 0 {
            self.part[self.fill..].fill(0);
            f(self.part.as_ptr(), 1);
            self.fill = 0;
        }
    }
}
