// SPDX-License-Identifier: GPL-2.0

//! Suites `sm4_ce_gcm` and `sm4_ce_ccm`: `gcm-sm4-ce` and `ccm-sm4-ce` against the kernel's
//! templates over the oracle, `gcm_base(ctr(sm4-oracle),ghash-generic)` (`ghash-lib` from Linux
//! 6.19 on) and `ccm_base(ctr(sm4-oracle),cbcmac(sm4-oracle))`, which share no code with them:
//! associated data and text lengths from 0 past 4096 (and, for CCM, associated data long enough for
//! its 6-byte length encoding), every tag size, in place and out of place, scatterlists in 1-byte
//! and mixed pieces; decryption of what was encrypted, and of it with a bit of the tag or of the
//! text flipped (`EBADMSG` from both); bad keys, tag sizes, IVs and lengths refused as the
//! references refuse them. Each suite is skipped where its driver is not loaded.

use crate::bindings;
use crate::kunit::{
    check, check_eq, check_ok, fail, in_matrix, skip_unless, suite, Failure, TestResult,
    MATRIX_STEP,
};
use crate::rng::Rng;
use crate::testing::{in_hard_irq, AeadOp, AeadTfm};
use core::ffi::{c_int, CStr};
use core::sync::atomic::{AtomicPtr, AtomicUsize, Ordering::Relaxed};
use kernel::alloc::{flags::GFP_KERNEL, KBox, KVec};

/// An AEAD under test and its reference.
struct Mode {
    /// The driver under test.
    ours: &'static CStr,
    /// The template over the oracle, by the names it has on the kernels (the first that
    /// exists is used).
    references: &'static [&'static CStr],
    /// The allowed tag sizes.
    tags: &'static [usize],
    /// The IV size.
    iv_size: usize,
    /// The driver's assembly routines and what each takes from its arguments
    /// ([`SectionBytes`]).
    cores: &'static [(&'static CStr, Taken)],
}

const GCM: Mode = Mode {
    ours: c"gcm-sm4-ce",
    references: &[
        c"gcm_base(ctr(sm4-oracle),ghash-generic)",
        c"gcm_base(ctr(sm4-oracle),ghash-lib)",
    ],
    tags: &[16, 4, 8, 12, 13, 14, 15],
    iv_size: 12,
    cores: &[
        (c"sm4rs_ce_gcm_enc", Taken::TextAndAd),
        (c"sm4rs_ce_gcm_dec", Taken::TextAndAd),
        (c"sm4rs_ce_ghash", Taken::Blocks),
    ],
};

const CCM: Mode = Mode {
    ours: c"ccm-sm4-ce",
    references: &[c"ccm_base(ctr(sm4-oracle),cbcmac(sm4-oracle))"],
    tags: &[16, 4, 6, 8, 10, 12, 14],
    iv_size: 16,
    cores: &[
        (c"sm4rs_ce_ccm_enc", Taken::TextAndAd),
        (c"sm4rs_ce_ccm_dec", Taken::TextAndAd),
        (c"sm4rs_ce_ccm_mac", Taken::Blocks),
    ],
};

impl Mode {
    /// The reference's name on this kernel.
    fn reference(&self) -> Result<&'static CStr, Failure> {
        self.references
            .iter()
            .copied()
            .find(|n| AeadTfm::new(n).is_ok())
            .ok_or(fail!("the reference could not be allocated"))
    }
}

/// Associated data lengths.
const AD_LENS: [usize; 9] = [0, 1, 13, 16, 17, 20, 31, 64, 300];
/// Text lengths: 0 to past 4096, block multiples and not.
const TEXT_LENS: [usize; 17] = [
    0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 255, 256, 1000, 4095, 4096, 4097, 4200,
];
/// Scatterlist layouts: piece sizes (cycled) and whether the operation is in place.
const LAYOUTS: [(&[usize], bool); 4] = [
    (&[usize::MAX], false),
    (&[usize::MAX], true),
    (&[1], false),
    (&[3, 16, 1, 29, 64, 7], true),
];

/// `n` zero bytes on the heap.
fn zeros(n: usize) -> Result<KVec<u8>, Failure> {
    KVec::from_elem(0u8, n, GFP_KERNEL).map_err(|_| fail!("alloc"))
}

/// A heap copy of `data`.
fn vec_of(data: &[u8]) -> Result<KVec<u8>, Failure> {
    let mut v = KVec::with_capacity(data.len().max(1), GFP_KERNEL).map_err(|_| fail!("alloc"))?;
    v.extend_from_slice(data, GFP_KERNEL)
        .map_err(|_| fail!("alloc"))?;
    Ok(v)
}

/// A request's outcome: the whole destination buffer, or the error number.
type Outcome = Result<KVec<u8>, i32>;

/// Runs `name` with `key` and tag size `tag` on the buffer `buf` (associated data of `ad`
/// bytes first), `cryptlen` bytes after it, in `layout`.
#[allow(clippy::too_many_arguments)]
fn run(
    name: &CStr,
    decrypt: bool,
    key: &[u8],
    tag: usize,
    iv: &[u8],
    buf: &[u8],
    ad: usize,
    cryptlen: usize,
    layout: (&[usize], bool),
) -> Result<Outcome, Failure> {
    let mut tfm = AeadTfm::new(name).map_err(|_| fail!("the transform could not be allocated"))?;
    if let Err(e) = tfm.set_key(key) {
        return Ok(Err(e.to_errno()));
    }
    if let Err(e) = tfm.set_auth_size(tag) {
        return Ok(Err(e.to_errno()));
    }
    let mut src = vec_of(buf)?;
    let (pieces, in_place) = layout;
    let op = if decrypt {
        AeadOp::Decrypt
    } else {
        AeadOp::Encrypt
    };
    if in_place {
        return Ok(
            match tfm.crypt(op, &mut src, None, ad, cryptlen, iv, pieces) {
                Ok(()) => Ok(src),
                Err(e) => Err(e.to_errno()),
            },
        );
    }
    let mut dst = vec_of(buf)?;
    Ok(
        match tfm.crypt(op, &mut src, Some(&mut dst), ad, cryptlen, iv, pieces) {
            Ok(()) => Ok(dst),
            Err(e) => Err(e.to_errno()),
        },
    )
}

/// The bytes of an outcome after the associated data (the destination's associated data is
/// not written by AEADs), or its error.
fn tail(o: &Outcome, ad: usize) -> Result<&[u8], i32> {
    match o {
        Ok(v) => Ok(v.get(ad..).unwrap_or(&[])),
        Err(e) => Err(*e),
    }
}

/// A valid IV of `mode` from `rng` (CCM: L' = 1 to 7 in the first byte, cycled by `i`,
/// limited so that the text length fits).
fn make_iv(mode: &Mode, rng: &mut Rng, i: usize) -> [u8; 16] {
    let mut iv = [0u8; 16];
    rng.fill(&mut iv);
    if mode.iv_size == 16 {
        iv[0] = (1 + i % 7) as u8;
    }
    iv
}

/// Every length, layout and tag size: ours and the reference encrypt alike; ours decrypts the
/// result to the plaintext; both refuse it with `EBADMSG` with a bit flipped in the tag, and
/// in the text. (The reference runs once per length, on whole buffers: how a request is cut
/// changes nothing in what it gives, and it is the slow side, C over the kernel's templates.)
fn versus_reference(mode: &Mode) -> TestResult {
    skip_unless!(AeadTfm::new(mode.ours).is_ok(), "driver not loaded");
    let reference_name = mode.reference()?;
    let mut rng = Rng(0xae_ad00 ^ mode.iv_size as u64);
    let (mut n, mut cases) = (0usize, 0usize);
    for &ad in AD_LENS.iter() {
        // As kTLS and tcrypt send them: the associated data in an entry of its own, the text
        // and the tag in the next.
        let own_entry = [ad.max(1), usize::MAX];
        let ad_apart = [(&own_entry[..], false), (&own_entry[..], true)];
        for &len in TEXT_LENS.iter() {
            n += 1;
            let tag = mode.tags[n % mode.tags.len()];
            let mut key = [0u8; 16];
            rng.fill(&mut key);
            let iv = make_iv(mode, &mut rng, n);
            let iv = &iv[..mode.iv_size];
            let total = ad + len + tag;
            let mut buf = zeros(total)?;
            rng.fill(&mut buf[..ad + len]);
            if !in_matrix(n) {
                continue;
            }
            let reference = run(
                reference_name,
                false,
                &key,
                tag,
                iv,
                &buf,
                ad,
                len,
                LAYOUTS[0],
            )?;
            check!(reference.is_ok());
            let Ok(ct) = &reference else {
                return Err(fail!("the reference failed"));
            };
            // What was encrypted, the associated data put back in front, and with a bit flipped
            // in the tag, then in the text or the associated data.
            let mut sealed = zeros(total)?;
            sealed[..ad].copy_from_slice(&buf[..ad]);
            sealed[ad..].copy_from_slice(&ct[ad..]);
            let mut flipped = KVec::new();
            for at in [
                total - 1,
                if len + ad > 0 {
                    (n * 7) % (ad + len)
                } else {
                    total - 1
                },
            ] {
                let mut bad = vec_of(&sealed)?;
                bad[at] ^= 1 << (n % 8);
                let refused = run(
                    reference_name,
                    true,
                    &key,
                    tag,
                    iv,
                    &bad,
                    ad,
                    len + tag,
                    LAYOUTS[0],
                )?;
                check_eq!(refused.as_ref().err(), Some(&-74));
                flipped.push(bad, GFP_KERNEL).map_err(|_| fail!("alloc"))?;
            }
            for &layout in LAYOUTS.iter().chain(ad_apart.iter()) {
                // 1-byte pieces: only short requests (each piece is a scatterlist entry).
                if layout.0 == [1] && ad + len > 300 {
                    continue;
                }
                cases += 1;
                let ours = run(mode.ours, false, &key, tag, iv, &buf, ad, len, layout)?;
                check_eq!(tail(&ours, ad), tail(&reference, ad));
                // Decrypt what was encrypted.
                let opened = run(
                    mode.ours,
                    true,
                    &key,
                    tag,
                    iv,
                    &sealed,
                    ad,
                    len + tag,
                    layout,
                )?;
                check_eq!(
                    tail(&opened, ad).map(|p| p.get(..len).map(|p| p == &buf[ad..ad + len])),
                    Ok(Some(true))
                );
                for bad in flipped.iter() {
                    let ours = run(mode.ours, true, &key, tag, iv, bad, ad, len + tag, layout)?;
                    check_eq!(ours.as_ref().err(), Some(&-74));
                }
            }
        }
    }
    check!(cases > 500 / MATRIX_STEP);
    Ok(())
}

/// A key set where NEON may not be used (in hard interrupt context: the SM4 key schedule,
/// and GCM's hash key and its powers, in Rust) gives the reference's results, both ways.
fn set_key_without_neon(mode: &Mode) -> TestResult {
    skip_unless!(AeadTfm::new(mode.ours).is_ok(), "driver not loaded");
    let reference_name = mode.reference()?;
    let mut rng = Rng(0x5eed_ae0b);
    let (mut key, mut iv, mut buf) = ([0u8; 16], [0u8; 16], [0u8; 16 + 100 + 16]);
    rng.fill(&mut key);
    rng.fill(&mut iv);
    rng.fill(&mut buf);
    // (CCM: L' = 3, a 4-byte length field.)
    iv[0] = 3;
    let iv = &iv[..mode.iv_size];
    let layout: (&[usize], bool) = (&[usize::MAX], true);
    let mut tfm = AeadTfm::new(mode.ours).map_err(|_| fail!("alloc"))?;
    let mut keyed = None;
    check!(in_hard_irq(|| keyed = Some(tfm.set_key(&key).is_ok())).is_ok());
    check_eq!(keyed, Some(true));
    check!(tfm.set_auth_size(16).is_ok());
    // 16 bytes of associated data and 100 of text, encrypted; the reference's result
    // decrypted.
    let sealed = run(reference_name, false, &key, 16, iv, &buf, 16, 100, layout)?;
    let mut src = vec_of(&buf)?;
    let ours: Outcome = match tfm.crypt(AeadOp::Encrypt, &mut src, None, 16, 100, iv, layout.0) {
        Ok(()) => Ok(src),
        Err(e) => Err(e.to_errno()),
    };
    check_eq!(tail(&ours, 16), tail(&sealed, 16));
    let sealed = check_ok!(sealed);
    let opened = run(reference_name, true, &key, 16, iv, &sealed, 16, 116, layout)?;
    check!(opened.is_ok());
    let mut src = vec_of(&sealed)?;
    let ours: Outcome = match tfm.crypt(AeadOp::Decrypt, &mut src, None, 16, 116, iv, layout.0) {
        Ok(()) => Ok(src),
        Err(e) => Err(e.to_errno()),
    };
    check_eq!(tail(&ours, 16), tail(&opened, 16));
    Ok(())
}

/// Bad keys, tag sizes, IVs and lengths: refused with the reference's error.
fn bad_input(mode: &Mode) -> TestResult {
    skip_unless!(AeadTfm::new(mode.ours).is_ok(), "driver not loaded");
    let reference_name = mode.reference()?;
    let mut rng = Rng(0xbad_aead);
    let buf = [0x5au8; 64];
    let mut iv = [7u8; 16];
    iv[0] = 3;
    let iv = &iv[..mode.iv_size];
    let key = [1u8; 16];
    let layout: (&[usize], bool) = (&[usize::MAX], false);
    let mut cases = 0;
    // Key lengths.
    for klen in [0usize, 1, 15, 17, 24, 32] {
        let mut k = [0u8; 32];
        rng.fill(&mut k);
        let ours = run(mode.ours, false, &k[..klen], 16, iv, &buf, 16, 32, layout)?;
        let reference = run(
            reference_name,
            false,
            &k[..klen],
            16,
            iv,
            &buf,
            16,
            32,
            layout,
        )?;
        check_eq!(ours.as_ref().err(), Some(&-22));
        check_eq!(ours.as_ref().err(), reference.as_ref().err());
        cases += 1;
    }
    // Tag sizes.
    for tag in 0..=17usize {
        let ours = run(mode.ours, false, &key, tag, iv, &buf, 16, 32, layout)?;
        let reference = run(reference_name, false, &key, tag, iv, &buf, 16, 32, layout)?;
        check_eq!(ours.is_ok(), mode.tags.contains(&tag));
        check_eq!(tail(&ours, 16), tail(&reference, 16));
        cases += 1;
    }
    // A decryption shorter than the tag, handed to the driver itself (crypto_aead_decrypt()
    // refuses it before the driver): refused with EINVAL, the buffer untouched.
    {
        let mut tfm = AeadTfm::new(mode.ours).map_err(|_| fail!("alloc"))?;
        check!(tfm.set_key(&key).is_ok());
        check!(tfm.set_auth_size(16).is_ok());
        let mut src = vec_of(&buf[..16 + 8])?;
        let r = tfm.crypt(AeadOp::DecryptAtDriver, &mut src, None, 16, 8, iv, layout.0);
        check_eq!(r.err().map(|e| e.to_errno()), Some(-22));
        check!(src[..] == buf[..16 + 8]);
        cases += 1;
    }
    // CCM: L' of 0 and 8 are refused; a text too long for L = 2 (64 KiB) overflows.
    if mode.iv_size == 16 {
        for lp in [0u8, 8, 255] {
            let mut v = [9u8; 16];
            v[0] = lp;
            let ours = run(mode.ours, false, &key, 16, &v, &buf, 16, 32, layout)?;
            let reference = run(reference_name, false, &key, 16, &v, &buf, 16, 32, layout)?;
            check_eq!(ours.as_ref().err(), Some(&-22));
            check_eq!(ours.as_ref().err(), reference.as_ref().err());
            cases += 1;
        }
        // L = 2: the text must be shorter than 2^16 bytes. One byte more: refused by both.
        // Exactly 2^16: refused by ours as by upstream's C sm4-ce-ccm (and aes-ce-ccm),
        // while the generic template lets it through with a length field of 0.
        let mut v = [9u8; 16];
        v[0] = 1;
        let big = zeros(65537 + 16)?;
        let ours = run(mode.ours, false, &key, 16, &v, &big, 0, 65537, layout)?;
        let reference = run(reference_name, false, &key, 16, &v, &big, 0, 65537, layout)?;
        check_eq!(ours.as_ref().err(), Some(&-75));
        check_eq!(ours.as_ref().err(), reference.as_ref().err());
        let ours = run(
            mode.ours,
            false,
            &key,
            16,
            &v,
            &big[..65536 + 16],
            0,
            65536,
            layout,
        )?;
        check_eq!(ours.as_ref().err(), Some(&-75));
        let ours = run(
            mode.ours,
            false,
            &key,
            16,
            &v,
            &big[..65535 + 16],
            0,
            65535,
            layout,
        )?;
        let reference = run(
            reference_name,
            false,
            &key,
            16,
            &v,
            &big[..65535 + 16],
            0,
            65535,
            layout,
        )?;
        check!(ours.is_ok());
        check_eq!(tail(&ours, 0), tail(&reference, 0));
    }
    check!(cases > 20);
    Ok(())
}

/// Long associated data (CCM's 6-byte length encoding from 0xff00 bytes on) in pieces.
fn long_ad(mode: &Mode) -> TestResult {
    skip_unless!(AeadTfm::new(mode.ours).is_ok(), "driver not loaded");
    let reference_name = mode.reference()?;
    let mut rng = Rng(0x10_aead);
    for (i, (ad, len)) in [(0xff00usize - 1, 33usize), (0xff00, 16), (0xff00 + 21, 100)]
        .into_iter()
        .enumerate()
    {
        let mut key = [0u8; 16];
        rng.fill(&mut key);
        let iv = make_iv(mode, &mut rng, i + 3);
        let iv = &iv[..mode.iv_size];
        let total = ad + len + 16;
        let mut buf = zeros(total)?;
        rng.fill(&mut buf[..ad + len]);
        for layout in [(&[usize::MAX][..], false), (&[4096, 1000, 17][..], true)] {
            let ours = run(mode.ours, false, &key, 16, iv, &buf, ad, len, layout)?;
            let reference = run(reference_name, false, &key, 16, iv, &buf, ad, len, layout)?;
            check!(ours.is_ok());
            check_eq!(tail(&ours, ad), tail(&reference, ad));
        }
    }
    Ok(())
}

/// The kernel's IPsec template `template` (`rfc4106`, `rfc4309`) over the driver under test
/// is built on it and gives what the same template over the reference gives (keys with the
/// template's salt of `salt` bytes, 8-byte IVs, associated data of 16 and 20 bytes that ends
/// with the IV, tags of 8, 12 and 16 bytes).
fn rfc_template(mode: &Mode, template: &str, salt: usize) -> TestResult {
    skip_unless!(AeadTfm::new(mode.ours).is_ok(), "driver not loaded");
    let reference_name = mode.reference()?;
    let mut name = [0u8; 128];
    let mut refname = [0u8; 128];
    let ours = cstr_in(&mut name, &[template, "(", cstr_str(mode.ours), ")"])?;
    let reference = cstr_in(
        &mut refname,
        &[template, "(", cstr_str(reference_name), ")"],
    )?;
    let t = AeadTfm::new(ours).map_err(|_| fail!("the template over ours was not built"))?;
    check_eq!(t.driver_name().to_bytes(), ours.to_bytes());
    let mut rng = Rng(0x4106_4309);
    let mut n = 0;
    for &ad in &[16usize, 20] {
        for &tag in &[8usize, 12, 16] {
            for &len in &[0usize, 1, 16, 100, 1500, 4097] {
                let mut key = [0u8; 20];
                rng.fill(&mut key);
                let key = &key[..16 + salt];
                let mut iv = [0u8; 8];
                rng.fill(&mut iv);
                let mut buf = zeros(ad + len + tag)?;
                rng.fill(&mut buf[..ad + len]);
                buf[ad - 8..ad].copy_from_slice(&iv);
                let layout: (&[usize], bool) = (&[7, 64, 1000], n % 2 == 0);
                let a = run(ours, false, key, tag, &iv, &buf, ad, len, layout)?;
                let b = run(reference, false, key, tag, &iv, &buf, ad, len, layout)?;
                check!(a.is_ok());
                check_eq!(tail(&a, ad), tail(&b, ad));
                n += 1;
            }
        }
    }
    check_eq!(n, 36);
    Ok(())
}

/// What an AEAD core routine takes from its arguments, in bytes.
#[derive(Clone, Copy)]
pub(crate) enum Taken {
    /// The text's length (x3) and the associated data in one piece (the low half of x6).
    TextAndAd,
    /// Whole blocks, their count in x3.
    Blocks,
}

/// A kprobe of [`SectionBytes`].
#[repr(C)]
struct MeterProbe {
    /// First, so that the handler finds the rest from the kprobe.
    kp: bindings::kprobe,
    /// `None`: `kernel_neon_begin()`.
    taken: Option<Taken>,
}

/// The task whose sections are measured, the bytes of the section open, and the most one
/// section took (one [`SectionBytes`] at a time: the suites run one case at a time).
static METER_TASK: AtomicPtr<core::ffi::c_void> = AtomicPtr::new(core::ptr::null_mut());
static METER_NOW: AtomicUsize = AtomicUsize::new(0);
static METER_WIDEST: AtomicUsize = AtomicUsize::new(0);

/// The pre-handler of [`SectionBytes`]'s kprobes.
///
/// # Safety
///
/// Called by the kprobe machinery with a kprobe of a [`MeterProbe`] and the registers of
/// the function it stopped at its entry.
unsafe extern "C" fn meter(p: *mut bindings::kprobe, regs: *mut bindings::pt_regs) -> c_int {
    // SAFETY: reads the context and the current task pointer.
    let ours =
        unsafe { bindings::in_task() && bindings::current_task() == METER_TASK.load(Relaxed) };
    if !ours {
        return 0;
    }
    // SAFETY: `p` is the first field of a live `MeterProbe` (`repr(C)`).
    let taken = unsafe { (*p.cast::<MeterProbe>()).taken };
    // SAFETY: `regs` are the stopped function's registers.
    let arg = |n| unsafe { bindings::regs_arg(regs, n) } as usize;
    match taken {
        None => {
            METER_WIDEST.fetch_max(METER_NOW.swap(0, Relaxed), Relaxed);
        }
        Some(Taken::TextAndAd) => {
            METER_NOW.fetch_add((arg(3) & 0xffff_ffff) + (arg(6) & 0xffff_ffff), Relaxed);
        }
        Some(Taken::Blocks) => {
            METER_NOW.fetch_add(16 * (arg(3) & 0xffff_ffff), Relaxed);
        }
    }
    0
}

/// The bytes that each NEON section of the current task hands an AEAD's core routines
/// (associated data and text, as the routines' arguments say), measured by kprobes on
/// `kernel_neon_begin()` and on the routines: [`SectionBytes::widest`] is the most that one
/// section took.
///
/// # Invariants
///
/// The first `registered` of `probes` are registered kprobes.
pub(crate) struct SectionBytes {
    probes: KVec<KBox<MeterProbe>>,
    registered: usize,
}

impl SectionBytes {
    /// Starts measuring, with kprobes on `kernel_neon_begin()` and on `cores`.
    pub(crate) fn start(cores: &[(&'static CStr, Taken)]) -> Result<Self, Failure> {
        METER_NOW.store(0, Relaxed);
        METER_WIDEST.store(0, Relaxed);
        // SAFETY: reads the current task pointer.
        METER_TASK.store(unsafe { bindings::current_task() }, Relaxed);
        let mut me = Self {
            probes: KVec::new(),
            registered: 0,
        };
        let all = [(c"kernel_neon_begin", None)]
            .into_iter()
            .chain(cores.iter().map(|&(s, t)| (s, Some(t))));
        for (symbol, taken) in all {
            let probe = MeterProbe {
                // SAFETY: all zeros is an unregistered kprobe with no handler.
                kp: unsafe { core::mem::zeroed::<bindings::kprobe>() },
                taken,
            };
            let mut probe = KBox::new(probe, GFP_KERNEL).map_err(|_| fail!("alloc"))?;
            probe.kp.symbol_name = crate::crypto::c_str_ptr(symbol);
            probe.kp.pre_handler = Some(meter);
            me.probes
                .push(probe, GFP_KERNEL)
                .map_err(|_| fail!("alloc"))?;
            let Some(p) = me.probes.get_mut(me.registered) else {
                return Err(fail!("alloc"));
            };
            // SAFETY: a valid kprobe, the first field of a `MeterProbe`, that stays allocated
            // (boxed) until `unregister_kprobe` in `drop`.
            let r = unsafe { bindings::register_kprobe(&mut p.kp) };
            if r == -95 {
                return Err(Failure {
                    skip: true,
                    ..fail!("no kprobes (CONFIG_KPROBES) to measure with")
                });
            }
            if r != 0 {
                kernel::pr_err!("    # register_kprobe({:?}) failed: {}\n", symbol, r);
                return Err(fail!("register_kprobe failed"));
            }
            // INVARIANT: registered.
            me.registered += 1;
        }
        Ok(me)
    }

    /// The most bytes one section took so far (the section open included).
    pub(crate) fn widest(&self) -> usize {
        METER_WIDEST.load(Relaxed).max(METER_NOW.load(Relaxed))
    }
}

impl Drop for SectionBytes {
    fn drop(&mut self) {
        for p in self.probes.iter_mut().take(self.registered) {
            // SAFETY: registered in `start` (type invariant).
            unsafe { bindings::unregister_kprobe(&mut p.kp) };
        }
    }
}

/// A request of 256 KiB of associated data and 256 KiB of text, each in one piece, takes at
/// least one NEON section per page of each, and none of them hands the cores more than a
/// page and a block (associated data and text together, as the routines' arguments say:
/// [`SectionBytes`]; the block one a piece of associated data completes); with 13 bytes of
/// associated data (kTLS), a page and those 13. Exactly one section where
/// the kernel lets a section span a request's work (`SECTION_MAY_SPAN_WALK`, 7.3, whose glue
/// does so for GCM and CCM).
fn sections_per_page(mode: &Mode) -> TestResult {
    skip_unless!(AeadTfm::new(mode.ours).is_ok(), "driver not loaded");
    const HALF: usize = 256 << 10;
    const PAGE: usize = crate::bindings::PAGE_SIZE;
    let mut tfm = AeadTfm::new(mode.ours).map_err(|_| fail!("alloc"))?;
    check!(tfm.set_key(&[3u8; 16]).is_ok());
    let mut iv = [1u8; 16];
    iv[0] = 3;
    for ad in [HALF, 13] {
        let buf = zeros(ad + HALF + 16);
        skip_unless!(buf.is_ok(), "no 512 KiB of contiguous memory");
        let mut buf = buf?;
        let counter = crate::ce::CallCounter::sections()?;
        let bytes = SectionBytes::start(mode.cores)?;
        let r = tfm.crypt(
            AeadOp::Encrypt,
            &mut buf,
            None,
            ad,
            HALF,
            &iv[..mode.iv_size],
            &[ad, HALF, 16],
        );
        let (sections, widest) = (counter.count(), bytes.widest());
        drop(bytes);
        drop(counter);
        check!(r.is_ok());
        if crate::crypto::SECTION_MAY_SPAN_WALK {
            check_eq!(sections, 1);
            continue;
        }
        // (A piece of associated data may complete a block that the pieces before left
        // partial: CCM's encoded length makes its pieces straddle blocks.)
        let most = if ad > PAGE { PAGE + 16 } else { PAGE + ad };
        if sections < (ad + HALF) / PAGE || widest > most {
            kernel::pr_err!(
                "    # {} NEON sections for {} bytes of associated data and {} of text, at \
                 most {} bytes in one (allowed: {})\n",
                sections,
                ad,
                HALF,
                widest,
                most
            );
            return Err(fail!(
                "NEON sections not bounded as the kernel's glue bounds them"
            ));
        }
    }
    Ok(())
}

/// The text of a C string literal.
fn cstr_str(s: &'static CStr) -> &'static str {
    s.to_str().unwrap_or("")
}

/// `parts` joined into `buf` as a C string.
fn cstr_in<'a>(buf: &'a mut [u8; 128], parts: &[&str]) -> Result<&'a CStr, Failure> {
    let mut at = 0;
    for p in parts {
        let end = at + p.len();
        buf.get_mut(at..end)
            .ok_or(fail!("name too long"))?
            .copy_from_slice(p.as_bytes());
        at = end;
    }
    *buf.get_mut(at).ok_or(fail!("name too long"))? = 0;
    CStr::from_bytes_with_nul(&buf[..=at]).map_err(|_| fail!("name"))
}

/// Suite `sm4_ce_gcm`.
pub(crate) mod gcm {
    use super::*;

    fn gcm_vs_reference() -> TestResult {
        versus_reference(&GCM)
    }

    fn gcm_bad_input() -> TestResult {
        bad_input(&GCM)
    }

    fn gcm_long_ad() -> TestResult {
        long_ad(&GCM)
    }

    fn rfc4106_over_gcm() -> TestResult {
        rfc_template(&GCM, "rfc4106", 4)
    }

    fn gcm_sections_per_page() -> TestResult {
        sections_per_page(&GCM)
    }

    fn gcm_set_key_without_neon() -> TestResult {
        set_key_without_neon(&GCM)
    }

    suite!(
        sm4_ce_gcm,
        [
            gcm_vs_reference,
            gcm_bad_input,
            gcm_long_ad,
            rfc4106_over_gcm,
            gcm_sections_per_page,
            gcm_set_key_without_neon
        ]
    );
}

/// Suite `sm4_ce_ccm`.
pub(crate) mod ccm {
    use super::*;

    fn ccm_vs_reference() -> TestResult {
        versus_reference(&CCM)
    }

    fn ccm_bad_input() -> TestResult {
        bad_input(&CCM)
    }

    fn ccm_long_ad() -> TestResult {
        long_ad(&CCM)
    }

    fn rfc4309_over_ccm() -> TestResult {
        rfc_template(&CCM, "rfc4309", 3)
    }

    fn ccm_sections_per_page() -> TestResult {
        sections_per_page(&CCM)
    }

    fn ccm_set_key_without_neon() -> TestResult {
        set_key_without_neon(&CCM)
    }

    suite!(
        sm4_ce_ccm,
        [
            ccm_vs_reference,
            ccm_bad_input,
            ccm_long_ad,
            rfc4309_over_ccm,
            ccm_sections_per_page,
            ccm_set_key_without_neon
        ]
    );
}
