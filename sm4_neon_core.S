/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SM4 (GB/T 32907-2016) with plain NEON (ASIMD), for CPUs without the SM4 instructions:
 * the block core of sm4_neon_glue.rs. Called only inside a kernel-mode NEON section. No
 * memory access and no branch depends on the key or the data: the S-box is always done in
 * registers.
 *
 * The batches: eight blocks at once, transposed: `ld4` puts word j of four blocks in the
 * four lanes of one register, so X0..X3 of blocks 0-3 are v0-v3 and of blocks 4-7 v4-v7,
 * and a round is the same few instructions on every lane. The S-box in one of three ways
 * (sbox_tbx, sbox_tbl, sbox_aese below; the glue picks one per CPU). The linear transform
 * is L(B) = B ^ rol(B, 24) ^ rol(B ^ rol(B, 8) ^ rol(B, 16), 2), with the byte rotations
 * done by `tbl`/`rev32` (shift pairs in the interleaved tbx round) and the 2-bit one by
 * `shl` + `sri`.
 *
 * The serial routines (CBC and CFB encryption, the key schedule): one block at a time in
 * lane 0 of v0-v3 (the other lanes computed and ignored), the S-box as four `tbl`; or,
 * for CBC and CFB encryption where the aese variant runs, each word in all four lanes,
 * the S-box one AESE and L one PMULL (round1_aese).
 *
 * Registers (AAPCS64; v8-v15 are callee-saved: every routine spills their low halves):
 * x0-x6 arguments, x9 scratch, x10 the round key pointer, x11/x12 cryptn's block count
 * and round loop, w13 the blocks left of crypt_aese; v0-v7 the state (and in crypt_aese's
 * 12-block batches v26-v29, the third group); v8 the round
 * key (all lanes); v12-v15 scratch. tbx and tbl variants: v9 the constant 64, v10/v11 the
 * rol-8/rol-24 byte permutations (in the interleaved tbx round v10-v15 are the two groups'
 * scratch instead), v16-v31 the S-box. aese variant: v9 0x0f, v16-v19 the nibble tables of
 * the two affine maps, v22-v25 the byte permutations. Serial routines: as tbx, and v4/v5
 * the constants 128 and 192 (with AESE: v9 and v16-v19 as aese, v20 L's polynomial,
 * v21-v23 round1_aese's); the key schedule: x1/x2 the output pointers (x2 stepping back
 * by x9 = -4), x5 the CK pointer.
 */

#include <linux/export.h>
#include <linux/linkage.h>
#include <asm/assembler.h>

#include "sm4/sm4-asm.h"

	.arch	armv8-a+crypto

	RK	.req	x0	/* const u32 rk[32] */
	DST	.req	x1	/* u8 *dst */
	SRC	.req	x2	/* const u8 *src */
	NBATCH	.req	w3	/* unsigned int nbatches: groups of 8 blocks */
	SBOX	.req	x4	/* const u8 sbox[256] */
	PRE	.req	x5	/* const u8 *pre: XORed into the input, or NULL */
	POST	.req	x6	/* const u8 *post: XORed into the output, or NULL */
	RKP	.req	x10	/* the next round key */
	COUNT	.req	w11	/* cryptn: the blocks of the group being loaded or stored */
	LOOPS	.req	w12	/* cryptn: the 4-round steps left */
	BLOCKS	.req	w13	/* crypt_aese: the blocks left (a multiple of 4) */

	ROUNDKEY .req	v8
	C64	.req	v9
	ROL8	.req	v10
	ROL24	.req	v11
	C128	.req	v4	/* serial paths only: 128 and 192 in every byte */
	C192	.req	v5

	/* The AESE variant's constants, in place of the S-box (see sbox_aese). */
	M0F	.req	v9	/* 0x0f in every byte */
	AIN_LO	.req	v16	/* the map into AES's field: low nibble, with the constant */
	AIN_HI	.req	v17	/* high nibble */
	AOUT_LO	.req	v18	/* the map back: low nibble, with the constant */
	AOUT_HI	.req	v19	/* high nibble */
	PR0	.req	v22	/* AES's ShiftRows undone */
	PR8	.req	v23	/* ... then each word rotated left by 8 bits */
	PR16	.req	v24	/* ... by 16 */
	PR24	.req	v25	/* ... by 24 */

	/* \d0-\d3 ^= \s0-\s3: the four words of a block, each in a register. */
	.macro	eor4, d0, d1, d2, d3, s0, s1, s2, s3
	eor	\d0\().16b, \d0\().16b, \s0\().16b
	eor	\d1\().16b, \d1\().16b, \s1\().16b
	eor	\d2\().16b, \d2\().16b, \s2\().16b
	eor	\d3\().16b, \d3\().16b, \s3\().16b
	.endm

	/*
	 * \x0 ^= L(\b) = \b ^ rol(\b, 24) ^ rol(\b ^ rol(\b, 8) ^ rol(\b, 16), 2) on each
	 * 32-bit lane; \b is kept, \t0 and \t1 are scratch.
	 */
	.macro	xor_l, x0, b, t0, t1
	rev32	\t1\().8h, \b\().8h			/* rol(B, 16) */
	tbl	\t0\().16b, {\b\().16b}, ROL8.16b
	eor	\t1\().16b, \t1\().16b, \b\().16b
	eor	\t0\().16b, \t0\().16b, \t1\().16b		/* B ^ rol(B, 8) ^ rol(B, 16) */
	shl	\t1\().4s, \t0\().4s, #2
	sri	\t1\().4s, \t0\().4s, #30			/* rotated left by 2 */
	tbl	\t0\().16b, {\b\().16b}, ROL24.16b
	eor	\x0\().16b, \x0\().16b, \b\().16b
	eor	\x0\().16b, \x0\().16b, \t0\().16b		/* ^ B ^ rol(B, 24) */
	eor	\x0\().16b, \x0\().16b, \t1\().16b
	.endm

	/*
	 * The S-box on each byte of v12 into v13 for the batches, in one of three ways (the
	 * fastest depends on the CPU; the glue picks one at load): v12, v14 and v15 are
	 * clobbered.
	 *
	 * tbx: the S-box in v16-v31, `tbl` on its first quarter then `tbx` on the others, the
	 * index 64 less each time (an index out of a quarter leaves the byte alone): the
	 * fewest instructions, a serial chain. C64: 64 in every byte.
	 */
	.macro	sbox_tbx
	tbl	v13.16b, {v16.16b-v19.16b}, v12.16b	/* S-box entries 0-63 */
	sub	v12.16b, v12.16b, C64.16b
	tbx	v13.16b, {v20.16b-v23.16b}, v12.16b	/* 64-127 */
	sub	v12.16b, v12.16b, C64.16b
	tbx	v13.16b, {v24.16b-v27.16b}, v12.16b	/* 128-191 */
	sub	v12.16b, v12.16b, C64.16b
	tbx	v13.16b, {v28.16b-v31.16b}, v12.16b	/* 192-255 */
	.endm

	/*
	 * tbl: the same table, four independent `tbl` (an index out of a quarter gives 0)
	 * ORed together: three instructions more, no chain between the lookups.
	 */
	.macro	sbox_tbl
	tbl	v13.16b, {v16.16b-v19.16b}, v12.16b	/* S-box entries 0-63 */
	sub	v12.16b, v12.16b, C64.16b
	tbl	v14.16b, {v20.16b-v23.16b}, v12.16b	/* 64-127 */
	sub	v12.16b, v12.16b, C64.16b
	tbl	v15.16b, {v24.16b-v27.16b}, v12.16b	/* 128-191 */
	sub	v12.16b, v12.16b, C64.16b
	orr	v13.16b, v13.16b, v14.16b
	tbl	v14.16b, {v28.16b-v31.16b}, v12.16b	/* 192-255 */
	orr	v15.16b, v15.16b, v14.16b
	orr	v13.16b, v13.16b, v15.16b
	.endm

	/*
	 * aese: SM4's S-box is an inversion in GF(2^8) between two affine maps, as AES's is,
	 * in another representation of the field; so S(x) = Aout(SubBytes(Ain(x))), with
	 * Ain and Aout affine over GF(2) (scripts/sm4_aese_tables.py derives them, as
	 * tables of the low and the high nibble). SubBytes is AESE, which XORs its two
	 * operands first (the two halves of Ain) and also does ShiftRows, a permutation of
	 * the 16 bytes that xor_l_perm undoes.
	 */
	.macro	sbox_aese
	ushr	v15.16b, v12.16b, #4			/* (shifts first: see round1_aese) */
	and	v14.16b, v12.16b, M0F.16b
	tbl	v14.16b, {AIN_LO.16b}, v14.16b
	tbl	v15.16b, {AIN_HI.16b}, v15.16b
	aese	v14.16b, v15.16b			/* SubBytes(ShiftRows(Ain(x))) */
	ushr	v15.16b, v14.16b, #4
	and	v12.16b, v14.16b, M0F.16b
	tbl	v14.16b, {AOUT_LO.16b}, v12.16b
	tbl	v15.16b, {AOUT_HI.16b}, v15.16b
	eor	v13.16b, v14.16b, v15.16b		/* Aout(), in ShiftRows' order */
	.endm

	/*
	 * xor_l for the output of sbox_aese, whose bytes are in ShiftRows' order: \x0 ^= L(B)
	 * where \b is ShiftRows(B). The `tbl` that put the bytes back in place are also the
	 * byte rotations (PR0, PR8, PR16, PR24: ShiftRows undone, then rotated left by 0, 8, 16,
	 * 24 bits), so the permutation costs no instruction and waits on no other.
	 */
	.macro	xor_l_perm, x0, b, t0, t1
	tbl	\t0\().16b, {\b\().16b}, PR8.16b		/* rol(B, 8) */
	tbl	\t1\().16b, {\b\().16b}, PR16.16b		/* rol(B, 16) */
	eor	\t1\().16b, \t1\().16b, \t0\().16b
	tbl	\t0\().16b, {\b\().16b}, PR0.16b		/* B */
	eor	\t1\().16b, \t1\().16b, \t0\().16b		/* B ^ rol(B, 8) ^ rol(B, 16) */
	eor	\x0\().16b, \x0\().16b, \t0\().16b
	tbl	\t0\().16b, {\b\().16b}, PR24.16b		/* rol(B, 24) */
	eor	\x0\().16b, \x0\().16b, \t0\().16b
	shl	\t0\().4s, \t1\().4s, #2
	sri	\t0\().4s, \t1\().4s, #30			/* rotated left by 2 */
	eor	\x0\().16b, \x0\().16b, \t0\().16b
	.endm

	/*
	 * One round on four blocks: \x0 ^= L(S(\x1 ^ \x2 ^ \x3 ^ rk)), the S-box done the
	 * \v way. v12: the S-box input, v13: its output B, v14/v15: the parts of L(B).
	 */
	.macro	round4blk, v, x0, x1, x2, x3
	eor	v12.16b, \x1\().16b, \x2\().16b
	eor	v12.16b, v12.16b, ROUNDKEY.16b
	eor	v12.16b, v12.16b, \x3\().16b		/* \x3: the last round's result */
	sbox_\v
	.ifc	\v, aese
	xor_l_perm \x0, v13, v14, v15
	.else
	xor_l	\x0, v13, v14, v15
	.endif
	.endm

	/*
	 * The S-box on each byte of v12 into v13, for the serial paths, where each block
	 * waits for the one before: four independent `tbl` (an index outside a quarter's 64
	 * bytes gives 0) ORed together, a shorter chain than `tbl` then three `tbx`.
	 * C64/C128/C192 hold 64/128/192 in each byte; v12-v15 are clobbered.
	 */
	.macro	sbox_par
	sub	v13.16b, v12.16b, C64.16b
	sub	v14.16b, v12.16b, C128.16b
	sub	v15.16b, v12.16b, C192.16b
	tbl	v12.16b, {v16.16b-v19.16b}, v12.16b
	tbl	v13.16b, {v20.16b-v23.16b}, v13.16b
	tbl	v14.16b, {v24.16b-v27.16b}, v14.16b
	tbl	v15.16b, {v28.16b-v31.16b}, v15.16b
	orr	v12.16b, v12.16b, v13.16b
	orr	v14.16b, v14.16b, v15.16b
	orr	v13.16b, v12.16b, v14.16b
	.endm

	/*
	 * One round of one block (lane 0; the other lanes are computed and ignored):
	 * \x0 ^= L(S(\x1 ^ \x2 ^ \x3 ^ rk)), the words of the round before last first, so
	 * that only the last XOR waits for the previous round.
	 */
	.macro	round1, x0, x1, x2, x3
	ld1r	{ROUNDKEY.4s}, [RKP], #4
	eor	v12.16b, \x1\().16b, \x2\().16b
	eor	v12.16b, v12.16b, ROUNDKEY.16b
	eor	v12.16b, v12.16b, \x3\().16b
	sbox_par
	xor_l	\x0, v13, v14, v15
	.endm

	/* 32 rounds of the block in lane 0 of v0-v3, with the round keys at RK. */
	.macro	rounds32_1blk
	mov	RKP, RK
	.rept	8
	round1	v0, v1, v2, v3
	round1	v1, v2, v3, v0
	round1	v2, v3, v0, v1
	round1	v3, v0, v1, v2
	.endr
	.endm

	/*
	 * One round on the eight blocks for the tbx variant, which in-order cores run: the
	 * two 4-block groups interleaved instruction by instruction, so that each waits on
	 * its own chain while the other issues. v10-v12 and v13-v15 are the groups' scratch
	 * (S-box index, B, the parts of L), which leaves no register for the rotation
	 * tables: rol(B, 8) is a shift pair here, rol(B, 24) its `rev32` (ROL8/ROL24 are
	 * overwritten). The round key was loaded in the round before (the first before the
	 * rounds); this round loads the next one, if any, once its own is used,
	 * where the in-order cores' load pipe has a free slot (llvm-mca, Cortex-A55).
	 */
	.macro	round8_tbx_interleaved, a0, a1, a2, a3, b0, b1, b2, b3, early, last
	.if	!\early
	ld1r	{ROUNDKEY.4s}, [RKP], #4
	.endif
	eor	v10.16b, \a1\().16b, \a2\().16b
	eor	v13.16b, \b1\().16b, \b2\().16b
	eor	v10.16b, v10.16b, ROUNDKEY.16b
	eor	v13.16b, v13.16b, ROUNDKEY.16b
	eor	v10.16b, v10.16b, \a3\().16b
	eor	v13.16b, v13.16b, \b3\().16b
	.if	\early && !\last
	ld1r	{ROUNDKEY.4s}, [RKP], #4		/* the next round's key, a round early */
	.endif
	tbl	v11.16b, {v16.16b-v19.16b}, v10.16b
	tbl	v14.16b, {v16.16b-v19.16b}, v13.16b
	sub	v10.16b, v10.16b, C64.16b
	sub	v13.16b, v13.16b, C64.16b
	tbx	v11.16b, {v20.16b-v23.16b}, v10.16b
	tbx	v14.16b, {v20.16b-v23.16b}, v13.16b
	sub	v10.16b, v10.16b, C64.16b
	sub	v13.16b, v13.16b, C64.16b
	tbx	v11.16b, {v24.16b-v27.16b}, v10.16b
	tbx	v14.16b, {v24.16b-v27.16b}, v13.16b
	sub	v10.16b, v10.16b, C64.16b
	sub	v13.16b, v13.16b, C64.16b
	tbx	v11.16b, {v28.16b-v31.16b}, v10.16b
	tbx	v14.16b, {v28.16b-v31.16b}, v13.16b
	shl	v10.4s, v11.4s, #8
	shl	v13.4s, v14.4s, #8
	rev32	v12.8h, v11.8h				/* rol(B, 16) */
	rev32	v15.8h, v14.8h
	sri	v10.4s, v11.4s, #24			/* rol(B, 8) */
	sri	v13.4s, v14.4s, #24
	eor	\a0\().16b, \a0\().16b, v11.16b
	eor	\b0\().16b, \b0\().16b, v14.16b
	eor	v12.16b, v12.16b, v11.16b
	eor	v15.16b, v15.16b, v14.16b
	eor	v12.16b, v12.16b, v10.16b		/* B ^ rol(B, 8) ^ rol(B, 16) */
	eor	v15.16b, v15.16b, v13.16b
	rev32	v10.8h, v10.8h				/* rol(B, 24): rol(B, 8) by 16 more */
	rev32	v13.8h, v13.8h
	shl	v11.4s, v12.4s, #2
	shl	v14.4s, v15.4s, #2
	eor	\a0\().16b, \a0\().16b, v10.16b
	eor	\b0\().16b, \b0\().16b, v13.16b
	sri	v11.4s, v12.4s, #30			/* rotated left by 2 */
	sri	v14.4s, v15.4s, #30
	eor	\a0\().16b, \a0\().16b, v11.16b
	eor	\b0\().16b, \b0\().16b, v14.16b
	.endm

	/*
	 * One round on the eight blocks, with the next round key (tbx with \early: with the
	 * key loaded before, loading the next unless \last).
	 */
	.macro	round8, v, a0, a1, a2, a3, b0, b1, b2, b3, early=0, last=0
	.ifc	\v, tbx
	round8_tbx_interleaved \a0, \a1, \a2, \a3, \b0, \b1, \b2, \b3, \early, \last
	.else
	ld1r	{ROUNDKEY.4s}, [RKP], #4
	round4blk \v, \a0, \a1, \a2, \a3
	round4blk \v, \b0, \b1, \b2, \b3
	.endif
	.endm

	/*
	 * Four rounds: the words rotate through the registers and come back in place (\early
	 * and \last: as round8's, \last for the last four of the 32).
	 */
	.macro	rounds4, v, early=0, last=0
	round8	\v, v0, v1, v2, v3, v4, v5, v6, v7, \early
	round8	\v, v1, v2, v3, v0, v5, v6, v7, v4, \early
	round8	\v, v2, v3, v0, v1, v6, v7, v4, v5, \early
	round8	\v, v3, v0, v1, v2, v7, v4, v5, v6, \early, \last
	.endm

	/* One round on four blocks, with the next round key. */
	.macro	round4, v, a0, a1, a2, a3
	ld1r	{ROUNDKEY.4s}, [RKP], #4
	round4blk \v, \a0, \a1, \a2, \a3
	.endm

	/* Four rounds of four blocks. */
	.macro	rounds4_4blk, v
	round4	\v, v0, v1, v2, v3
	round4	\v, v1, v2, v3, v0
	round4	\v, v2, v3, v0, v1
	round4	\v, v3, v0, v1, v2
	.endm

	/*
	 * aese, on out-of-order cores: one round on twelve blocks (three groups of four:
	 * v0-v3, v4-v7, v26-v29), with the next round key. A third chain fills the vector
	 * pipes that two leave idle while each round waits on the one before.
	 */
	.macro	round12, a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3
	ld1r	{ROUNDKEY.4s}, [RKP], #4
	round4blk aese, \a0, \a1, \a2, \a3
	round4blk aese, \b0, \b1, \b2, \b3
	round4blk aese, \c0, \c1, \c2, \c3
	.endm

	/* Four rounds of twelve blocks. */
	.macro	rounds4_12
	round12	v0, v1, v2, v3, v4, v5, v6, v7, v26, v27, v28, v29
	round12	v1, v2, v3, v0, v5, v6, v7, v4, v27, v28, v29, v26
	round12	v2, v3, v0, v1, v6, v7, v4, v5, v28, v29, v26, v27
	round12	v3, v0, v1, v2, v7, v4, v5, v6, v29, v26, v27, v28
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

	/* The constants of the \v variant of the batches. */
	.macro	load_consts_var, v
	.ifc	\v, aese
	adr_l	x9, .Laese_maps
	ld1	{AIN_LO.16b-AOUT_HI.16b}, [x9]
	adr_l	x9, .Laese_perms
	ld1	{PR0.16b-PR24.16b}, [x9]
	movi	M0F.16b, #0x0f
	.else
	load_consts
	.endif
	.endm

	/*
	 * Loads four blocks transposed into \x0-\x3 (word j of the blocks in \xj), XORed
	 * with four blocks at PRE if it is not NULL (\t0-\t3: scratch), in SM4's word order.
	 * With \part = 1, COUNT (1 to 4) blocks instead (ld4n).
	 */
	.macro	load4, x0, x1, x2, x3, t0, t1, t2, t3, part=0
	ld4x	\part, \x0, \x1, \x2, \x3, SRC
	cbz	PRE, .Lload4_\@
	ld4x	\part, \t0, \t1, \t2, \t3, PRE
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
	 * blocks at POST if it is not NULL. v12-v15: the output words. With \part = 1,
	 * COUNT (1 to 4) blocks instead (ld4n, st4n).
	 */
	.macro	store4, x0, x1, x2, x3, part=0
	rev32	v12.16b, \x3\().16b
	rev32	v13.16b, \x2\().16b
	rev32	v14.16b, \x1\().16b
	rev32	v15.16b, \x0\().16b
	cbz	POST, .Lstore4_\@
	ld4x	\part, \x0, \x1, \x2, \x3, POST
	eor	v12.16b, v12.16b, \x0\().16b
	eor	v13.16b, v13.16b, \x1\().16b
	eor	v14.16b, v14.16b, \x2\().16b
	eor	v15.16b, v15.16b, \x3\().16b
.Lstore4_\@:
	.if	\part
	st4n	v12, v13, v14, v15, DST
	.else
	st4	{v12.4s-v15.4s}, [DST], #64
	.endif
	.endm

	/*
	 * \x0-\x3 from COUNT (1 to 4) blocks at \p, which advances past them: block i in
	 * lane i (word j of it in \xj), the other lanes left as they were. Four blocks
	 * are one `ld4`; fewer, one `ld4` of a lane each, so nothing after them is read.
	 */
	.macro	ld4n, x0, x1, x2, x3, p
	cmp	COUNT, #4
	b.lo	.Lld4n_part_\@
	ld4	{\x0\().4s-\x3\().4s}, [\p], #64
	b	.Lld4n_done_\@
.Lld4n_part_\@:
	ld4	{\x0\().s-\x3\().s}[0], [\p], #16
	cmp	COUNT, #2
	b.lo	.Lld4n_done_\@
	ld4	{\x0\().s-\x3\().s}[1], [\p], #16
	b.eq	.Lld4n_done_\@
	ld4	{\x0\().s-\x3\().s}[2], [\p], #16
.Lld4n_done_\@:
	.endm

	/* The stores of ld4n: lanes 0 to COUNT - 1 of \x0-\x3 as COUNT blocks at \p. */
	.macro	st4n, x0, x1, x2, x3, p
	cmp	COUNT, #4
	b.lo	.Lst4n_part_\@
	st4	{\x0\().4s-\x3\().4s}, [\p], #64
	b	.Lst4n_done_\@
.Lst4n_part_\@:
	st4	{\x0\().s-\x3\().s}[0], [\p], #16
	cmp	COUNT, #2
	b.lo	.Lst4n_done_\@
	st4	{\x0\().s-\x3\().s}[1], [\p], #16
	b.eq	.Lst4n_done_\@
	st4	{\x0\().s-\x3\().s}[2], [\p], #16
.Lst4n_done_\@:
	.endm

	/* Four whole blocks (one `ld4`), or with \part = 1 COUNT of them (ld4n). */
	.macro	ld4x, part, x0, x1, x2, x3, p
	.if	\part
	ld4n	\x0, \x1, \x2, \x3, \p
	.else
	ld4	{\x0\().4s-\x3\().4s}, [\p], #64
	.endif
	.endm

/*
 * The routines of the batches, one pair for each way of doing the S-box (\v: tbx, tbl,
 * aese):
 *
 * void sm4rs_neon_crypt_\v(const u32 rk[32], u8 *dst, const u8 *src,
 *			    unsigned int nbatches, const u8 sbox[256], const u8 *pre,
 *			    const u8 *post);
 *
 * nbatches groups of 8 blocks: dst = E(src ^ pre) ^ post, block by block, where E is the 32
 * rounds of rk (it encrypts with the encryption schedule, decrypts with the decryption
 * one) and pre, post (which advance with src) may be NULL. The modes are this: ECB with
 * neither, XTS with the tweaks as both, CTR encrypting the counters with the data as post,
 * CBC/CFB decryption with the shifted ciphertext as post. dst may be src, pre or post.
 * (The aese variant does not read sbox; it runs the 8 * nbatches blocks as batches of 12,
 * three groups of four, while 12 are left, then the 4 or 8 left.)
 *
 * void sm4rs_neon_cryptn_\v(const u32 rk[32], u8 *dst, const u8 *src,
 *			     unsigned int nblocks, const u8 sbox[256], const u8 *pre,
 *			     const u8 *post);
 *
 * The same for 1 to 8 blocks (nblocks: short requests and the tail of long ones), each
 * read and written where it is, nothing beyond them: 1-4 blocks as one group of four
 * lanes (half the work of a batch), 5-8 as two. The rounds are a loop here (8 times 4
 * rounds), not unrolled as in the batches.
 */
	.macro	crypt_funcs, v
SYM_FUNC_START(sm4rs_neon_cryptn_\v)
	save_v8_v15
	load_consts_var \v
	mov	RKP, RK
	mov	LOOPS, #8
	cmp	NBATCH, #4
	b.hi	.Lneon_n8_\v
	mov	COUNT, NBATCH
	load4	v0, v1, v2, v3, v12, v13, v14, v15, 1
.Lneon_n4_loop_\v:
	rounds4_4blk \v
	subs	LOOPS, LOOPS, #1
	b.ne	.Lneon_n4_loop_\v
	store4	v0, v1, v2, v3, 1
	b	.Lneon_n_ret_\v
.Lneon_n8_\v:
	sub	COUNT, NBATCH, #4
	load4	v0, v1, v2, v3, v12, v13, v14, v15	/* blocks 0-3 */
	load4	v4, v5, v6, v7, v12, v13, v14, v15, 1	/* blocks 4 to nblocks - 1 */
.Lneon_n8_loop_\v:
	rounds4	\v
	subs	LOOPS, LOOPS, #1
	b.ne	.Lneon_n8_loop_\v
	store4	v0, v1, v2, v3
	store4	v4, v5, v6, v7, 1
.Lneon_n_ret_\v:
	restore_v8_v15
	ret
SYM_FUNC_END(sm4rs_neon_cryptn_\v)

SYM_FUNC_START(sm4rs_neon_crypt_\v)
	cbz	NBATCH, .Lneon_ret_\v
	save_v8_v15
	load_consts_var \v
	.ifc	\v, aese
	/*
	 * The 8 * nbatches blocks as batches of 12 while they last, then the 4 or 8 left
	 * (a request of one batch of 8 runs as before: the 8-block loop below, once).
	 */
	lsl	BLOCKS, NBATCH, #3
	cmp	BLOCKS, #12
	b.lo	.Lneon_tail_\v
.Lneon_loop12_\v:
	load4	v0, v1, v2, v3, v12, v13, v14, v15	/* X0..X3 of blocks 0-3 */
	load4	v4, v5, v6, v7, v12, v13, v14, v15	/* X0..X3 of blocks 4-7 */
	load4	v26, v27, v28, v29, v12, v13, v14, v15	/* X0..X3 of blocks 8-11 */
	mov	RKP, RK
	.rept	8
	rounds4_12
	.endr
	store4	v0, v1, v2, v3
	store4	v4, v5, v6, v7
	store4	v26, v27, v28, v29
	sub	BLOCKS, BLOCKS, #12
	cmp	BLOCKS, #12
	b.hs	.Lneon_loop12_\v
	cbz	BLOCKS, .Lneon_done_\v
.Lneon_tail_\v:
	cmp	BLOCKS, #4
	b.ne	.Lneon_loop_\v
	/* 4 blocks: the rounds as a loop, as in cryptn. */
	load4	v0, v1, v2, v3, v12, v13, v14, v15
	mov	RKP, RK
	mov	LOOPS, #8
.Lneon_tail4_loop_\v:
	rounds4_4blk \v
	subs	LOOPS, LOOPS, #1
	b.ne	.Lneon_tail4_loop_\v
	store4	v0, v1, v2, v3
	b	.Lneon_done_\v
	.endif
.Lneon_loop_\v:
	load4	v0, v1, v2, v3, v12, v13, v14, v15	/* X0..X3 of blocks 0-3 */
	load4	v4, v5, v6, v7, v12, v13, v14, v15	/* X0..X3 of blocks 4-7 */
	mov	RKP, RK
	.ifc	\v, tbx
	ld1r	{ROUNDKEY.4s}, [RKP], #4		/* round 0's key; each loads the next */
	.endif
	.rept	7
	rounds4	\v, 1
	.endr
	rounds4	\v, 1, 1
	store4	v0, v1, v2, v3
	store4	v4, v5, v6, v7
	.ifc	\v, aese
	/* (aese comes here for the last 8 blocks, once.) */
	.else
	subs	NBATCH, NBATCH, #1
	b.ne	.Lneon_loop_\v
	.endif
.Lneon_done_\v:
	restore_v8_v15
.Lneon_ret_\v:
	ret
SYM_FUNC_END(sm4rs_neon_crypt_\v)
	.endm

	crypt_funcs tbx
	crypt_funcs tbl
	crypt_funcs aese

	/* The serial paths' constants: those of the batches, and 128 and 192. */
	.macro	load_consts_serial
	load_consts
	movi	C128.16b, #128
	movi	C192.16b, #192
	.endm

/*
 * void sm4rs_neon_cbc_enc(const u32 rk[32], u8 *dst, const u8 *src, unsigned int nblocks,
 *			   const u8 sbox[256], u8 iv[16]);
 *
 * CBC encryption of nblocks blocks, one at a time (each needs the one before), the S-box
 * in registers as in the batches: C[i] = E(P[i] ^ C[i-1]), C[-1] = iv, and iv is left as
 * the last C. dst may be src. Between blocks, the chain is the state v3, v2, v1, v0 (the
 * output's words in SM4's order); v12-v15 carry the plaintext and ciphertext words.
 */
SYM_FUNC_START(sm4rs_neon_cbc_enc)
	cbz	NBATCH, .Lcbc_ret
	save_v8_v15
	load_consts_serial
	ld4	{v12.s-v15.s}[0], [x5]			/* the IV, as the chain */
	rev32	v3.16b, v12.16b
	rev32	v2.16b, v13.16b
	rev32	v1.16b, v14.16b
	rev32	v0.16b, v15.16b
.Lcbc_loop:
	ld4	{v12.s-v15.s}[0], [SRC], #16		/* P */
	rev32	v12.16b, v12.16b
	rev32	v13.16b, v13.16b
	rev32	v14.16b, v14.16b
	rev32	v15.16b, v15.16b
	eor4	v12, v13, v14, v15, v3, v2, v1, v0	/* P ^ C[i-1], in SM4's words */
	mov	v0.16b, v12.16b
	mov	v1.16b, v13.16b
	mov	v2.16b, v14.16b
	mov	v3.16b, v15.16b
	rounds32_1blk
	rev32	v12.16b, v3.16b				/* C = (X35, X34, X33, X32) */
	rev32	v13.16b, v2.16b
	rev32	v14.16b, v1.16b
	rev32	v15.16b, v0.16b
	st4	{v12.s-v15.s}[0], [DST], #16
	subs	NBATCH, NBATCH, #1
	b.ne	.Lcbc_loop
	st4	{v12.s-v15.s}[0], [x5]			/* the last C, as the next IV */
	restore_v8_v15
.Lcbc_ret:
	ret
SYM_FUNC_END(sm4rs_neon_cbc_enc)

	/*
	 * The serial paths with AESE, on CPUs that have it and PMULL: a block's four words
	 * each in all four lanes of a register (ld4r), so that AESE's ShiftRows, which moves
	 * bytes between the columns of its 4x4 state, moves none (the columns are equal),
	 * and the S-box needs neither xor_l_perm's permutations nor sbox_par's four `tbl`s of
	 * four registers. L is one carry-less multiplication: with B in both words of a
	 * 64-bit lane, (B + B * x^32) * P for P = 1 + x^2 + x^10 + x^18 + x^24 has L(B), the
	 * product of B and P modulo x^32 + 1, in its second word; `dup` spreads it to the four
	 * lanes.
	 *
	 * The chain from one round to the next is kept short. A round's S-box input is
	 * p ^ l: p the XOR of its round key and three words as they stood before the last
	 * round wrote one of them (ready early), l that round's L. Ain is affine, so
	 * Ain(p ^ l) = Ain(p) ^ Mi(l), Mi its linear part (Ain's tables less the constant,
	 * which is in the low one): Ain(p) is made off the chain, Mi(l) from the last
	 * round's product before its `dup`, and AESE's own XOR joins the two. The chain of a
	 * round: AESE, Aout (`and`/`ushr`, `tbl`, `eor`), PMULL, Mi (the same three), `dup`;
	 * the word the last round wrote gets its l in this round, off the chain.
	 *
	 * v0-v3: the state (the last written word without its l); v8 the round key; v9 0x0f;
	 * v16-v19 the affine maps (as sbox_aese); v20 P; v21 l in every lane; v22 Mi(l) in
	 * every lane; v23 Mi's low-nibble table; v12-v15 scratch.
	 */
	LPOLY	.req	v20
	LPEND	.req	v21	/* l: the L of the last round, not yet in its word */
	MIPEND	.req	v22	/* Mi(l) */
	MI_LO	.req	v23	/* Mi, low nibble (the high nibble's is AIN_HI) */

	.macro	load_consts_serial_aese
	adr_l	x9, .Laese_maps
	ld1	{AIN_LO.16b-AOUT_HI.16b}, [x9]
	movi	M0F.16b, #0x0f
	mov	w9, #0x0405
	movk	w9, #0x0104, lsl #16			/* x^24 + x^18 + x^10 + x^2 + 1 */
	fmov	d20, x9
	dup	MI_LO.16b, AIN_LO.b[0]			/* Ain's constant: Ain(0) */
	eor	MI_LO.16b, MI_LO.16b, AIN_LO.16b
	.endm

	/*
	 * \x0 ^= L(S(\x1 ^ \x2 ^ \x3 ^ rk)), every lane alike, where \x3 (written by the last
	 * round) still lacks LPEND. Each nibble split issues its shift first: vector shifts
	 * have fewer pipes than logical operations (one of two on Neoverse N1 and N2), and
	 * an XOR ready in the same cycle could otherwise take the shift's pipe and hold the
	 * round a cycle.
	 */
	.macro	round1_aese, x0, x1, x2, x3
	ld1r	{ROUNDKEY.4s}, [RKP], #4
	eor	v12.16b, \x1\().16b, \x2\().16b
	eor	v12.16b, v12.16b, ROUNDKEY.16b
	eor	v12.16b, v12.16b, \x3\().16b		/* p */
	eor	\x3\().16b, \x3\().16b, LPEND.16b		/* \x3 complete */
	ushr	v15.16b, v12.16b, #4
	and	v14.16b, v12.16b, M0F.16b
	tbl	v14.16b, {AIN_LO.16b}, v14.16b
	tbl	v15.16b, {AIN_HI.16b}, v15.16b
	eor	v14.16b, v14.16b, v15.16b		/* Ain(p) */
	aese	v14.16b, MIPEND.16b			/* SubBytes(Ain(p ^ l)), ShiftRows idle */
	ushr	v15.8b, v14.8b, #4
	and	v12.8b, v14.8b, M0F.8b			/* (the low half: B twice) */
	tbl	v12.8b, {AOUT_LO.16b}, v12.8b
	tbl	v15.8b, {AOUT_HI.16b}, v15.8b
	eor	v12.8b, v12.8b, v15.8b			/* B = S(p ^ l), in both words */
	pmull	v12.1q, v12.1d, LPOLY.1d		/* L(B) in word 1 */
	ushr	v15.8b, v12.8b, #4
	and	v13.8b, v12.8b, M0F.8b
	tbl	v13.8b, {MI_LO.16b}, v13.8b
	tbl	v15.8b, {AIN_HI.16b}, v15.8b
	eor	v13.8b, v13.8b, v15.8b			/* Mi(L(B)) in word 1 */
	dup	MIPEND.4s, v13.s[1]
	dup	LPEND.4s, v12.s[1]			/* \x0's l, added next round */
	.endm

	/* 32 rounds of the block in v0-v3 (each word in every lane), keys at RK. */
	.macro	rounds32_aese
	mov	RKP, RK
	movi	LPEND.16b, #0
	movi	MIPEND.16b, #0
	.rept	8
	round1_aese v0, v1, v2, v3
	round1_aese v1, v2, v3, v0
	round1_aese v2, v3, v0, v1
	round1_aese v3, v0, v1, v2
	.endr
	eor	v3.16b, v3.16b, LPEND.16b		/* the last round's l */
	.endm

/*
 * void sm4rs_neon_crypt1_aese(const u32 rk[32], u8 *dst, const u8 *src,
 *			       unsigned int nblocks, const u8 sbox[256], const u8 *pre,
 *			       const u8 *post);
 *
 * sm4rs_neon_cryptn_aese for one block (nblocks and sbox are not read) in the serial
 * paths' form: a quarter of the batch rounds' work, where a block alone would take the
 * four lanes of cryptn's, and a shorter chain. pre, post and dst may be src.
 */
SYM_FUNC_START(sm4rs_neon_crypt1_aese)
	save_v8_v15
	load_consts_serial_aese
	ld4r	{v0.4s-v3.4s}, [SRC]			/* each word in every lane */
	cbz	PRE, .Lcrypt1_pre_done
	ld4r	{v12.4s-v15.4s}, [PRE]
	eor4	v0, v1, v2, v3, v12, v13, v14, v15
.Lcrypt1_pre_done:
	rev32	v0.16b, v0.16b
	rev32	v1.16b, v1.16b
	rev32	v2.16b, v2.16b
	rev32	v3.16b, v3.16b
	rounds32_aese
	rev32	v12.16b, v3.16b				/* (X35, X34, X33, X32) */
	rev32	v13.16b, v2.16b
	rev32	v14.16b, v1.16b
	rev32	v15.16b, v0.16b
	cbz	POST, .Lcrypt1_post_done
	ld4r	{v0.4s-v3.4s}, [POST]
	eor4	v12, v13, v14, v15, v0, v1, v2, v3
.Lcrypt1_post_done:
	st4	{v12.s-v15.s}[0], [DST]
	restore_v8_v15
	ret
SYM_FUNC_END(sm4rs_neon_crypt1_aese)

/*
 * void sm4rs_neon_cbc_enc_aese(const u32 rk[32], u8 *dst, const u8 *src,
 *				unsigned int nblocks, const u8 sbox[256], u8 iv[16]);
 *
 * sm4rs_neon_cbc_enc with AESE and PMULL (sbox is not read). v0-v3: the chain, then the
 * state; v12-v15 the plaintext's and the ciphertext's words.
 */
SYM_FUNC_START(sm4rs_neon_cbc_enc_aese)
	cbz	NBATCH, .Lcbca_ret
	save_v8_v15
	load_consts_serial_aese
	ld4r	{v12.4s-v15.4s}, [x5]			/* the IV, as the chain */
	rev32	v3.16b, v12.16b
	rev32	v2.16b, v13.16b
	rev32	v1.16b, v14.16b
	rev32	v0.16b, v15.16b
.Lcbca_loop:
	ld4r	{v12.4s-v15.4s}, [SRC], #16		/* P, each word in every lane */
	rev32	v12.16b, v12.16b
	rev32	v13.16b, v13.16b
	rev32	v14.16b, v14.16b
	rev32	v15.16b, v15.16b
	eor4	v12, v13, v14, v15, v3, v2, v1, v0	/* P ^ C[i-1], in SM4's words */
	mov	v0.16b, v12.16b
	mov	v1.16b, v13.16b
	mov	v2.16b, v14.16b
	mov	v3.16b, v15.16b
	rounds32_aese
	rev32	v12.16b, v3.16b				/* C = (X35, X34, X33, X32) */
	rev32	v13.16b, v2.16b
	rev32	v14.16b, v1.16b
	rev32	v15.16b, v0.16b
	st4	{v12.s-v15.s}[0], [DST], #16
	subs	NBATCH, NBATCH, #1
	b.ne	.Lcbca_loop
	st4	{v12.s-v15.s}[0], [x5]			/* the last C, as the next IV */
	restore_v8_v15
.Lcbca_ret:
	ret
SYM_FUNC_END(sm4rs_neon_cbc_enc_aese)

#ifdef CONFIG_CRYPTO_SM4_RUST_CFB
/*
 * void sm4rs_neon_cfb_enc_aese(const u32 rk[32], u8 *dst, const u8 *src,
 *				unsigned int nblocks, const u8 sbox[256], u8 iv[16]);
 *
 * sm4rs_neon_cfb_enc with AESE and PMULL (sbox is not read). v0-v3: the block being
 * encrypted; v12-v15: the keystream, then the ciphertext.
 */
SYM_FUNC_START(sm4rs_neon_cfb_enc_aese)
	cbz	NBATCH, .Lcfba_ret
	save_v8_v15
	load_consts_serial_aese
	ld4r	{v0.4s-v3.4s}, [x5]			/* the IV, each word in every lane */
	rev32	v0.16b, v0.16b
	rev32	v1.16b, v1.16b
	rev32	v2.16b, v2.16b
	rev32	v3.16b, v3.16b
.Lcfba_loop:
	rounds32_aese
	rev32	v12.16b, v3.16b				/* E(C[i-1]) */
	rev32	v13.16b, v2.16b
	rev32	v14.16b, v1.16b
	rev32	v15.16b, v0.16b
	ld4r	{v0.4s-v3.4s}, [SRC], #16		/* P */
	eor4	v12, v13, v14, v15, v0, v1, v2, v3
	st4	{v12.s-v15.s}[0], [DST], #16
	rev32	v0.16b, v12.16b				/* C, the next block to encrypt */
	rev32	v1.16b, v13.16b
	rev32	v2.16b, v14.16b
	rev32	v3.16b, v15.16b
	subs	NBATCH, NBATCH, #1
	b.ne	.Lcfba_loop
	st4	{v12.s-v15.s}[0], [x5]			/* the last C, as the next IV */
	restore_v8_v15
.Lcfba_ret:
	ret
SYM_FUNC_END(sm4rs_neon_cfb_enc_aese)
#endif /* CONFIG_CRYPTO_SM4_RUST_CFB */

#ifdef CONFIG_CRYPTO_SM4_RUST_CFB
/*
 * void sm4rs_neon_cfb_enc(const u32 rk[32], u8 *dst, const u8 *src, unsigned int nblocks,
 *			   const u8 sbox[256], u8 iv[16]);
 *
 * CFB encryption of nblocks whole blocks, one at a time: C[i] = P[i] ^ E(C[i-1]),
 * C[-1] = iv, and iv is left as the last C. dst may be src. v0-v3: the chain (the block
 * being encrypted); v12-v15: the keystream, then the ciphertext.
 */
SYM_FUNC_START(sm4rs_neon_cfb_enc)
	cbz	NBATCH, .Lcfb_ret
	save_v8_v15
	load_consts_serial
	ld4	{v0.s-v3.s}[0], [x5]			/* the IV */
	rev32	v0.16b, v0.16b
	rev32	v1.16b, v1.16b
	rev32	v2.16b, v2.16b
	rev32	v3.16b, v3.16b
.Lcfb_loop:
	rounds32_1blk
	rev32	v12.16b, v3.16b				/* E(C[i-1]) */
	rev32	v13.16b, v2.16b
	rev32	v14.16b, v1.16b
	rev32	v15.16b, v0.16b
	ld4	{v0.s-v3.s}[0], [SRC], #16		/* P */
	eor4	v12, v13, v14, v15, v0, v1, v2, v3
	st4	{v12.s-v15.s}[0], [DST], #16
	rev32	v0.16b, v12.16b				/* C, the next block to encrypt */
	rev32	v1.16b, v13.16b
	rev32	v2.16b, v14.16b
	rev32	v3.16b, v15.16b
	subs	NBATCH, NBATCH, #1
	b.ne	.Lcfb_loop
	st4	{v12.s-v15.s}[0], [x5]			/* the last C, as the next IV */
	restore_v8_v15
.Lcfb_ret:
	ret
SYM_FUNC_END(sm4rs_neon_cfb_enc)
#endif /* CONFIG_CRYPTO_SM4_RUST_CFB */

	/*
	 * One round of the key schedule (lane 0): \k0 ^= L'(S(\k1 ^ \k2 ^ \k3 ^ CK[i])),
	 * L'(B) = B ^ rol(B, 13) ^ rol(B, 23); the new word is round key i, stored at ENC
	 * (forwards) and DEC (backwards).
	 */
	.macro	kround, k0, k1, k2, k3
	ld1r	{ROUNDKEY.4s}, [x5], #4			/* CK[i] */
	eor	v12.16b, \k1\().16b, \k2\().16b
	eor	v12.16b, v12.16b, ROUNDKEY.16b
	eor	v12.16b, v12.16b, \k3\().16b
	sbox_par
	shl	v14.4s, v13.4s, #13
	sri	v14.4s, v13.4s, #19
	shl	v15.4s, v13.4s, #23
	sri	v15.4s, v13.4s, #9
	eor	\k0\().16b, \k0\().16b, v13.16b
	eor	v14.16b, v14.16b, v15.16b
	eor	\k0\().16b, \k0\().16b, v14.16b
	st1	{\k0\().s}[0], [x1], #4
	st1	{\k0\().s}[0], [x2], x9
	.endm

/*
 * void sm4rs_neon_expand_key(const u8 key[16], u32 enc[32], u32 dec[32],
 *			      const u8 sbox[256], const u32 fk[4], const u32 ck[32]);
 *
 * The key schedule (GB/T 32907-2016 section 7.3) with the S-box in registers: enc gets
 * the round keys in order, dec in reverse. v0-v3: K[i..i+3] in lane 0; the registers
 * that held key material are cleared before returning.
 */
SYM_FUNC_START(sm4rs_neon_expand_key)
	save_v8_v15
	movi	v0.16b, #0
	movi	v1.16b, #0
	movi	v2.16b, #0
	movi	v3.16b, #0
	mov	v12.16b, v0.16b
	mov	v13.16b, v0.16b
	mov	v14.16b, v0.16b
	mov	v15.16b, v0.16b
	ld4	{v12.s-v15.s}[0], [x0]			/* MK, big-endian words */
	ld4	{v0.s-v3.s}[0], [x4]			/* FK */
	rev32	v12.16b, v12.16b
	rev32	v13.16b, v13.16b
	rev32	v14.16b, v14.16b
	rev32	v15.16b, v15.16b
	eor4	v0, v1, v2, v3, v12, v13, v14, v15	/* K[0..3] = MK ^ FK */
	mov	SBOX, x3				/* (after FK, which was in x4) */
	load_consts_serial
	add	x2, x2, #124				/* dec[31], stepping back */
	mov	x9, #-4
	.rept	8
	kround	v0, v1, v2, v3
	kround	v1, v2, v3, v0
	kround	v2, v3, v0, v1
	kround	v3, v0, v1, v2
	.endr
	movi	v0.16b, #0
	movi	v1.16b, #0
	movi	v2.16b, #0
	movi	v3.16b, #0
	movi	v12.16b, #0
	movi	v13.16b, #0
	movi	v14.16b, #0
	movi	v15.16b, #0
	restore_v8_v15
	ret
SYM_FUNC_END(sm4rs_neon_expand_key)

	.section ".rodata", "a"
	.align	4
.Lrol8:		/* each 32-bit lane rotated left by 8 bits */
	.byte	3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14
.Lrol24:	/* each 32-bit lane rotated left by 24 bits */
	.byte	1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12
.Laese_perms:	/* PR0, PR8, PR16, PR24 of xor_l_perm: byte i of the result is byte P[i] */
	.byte	0, 13, 10, 7, 4, 1, 14, 11, 8, 5, 2, 15, 12, 9, 6, 3	/* PR0: ShiftRows undone */
	.byte	7, 0, 13, 10, 11, 4, 1, 14, 15, 8, 5, 2, 3, 12, 9, 6	/* PR8 */
	.byte	10, 7, 0, 13, 14, 11, 4, 1, 2, 15, 8, 5, 6, 3, 12, 9	/* PR16 */
	.byte	13, 10, 7, 0, 1, 14, 11, 4, 5, 2, 15, 8, 9, 6, 3, 12	/* PR24 */
	/*
	 * Ain and Aout of sbox_aese as tables of a nibble, from scripts/sm4_aese_tables.py
	 * (which checks that Aout(SubBytes(Ain(x))) is SM4's S-box for every byte x).
	 */
.Laese_maps:
	.byte	0x3e, 0xb2, 0x0e, 0x82, 0xbb, 0x37, 0x8b, 0x07	/* Ain, low nibble */
	.byte	0xa1, 0x2d, 0x91, 0x1d, 0x24, 0xa8, 0x14, 0x98
	.byte	0x00, 0xdc, 0x2e, 0xf2, 0xc5, 0x19, 0xeb, 0x37	/* Ain, high nibble */
	.byte	0x08, 0xd4, 0x26, 0xfa, 0xcd, 0x11, 0xe3, 0x3f
	.byte	0x6c, 0xd4, 0xa6, 0x1e, 0x52, 0xea, 0x98, 0x20	/* Aout, low nibble */
	.byte	0x0b, 0xb3, 0xc1, 0x79, 0x35, 0x8d, 0xff, 0x47
	.byte	0x00, 0xe0, 0x50, 0xb0, 0x9d, 0x7d, 0xcd, 0x2d	/* Aout, high nibble */
	.byte	0xc0, 0x20, 0x90, 0x70, 0x5d, 0xbd, 0x0d, 0xed

/*
 * u32 sm4rs_neon_impl: which variant of the batches the glue uses: 0 picks one for the
 * CPU (sm4_neon_glue.rs), 1 tbx, 2 tbl, 3 aese. Set at load from the module parameter
 * `impl`; exported, where KUnit is configured, for the KUnit suite sm4_neon_variants,
 * which tests each variant on every boot whatever the CPU picks.
 */
	.data
	.balign	4
SYM_DATA(sm4rs_neon_impl, .long 0)
#if IS_ENABLED(CONFIG_KUNIT)
EXPORT_SYMBOL_GPL(sm4rs_neon_impl)
#endif
