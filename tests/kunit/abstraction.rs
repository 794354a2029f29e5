// SPDX-License-Identifier: GPL-2.0

//! Suite `sm4_abstraction`: what the crypto abstraction promises to safe code.
//!
//! - A [`cipher::Registration`] dropped while a transform of its algorithm is alive (safe
//!   code can do that) must not free what the transform still uses: the kernel warns, the
//!   transform keeps working, and KASAN sees no use after free.
//! - Requests in hard interrupt context, where `kernel_neon_begin()` would hit `BUG_ON()`:
//!   the `sm4-ce` cipher falls back to its code without NEON, and the skciphers (XTS, whose
//!   tweak is encrypted before any data) fail with `EDEADLK`.
//!
//! The kernel's own warnings that these cases provoke are announced on the console between
//! `SM4RS-EXPECT-WARN-BEGIN` and `SM4RS-EXPECT-WARN-END`, which the test runner does not count
//! as failures (anything else there, such as a KASAN report or an oops, still is).

use crate::crypto::bindings;
use crate::crypto::kunit::{check, check_eq, check_ok, suite, Failure, TestResult};
use crate::crypto::{
    cipher::{self, Cipher},
    simd::Simd,
};
use crate::sm4::{self, vectors};
use crate::testing::{CipherTfm, SkcipherTfm};
use core::ffi::CStr;
use kernel::{
    alloc::{flags::GFP_KERNEL, KBox, KVec},
    error::code::EINVAL,
    prelude::*,
};

/// A cipher of this test module: SM4 under a name of its own.
struct TestCipher;

impl Cipher for TestCipher {
    const NAME: &'static CStr = c"sm4rs-test";
    const DRIVER_NAME: &'static CStr = c"sm4rs-test-generic";
    const PRIORITY: i32 = 0;
    const MIN_KEY_SIZE: u32 = 16;
    const MAX_KEY_SIZE: u32 = 16;

    type Block = sm4::Block;
    type Context = sm4::Key;

    fn set_key(ctx: &mut sm4::Key, key: &[u8], _: &mut Simd) -> Result {
        let key: &[u8; 16] = key.try_into().map_err(|_| EINVAL)?;
        ctx.expand_into(key);
        Ok(())
    }

    fn encrypt(ctx: &sm4::Key, block: &mut sm4::Block, _: &mut Simd) {
        ctx.encrypt_block(block);
    }

    fn decrypt(ctx: &sm4::Key, block: &mut sm4::Block, _: &mut Simd) {
        ctx.decrypt_block(block);
    }
}

/// Announces that the kernel is expected to warn until [`expect_warn_end`].
fn expect_warn_begin(why: &str) {
    pr_info!("SM4RS-EXPECT-WARN-BEGIN {}\n", why);
}

/// Ends what [`expect_warn_begin`] announced.
fn expect_warn_end() {
    pr_info!("SM4RS-EXPECT-WARN-END\n");
}

fn fail(what: &'static str) -> Failure {
    Failure {
        file: file!(),
        line: line!(),
        what,
        skip: false,
    }
}

/// Registers [`TestCipher`], takes a transform, drops the registration (the kernel warns
/// that the algorithm is in use), and goes on using the transform.
fn registration_dropped_while_in_use() -> TestResult {
    let reg = check_ok!(cipher::Registration::<TestCipher>::new(
        crate::crypto::kunit::this_module!()
    ));
    let mut tfm = check_ok!(CipherTfm::new(c"sm4rs-test-generic"));
    check!(tfm.set_key(&vectors::STD_KEY).is_ok());
    let mut b = vectors::STD_KEY;
    check!(tfm.encrypt(&mut b).is_ok());
    check_eq!(b, vectors::STD_CT);
    expect_warn_begin("crypto_unregister_alg of an algorithm in use");
    drop(reg);
    expect_warn_end();
    // The algorithm is gone from the API...
    check!(CipherTfm::new(c"sm4rs-test-generic").is_err());
    // ...but the transform still works: its description was not freed.
    check!(tfm.decrypt(&mut b).is_ok());
    check_eq!(b, vectors::STD_KEY);
    check!(tfm.set_key(&[0x11; 16]).is_ok());
    drop(tfm);
    Ok(())
}

/// An `irq_work` that runs a closure in hard interrupt context.
#[repr(C)]
struct HardIrq<F> {
    work: bindings::irq_work,
    f: Option<F>,
}

/// The `irq_work` callback.
///
/// # Safety
///
/// `work` must be the `work` field of a live `HardIrq<F>`, not otherwise accessed while
/// the callback runs.
unsafe extern "C" fn run_hard_irq<F: FnOnce()>(work: *mut bindings::irq_work) {
    // SAFETY: `work` is the first field of a `#[repr(C)]` `HardIrq<F>` (caller).
    let this = unsafe { &mut *work.cast::<HardIrq<F>>() };
    if let Some(f) = this.f.take() {
        f();
    }
}

/// Runs `f` in hard interrupt context on this CPU (an `irq_work` raised by an IPI) and waits
/// for it to finish.
fn in_hard_irq<F: FnOnce()>(f: F) -> Result {
    // SAFETY: all-zero is an idle `irq_work` (what `IRQ_WORK_INIT_HARD` leaves unset).
    let work: bindings::irq_work = unsafe { core::mem::zeroed() };
    let mut h = KBox::new(HardIrq { work, f: Some(f) }, GFP_KERNEL)?;
    h.work.node.__bindgen_anon_1.u_flags = bindings::SM4RS_CONST_IRQ_WORK_HARD_IRQ;
    h.work.func = Some(run_hard_irq::<F>);
    let w = &raw mut h.work;
    // SAFETY: `w` is an initialised, idle `irq_work` in `h`, which lives until after
    // `irq_work_sync` has waited for the callback.
    let queued = unsafe { bindings::irq_work_queue(w) };
    // SAFETY: as above; waits until the callback has run.
    unsafe { bindings::irq_work_sync(w) };
    if queued {
        Ok(())
    } else {
        Err(EINVAL)
    }
}

/// The SM4 drivers in hard interrupt context: the `sm4-ce` cipher gives the right answer
/// without NEON; `xts(sm4)` and `ecb(sm4)` (whatever serves them) fail with `EDEADLK`
/// instead of reaching `kernel_neon_begin()`.
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
    let data = [0x5au8; 64];
    let mut xbuf = check_ok!(KVec::from_elem(0u8, data.len(), GFP_KERNEL));
    xbuf.copy_from_slice(&data);
    let mut ebuf = check_ok!(KVec::from_elem(0u8, data.len(), GFP_KERNEL));
    ebuf.copy_from_slice(&data);
    let mut xreq = check_ok!(xts.request(&mut xbuf, None, &[7u8; 16], &[usize::MAX]));
    let mut ereq = check_ok!(ecb.request(&mut ebuf, None, &[], &[usize::MAX]));
    let mut block = vectors::STD_KEY;
    let mut results = (None, None, false);
    expect_warn_begin("skcipher_walk in hard interrupt context");
    let ran = in_hard_irq(|| {
        // SAFETY: reads the context state.
        let hard = unsafe { bindings::sm4rs_in_hardirq() };
        results.0 = Some(xreq.encrypt().map_err(|e| e.to_errno()));
        results.1 = Some(ereq.encrypt().map_err(|e| e.to_errno()));
        if let Some(t) = ce.as_ref() {
            results.2 = hard && t.encrypt(&mut block).is_ok();
        } else {
            results.2 = hard;
        }
    });
    expect_warn_end();
    check!(ran.is_ok());
    let (x, e, ok) = results;
    check!(ok);
    check_eq!(x, Some(Err(EDEADLK)));
    check_eq!(e, Some(Err(EDEADLK)));
    if ce.is_some() {
        check_eq!(block, vectors::STD_CT);
    }
    // Nothing was written.
    drop(xreq);
    drop(ereq);
    if xbuf[..] != data[..] || ebuf[..] != data[..] {
        return Err(fail("a refused request changed its data"));
    }
    Ok(())
}

suite!(
    c"sm4_abstraction",
    [registration_dropped_while_in_use, requests_in_hard_irq]
);
