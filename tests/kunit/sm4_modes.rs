// SPDX-License-Identifier: GPL-2.0

// KUnit suite of an accelerated SM4 driver's modes, shared by the back ends: `include!`d by
// the test module (`tests/kunit/sm4_kunit_main.rs`) once per driver, into a module that
// names the back end's driver suffix as `SUFFIX` and its priority as `PRIORITY` and then
// declares the suite with `modes_suite!(name)`. The modes, their drivers and references
// come from the list of modes (`sm4/mode_list.rs`). The drivers are reached through the
// crypto API only, by driver name, so the production modules carry no test code; the suite
// is skipped where the driver is not loaded.
//
// Each mode is compared through the crypto API with the kernel's templates over upstream's C
// SM4 (the oracle, `oracle.rs`: `ecb(sm4-oracle)`, `cbc(sm4-oracle)`, `ctr(sm4-oracle)`,
// `cts(cbc(sm4-oracle))`, `xts(ecb(sm4-oracle))`), and CFB, which has no template any more,
// with `cfb-sm4-oracle` (CFB over the C block function) and OpenSSL's vectors. Lengths run
// from 0 past 4096, in place and out of place, over scatterlists of whole buffers, 1-byte
// pieces and mixed pieces; the IV each request leaves is compared too. A 16-page request
// in one piece must take at least one NEON section per page.

use crate::bindings;
use crate::crypto::{c_name, SECTION_MAY_SPAN_WALK};
use crate::kunit::{
    check, check_eq, check_ok, fail, in_matrix, skip_unless, suite, Failure, TestResult,
};
use crate::mode_list::DriverName;
use crate::sm4::vectors;
use crate::testing::{in_hard_irq, AlgParams, SkcipherTfm as Tfm};
use core::ffi::CStr;
use core::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use kernel::{alloc::flags::GFP_KERNEL, alloc::KBox, alloc::KVec};

use crate::rng::Rng;

/// A mode under test, as the list of modes declares it.
struct Mode {
    /// The algorithm.
    name: &'static CStr,
    /// The driver under test.
    driver: &'static CStr,
    /// The key size.
    key: usize,
    /// The IV size (0: none).
    iv: usize,
    /// The algorithm's block size.
    block: usize,
    /// The multiple that request lengths must be.
    unit: usize,
    /// What the driver is compared with.
    reference: Reference,
    /// Behind a Kconfig symbol (a `#[cfg]` in the list): a driver may lack it.
    optional: bool,
    /// A request takes one NEON section where the kernel lets a section span a walk
    /// (`request` in the list).
    one_section: bool,
}

/// Declares [`MODES`] from the list of modes.
macro_rules! modes_under_test {
    ($(
        $(#[$attr:meta])*
        $ty:ident: $alg:literal, $mode:literal, $key:literal, $iv:literal, $block:literal,
        $unit:literal, $reference:literal, $sections:ident;
    )*) => {
        /// The modes under test, in the list's order, with the drivers of `SUFFIX`.
        static MODES: &[Mode] = &[$(
            $(#[$attr])*
            Mode {
                name: c_name(concat!($alg, "\0")),
                driver: {
                    static NAME: DriverName = DriverName::new($mode, SUFFIX);
                    NAME.as_c_str()
                },
                key: $key,
                iv: $iv,
                block: $block,
                unit: $unit,
                reference: Reference(c_name(concat!($reference, "\0"))),
                optional: false $(|| !stringify!($attr).is_empty())*,
                one_section: matches!(stringify!($sections).as_bytes(), b"request"),
            },
        )*];
    };
}
crate::mode_list::with_modes!(modes_under_test);

/// The mode of algorithm `name`.
fn mode(name: &CStr) -> Result<&'static Mode, Failure> {
    MODES
        .iter()
        .find(|m| m.name == name)
        .ok_or(fail!("a mode the test needs is not in the list"))
}

/// Whether the driver has mode `m` (an optional mode is registered only with its Kconfig
/// symbol, in a kernel tree; out of tree always: the VM tests check that it is served).
fn has(m: &Mode) -> bool {
    !m.optional || Tfm::new(m.driver).is_ok()
}

/// Whether the driver under test is loaded (its suite is skipped otherwise).
fn present() -> bool {
    MODES.first().is_some_and(|m| Tfm::new(m.driver).is_ok())
}

fn vec_of(data: &[u8]) -> Result<KVec<u8>, Failure> {
    let mut v = KVec::with_capacity(data.len().max(1), GFP_KERNEL).map_err(|_| fail!("alloc"))?;
    v.extend_from_slice(data, GFP_KERNEL)
        .map_err(|_| fail!("alloc"))?;
    Ok(v)
}

/// The reference a driver is compared with: a kernel template instance over the oracle, or
/// the oracle's CFB.
#[derive(Clone, Copy)]
struct Reference(&'static CStr);

/// Request lengths: 0 to past 4096, block multiples and not.
const LENS: [usize; 27] = [
    0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 64, 80, 96, 100, 112, 127, 128, 129, 255, 256, 519, 1024,
    4095, 4096, 4097, 4111, 4160,
];

/// Scatterlist layouts: piece sizes (cycled) and whether the operation is in place.
const LAYOUTS: [(&[usize], bool); 5] = [
    (&[usize::MAX], false),
    (&[usize::MAX], true),
    (&[1], false),
    (&[1], true),
    (&[3, 16, 1, 29, 64, 7], false),
];

/// The output and IV of a request, or its error number.
type Outcome = Result<(KVec<u8>, [u8; 16]), i32>;

/// Runs `drv` (encrypting if `enc`) on `data` with `key` and `iv`, in `layout`; returns the
/// output and the IV left, or the error number.
fn run(
    drv: Reference,
    enc: bool,
    key: &[u8],
    iv: &[u8; 16],
    data: &[u8],
    layout: (&[usize], bool),
) -> Result<Outcome, Failure> {
    let mut ivout = *iv;
    let mut src = vec_of(data)?;
    let name = drv.0;
    let mut tfm = check_ok!(Tfm::new(name));
    if let Err(e) = tfm.set_key(key) {
        return Ok(Err(e.to_errno()));
    }
    let (pieces, in_place) = layout;
    let r = if in_place {
        if enc {
            tfm.encrypt(&mut src, None, &mut ivout, pieces)
        } else {
            tfm.decrypt(&mut src, None, &mut ivout, pieces)
        }
    } else {
        let mut dst = vec_of(data)?;
        dst.iter_mut().for_each(|b| *b = 0xa5);
        let r = if enc {
            tfm.encrypt(&mut src, Some(&mut dst), &mut ivout, pieces)
        } else {
            tfm.decrypt(&mut src, Some(&mut dst), &mut ivout, pieces)
        };
        src = dst;
        r
    };
    Ok(r.map(|()| (src, ivout)).map_err(|e| e.to_errno()))
}

/// Compares the driver `ours` with `reference` over all lengths and layouts, both
/// directions, and checks that decryption undoes encryption. (The reference runs once per
/// length and direction, on whole buffers: how a request is cut changes nothing in what it
/// gives, and it is the slow side, C over the kernel's templates.)
fn differential(
    ours: &'static CStr,
    reference: Reference,
    key_len: usize,
    seed: u64,
) -> TestResult {
    let mut rng = Rng(seed);
    let mut key = [0u8; 32];
    let mut iv = [0u8; 16];
    let mut data = KVec::from_elem(0u8, 4160, GFP_KERNEL).map_err(|_| fail!("alloc"))?;
    for (i, &len) in LENS.iter().enumerate() {
        rng.fill(&mut key[..key_len]);
        rng.fill(&mut iv);
        rng.fill(&mut data[..len]);
        if !in_matrix(i) {
            continue;
        }
        let key = &key[..key_len];
        for enc in [true, false] {
            let b = run(reference, enc, key, &iv, &data[..len], LAYOUTS[0])?;
            for &layout in LAYOUTS.iter() {
                // 1-byte pieces over long requests add nothing but time.
                if layout.0 == [1] && len > 600 && len != 4097 {
                    continue;
                }
                let a = run(Reference(ours), enc, key, &iv, &data[..len], layout)?;
                match (&a, &b) {
                    (Ok((out_a, iv_a)), Ok((out_b, iv_b))) => {
                        if out_a[..] != out_b[..] || iv_a != iv_b {
                            kernel::pr_err!(
                                "    # {:?} differs from the reference: \
                                 len {} enc {} in-place {} pieces {:?}\n",
                                ours,
                                len,
                                enc,
                                layout.1,
                                layout.0
                            );
                        }
                        check!(out_a[..] == out_b[..]);
                        check_eq!(iv_a, iv_b);
                        if enc {
                            // Decrypting what we encrypted gives the data back.
                            let back = run(Reference(ours), false, key, &iv, out_a, layout)?;
                            let back = check_ok!(back);
                            check!(back.0[..] == data[..len]);
                        }
                    }
                    (Err(ea), Err(eb)) => check_eq!(ea, eb),
                    _ => {
                        kernel::pr_err!(
                            "    # {:?}: len {} enc {}: ours {:?}, reference {:?}\n",
                            ours,
                            len,
                            enc,
                            a.as_ref().map(|_| ()),
                            b.as_ref().map(|_| ())
                        );
                        return Err(fail!("success or failure differs from the reference"));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Each mode of the list against its reference (see [`differential`]).
fn modes_vs_oracle() -> TestResult {
    skip_unless!(present(), "the driver is not loaded");
    for (i, m) in MODES.iter().enumerate() {
        if !has(m) {
            kernel::pr_info!(
                "    # {:?}: not registered (a Kconfig symbol), not tested\n",
                m.name
            );
            continue;
        }
        differential(m.driver, m.reference, m.key, 0x5eed_0002 + i as u64)?;
    }
    Ok(())
}

/// Keys set where NEON may not be used (in hard interrupt context, as by a caller with
/// interrupts off: the key schedule in Rust) give what the oracle gives, in each mode, both
/// directions, over several blocks and a tail.
fn set_key_without_neon() -> TestResult {
    skip_unless!(present(), "the driver is not loaded");
    let mut rng = Rng(0x5eed_000b);
    let (mut key, mut iv, mut data) = ([0u8; 32], [0u8; 16], [0u8; 100]);
    rng.fill(&mut key);
    rng.fill(&mut iv);
    rng.fill(&mut data);
    for m in MODES.iter().filter(|m| has(m)) {
        let (drv, reference) = (m.driver, m.reference);
        // (Several blocks, and a tail where the mode takes one.)
        let len = if m.unit > 1 { 96 } else { 100 };
        let key = &key[..m.key];
        let mut tfm = check_ok!(Tfm::new(drv));
        let mut keyed = None;
        check!(in_hard_irq(|| keyed = Some(tfm.set_key(key).is_ok())).is_ok());
        check_eq!(keyed, Some(true));
        for enc in [true, false] {
            let want = run(reference, enc, key, &iv, &data[..len], LAYOUTS[0])?;
            let want = check_ok!(want);
            let mut buf = vec_of(&data[..len])?;
            let mut ivout = iv;
            let r = if enc {
                tfm.encrypt(&mut buf, None, &mut ivout, &[usize::MAX])
            } else {
                tfm.decrypt(&mut buf, None, &mut ivout, &[usize::MAX])
            };
            check!(r.is_ok());
            if buf[..] != want.0[..] || ivout != want.1 {
                kernel::pr_err!("    # {:?}, encrypt: {}\n", drv, enc);
                return Err(fail!("a key set without NEON gives another result"));
            }
        }
    }
    Ok(())
}

/// OpenSSL's CFB vectors, whole blocks and a partial last block, both directions.
fn cfb_vectors() -> TestResult {
    skip_unless!(present(), "the driver is not loaded");
    let cfb = MODES.iter().find(|m| m.name == c"cfb(sm4)" && has(m));
    skip_unless!(
        cfb.is_some(),
        "the driver has no cfb(sm4) (CRYPTO_SM4_RUST_CFB)"
    );
    let Some(cfb) = cfb else {
        return Err(fail!("no cfb(sm4)"));
    };
    let iv0: [u8; 16] = core::array::from_fn(|i| i as u8);
    let pt: [u8; 64] = core::array::from_fn(|i| i as u8);
    for len in [64usize, 37, 5] {
        for layout in [LAYOUTS[0], LAYOUTS[3]] {
            let ct = run(
                Reference(cfb.driver),
                true,
                &vectors::STD_KEY,
                &iv0,
                &pt[..len],
                layout,
            )?;
            let ct = check_ok!(ct);
            check!(ct.0[..] == vectors::CFB_CT[..len]);
            let back = run(
                Reference(cfb.driver),
                false,
                &vectors::STD_KEY,
                &iv0,
                &vectors::CFB_CT[..len],
                layout,
            )?;
            let back = check_ok!(back);
            check!(back.0[..] == pt[..len]);
        }
    }
    Ok(())
}

/// The 128-bit counter carries: from all-ones, and across the low half within a stride.
fn ctr_counter_wrap() -> TestResult {
    skip_unless!(present(), "the driver is not loaded");
    let ctr = mode(c"ctr(sm4)")?;
    let mut data = [0u8; 20 * 16 + 5];
    Rng(0x5eed_0008).fill(&mut data);
    let key = [0x42u8; 16];
    let mut ivs = [[0xffu8; 16]; 4];
    ivs[1][..8].copy_from_slice(&[0, 0, 0, 0, 0, 0, 0, 7]);
    ivs[1][8..].copy_from_slice(&(u64::MAX - 3).to_be_bytes());
    ivs[2][..8].copy_from_slice(&[0x12; 8]);
    ivs[2][8..].copy_from_slice(&(u64::MAX - 8).to_be_bytes());
    ivs[3] = [0; 16];
    ivs[3][..8].copy_from_slice(&u64::MAX.to_be_bytes());
    ivs[3][8..].copy_from_slice(&(u64::MAX - 12).to_be_bytes());
    for iv in ivs.iter() {
        for len in [data.len(), 16 * 9, 16] {
            let a = run(
                Reference(ctr.driver),
                true,
                &key,
                iv,
                &data[..len],
                LAYOUTS[0],
            )?;
            let b = run(ctr.reference, true, &key, iv, &data[..len], LAYOUTS[0])?;
            let (a, b) = (check_ok!(a), check_ok!(b));
            check!(a.0[..] == b.0[..]);
            check_eq!(a.1, b.1);
        }
    }
    Ok(())
}

/// Bad input is refused with -EINVAL, without an oops.
fn bad_inputs() -> TestResult {
    skip_unless!(present(), "the driver is not loaded");
    const EINVAL: i32 = -22;
    let iv = [0u8; 16];
    let data = [0u8; 64];
    // Wrong key lengths.
    for m in MODES.iter().filter(|m| has(m)) {
        let (drv, good) = (m.driver, m.key);
        let mut tfm = check_ok!(Tfm::new(drv));
        for len in [0usize, 1, 15, 17, 24, 31, 33, 48, 64] {
            if len == good {
                continue;
            }
            let key = [7u8; 64];
            check_eq!(
                tfm.set_key(&key[..len]).map_err(|e| e.to_errno()),
                Err(EINVAL)
            );
        }
        check!(tfm.set_key(&[7u8; 64][..good]).is_ok());
    }
    // XTS with equal halves: refused when weak keys are forbidden, accepted otherwise.
    let mut tfm = check_ok!(Tfm::new(mode(c"xts(sm4)")?.driver));
    let same = [0x33u8; 32];
    check!(tfm.set_key(&same).is_ok());
    tfm.forbid_weak_keys(true);
    check_eq!(tfm.set_key(&same).map_err(|e| e.to_errno()), Err(EINVAL));
    // Requests shorter than the block size, or not whole units.
    for m in MODES.iter().filter(|m| has(m)) {
        let (drv, key_len) = (m.driver, m.key);
        let short = [1, m.block - 1].into_iter().filter(|_| m.block > 1);
        let partial = [m.unit + 1, 2 * m.unit - 1, 4 * m.unit - 1]
            .into_iter()
            .filter(|_| m.unit > 1);
        for len in short.chain(partial) {
            let key: [u8; 32] = core::array::from_fn(|i| i as u8);
            for enc in [true, false] {
                let r = run(
                    Reference(drv),
                    enc,
                    &key[..key_len],
                    &iv,
                    &data[..len],
                    LAYOUTS[0],
                )?;
                check_eq!(r.map(|_| ()), Err(EINVAL));
            }
        }
    }
    Ok(())
}

/// ECB with a NULL IV (ECB has none; testmgr and most callers pass NULL): the same as the
/// template over the oracle, in both directions.
fn ecb_null_iv() -> TestResult {
    skip_unless!(present(), "the driver is not loaded");
    let mut data = [0u8; 4 * 16];
    Rng(0x5eed_0009).fill(&mut data);
    let key = vectors::STD_KEY;
    let ecb = mode(c"ecb(sm4)")?;
    for enc in [true, false] {
        let mut out = [KVec::new(), KVec::new()];
        for (o, name) in out.iter_mut().zip([ecb.driver, ecb.reference.0]) {
            let mut tfm = check_ok!(Tfm::new(name));
            check!(tfm.set_key(&key).is_ok());
            let mut buf = vec_of(&data)?;
            let r = if enc {
                tfm.encrypt(&mut buf, None, &mut [], LAYOUTS[0].0)
            } else {
                tfm.decrypt(&mut buf, None, &mut [], LAYOUTS[0].0)
            };
            check!(r.is_ok());
            *o = buf;
        }
        check!(out[0][..] == out[1][..]);
        check!(out[0][..] != data[..]);
    }
    Ok(())
}

/// What each driver registered: the crypto API's clients (dm-crypt, fscrypt, AF_ALG) size
/// their buffers, IVs and keys and split their requests from these.
fn driver_parameters() -> TestResult {
    skip_unless!(present(), "the driver is not loaded");
    // The sizes the reference registered (the kernel's templates over the oracle) and the
    // list declares, the walk size a multiple of the chunk size, synchronous, the back end's
    // priority.
    for m in MODES.iter().filter(|m| has(m)) {
        let drv = m.driver;
        let tfm = check_ok!(Tfm::new(drv));
        check!(tfm.driver_name() == drv);
        let p: AlgParams = tfm.params();
        let r: AlgParams = check_ok!(Tfm::new(m.reference.0)).params();
        if p.priority != PRIORITY
            || p.block_size != r.block_size
            || p.chunk_size != r.chunk_size
            || p.iv_size != r.iv_size
            || p.min_key != r.min_key
            || p.max_key != r.max_key
            || p.block_size as usize != m.block
            || p.iv_size as usize != m.iv
            || p.min_key as usize != m.key
            || p.max_key as usize != m.key
            || p.async_
            || p.walk_size < p.chunk_size
            || p.walk_size % p.chunk_size != 0
        {
            kernel::pr_err!("    # {:?}: registered {:?}, reference {:?}\n", drv, p, r);
            return Err(fail!("a driver registered the wrong parameters"));
        }
    }
    Ok(())
}

/// A kprobe on a function that counts the calls the test's task makes to it.
#[repr(C)]
struct Probe {
    /// First, so that the handler finds the count from the kprobe.
    kp: bindings::kprobe,
    hits: AtomicUsize,
    /// The output watched ([`CallCounter::watch`]): at each call, how far the buffer at
    /// `out` already holds what `want` holds, in whole blocks.
    out: AtomicPtr<u8>,
    want: AtomicPtr<u8>,
    len: AtomicUsize,
    /// How far the output was done at the last call.
    done: AtomicUsize,
    /// The most output done between two calls.
    widest: AtomicUsize,
}

/// Whether the 16 bytes at `a` and `b` are the same (`a` read afresh: the buffer of a
/// request that runs around the kprobe).
///
/// # Safety
///
/// Both must be readable for 16 bytes.
unsafe fn same_block(a: *const u8, b: *const u8) -> bool {
    let mut same = true;
    for i in 0..16 {
        // SAFETY: both are readable for 16 bytes (caller).
        same &= unsafe { core::ptr::read_volatile(a.add(i)) == b.add(i).read() };
    }
    same
}

/// A [`Probe`], registered while this lives.
pub(crate) struct CallCounter {
    probe: KBox<Probe>,
}

/// The task whose calls are counted.
static COUNTED_TASK: AtomicPtr<core::ffi::c_void> = AtomicPtr::new(core::ptr::null_mut());

/// The kprobe's pre-handler: counts a call of the counted task.
///
/// # Safety
///
/// Called by the kprobe machinery with a kprobe of a [`Probe`].
unsafe extern "C" fn count_call(
    p: *mut bindings::kprobe,
    _regs: *mut bindings::pt_regs,
) -> core::ffi::c_int {
    // Only the task's own calls: not those of an interrupt or softirq that ran on it.
    // SAFETY: reads the context.
    let in_task = unsafe { bindings::in_task() };
    // SAFETY: reads the current task pointer.
    let task = unsafe { bindings::current_task() };
    if in_task && task == COUNTED_TASK.load(Ordering::Relaxed) {
        // SAFETY: `p` is the first field of a live `Probe` (`repr(C)`), see `start`.
        let probe = unsafe { &*p.cast::<Probe>() };
        probe.hits.fetch_add(1, Ordering::Relaxed);
        let (out, want) = (
            probe.out.load(Ordering::Relaxed),
            probe.want.load(Ordering::Relaxed),
        );
        if !out.is_null() {
            let len = probe.len.load(Ordering::Relaxed);
            let last = probe.done.load(Ordering::Relaxed);
            let mut done = last;
            while done + 16 <= len
                // SAFETY: `out` and `want` are `len` bytes that live while they are watched
                // ([`CallCounter::watch`]); `out` is written only by this task, which is here.
                && unsafe { same_block(out.add(done), want.add(done)) }
            {
                done += 16;
            }
            probe.done.store(done, Ordering::Relaxed);
            probe.widest.fetch_max(done - last, Ordering::Relaxed);
        }
    }
    0
}

impl CallCounter {
    /// Starts counting the calls of the current task to `symbol`.
    fn start(symbol: &'static CStr) -> Result<Self, Failure> {
        let probe = Probe {
            // SAFETY: all zeros is an unregistered kprobe with no handler.
            kp: unsafe { core::mem::zeroed::<bindings::kprobe>() },
            hits: AtomicUsize::new(0),
            out: AtomicPtr::new(core::ptr::null_mut()),
            want: AtomicPtr::new(core::ptr::null_mut()),
            len: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            widest: AtomicUsize::new(0),
        };
        let mut probe = KBox::new(probe, GFP_KERNEL).map_err(|_| fail!("alloc"))?;
        probe.kp.symbol_name = crate::crypto::c_str_ptr(symbol);
        probe.kp.pre_handler = Some(count_call);
        // SAFETY: reads the current task pointer.
        COUNTED_TASK.store(unsafe { bindings::current_task() }, Ordering::Relaxed);
        // SAFETY: `probe.kp` is a valid kprobe, the first field of a `Probe`, that stays
        // allocated until `unregister_kprobe` in `drop`.
        match unsafe { bindings::register_kprobe(&mut probe.kp) } {
            0 => {}
            // Kernels without kprobes cannot count.
            -95 => {
                return Err(Failure {
                    skip: true,
                    ..fail!("no kprobes (CONFIG_KPROBES) to count calls with")
                })
            }
            _ => {
                kernel::pr_err!("    # register_kprobe({:?}) failed\n", symbol);
                return Err(fail!("register_kprobe failed"));
            }
        }
        Ok(Self { probe })
    }

    /// Starts counting the current task's NEON sections (calls of `kernel_neon_begin()`).
    pub(crate) fn sections() -> Result<Self, Failure> {
        Self::start(c"kernel_neon_begin")
    }

    /// The calls counted so far.
    pub(crate) fn count(&self) -> usize {
        self.probe.hits.load(Ordering::Relaxed)
    }

    /// From now on, at each call, measures how much of `want` the buffer at `out` (`len`
    /// bytes, the destination of the request that runs next) already holds, so that
    /// [`CallCounter::widest`] tells the most output done between two calls.
    ///
    /// # Safety
    ///
    /// `out` and `want` must be readable for `want.len()` bytes until this counter is
    /// dropped, and `out` written only by the current task meanwhile.
    unsafe fn watch(&self, out: *const u8, want: &[u8]) {
        self.probe.len.store(want.len(), Ordering::Relaxed);
        self.probe
            .want
            .store(want.as_ptr().cast_mut(), Ordering::Relaxed);
        self.probe.out.store(out.cast_mut(), Ordering::Relaxed);
    }

    /// The most output done between two counted calls, or after the last one, once the
    /// request watched has ended: with `kernel_neon_begin()`, the most bytes one NEON
    /// section handled.
    fn widest(&self) -> usize {
        let p = &self.probe;
        p.widest
            .load(Ordering::Relaxed)
            .max(p.len.load(Ordering::Relaxed) - p.done.load(Ordering::Relaxed))
    }
}

impl Drop for CallCounter {
    fn drop(&mut self) {
        // SAFETY: registered in `start`.
        unsafe { bindings::unregister_kprobe(&mut self.probe.kp) };
    }
}

/// NEON sections follow the kernel's rule: over a 16-page request in one piece of memory
/// (one scatterlist entry, as dm-crypt and fscrypt give), no section handles more than a
/// page (the output done between two calls of `kernel_neon_begin()`, or after the last,
/// measured by the kprobe that counts them), and there are at least as many sections as
/// pages, in either direction (CBC and CTS encryption are the serial routines), whether
/// the caller may sleep or not, and the result is still the oracle's; but a mode whose
/// requests take one section (`request` in the list of modes) takes exactly one where the
/// kernel lets a section span a walk (`SECTION_MAY_SPAN_WALK`, 7.3). A one-block request
/// takes one section.
fn neon_sections_per_page() -> TestResult {
    skip_unless!(present(), "the driver is not loaded");
    const PAGE: usize = bindings::PAGE_SIZE;
    // (16 pages prove a per-page bound as well as 256 would, at a sixteenth of the time
    // under KASAN: the reference is upstream's C through the templates.)
    const PAGES: usize = 16;
    const LEN: usize = PAGES * PAGE;
    // (One kmalloc'd piece of memory: it may not be had on a fragmented machine.)
    let data = KVec::from_elem(0u8, LEN, GFP_KERNEL);
    skip_unless!(data.is_ok(), "no 16 pages of contiguous memory");
    let mut data = check_ok!(data);
    Rng(0x5eed_000a).fill(&mut data);
    let key = [0x6bu8; 32];
    for m in MODES.iter().filter(|m| has(m)) {
        let (drv, reference, key_len) = (m.driver, m.reference, m.key);
        let iv = [0x24u8; 16];
        for enc in [false, true] {
            let want = run(reference, enc, &key[..key_len], &iv, &data, LAYOUTS[1])?;
            let want = check_ok!(want);
            for may_sleep in [false, true] {
                let mut tfm = check_ok!(Tfm::new(drv));
                check!(tfm.set_key(&key[..key_len]).is_ok());
                let mut buf = vec_of(&data)?;
                let counter = CallCounter::sections()?;
                // SAFETY: `buf` and `want` outlive `counter`; only this task writes `buf`.
                unsafe { counter.watch(buf.as_ptr(), &want.0) };
                {
                    let mut req = check_ok!(tfm.request(&mut buf, None, &iv, &[usize::MAX]));
                    req.set_may_sleep(may_sleep);
                    check!(if enc { req.encrypt() } else { req.decrypt() }.is_ok());
                }
                let (sections, widest) = (counter.count(), counter.widest());
                drop(counter);
                let spans = m.one_section && SECTION_MAY_SPAN_WALK;
                let bounded = if spans {
                    sections == 1
                } else {
                    sections >= PAGES && widest <= PAGE
                };
                if !bounded {
                    kernel::pr_err!(
                        "    # {:?}: {} NEON sections for {} pages, at most {} bytes in one \
                         (encrypt: {}, may sleep: {}, one section expected: {})\n",
                        drv,
                        sections,
                        PAGES,
                        widest,
                        enc,
                        may_sleep,
                        spans
                    );
                    return Err(fail!("NEON sections not as the kernel's rule shapes them"));
                }
                check!(buf[..] == want.0[..]);
            }
        }
    }
    // One block, one section.
    let mut tfm = check_ok!(Tfm::new(mode(c"ecb(sm4)")?.driver));
    check!(tfm.set_key(&key[..16]).is_ok());
    let mut block = vec_of(&data[..16])?;
    let counter = CallCounter::sections()?;
    check!(tfm
        .encrypt(&mut block, None, &mut [], &[usize::MAX])
        .is_ok());
    check_eq!(counter.count(), 1);
    Ok(())
}

/// Declares the suite, named `$suite` by the including module.
macro_rules! modes_suite {
    ($suite:ident) => {
        suite!(
            $suite,
            [
                driver_parameters,
                ecb_null_iv,
                modes_vs_oracle,
                cfb_vectors,
                ctr_counter_wrap,
                bad_inputs,
                neon_sections_per_page,
                set_key_without_neon
            ]
        );
    };
}
