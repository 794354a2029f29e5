// SPDX-License-Identifier: GPL-2.0

//! Registration of algorithms with the crypto API, and their per-transform contexts.
//!
//! C header: [`include/crypto/algapi.h`](srctree/include/crypto/algapi.h).
//!
//! The crypto API frees a description on its last reference, so a [`Registration`] may be
//! dropped while in use (Linux 6.12 warns and keeps it; module init waits for its users).

use super::{bindings, ctx, wipe_raw};
use core::{
    ffi::c_int,
    marker::PhantomData,
    mem::{size_of, MaybeUninit},
    ptr::{self, NonNull},
};
use kernel::{
    alloc::{flags::GFP_KERNEL, KBox},
    error::{to_result, Result},
    types::Opaque,
    ThisModule,
};

/// A kind of algorithm: the C struct that describes one, and the functions that register it.
///
/// # Safety
///
/// `BASE` and `TFM_BASE` must be the offsets of the `crypto_alg` and `crypto_tfm` in `Raw`
/// and `Tfm`, and `register` and `unregister` the kind's registration functions.
pub unsafe trait Kind: 'static {
    /// The C description of one algorithm, e.g. `struct skcipher_alg`.
    type Raw: 'static;
    /// The offset of the `struct crypto_alg` in [`Kind::Raw`].
    const BASE: usize;
    /// A transform of an algorithm of the kind, e.g. `struct crypto_skcipher`.
    type Tfm: 'static;
    /// The offset of the `struct crypto_tfm` in [`Kind::Tfm`].
    const TFM_BASE: usize;

    /// Registers the algorithm `raw` describes (`crypto_register_skcipher()`, ...).
    ///
    /// # Safety
    ///
    /// `raw` must be a valid description that stays valid and put until its `cra_destroy`.
    unsafe fn register(raw: *mut Self::Raw) -> c_int;

    /// Unregisters the algorithm `raw` describes.
    ///
    /// # Safety
    ///
    /// `raw` must have been registered by [`Kind::register`] and not unregistered since.
    unsafe fn unregister(raw: *mut Self::Raw);
}

/// Declares a kind of algorithm: its struct, [`Kind`] implementation, `alg()` and alias.
macro_rules! kind {
    // The place of a field of the struct at `p` (none: the struct itself).
    (@project $p:ident) => { $p };
    (@project $p:ident $($field:ident).+) => {{
        // SAFETY: a place is named, not read.
        unsafe { core::ptr::addr_of_mut!((*$p).$($field).+) }
    }};
    (
        $(#[$doc:meta])*
        pub struct $kind:ident for $trait:ident ($what:literal) {
            raw: $raw:ident $(at $($base:ident).+)?,
            tfm: $tfm:ident $(at $($tfm_base:ident).+)?,
            unsafe register: $register:ident, $unregister:ident,
        }
    ) => {
        $(#[$doc])*
        pub struct $kind;

        // These projections compile only if the fields are a `crypto_alg` and a `crypto_tfm`.
        const _: fn(*mut super::bindings::$raw) -> *mut super::bindings::crypto_alg =
            |raw| super::alg::kind!(@project raw $($($base).+)?);
        const _: fn(*mut super::bindings::$tfm) -> *mut super::bindings::crypto_tfm =
            |tfm| super::alg::kind!(@project tfm $($($tfm_base).+)?);

        // SAFETY: the offsets are those of the fields checked above; the functions the kind's.
        unsafe impl super::alg::Kind for $kind {
            type Raw = super::bindings::$raw;
            const BASE: usize = 0 $(+ core::mem::offset_of!(super::bindings::$raw, $($base).+))?;
            type Tfm = super::bindings::$tfm;
            const TFM_BASE: usize =
                0 $(+ core::mem::offset_of!(super::bindings::$tfm, $($tfm_base).+))?;

            unsafe fn register(raw: *mut Self::Raw) -> core::ffi::c_int {
                // SAFETY: as required of the caller.
                unsafe { super::bindings::$register(raw) }
            }

            unsafe fn unregister(raw: *mut Self::Raw) {
                // SAFETY: as required of the caller.
                unsafe { super::bindings::$unregister(raw) }
            }
        }

        /// The description of `T`, at compile time, for [`Registration::new`].
        pub const fn alg<T: $trait>() -> super::alg::Alg<$kind> {
            super::alg::Alg(Adapter::<T>::ALG)
        }

        #[doc = concat!(
            "`N` registered ", $what, "; dropping it unregisters them (see [`super::alg`])."
        )]
        pub type Registration<const N: usize> = super::alg::Registration<$kind, N>;
    };
}
pub(crate) use kind;

/// The length of the `.modinfo` text of [`alias_crypto!`] for `names` with `prefix`.
pub const fn aliases_len(prefix: &str, names: &[[&str; 3]]) -> usize {
    let mut len = 0;
    let mut i = 0;
    while i < names.len() {
        len += prefix.len() + ALIAS.len() + 1;
        let mut j = 0;
        while j < 3 {
            len += names[i][j].len();
            j += 1;
        }
        i += 1;
    }
    len
}

const ALIAS: &str = "alias=crypto-";

/// The `.modinfo` text of [`alias_crypto!`]; `N` must be [`aliases_len`].
pub const fn aliases<const N: usize>(prefix: &str, names: &[[&str; 3]]) -> [u8; N] {
    let mut out = [0u8; N];
    let mut k = 0;
    let mut i = 0;
    while i < names.len() {
        let parts = [prefix, ALIAS, names[i][0], names[i][1], names[i][2]];
        let mut j = 0;
        while j < parts.len() {
            let b = parts[j].as_bytes();
            let mut m = 0;
            while m < b.len() && k < N {
                out[k] = b[m];
                k += 1;
                m += 1;
            }
            j += 1;
        }
        // (The NUL: `out` is zeroed.)
        k += 1;
        i += 1;
    }
    out
}

/// `MODULE_ALIAS_CRYPTO()` for the module `$module` and the names `$names` (`&[[&str; 3]]`).
#[doc(hidden)]
#[macro_export]
macro_rules! __crypto_alias_crypto {
    ($module:literal, $names:expr) => {
        const _: () = {
            const NAMES: &[[&str; 3]] = $names;
            const PREFIX: &str = if cfg!(MODULE) {
                ""
            } else {
                concat!($module, ".")
            };
            const LEN: usize = $crate::crypto::alg::aliases_len(PREFIX, NAMES);
            #[used]
            #[link_section = ".modinfo"]
            static ALIASES: [u8; LEN] = $crate::crypto::alg::aliases::<LEN>(PREFIX, NAMES);
        };
    };
}
// (Unused by most modules, each of which has its own copy out of tree.)
#[allow(unused_imports)]
pub use __crypto_alias_crypto as alias_crypto;

/// The C description of one algorithm of kind `K`, built by the kind's `alg()`.
pub struct Alg<K: Kind>(pub(crate) K::Raw);

fn base<K: Kind>(raw: *mut K::Raw) -> *mut bindings::crypto_alg {
    raw.cast::<u8>().wrapping_add(K::BASE).cast()
}

/// # Safety
///
/// Called by the crypto API once, as `cra_destroy` of a [`Registration::new`] description.
unsafe extern "C" fn destroy<K: Kind>(alg: *mut bindings::crypto_alg) {
    let raw = alg
        .cast::<u8>()
        .wrapping_sub(K::BASE)
        .cast::<Opaque<K::Raw>>();
    // SAFETY: `raw` embeds `alg` and came from `KBox::into_raw`; no reference to it is left.
    drop(unsafe { KBox::from_raw(raw) });
}

/// Unregisters `raw` of `module`; during its init, leaks it and waits until nothing holds it.
///
/// # Safety
///
/// `raw` must be registered by [`Registration::new`] for `module`, and not used again.
unsafe fn unregister<K: Kind>(module: &'static ThisModule, raw: *mut K::Raw) {
    // SAFETY: `module` is NULL (built in) or the module running this code.
    let in_init = unsafe { bindings::module_in_init(module.as_ptr().cast()) };
    let alg = base::<K>(raw);
    if in_init {
        // SAFETY: `raw` is registered (caller); module init may sleep.
        unsafe { bindings::alg_wait_refs(alg, 1) };
        // SAFETY: registered (caller); `cra_destroy` is read only after the unregistration.
        unsafe { (*alg).cra_destroy = None };
    }
    // SAFETY: registered and not unregistered since (caller).
    unsafe { K::unregister(raw) };
    if in_init {
        #[cfg(not(sm4rs_unregister_puts))]
        let left = 1;
        #[cfg(sm4rs_unregister_puts)]
        let left = 0;
        // SAFETY: without `cra_destroy` the description is never freed; init may sleep.
        unsafe { bindings::alg_wait_refs(alg, left) };
    }
}

/// `N` registered algorithms of kind `K`; dropping it unregisters them.
///
/// # Invariants
///
/// Each of `algs` is registered by [`Registration::new`] for `module` while this lives, and
/// freed only by its `cra_destroy`.
pub struct Registration<K: Kind, const N: usize> {
    algs: [NonNull<K::Raw>; N],
    module: &'static ThisModule,
    _kind: PhantomData<K>,
}

impl<K: Kind, const N: usize> Registration<K, N> {
    /// Registers `algs` (all or none) for `module`, which their live transforms keep loaded.
    pub fn new(module: &'static ThisModule, algs: [Alg<K>; N]) -> Result<Self> {
        let mut done: [MaybeUninit<NonNull<K::Raw>>; N] = [const { MaybeUninit::uninit() }; N];
        for (i, desc) in algs.into_iter().enumerate() {
            let res = Self::register_one(module, desc.0);
            match res {
                Ok(p) => {
                    if let Some(slot) = done.get_mut(i) {
                        slot.write(p);
                    }
                }
                Err(e) => {
                    for slot in done[..i].iter().rev() {
                        // SAFETY: the first `i` slots were written above.
                        let raw = unsafe { slot.assume_init() }.as_ptr();
                        // SAFETY: registered above for `module`; unregistered once, here.
                        unsafe { unregister::<K>(module, raw) };
                    }
                    return Err(e);
                }
            }
        }
        // SAFETY: all `N` slots were written (the loop ran `N` times without an error).
        let algs = done.map(|d| unsafe { d.assume_init() });
        // INVARIANT: each allocated and registered above for `module`.
        Ok(Self {
            algs,
            module,
            _kind: PhantomData,
        })
    }

    /// Allocates `raw` with `cra_module` set, registers it, and then sets its `cra_destroy`.
    fn register_one(module: &'static ThisModule, raw: K::Raw) -> Result<NonNull<K::Raw>> {
        let b = KBox::new(Opaque::new(raw), GFP_KERNEL)?;
        let p = KBox::into_raw(b);
        let raw = p.cast::<K::Raw>();
        let alg = base::<K>(raw);
        // SAFETY: not yet shared; no `cra_destroy` yet, as a failed registration may call it.
        unsafe {
            (*alg).cra_module = module.as_ptr().cast();
            (*alg).cra_destroy = None;
        }
        // SAFETY: `raw` is valid and is neither moved nor freed until its `cra_destroy`.
        let r = to_result(unsafe { K::register(raw) });
        if let Err(e) = r {
            // SAFETY: `p` came from `KBox::into_raw` above; the crypto API did not keep it.
            drop(unsafe { KBox::from_raw(p) });
            return Err(e);
        }
        // SAFETY: registered; `cra_destroy` is read only after the unregistration (`Drop`).
        unsafe { (*alg).cra_destroy = Some(destroy::<K>) };
        NonNull::new(raw).ok_or(kernel::error::code::ENOMEM)
    }
}

impl<K: Kind, const N: usize> Drop for Registration<K, N> {
    fn drop(&mut self) {
        for raw in self.algs.iter().rev() {
            // SAFETY: registered for `self.module` (type invariant); never used again.
            unsafe { unregister::<K>(self.module, raw.as_ptr()) };
        }
    }
}

// SAFETY: the descriptions are only touched on creation and drop, and by the crypto API.
unsafe impl<K: Kind, const N: usize> Send for Registration<K, N> {}
// SAFETY: `&Registration` gives no access to the descriptions.
unsafe impl<K: Kind, const N: usize> Sync for Registration<K, N> {}

fn tfm_base<K: Kind>(tfm: *mut K::Tfm) -> *mut bindings::crypto_tfm {
    tfm.cast::<u8>().wrapping_add(K::TFM_BASE).cast()
}

/// The callback that creates the context `C` of a new transform of kind `K`.
///
/// # Safety
///
/// Called by the crypto API with a new transform of kind `K` whose context area fits a `C`.
pub(crate) unsafe extern "C" fn init_tfm<K: Kind, C: Default>(tfm: *mut K::Tfm) -> c_int {
    // SAFETY: the transform is live and its context area fits a `C`, not yet initialised.
    unsafe { ptr::write(ctx::<C>(tfm_base::<K>(tfm)), C::default()) };
    0
}

/// The callback that drops and wipes the context `C` of a transform of kind `K`.
///
/// # Safety
///
/// Called by the crypto API once, when a transform set up by [`init_tfm`] is freed.
pub(crate) unsafe extern "C" fn exit_tfm<K: Kind, C>(tfm: *mut K::Tfm) {
    // SAFETY: the transform is live and its context, a `C`, initialised (caller).
    let c = unsafe { ctx::<C>(tfm_base::<K>(tfm)) };
    // SAFETY: the context is never used again (caller).
    unsafe { ptr::drop_in_place(c) };
    // SAFETY: the area is `size_of::<C>()` bytes long.
    unsafe { wipe_raw(c.cast(), size_of::<C>()) };
}

/// A key given to an skcipher's or AEAD's `set_key`, with the transform's request flags.
pub struct Key<'a> {
    bytes: &'a [u8],
    flags: u32,
}

impl<'a> Key<'a> {
    /// A key given with the transform flags `flags` (`crt_flags`).
    pub fn new(bytes: &'a [u8], flags: u32) -> Self {
        Self { bytes, flags }
    }

    /// The key bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Whether the user asked for weak keys to be refused (`CRYPTO_TFM_REQ_FORBID_WEAK_KEYS`).
    pub fn forbids_weak_keys(&self) -> bool {
        self.flags & bindings::CRYPTO_TFM_REQ_FORBID_WEAK_KEYS != 0
    }
}
