// SPDX-License-Identifier: GPL-2.0

//! The KUnit suites of the SM4 drivers, in a test module of their own (`sm4_kunit`,
//! `CONFIG_CRYPTO_SM4_KUNIT_TEST`), so that the drivers carry no test code. The suites run
//! when the module is loaded, after the drivers: each drives a driver through the crypto
//! API by driver name and is skipped if that driver is not loaded.
//!
//! Every differential test compares with the oracle (`oracle.rs`): upstream's C SM4 (the
//! `CRYPTO_SM4` library), which the module registers as `sm4-oracle` and `cfb-sm4-oracle`
//! when it is loaded, with the kernel's own templates over it.
//!
//! - `sm4_generic`: the Rust SM4 of `sm4/sm4.rs` (the standard's vectors), the `sm4-generic`
//!   cipher and `cfb-sm4-generic` against the oracle.
//! - `sm4_ce`, `sm4_neon`: every mode of `sm4-ce` and `sm4-neon` against the kernel's
//!   templates over the oracle (`sm4_modes.rs`), and their NEON sections bounded per page.
//! - `sm4_ce_cipher`: the `sm4-ce` cipher against the oracle.
//! - `sm4_ce_mac`: the `sm4-ce` MACs (CMAC, XCBC, CBC-MAC) against the kernel's templates
//!   over the oracle.
//! - `sm4_ce_gcm`, `sm4_ce_ccm`: `gcm-sm4-ce` and `ccm-sm4-ce` against the kernel's `gcm_base`
//!   and `ccm_base` templates over the oracle (`aead_suites.rs`).
//! - `sm4_abstraction`: the crypto abstraction's guarantees (registrations dropped while
//!   their algorithms are in use; requests in hard interrupt context; NEON sections that
//!   would nest, in task context and in a softirq).

#[path = "aead_suites.rs"]
mod aead_suites;
// sm4rs-oot-begin
// Out of tree, the test module compiles its own copy of the abstraction (see the drivers).
#[path = "../../crypto/mod.rs"]
#[allow(dead_code, unreachable_pub)]
mod crypto;
use crypto::{bindings, module};
// sm4rs-oot-end
// sm4rs-in-tree: use kernel::{bindings, crypto};
#[path = "kunit.rs"]
#[allow(dead_code, unreachable_pub)]
mod kunit;
#[path = "../../sm4/mode_list.rs"]
mod mode_list;
#[path = "oracle.rs"]
mod oracle;
#[path = "rng.rs"]
#[allow(dead_code, unreachable_pub)]
mod rng;
#[path = "../../sm4/sm4.rs"]
#[allow(dead_code, unreachable_pub)]
mod sm4;
#[path = "testing.rs"]
#[allow(dead_code, unreachable_pub)]
mod testing;

use kernel::prelude::*;

module! {
    type: Sm4Kunit,
    name: "sm4_kunit",
    author: "The sm4-rs authors",
    description: "KUnit tests of the Rust SM4 drivers, and their reference (sm4-oracle)",
    license: "GPL",
}

struct Sm4Kunit {
    _oracle: oracle::Oracle,
}

impl kernel::Module for Sm4Kunit {
    fn init(module: &'static ThisModule) -> Result<Self> {
        // Before the suites run (KUnit runs them once the module is live).
        crate::kunit::set_this_module(module);
        Ok(Self {
            _oracle: oracle::Oracle::register(module)?,
        })
    }
}

/// Suite `sm4_generic`: the Rust SM4 and the `sm4-generic` cipher.
mod generic {
    use crate::kunit::{check, check_eq, check_ok, skip_unless, suite, TestResult};
    use crate::rng::Rng;
    use crate::sm4::{self, vectors};
    use crate::testing::{CipherTfm, SkcipherTfm};
    use kernel::alloc::{flags::GFP_KERNEL, KVec};

    /// Whether `sm4_generic` is loaded.
    fn present() -> bool {
        CipherTfm::new(c"sm4-generic").is_ok()
    }

    /// Whether it has `cfb(sm4)` (in a kernel tree, `CRYPTO_SM4_RUST_CFB`).
    fn has_cfb() -> bool {
        SkcipherTfm::new(c"cfb-sm4-generic").is_ok()
    }

    /// GB/T 32907-2016 appendix A, example 1, on the algorithm directly.
    fn standard_vector() -> TestResult {
        let key = check_ok!(sm4::Key::new(&vectors::STD_KEY).ok_or(()));
        check_eq!(key.enc.word(0), vectors::STD_RK0);
        check_eq!(key.enc.word(31), vectors::STD_RK31);
        let mut b = vectors::STD_KEY;
        key.encrypt_block(&mut b);
        check_eq!(b, vectors::STD_CT);
        key.decrypt_block(&mut b);
        check_eq!(b, vectors::STD_KEY);
        Ok(())
    }

    /// Appendix A, example 2: one block encrypted 1,000,000 times.
    fn standard_million() -> TestResult {
        let key = check_ok!(sm4::Key::new(&vectors::STD_KEY).ok_or(()));
        let mut b = vectors::STD_KEY;
        for _ in 0..1_000_000 {
            key.encrypt_block(&mut b);
        }
        check_eq!(b, vectors::STD_CT_1M);
        Ok(())
    }

    /// Example 1 through the crypto API: the registered driver, its setkey and callbacks.
    fn registered_cipher() -> TestResult {
        skip_unless!(present(), "sm4_generic is not loaded");
        let mut t = check_ok!(CipherTfm::new(c"sm4-generic"));
        check!(t.set_key(&vectors::STD_KEY).is_ok());
        let mut b = vectors::STD_KEY;
        check!(t.encrypt(&mut b).is_ok());
        check_eq!(b, vectors::STD_CT);
        check!(t.decrypt(&mut b).is_ok());
        check_eq!(b, vectors::STD_KEY);
        Ok(())
    }

    /// Keys of the wrong length are refused with -EINVAL and leave the key unchanged.
    fn bad_key_length() -> TestResult {
        skip_unless!(present(), "sm4_generic is not loaded");
        let mut t = check_ok!(CipherTfm::new(c"sm4-generic"));
        check!(t.set_key(&vectors::STD_KEY).is_ok());
        for len in [0usize, 1, 15, 17, 24, 32] {
            let key = [0x5au8; 32];
            let r = t.set_key(&key[..len]);
            check!(r.map_err(|e| e.to_errno()) == Err(-22));
        }
        let mut b = vectors::STD_KEY;
        check!(t.encrypt(&mut b).is_ok());
        check_eq!(b, vectors::STD_CT);
        Ok(())
    }

    /// 64 random keys with 8 random blocks each, both directions: the same as the oracle
    /// (upstream's C SM4), in place and out of place at every alignment of both blocks.
    fn cipher_vs_oracle() -> TestResult {
        skip_unless!(present(), "sm4_generic is not loaded");
        let mut ours = check_ok!(CipherTfm::new(c"sm4-generic"));
        let mut oracle = check_ok!(CipherTfm::new(crate::oracle::CIPHER));
        let mut rng = Rng(0x5eed_0201);
        for _ in 0..64 {
            let mut k = [0u8; 16];
            rng.fill(&mut k);
            check!(ours.set_key(&k).is_ok());
            check!(oracle.set_key(&k).is_ok());
            for j in 0..8 {
                let mut p = [0u8; 16];
                rng.fill(&mut p);
                let (mut a, mut o) = (p, p);
                check!(ours.encrypt(&mut a).is_ok());
                check!(oracle.encrypt(&mut o).is_ok());
                check_eq!(a, o);
                check!(crate::testing::cipher_out_of_place(&ours, &p, &a, j));
                check!(ours.decrypt(&mut a).is_ok());
                check!(oracle.decrypt(&mut o).is_ok());
                check_eq!(a, p);
                check_eq!(o, p);
            }
        }
        Ok(())
    }

    /// `cfb-sm4-generic` against the oracle's CFB: random keys, IVs and data, lengths 0 to
    /// past 4096, in place and out of place, in whole, 1-byte and mixed pieces, both
    /// directions, and the IV each request leaves.
    fn cfb_generic_vs_oracle() -> TestResult {
        skip_unless!(present(), "sm4_generic is not loaded");
        skip_unless!(
            has_cfb(),
            "sm4_generic has no cfb(sm4) (CRYPTO_SM4_RUST_CFB)"
        );
        let mut ours = check_ok!(SkcipherTfm::new(c"cfb-sm4-generic"));
        let mut oracle = check_ok!(SkcipherTfm::new(crate::oracle::CFB));
        let mut rng = Rng(0x5eed_0202);
        for len in [
            0usize, 1, 15, 16, 17, 31, 32, 33, 100, 257, 4095, 4096, 4097,
        ] {
            for pieces in [&[usize::MAX][..], &[1][..], &[3, 16, 1, 29, 64, 7][..]] {
                if pieces == [1] && len > 600 {
                    continue;
                }
                for (enc, in_place) in [(true, true), (true, false), (false, true), (false, false)]
                {
                    let (mut key, mut iv0) = ([0u8; 16], [0u8; 16]);
                    rng.fill(&mut key);
                    rng.fill(&mut iv0);
                    let mut data = check_ok!(KVec::from_elem(0u8, len, GFP_KERNEL));
                    rng.fill(&mut data);
                    check!(ours.set_key(&key).is_ok());
                    check!(oracle.set_key(&key).is_ok());
                    let mut outs = [KVec::new(), KVec::new()];
                    let mut ivs = [iv0, iv0];
                    for (i, t) in [&ours, &oracle].into_iter().enumerate() {
                        let mut src = check_ok!(KVec::from_elem(0u8, len, GFP_KERNEL));
                        src.copy_from_slice(&data);
                        let mut dst = check_ok!(KVec::from_elem(0xa5u8, len, GFP_KERNEL));
                        let d = if in_place { None } else { Some(&mut dst) };
                        let r = if enc {
                            t.encrypt(&mut src, d, &mut ivs[i], pieces)
                        } else {
                            t.decrypt(&mut src, d, &mut ivs[i], pieces)
                        };
                        check!(r.is_ok());
                        outs[i] = if in_place { src } else { dst };
                    }
                    check!(outs[0][..] == outs[1][..]);
                    check_eq!(ivs[0], ivs[1]);
                }
            }
        }
        Ok(())
    }

    /// ECB through the kernel's template over the cipher, with a NULL IV (as testmgr and
    /// most callers pass for ECB): example 1 in each of four blocks.
    fn ecb_template_null_iv() -> TestResult {
        skip_unless!(present(), "sm4_generic is not loaded");
        let mut t = check_ok!(SkcipherTfm::new(c"ecb(sm4-generic)"));
        check!(t.set_key(&vectors::STD_KEY).is_ok());
        let mut buf = check_ok!(KVec::from_elem(0u8, 64, GFP_KERNEL));
        for chunk in buf.chunks_mut(16) {
            chunk.copy_from_slice(&vectors::STD_KEY);
        }
        check!(t.encrypt(&mut buf, None, &mut [], &[usize::MAX]).is_ok());
        for chunk in buf.chunks(16) {
            check!(chunk == vectors::STD_CT);
        }
        check!(t.decrypt(&mut buf, None, &mut [], &[7]).is_ok());
        for chunk in buf.chunks(16) {
            check!(chunk == vectors::STD_KEY);
        }
        Ok(())
    }

    /// `cfb-sm4-generic` (CFB for kernels without the accelerated drivers): OpenSSL's
    /// vectors, whole blocks and a partial last block, in place and in 1-byte pieces, both
    /// directions, and the IV each request leaves.
    fn cfb_generic_vectors() -> TestResult {
        skip_unless!(present(), "sm4_generic is not loaded");
        skip_unless!(
            has_cfb(),
            "sm4_generic has no cfb(sm4) (CRYPTO_SM4_RUST_CFB)"
        );
        let mut t = check_ok!(SkcipherTfm::new(c"cfb-sm4-generic"));
        check!(t.set_key(&vectors::STD_KEY).is_ok());
        let iv0: [u8; 16] = core::array::from_fn(|i| i as u8);
        let pt: [u8; 64] = core::array::from_fn(|i| i as u8);
        for len in [64usize, 37, 16, 5] {
            for pieces in [&[usize::MAX][..], &[1][..]] {
                let mut buf = check_ok!(KVec::from_elem(0u8, len, GFP_KERNEL));
                buf.copy_from_slice(&pt[..len]);
                let mut iv = iv0;
                check!(t.encrypt(&mut buf, None, &mut iv, pieces).is_ok());
                check!(buf[..] == vectors::CFB_CT[..len]);
                // The IV left: the last whole ciphertext block.
                let whole = len / 16 * 16;
                check!(whole == 0 || iv[..] == vectors::CFB_CT[whole - 16..whole]);
                let mut iv = iv0;
                check!(t.decrypt(&mut buf, None, &mut iv, pieces).is_ok());
                check!(buf[..] == pt[..len]);
            }
        }
        Ok(())
    }

    suite!(
        sm4_generic,
        [
            cfb_generic_vectors,
            standard_vector,
            standard_million,
            registered_cipher,
            bad_key_length,
            cipher_vs_oracle,
            cfb_generic_vs_oracle,
            ecb_template_null_iv
        ]
    );
}

/// Suite `sm4_ce`: the modes of `sm4-ce`.
mod ce {
    /// The drivers under test: `<mode>-SUFFIX`.
    const SUFFIX: &str = "sm4-ce";

    /// The priority of the drivers.
    const PRIORITY: i32 = 400;

    include!("sm4_modes.rs");
    modes_suite!(sm4_ce);
}

/// Suite `sm4_neon`: the modes of `sm4-neon`.
mod neon {
    /// The drivers under test: `<mode>-SUFFIX`.
    const SUFFIX: &str = "sm4-neon";

    /// The priority of the drivers.
    const PRIORITY: i32 = 200;

    include!("sm4_modes.rs");
    modes_suite!(sm4_neon);

    /// Suite `sm4_neon_variants`: each way the NEON core does the S-box (tbx, tbl, aese),
    /// forced in turn whatever the CPU would pick, through the modes that use the batch
    /// routines, against the oracle; kprobes on the routines show that the forced variant,
    /// and only it, ran. (It reaches `sm4-neon`'s switch with `__symbol_get()` and
    /// `__symbol_put()`, which kernels without module unloading lack.)
    #[cfg(CONFIG_MODULE_UNLOAD)]
    mod variants {
        use super::*;
        use core::sync::atomic::AtomicU32;

        /// `sm4rs_neon_impl` of `sm4-neon` (exported for KUnit) set to a variant while this
        /// lives, then back to what it was.
        struct Forced {
            var: *const AtomicU32,
            old: u32,
        }

        impl Forced {
            fn new(v: u32) -> Result<Self, Failure> {
                // SAFETY: looks an exported symbol up by its NUL-terminated name and takes a
                // reference on its module, dropped in `drop`.
                let p =
                    unsafe { bindings::__symbol_get(crate::crypto::c_str_ptr(c"sm4rs_neon_impl")) };
                if p.is_null() {
                    return Err(fail!("sm4-neon does not export sm4rs_neon_impl"));
                }
                let var = p.cast::<AtomicU32>().cast_const();
                // SAFETY: the exported word, which `sm4-neon` only accesses atomically; its
                // module cannot go while the reference is held.
                let old = unsafe { &*var }.swap(v, Ordering::Relaxed);
                Ok(Self { var, old })
            }
        }

        impl Drop for Forced {
            fn drop(&mut self) {
                // SAFETY: as in `new`; the reference is still held.
                unsafe { &*self.var }.store(self.old, Ordering::Relaxed);
                // SAFETY: drops the reference `__symbol_get` took (a data symbol: by name).
                unsafe { bindings::__symbol_put(crate::crypto::c_str_ptr(c"sm4rs_neon_impl")) };
            }
        }

        /// The routines of each variant, by its number (aese's single blocks have one of
        /// their own).
        const ROUTINES: [(u32, &[&CStr]); 3] = [
            (1, &[c"sm4rs_neon_crypt_tbx", c"sm4rs_neon_cryptn_tbx"]),
            (2, &[c"sm4rs_neon_crypt_tbl", c"sm4rs_neon_cryptn_tbl"]),
            (
                3,
                &[
                    c"sm4rs_neon_crypt_aese",
                    c"sm4rs_neon_cryptn_aese",
                    c"sm4rs_neon_crypt1_aese",
                ],
            ),
        ];

        /// ECB, CBC, CTR and XTS (the batch routines with and without `pre` and `post`)
        /// against the oracle with variant `v` forced; its routines must have run, the
        /// other variants' not.
        fn variant(v: u32) -> TestResult {
            skip_unless!(present(), "the driver is not loaded");
            // First a request with the CPU's own pick, which `sm4-neon` remembers for the
            // CPU: a forced variant must win over it, not only over an empty memory.
            let m = mode(c"ecb(sm4)")?;
            differential(m.driver, m.reference, m.key, 0x5eed_0101)?;
            let mut counters = KVec::new();
            for &(n, syms) in ROUTINES.iter() {
                for &sym in syms {
                    counters
                        .push((n, sym, CallCounter::start(sym)?), GFP_KERNEL)
                        .map_err(|_| fail!("alloc"))?;
                }
            }
            {
                let _forced = Forced::new(v)?;
                for (name, seed) in [
                    (c"ecb(sm4)", 0x5eed_0102),
                    (c"cbc(sm4)", 0x5eed_0103),
                    (c"ctr(sm4)", 0x5eed_0105),
                    (c"xts(sm4)", 0x5eed_0107),
                ] {
                    let m = mode(name)?;
                    differential(m.driver, m.reference, m.key, seed)?;
                }
            }
            for (n, sym, c) in counters.iter() {
                let calls = c.count();
                if (*n == v) != (calls > 0) {
                    kernel::pr_err!("    # variant {}: {} calls of {:?}\n", v, calls, sym);
                    return Err(fail!(
                        "the forced variant's routines did not run, or others did",
                    ));
                }
            }
            Ok(())
        }

        fn tbx_vs_oracle() -> TestResult {
            variant(1)
        }

        fn tbl_vs_oracle() -> TestResult {
            variant(2)
        }

        fn aese_vs_oracle() -> TestResult {
            // SAFETY: reads the system-wide CPU feature bits.
            let aes = unsafe {
                bindings::cpu_have_feature(bindings::KERNEL_HWCAP_AES)
                    && bindings::cpu_have_feature(bindings::KERNEL_HWCAP_PMULL)
            };
            skip_unless!(aes, "the CPUs have no AES and PMULL instructions");
            variant(3)
        }

        suite!(
            sm4_neon_variants,
            [tbx_vs_oracle, tbl_vs_oracle, aese_vs_oracle]
        );
    }
}

/// Suite `sm4_ce_cipher`: the `sm4-ce` single-block cipher against the oracle.
mod ce_cipher {
    use crate::kunit::{check, check_eq, check_ok, skip_unless, suite, TestResult};
    use crate::rng::Rng;
    use crate::sm4::vectors;
    use crate::testing::CipherTfm;

    /// Example 1 of the standard, and 64 random keys with 8 random blocks each, both
    /// directions, in place and out of place, the same as the oracle (a wrong SM4EKEY round
    /// key changes them).
    fn cipher_vs_oracle() -> TestResult {
        let ce = CipherTfm::new(c"sm4-ce");
        skip_unless!(ce.is_ok(), "sm4-ce is not loaded");
        let mut ce = check_ok!(ce);
        let mut generic = check_ok!(CipherTfm::new(crate::oracle::CIPHER));
        check!(ce.set_key(&vectors::STD_KEY).is_ok());
        let mut b = vectors::STD_KEY;
        check!(ce.encrypt(&mut b).is_ok());
        check_eq!(b, vectors::STD_CT);
        let mut rng = Rng(0x5eed_0101);
        for _ in 0..64 {
            let mut k = [0u8; 16];
            rng.fill(&mut k);
            check!(ce.set_key(&k).is_ok());
            check!(generic.set_key(&k).is_ok());
            for j in 0..8 {
                let mut p = [0u8; 16];
                rng.fill(&mut p);
                let (mut a, mut g) = (p, p);
                check!(ce.encrypt(&mut a).is_ok());
                check!(generic.encrypt(&mut g).is_ok());
                check_eq!(a, g);
                check!(crate::testing::cipher_out_of_place(&ce, &p, &a, j));
                check!(ce.decrypt(&mut a).is_ok());
                check_eq!(a, p);
            }
        }
        Ok(())
    }

    suite!(sm4_ce_cipher, [cipher_vs_oracle]);
}

/// Suite `sm4_ce_mac`: `cmac-sm4-ce`, `xcbc-sm4-ce` and `cbcmac-sm4-ce` against the kernel's
/// `cmac`, `xcbc` and `cbcmac` templates over the oracle.
mod ce_mac {
    use crate::aead_suites::{SectionBytes, Taken};
    use crate::kunit::{check, check_eq, check_ok, in_matrix, skip_unless, suite, TestResult};
    use crate::rng::Rng;
    use crate::testing::{in_hard_irq, ShashTfm};
    use core::ffi::CStr;
    use kernel::alloc::{flags::GFP_KERNEL, KVec};

    /// Each MAC of the driver and its reference.
    const PAIRS: [(&CStr, &CStr); 3] = [
        (c"cmac-sm4-ce", c"cmac(sm4-oracle)"),
        (c"xcbc-sm4-ce", c"xcbc(sm4-oracle)"),
        (c"cbcmac-sm4-ce", c"cbcmac(sm4-oracle)"),
    ];

    /// Message lengths: 0 to past 4096, block multiples and not.
    const LENS: [usize; 20] = [
        0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 64, 100, 255, 256, 257, 1000, 4095, 4096, 4099,
    ];

    /// How the message is given: at once (`crypto_shash_digest()`), or in updates of these
    /// sizes (cycled).
    const SPLITS: [&[usize]; 5] = [&[], &[usize::MAX], &[1], &[16], &[3, 16, 1, 29, 64, 7, 13]];

    /// Whether `sm4-ce` is loaded with its MACs.
    fn present() -> bool {
        ShashTfm::new(c"cmac-sm4-ce").is_ok()
    }

    /// 8 random keys per MAC; every length and split gives the reference's MAC of the whole
    /// message at once.
    fn mac_vs_oracle() -> TestResult {
        skip_unless!(present(), "sm4-ce is not loaded");
        let mut rng = Rng(0x5eed_0303);
        let mut data = check_ok!(KVec::from_elem(0u8, 4099, GFP_KERNEL));
        let mut n = 0usize;
        for (ours, reference) in PAIRS {
            let mut a = check_ok!(ShashTfm::new(ours));
            let mut r = check_ok!(ShashTfm::new(reference));
            for _ in 0..8 {
                let mut key = [0u8; 16];
                rng.fill(&mut key);
                rng.fill(&mut data);
                check!(a.set_key(&key).is_ok());
                check!(r.set_key(&key).is_ok());
                for len in LENS {
                    n += 1;
                    if !in_matrix(n) {
                        continue;
                    }
                    let msg = &data[..len];
                    let mut want = [0u8; 16];
                    check!(r.digest(msg, &[], &mut want).is_ok());
                    for split in SPLITS {
                        let mut got = [0u8; 16];
                        check!(a.digest(msg, split, &mut got).is_ok());
                        check_eq!(got, want);
                    }
                }
            }
        }
        Ok(())
    }

    /// Keys set where NEON may not be used (in hard interrupt context: the key schedule and
    /// the subkeys in Rust) give the reference's MAC.
    fn mac_set_key_without_neon() -> TestResult {
        skip_unless!(present(), "sm4-ce is not loaded");
        let mut rng = Rng(0x5eed_0304);
        let mut data = [0u8; 100];
        rng.fill(&mut data);
        for (ours, reference) in PAIRS {
            let mut key = [0u8; 16];
            rng.fill(&mut key);
            let mut a = check_ok!(ShashTfm::new(ours));
            let mut r = check_ok!(ShashTfm::new(reference));
            let mut keyed = None;
            check!(in_hard_irq(|| keyed = Some(a.set_key(&key).is_ok())).is_ok());
            check_eq!(keyed, Some(true));
            check!(r.set_key(&key).is_ok());
            for len in [0, 16, 33, 100] {
                let (mut got, mut want) = ([0u8; 16], [0u8; 16]);
                check!(a.digest(&data[..len], &[], &mut got).is_ok());
                check!(r.digest(&data[..len], &[], &mut want).is_ok());
                check_eq!(got, want);
            }
        }
        Ok(())
    }

    /// Keys of every length but 16 are refused, as by the reference, and the transform
    /// still works with a good key afterwards.
    fn mac_bad_keys() -> TestResult {
        skip_unless!(present(), "sm4-ce is not loaded");
        let key = [0x5au8; 33];
        for (ours, reference) in PAIRS {
            let mut a = check_ok!(ShashTfm::new(ours));
            let mut r = check_ok!(ShashTfm::new(reference));
            for len in [0, 1, 15, 17, 24, 32, 33] {
                let ea = a.set_key(&key[..len]).map_err(|e| e.to_errno());
                let er = r.set_key(&key[..len]).map_err(|e| e.to_errno());
                check!(ea.is_err());
                check_eq!(ea, er);
            }
            check!(a.set_key(&key[..16]).is_ok());
            check!(r.set_key(&key[..16]).is_ok());
            let (mut x, mut y) = ([0u8; 16], [0u8; 16]);
            check!(a.digest(&key, &[5], &mut x).is_ok());
            check!(r.digest(&key, &[], &mut y).is_ok());
            check_eq!(x, y);
        }
        Ok(())
    }

    /// The state a request exports (the crypto API copies states as bytes, e.g. for
    /// AF_ALG's accept()) continues in a new descriptor to the oracle's MAC of the whole
    /// message, whatever the split. The state ends with the partial block and its fill
    /// count (the hash API's layout since Linux 6.16, the abstraction's before): CMAC and
    /// XCBC keep a last whole block there, CBC-MAC does not. A count above a block (any
    /// bytes are a state the API can import) is refused (`EOVERFLOW`, by the API that
    /// keeps the block) or read as a full block (by the abstraction), never read past.
    fn mac_export_import() -> TestResult {
        const EOVERFLOW: i32 = -75;
        skip_unless!(present(), "sm4-ce is not loaded");
        let mut rng = Rng(0x5eed_0304);
        let mut data = [0u8; 100];
        rng.fill(&mut data);
        for (ours, reference) in PAIRS {
            let keeps_whole = ours != c"cbcmac-sm4-ce";
            let mut a = check_ok!(ShashTfm::new(ours));
            let mut r = check_ok!(ShashTfm::new(reference));
            let mut key = [0u8; 16];
            rng.fill(&mut key);
            check!(a.set_key(&key).is_ok());
            check!(r.set_key(&key).is_ok());
            for len in [0usize, 1, 16, 17, 32, 33, 100] {
                let msg = &data[..len];
                let mut want = [0u8; 16];
                check!(r.digest(msg, &[], &mut want).is_ok());
                for split in [0, 1, 15, 16, 17, 32, 33, 99] {
                    if split > len {
                        continue;
                    }
                    // The MAC, the partial block, its fill count.
                    let mut state = [0u8; 33];
                    check!(a.export_after(&msg[..split], &mut state).is_ok());
                    let fill = if keeps_whole && split > 0 && split % 16 == 0 {
                        16
                    } else {
                        split % 16
                    };
                    check_eq!(usize::from(state[32]), fill);
                    let mut got = [0u8; 16];
                    check!(a.digest_from_state(&state, &msg[split..], &mut got).is_ok());
                    check_eq!(got, want);
                    if fill == 16 {
                        for over in [17u8, 0x80, 0xff] {
                            state[32] = over;
                            let mut got = [0u8; 16];
                            match a.digest_from_state(&state, &msg[split..], &mut got) {
                                Ok(()) => check_eq!(got, want),
                                Err(e) => check_eq!(e.to_errno(), EOVERFLOW),
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// NEON sections of a MAC follow the kernel's rule: an update of 16 pages in one piece
    /// takes a section per page at least, none over more than a page (Linux 6.12's glue
    /// bounds its sections to a step of the walk: the blocks handed to the core routine,
    /// `SectionBytes`), exactly one where the kernel lets a section span the update (7.3, as
    /// its glue does; and one for the last block), and gives the reference's MAC.
    fn mac_sections_per_page() -> TestResult {
        skip_unless!(present(), "sm4-ce is not loaded");
        const PAGES: usize = 16;
        let data = KVec::from_elem(0x5au8, PAGES * crate::bindings::PAGE_SIZE, GFP_KERNEL);
        skip_unless!(data.is_ok(), "no 16 pages of contiguous memory");
        let data = check_ok!(data);
        let mut a = check_ok!(ShashTfm::new(c"cmac-sm4-ce"));
        let mut r = check_ok!(ShashTfm::new(c"cmac(sm4-oracle)"));
        check!(a.set_key(&[7u8; 16]).is_ok());
        check!(r.set_key(&[7u8; 16]).is_ok());
        let (mut got, mut want) = ([0u8; 16], [0u8; 16]);
        let counter = crate::ce::CallCounter::sections()?;
        let bytes = SectionBytes::start(&[(c"sm4rs_ce_cbcmac", Taken::Blocks)])?;
        check!(a.digest(&data, &[usize::MAX], &mut got).is_ok());
        let (sections, widest) = (counter.count(), bytes.widest());
        drop(bytes);
        drop(counter);
        if crate::crypto::SECTION_MAY_SPAN_WALK {
            // (One over the update of the whole blocks, one for the last block's.)
            check_eq!(sections, 2);
        } else {
            check!(sections >= PAGES && widest <= crate::bindings::PAGE_SIZE);
        }
        check!(r.digest(&data, &[], &mut want).is_ok());
        check_eq!(got, want);
        Ok(())
    }

    suite!(
        sm4_ce_mac,
        [
            mac_vs_oracle,
            mac_bad_keys,
            mac_export_import,
            mac_set_key_without_neon,
            mac_sections_per_page
        ]
    );
}

#[path = "abstraction.rs"]
mod abstraction;
