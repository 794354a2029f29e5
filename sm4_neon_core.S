/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SM4 (GB/T 32907-2016) with plain NEON (ASIMD), for CPUs without the SM4 instructions:
 * the block core of sm4_neon_glue.rs. Called only inside a kernel-mode NEON section.
 *
 * Eight blocks are done at once, transposed: `ld4` puts word j of four blocks in the four
 * lanes of one register, so X0..X3 of blocks 0-3 are v0-v3 and of blocks 4-7 v4-v7, and a
 * round is the same few instructions on every lane. The S-box is held whole in v16-v31
 * (256 bytes) and looked up with four `tbl` over its 64-byte quarters (the index minus 64
 * each time; an out-of-range index gives 0) ORed together, so there is no memory access,
 * and no branch, that depends on the key or the data. (Four `tbl` and three `orr` cost
 * less than one `tbl` and three `tbx`: a four-register `tbx` is twice a `tbl`.) The linear transform
 * is L(B) = B ^ rol(B, 24) ^ rol(B ^ rol(B, 8) ^ rol(B, 16), 2), with the byte rotations
 * done by `tbl`/`rev32` and the 2-bit one by `shl` + `sri`.
 *
 * Registers (AAPCS64): x0-x4 arguments, x9 scratch, x10 the round key pointer; v0-v7 the state, v8 the round key
 * (all lanes), v9 the constant 64, v10/v11 the rol-8/rol-24 byte permutations, v12-v15
 * scratch (v8-v15 are callee-saved: their low halves are spilled), v16-v31 the S-box.
 */

#include <linux/linkage.h>
#include <asm/assembler.h>

#include "lib/sm4-asm.h"

	RK	.req	x0	/* const u32 rk[32] */
	DST	.req	x1	/* u8 *dst */
	SRC	.req	x2	/* const u8 *src */
	NBATCH	.req	w3	/* unsigned int nbatches: groups of 8 blocks */
	SBOX	.req	x4	/* const u8 sbox[256] */
	RKP	.req	x10	/* the next round key */

	ROUNDKEY .req	v8
	C64	.req	v9
	ROL8	.req	v10
	ROL24	.req	v11

	/*
	 * One round on four blocks: \x0 ^= L(S(\x1 ^ \x2 ^ \x3 ^ rk)).
	 * v12: the S-box input, v13: its output B, v14/v15: lookups and the parts of L(B).
	 */
	.macro	round4blk, x0, x1, x2, x3
	eor	v12.16b, \x1\().16b, \x2\().16b
	eor	v12.16b, v12.16b, \x3\().16b
	eor	v12.16b, v12.16b, ROUNDKEY.16b
	tbl	v13.16b, {v16.16b-v19.16b}, v12.16b	/* S-box entries 0-63 */
	sub	v12.16b, v12.16b, C64.16b
	tbl	v14.16b, {v20.16b-v23.16b}, v12.16b	/* 64-127 */
	orr	v13.16b, v13.16b, v14.16b
	sub	v12.16b, v12.16b, C64.16b
	tbl	v14.16b, {v24.16b-v27.16b}, v12.16b	/* 128-191 */
	orr	v13.16b, v13.16b, v14.16b
	sub	v12.16b, v12.16b, C64.16b
	tbl	v14.16b, {v28.16b-v31.16b}, v12.16b	/* 192-255 */
	orr	v13.16b, v13.16b, v14.16b
	tbl	v14.16b, {v13.16b}, ROL8.16b
	rev32	v15.8h, v13.8h				/* rol(B, 16) */
	eor	v14.16b, v14.16b, v15.16b
	eor	v14.16b, v14.16b, v13.16b		/* B ^ rol(B, 8) ^ rol(B, 16) */
	shl	v15.4s, v14.4s, #2
	sri	v15.4s, v14.4s, #30			/* rotated left by 2 */
	tbl	v14.16b, {v13.16b}, ROL24.16b
	eor	v14.16b, v14.16b, v13.16b		/* B ^ rol(B, 24) */
	eor	\x0\().16b, \x0\().16b, v15.16b
	eor	\x0\().16b, \x0\().16b, v14.16b
	.endm

	/* One round on the eight blocks, with the next round key. */
	.macro	round8, a0, a1, a2, a3, b0, b1, b2, b3
	ld1r	{ROUNDKEY.4s}, [RKP], #4
	round4blk \a0, \a1, \a2, \a3
	round4blk \b0, \b1, \b2, \b3
	.endm

	/* Four rounds: the words rotate through the registers and come back in place. */
	.macro	rounds4
	round8	v0, v1, v2, v3, v4, v5, v6, v7
	round8	v1, v2, v3, v0, v5, v6, v7, v4
	round8	v2, v3, v0, v1, v6, v7, v4, v5
	round8	v3, v0, v1, v2, v7, v4, v5, v6
	.endm

/*
 * void sm4rs_neon_crypt(const u32 rk[32], u8 *dst, const u8 *src, unsigned int nbatches,
 *			 const u8 sbox[256]);
 *
 * ECB over nbatches groups of 8 blocks (encrypts with the encryption schedule, decrypts
 * with the decryption one). dst may be src. The glue builds every mode on this.
 */
SYM_FUNC_START(sm4rs_neon_crypt)
	cbz	NBATCH, .Lneon_ret
	save_v8_v15
	ld1	{v16.16b-v19.16b}, [SBOX], #64
	ld1	{v20.16b-v23.16b}, [SBOX], #64
	ld1	{v24.16b-v27.16b}, [SBOX], #64
	ld1	{v28.16b-v31.16b}, [SBOX]
	movi	C64.16b, #64
	load_perm ROL8, .Lrol8
	load_perm ROL24, .Lrol24
.Lneon_loop:
	ld4	{v0.4s-v3.4s}, [SRC], #64		/* X0..X3 of blocks 0-3 */
	ld4	{v4.4s-v7.4s}, [SRC], #64		/* X0..X3 of blocks 4-7 */
	rev32_v0_v7					/* big-endian words */
	mov	RKP, RK
	.rept	8
	rounds4
	.endr
	/* The output is (X35, X34, X33, X32): words in reverse, bytes big-endian. */
	rev32	v12.16b, v3.16b
	rev32	v13.16b, v2.16b
	rev32	v14.16b, v1.16b
	rev32	v15.16b, v0.16b
	st4	{v12.4s-v15.4s}, [DST], #64
	rev32	v12.16b, v7.16b
	rev32	v13.16b, v6.16b
	rev32	v14.16b, v5.16b
	rev32	v15.16b, v4.16b
	st4	{v12.4s-v15.4s}, [DST], #64
	subs	NBATCH, NBATCH, #1
	b.ne	.Lneon_loop
	restore_v8_v15
.Lneon_ret:
	ret
SYM_FUNC_END(sm4rs_neon_crypt)

	.section ".rodata", "a"
	.align	4
.Lrol8:		/* each 32-bit lane rotated left by 8 bits */
	.byte	3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14
.Lrol24:	/* each 32-bit lane rotated left by 24 bits */
	.byte	1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12
