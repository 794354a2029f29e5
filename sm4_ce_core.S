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
 * cycle on one pipe, V0 on Neoverse N2); 4 to 7 blocks (a short request, or what the
 * batches leave) go four at once in v0-v3, the rest one at a time. The batches of 8 are
 * software-pipelined: while one batch of 8
 * runs its rounds in v0-v7, the previous batch (v8-v15, moved there in output byte order
 * by the tbl that reverses it) is finished (XOR, stores) between the fourth and fifth
 * groups of rounds, so that the stores, which
 * also need a vector pipe, find SM4E keeping V0 busy and go to V1. The chained directions
 * (CBC and CFB encryption) keep the chaining value in SM4E's lane order so that only a
 * permutation and an XOR sit on the chain.
 *
 * Every function takes a block count and touches exactly that many blocks of src and dst,
 * which may be the same buffer (in place) but must not otherwise overlap. A count of 0
 * does nothing, but in sm4rs_ce_xts with a tweak key, which still makes the first tweak.
 * Partial blocks are the glue's business.
 *
 * Registers (AAPCS64): x0-x7 arguments, x9-x15 scratch; v0-v7 the batch in flight, v8-v15
 * (callee-saved, low halves spilled) the batch being finished, v16-v23 scratch and
 * constants, v24-v31 the 32 round keys.
 */

#include <linux/export.h>
#include <linux/linkage.h>
#include <asm/assembler.h>

#include "sm4/sm4-asm.h"
#include "sm4/sm4-ce-asm.h"

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

	/*
	 * v8-v15 (callee-saved) are used only by the pipeline of batches of 8: their low
	 * halves are spilled only if there are 8 blocks or more, and restored when the
	 * pipeline is done, before the blocks left (fewer than 8) go through the mode's four
	 * blocks, if 4 or more are left, and its one-block loop. With 4 to 7 blocks (and
	 * more than none), straight to the four, \four; with 1 to 3 to the loop, \one.
	 */
	.macro	enter_batches, four, one
	cmp	NBLK, #4
	b.lo	\one
	cmp	NBLK, #8
	b.lo	\four
	save_v8_v15
	.endm

	.macro	leave_batches
	restore_v8_v15
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

	/*
	 * The blocks left after the batches (fewer than 8, NBLK): none, to \end; with 4 or
	 * more, four through \m\()_four; then the rest, if any, on to the one-block loop that
	 * follows, else to \end.
	 */
	.macro	after_batches, m, end
	cbz	NBLK, \end
	tbz	NBLK, #2, .L\m\()_one
.L\m\()_four:
	\m\()_four
	subs	NBLK, NBLK, #4
	b.eq	\end
	.endm

	/* Rounds 0-15 and 16-31 of the batch in v0-v7, interleaved to hide SM4E's latency. */
	.macro	sm4_rounds8_first
	sm4_round8 v24, v0, v1, v2, v3, v4, v5, v6, v7
	sm4_round8 v25, v0, v1, v2, v3, v4, v5, v6, v7
	sm4_round8 v26, v0, v1, v2, v3, v4, v5, v6, v7
	sm4_round8 v27, v0, v1, v2, v3, v4, v5, v6, v7
	.endm

	.macro	sm4_rounds8_second
	sm4_round8 v28, v0, v1, v2, v3, v4, v5, v6, v7
	sm4_round8 v29, v0, v1, v2, v3, v4, v5, v6, v7
	sm4_round8 v30, v0, v1, v2, v3, v4, v5, v6, v7
	sm4_round8 v31, v0, v1, v2, v3, v4, v5, v6, v7
	.endm

	/* v8-v15 ^= four blocks at [\ptr] into v8-v11 and four more into v12-v15. */
	.macro	xor8_done_from, ptr
	ld1	{v16.16b-v19.16b}, [\ptr], #64
	eor	v8.16b, v8.16b, v16.16b
	eor	v9.16b, v9.16b, v17.16b
	eor	v10.16b, v10.16b, v18.16b
	eor	v11.16b, v11.16b, v19.16b
	ld1	{v16.16b-v19.16b}, [\ptr], #64
	eor	v12.16b, v12.16b, v16.16b
	eor	v13.16b, v13.16b, v17.16b
	eor	v14.16b, v14.16b, v18.16b
	eor	v15.16b, v15.16b, v19.16b
	.endm

	/* Stores the finished batch v8-v15 at DST. */
	.macro	store8_done
	stp	q8, q9, [DST], #32
	stp	q10, q11, [DST], #32
	stp	q12, q13, [DST], #32
	stp	q14, q15, [DST], #32
	.endm

	/*
	 * The batch in v0-v7 becomes the one to finish, in output byte order: the reversal
	 * is the move (a tbl instead of a mov). Three of the eight are rev64 + ext instead:
	 * on Neoverse V1 a tbl is two uops on V0/V1, where SM4E issues, while rev64 and ext
	 * go to any of V0-V3; on N2 (two vector pipes) each extra instruction costs a slot.
	 * The mix keeps both near the SM4E floor, where eight tbl would slow V1 and eight
	 * rev64 + ext N2 (the models' figures: docs/PERFORMANCE.md, Cycles).
	 */
	.macro	hand_over
	tbl	v8.16b, {v0.16b}, BSWAP.16b
	rev64	v9.16b, v1.16b
	ext	v9.16b, v9.16b, v9.16b, #8
	tbl	v10.16b, {v2.16b}, BSWAP.16b
	tbl	v11.16b, {v3.16b}, BSWAP.16b
	tbl	v12.16b, {v4.16b}, BSWAP.16b
	tbl	v13.16b, {v5.16b}, BSWAP.16b
	rev64	v14.16b, v6.16b
	ext	v14.16b, v14.16b, v14.16b, #8
	rev64	v15.16b, v7.16b
	ext	v15.16b, v15.16b, v15.16b, #8
	.endm

	/*
	 * The 8-block pipeline of a mode \m, entered with 8 blocks or more (enter_batches):
	 * \m\()_load puts the next batch in v0-v7 in SM4E order, \m\()_finish turns the batch
	 * in v8-v15 into output at DST. A batch's rounds are split around the finishing of the
	 * one before. Falls through with fewer than 8 blocks left and nothing pending.
	 */
	.macro	pipeline8, m
	\m\()_load
	sm4_rounds8_first
	sm4_rounds8_second
	hand_over
	\m\()_handed
	sub	NBLK, NBLK, #8
.L\m\()_loop:
	cmp	NBLK, #8
	b.lo	.L\m\()_drain
	\m\()_load
	sm4_rounds8_first
	\m\()_finish
	sm4_rounds8_second
	hand_over
	\m\()_handed
	sub	NBLK, NBLK, #8
	b	.L\m\()_loop
.L\m\()_drain:
	\m\()_finish
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
	.macro	ecb_load
	ld1	{v0.16b-v3.16b}, [SRC], #64
	ld1	{v4.16b-v7.16b}, [SRC], #64
	rev32_v0_v7
	.endm

	.macro	ecb_handed
	.endm

	.macro	ecb_finish
	store8_done
	.endm

	.macro	ecb_four
	ld1	{v0.16b-v3.16b}, [SRC], #64
	rev32	v0.16b, v0.16b
	rev32	v1.16b, v1.16b
	rev32	v2.16b, v2.16b
	rev32	v3.16b, v3.16b
	sm4_rounds4
	tbl4
	st1	{v0.16b-v3.16b}, [DST], #64
	.endm

SYM_FUNC_START(sm4rs_ce_crypt)
	cbz	NBLK, .Lecb_ret
	load_round_keys
	load_perm BSWAP, .Lbswap128
	enter_batches .Lecb_four, .Lecb_one
	pipeline8 ecb
	leave_batches
	after_batches ecb, .Lecb_ret
.Lecb_one:
	ld1	{v0.16b}, [SRC], #16
	rev32	v0.16b, v0.16b
	sm4_rounds1 v0
	tbl	v0.16b, {v0.16b}, BSWAP.16b
	st1	{v0.16b}, [DST], #16
	subs	NBLK, NBLK, #1
	b.ne	.Lecb_one
.Lecb_ret:
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
	/* Four blocks per iteration: one load and one store, the chain through them. */
.Lcbc_enc_loop4:
	cmp	NBLK, #4
	b.lo	.Lcbc_enc_loop1
	ld1	{v0.16b-v3.16b}, [SRC], #64
	rev32	v0.16b, v0.16b
	rev32	v1.16b, v1.16b
	rev32	v2.16b, v2.16b
	rev32	v3.16b, v3.16b
	.irp	b, 0, 1, 2, 3
	eor	v\b\().16b, v\b\().16b, v16.16b
	sm4_rounds1 v\b
	tbl	v16.16b, {v\b\().16b}, WREV.16b	/* next S */
	tbl	v\b\().16b, {v\b\().16b}, BSWAP.16b	/* C[i] */
	.endr
	st1	{v0.16b-v3.16b}, [DST], #64
	sub	NBLK, NBLK, #4
	b	.Lcbc_enc_loop4
.Lcbc_enc_loop1:
	cbz	NBLK, .Lcbc_enc_done
	ld1	{v0.16b}, [SRC], #16
	rev32	v0.16b, v0.16b
	eor	v0.16b, v0.16b, v16.16b
	sm4_rounds1 v0
	tbl	v16.16b, {v0.16b}, WREV.16b	/* next S */
	tbl	v0.16b, {v0.16b}, BSWAP.16b	/* C[i] */
	st1	{v0.16b}, [DST], #16
	sub	NBLK, NBLK, #1
	b	.Lcbc_enc_loop1
.Lcbc_enc_done:
	rev32	v0.16b, v16.16b			/* the last C, from S */
	st1	{v0.16b}, [IV]
.Lcbc_enc_ret:
	ret
SYM_FUNC_END(sm4rs_ce_cbc_enc)

	/*
	 * The ciphertext of the batches in flight, for the modes that XOR it into the output
	 * (CBC and CFB decryption): kept on the stack, in two buffers of 128 bytes, x12 the
	 * batch being loaded, x13 the one being finished, so that src is read once (dst may
	 * be src, and another thread may write it). With batches only, released after them.
	 */
	.macro	enter_kept
	sub	sp, sp, #256
	mov	x12, sp
	add	x13, sp, #128
	.endm

	.macro	leave_kept
	add	sp, sp, #256
	.endm

	/* The batch loaded is the one to finish: the buffers swap. */
	.macro	swap_kept
	mov	x9, x12
	mov	x12, x13
	mov	x13, x9
	.endm

/*
 * void sm4rs_ce_cbc_dec(const u32 rk_dec[32], u8 *dst, const u8 *src,
 *			 unsigned int nblocks, u8 iv[16]);
 *
 * P[i] = D(C[i]) ^ C[i-1]; iv <- the last C. A finished batch is XORed with its
 * ciphertext as loaded (kept: enter_kept).
 */
	.macro	cbc_dec_load
	ld1	{v0.16b-v3.16b}, [SRC], #64
	ld1	{v4.16b-v7.16b}, [SRC], #64
	st1	{v0.16b-v3.16b}, [x12]
	add	x9, x12, #64
	st1	{v4.16b-v7.16b}, [x9]
	rev32_v0_v7
	.endm

	.macro	cbc_dec_handed
	swap_kept
	.endm

	.macro	cbc_dec_finish
	ld1	{v16.16b-v19.16b}, [x13]
	eor	v8.16b, v8.16b, CHAIN.16b
	eor	v9.16b, v9.16b, v16.16b
	eor	v10.16b, v10.16b, v17.16b
	eor	v11.16b, v11.16b, v18.16b
	eor	v12.16b, v12.16b, v19.16b
	add	x9, x13, #64
	ld1	{v16.16b-v19.16b}, [x9]
	eor	v13.16b, v13.16b, v16.16b
	eor	v14.16b, v14.16b, v17.16b
	eor	v15.16b, v15.16b, v18.16b
	mov	CHAIN.16b, v19.16b
	store8_done
	.endm

	/* Four blocks, their ciphertext read once, into v4-v7. */
	.macro	cbc_dec_four
	ld1	{v4.16b-v7.16b}, [SRC], #64
	rev32	v0.16b, v4.16b
	rev32	v1.16b, v5.16b
	rev32	v2.16b, v6.16b
	rev32	v3.16b, v7.16b
	sm4_rounds4
	tbl4
	eor	v0.16b, v0.16b, CHAIN.16b
	eor	v1.16b, v1.16b, v4.16b
	eor	v2.16b, v2.16b, v5.16b
	eor	v3.16b, v3.16b, v6.16b
	mov	CHAIN.16b, v7.16b
	st1	{v0.16b-v3.16b}, [DST], #64
	.endm

SYM_FUNC_START(sm4rs_ce_cbc_dec)
	cbz	NBLK, .Lcbc_dec_ret
	load_round_keys
	load_perm BSWAP, .Lbswap128
	ld1	{CHAIN.16b}, [IV]
	enter_batches .Lcbc_dec_four, .Lcbc_dec_one
	enter_kept
	pipeline8 cbc_dec
	leave_kept
	leave_batches
	after_batches cbc_dec, .Lcbc_dec_done
.Lcbc_dec_one:
	ld1	{v17.16b}, [SRC], #16
	rev32	v0.16b, v17.16b
	sm4_rounds1 v0
	tbl	v0.16b, {v0.16b}, BSWAP.16b
	eor	v0.16b, v0.16b, CHAIN.16b
	mov	CHAIN.16b, v17.16b
	st1	{v0.16b}, [DST], #16
	subs	NBLK, NBLK, #1
	b.ne	.Lcbc_dec_one
.Lcbc_dec_done:
	st1	{CHAIN.16b}, [IV]
.Lcbc_dec_ret:
	ret
SYM_FUNC_END(sm4rs_ce_cbc_dec)

#ifdef CONFIG_CRYPTO_SM4_RUST_CFB
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
 * P[i] = E(C[i-1]) ^ C[i]; iv <- the last C. The batch encrypts C[i-1..i+6]; its
 * finishing XORs the ciphertext C[i..i+7] as loaded (kept: enter_kept).
 */
	.macro	cfb_dec_load
	rev32	v0.16b, CHAIN.16b
	ld1	{v1.16b-v4.16b}, [SRC], #64
	ld1	{v5.16b-v7.16b}, [SRC], #48
	ld1	{CHAIN.16b}, [SRC], #16		/* C[i+7], the next chain */
	st1	{v1.16b-v4.16b}, [x12]
	add	x9, x12, #64
	st1	{v5.16b-v7.16b}, [x9], #48
	st1	{CHAIN.16b}, [x9]
	rev32	v1.16b, v1.16b
	rev32	v2.16b, v2.16b
	rev32	v3.16b, v3.16b
	rev32	v4.16b, v4.16b
	rev32	v5.16b, v5.16b
	rev32	v6.16b, v6.16b
	rev32	v7.16b, v7.16b
	.endm

	.macro	cfb_dec_handed
	swap_kept
	.endm

	.macro	cfb_dec_finish
	mov	x10, x13
	xor8_done_from x10
	store8_done
	.endm

	/* Four blocks, their ciphertext read once, into v4-v7. */
	.macro	cfb_dec_four
	ld1	{v4.16b-v7.16b}, [SRC], #64
	rev32	v0.16b, CHAIN.16b
	rev32	v1.16b, v4.16b
	rev32	v2.16b, v5.16b
	rev32	v3.16b, v6.16b
	sm4_rounds4
	tbl4
	eor	v0.16b, v0.16b, v4.16b
	eor	v1.16b, v1.16b, v5.16b
	eor	v2.16b, v2.16b, v6.16b
	eor	v3.16b, v3.16b, v7.16b
	mov	CHAIN.16b, v7.16b
	st1	{v0.16b-v3.16b}, [DST], #64
	.endm

SYM_FUNC_START(sm4rs_ce_cfb_dec)
	cbz	NBLK, .Lcfb_dec_ret
	load_round_keys
	load_perm BSWAP, .Lbswap128
	ld1	{CHAIN.16b}, [IV]
	enter_batches .Lcfb_dec_four, .Lcfb_dec_one
	enter_kept
	pipeline8 cfb_dec
	leave_kept
	leave_batches
	after_batches cfb_dec, .Lcfb_dec_done
.Lcfb_dec_one:
	ld1	{v17.16b}, [SRC], #16
	rev32	v0.16b, CHAIN.16b
	sm4_rounds1 v0
	tbl	v0.16b, {v0.16b}, BSWAP.16b
	eor	v0.16b, v0.16b, v17.16b
	mov	CHAIN.16b, v17.16b
	st1	{v0.16b}, [DST], #16
	subs	NBLK, NBLK, #1
	b.ne	.Lcfb_dec_one
.Lcfb_dec_done:
	st1	{CHAIN.16b}, [IV]
.Lcfb_dec_ret:
	ret
SYM_FUNC_END(sm4rs_ce_cfb_dec)
#endif /* CONFIG_CRYPTO_SM4_RUST_CFB */

/*
 * void sm4rs_ce_ctr(const u32 rk_enc[32], u8 *dst, const u8 *src,
 *		     unsigned int nblocks, u8 ctr[16]);
 *
 * dst = src ^ E(ctr++), with ctr a 128-bit big-endian counter; ctr <- the next counter.
 * The counter lives in x5:x6 (high:low, native). SM4E's lane order of a counter is the
 * native (high, low) pair with the 32-bit halves of each swapped (rev64 .4s), so the eight
 * counters of a batch are made with vector adds, without general-register moves: the low
 * halves by adding 1 lane-wise, then for each counter whose low half wrapped within the
 * batch (it is then below the first's), one added to its high half, all without a branch
 * on the counter, which may be secret (an IV made from the key, as dm-crypt's ESSIV).
 * SRC lags a batch behind: it is read when a batch is finished.
 */
	CTR_HI	.req	x5
	CTR_LO	.req	x6

	/*
	 * \out <- the counter \c (its low half advanced without carry, its high half the
	 * batch's first, v21) with the carry: v22 is all ones in lane 1 where the low half
	 * wrapped (it is below the first's; lane 0 compares equal high halves: zero), moved to
	 * lane 0 and subtracted; then in SM4E lane order.
	 */
	.macro	ctr_carry, out, c
	cmhi	v22.2d, v21.2d, \c\().2d
	ext	v22.16b, v22.16b, v22.16b, #8
	sub	v22.2d, \c\().2d, v22.2d
	rev64	\out\().4s, v22.4s
	.endm

	.macro	ctr_load
	fmov	d16, CTR_HI
	mov	v16.d[1], CTR_LO		/* v16: (high, low) */
	mov	v21.16b, v16.16b		/* v21: the batch's first counter */
	add	v17.2d, v16.2d, v20.2d
	rev64	v0.4s, v16.4s
	add	v18.2d, v17.2d, v20.2d
	ctr_carry v1, v17
	add	v19.2d, v18.2d, v20.2d
	ctr_carry v2, v18
	add	v16.2d, v19.2d, v20.2d
	ctr_carry v3, v19
	add	v17.2d, v16.2d, v20.2d
	ctr_carry v4, v16
	add	v18.2d, v17.2d, v20.2d
	ctr_carry v5, v17
	add	v19.2d, v18.2d, v20.2d
	ctr_carry v6, v18
	ctr_carry v7, v19
	adds	CTR_LO, CTR_LO, #8
	adc	CTR_HI, CTR_HI, xzr
	.endm

	.macro	ctr_handed
	.endm

	.macro	ctr_finish
	xor8_done_from SRC
	store8_done
	.endm

	/* v\b <- the counter in SM4E lane order; counter++ (with carry). */
	.macro	ctr_next, b
	fmov	d\b, CTR_HI
	mov	v\b\().d[1], CTR_LO
	rev64	v\b\().4s, v\b\().4s
	adds	CTR_LO, CTR_LO, #1
	adc	CTR_HI, CTR_HI, xzr
	.endm

	/* Four blocks: dst = src ^ E(counter), counter++ (with carry), each. */
	.macro	ctr_four
	ctr_next 0
	ctr_next 1
	ctr_next 2
	ctr_next 3
	sm4_rounds4
	ld1	{v4.16b-v7.16b}, [SRC], #64
	tbl4
	eor	v0.16b, v0.16b, v4.16b
	eor	v1.16b, v1.16b, v5.16b
	eor	v2.16b, v2.16b, v6.16b
	eor	v3.16b, v3.16b, v7.16b
	st1	{v0.16b-v3.16b}, [DST], #64
	.endm

	/* One block: dst = src ^ E(counter), counter++ (with carry). */
	.macro	ctr_one_block
	ctr_next 0
	sm4_rounds1 v0
	ld1	{v17.16b}, [SRC], #16
	tbl	v0.16b, {v0.16b}, BSWAP.16b
	eor	v0.16b, v0.16b, v17.16b
	st1	{v0.16b}, [DST], #16
	.endm

SYM_FUNC_START(sm4rs_ce_ctr)
	cbz	NBLK, .Lctr_ret
	load_round_keys
	load_perm BSWAP, .Lbswap128
	ldp	CTR_HI, CTR_LO, [IV]
	rev	CTR_HI, CTR_HI
	rev	CTR_LO, CTR_LO
	enter_batches .Lctr_four, .Lctr_one
	mov	x7, #1
	fmov	d20, xzr
	mov	v20.d[1], x7			/* v20: {0, 1}, the increment */
	pipeline8 ctr
	leave_batches
	after_batches ctr, .Lctr_done
.Lctr_one:
	ctr_one_block
	subs	NBLK, NBLK, #1
	b.ne	.Lctr_one
.Lctr_done:
	rev	CTR_HI, CTR_HI
	rev	CTR_LO, CTR_LO
	stp	CTR_HI, CTR_LO, [IV]
.Lctr_ret:
	ret
SYM_FUNC_END(sm4rs_ce_ctr)

/*
 * void sm4rs_ce_xts(const u32 rk[32], u8 *dst, const u8 *src, unsigned int nblocks,
 *		     u8 tweak[16], const u32 *rk2, const u8 iv[16]);
 *
 * XTS without the stealing: dst = C(src ^ T) ^ T, T <- T * x in GF(2^128) (IEEE 1619,
 * little-endian), for whole blocks. rk is the data key's schedule for the direction; the
 * tweak is left as the next block's. If rk2 (the tweak key's encryption schedule) is not
 * NULL, the tweak is the IV encrypted with it first (even for nblocks = 0), and iv is only
 * read; else tweak holds the already encrypted tweak (and iv is not used).
 *
 * The tweaks are made in general registers (x12:x13 = low:high), where the doubling is
 * three integer operations, and reach the vector unit through two 128-byte stack
 * buffers (x9: the batch being loaded, x10: the batch being finished), so that the vector
 * pipes only do the XORs.
 */
	RK2	.req	x5	/* const u32 *rk2: the tweak key, or NULL */
	XTS_IV	.req	x6	/* const u8 *iv: the IV, with rk2 */
	T_LO	.req	x12
	T_HI	.req	x13

	GF_POLY	.req	x15	/* 0x87: x^128 = x^7 + x^2 + x + 1 */

	/* T <- T * x */
	.macro	double_tweak
	and	x14, GF_POLY, T_HI, asr #63
	extr	T_HI, T_HI, T_LO, #63
	eor	T_LO, x14, T_LO, lsl #1
	.endm

	.macro	xts_load
	.irp	i, 0, 16, 32, 48, 64, 80, 96, 112
	stp	T_LO, T_HI, [x9, #\i]
	double_tweak
	.endr
	ld1	{v16.16b-v19.16b}, [x9]
	ld1	{v0.16b-v3.16b}, [SRC], #64
	eor	v0.16b, v0.16b, v16.16b
	eor	v1.16b, v1.16b, v17.16b
	eor	v2.16b, v2.16b, v18.16b
	eor	v3.16b, v3.16b, v19.16b
	add	x11, x9, #64
	ld1	{v16.16b-v19.16b}, [x11]
	ld1	{v4.16b-v7.16b}, [SRC], #64
	eor	v4.16b, v4.16b, v16.16b
	eor	v5.16b, v5.16b, v17.16b
	eor	v6.16b, v6.16b, v18.16b
	eor	v7.16b, v7.16b, v19.16b
	rev32_v0_v7
	.endm

	/* v\t <- the tweak; the tweak doubled. */
	.macro	xts_next, t
	fmov	d\t, T_LO
	mov	v\t\().d[1], T_HI
	double_tweak
	.endm

	/* Four blocks, their tweaks in v16-v19. */
	.macro	xts_four
	xts_next 16
	xts_next 17
	xts_next 18
	xts_next 19
	ld1	{v0.16b-v3.16b}, [SRC], #64
	eor	v0.16b, v0.16b, v16.16b
	eor	v1.16b, v1.16b, v17.16b
	eor	v2.16b, v2.16b, v18.16b
	eor	v3.16b, v3.16b, v19.16b
	rev32	v0.16b, v0.16b
	rev32	v1.16b, v1.16b
	rev32	v2.16b, v2.16b
	rev32	v3.16b, v3.16b
	sm4_rounds4
	tbl4
	eor	v0.16b, v0.16b, v16.16b
	eor	v1.16b, v1.16b, v17.16b
	eor	v2.16b, v2.16b, v18.16b
	eor	v3.16b, v3.16b, v19.16b
	st1	{v0.16b-v3.16b}, [DST], #64
	.endm

	.macro	xts_handed
	mov	x11, x9				/* swap the tweak buffers */
	mov	x9, x10
	mov	x10, x11
	.endm

	.macro	xts_finish
	mov	x11, x10
	xor8_done_from x11
	store8_done
	.endm

SYM_FUNC_START(sm4rs_ce_xts)
	load_perm BSWAP, .Lbswap128		/* (uses x9) */
	cbnz	RK2, .Lxts_first
	ldp	T_LO, T_HI, [IV]
	b	.Lxts_keyed
.Lxts_first:
	/* The first call of a request: the tweak is the IV, encrypted here with rk2. */
	ldp	T_LO, T_HI, [XTS_IV]
	ld1	{v24.4s-v27.4s}, [RK2], #64
	ld1	{v28.4s-v31.4s}, [RK2]
	fmov	d0, T_LO
	mov	v0.d[1], T_HI
	rev32	v0.16b, v0.16b
	sm4_rounds1 v0
	tbl	v0.16b, {v0.16b}, BSWAP.16b
	fmov	T_LO, d0
	mov	T_HI, v0.d[1]
.Lxts_keyed:
	cbz	NBLK, .Lxts_store
	load_round_keys
	mov	GF_POLY, #0x87
	enter_batches .Lxts_four, .Lxts_one
	sub	sp, sp, #256			/* the two tweak buffers of the pipeline */
	mov	x9, sp
	add	x10, sp, #128
	pipeline8 xts
	movi	v16.16b, #0			/* wipe the tweak buffers */
	movi	v17.16b, #0
	movi	v18.16b, #0
	movi	v19.16b, #0
	mov	x11, sp
	.rept	4
	st1	{v16.16b-v19.16b}, [x11], #64
	.endr
	add	sp, sp, #256
	leave_batches
	after_batches xts, .Lxts_store
.Lxts_one:
	xts_next 16
	ld1	{v0.16b}, [SRC], #16
	eor	v0.16b, v0.16b, v16.16b
	rev32	v0.16b, v0.16b
	sm4_rounds1 v0
	tbl	v0.16b, {v0.16b}, BSWAP.16b
	eor	v0.16b, v0.16b, v16.16b
	st1	{v0.16b}, [DST], #16
	subs	NBLK, NBLK, #1
	b.ne	.Lxts_one
.Lxts_store:
	stp	T_LO, T_HI, [IV]
	ret
SYM_FUNC_END(sm4rs_ce_xts)

/*
 * void sm4rs_ce_cbcmac(const u32 rk_enc[32], u8 mac[16], const u8 *src,
 *			unsigned int nblocks);
 *
 * CBC-MAC over whole blocks: mac <- E(mac ^ P[i]) for each block. The chain stays in SM4E
 * lane order as in sm4rs_ce_cbc_enc; nothing is stored but the final value.
 */
SYM_FUNC_START(sm4rs_ce_cbcmac)
	cbz	NBLK, .Lcbcmac_ret
	load_round_keys
	load_perm WREV, .Lwordrev
	ld1	{v16.16b}, [DST]
	rev32	v16.16b, v16.16b		/* v16: S, the MAC in lane order */
.Lcbcmac_loop:
	ld1	{v0.16b}, [SRC], #16
	rev32	v0.16b, v0.16b
	eor	v0.16b, v0.16b, v16.16b
	sm4_rounds1 v0
	tbl	v16.16b, {v0.16b}, WREV.16b	/* next S */
	sub	NBLK, NBLK, #1
	cbnz	NBLK, .Lcbcmac_loop
	rev32	v0.16b, v16.16b			/* the MAC, from S */
	st1	{v0.16b}, [DST]
.Lcbcmac_ret:
	ret
SYM_FUNC_END(sm4rs_ce_cbcmac)

/*
 * The C interface of upstream's sm4-ce module (arch/arm64/crypto/sm4-ce.h), which the
 * sm4-ce-gcm and sm4-ce-ccm modules call inside their own kernel-mode NEON sections. The
 * schedules have the same layout as upstream's (SM4EKEY's output words, and the same
 * words in reverse order for decryption).
 *
 * void sm4_ce_expand_key(const u8 *key, u32 *rkey_enc, u32 *rkey_dec,
 *			  const u32 *fk, const u32 *ck);
 */
SYM_FUNC_ALIAS(sm4_ce_expand_key, sm4rs_ce_expand_key)
EXPORT_SYMBOL(sm4_ce_expand_key)

/* void sm4_ce_crypt_block(const u32 *rkey, u8 *dst, const u8 *src); */
SYM_FUNC_START(sm4_ce_crypt_block)
	mov	NBLK, #1
	b	sm4rs_ce_crypt
SYM_FUNC_END(sm4_ce_crypt_block)
EXPORT_SYMBOL(sm4_ce_crypt_block)

/*
 * void sm4_ce_cbc_enc(const u32 *rkey_enc, u8 *dst, const u8 *src, u8 *iv,
 *		       unsigned int nblocks);
 * Our order puts nblocks before iv: the two are swapped.
 */
SYM_FUNC_START(sm4_ce_cbc_enc)
	mov	x9, x3				/* x9: iv */
	mov	NBLK, w4
	mov	IV, x9
	b	sm4rs_ce_cbc_enc
SYM_FUNC_END(sm4_ce_cbc_enc)
EXPORT_SYMBOL(sm4_ce_cbc_enc)

	.section ".rodata", "a"
	.align	4
.Lbswap128:
	.byte	15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
.Lwordrev:
	.byte	12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3
