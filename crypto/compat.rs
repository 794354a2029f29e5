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
