// SPDX-License-Identifier: GPL-2.0

//! What every kind of algorithm shares: its registration with the crypto API and its
//! per-transform context.
//!
//! C header: [`include/crypto/algapi.h`](srctree/include/crypto/algapi.h).
//!
//! A kind ([`Kind`]: cipher, skcipher, shash, AEAD) names the C struct that describes one of its
//! algorithms and the functions that register it. [`Registration`] registers `N`
//! descriptions of one kind and unregisters them when dropped.
//!
//! Who frees a description: the crypto API, through the `cra_destroy` callback of its
//! `crypto_alg`, when it drops the last reference to the algorithm. That is at once when the
//! algorithm is unregistered unused, and when the last transform is freed if it is
//! unregistered while in use (safe code can drop a registration at any time). Kernels that
//! keep the registration's own reference of an algorithm unregistered in use (Linux 6.12,
//! which warns then) never call it: the description is leaked, never freed under its users
//! (and kmemleak will report it: the leak is real, and safe). No kernel version needs to be
//! known for this.
//!
//! Registrations unregistered while their module's init runs leak their descriptions
//! instead, with no `cra_destroy`: the registrations of a module succeed or fail together.
//! If an init fails after some of its registrations succeeded (a later one failing, or
//! anything else), the module is freed at once, without waiting for the references the crypto
//! API may still hold, and a `cra_destroy` into its text must not be left for them. A
//! self-test in flight holds one, and the module with it: the unregistration waits, without a
//! bound, until nothing holds the algorithm (a module cannot be kept past a failed init).
//! That includes the descriptions a [`Registration::new`] had registered when a later one
//! of the same call fails. A driver has nothing to do for this.

use super::{bindings, wipe_raw};
use core::{
    ffi::c_int,
    marker::PhantomData,
    mem::{size_of, MaybeUninit},
    ptr::{self, NonNull},
};
use kernel::{
    alloc::{flags::GFP_KERNEL, KBox},
    error::{code::EINVAL, to_result, Result},
    types::Opaque,
    ThisModule,
};

/// A kind of algorithm: the C struct that describes one algorithm of the kind, and the
/// functions that register and unregister it.
///
/// # Safety
///
/// `BASE` must be the offset of the `crypto_alg` that a `Raw` embeds, `TFM_BASE` that of the
/// `crypto_tfm` that a `Tfm` embeds; [`Kind::register`] and
/// [`Kind::unregister`] must be the kind's registration functions, which register the
/// algorithm described by `*raw` (which must then stay put until its `cra_destroy`) and
/// unregister it.
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
    /// `raw` must point to a valid description that stays valid and pinned until the crypto
    /// API calls its `cra_destroy`.
    unsafe fn register(raw: *mut Self::Raw) -> c_int;

    /// Unregisters the algorithm `raw` describes.
    ///
    /// # Safety
    ///
    /// `raw` must have been registered by [`Kind::register`] and not unregistered since.
    unsafe fn unregister(raw: *mut Self::Raw);
}

/// Declares a kind of algorithm in the module of its trait (which has the `Adapter` that
/// builds a description): the unit struct, its [`Kind`] implementation, the module's `alg()`
/// (the description of a `T`) and its `Registration` alias.
///
/// `raw` and `tfm` name the C structs and the fields (nested with `.`, none for the struct
/// itself) where they embed their `crypto_alg` and `crypto_tfm`: the offsets are taken from
/// those fields, whose types the expansion checks (it does not compile otherwise). The
/// registration functions cannot be checked: they follow `unsafe`, and a comment before the
/// invocation says why they are those of `raw`'s kind.
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

        // The fields named are a `crypto_alg` and a `crypto_tfm` (the offsets below are
        // theirs): these projections compile only then. They are never called.
        const _: fn(*mut super::bindings::$raw) -> *mut super::bindings::crypto_alg =
            |raw| super::alg::kind!(@project raw $($($base).+)?);
        const _: fn(*mut super::bindings::$tfm) -> *mut super::bindings::crypto_tfm =
            |tfm| super::alg::kind!(@project tfm $($($tfm_base).+)?);

        // SAFETY: `BASE` and `TFM_BASE` are the offsets of the `crypto_alg` in a `$raw` and
        // of the `crypto_tfm` in a `$tfm` (checked above); the registration functions are
        // those of the kind (the invocation's word).
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

/// What `MODULE_ALIAS_CRYPTO()` puts before a name.
const ALIAS: &str = "alias=crypto-";

/// The `.modinfo` text of [`alias_crypto!`]: `alias=crypto-NAME` and a NUL for each name
/// (the concatenation of its three parts), each after `prefix` (the module's name and a dot
/// for a built-in module, as the kernel's `module!` writes its aliases). `N` must be
/// [`aliases_len`]; the text is cut short otherwise.
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

/// `MODULE_ALIAS_CRYPTO()` for names computed at compile time: `$names`, a constant
/// `&[[&str; 3]]`, each name the concatenation of its three parts, of the module `$module`
/// (its name as `module!` gives it). The crypto API then loads the module for any of them
/// (`request_module("crypto-NAME")`).
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
// (Out of tree each module compiles its own copy of the abstraction, and most do not use
// this.)
#[allow(unused_imports)]
pub use __crypto_alias_crypto as alias_crypto;

/// The C description of one algorithm of kind `K` (its `struct skcipher_alg`, ...), built at
/// compile time by the kind's `alg()` (e.g. [`super::skcipher::alg`]), for
/// [`Registration::new`].
pub struct Alg<K: Kind>(pub(crate) K::Raw);

/// The `crypto_alg` of the description `raw`.
fn base<K: Kind>(raw: *mut K::Raw) -> *mut bindings::crypto_alg {
    // By `Kind`'s safety requirements, `BASE` is in bounds of the description.
    raw.cast::<u8>().wrapping_add(K::BASE).cast()
}

/// `cra_destroy`: frees a description allocated by [`Registration::new`].
///
/// # Safety
///
/// Called by the crypto API, once, with the `crypto_alg` of such a description, when it
/// drops its last reference to the algorithm.
unsafe extern "C" fn destroy<K: Kind>(alg: *mut bindings::crypto_alg) {
    let raw = alg
        .cast::<u8>()
        .wrapping_sub(K::BASE)
        .cast::<Opaque<K::Raw>>();
    // SAFETY: `raw` is the description that embeds `alg`, which `Registration::new` allocated
    // with `KBox` and gave up (`into_raw`); nothing refers to it any more (no reference is
    // left), and the crypto API calls this once.
    drop(unsafe { KBox::from_raw(raw) });
}

/// Unregisters the description `raw` of `module`. While `module`'s init runs (an init that
/// fails after this registration), the module is freed as soon as the init returns, whatever
/// still holds the algorithm: so the algorithm's `cra_destroy` is cleared (the description
/// is leaked, see the module's documentation), and the unregistration waits, without a
/// bound, until nothing holds it. A self-test in flight holds it, and so may a user that
/// found it once its test passed; both run the module's code. (Before the unregistration
/// for Linux 7.3's check that an algorithm without `cra_destroy` is unregistered unused,
/// and after it for a user that found it in between.)
///
/// Otherwise the module is live or exiting, and its text outlives every reference to the
/// algorithm: a transform or a self-test holds the module with the algorithm (`cra_module`)
/// and puts the algorithm first, and a module exits only once nothing holds it (but for a
/// forced unload, which promises nothing). Built-in code is never freed.
///
/// # Safety
///
/// `raw` must be a description allocated by [`Registration::new`] with `cra_module` set to
/// `module`, registered, and not unregistered since; it is not used again.
unsafe fn unregister<K: Kind>(module: &'static ThisModule, raw: *mut K::Raw) {
    // SAFETY: `module` is NULL (built in) or a module whose code runs here, which is not
    // freed meanwhile; the helper only reads its state.
    let in_init = unsafe { bindings::module_in_init(module.as_ptr().cast()) };
    let alg = base::<K>(raw);
    if in_init {
        // SAFETY: `raw` is registered (caller), its `crypto_alg` valid; module init runs in
        // process context, where the helper may sleep.
        unsafe { bindings::alg_wait_refs(alg, 1) };
        // SAFETY: `raw` is registered and ours (caller); the crypto API reads `cra_destroy`
        // only when it drops its last reference, which cannot happen before the
        // unregistration below.
        unsafe { (*alg).cra_destroy = None };
    }
    // SAFETY: registered and not unregistered since (caller); the crypto API frees the
    // description (its `cra_destroy`, if set) when its last reference goes, possibly here.
    unsafe { K::unregister(raw) };
    if in_init {
        // SAFETY: without `cra_destroy` the description is never freed, so its `crypto_alg`
        // stays valid; as above, the helper may sleep here.
        unsafe { bindings::alg_wait_refs(alg, 0) };
    }
}

/// `N` registered algorithms of kind `K`; dropping it unregisters them.
///
/// Meant to live in the module object, dropped when the module exits: transforms hold a
/// reference to the module (`cra_module`), so none is alive then. Dropped earlier, while
/// transforms are alive, it still unregisters them; each description is freed by the crypto
/// API when its last transform goes. Dropped while the module's init runs (an init that
/// fails after it), it leaks them (see the module's documentation).
///
/// # Invariants
///
/// Each of `algs` is a description allocated by [`Registration::new`] with `cra_module` set
/// to `module`, registered with the crypto API for the lifetime of the object, and freed
/// only by its `cra_destroy`.
pub struct Registration<K: Kind, const N: usize> {
    algs: [NonNull<K::Raw>; N],
    module: &'static ThisModule,
    _kind: PhantomData<K>,
}

impl<K: Kind, const N: usize> Registration<K, N> {
    /// Registers `algs` (all or none), owned by `module`: a live transform of any of them
    /// keeps the module loaded.
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
                        // SAFETY: the first `i` slots were written with registered
                        // descriptions (above).
                        let raw = unsafe { slot.assume_init() }.as_ptr();
                        // SAFETY: allocated and registered above for `module`, unregistered
                        // once, here.
                        unsafe { unregister::<K>(module, raw) };
                    }
                    return Err(e);
                }
            }
        }
        // SAFETY: all `N` slots were written (the loop ran `N` times without an error).
        let algs = done.map(|d| unsafe { d.assume_init() });
        // INVARIANT: each registered above for `module`, from an allocation of this function.
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
        // `Opaque<T>` is `repr(transparent)` over `T`.
        let raw = p.cast::<K::Raw>();
        let alg = base::<K>(raw);
        // SAFETY: `alg` is the description's `crypto_alg`, not yet shared. `cra_destroy`
        // stays unset until the registration succeeded: a failed registration may drop the
        // reference it took (Linux 7.3 does), which would call it, and the description is
        // then freed here.
        unsafe {
            (*alg).cra_module = module.as_ptr().cast();
            (*alg).cra_destroy = None;
        }
        // SAFETY: `raw` is valid and stays put until its `cra_destroy` (it is never moved or
        // freed otherwise once registered).
        let r = to_result(unsafe { K::register(raw) });
        if let Err(e) = r {
            // Not registered: the crypto API holds no reference any more.
            // SAFETY: `p` came from `KBox::into_raw` above and is not used elsewhere.
            drop(unsafe { KBox::from_raw(p) });
            return Err(e);
        }
        // SAFETY: registered, and ours: the crypto API reads `cra_destroy` only when it drops
        // its last reference, which cannot happen before it is unregistered (`Drop`).
        unsafe { (*alg).cra_destroy = Some(destroy::<K>) };
        // `KBox::into_raw` never gives NULL.
        NonNull::new(raw).ok_or(kernel::error::code::ENOMEM)
    }
}

impl<K: Kind, const N: usize> Drop for Registration<K, N> {
    fn drop(&mut self) {
        for raw in self.algs.iter().rev() {
            // SAFETY: allocated and registered for `self.module` (type invariant); never used
            // again.
            unsafe { unregister::<K>(self.module, raw.as_ptr()) };
        }
    }
}

// SAFETY: the registration is only touched on creation and drop; the crypto API synchronises
// its own use of the descriptions.
unsafe impl<K: Kind, const N: usize> Send for Registration<K, N> {}
// SAFETY: `&Registration` gives no access to the descriptions.
unsafe impl<K: Kind, const N: usize> Sync for Registration<K, N> {}

/// The context area of the transform `tfm`, as a `C`.
///
/// # Safety
///
/// `tfm` must be a live transform whose algorithm has a context area of at least
/// `size_of::<C>()` bytes (`cra_ctxsize`), which is aligned to `CRYPTO_MINALIGN`; `C`'s
/// alignment must not be larger (the algorithm tables check it at compile time).
pub(crate) unsafe fn ctx<C>(tfm: *mut bindings::crypto_tfm) -> *mut C {
    // SAFETY: `tfm` is live (caller); its context follows it.
    unsafe { (*tfm).__crt_ctx.as_mut_ptr().cast() }
}

/// The `crypto_tfm` of the transform `tfm` of kind `K`.
fn tfm_base<K: Kind>(tfm: *mut K::Tfm) -> *mut bindings::crypto_tfm {
    // By `Kind`'s safety requirements, `TFM_BASE` is in bounds of the transform.
    tfm.cast::<u8>().wrapping_add(K::TFM_BASE).cast()
}

/// The callback that creates the context, a `C`, of a new transform of kind `K` (a cipher's
/// `cra_init`, an skcipher's or AEAD's `init`, a hash's `init_tfm`).
///
/// # Safety
///
/// Called by the crypto API with a new transform of an algorithm of kind `K` whose context
/// area fits `C` (the kind's description sets `cra_ctxsize` to its size and checks its
/// alignment at compile time).
pub(crate) unsafe extern "C" fn init_tfm<K: Kind, C: Default>(tfm: *mut K::Tfm) -> c_int {
    // SAFETY: the transform is live (caller) and its context area, allocated and aligned for
    // `C`, not yet initialised.
    unsafe { ptr::write(ctx::<C>(tfm_base::<K>(tfm)), C::default()) };
    0
}

/// The callback that drops the context of a transform of kind `K` and wipes its memory (a
/// cipher's `cra_exit`, an skcipher's or AEAD's `exit`, a hash's `exit_tfm`).
///
/// # Safety
///
/// Called by the crypto API once, when a transform initialised by [`init_tfm`] with the same
/// `K` and `C` is freed.
pub(crate) unsafe extern "C" fn exit_tfm<K: Kind, C>(tfm: *mut K::Tfm) {
    // SAFETY: the transform is live and its context, a `C`, initialised (caller).
    let c = unsafe { ctx::<C>(tfm_base::<K>(tfm)) };
    // SAFETY: the context is never used again (caller).
    unsafe { ptr::drop_in_place(c) };
    // SAFETY: the area is `size_of::<C>()` bytes long.
    unsafe { wipe_raw(c.cast(), size_of::<C>()) };
}

/// A key as given to a `set_key` (of a skcipher, an AEAD), with the transform's request
/// flags.
pub struct Key<'a> {
    bytes: &'a [u8],
    flags: u32,
}

impl<'a> Key<'a> {
    /// A key given with the transform flags `flags` (`crt_flags`).
    pub(crate) fn new(bytes: &'a [u8], flags: u32) -> Self {
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

    /// The kernel's XTS key check (`xts_verify_key()`): an even length, and two different
    /// halves when weak keys are forbidden or the kernel is in FIPS mode. The halves are
    /// compared with `crypto_memneq()`, in time independent of their contents.
    pub fn verify_xts(&self) -> Result {
        let b = self.bytes;
        if b.len() % 2 != 0 {
            return Err(EINVAL);
        }
        let (k1, k2) = b.split_at(b.len() / 2);
        if fips_enabled() || self.forbids_weak_keys() {
            // SAFETY: both halves are readable for `k1.len()` bytes.
            let differ = unsafe {
                bindings::crypto_memneq(k1.as_ptr().cast(), k2.as_ptr().cast(), k1.len())
            };
            if !differ {
                return Err(EINVAL);
            }
        }
        Ok(())
    }
}

#[cfg(CONFIG_CRYPTO_FIPS)]
fn fips_enabled() -> bool {
    // SAFETY: `fips_enabled` is set once at boot and only read afterwards.
    unsafe { bindings::fips_enabled != 0 }
}

#[cfg(not(CONFIG_CRYPTO_FIPS))]
fn fips_enabled() -> bool {
    false
}
