// SPDX-License-Identifier: GPL-2.0

//! The skcipher modes of the SM4 back ends (`sm4-ce`, `sm4-neon`), declared once.
//!
//! [`with_modes!`] hands the list to a macro. `sm4/modes.rs` makes from it the modes' types,
//! their registration and their module aliases; the KUnit suites their tables of drivers and
//! references; `scripts/modes.sh` reads its lines (one mode per line, in exactly the form
//! below) for the VM scenarios and the AF_ALG tool. A new mode is a line here and its
//! `impl Skcipher` in `sm4/modes.rs`. [`DriverName`] builds the drivers' names.

use core::ffi::CStr;

/// Calls the macro `$m` with the list of modes, one per line:
///
/// `Type: "algorithm", "mode", key, iv, block, unit, "reference", sections;`
///
/// optionally after a `#[cfg(...)]` (a mode behind a Kconfig symbol), where `Type` is the
/// mode's type in `sm4/modes.rs`, `"mode"` the mode's part of the driver names
/// (`"<mode>-<back end>"`), `key` and `iv` the key and IV sizes in bytes (`iv` 0: none),
/// `block` the algorithm's block size (also the shortest request), `unit` the multiple that
/// request lengths must be (16: whole blocks only), `"reference"` the same algorithm from
/// the kernel's templates over the test module's C SM4 (`sm4-oracle`), which the tests
/// compare the drivers with, and `sections` the NEON sections of a request: `step`, one per
/// walk step; `request`, one over the whole request where the kernel's rule lets a section
/// span a walk (`crypto::SECTION_MAY_SPAN_WALK`: 7.3's glue does so for XTS), one
/// per step elsewhere.
macro_rules! with_modes {
    ($m:ident) => {
        $m! {
            Ecb: "ecb(sm4)", "ecb", 16, 0, 16, 16, "ecb(sm4-oracle)", step;
            Cbc: "cbc(sm4)", "cbc", 16, 16, 16, 16, "cbc(sm4-oracle)", step;
            #[cfg(CONFIG_CRYPTO_SM4_RUST_CFB)]
            Cfb: "cfb(sm4)", "cfb", 16, 16, 1, 1, "cfb-sm4-oracle", step;
            Ctr: "ctr(sm4)", "ctr", 16, 16, 1, 1, "ctr(sm4-oracle)", step;
            Cts: "cts(cbc(sm4))", "cts-cbc", 16, 16, 16, 1, "cts(cbc(sm4-oracle))", step;
            Xts: "xts(sm4)", "xts", 32, 16, 16, 1, "xts(ecb(sm4-oracle))", request;
        }
    };
}
pub(crate) use with_modes;

/// A driver name built at compile time from a mode and an implementation: `ecb-sm4-ce`.
pub(crate) struct DriverName([u8; DriverName::MAX]);

impl DriverName {
    /// `CRYPTO_MAX_ALG_NAME`, the size of `cra_driver_name`.
    const MAX: usize = 128;

    /// `"<mode>-<implementation>"`; a name that does not fit stops the build.
    pub(crate) const fn new(mode: &str, implementation: &str) -> Self {
        let (m, i) = (mode.as_bytes(), implementation.as_bytes());
        assert!(m.len() + 1 + i.len() < Self::MAX, "driver name too long");
        let mut out = [0u8; Self::MAX];
        let mut k = 0;
        while k < m.len() {
            out[k] = m[k];
            k += 1;
        }
        out[k] = b'-';
        k = 0;
        while k < i.len() {
            out[m.len() + 1 + k] = i[k];
            k += 1;
        }
        Self(out)
    }

    /// The name as a C string.
    pub(crate) const fn as_c_str(&'static self) -> &'static CStr {
        match CStr::from_bytes_until_nul(&self.0) {
            Ok(name) => name,
            // (`new` always leaves a NUL: at least the last byte.)
            Err(_) => c"",
        }
    }
}
