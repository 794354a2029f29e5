// SPDX-License-Identifier: GPL-2.0

//! Suite `sm4_abstraction`: what the crypto abstraction promises to safe code.
//!
//! - A registration (cipher, skcipher, shash) dropped while a transform of its algorithm is
//!   alive (safe code can do that) must not free what the transform still uses: the
//!   transform keeps working and KASAN sees no use after free. (Linux 6.12 warns once per
//!   such algorithm; later kernels do not.)
//! - Requests in hard interrupt context, where `kernel_neon_begin()` would hit `BUG_ON()`:
//!   the `sm4-ce` cipher falls back to its code without NEON, and the skciphers fail with
//!   `EDEADLK`, leaving the data as it was (in-place CTS decryption included, whose blocks
//!   are swapped before the cipher runs).
//! - NEON sections that would nest, in task context and in a softirq: a section opened by a
//!   test algorithm runs requests of another test algorithm and of the drivers under test,
//!   which must be refused (`EDEADLK`, the cipher falls back) without touching the outer
//!   section's registers.
//! - With the self-tests' switch set (`crypto_simd_usable()` false on this CPU), a crypto API
//!   callback's `Simd` refuses NEON, and another code's does not.
//! - `wipe` zeroes every byte it is given, at every alignment, and nothing else.
//! - An AEAD's associated data, once a piece of it was handed out, is not handed out whole:
//!   the piece is still mapped and the walk has not moved past it.
//! - `AssocBlocks` turns associated data in pieces of any length into its blocks, the last
//!   padded with zeros, as GHASH and CBC-MAC take them.
//!
//! The kernel warnings these cases provoke are announced on the console between
//! `SM4RS-EXPECT-WARN-BEGIN <at most> <function> <why>` and `SM4RS-EXPECT-WARN-END`: the test
//! runner excuses at most that many warnings raised in that function there, and nothing else.

use crate::bindings;
use crate::crypto::{
    aead::{self, Aead, AssocBlocks},
    alg::Key,
    cipher::{self, BlockIo, Cipher},
    edeadlk,
    shash::{self, PlainState, Shash},
    skcipher::{self, Request, Skcipher},
    Input, Simd,
};
use crate::kunit::{check, check_eq, check_ok, fail, skip_unless, suite, Failure, TestResult};
use crate::oracle::OracleKey;
use crate::sm4::{self, vectors};
use crate::testing::{in_hard_irq, AeadOp, AeadTfm, CipherTfm, ShashTfm, SkcipherTfm, TestRequest};

use core::ffi::CStr;
use core::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, Ordering};
use kernel::{
    alloc::{flags::GFP_KERNEL, KBox, KVec},
    error::code::{EINVAL, EIO},
    prelude::*,
};

/// Whether the abstraction's mark of sections opened in a softirq is shared by every module
/// that uses it: so in the kernel tree (one copy of the abstraction), not out of tree, where
/// each module carries its own copy (and only nesting within one module is seen there).
// sm4rs-oot-begin
const SHARED_SOFTIRQ_MARK: bool = false;
// sm4rs-oot-end
// (With `CONFIG_RUST_INLINE_HELPERS`, each module gets its own copy of the helpers too.)
// sm4rs-in-tree: const SHARED_SOFTIRQ_MARK: bool = !cfg!(CONFIG_RUST_INLINE_HELPERS);

/// A cipher of this test module: SM4 (the oracle's) under a name of its own.
struct TestCipher;

impl Cipher for TestCipher {
    const NAME: &'static CStr = c"sm4rs-test";
    const DRIVER_NAME: &'static CStr = c"sm4rs-test-cipher";
    const PRIORITY: i32 = 0;
    const MIN_KEY_SIZE: u32 = 16;
    const MAX_KEY_SIZE: u32 = 16;

    type Block = sm4::Block;
    type Context = OracleKey;

    fn set_key(ctx: &mut OracleKey, key: &[u8], _: &mut Simd) -> Result {
        ctx.set(key)
    }

    fn encrypt(ctx: &OracleKey, block: &mut BlockIo<'_, sm4::Block>, _: &mut Simd) {
        ctx.encrypt(block.in_place());
    }

    fn decrypt(ctx: &OracleKey, block: &mut BlockIo<'_, sm4::Block>, _: &mut Simd) {
        ctx.decrypt(block.in_place());
    }
}

/// An skcipher of this test module: ECB over the oracle's SM4, under a name of its own.
struct TestSkcipher;

impl Skcipher for TestSkcipher {
    const NAME: &'static CStr = c"ecb(sm4rs-test)";
    const DRIVER_NAME: &'static CStr = c"sm4rs-test-ecb";
    const PRIORITY: i32 = 0;
    const BLOCK_SIZE: u32 = 16;
    const MIN_KEY_SIZE: u32 = 16;
    const MAX_KEY_SIZE: u32 = 16;

    type Iv = [u8; 0];
    type Context = OracleKey;

    fn set_key(ctx: &mut OracleKey, key: &Key<'_>, _: &mut Simd) -> Result {
        ctx.set(key.bytes())
    }

    fn encrypt(ctx: &OracleKey, req: &mut Request<'_, [u8; 0]>, simd: &mut Simd) -> Result {
        ecb(ctx, req, simd, true)
    }

    fn decrypt(ctx: &OracleKey, req: &mut Request<'_, [u8; 0]>, simd: &mut Simd) -> Result {
        ecb(ctx, req, simd, false)
    }
}

/// ECB a block at a time with the oracle.
fn ecb(key: &OracleKey, req: &mut Request<'_, [u8; 0]>, simd: &mut Simd, enc: bool) -> Result {
    let mut walk = req.walk(simd);
    while let Some(mut step) = walk.next()? {
        let (mut io, _, _) = step.parts();
        let whole = io.len() / 16 * 16;
        let mut off = 0;
        while off < whole {
            let mut part = io.range(off, 16);
            let mut b = [0u8; 16];
            part.read(&mut b);
            if enc {
                key.encrypt(&mut b);
            } else {
                key.decrypt(&mut b);
            }
            part.write(&b);
            off += 16;
        }
        let left = io.len() - whole;
        step.leave(left);
    }
    Ok(())
}

/// The state of [`TestMac`]: the CBC-MAC so far (whole blocks only).
#[derive(Clone, Copy)]
#[repr(C)]
struct TestMacState([u8; 16]);

// SAFETY: a byte array: no padding, no `Drop`, every value valid.
unsafe impl PlainState for TestMacState {}

/// A hash of this test module: CBC-MAC over the oracle's SM4 of whole blocks (the bytes of
/// a partial last block are ignored), under a name of its own.
struct TestMac;

impl Shash for TestMac {
    const NAME: &'static CStr = c"sm4rs-test-mac";
    const DRIVER_NAME: &'static CStr = c"sm4rs-test-mac-oracle";
    const PRIORITY: i32 = 0;
    const BLOCK_SIZE: u32 = 16;
    const FINAL_NONZERO: bool = false;

    type Digest = [u8; 16];
    type Key = OracleKey;
    type State = TestMacState;

    fn set_key(key: &mut OracleKey, bytes: &[u8], _: &mut Simd) -> Result {
        key.set(bytes)
    }

    fn init(_: &OracleKey) -> TestMacState {
        TestMacState([0; 16])
    }

    fn update(key: &OracleKey, st: &mut TestMacState, blocks: Input<'_>, _: &mut Simd) {
        let mut off = 0;
        while off + 16 <= blocks.len() {
            let mut b = [0u8; 16];
            blocks.read_at(off, &mut b);
            for (m, x) in st.0.iter_mut().zip(b) {
                *m ^= x;
            }
            key.encrypt(&mut st.0);
            off += 16;
        }
    }

    fn finup(_: &OracleKey, st: &mut TestMacState, _: Input<'_>, out: &mut [u8; 16], _: &mut Simd) {
        *out = st.0;
    }
}

/// Announces that the kernel may warn, at most `max` times, in `site` (a function name),
/// until [`expect_warn_end`].
fn expect_warn_begin(max: u32, site: &str, why: &str) {
    pr_info!("SM4RS-EXPECT-WARN-BEGIN {} {} {}\n", max, site, why);
}

/// Ends what [`expect_warn_begin`] announced.
fn expect_warn_end() {
    pr_info!("SM4RS-EXPECT-WARN-END\n");
}

/// Drops `reg`, whose `algs` algorithms the test has used: the crypto manager tests a new
/// algorithm in the background (registration does not wait for it) and holds it until it is
/// done, a little after a transform of it can be allocated; unregistered before that, which
/// the test cannot see, Linux 6.12 warns, once per algorithm (announced here).
fn drop_tested<T>(reg: T, algs: u32) {
    expect_warn_begin(
        algs,
        "crypto_unregister_alg",
        "an algorithm unregistered during its self-test",
    );
    drop(reg);
    expect_warn_end();
}

/// Drops `reg` while a transform of its algorithm is alive, announcing the warning Linux
/// 6.12 gives for it.
fn drop_in_use<T>(reg: T) {
    expect_warn_begin(
        1,
        "crypto_unregister_alg",
        "an algorithm unregistered in use",
    );
    drop(reg);
    expect_warn_end();
}

/// Registers a test cipher, skcipher and hash, takes a transform of each, drops the
/// registrations, and goes on using the transforms (under KASAN: nothing was freed under
/// them); the algorithms are gone from the API meanwhile.
fn registration_dropped_while_in_use() -> TestResult {
    let module = crate::kunit::this_module()?;
    let key = vectors::STD_KEY;
    // Cipher.
    let reg = check_ok!(cipher::Registration::new(
        module,
        [cipher::alg::<TestCipher>()]
    ));
    let mut tfm = check_ok!(CipherTfm::new(c"sm4rs-test-cipher"));
    check!(tfm.set_key(&key).is_ok());
    drop_in_use(reg);
    check!(CipherTfm::new(c"sm4rs-test-cipher").is_err());
    let mut b = vectors::STD_KEY;
    check!(tfm.encrypt(&mut b).is_ok());
    check_eq!(b, vectors::STD_CT);
    check!(tfm.set_key(&[0x11; 16]).is_ok());
    drop(tfm);
    // Skcipher.
    let reg = check_ok!(skcipher::Registration::new(
        module,
        [skcipher::alg::<TestSkcipher>()]
    ));
    let mut tfm = check_ok!(SkcipherTfm::new(c"sm4rs-test-ecb"));
    check!(tfm.set_key(&key).is_ok());
    drop_in_use(reg);
    check!(SkcipherTfm::new(c"sm4rs-test-ecb").is_err());
    let mut buf = check_ok!(KVec::from_elem(0u8, 32, GFP_KERNEL));
    buf[..16].copy_from_slice(&key);
    buf[16..].copy_from_slice(&key);
    check!(tfm.encrypt(&mut buf, None, &mut [], &[usize::MAX]).is_ok());
    check!(buf[..16] == vectors::STD_CT && buf[16..] == vectors::STD_CT);
    drop(tfm);
    // Shash.
    let reg = check_ok!(shash::Registration::new(module, [shash::alg::<TestMac>()]));
    let mut tfm = check_ok!(ShashTfm::new(c"sm4rs-test-mac-oracle"));
    check!(tfm.set_key(&key).is_ok());
    drop_in_use(reg);
    check!(ShashTfm::new(c"sm4rs-test-mac-oracle").is_err());
    let mut mac = [0u8; 16];
    check!(tfm.digest(&key, &[], &mut mac).is_ok());
    check_eq!(mac, vectors::STD_CT);
    drop(tfm);
    Ok(())
}

/// A registration that fails (a driver name already registered: the C driver of the same
/// name may be loaded) leaves nothing behind and frees nothing twice (under KASAN), alone
/// and as the second of two descriptions registered together (the first is then
/// unregistered again).
fn registration_failure_is_clean() -> TestResult {
    const EEXIST: i32 = -17;
    let module = crate::kunit::this_module()?;
    let first = check_ok!(cipher::Registration::new(
        module,
        [cipher::alg::<TestCipher>()]
    ));
    let again = cipher::Registration::new(module, [cipher::alg::<TestCipher>()]);
    check_eq!(again.map(|_| ()).map_err(|e| e.to_errno()), Err(EEXIST));
    // (The first of the pair is unregistered again while the crypto manager may still be
    // testing it: then Linux 6.12 warns, once. The test module is live, so the description
    // keeps its `cra_destroy`, and 7.3 does not.)
    expect_warn_begin(
        1,
        "crypto_unregister_alg",
        "an algorithm unregistered during its self-test",
    );
    let pair = skcipher::Registration::new(
        module,
        [
            skcipher::alg::<TestSkcipher>(),
            skcipher::alg::<TestSkcipher>(),
        ],
    );
    expect_warn_end();
    check_eq!(pair.map(|_| ()).map_err(|e| e.to_errno()), Err(EEXIST));
    check!(SkcipherTfm::new(c"sm4rs-test-ecb").is_err());
    // The first registration still works, and goes cleanly.
    let mut t = check_ok!(CipherTfm::new(c"sm4rs-test-cipher"));
    check!(t.set_key(&vectors::STD_KEY).is_ok());
    let mut b = vectors::STD_KEY;
    check!(t.encrypt(&mut b).is_ok());
    check_eq!(b, vectors::STD_CT);
    drop(t);
    drop(first);
    check!(CipherTfm::new(c"sm4rs-test-cipher").is_err());
    Ok(())
}

/// A NULL key of length 0, which C callers may pass to a cipher's or a hash's `setkey` (the
/// API checks no length for them), is refused with `EINVAL` and never made into a slice
/// (which Rust's debug assertions would stop as undefined behaviour).
fn null_key_refused() -> TestResult {
    const EINVAL: i32 = -22;
    let module = crate::kunit::this_module()?;
    let c = check_ok!(cipher::Registration::new(
        module,
        [cipher::alg::<TestCipher>()]
    ));
    let h = check_ok!(shash::Registration::new(module, [shash::alg::<TestMac>()]));
    for name in [c"sm4rs-test-cipher", c"sm4-generic", c"sm4-ce"] {
        if let Ok(mut t) = CipherTfm::new(name) {
            check_eq!(t.set_null_key().map_err(|e| e.to_errno()), Err(EINVAL));
        }
    }
    for name in [
        c"sm4rs-test-mac-oracle",
        c"cmac-sm4-ce",
        c"xcbc-sm4-ce",
        c"cbcmac-sm4-ce",
    ] {
        if let Ok(mut t) = ShashTfm::new(name) {
            check_eq!(t.set_null_key().map_err(|e| e.to_errno()), Err(EINVAL));
        }
    }
    // (The hash's registration first, as before.)
    drop_tested((h, c), 2);
    Ok(())
}

/// The SM4 drivers in hard interrupt context: the `sm4-ce` cipher gives the right answer
/// without NEON; `xts(sm4)`, `ecb(sm4)` and in-place `cts(cbc(sm4))` decryption (whatever
/// serves them) fail with `EDEADLK` instead of reaching `kernel_neon_begin()`, in one piece
/// and in several, and leave the data as it was.
fn requests_in_hard_irq() -> TestResult {
    const EDEADLK: i32 = -35;
    let key = [0x24u8; 32];
    // Everything is allocated here: nothing may be in hard interrupt context.
    let mut ce = CipherTfm::new(c"sm4-ce").ok();
    if let Some(t) = ce.as_mut() {
        check!(t.set_key(&vectors::STD_KEY).is_ok());
    }
    let mut xts = check_ok!(SkcipherTfm::new(c"xts(sm4)"));
    check!(xts.set_key(&key).is_ok());
    let mut ecb = check_ok!(SkcipherTfm::new(c"ecb(sm4)"));
    check!(ecb.set_key(&key[..16]).is_ok());
    let mut cts = check_ok!(SkcipherTfm::new(c"cts(cbc(sm4))"));
    check!(cts.set_key(&key[..16]).is_ok());
    // (Distinct blocks: a swap of two blocks shows.)
    let data: [u8; 64] = core::array::from_fn(|i| i as u8);
    let mut bufs: [KVec<u8>; 4] = [KVec::new(), KVec::new(), KVec::new(), KVec::new()];
    for b in bufs.iter_mut() {
        *b = check_ok!(KVec::from_elem(0u8, data.len(), GFP_KERNEL));
        b.copy_from_slice(&data);
    }
    let [xbuf, ebuf, cbuf, sbuf] = &mut bufs;
    let mut xreq = check_ok!(xts.request(xbuf, None, &[7u8; 16], &[usize::MAX]));
    let mut ereq = check_ok!(ecb.request(ebuf, None, &[], &[usize::MAX]));
    // Whole blocks: CS3 is CBC with the last two blocks swapped before decryption.
    let mut creq = check_ok!(cts.request(cbuf, None, &[9u8; 16], &[usize::MAX]));
    // In several pieces: the kernel's walk, which refuses hard interrupt context itself.
    let mut sreq = check_ok!(cts.request(sbuf, None, &[9u8; 16], &[16, 8, 40]));
    let mut block = vectors::STD_KEY;
    let mut results = (None, None, None, None, false);
    // (The walk's check sits in skcipher_walk_skcipher() on Linux 6.12.)
    expect_warn_begin(
        1,
        "skcipher_walk_virt|skcipher_walk_skcipher",
        "an skcipher walk in hard interrupt context",
    );
    let ran = in_hard_irq(|| {
        // SAFETY: reads the context state.
        let hard = unsafe { bindings::in_hardirq() };
        results.0 = Some(xreq.encrypt().map_err(|e| e.to_errno()));
        results.1 = Some(ereq.encrypt().map_err(|e| e.to_errno()));
        results.2 = Some(creq.decrypt().map_err(|e| e.to_errno()));
        results.3 = Some(sreq.decrypt().map_err(|e| e.to_errno()));
        if let Some(t) = ce.as_ref() {
            results.4 = hard && t.encrypt(&mut block).is_ok();
        } else {
            results.4 = hard;
        }
    });
    expect_warn_end();
    check!(ran.is_ok());
    let (x, e, c, s, ok) = results;
    check!(ok);
    check_eq!(x, Some(Err(EDEADLK)));
    check_eq!(e, Some(Err(EDEADLK)));
    check_eq!(c, Some(Err(EDEADLK)));
    check_eq!(s, Some(Err(EDEADLK)));
    if ce.is_some() {
        check_eq!(block, vectors::STD_CT);
    }
    // Nothing was written.
    drop((xreq, ereq, creq, sreq));
    for b in bufs.iter() {
        if b[..] != data[..] {
            return Err(fail!("a refused request changed its data"));
        }
    }
    Ok(())
}

/// Sets a marker in `v16`, a NEON register (in the current section).
fn marker_set() {
    // SAFETY: `movi v16.16b, #0x5a` (encoded: the kernel's Rust target has no NEON), in a
    // section the caller opened; the compiled code does not use NEON registers.
    unsafe { core::arch::asm!(".inst 0x4f02e750", options(nomem, nostack)) };
}

/// Whether `v16` still holds the marker of [`marker_set`].
fn marker_intact() -> bool {
    let (lo, hi): (u64, u64);
    // SAFETY: `mov x0, v16.d[0]` and `mov x1, v16.d[1]` (encoded), in the caller's section.
    unsafe {
        core::arch::asm!(
            ".inst 0x4e083e00",
            ".inst 0x4e183e01",
            out("x0") lo,
            out("x1") hi,
            options(nomem, nostack)
        )
    };
    lo == 0x5a5a_5a5a_5a5a_5a5a && hi == lo
}

/// Overwrites `v16` (in a section of the caller's).
fn marker_clobber() {
    // SAFETY: `movi v16.16b, #0` (encoded), in a section the caller opened.
    unsafe { core::arch::asm!(".inst 0x4f00e410", options(nomem, nostack)) };
}

/// What the outer test algorithm runs inside its section: the job of the running test.
struct Job<'a>(&'a mut dyn FnMut());

/// The job of the running nesting test, for [`NestOuter`].
static JOB: AtomicPtr<Job<'static>> = AtomicPtr::new(core::ptr::null_mut());

/// A test skcipher whose encryption opens a NEON section, sets a marker register, runs the
/// test's job (requests that would nest) and fails with `EIO` if the marker changed.
struct NestOuter;

impl Skcipher for NestOuter {
    const NAME: &'static CStr = c"sm4rs-nest-outer";
    const DRIVER_NAME: &'static CStr = c"sm4rs-nest-outer-test";
    const PRIORITY: i32 = 0;
    const BLOCK_SIZE: u32 = 16;
    const MIN_KEY_SIZE: u32 = 16;
    const MAX_KEY_SIZE: u32 = 16;

    type Iv = [u8; 0];
    type Context = ();

    fn set_key((): &mut (), _: &Key<'_>, _: &mut Simd) -> Result {
        Ok(())
    }

    fn encrypt((): &(), _: &mut Request<'_, [u8; 0]>, simd: &mut Simd) -> Result {
        let job = JOB.load(Ordering::Acquire);
        if job.is_null() {
            return Err(EINVAL);
        }
        let intact = simd.neon(|_| {
            marker_set();
            // SAFETY: the test that published `job` waits for this request to end before it
            // takes it back; nothing else runs it meanwhile.
            unsafe { ((*job).0)() };
            marker_intact()
        });
        match intact {
            None => Err(edeadlk()),
            Some(true) => Ok(()),
            Some(false) => Err(EIO),
        }
    }

    fn decrypt((): &(), _: &mut Request<'_, [u8; 0]>, _: &mut Simd) -> Result {
        Err(EINVAL)
    }
}

/// A test skcipher whose encryption opens a NEON section and overwrites the marker register;
/// `EDEADLK` if the section is refused.
struct NestInner;

impl Skcipher for NestInner {
    const NAME: &'static CStr = c"sm4rs-nest-inner";
    const DRIVER_NAME: &'static CStr = c"sm4rs-nest-inner-test";
    const PRIORITY: i32 = 0;
    const BLOCK_SIZE: u32 = 16;
    const MIN_KEY_SIZE: u32 = 16;
    const MAX_KEY_SIZE: u32 = 16;

    type Iv = [u8; 0];
    type Context = ();

    fn set_key((): &mut (), _: &Key<'_>, _: &mut Simd) -> Result {
        Ok(())
    }

    fn encrypt((): &(), _: &mut Request<'_, [u8; 0]>, simd: &mut Simd) -> Result {
        // Nested in the outer section (while its job is set), `allowed()` must say no. If it
        // says yes, opening a section here would BUG in kernel_neon_begin(): fail with EINVAL
        // instead, so the test reports it (and the job sends nothing more).
        if !JOB.load(Ordering::Acquire).is_null() && simd.allowed() {
            return Err(EINVAL);
        }
        simd.neon(|_| marker_clobber()).ok_or_else(edeadlk)
    }

    fn decrypt((): &(), _: &mut Request<'_, [u8; 0]>, _: &mut Simd) -> Result {
        Err(EINVAL)
    }
}

/// A tasklet that runs one request in a softirq.
#[repr(C)]
struct SoftirqRun<'a> {
    t: bindings::tasklet_struct,
    req: *mut TestRequest<'a>,
    result: AtomicI32,
    done: AtomicBool,
}

/// The tasklet's callback: runs the request, in softirq context.
///
/// # Safety
///
/// `t` must be the `t` field of a live `SoftirqRun` whose request is not used elsewhere until
/// `done` is set.
unsafe extern "C" fn softirq_run(t: *mut bindings::tasklet_struct) {
    // SAFETY: `t` is the first field of a `#[repr(C)]` `SoftirqRun` (caller).
    let this = unsafe { &*t.cast::<SoftirqRun<'_>>() };
    // SAFETY: reads the context.
    let softirq = unsafe { bindings::in_serving_softirq() };
    let r = if softirq {
        // SAFETY: the request is ours until `done` (caller).
        match unsafe { (*this.req).encrypt() } {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        }
    } else {
        1
    };
    this.result.store(r, Ordering::Relaxed);
    this.done.store(true, Ordering::Release);
}

/// Runs `req` in a softirq (a tasklet on this CPU) and waits for it; its error number, or 1
/// if the tasklet did not run in a softirq.
fn in_softirq(req: &mut TestRequest<'_>) -> Result<i32, Failure> {
    let mut run = KBox::new(
        SoftirqRun {
            // SAFETY: all zeros is a tasklet that `tasklet_setup` initialises below.
            t: unsafe { core::mem::zeroed() },
            req,
            result: AtomicI32::new(0),
            done: AtomicBool::new(false),
        },
        GFP_KERNEL,
    )
    .map_err(|_| fail!("alloc"))?;
    // SAFETY: `run.t` lives in `run` until `tasklet_kill` below.
    unsafe { bindings::tasklet_setup(&mut run.t, Some(softirq_run)) };
    // SAFETY: as above.
    unsafe { bindings::tasklet_schedule(&mut run.t) };
    let mut waited = 0;
    while !run.done.load(Ordering::Acquire) && waited < 5000 {
        // SAFETY: sleeps, in task context.
        unsafe { bindings::msleep(1) };
        waited += 1;
    }
    // SAFETY: waits for the tasklet to end; it is not scheduled again.
    unsafe { bindings::tasklet_kill(&mut run.t) };
    if !run.done.load(Ordering::Acquire) {
        return Err(fail!("the tasklet did not run"));
    }
    Ok(run.result.load(Ordering::Relaxed))
}

/// Runs `job` inside a section of [`NestOuter`] (whose marker is in `v16`), in a softirq
/// (`softirq`) or in task context: 0, `EIO` (-5) if the marker changed, or the error that
/// refused the section.
fn in_outer_section(
    outer: &SkcipherTfm,
    softirq: bool,
    job: &mut dyn FnMut(),
) -> Result<i32, Failure> {
    let mut j = Job(job);
    let mut buf = check_ok!(KVec::from_elem(0u8, 16, GFP_KERNEL));
    let mut req = check_ok!(outer.request(&mut buf, None, &[], &[usize::MAX]));
    JOB.store((&raw mut j).cast(), Ordering::Release);
    let res = if softirq {
        in_softirq(&mut req)
    } else {
        Ok(req.encrypt().map_or_else(|e| e.to_errno(), |()| 0))
    };
    JOB.store(core::ptr::null_mut(), Ordering::Release);
    res
}

/// NEON sections that would nest are refused, in task context and in a softirq. Inside a
/// section of [`NestOuter`] (a marker in `v16`): a request of [`NestInner`] (a section of the
/// same abstraction), requests of the drivers under test that are loaded (ECB, CTS, XTS of
/// sm4-ce and sm4-neon: in task context always; in a softirq where the abstraction's mark is
/// shared, i.e. in the kernel tree), and a block of the `sm4-ce` cipher (which falls back to
/// its code without NEON). Each skcipher request fails with `EDEADLK` and leaves its data,
/// the cipher gives the right block, and the marker is intact. Outside the section, the same
/// requests succeed.
fn nested_sections_refused() -> TestResult {
    const EDEADLK: i32 = -35;
    let module = crate::kunit::this_module()?;
    let reg = check_ok!(skcipher::Registration::new(
        module,
        [skcipher::alg::<NestOuter>(), skcipher::alg::<NestInner>()]
    ));
    let mut outer = check_ok!(SkcipherTfm::new(c"sm4rs-nest-outer-test"));
    check!(outer.set_key(&[0u8; 16]).is_ok());
    let key = [0x3cu8; 32];
    let mut ce = CipherTfm::new(c"sm4-ce").ok();
    if let Some(t) = ce.as_mut() {
        check!(t.set_key(&vectors::STD_KEY).is_ok());
    }
    let iv = [5u8; 16];
    for softirq in [false, true] {
        let cross = !softirq || SHARED_SOFTIRQ_MARK;
        // Everything is allocated here: nothing may be in the section (or the softirq).
        let mut tfms = KVec::new();
        let mut names: KVec<(&CStr, usize)> = KVec::new();
        check!(names
            .push((c"sm4rs-nest-inner-test", 16), GFP_KERNEL)
            .is_ok());
        if cross {
            for n in [
                (c"ecb-sm4-ce", 16),
                (c"cts-cbc-sm4-ce", 16),
                (c"xts-sm4-ce", 32),
                (c"ecb-sm4-neon", 16),
                (c"cts-cbc-sm4-neon", 16),
                (c"xts-sm4-neon", 32),
            ] {
                check!(names.push(n, GFP_KERNEL).is_ok());
            }
        }
        for &(name, key_len) in names.iter() {
            let Ok(mut tfm) = SkcipherTfm::new(name) else {
                continue;
            };
            check!(tfm.set_key(&key[..key_len]).is_ok());
            check!(tfms.push(tfm, GFP_KERNEL).is_ok());
        }
        let mut datas: KVec<KVec<u8>> = KVec::new();
        for _ in tfms.iter() {
            // (Distinct blocks: a swap of two blocks shows.)
            let mut d = check_ok!(KVec::from_elem(0u8, 48, GFP_KERNEL));
            d.iter_mut().enumerate().for_each(|(i, b)| *b = i as u8);
            check!(datas.push(d, GFP_KERNEL).is_ok());
        }
        let mut results: KVec<i32> = check_ok!(KVec::from_elem(1, tfms.len(), GFP_KERNEL));
        let mut block = vectors::STD_KEY;
        let mut cipher_ok = true;
        let mut job_ran = false;
        {
            let mut reqs = KVec::new();
            for (t, d) in tfms.iter().zip(datas.iter_mut()) {
                let ivl = if t.params().iv_size == 0 { 0 } else { 16 };
                let req = check_ok!(t.request(d, None, &iv[..ivl], &[usize::MAX]));
                check!(reqs.push(req, GFP_KERNEL).is_ok());
            }
            let mut job = || {
                job_ran = true;
                // The test algorithm's request comes first; once one is not refused, the
                // guard is broken and a driver's section would BUG: nothing more is sent.
                for (req, r) in reqs.iter_mut().zip(results.iter_mut()) {
                    // SAFETY: the algorithms are this abstraction's (the test's own and the
                    // drivers under test), which must refuse to nest: what is tested here.
                    let e = unsafe { req.encrypt_in_section() };
                    *r = e.map_or_else(|e| e.to_errno(), |()| 0);
                    if *r != EDEADLK {
                        return;
                    }
                }
                if cross {
                    if let Some(t) = ce.as_ref() {
                        // SAFETY: `sm4-ce` is this abstraction's cipher, which must fall back
                        // to its code without NEON here: what is tested here.
                        cipher_ok = unsafe { t.encrypt_in_section(&mut block) }.is_ok();
                    }
                }
            };
            let res = in_outer_section(&outer, softirq, &mut job)?;
            if res != 0 {
                kernel::pr_err!(
                    "    # outer section (softirq: {}): {} (-5: the marker changed)\n",
                    softirq,
                    res
                );
                return Err(fail!(
                    "the outer section was refused or its registers changed",
                ));
            }
        }
        check!(job_ran);
        check!(cipher_ok);
        if ce.is_some() && cross {
            check_eq!(block, vectors::STD_CT);
        }
        for ((t, d), r) in tfms.iter().zip(datas.iter()).zip(results.iter()) {
            if *r != EDEADLK || d.iter().enumerate().any(|(i, &b)| b != i as u8) {
                kernel::pr_err!(
                    "    # {:?} inside a section (softirq: {}): {}\n",
                    t.driver_name(),
                    softirq,
                    r
                );
                return Err(fail!("a nested section was not refused"));
            }
        }
        // Outside a section the same requests run.
        for (t, d) in tfms.iter().zip(datas.iter_mut()) {
            let ivl = if t.params().iv_size == 0 { 0 } else { 16 };
            let mut ivv = iv;
            check!(t.encrypt(d, None, &mut ivv[..ivl], &[usize::MAX]).is_ok());
        }
    }
    drop(outer);
    drop_tested(reg, 2);
    Ok(())
}

/// A C driver called from inside a section of this abstraction (by safe code: the test
/// algorithm's closure) is refused with `EDEADLK` before it runs, in a softirq and in task
/// context: the test clients ask [`crate::crypto::outside_section`] first, as every
/// caller of the crypto API from Rust must. The driver is the fixture `cneon` (a C cipher
/// whose encryption opens a NEON section without asking, as C drivers do, and sets `v16`),
/// which the VM scenarios load before this module where the fixtures are built (skipped
/// elsewhere). Called, it would BUG in task context and change the outer section's marker
/// in a softirq (so the softirq comes first). Outside a section it runs.
fn c_driver_in_section_refused() -> TestResult {
    const EDEADLK: i32 = -35;
    let Ok(mut c) = CipherTfm::new(c"sm4rs-cneon") else {
        return Err(Failure {
            file: file!(),
            line: line!(),
            what: "the C NEON fixture (cneon.ko) is not loaded",
            skip: true,
        });
    };
    check!(c.set_key(&[0u8; 16]).is_ok());
    let module = crate::kunit::this_module()?;
    let reg = check_ok!(skcipher::Registration::new(
        module,
        [skcipher::alg::<NestOuter>()]
    ));
    let mut outer = check_ok!(SkcipherTfm::new(c"sm4rs-nest-outer-test"));
    check!(outer.set_key(&[0u8; 16]).is_ok());
    for softirq in [true, false] {
        let mut block = [7u8; 16];
        let mut r = 1;
        let res = in_outer_section(&outer, softirq, &mut || {
            r = c.encrypt(&mut block).map_or_else(|e| e.to_errno(), |()| 0);
        })?;
        if res != 0 || r != EDEADLK || block != [7u8; 16] {
            kernel::pr_err!(
                "    # softirq: {}: outer section {} (-5: the marker changed), call {}\n",
                softirq,
                res,
                r
            );
            return Err(fail!("the C driver was called inside the section"));
        }
    }
    let mut block = [7u8; 16];
    check!(c.encrypt(&mut block).is_ok());
    check_eq!(block, [7 ^ 0x55u8; 16]);
    drop(outer);
    drop_tested(reg, 1);
    Ok(())
}

/// `crypto::wipe` zeroes exactly the bytes it is given: every start from 0 to 8 bytes past a
/// word and every length from 0 to 40 (an unaligned head, whole words, a tail).
fn wipe_zeroes_every_byte() -> TestResult {
    for from in 0..9 {
        for len in 0..41 {
            let mut words = [0xa5a5_a5a5_a5a5_a5a5u64; 8];
            // SAFETY: the 64 bytes of `words`, any values of which are valid `u8`s.
            let bytes = unsafe { core::slice::from_raw_parts_mut(words.as_mut_ptr().cast(), 64) };
            crate::crypto::wipe(&mut bytes[from..from + len]);
            for (i, b) in bytes.iter().enumerate() {
                let wiped = (from..from + len).contains(&i);
                check_eq!(*b, if wiped { 0 } else { 0xa5 });
            }
        }
    }
    Ok(())
}

/// A test AEAD whose encryption takes the first piece of the associated data, asks for the
/// data whole (which must be refused), then reads the rest: `EBADMSG` if the whole data is
/// handed out or the pieces do not add up to it.
struct AssocPieces;

impl Aead for AssocPieces {
    const NAME: &'static CStr = c"sm4rs-assoc";
    const DRIVER_NAME: &'static CStr = c"sm4rs-assoc-test";
    const PRIORITY: i32 = 0;
    const CHUNK_SIZE: u32 = 1;
    const MIN_KEY_SIZE: u32 = 0;
    const MAX_KEY_SIZE: u32 = 0;
    const MAX_AUTH_SIZE: u32 = 16;

    type Iv = [u8; 0];
    type Context = ();

    fn set_key((): &mut (), _: &Key<'_>, _: &mut Simd) -> Result {
        Ok(())
    }

    fn check_auth_size(_: usize) -> Result {
        Ok(())
    }

    fn encrypt((): &(), req: &mut aead::Request<'_, [u8; 0]>, _: &mut Simd) -> Result {
        let mut ad = req.assoc();
        let mut seen = ad.next().map_or(0, |piece| piece.len());
        if ad.whole(usize::MAX).is_some() {
            return Err(aead::ebadmsg());
        }
        while let Some(piece) = ad.next() {
            seen += piece.len();
        }
        if seen == req.assoc_len() {
            Ok(())
        } else {
            Err(aead::ebadmsg())
        }
    }

    fn decrypt((): &(), _: &mut aead::Request<'_, [u8; 0]>, _: &mut Simd) -> Result {
        Err(EINVAL)
    }
}

/// The self-tests' switch (testmgr's `crypto_disable_simd_for_test()`): a `Simd` of a crypto API
/// callback refuses NEON while it is set, one of other code (`crypto_api` false) does not.
fn simd_follows_selftest_switch() -> TestResult {
    // SAFETY: set here and cleared below, with nothing in between that sleeps.
    let set = unsafe { bindings::simd_test_switch(true) };
    skip_unless!(set, "the kernel has no self-tests' SIMD switch");
    // SAFETY: no NEON section is open here, and each `Simd` is the only one while it lives
    // (each statement's temporary is dropped at its end).
    let api = unsafe { Simd::new(true) }.allowed();
    // SAFETY: as above.
    let other = unsafe { Simd::new(false) }.allowed();
    // SAFETY: clears what was set above, on the same CPU (migration is off).
    unsafe { bindings::simd_test_switch(false) };
    check!(!api);
    check!(other);
    Ok(())
}

/// Registers [`AssocPieces`] and runs `f` on a transform of it, then drops both.
fn with_assoc_pieces(f: impl FnOnce(&mut AeadTfm) -> TestResult) -> TestResult {
    let module = crate::kunit::this_module()?;
    let reg = check_ok!(aead::Registration::new(
        module,
        [aead::alg::<AssocPieces>()]
    ));
    let mut tfm = check_ok!(AeadTfm::new(c"sm4rs-assoc-test"));
    let done = f(&mut tfm);
    drop(tfm);
    drop_tested(reg, 1);
    done
}

/// [`AssocPieces`] over associated data in two scatterlist entries: the first piece handed
/// out, the data is no longer whole (`AssocData::whole`), and the rest follows it.
fn assoc_not_whole_after_a_piece() -> TestResult {
    with_assoc_pieces(|tfm| {
        check!(tfm.set_key(&[]).is_ok());
        let mut buf = check_ok!(KVec::from_elem(0u8, 48, GFP_KERNEL));
        check_ok!(tfm.crypt(AeadOp::Encrypt, &mut buf, None, 32, 0, &[], &[16]));
        Ok(())
    })
}

/// An AEAD's key of another length than its `MIN_KEY_SIZE` to `MAX_KEY_SIZE` is refused with
/// `EINVAL` before the driver sees it (the crypto API does not check an AEAD's key length,
/// and [`AssocPieces`] takes any key).
fn aead_key_length_checked() -> TestResult {
    with_assoc_pieces(|tfm| {
        check!(tfm.set_key(&[]).is_ok());
        check_eq!(tfm.set_key(&[0]), Err(EINVAL));
        check_eq!(tfm.set_key(&[0; 16]), Err(EINVAL));
        Ok(())
    })
}

/// `AssocBlocks` hands out associated data of 0 to 40 bytes, in three pieces split at every
/// pair of places, as whole blocks that are, one after the other, the data padded with
/// zeros to a whole block.
fn assoc_blocks_pad_pieces() -> TestResult {
    let mut data = [0u8; 40];
    for (i, b) in data.iter_mut().enumerate() {
        *b = i as u8 + 1;
    }
    for len in 0..=data.len() {
        for a in 0..=len {
            for b in a..=len {
                let mut gathered = AssocBlocks::default();
                let mut out = [0xa5u8; 48];
                let mut n = 0;
                for (i, (from, to)) in [(0, a), (a, b), (b, len)].into_iter().enumerate() {
                    let mut piece = Input::from_array(&data).split_at(to).0.split_at(from).1;
                    while let Some(blocks) = gathered.next(&mut piece, i == 2) {
                        check!(!blocks.is_empty() && blocks.len() % 16 == 0);
                        check!(n + blocks.len() <= out.len());
                        blocks.read(&mut out[n..n + blocks.len()]);
                        n += blocks.len();
                    }
                    check!(piece.is_empty());
                }
                check_eq!(n, len.div_ceil(16) * 16);
                for (i, x) in out[..n].iter().enumerate() {
                    check_eq!(*x, if i < len { data[i] } else { 0 });
                }
            }
        }
    }
    Ok(())
}

suite!(
    sm4_abstraction,
    [
        registration_dropped_while_in_use,
        registration_failure_is_clean,
        null_key_refused,
        requests_in_hard_irq,
        nested_sections_refused,
        c_driver_in_section_refused,
        simd_follows_selftest_switch,
        wipe_zeroes_every_byte,
        assoc_not_whole_after_a_piece,
        aead_key_length_checked,
        assoc_blocks_pad_pieces
    ]
);
