// SPDX-License-Identifier: GPL-2.0

// sm4rs-oot-begin
//! The differences between the kernels this abstraction supports, each behind one item of
//! this module and nowhere else, but for the partial block of the hashes, which
//! [`super::shash_buffer`] keeps or not. `kernel-differences.txt` lists them (the declaration
//! each is detected by and the upstream change that made it); `Kbuild` (out of tree) and
//! `scripts/patches.py` (the series, resolved for its kernel) set the `sm4rs_*` cfgs from it.
// sm4rs-oot-end
// sm4rs-in-tree: //! The parts of the abstraction that follow the kernel's interfaces most closely:
// sm4rs-in-tree: //! the skcipher walk's layout, kernel-mode NEON sections, the `cbcmac` template's
// sm4rs-in-tree: //! block size.

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

/// Whether a kernel-mode NEON section may span a request's work: a walk's steps, with the
/// kernel's walk (`skcipher_walk_done()`, which may sleep) between them, and an AEAD's
/// associated data and tag. With the section's state buffer on the caller's stack (Linux
/// 6.19, `scoped_ksimd()`), the kernel keeps a task's section across a reschedule, and its
/// own arm64 glue (7.3's, which this follows) opens one section over the whole walk of XTS
/// (`arch/arm64/crypto/sm4-ce-glue.c`, `sm4_xts_crypt()`), over the whole of a GCM or CCM
/// request (`sm4-ce-gcm-glue.c` `gcm_crypt()`, `sm4-ce-ccm-glue.c` `ccm_crypt()`) and over
/// a whole hash update (`sm4_mac_update()`), and one per walk step for the other modes.
/// Before (6.12's glue), every section ends before the walk goes on, and holds at most a
/// page ([`super::skcipher::MAX_STEP`]). Used by [`super::simd::Simd::span`].
#[cfg(sm4rs_neon_state)]
pub const SECTION_MAY_SPAN_WALK: bool = true;

/// See the other form.
#[cfg(not(sm4rs_neon_state))]
pub const SECTION_MAY_SPAN_WALK: bool = false;

/// The FPSR value that marks a section's state buffer as not written by the kernel: all
/// ones, which no saved FPSR is (its RES0 bits read as zero).
#[cfg(sm4rs_neon_state)]
const UNUSED_FPSR: u32 = u32::MAX;

/// What a kernel-mode NEON section keeps from its start to its end: from Linux 6.19, the
/// buffer for the task's FPSIMD state that `kernel_neon_begin()` takes, which must stay at
/// its address for the whole section (the caller's stack frame); before, nothing.
pub(crate) struct SectionState {
    #[cfg(sm4rs_neon_state)]
    state: core::mem::MaybeUninit<bindings::user_fpsimd_state>,
}

impl SectionState {
    /// A state for one section (nothing is written before [`section_begin`]).
    #[inline(always)]
    pub(crate) fn new() -> Self {
        Self {
            #[cfg(sm4rs_neon_state)]
            state: core::mem::MaybeUninit::uninit(),
        }
    }
}

/// Begins a kernel-mode NEON section: `kernel_neon_begin()`, with `st`'s buffer for the
/// task's FPSIMD state (Linux 6.19 and later).
///
/// # Safety
///
/// NEON may be used in this context and no section is open on this CPU; [`section_end`]
/// ends the section with the same `st`, which does not move meanwhile, and nothing between
/// opens another section.
#[inline(always)]
pub(crate) unsafe fn section_begin(st: &mut SectionState) {
    #[cfg(sm4rs_neon_state)]
    {
        let st = st.state.as_mut_ptr();
        // The kernel writes the buffer only when it saves an FPSIMD context there: this
        // section's, if the task is scheduled out during it, or, in a softirq, that of the
        // task's own kernel-mode section it interrupted. A saved FPSR has its RES0 bits
        // clear, so an all-ones FPSR marks a buffer the kernel did not use, which then holds
        // nothing to wipe (wiping all 528 bytes after every section would cost more than a
        // short request's SM4).
        // SAFETY: `st` is valid for writes; `fpsr` is a plain `u32` field.
        unsafe { core::ptr::addr_of_mut!((*st).fpsr).write(UNUSED_FPSR) };
        // SAFETY: NEON may be used here and no section is open (the caller); the buffer
        // stays at this address until the matching `kernel_neon_end()` (the caller).
        unsafe { bindings::kernel_neon_begin(st) };
    }
    #[cfg(not(sm4rs_neon_state))]
    {
        let _ = st;
        // SAFETY: NEON may be used here and no section is open (the caller).
        unsafe { bindings::kernel_neon_begin() };
    }
}

/// Ends the section [`section_begin`] began with `st`: `kernel_neon_end()`, and on Linux
/// 6.19 and later the state buffer wiped if the kernel wrote to it.
///
/// # Safety
///
/// `st` began the section that is open, and has not moved since.
#[inline(always)]
pub(crate) unsafe fn section_end(st: &mut SectionState) {
    #[cfg(sm4rs_neon_state)]
    {
        let st = st.state.as_mut_ptr();
        // SAFETY: ends the section begun with this buffer (the caller).
        unsafe { bindings::kernel_neon_end(st) };
        // SAFETY: `fpsr` was initialised by `section_begin` and the kernel no longer uses
        // the buffer; volatile, as the kernel may have written it behind the compiler's back.
        let used = unsafe { core::ptr::addr_of!((*st).fpsr).read_volatile() } != UNUSED_FPSR;
        if used {
            // The buffer holds registers of this section (saved on preemption: round keys,
            // data) or of the task it interrupted.
            // SAFETY: `st` is the buffer, `size_of` bytes, no longer used by the kernel.
            unsafe {
                super::wipe_raw(
                    st.cast(),
                    core::mem::size_of::<bindings::user_fpsimd_state>(),
                )
            };
        }
    }
    #[cfg(not(sm4rs_neon_state))]
    {
        let _ = st;
        // SAFETY: ends the section begun by `section_begin` (the caller).
        unsafe { bindings::kernel_neon_end() };
    }
}

/// The block size of the kernel's `cbcmac` template (which testmgr compares a driver's
/// with): 1 before the block-only hash interface, the cipher's after.
#[cfg(not(sm4rs_shash_block_only))]
pub const fn cbcmac_block_size(_cipher_block_size: u32) -> u32 {
    1
}
/// The block size of the kernel's `cbcmac` template (which testmgr compares a driver's
/// with): 1 before the block-only hash interface, the cipher's after.
#[cfg(sm4rs_shash_block_only)]
pub const fn cbcmac_block_size(cipher_block_size: u32) -> u32 {
    cipher_block_size
}

// sm4rs-oot-begin
/// Declares the module, hiding the differences between the `module!` macros of the kernels
/// this project supports (6.12 takes one `author`, later kernels a list of `authors`).
macro_rules! module {
    (
        type: $type:ident,
        name: $name:tt,
        author: $author:tt,
        description: $desc:tt,
        license: $license:tt
        $(, alias: [$($alias:tt),* $(,)?])? $(,)?
    ) => {
        #[cfg(sm4rs_module_authors)]
        ::kernel::prelude::module! {
            type: $type,
            name: $name,
            authors: [$author],
            description: $desc,
            license: $license,
            $(alias: [$($alias),*],)?
        }
        #[cfg(not(sm4rs_module_authors))]
        ::kernel::prelude::module! {
            type: $type,
            name: $name,
            author: $author,
            description: $desc,
            license: $license,
            $(alias: [$($alias),*],)?
        }
    };
}
pub(crate) use module;
// sm4rs-oot-end
