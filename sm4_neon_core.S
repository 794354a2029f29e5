/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SM4 (GB/T 32907-2016) with plain NEON (ASIMD), for CPUs without the SM4 instructions:
 * the block core of sm4_neon_glue.rs. Called only inside a kernel-mode NEON section.
 *
 * Eight blocks are done at once, transposed: `ld4` puts word j of four blocks in the four
 * lanes of one register, so X0..X3 of blocks 0-3 are v0-v3 and of blocks 4-7 v4-v7, and a
 * round is the same few instructions on every lane. The S-box is held whole in v16-v31
 * (256 bytes) and looked up with one `tbl` and three `tbx` over its 64-byte quarters (the
 * index minus 64 each time; an out-of-range index leaves the byte alone), so there is no
 * memory access, and no branch, that depends on the key or the data. (This is three
 * instructions fewer per lookup than four `tbl` ORed together, at about the same cycles on
 * a Cortex-A72, the kind of CPU this driver is for.) The linear transform
 * is L(B) = B ^ rol(B, 24) ^ rol(B ^ rol(B, 8) ^ rol(B, 16), 2), with the byte rotations
 * done by `tbl`/`rev32` and the 2-bit one by `shl` + `sri`.
 *
 * Registers (AAPCS64): x0-x6 arguments, x9 scratch, x10 the round key pointer; v0-v7 the
 * state, v8 the round key (all lanes), v9 the constant 64, v10/v11 the rol-8/rol-24 byte
 * permutations, v12-v15 scratch (v8-v15 are callee-saved: their low halves are spilled),
 * v16-v31 the S-box.
 */

#include <linux/linkage.h>
#include <asm/assembler.h>

#include "lib/sm4-asm.h"

	RK	.req	x0	/* const u32 rk[32] */
	DST	.req	x1	/* u8 *dst */
	SRC	.req	x2	/* const u8 *src */
	NBATCH	.req	w3	/* unsigned int nbatches: groups of 8 blocks */
	SBOX	.req	x4	/* const u8 sbox[256] */
	PRE	.req	x5	/* const u8 *pre: XORed into the input, or NULL */
	POST	.req	x6	/* const u8 *post: XORed into the output, or NULL */
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
	tbx	v13.16b, {v20.16b-v23.16b}, v12.16b	/* 64-127 */
	sub	v12.16b, v12.16b, C64.16b
	tbx	v13.16b, {v24.16b-v27.16b}, v12.16b	/* 128-191 */
	sub	v12.16b, v12.16b, C64.16b
	tbx	v13.16b, {v28.16b-v31.16b}, v12.16b	/* 192-255 */
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

	/* One round on four blocks, with the next round key. */
	.macro	round4, a0, a1, a2, a3
	ld1r	{ROUNDKEY.4s}, [RKP], #4
	round4blk \a0, \a1, \a2, \a3
	.endm

	/* Four rounds of four blocks. */
	.macro	rounds4_4blk
	round4	v0, v1, v2, v3
	round4	v1, v2, v3, v0
	round4	v2, v3, v0, v1
	round4	v3, v0, v1, v2
	.endm

	/* The constants: the S-box in v16-v31, 64 in every byte, the rotations. */
	.macro	load_consts
	ld1	{v16.16b-v19.16b}, [SBOX], #64
	ld1	{v20.16b-v23.16b}, [SBOX], #64
	ld1	{v24.16b-v27.16b}, [SBOX], #64
	ld1	{v28.16b-v31.16b}, [SBOX]
	movi	C64.16b, #64
	load_perm ROL8, .Lrol8
	load_perm ROL24, .Lrol24
	.endm

	/*
	 * Loads four blocks transposed into \x0-\x3 (word j of the blocks in \xj), XORed
	 * with four blocks at PRE if it is not NULL (\t0-\t3: scratch), in SM4's word order.
	 */
	.macro	load4, x0, x1, x2, x3, t0, t1, t2, t3
	ld4	{\x0\().4s-\x3\().4s}, [SRC], #64
	cbz	PRE, .Lload4_\@
	ld4	{\t0\().4s-\t3\().4s}, [PRE], #64
	eor	\x0\().16b, \x0\().16b, \t0\().16b
	eor	\x1\().16b, \x1\().16b, \t1\().16b
	eor	\x2\().16b, \x2\().16b, \t2\().16b
	eor	\x3\().16b, \x3\().16b, \t3\().16b
.Lload4_\@:
	rev32	\x0\().16b, \x0\().16b
	rev32	\x1\().16b, \x1\().16b
	rev32	\x2\().16b, \x2\().16b
	rev32	\x3\().16b, \x3\().16b
	.endm

	/*
	 * Stores four finished blocks (state \x0-\x3, which are then free) at DST: the
	 * output is (X35, X34, X33, X32), words in reverse, bytes big-endian, XORed with four
	 * blocks at POST if it is not NULL. v12-v15: the output words.
	 */
	.macro	store4, x0, x1, x2, x3
	rev32	v12.16b, \x3\().16b
	rev32	v13.16b, \x2\().16b
	rev32	v14.16b, \x1\().16b
	rev32	v15.16b, \x0\().16b
	cbz	POST, .Lstore4_\@
	ld4	{\x0\().4s-\x3\().4s}, [POST], #64
	eor	v12.16b, v12.16b, \x0\().16b
	eor	v13.16b, v13.16b, \x1\().16b
	eor	v14.16b, v14.16b, \x2\().16b
	eor	v15.16b, v15.16b, \x3\().16b
.Lstore4_\@:
	st4	{v12.4s-v15.4s}, [DST], #64
	.endm

/*
 * void sm4rs_neon_crypt4(const u32 rk[32], u8 *dst, const u8 *src, const u8 sbox[256],
 *			  const u8 *pre, const u8 *post);
 *
 * Exactly 4 blocks, half the work of a batch of 8, for short requests:
 * dst = E(src ^ pre) ^ post, as sm4rs_neon_crypt.
 */
SYM_FUNC_START(sm4rs_neon_crypt4)
	save_v8_v15
	mov	POST, x5			/* the arguments to where crypt8 has them */
	mov	PRE, x4
	mov	SBOX, x3
	load_consts
	load4	v0, v1, v2, v3, v12, v13, v14, v15
	mov	RKP, RK
	.rept	8
	rounds4_4blk
	.endr
	store4	v0, v1, v2, v3
	restore_v8_v15
	ret
SYM_FUNC_END(sm4rs_neon_crypt4)

/*
 * void sm4rs_neon_crypt(const u32 rk[32], u8 *dst, const u8 *src, unsigned int nbatches,
 *			 const u8 sbox[256], const u8 *pre, const u8 *post);
 *
 * nbatches groups of 8 blocks: dst = E(src ^ pre) ^ post, block by block, where E is the 32
 * rounds of rk (it encrypts with the encryption schedule, decrypts with the decryption
 * one) and pre, post (which advance with src) may be NULL. The modes are this: ECB with
 * neither, XTS with the tweaks as both, CTR encrypting the counters with the data as post,
 * CBC/CFB decryption with the shifted ciphertext as post. dst may be src, pre or post.
 */
SYM_FUNC_START(sm4rs_neon_crypt)
	cbz	NBATCH, .Lneon_ret
	save_v8_v15
	load_consts
.Lneon_loop:
	load4	v0, v1, v2, v3, v12, v13, v14, v15	/* X0..X3 of blocks 0-3 */
	load4	v4, v5, v6, v7, v12, v13, v14, v15	/* X0..X3 of blocks 4-7 */
	mov	RKP, RK
	.rept	8
	rounds4
	.endr
	store4	v0, v1, v2, v3
	store4	v4, v5, v6, v7
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
