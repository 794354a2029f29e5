// SPDX-License-Identifier: GPL-2.0

//! What the SM4 AEAD modes share: the order of a request's work over its NEON sections
//! ([`Chain`], [`run`]), and the associated data, handed over in pieces of any length (one
//! scatterlist entry at a time, as [`Input`]s: raw views of the caller's memory), fed to a
//! block function in whole blocks ([`Feed`]: the hash of GCM, the CBC-MAC of CCM).

use crate::crypto::{
    aead::{Request, MAX_TAG},
    edeadlk,
    shash::Input,
    simd::{Neon, Simd},
    skcipher::InOut,
    Block, Secret,
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

/// The state of one request of a mode, advanced inside NEON sections (the token).
pub(crate) trait Chain {
    /// The first work of the request, in its first section (e.g. the block that masks the
    /// tag).
    fn start(&mut self, neon: &Neon);
    /// A piece of the associated data; `last` with the piece that ends it.
    fn ad(&mut self, neon: &Neon, data: Input<'_>, last: bool);
    /// A step of the text: whole blocks, and with `last` the partial block that ends the
    /// text. Returns how many bytes it left for the next step (a partial block of a step
    /// that is not the last).
    fn text(&mut self, neon: &Neon, io: &mut InOut<'_>, last: bool) -> usize;
    /// The tag, after the text (whole: the request takes its first `authsize` bytes).
    fn finish(&mut self, neon: &Neon) -> Secret<MAX_TAG>;
}

/// The most associated data hashed in the NEON section of the text's first step (kTLS sends
/// 13 bytes, IPsec 8 to 20): the section stays within a page of text and a little more.
pub(crate) const AD_WITH_TEXT_MAX: usize = 256;

/// Runs the request through `c`: the associated data, then the text, a walk step per
/// section, the tag computed in the last one (or in a section of its own if there is no
/// text). Associated data in one piece of at most [`AD_WITH_TEXT_MAX`] bytes is hashed in
/// the first of those sections; other associated data a piece per section before them.
/// Returns the tag; `EDEADLK` where NEON may not be used.
pub(crate) fn run<C: Chain, Iv: Block>(
    c: &mut C,
    req: &mut Request<'_, Iv>,
) -> Result<Secret<MAX_TAG>> {
    let mut started = false;
    let mut ad = req
        .ad_in_one_piece()
        .filter(|a| a.len() <= AD_WITH_TEXT_MAX);
    if ad.is_none() {
        let ad_len = req.assoc_len();
        let mut seen = 0;
        req.for_each_ad(|piece, simd| {
            seen += piece.len();
            let last = seen == ad_len;
            simd.neon(|neon| {
                if !started {
                    c.start(neon);
                    started = true;
                }
                c.ad(neon, piece, last)
            })
            .ok_or_else(edeadlk)
        })?;
    }
    let mut tag = None;
    req.walk(|step| {
        let last = step.len() == step.total();
        let (mut io, _, simd) = step.data();
        simd.neon(|neon| {
            if !started {
                c.start(neon);
                started = true;
            }
            if let Some(a) = ad.take() {
                c.ad(neon, a, true);
            }
            let left = c.text(neon, &mut io, last);
            if last {
                tag = Some(c.finish(neon));
            }
            left
        })
        .ok_or_else(edeadlk)
    })?;
    if let Some(t) = tag {
        return Ok(t);
    }
    req.simd()
        .neon(|neon| {
            if !started {
                c.start(neon);
            }
            if let Some(a) = ad.take() {
                c.ad(neon, a, true);
            }
            c.finish(neon)
        })
        .ok_or_else(edeadlk)
}

/// What a one-call core gets of a request in one piece (see [`one_call`]).
pub(crate) struct OneCall {
    /// The text's destination, `len` bytes (equal to `src` or disjoint).
    pub(crate) dst: *mut u8,
    /// The text's source, `len` bytes.
    pub(crate) src: *const u8,
    /// The length of the text.
    pub(crate) len: c_uint,
    /// The associated data, `ad_len` bytes (at most [`AD_WITH_TEXT_MAX`]).
    pub(crate) ad: *const u8,
    /// The length of the associated data.
    pub(crate) ad_len: c_uint,
    /// A 16-byte buffer for the whole tag.
    pub(crate) tag: *mut u8,
}

/// Does `req` with one call of a core in one NEON section when it lies in one piece
/// (associated data of at most [`AD_WITH_TEXT_MAX`] bytes, text of at most a page; see
/// [`Request::in_one_piece`]): `core` gets the request's pointers (valid as [`OneCall`]
/// says) and writes the whole tag, with which the request then ends (`OnePiece::finish`:
/// written after the text, or compared with the request's, `EBADMSG`). `None`, the
/// request untouched, if
/// it is not in one piece or NEON may not be used.
fn one_call<Iv: Block>(
    req: &mut Request<'_, Iv>,
    core: impl FnOnce(&Neon, &OneCall),
) -> Option<Result> {
    let mut one = req.in_one_piece(AD_WITH_TEXT_MAX)?;
    let mut tag = Secret::<MAX_TAG>::zeroed();
    // The lengths fit: the text is at most a page, the associated data 256 bytes.
    let args = OneCall {
        dst: one.dst(),
        src: one.src(),
        len: one.len() as c_uint,
        ad: one.ad().as_ptr(),
        ad_len: one.ad().len() as c_uint,
        tag: tag.as_mut_ptr(),
    };
    one.neon(|neon| core(neon, &args))?;
    Some(one.finish(&tag))
}

/// A request of a mode: with one call of `core` if it lies in one piece ([`one_call`]),
/// else piece by piece through the state `chain` makes ([`run`]: in one NEON section where
/// the kernel lets a section span a request, as its own glue does, see
/// [`Request::in_one_section`]); then the request ended with its tag
/// ([`Request::finish`]: written after the text, or checked).
pub(crate) fn crypt<C: Chain, Iv: Block>(
    req: &mut Request<'_, Iv>,
    core: impl FnOnce(&Neon, &OneCall),
    chain: impl FnOnce(&mut Request<'_, Iv>) -> C,
) -> Result {
    if let Some(r) = one_call(req, core) {
        return r;
    }
    let tag = req.in_one_section(|req| run(&mut chain(req), req))?;
    req.finish(&tag)
}

/// The partial block that ends a text: `rest` (shorter than a block) XORed with the
/// keystream `ks` into its destination. Returns its input (`input`) or its output, padded
/// with zeros to a block: what the mode authenticates (GCM the ciphertext, CCM the
/// plaintext).
pub(crate) fn partial(
    rest: &mut InOut<'_>,
    ks: &[u8; BLOCK_SIZE],
    input: bool,
) -> Secret<BLOCK_SIZE> {
    let n = rest.len().min(BLOCK_SIZE);
    let mut inp = Secret::<BLOCK_SIZE>::zeroed();
    rest.read(&mut inp[..n]);
    let mut out = Secret::<BLOCK_SIZE>::zeroed();
    for ((o, i), k) in out[..n].iter_mut().zip(inp.iter()).zip(ks.iter()) {
        *o = i ^ k;
    }
    rest.write(&out[..n]);
    if input {
        inp
    } else {
        out
    }
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
    /// in order; what is left of a block waits for the next piece.
    pub(crate) fn feed(&mut self, data: Input<'_>, mut f: impl FnMut(*const u8, usize)) {
        let mut data = data;
        if self.fill > 0 {
            let k = (BLOCK_SIZE - self.fill).min(data.len());
            let (head, rest) = data.split_at(k);
            head.read(&mut self.part[self.fill..self.fill + k]);
            self.fill += k;
            data = rest;
            if self.fill < BLOCK_SIZE {
                return;
            }
            f(self.part.as_ptr(), 1);
            self.fill = 0;
        }
        let whole = data.len() / BLOCK_SIZE;
        if whole > 0 {
            f(data.as_ptr(), whole);
        }
        let (_, rest) = data.split_at(whole * BLOCK_SIZE);
        rest.read(&mut self.part[..rest.len()]);
        // INVARIANT: `rest` is shorter than a block.
        self.fill = rest.len();
    }

    /// Feeds what is left padded with zeros to a block (nothing if nothing is left).
    pub(crate) fn flush(&mut self, mut f: impl FnMut(*const u8, usize)) {
        if self.fill > 0 {
            self.part[self.fill..].fill(0);
            f(self.part.as_ptr(), 1);
            self.fill = 0;
        }
    }
}
