/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SM4-GCM (NIST SP 800-38D over SM4, RFC 8998) cores for the ARMv8 Crypto Extensions:
 * SM4E for the counter mode, PMULL/PMULL2 for GHASH. Called from sm4_ce_gcm_glue.rs, only
 * inside a kernel-mode NEON section. The key schedule is sm4-ce's (sm4_ce_expand_key).
 *
 * GHASH representation: GCM numbers the bits of a block from the most significant bit of
 * its first byte as the coefficients of x^0, x^1, ... `rbit` on each byte makes the block,
 * read as a little-endian 128-bit integer, the polynomial with bit i the coefficient of
 * x^i, which PMULL multiplies as it is. So blocks are bit-reversed per byte on the way in
 * and the hash on the way out, and products are reduced modulo
 * P = x^128 + x^7 + x^2 + x + 1 by folding: x^128 = x^7 + x^2 + x + 1 = 0x87 (mod P).
 * The hash state and the key's powers are kept in that form; the state is stored to the
 * caller's 16 bytes in GCM's byte order.
 *
 * Products are Karatsuba's: for a = a1:a0 and h = h1:h0 (64-bit halves), lo = a0 h0,
 * hi = a1 h1 and mid = (a0 ^ a1)(h0 ^ h1) ^ lo ^ hi. Four blocks are hashed per reduction
 * (X' = (X ^ C0) H^4 ^ C1 H^3 ^ C2 H^2 ^ C3 H): the products are summed and reduced once;
 * eight in encryption's main loop and in sm4rs_ce_ghash.
 *
 * Counter blocks are built in SM4E lane order: the loaded counter block after rev32 has its
 * big-endian words in lanes 0-3, so lane 3 is GCM's 32-bit counter as an integer, which a
 * general register increments (inc32: modulo 2^32) and `mov` puts in place; in the
 * four-block loops the second to fourth blocks are the first plus INC, a 32-bit lane add
 * (modulo 2^32 too): one vector instruction a block in place of two (a `mov` of the
 * counter block and the counter's insertion).
 *
 * A request's text goes through one routine per direction (sm4rs_ce_gcm_enc, _dec), a call
 * per step of the walk: the first step also makes E(J0) and hashes associated data in one
 * piece, the last one also the partial block and the tag (.Lgcm_tag, its one computation),
 * so a request in one piece is one call. Associated data in other pieces goes through
 * sm4rs_ce_ghash before the text.
 *
 * Registers (AAPCS64): x0-x7 arguments, x9-x14 scratch (x15-x17 for partial blocks);
 * v0-v3 counter blocks/keystream, v4-v7 data, v8-v11 H^1-H^4 and v12-v13 their Karatsuba
 * halves (v8-v15 low halves are callee-saved: spilled), v14 the counter block, v15 zero,
 * v16-v18 the product sums (lo, mid, hi; mid scratch late in a reduction), v19 scratch,
 * v20 INC (1 in lane 3), v21 the hash X, v22 the reduction constant, v23 the byte
 * reversal, v24-v31 the round keys.
 */

#include <linux/linkage.h>
#include <asm/assembler.h>

#include "sm4/sm4-asm.h"
#include "sm4/sm4-ce-asm.h"
#include "sm4/sm4-ce-partial.S"

	.arch	armv8.2-a+crypto+sm4

	RK	.req	x0	/* const u32 rk[32], the encryption schedule */
	DST	.req	x1	/* u8 *dst */
	SRC	.req	x2	/* const u8 *src */
	NBLK	.req	w3	/* unsigned int nblocks (the text's length on entry to a step) */
	ST	.req	x4	/* struct sm4rs_gcm_state *: the request's state, below */
	AD	.req	x5	/* const u8 *ad: associated data in one piece */
	STEP	.req	x6	/* struct sm4rs_aead_step: adlen in bits 0-31, flags in 32-63 */
	ADLEN	.req	w6	/* its adlen */
	IV	.req	x7	/* const u8 iv[12] */
	COUNT	.req	w10	/* the 32-bit counter of the next block */

	H1	.req	v8
	H2	.req	v9
	H3	.req	v10
	H4	.req	v11
	K12	.req	v12	/* (h0 ^ h1) of H^1 in lane 0, of H^2 in lane 1 */
	K34	.req	v13	/* the same for H^3, H^4 */
	CTRB	.req	v14	/* the counter block, in SM4E lane order */
	ZERO	.req	v15
	LO	.req	v16
	MID	.req	v17
	HI	.req	v18
	T0	.req	v19
	INC	.req	v20	/* 1 in lane 3: a counter's increment */
	X	.req	v21	/* the hash, bit-reflected */
	GPOLY	.req	v22	/* 0x87 in both halves */
	BSWAP	.req	v23	/* tbl index reversing 16 bytes: SM4E state -> output bytes */
	/*
	 * The eight-block loops only (sm4rs_ce_ghash's, and encryption's, whose round keys
	 * are loaded from x13 into v30 and v31 as they are used), in place of the round keys:
	 */
	H5	.req	v24
	H6	.req	v25
	H7	.req	v26
	H8	.req	v27
	K56	.req	v28	/* (h0 ^ h1) of H^5 in lane 0, of H^6 in lane 1 */
	K78	.req	v29	/* the same for H^7, H^8 */



	/* \out <- the Karatsuba halves of \ha in lane 0 and of \hb in lane 1. */
	.macro	karatsuba_key, out, ha, hb
	ext	T0.16b, \ha\().16b, \ha\().16b, #8
	eor	T0.16b, T0.16b, \ha\().16b
	ext	\out\().16b, \hb\().16b, \hb\().16b, #8
	eor	\out\().16b, \out\().16b, \hb\().16b
	zip1	\out\().2d, T0.2d, \out\().2d
	.endm

	/* The constants of the hash: GPOLY, ZERO. */
	.macro	ghash_consts
	movi	ZERO.2d, #0
	mov	x9, #0x87
	dup	GPOLY.2d, x9
	.endm

	/* H1-H4, K12, K34 from the table at \tbl; GPOLY, ZERO. */
	.macro	ghash_setup, tbl
	ld1	{H1.16b-H4.16b}, [\tbl]
	karatsuba_key K12, H1, H2
	karatsuba_key K34, H3, H4
	ghash_consts
	.endm

	/*
	 * LO, MID, HI (+)= the Karatsuba products of \a and \h, whose halves are in lane \lane
	 * of \k; \first sets them instead of adding.
	 */
	.macro	gmul, a, h, k, lane, first=0
	ext	T0.16b, \a\().16b, \a\().16b, #8
	eor	T0.16b, T0.16b, \a\().16b	/* a0 ^ a1 in both lanes */
	.if	\first
	pmull	LO.1q, \a\().1d, \h\().1d
	pmull2	HI.1q, \a\().2d, \h\().2d
	.if	\lane
	pmull2	MID.1q, T0.2d, \k\().2d
	.else
	pmull	MID.1q, T0.1d, \k\().1d
	.endif
	.else
	.if	\lane
	pmull2	T0.1q, T0.2d, \k\().2d
	.else
	pmull	T0.1q, T0.1d, \k\().1d
	.endif
	eor	MID.16b, MID.16b, T0.16b
	pmull	T0.1q, \a\().1d, \h\().1d
	eor	LO.16b, LO.16b, T0.16b
	pmull2	T0.1q, \a\().2d, \h\().2d
	eor	HI.16b, HI.16b, T0.16b
	.endif
	.endm

	/*
	 * X <- (LO + MID x^64 + HI x^128) mod P, MID the Karatsuba sum. With K = MID ^ LO ^ HI
	 * (a0 h1 ^ a1 h0), x^128 = 0x87 and x^192 = 0x87 x^64: the product is
	 * LO + HI_lo 0x87 + M x^64 with M = K ^ HI_hi 0x87, and M x^64 is M_lo x^64 +
	 * M_hi 0x87, so X = LO ^ (HI_lo ^ M_hi) 0x87 ^ M_lo x^64 (each term below x^128).
	 */
	.macro	ghash_reduce
	eor	MID.16b, MID.16b, LO.16b
	eor	MID.16b, MID.16b, HI.16b	/* K */
	pmull2	T0.1q, HI.2d, GPOLY.2d		/* HI_hi 0x87 */
	eor	MID.16b, MID.16b, T0.16b	/* M */
	ext	T0.16b, MID.16b, ZERO.16b, #8	/* M_hi in lane 0 */
	eor	HI.16b, HI.16b, T0.16b		/* lane 0: HI_lo ^ M_hi */
	pmull	T0.1q, HI.1d, GPOLY.1d
	ext	MID.16b, ZERO.16b, MID.16b, #8	/* M_lo x^64 */
	eor	LO.16b, LO.16b, MID.16b
	eor	X.16b, LO.16b, T0.16b
	.endm

	/* X <- (X ^ \a) H; \a is bit-reflected and clobbered. */
	.macro	ghash1, a
	eor	\a\().16b, \a\().16b, X.16b
	gmul	\a, H1, K12, 0, 1
	ghash_reduce
	.endm

	/*
	 * X <- (((X ^ \a0) H ^ \a1) H ^ \a2) H ^ \a3) H, with one reduction. The product with
	 * X last: the others are summed while the previous reduction ends. \a0-\a3 are kept
	 * (X ^ \a0 is made in X, which the reduction then overwrites).
	 */
	.macro	ghash4, a0, a1, a2, a3
	gmul	\a3, H1, K12, 0, 1
	gmul	\a2, H2, K12, 1
	gmul	\a1, H3, K34, 0
	eor	X.16b, X.16b, \a0\().16b
	gmul	X, H4, K34, 1
	ghash_reduce
	.endm

	/*
	 * X <- GHASH_H(X, v0-v7), eight bit-reflected blocks with one reduction: X' = (X ^ v0)
	 * H^8 ^ v1 H^7 ^ ... ^ v7 H (H5-H8, K56, K78 set up by ghash8_setup), the product with
	 * X last. Half the reductions of ghash4 per block, and the chain through X, which
	 * bounds the loop, is one product and one reduction per eight blocks.
	 */
	.macro	ghash8
	gmul	v7, H1, K12, 0, 1
	gmul	v6, H2, K12, 1
	gmul	v5, H3, K34, 0
	gmul	v4, H4, K34, 1
	gmul	v3, H5, K56, 0
	gmul	v2, H6, K56, 1
	gmul	v1, H7, K78, 0
	eor	v0.16b, v0.16b, X.16b
	gmul	v0, H8, K78, 1
	ghash_reduce
	.endm

	/* H5-H8 from the table at \tbl (bytes 64-127), K56 and K78. */
	.macro	ghash8_setup, tbl
	add	x9, \tbl, #64
	ld1	{H5.16b-H8.16b}, [x9]
	karatsuba_key K56, H5, H6
	karatsuba_key K78, H7, H8
	.endm

	/* X <- GHASH_H(X, the NBLK whole blocks at SRC); SRC advanced, NBLK 0. */
	.macro	ghash_blocks, id
.Lghash\id\()_loop4:
	cmp	NBLK, #4
	b.lo	.Lghash\id\()_tail
	ld1	{v4.16b-v7.16b}, [SRC], #64
	rbit4	v4, v5, v6, v7
	ghash4	v4, v5, v6, v7
	sub	NBLK, NBLK, #4
	b	.Lghash\id\()_loop4
.Lghash\id\()_tail:
	cbz	NBLK, .Lghash\id\()_done
	ld1	{v4.16b}, [SRC], #16
	rbit	v4.16b, v4.16b
	ghash1	v4
	sub	NBLK, NBLK, #1
	b	.Lghash\id\()_tail
.Lghash\id\()_done:
	.endm

	.macro	rbit4, a0, a1, a2, a3
	rbit	\a0\().16b, \a0\().16b
	rbit	\a1\().16b, \a1\().16b
	rbit	\a2\().16b, \a2\().16b
	rbit	\a3\().16b, \a3\().16b
	.endm

/*
 * void sm4rs_ce_gcm_init(const u32 rk[32], u8 htable[128]);
 *
 * H = E(0^128), bit-reflected, and its powers H^2 to H^8: the table the other functions
 * take (the text's routines use H^1-H^4, sm4rs_ce_ghash all).
 */
SYM_FUNC_START(sm4rs_ce_gcm_init)
	save_v8_v15
	load_round_keys
	load_perm BSWAP, .Lgcm_bswap128
	movi	v0.2d, #0
	sm4_rounds1 v0
	tbl	v0.16b, {v0.16b}, BSWAP.16b	/* H, in GCM's byte order */
	rbit	H1.16b, v0.16b
	ghash_consts
	karatsuba_key K12, H1, H1
	mov	v0.16b, H1.16b			/* H^2, H^3, H^4: (0 ^ H^k) H */
	movi	X.2d, #0
	ghash1	v0
	mov	H2.16b, X.16b
	mov	v0.16b, H2.16b
	movi	X.2d, #0
	ghash1	v0
	mov	H3.16b, X.16b
	mov	v0.16b, H3.16b
	movi	X.2d, #0
	ghash1	v0
	mov	H4.16b, X.16b
	st1	{H1.16b-H4.16b}, [x1], #64
	mov	w9, #4				/* H^5-H^8, each (0 ^ H^(k-1)) H */
.Lgcm_init_power:
	mov	v0.16b, X.16b
	movi	X.2d, #0
	ghash1	v0
	st1	{X.16b}, [x1], #16
	subs	w9, w9, #1
	b.ne	.Lgcm_init_power
	restore_v8_v15
	ret
SYM_FUNC_END(sm4rs_ce_gcm_init)

/*
 * void sm4rs_ce_ghash(const u8 htable[128], u8 x[16], const u8 *src, unsigned int nblocks);
 *
 * x <- GHASH_H(x, the nblocks whole blocks at src): eight blocks per reduction while eight
 * are left, then as ghash_blocks.
 */
SYM_FUNC_START(sm4rs_ce_ghash)
	cbz	NBLK, .Lghash_ret
	save_v8_v15
	ghash_setup x0
	ld1	{X.16b}, [x1]
	rbit	X.16b, X.16b
	cmp	NBLK, #8
	b.lo	.Lghash_by4
	ghash8_setup x0
.Lghash_loop8:
	ld1	{v0.16b-v3.16b}, [SRC], #64
	ld1	{v4.16b-v7.16b}, [SRC], #64
	rbit4	v0, v1, v2, v3
	rbit4	v4, v5, v6, v7
	ghash8
	sub	NBLK, NBLK, #8
	cmp	NBLK, #8
	b.hs	.Lghash_loop8
.Lghash_by4:
	ghash_blocks g
	rbit	X.16b, X.16b
	st1	{X.16b}, [x1]
	restore_v8_v15
.Lghash_ret:
	ret
SYM_FUNC_END(sm4rs_ce_ghash)


	/*
	 * The 32 rounds of v0-v3 with the hash of the four bit-reflected blocks \a0-\a3 (X
	 * <- ((((X ^ a0) H ^ a1) H ^ a2) H ^ a3) H) between them: SM4E issues on one vector
	 * pipe, and the PMULLs and the XORs of the hash fill the other cycles. The product
	 * with X last, as in ghash4; \a0-\a3 are kept. The products come after five of the
	 * eight round keys and the reduction after six: issued behind SM4Es, their XORs and
	 * `ext`s go to the other pipe where SM4E and PMULL share one (Neoverse N2's model;
	 * see docs/PERFORMANCE.md).
	 */
	.macro	rounds4_ghash4, a0, a1, a2, a3
	sm4_round4 v24
	sm4_round4 v25
	sm4_round4 v26
	sm4_round4 v27
	sm4_round4 v28
	gmul	\a3, H1, K12, 0, 1
	gmul	\a2, H2, K12, 1
	gmul	\a1, H3, K34, 0
	eor	X.16b, X.16b, \a0\().16b
	gmul	X, H4, K34, 1
	sm4_round4 v29
	ghash_reduce
	sm4_round4 v30
	sm4_round4 v31
	.endm

	.macro	next_ctr4
	next_ctr v0
	add	v1.4s, v0.4s, INC.4s
	add	v2.4s, v1.4s, INC.4s
	add	v3.4s, v2.4s, INC.4s
	add	COUNT, COUNT, #3
	.endm

	/*
	 * Four rounds of v0-v3 with the round key \k of the schedule at x13, loaded into \r
	 * (v30 or v31: in the eight-block loop H5-H8, K56 and K78 take v24-v29).
	 */
	.macro	sm4_round4m, k, r
	ldr	q\r, [x13, #16 * \k]
	sm4_round4 v\r
	.endm

	/*
	 * The 32 rounds of v0-v3 (keys from memory) with the hash's work on the four blocks
	 * \a0-\a3 between them. \half 0: the first four of eight, bit-reflected, then their
	 * products with H^8-H^5 (\a0 ^ X first) set LO, MID and HI; 1: the second four,
	 * bit-reflected, their products with H^4-H^1 added, then reduced into X; 2: nothing.
	 * Issued among SM4Es, the `rbit`s, XORs and `ext`s go to the pipe SM4E and PMULL
	 * leave free (Neoverse N2's model; see docs/PERFORMANCE.md).
	 */
	.macro	rounds4m_ghash, half, a0, a1, a2, a3
	sm4_round4m 0, 30
	sm4_round4m 1, 31
	sm4_round4m 2, 30
	sm4_round4m 3, 31
	.if	\half < 2
	rbit4	\a0, \a1, \a2, \a3
	.endif
	sm4_round4m 4, 30
	.if	\half == 1
	gmul	\a3, H1, K12, 0
	gmul	\a2, H2, K12, 1
	gmul	\a1, H3, K34, 0
	gmul	\a0, H4, K34, 1
	.endif
	sm4_round4m 5, 31
	.if	\half == 0
	gmul	\a3, H5, K56, 0, 1
	gmul	\a2, H6, K56, 1
	gmul	\a1, H7, K78, 0
	eor	X.16b, X.16b, \a0\().16b
	gmul	X, H8, K78, 1
	.elseif	\half == 1
	ghash_reduce
	.endif
	sm4_round4m 6, 30
	sm4_round4m 7, 31
	.endm

	/*
	 * Four blocks of encryption: the keystream of v0-v3 (SM4E lane order) XORed with the
	 * plaintext into v4-v7 and stored.
	 */
	.macro	gcm_xor4
	tbl4
	ld1	{v4.16b-v7.16b}, [SRC], #64
	eor	v4.16b, v4.16b, v0.16b
	eor	v5.16b, v5.16b, v1.16b
	eor	v6.16b, v6.16b, v2.16b
	eor	v7.16b, v7.16b, v3.16b
	st1	{v4.16b-v7.16b}, [DST], #64
	.endm

	/*
	 * The NBLK blocks at SRC in counter mode from CTRB/COUNT to DST, their hash (of the
	 * output with \enc, else of the input) into X: with \enc eight per iteration while
	 * there are eight, then four per iteration, then one at a time.
	 * SRC and DST advanced, NBLK 0.
	 */
	.macro	gcm_blocks, id, enc
	.if	\enc
	/*
	 * Eight blocks an iteration, hashed with one reduction, while there are eight: the
	 * hash of each four (kept bit-reflected in v4-v7) runs under the rounds of the next
	 * four, the first four's products summed in LO, MID and HI and reduced with the second
	 * four's. The round keys from memory: H5-H8, K56 and K78 take their registers.
	 */
	cmp	NBLK, #8
	b.lo	.Lgcm\id\()_four
	sub	x13, RK, #64
	ghash8_setup x11
	next_ctr4
	rounds4m_ghash 2
	gcm_xor4
.Lgcm\id\()_loop8:
	next_ctr4
	rounds4m_ghash 0, v4, v5, v6, v7
	gcm_xor4
	sub	NBLK, NBLK, #8
	cmp	NBLK, #8
	b.lo	.Lgcm\id\()_drain8
	next_ctr4
	rounds4m_ghash 1, v4, v5, v6, v7
	gcm_xor4
	b	.Lgcm\id\()_loop8
.Lgcm\id\()_drain8:
	rbit4	v4, v5, v6, v7
	gmul	v7, H1, K12, 0
	gmul	v6, H2, K12, 1
	gmul	v5, H3, K34, 0
	gmul	v4, H4, K34, 1
	ghash_reduce
	ld1	{v24.4s-v27.4s}, [x13], #64	/* the round keys back (x13: RK's value) */
	ld1	{v28.4s-v31.4s}, [x13]
	/*
	 * Four blocks an iteration: the hash of the ciphertext of one iteration (kept
	 * bit-reflected in v4-v7) runs under the rounds of the next, and after the last.
	 */
.Lgcm\id\()_four:
	cmp	NBLK, #4
	b.lo	.Lgcm\id\()_tail
	next_ctr4
	sm4_rounds4
	b	.Lgcm\id\()_xor
.Lgcm\id\()_loop4:
	cmp	NBLK, #4
	b.lo	.Lgcm\id\()_drain
	next_ctr4
	rounds4_ghash4 v4, v5, v6, v7
.Lgcm\id\()_xor:
	gcm_xor4
	rbit4	v4, v5, v6, v7
	sub	NBLK, NBLK, #4
	b	.Lgcm\id\()_loop4
.Lgcm\id\()_drain:
	ghash4	v4, v5, v6, v7
	.else
	/*
	 * The hash of the input under the rounds of the same four blocks. The input is read
	 * once (as the text a concurrent writer may change, it must be one ciphertext that is
	 * hashed and decrypted): bit-reflected for the hash, and back for the XOR.
	 */
.Lgcm\id\()_loop4:
	cmp	NBLK, #4
	b.lo	.Lgcm\id\()_tail
	ld1	{v4.16b-v7.16b}, [SRC], #64
	next_ctr4
	rbit4	v4, v5, v6, v7
	rounds4_ghash4 v4, v5, v6, v7
	tbl4
	rbit4	v4, v5, v6, v7
	eor	v0.16b, v0.16b, v4.16b
	eor	v1.16b, v1.16b, v5.16b
	eor	v2.16b, v2.16b, v6.16b
	eor	v3.16b, v3.16b, v7.16b
	st1	{v0.16b-v3.16b}, [DST], #64
	sub	NBLK, NBLK, #4
	b	.Lgcm\id\()_loop4
	.endif
.Lgcm\id\()_tail:
	cbz	NBLK, .Lgcm\id\()_done
	next_ctr v0
	sm4_rounds1 v0
	tbl	v0.16b, {v0.16b}, BSWAP.16b
	ld1	{v4.16b}, [SRC], #16
	eor	v0.16b, v0.16b, v4.16b
	st1	{v0.16b}, [DST], #16
	.if	\enc
	rbit	v0.16b, v0.16b
	ghash1	v0
	.else
	rbit	v4.16b, v4.16b
	ghash1	v4
	.endif
	sub	NBLK, NBLK, #1
	b	.Lgcm\id\()_tail
.Lgcm\id\()_done:
	.endm

	/*
	 * A step of a request (see sm4rs_ce_gcm_enc); \enc: encryption. Falls through to the
	 * tag (.Lgcm_tag) after the last step, returns after the others. Registers beyond the
	 * arguments': x11 the hash table, w12 the text's length, x14 the text's source, w9 a
	 * partial block's length.
	 */
	.macro	gcm_step, id, enc
	save_v8_v15
	add	x11, RK, #128
	load_round_keys
	ghash_setup x11
	load_perm BSWAP, .Lgcm_bswap128
	movi	INC.2d, #0
	mov	w9, #1
	mov	INC.s[3], w9
	add	x9, ST, #16
	ld1	{X.16b}, [x9]
	rbit	X.16b, X.16b
	tbnz	STEP, #32, .Lgcm\id\()_first
	load_ctr ST
	b	.Lgcm\id\()_ad
.Lgcm\id\()_first:
	/* The first step: J0 = IV || 0^31 || 1 (CTRB is v14); E(J0) masks the tag. */
	ldr	d14, [IV]
	add	x9, IV, #8
	ld1	{CTRB.s}[2], [x9]
	rev32	CTRB.16b, CTRB.16b
	mov	COUNT, #1
	next_ctr v0
	sm4_rounds1 v0
	tbl	v0.16b, {v0.16b}, BSWAP.16b
	add	x9, ST, #32
	st1	{v0.16b}, [x9]
.Lgcm\id\()_ad:
	/* Associated data in one piece: whole blocks, then a partial one padded with zeros. */
	cbz	ADLEN, .Lgcm\id\()_text
	mov	w12, NBLK
	mov	x14, SRC
	mov	SRC, AD
	lsr	NBLK, ADLEN, #4
	ghash_blocks \id
	ands	w9, ADLEN, #15
	b.eq	.Lgcm\id\()_adend
	load_partial 4, SRC, w9
	rbit	v4.16b, v4.16b
	ghash1	v4
.Lgcm\id\()_adend:
	mov	SRC, x14
	mov	NBLK, w12
.Lgcm\id\()_text:
	/* The text: whole blocks, and in the last step the partial one that ends it. */
	mov	w12, NBLK
	lsr	NBLK, w12, #4
	gcm_blocks \id, \enc
	tbnz	STEP, #33, .Lgcm\id\()_last
	/* Not the last step: the counter and the hash stored back. */
	store_ctr ST
	rbit	X.16b, X.16b
	add	x9, ST, #16
	st1	{X.16b}, [x9]
	restore_v8_v15
	ret
.Lgcm\id\()_last:
	ands	w9, w12, #15
	b.eq	.Lgcm\id\()_end
	ctr_partial 0, w9
	.if	\enc
	mask_partial 4, 0, w9			/* the ciphertext, padded with zeros */
	.endif
	rbit	v4.16b, v4.16b
	ghash1	v4
.Lgcm\id\()_end:
	.endm

/*
 * struct sm4rs_gcm_state {
 *	u8 ctr[16];	the counter block of the next keystream block (from the first step on)
 *	u8 x[16];	the hash, in GCM's byte order (zero before the first step)
 *	u8 tag[16];	E(J0) from the first step on, the full tag after the last
 *	u64 adlen;	the request's associated data, in bytes
 *	u64 len;	the request's text, in bytes
 * };
 * struct sm4rs_aead_step {	(by value, in one register)
 *	unsigned int adlen;	associated data in one piece at ad, in bytes (0: none)
 *	unsigned int flags;	bit 0: the request's first step, bit 1: its last
 * };
 *
 * void sm4rs_ce_gcm_enc(const u32 key[64], u8 *dst, const u8 *src, unsigned int len,
 *			 struct sm4rs_gcm_state *st, const u8 *ad,
 *			 struct sm4rs_aead_step step, const u8 iv[12]);
 *
 * A step of a GCM encryption, the one routine of a request's text: key is the encryption
 * schedule (32 words) followed by the hash table of sm4rs_ce_gcm_init (128 bytes). In the
 * first step, J0 from iv (read then only) and E(J0) into tag; the adlen bytes at ad
 * hashed; the whole blocks of the len bytes at src encrypted in counter mode to dst (the
 * same or disjoint) and hashed. In the last step, also the partial block that ends the
 * text, and the tag: the lengths block hashed and the hash masked with E(J0) into tag
 * (.Lgcm_tag, the tag's one computation); otherwise ctr and x are written back. A request
 * in one piece is one call, the first step and the last.
 */
SYM_FUNC_START(sm4rs_ce_gcm_enc)
	gcm_step e, 1
	b	.Lgcm_tag
SYM_FUNC_END(sm4rs_ce_gcm_enc)

/*
 * void sm4rs_ce_gcm_dec(const u32 key[64], u8 *dst, const u8 *src, unsigned int len,
 *			 struct sm4rs_gcm_state *st, const u8 *ad,
 *			 struct sm4rs_aead_step step, const u8 iv[12]);
 *
 * As sm4rs_ce_gcm_enc for a decryption: the ciphertext at src hashed and decrypted to dst;
 * tag gets the tag computed, for the caller to compare.
 */
SYM_FUNC_START(sm4rs_ce_gcm_dec)
	gcm_step d, 0
.Lgcm_tag:
	/* The lengths block: both lengths in bits, big-endian 64-bit. */
	ldp	x12, x13, [ST, #48]
	lsl	x12, x12, #3
	lsl	x13, x13, #3
	rev	x12, x12
	rev	x13, x13
	fmov	d4, x12
	mov	v4.d[1], x13
	rbit	v4.16b, v4.16b
	ghash1	v4
	/* The tag: the hash masked with E(J0). */
	rbit	X.16b, X.16b
	add	x9, ST, #32
	ld1	{v0.16b}, [x9]
	eor	v0.16b, v0.16b, X.16b
	st1	{v0.16b}, [x9]
	restore_v8_v15
	ret
SYM_FUNC_END(sm4rs_ce_gcm_dec)

	.section ".rodata", "a"
	.align	4
.Lgcm_bswap128:
	.byte	15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
