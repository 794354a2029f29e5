// SPDX-License-Identifier: GPL-2.0

//! The differences between the C APIs of the kernels this abstraction supports, each behind
//! one function. `Kbuild` detects them in the kernel tree and sets the `sm4rs_*` cfgs.

use super::bindings;

/// The virtual source and destination of the current step of a walk.
///
/// Linux 6.12 keeps them in `union { phys; virt; } src, dst`; later kernels in anonymous
/// unions with the scatterlist walkers.
pub(crate) fn walk_addrs(walk: *const bindings::skcipher_walk) -> (*const u8, *mut u8) {
    #[cfg(not(sm4rs_walk_anon))]
    // SAFETY: the caller passes a live virtual walk, for which `virt` is the active member.
    let (src, dst) = unsafe { ((*walk).src.virt.addr, (*walk).dst.virt.addr) };
    #[cfg(sm4rs_walk_anon)]
    // SAFETY: the caller passes a live virtual walk, for which `virt` is the active member.
    let (src, dst) = unsafe {
        (
            (*walk).__bindgen_anon_1.src.virt.addr,
            (*walk).__bindgen_anon_2.dst.virt.addr,
        )
    };
    let src: *const u8 = src.cast();
    (src, dst.cast())
}

/// The references to an unregistered algorithm that nobody uses: the registration's own,
/// which `crypto_unregister_alg()` leaves in place here.
#[cfg(not(sm4rs_unregister_puts))]
const UNUSED_REFS: u32 = 1;
/// The references to an unregistered algorithm that nobody uses: none,
/// `crypto_unregister_alg()` drops the registration's own here.
#[cfg(sm4rs_unregister_puts)]
const UNUSED_REFS: u32 = 0;

/// Whether transforms still use `alg` after `crypto_unregister_alg()` returned (the kernel
/// warned then, and the algorithm's memory must stay allocated).
///
/// Linux 6.12 leaves the registration's own reference in place, so 1 means unused; later
/// kernels drop it, so 0 does.
///
/// # Safety
///
/// `alg` must point to a valid `crypto_alg` that was registered and just unregistered.
pub(crate) unsafe fn alg_in_use_after_unregister(alg: *mut bindings::crypto_alg) -> bool {
    // SAFETY: `alg` is valid (caller); the helper reads its reference count.
    unsafe { bindings::sm4rs_crypto_alg_refcount(alg) != UNUSED_REFS }
}
