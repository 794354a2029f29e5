/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Assembler macros shared by the SM4 cores (the SM4E ones and sm4_neon_core.S).
 */

	/*
	 * Spill / restore the low halves of v8-v15, which AAPCS64 makes callee-saved, for
	 * cores that use those registers. 64 bytes of stack.
	 */
	.macro	save_v8_v15
	sub	sp, sp, #64
	stp	d8, d9, [sp]
	stp	d10, d11, [sp, #16]
	stp	d12, d13, [sp, #32]
	stp	d14, d15, [sp, #48]
	.endm

	.macro	restore_v8_v15
	ldp	d10, d11, [sp, #16]
	ldp	d12, d13, [sp, #32]
	ldp	d14, d15, [sp, #48]
	ldp	d8, d9, [sp], #64
	.endm

	/* Loads the 16-byte constant at \name into \reg; clobbers x9. */
	.macro	load_perm, reg, name
	adr_l	x9, \name

	ld1	{\reg\().16b}, [x9]
	.endm

	/* v0-v7: the bytes of each 32-bit word reversed (SM4's words are big-endian). */
	.macro	rev32_v0_v7
	rev32	v0.16b, v0.16b
	rev32	v1.16b, v1.16b
	rev32	v2.16b, v2.16b
	rev32	v3.16b, v3.16b
	rev32	v4.16b, v4.16b
	rev32	v5.16b, v5.16b
	rev32	v6.16b, v6.16b
	rev32	v7.16b, v7.16b
	.endm
