// SPDX-License-Identifier: GPL-2.0

//! Read-only string module parameters, for a driver's choice among its implementations.
//!
//! C header: [`include/linux/moduleparam.h`](srctree/include/linux/moduleparam.h).
//!
//! Linux 6.12's `module!` has no parameters, so [`str_param!`] declares one much as C's
//! `module_param(name, charp, 0444)` does: a `struct kernel_param` in the `__param` section
//! whose `param_ops_charp` the kernel calls while it parses the module's arguments (or, built
//! in, the command line's `<module>.<name>=`), before the module's `init`.

use super::bindings;
use core::{
    cell::UnsafeCell,
    ffi::{c_char, CStr},
};

/// The value of a string parameter: the pointer that `param_ops_charp` sets.
///
/// # Invariants
///
/// The pointer is NULL or points to a NUL-terminated string that lives until the module is
/// unloaded; it is written only by the kernel's parameter parsing, before `init` (the
/// parameter is read-only in sysfs: permission 0444), and freed after `exit`.
#[repr(transparent)]
pub struct StrValue(UnsafeCell<*mut c_char>);

// SAFETY: the value is written only before the module's `init` and after its `exit` (see the
// type invariants), while nothing of the module runs; in between it is only read.
unsafe impl Sync for StrValue {}

impl StrValue {
    /// A value that is `default` until the kernel sets it.
    pub const fn new(default: &'static CStr) -> Self {
        // INVARIANT: a static NUL-terminated string.
        Self(UnsafeCell::new(super::c_str_ptr(default).cast_mut()))
    }

    /// The pointer the kernel sets, for the parameter's description.
    pub const fn as_arg(&'static self) -> *mut core::ffi::c_void {
        self.0.get().cast()
    }

    /// The parameter's value (empty if the kernel set none).
    pub fn get(&self) -> &CStr {
        // SAFETY: only the kernel's parameter parsing writes the pointer, not while the
        // module's code runs (the type invariants).
        let p = unsafe { *self.0.get() };
        if p.is_null() {
            return c"";
        }
        let mut len = 0;
        // SAFETY: a NUL-terminated string that lives as long as the module (the type
        // invariants): every byte up to its NUL can be read.
        while unsafe { *p.add(len) } != 0 {
            len += 1;
        }
        // SAFETY: the `len` bytes before the NUL and the NUL itself, as above; no NUL
        // among the first `len`.
        unsafe {
            CStr::from_bytes_with_nul_unchecked(core::slice::from_raw_parts(
                p.cast::<u8>(),
                len + 1,
            ))
        }
    }
}

/// A `struct kernel_param`, for the `__param` section.
#[repr(transparent)]
pub struct Param(bindings::kernel_param);

// SAFETY: the kernel only reads it, and its pointers are to statics that are `Sync` (the
// name, `param_ops_charp` and a [`StrValue`]).
unsafe impl Sync for Param {}

impl Param {
    /// A read-only (0444) string parameter named `name` whose value the kernel sets in
    /// `value`, as C's `module_param(name, charp, 0444)` (without the module pointer, which
    /// the kernel uses for array parameters only).
    pub const fn charp(name: &'static CStr, value: &'static StrValue) -> Self {
        Self(bindings::kernel_param {
            name: super::c_str_ptr(name),
            mod_: core::ptr::null_mut(),
            ops: &raw const bindings::param_ops_charp,
            perm: 0o444,
            level: -1,
            flags: 0,
            __bindgen_anon_1: bindings::kernel_param__bindgen_ty_1 {
                arg: value.as_arg(),
            },
        })
    }
}

/// `N` bytes of a `.modinfo` entry.
#[repr(transparent)]
pub struct ModInfo<const N: usize>(pub [u8; N]);

impl<const N: usize> ModInfo<N> {
    /// The first `N` bytes of `s` (which has exactly `N`).
    pub const fn new(s: &str) -> Self {
        let b = s.as_bytes();
        let mut a = [0u8; N];
        let mut i = 0;
        while i < N && i < b.len() {
            a[i] = b[i];
            i += 1;
        }
        Self(a)
    }
}

/// Declares the read-only string module parameter `$name` of the module `$module` (its
/// name as `KBUILD_MODNAME` gives it, for the built-in `<module>.<name>=`), as the static
/// [`StrValue`] `$value`, `$default` until the kernel sets it; `$desc` is what `modinfo`
/// shows.
#[doc(hidden)]
#[macro_export]
macro_rules! __crypto_str_param {
    ($value:ident, $name:literal, $module:literal, $default:expr, $desc:literal) => {
        static $value: $crate::crypto::param::StrValue =
            $crate::crypto::param::StrValue::new($default);
        const _: () = {
            use $crate::crypto::param::{ModInfo, Param};
            // Built in, the kernel looks the name up with the module's prefix.
            const NAME: &str = if cfg!(MODULE) {
                concat!($name, "\0")
            } else {
                concat!($module, ".", $name, "\0")
            };
            const NAME_C: &core::ffi::CStr =
                match core::ffi::CStr::from_bytes_with_nul(NAME.as_bytes()) {
                    Ok(n) => n,
                    Err(_) => panic!("parameter name"),
                };
            #[used]
            #[link_section = "__param"]
            static PARAM: Param = Param::charp(NAME_C, &$value);
            const PARMTYPE: &str = concat!("parmtype=", $name, ":charp\0");
            const PARM: &str = concat!("parm=", $name, ":", $desc, "\0");
            #[cfg(MODULE)]
            #[used]
            #[link_section = ".modinfo"]
            static INFO_TYPE: ModInfo<{ PARMTYPE.len() }> = ModInfo::new(PARMTYPE);
            #[cfg(MODULE)]
            #[used]
            #[link_section = ".modinfo"]
            static INFO: ModInfo<{ PARM.len() }> = ModInfo::new(PARM);
        };
    };
}
// (Out of tree each module compiles its own copy of the abstraction, and most do not use
// this.)
#[allow(unused_imports)]
pub use __crypto_str_param as str_param;
