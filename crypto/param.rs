// SPDX-License-Identifier: GPL-2.0

//! Read-only string module parameters, for a driver's choice among its implementations.
//!
//! C header: [`include/linux/moduleparam.h`](srctree/include/linux/moduleparam.h).

use super::bindings;
use core::{
    cell::UnsafeCell,
    ffi::{c_char, CStr},
};

/// The value of a string parameter: the pointer that `param_ops_charp` sets.
///
/// # Invariants
///
/// The pointer is NULL or a NUL-terminated string living with the module, set before `init`.
#[repr(transparent)]
pub struct StrValue(UnsafeCell<*mut c_char>);

// SAFETY: the value is only written while none of the module's code runs (type invariants).
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
        // SAFETY: not written while the module's code runs (type invariants).
        let p = unsafe { *self.0.get() };
        if p.is_null() {
            return c"";
        }
        let mut len = 0;
        // SAFETY: a NUL-terminated string that lives as long as the module (type invariants).
        while unsafe { *p.add(len) } != 0 {
            len += 1;
        }
        // SAFETY: the `len` bytes before the NUL, none of them NUL, and the NUL, as above.
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

// SAFETY: the kernel only reads it; it points to `Sync` statics.
unsafe impl Sync for Param {}

impl Param {
    /// A read-only string parameter `name` set in `value`: `module_param(name, charp, 0444)`.
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

/// Declares the read-only string parameter `$name` of `$module` as the static `$value`.
#[doc(hidden)]
#[macro_export]
macro_rules! __crypto_str_param {
    ($value:ident, $name:literal, $module:literal, $default:expr, $desc:literal) => {
        static $value: $crate::crypto::param::StrValue =
            $crate::crypto::param::StrValue::new($default);
        const _: () = {
            use $crate::crypto::param::{ModInfo, Param};
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
// (Unused by most modules, each of which has its own copy out of tree.)
#[allow(unused_imports)]
pub use __crypto_str_param as str_param;
