/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SM4 (GB/T 32907-2016) block cores for the ARMv8 Crypto Extensions: SM4EKEY for the key
 * schedule, SM4E (four rounds of one block per instruction) for the data. Called from
 * sm4_ce_glue.rs, only inside a kernel-mode NEON section.
 *
 * Data layout: SM4 works on big-endian 32-bit words, so a block is loaded as bytes and
 * `rev32` puts each word in SM4E's lane order (word 0 in lane 0). After the 32 rounds the
 * state is (X32, X33, X34, X35) and the output is (X35, X34, X33, X32) in big-endian bytes:
 * a reversal of all 16 bytes, one `tbl` with BSWAP128.
 *
 * The parallel paths keep 8 blocks in flight (SM4E has a latency of 4 and issues once per
 * cycle on one pipe); the chained directions (CBC and CFB encryption) keep the chaining
 * value in SM4E's lane order so that only a permutation and an XOR sit on the chain.
 *
 * Every function takes a block count and touches exactly that many blocks of src and dst,
 * which may be the same buffer (in place) but must not otherwise overlap. A count of 0
 * does nothing. Partial blocks are the glue's business.
 *
 * Registers (AAPCS64): x0-x7 arguments, x9-x15 scratch; v0-v7 the blocks in flight,
 * v8-v15 (callee-saved, low halves spilled) the inputs kept for the final XOR, v16-v23
 * scratch and constants, v24-v31 the 32 round keys.
 */

#include <linux/linkage.h>
#include <asm/assembler.h>

	.arch	armv8.2-a+crypto+sm4

	/* Arguments of the bulk functions. */
	RK	.req	x0	/* const u32 rk[32], the schedule for this direction */
	DST	.req	x1	/* u8 *dst */
	SRC	.req	x2	/* const u8 *src */
	NBLK	.req	w3	/* unsigned int nblocks */
	IV	.req	x4	/* u8 iv[16] (CBC, CFB, CTR) or the XTS tweak: read and updated */

	/* Constants and chaining state. */
	BSWAP	.req	v23	/* tbl index reversing 16 bytes: SM4E state -> output bytes */
	WREV	.req	v22	/* tbl index reversing the four words: output -> next input */
	CHAIN	.req	v21	/* CBC/CFB: the previous ciphertext block */

	/* v24-v31 <- rk[0..31]; clobbers RK. */
	.macro	load_round_keys
	ld1	{v24.4s-v27.4s}, [RK], #64
	ld1	{v28.4s-v31.4s}, [RK]
	.endm

	/* Loads the tbl index \name into \reg. */
	.macro	load_perm, reg, name
	adr_l	x9, \name
	ld1	{\reg\().16b}, [x9]
	.endm

	/* The 32 rounds of one block, in SM4E lane order. */
	.macro	sm4_rounds1, b
	sm4e	\b\().4s, v24.4s
	sm4e	\b\().4s, v25.4s
	sm4e	\b\().4s, v26.4s
	sm4e	\b\().4s, v27.4s
	sm4e	\b\().4s, v28.4s
	sm4e	\b\().4s, v29.4s
	sm4e	\b\().4s, v30.4s
	sm4e	\b\().4s, v31.4s
	.endm

	/* Four rounds (round keys \k) of eight blocks. */
	.macro	sm4_round8, k, b0, b1, b2, b3, b4, b5, b6, b7
	sm4e	\b0\().4s, \k\().4s
	sm4e	\b1\().4s, \k\().4s
	sm4e	\b2\().4s, \k\().4s
	sm4e	\b3\().4s, \k\().4s
	sm4e	\b4\().4s, \k\().4s
	sm4e	\b5\().4s, \k\().4s
	sm4e	\b6\().4s, \k\().4s
	sm4e	\b7\().4s, \k\().4s
	.endm

	/* The 32 rounds of eight independent blocks, interleaved to hide SM4E's latency. */
	.macro	sm4_rounds8, b0, b1, b2, b3, b4, b5, b6, b7
	sm4_round8 v24, \b0, \b1, \b2, \b3, \b4, \b5, \b6, \b7
	sm4_round8 v25, \b0, \b1, \b2, \b3, \b4, \b5, \b6, \b7
	sm4_round8 v26, \b0, \b1, \b2, \b3, \b4, \b5, \b6, \b7
	sm4_round8 v27, \b0, \b1, \b2, \b3, \b4, \b5, \b6, \b7
	sm4_round8 v28, \b0, \b1, \b2, \b3, \b4, \b5, \b6, \b7
	sm4_round8 v29, \b0, \b1, \b2, \b3, \b4, \b5, \b6, \b7
	sm4_round8 v30, \b0, \b1, \b2, \b3, \b4, \b5, \b6, \b7
	sm4_round8 v31, \b0, \b1, \b2, \b3, \b4, \b5, \b6, \b7
	.endm

	/* Output bytes of the eight states v0-v7, in place. */
	.macro	bswap8
	tbl	v0.16b, {v0.16b}, BSWAP.16b
	tbl	v1.16b, {v1.16b}, BSWAP.16b
	tbl	v2.16b, {v2.16b}, BSWAP.16b
	tbl	v3.16b, {v3.16b}, BSWAP.16b
	tbl	v4.16b, {v4.16b}, BSWAP.16b
	tbl	v5.16b, {v5.16b}, BSWAP.16b
	tbl	v6.16b, {v6.16b}, BSWAP.16b
	tbl	v7.16b, {v7.16b}, BSWAP.16b
	.endm

	/* Spill / restore the callee-saved low halves of v8-v15. */
	.macro	save_v8_v15
	stp	d8, d9, [sp, #-64]!
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

/*
 * void sm4rs_ce_expand_key(const u8 key[16], u32 rk_enc[32], u32 rk_dec[32],
 *			    const u32 fk[4], const u32 ck[32]);
 *
 * The encryption schedule with SM4EKEY, and the decryption schedule (the same keys in
 * reverse order). FK and CK are the standard's constants, passed in so that one table
 * serves the Rust and the assembly schedules.
 */
SYM_FUNC_START(sm4rs_ce_expand_key)
	ld1	{v0.16b}, [x0]			/* v0: MK, the key */
	rev32	v0.16b, v0.16b			/* as big-endian words */
	ld1	{v1.4s}, [x3]			/* v1: FK */
	eor	v0.16b, v0.16b, v1.16b		/* v0: K0..K3 = MK ^ FK */
	ld1	{v24.4s-v27.4s}, [x4], #64	/* v24-v31: CK0..CK31 */
	ld1	{v28.4s-v31.4s}, [x4]

	sm4ekey	v0.4s, v0.4s, v24.4s		/* v0-v7: rk0..rk31 */
	sm4ekey	v1.4s, v0.4s, v25.4s
	sm4ekey	v2.4s, v1.4s, v26.4s
	sm4ekey	v3.4s, v2.4s, v27.4s
	sm4ekey	v4.4s, v3.4s, v28.4s
	sm4ekey	v5.4s, v4.4s, v29.4s
	sm4ekey	v6.4s, v5.4s, v30.4s
	sm4ekey	v7.4s, v6.4s, v31.4s
	st1	{v0.4s-v3.4s}, [x1], #64
	st1	{v4.4s-v7.4s}, [x1]

	/* v16-v23: rk31..rk0, each register's words and the registers in reverse order */
	.irp	i, 0, 1, 2, 3, 4, 5, 6, 7
	rev64	v\i\().4s, v\i\().4s
	ext	v\i\().16b, v\i\().16b, v\i\().16b, #8
	.endr
	mov	v16.16b, v7.16b
	mov	v17.16b, v6.16b
	mov	v18.16b, v5.16b
	mov	v19.16b, v4.16b
	mov	v20.16b, v3.16b
	mov	v21.16b, v2.16b
	mov	v22.16b, v1.16b
	mov	v23.16b, v0.16b
	st1	{v16.4s-v19.4s}, [x2], #64
	st1	{v20.4s-v23.4s}, [x2]
	ret
SYM_FUNC_END(sm4rs_ce_expand_key)

/*
 * void sm4rs_ce_crypt(const u32 rk[32], u8 *dst, const u8 *src, unsigned int nblocks);
 *
 * ECB: each block through the 32 rounds of rk (encrypts with the encryption schedule,
 * decrypts with the decryption schedule).
 */
SYM_FUNC_START(sm4rs_ce_crypt)
	load_round_keys
	load_perm BSWAP, .Lbswap128
.Lecb_loop8:
	cmp	NBLK, #8
	b.lo	.Lecb_tail
	ld1	{v0.16b-v3.16b}, [SRC], #64
	ld1	{v4.16b-v7.16b}, [SRC], #64
	.irp	b, v0, v1, v2, v3, v4, v5, v6, v7
	rev32	\b\().16b, \b\().16b
	.endr
	sm4_rounds8 v0, v1, v2, v3, v4, v5, v6, v7
	bswap8
	st1	{v0.16b-v3.16b}, [DST], #64
	st1	{v4.16b-v7.16b}, [DST], #64
	sub	NBLK, NBLK, #8
	b	.Lecb_loop8
.Lecb_tail:
	cbz	NBLK, .Lecb_done
	ld1	{v0.16b}, [SRC], #16
	rev32	v0.16b, v0.16b
	sm4_rounds1 v0
	tbl	v0.16b, {v0.16b}, BSWAP.16b
	st1	{v0.16b}, [DST], #16
	sub	NBLK, NBLK, #1
	b	.Lecb_tail
.Lecb_done:
	ret
SYM_FUNC_END(sm4rs_ce_crypt)

/*
 * void sm4rs_ce_cbc_enc(const u32 rk_enc[32], u8 *dst, const u8 *src,
 *			 unsigned int nblocks, u8 iv[16]);
 *
 * C[i] = E(P[i] ^ C[i-1]), C[-1] = iv; iv <- the last C. The chain stays in SM4E lane
 * order: S = rev32(C[i-1]) is the state's words reversed (one tbl), so the recurrence is
 * tbl, eor and eight SM4E.
 */
SYM_FUNC_START(sm4rs_ce_cbc_enc)
	cbz	NBLK, .Lcbc_enc_ret
	load_round_keys
	load_perm BSWAP, .Lbswap128
	load_perm WREV, .Lwordrev
	ld1	{v16.16b}, [IV]
	rev32	v16.16b, v16.16b		/* v16: S, the chain in lane order */
.Lcbc_enc_loop:
	ld1	{v0.16b}, [SRC], #16
	rev32	v0.16b, v0.16b
	eor	v0.16b, v0.16b, v16.16b
	sm4_rounds1 v0
	tbl	v16.16b, {v0.16b}, WREV.16b	/* next S */
	tbl	v1.16b, {v0.16b}, BSWAP.16b	/* v1: C[i] */
	st1	{v1.16b}, [DST], #16
	subs	NBLK, NBLK, #1
	b.ne	.Lcbc_enc_loop
	st1	{v1.16b}, [IV]
.Lcbc_enc_ret:
	ret
SYM_FUNC_END(sm4rs_ce_cbc_enc)

/*
 * void sm4rs_ce_cbc_dec(const u32 rk_dec[32], u8 *dst, const u8 *src,
 *			 unsigned int nblocks, u8 iv[16]);
 *
 * P[i] = D(C[i]) ^ C[i-1], 8 blocks at a time; iv <- the last C.
 */
SYM_FUNC_START(sm4rs_ce_cbc_dec)
	cbz	NBLK, .Lcbc_dec_ret
	save_v8_v15
	load_round_keys
	load_perm BSWAP, .Lbswap128
	ld1	{CHAIN.16b}, [IV]
.Lcbc_dec_loop8:
	cmp	NBLK, #8
	b.lo	.Lcbc_dec_tail
	ld1	{v8.16b-v11.16b}, [SRC], #64	/* v8-v15: C[i..i+7] */
	ld1	{v12.16b-v15.16b}, [SRC], #64
	rev32	v0.16b, v8.16b
	rev32	v1.16b, v9.16b
	rev32	v2.16b, v10.16b
	rev32	v3.16b, v11.16b
	rev32	v4.16b, v12.16b
	rev32	v5.16b, v13.16b
	rev32	v6.16b, v14.16b
	rev32	v7.16b, v15.16b
	sm4_rounds8 v0, v1, v2, v3, v4, v5, v6, v7
	bswap8
	eor	v0.16b, v0.16b, CHAIN.16b
	eor	v1.16b, v1.16b, v8.16b
	eor	v2.16b, v2.16b, v9.16b
	eor	v3.16b, v3.16b, v10.16b
	eor	v4.16b, v4.16b, v11.16b
	eor	v5.16b, v5.16b, v12.16b
	eor	v6.16b, v6.16b, v13.16b
	eor	v7.16b, v7.16b, v14.16b
	mov	CHAIN.16b, v15.16b
	st1	{v0.16b-v3.16b}, [DST], #64
	st1	{v4.16b-v7.16b}, [DST], #64
	sub	NBLK, NBLK, #8
	b	.Lcbc_dec_loop8
.Lcbc_dec_tail:
	cbz	NBLK, .Lcbc_dec_done
	ld1	{v8.16b}, [SRC], #16
	rev32	v0.16b, v8.16b
	sm4_rounds1 v0
	tbl	v0.16b, {v0.16b}, BSWAP.16b
	eor	v0.16b, v0.16b, CHAIN.16b
	mov	CHAIN.16b, v8.16b
	st1	{v0.16b}, [DST], #16
	sub	NBLK, NBLK, #1
	b	.Lcbc_dec_tail
.Lcbc_dec_done:
	st1	{CHAIN.16b}, [IV]
	restore_v8_v15
.Lcbc_dec_ret:
	ret
SYM_FUNC_END(sm4rs_ce_cbc_dec)

/*
 * void sm4rs_ce_cfb_enc(const u32 rk_enc[32], u8 *dst, const u8 *src,
 *			 unsigned int nblocks, u8 iv[16]);
 *
 * C[i] = E(C[i-1]) ^ P[i], C[-1] = iv; iv <- the last C. The chain in lane order is
 * rev32(C[i]) = wordrev(state) ^ rev32(P[i]): tbl, eor and eight SM4E.
 */
SYM_FUNC_START(sm4rs_ce_cfb_enc)
	cbz	NBLK, .Lcfb_enc_ret
	load_round_keys
	load_perm BSWAP, .Lbswap128
	load_perm WREV, .Lwordrev
	ld1	{v16.16b}, [IV]
	rev32	v16.16b, v16.16b		/* v16: rev32(C[i-1]), the chain */
.Lcfb_enc_loop:
	ld1	{v1.16b}, [SRC], #16		/* v1: P[i] */
	sm4_rounds1 v16
	tbl	v2.16b, {v16.16b}, BSWAP.16b	/* v2: E(C[i-1]) */
	eor	v2.16b, v2.16b, v1.16b		/* v2: C[i] */
	st1	{v2.16b}, [DST], #16
	rev32	v1.16b, v1.16b
	tbl	v16.16b, {v16.16b}, WREV.16b
	eor	v16.16b, v16.16b, v1.16b	/* rev32(C[i]) */
	subs	NBLK, NBLK, #1
	b.ne	.Lcfb_enc_loop
	st1	{v2.16b}, [IV]
.Lcfb_enc_ret:
	ret
SYM_FUNC_END(sm4rs_ce_cfb_enc)

/*
 * void sm4rs_ce_cfb_dec(const u32 rk_enc[32], u8 *dst, const u8 *src,
 *			 unsigned int nblocks, u8 iv[16]);
 *
 * P[i] = E(C[i-1]) ^ C[i], 8 blocks at a time; iv <- the last C.
 */
SYM_FUNC_START(sm4rs_ce_cfb_dec)
	cbz	NBLK, .Lcfb_dec_ret
	save_v8_v15
	load_round_keys
	load_perm BSWAP, .Lbswap128
	ld1	{CHAIN.16b}, [IV]
.Lcfb_dec_loop8:
	cmp	NBLK, #8
	b.lo	.Lcfb_dec_tail
	ld1	{v8.16b-v11.16b}, [SRC], #64	/* v8-v15: C[i..i+7] */
	ld1	{v12.16b-v15.16b}, [SRC], #64
	rev32	v0.16b, CHAIN.16b
	rev32	v1.16b, v8.16b
	rev32	v2.16b, v9.16b
	rev32	v3.16b, v10.16b
	rev32	v4.16b, v11.16b
	rev32	v5.16b, v12.16b
	rev32	v6.16b, v13.16b
	rev32	v7.16b, v14.16b
	sm4_rounds8 v0, v1, v2, v3, v4, v5, v6, v7
	bswap8
	eor	v0.16b, v0.16b, v8.16b
	eor	v1.16b, v1.16b, v9.16b
	eor	v2.16b, v2.16b, v10.16b
	eor	v3.16b, v3.16b, v11.16b
	eor	v4.16b, v4.16b, v12.16b
	eor	v5.16b, v5.16b, v13.16b
	eor	v6.16b, v6.16b, v14.16b
	eor	v7.16b, v7.16b, v15.16b
	mov	CHAIN.16b, v15.16b
	st1	{v0.16b-v3.16b}, [DST], #64
	st1	{v4.16b-v7.16b}, [DST], #64
	sub	NBLK, NBLK, #8
	b	.Lcfb_dec_loop8
.Lcfb_dec_tail:
	cbz	NBLK, .Lcfb_dec_done
	ld1	{v8.16b}, [SRC], #16
	rev32	v0.16b, CHAIN.16b
	sm4_rounds1 v0
	tbl	v0.16b, {v0.16b}, BSWAP.16b
	eor	v0.16b, v0.16b, v8.16b
	mov	CHAIN.16b, v8.16b
	st1	{v0.16b}, [DST], #16
	sub	NBLK, NBLK, #1
	b	.Lcfb_dec_tail
.Lcfb_dec_done:
	st1	{CHAIN.16b}, [IV]
	restore_v8_v15
.Lcfb_dec_ret:
	ret
SYM_FUNC_END(sm4rs_ce_cfb_dec)

/*
 * void sm4rs_ce_ctr(const u32 rk_enc[32], u8 *dst, const u8 *src,
 *		     unsigned int nblocks, u8 ctr[16]);
 *
 * dst = src ^ E(ctr++), with ctr a 128-bit big-endian counter; ctr <- the next counter.
 * The counter lives in x5:x6 (high:low, native). SM4E's lane order of a counter is the
 * native (high, low) pair with the 32-bit halves of each swapped (rev64 .4s), so the eight
 * counters of a stride are made with vector adds, without general-register moves, while
 * the low half cannot wrap within the stride; near the wrap, blocks go one at a time with
 * the carry done in x5:x6.
 */
	CTR_HI	.req	x5
	CTR_LO	.req	x6

	/* One block: dst = src ^ E(counter), counter++ (with carry). */
	.macro	ctr_one_block
	fmov	d0, CTR_HI
	mov	v0.d[1], CTR_LO
	rev64	v0.4s, v0.4s
	adds	CTR_LO, CTR_LO, #1
	adc	CTR_HI, CTR_HI, xzr
	sm4_rounds1 v0
	ld1	{v8.16b}, [SRC], #16
	tbl	v0.16b, {v0.16b}, BSWAP.16b
	eor	v0.16b, v0.16b, v8.16b
	st1	{v0.16b}, [DST], #16
	.endm

SYM_FUNC_START(sm4rs_ce_ctr)
	cbz	NBLK, .Lctr_ret
	save_v8_v15
	load_round_keys
	load_perm BSWAP, .Lbswap128
	ldp	CTR_HI, CTR_LO, [IV]
	rev	CTR_HI, CTR_HI
	rev	CTR_LO, CTR_LO
	mov	x7, #1
	fmov	d20, xzr
	mov	v20.d[1], x7			/* v20: {0, 1}, the increment */
.Lctr_loop8:
	cmp	NBLK, #8
	b.lo	.Lctr_tail
	cmn	CTR_LO, #8			/* would the low half wrap within 8? */
	b.cs	.Lctr_one
	fmov	d16, CTR_HI
	mov	v16.d[1], CTR_LO		/* v16: (high, low) */
	add	v17.2d, v16.2d, v20.2d
	rev64	v0.4s, v16.4s
	add	v18.2d, v17.2d, v20.2d
	rev64	v1.4s, v17.4s
	add	v19.2d, v18.2d, v20.2d
	rev64	v2.4s, v18.4s
	add	v16.2d, v19.2d, v20.2d
	rev64	v3.4s, v19.4s
	add	v17.2d, v16.2d, v20.2d
	rev64	v4.4s, v16.4s
	add	v18.2d, v17.2d, v20.2d
	rev64	v5.4s, v17.4s
	add	v19.2d, v18.2d, v20.2d
	rev64	v6.4s, v18.4s
	rev64	v7.4s, v19.4s
	add	CTR_LO, CTR_LO, #8
	sm4_rounds8 v0, v1, v2, v3, v4, v5, v6, v7
	ld1	{v8.16b-v11.16b}, [SRC], #64
	ld1	{v12.16b-v15.16b}, [SRC], #64
	bswap8
	eor	v0.16b, v0.16b, v8.16b
	eor	v1.16b, v1.16b, v9.16b
	eor	v2.16b, v2.16b, v10.16b
	eor	v3.16b, v3.16b, v11.16b
	eor	v4.16b, v4.16b, v12.16b
	eor	v5.16b, v5.16b, v13.16b
	eor	v6.16b, v6.16b, v14.16b
	eor	v7.16b, v7.16b, v15.16b
	st1	{v0.16b-v3.16b}, [DST], #64
	st1	{v4.16b-v7.16b}, [DST], #64
	sub	NBLK, NBLK, #8
	b	.Lctr_loop8
.Lctr_one:					/* near the wrap: one block, then try 8 again */
	ctr_one_block
	sub	NBLK, NBLK, #1
	b	.Lctr_loop8
.Lctr_tail:
	cbz	NBLK, .Lctr_done
	ctr_one_block
	sub	NBLK, NBLK, #1
	b	.Lctr_tail
.Lctr_done:
	rev	CTR_HI, CTR_HI
	rev	CTR_LO, CTR_LO
	stp	CTR_HI, CTR_LO, [IV]
	restore_v8_v15
.Lctr_ret:
	ret
SYM_FUNC_END(sm4rs_ce_ctr)

/*
 * void sm4rs_ce_xts(const u32 rk[32], u8 *dst, const u8 *src, unsigned int nblocks,
 *		     u8 tweak[16]);
 *
 * XTS without the stealing: dst = C(src ^ T) ^ T, T <- T * x in GF(2^128) (IEEE 1619,
 * little-endian), for whole blocks. rk is the data key's schedule for the direction; the
 * tweak is the already encrypted one, and is left as the next block's.
 */
	TWEAK	.req	v16
	GFMASK	.req	v20	/* {0x87, 1}: the reduction and the carry between the halves */

	/* \dst = \src * x */
	.macro	next_tweak, dst, src
	sshr	v19.2d, \src\().2d, #63
	add	\dst\().2d, \src\().2d, \src\().2d
	ext	v19.16b, v19.16b, v19.16b, #8
	and	v19.16b, v19.16b, GFMASK.16b
	eor	\dst\().16b, \dst\().16b, v19.16b
	.endm

SYM_FUNC_START(sm4rs_ce_xts)
	cbz	NBLK, .Lxts_ret
	save_v8_v15
	load_round_keys
	load_perm BSWAP, .Lbswap128
	mov	x7, #0x87
	fmov	d20, x7
	mov	x7, #1
	mov	GFMASK.d[1], x7
	ld1	{TWEAK.16b}, [IV]
.Lxts_loop8:
	cmp	NBLK, #8
	b.lo	.Lxts_tail
	mov	v8.16b, TWEAK.16b		/* v8-v15: the tweaks of the 8 blocks */
	next_tweak v9, v8
	next_tweak v10, v9
	next_tweak v11, v10
	next_tweak v12, v11
	next_tweak v13, v12
	next_tweak v14, v13
	next_tweak v15, v14
	next_tweak TWEAK, v15
	ld1	{v0.16b-v3.16b}, [SRC], #64
	ld1	{v4.16b-v7.16b}, [SRC], #64
	eor	v0.16b, v0.16b, v8.16b
	eor	v1.16b, v1.16b, v9.16b
	eor	v2.16b, v2.16b, v10.16b
	eor	v3.16b, v3.16b, v11.16b
	eor	v4.16b, v4.16b, v12.16b
	eor	v5.16b, v5.16b, v13.16b
	eor	v6.16b, v6.16b, v14.16b
	eor	v7.16b, v7.16b, v15.16b
	.irp	b, v0, v1, v2, v3, v4, v5, v6, v7
	rev32	\b\().16b, \b\().16b
	.endr
	sm4_rounds8 v0, v1, v2, v3, v4, v5, v6, v7
	bswap8
	eor	v0.16b, v0.16b, v8.16b
	eor	v1.16b, v1.16b, v9.16b
	eor	v2.16b, v2.16b, v10.16b
	eor	v3.16b, v3.16b, v11.16b
	eor	v4.16b, v4.16b, v12.16b
	eor	v5.16b, v5.16b, v13.16b
	eor	v6.16b, v6.16b, v14.16b
	eor	v7.16b, v7.16b, v15.16b
	st1	{v0.16b-v3.16b}, [DST], #64
	st1	{v4.16b-v7.16b}, [DST], #64
	sub	NBLK, NBLK, #8
	b	.Lxts_loop8
.Lxts_tail:
	cbz	NBLK, .Lxts_done
	ld1	{v0.16b}, [SRC], #16
	eor	v0.16b, v0.16b, TWEAK.16b
	rev32	v0.16b, v0.16b
	sm4_rounds1 v0
	tbl	v0.16b, {v0.16b}, BSWAP.16b
	eor	v0.16b, v0.16b, TWEAK.16b
	st1	{v0.16b}, [DST], #16
	next_tweak TWEAK, TWEAK
	sub	NBLK, NBLK, #1
	b	.Lxts_tail
.Lxts_done:
	st1	{TWEAK.16b}, [IV]
	restore_v8_v15
.Lxts_ret:
	ret
SYM_FUNC_END(sm4rs_ce_xts)

	.section ".rodata", "a"
	.align	4
.Lbswap128:
	.byte	15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
.Lwordrev:
	.byte	12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3
