/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SM4-CCM (NIST SP 800-38C, RFC 3610 over SM4; RFC 8998) cores for the ARMv8 Crypto
 * Extensions: the CBC-MAC and the counter mode with SM4E. Called from sm4_ce_ccm_glue.rs,
 * only inside a kernel-mode NEON section. The key schedule is sm4-ce's (sm4_ce_expand_key).
 *
 * The MAC is a chain (each block's input depends on the last output), the counter mode is
 * not: encryption runs each block's MAC and keystream together, two SM4E chains in flight;
 * decryption needs the keystream before the MAC of the same block, so the keystream of the
 * next block runs with the MAC of this one.
 *
 * The MAC chain stays in SM4E lane order (rev32 of the bytes): the state after the rounds,
 * its words reversed (one tbl, WREV), is the next input in lane order. Counter blocks are
 * built in lane order too: lane 3 is the block's last 32 bits, where CCM's counter is (its
 * L-byte field never carries beyond them: the kernel limits the text to 2^(8L) bytes and
 * the request length to 2^32), incremented in a general register.
 *
 * A request short enough for one NEON section is done by one call (sm4rs_ce_ccm_short_enc,
 * _dec: E(B0) and S0, the associated data after its length, the text, the tag), longer
 * ones by the per-piece functions; both share the block loops below, and both end in
 * sm4rs_ce_ccm_final, the tag's one computation.
 *
 * Registers (AAPCS64): x0-x7 arguments, x9-x10 scratch (x11-x17 in the one-call functions);
 * v0 the MAC state, v1-v2 keystream, v3-v4 data (v5 zero in the one-call functions), v16
 * the counter block, v22 the word reversal, v23 the byte reversal, v24-v31 the round keys.
 * v8-v15 are not used.
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
	NBLK	.req	w3	/* unsigned int nblocks */
	CTR	.req	x4	/* u8 ctr[16]: the next counter block, read and updated */
	MACP	.req	x5	/* u8 mac[16]: the CBC-MAC, read and updated */
	COUNT	.req	w10	/* the 32-bit counter of the next block */

	CTRB	.req	v16	/* the counter block, in SM4E lane order */
	WREV	.req	v22	/* tbl index reversing the four words: output -> next input */
	BSWAP	.req	v23	/* tbl index reversing 16 bytes: SM4E state -> output bytes */



	/* The 32 rounds of two blocks \a and \b, interleaved. */
	.macro	sm4_rounds2, a, b
	sm4e	\a\().4s, v24.4s
	sm4e	\b\().4s, v24.4s
	sm4e	\a\().4s, v25.4s
	sm4e	\b\().4s, v25.4s
	sm4e	\a\().4s, v26.4s
	sm4e	\b\().4s, v26.4s
	sm4e	\a\().4s, v27.4s
	sm4e	\b\().4s, v27.4s
	sm4e	\a\().4s, v28.4s
	sm4e	\b\().4s, v28.4s
	sm4e	\a\().4s, v29.4s
	sm4e	\b\().4s, v29.4s
	sm4e	\a\().4s, v30.4s
	sm4e	\b\().4s, v30.4s
	sm4e	\a\().4s, v31.4s
	sm4e	\b\().4s, v31.4s
	.endm

	/* v0 <- the MAC at MACP, in lane order. */
	.macro	load_mac
	ld1	{v0.16b}, [MACP]
	rev32	v0.16b, v0.16b
	.endm

	/* The MAC in lane order (v0) back to MACP. */
	.macro	store_mac
	rev32	v0.16b, v0.16b
	st1	{v0.16b}, [MACP]
	.endm




/*
 * void sm4rs_ce_ccm_mac(const u32 rk[32], u8 mac[16], const u8 *src, unsigned int nblocks);
 *
 * CBC-MAC over whole blocks: mac <- E(mac ^ B) for each block B at src.
 */
SYM_FUNC_START(sm4rs_ce_ccm_mac)
	cbz	NBLK, .Lccm_mac_ret
	load_round_keys
	load_perm WREV, .Lccm_wordrev
	mov	MACP, x1
	load_mac
.Lccm_mac_loop:
	ld1	{v3.16b}, [SRC], #16
	rev32	v3.16b, v3.16b
	eor	v0.16b, v0.16b, v3.16b
	sm4_rounds1 v0
	tbl	v0.16b, {v0.16b}, WREV.16b	/* the output, as the next input */
	sub	NBLK, NBLK, #1
	cbnz	NBLK, .Lccm_mac_loop
	store_mac
.Lccm_mac_ret:
	ret
SYM_FUNC_END(sm4rs_ce_ccm_mac)

/*
 * void sm4rs_ce_ccm_block(const u32 rk[32], u8 dst[16], const u8 src[16]);
 *
 * One block through SM4 (S0 = E(A0) for the tag, a keystream block for a partial block).
 */
SYM_FUNC_START(sm4rs_ce_ccm_block)
	load_round_keys
	load_perm BSWAP, .Lccm_bswap128
	ld1	{v1.16b}, [SRC]
	rev32	v1.16b, v1.16b
	sm4_rounds1 v1
	tbl	v1.16b, {v1.16b}, BSWAP.16b
	st1	{v1.16b}, [DST]
	ret
SYM_FUNC_END(sm4rs_ce_ccm_block)

	/*
	 * The NBLK (at least one) blocks at SRC: for each plaintext block P, the MAC v0 <-
	 * E(v0 ^ P) and C = P ^ E(ctr) to DST, two SM4E chains in flight. SRC and DST
	 * advanced, NBLK 0.
	 */
	.macro	ccm_enc_blocks, id
.Lccm\id\()_enc_loop:
	ld1	{v3.16b}, [SRC], #16		/* v3: P */
	rev32	v4.16b, v3.16b
	eor	v0.16b, v0.16b, v4.16b
	next_ctr v1
	sm4_rounds2 v0, v1
	tbl	v0.16b, {v0.16b}, WREV.16b
	tbl	v1.16b, {v1.16b}, BSWAP.16b
	eor	v3.16b, v3.16b, v1.16b
	st1	{v3.16b}, [DST], #16
	sub	NBLK, NBLK, #1
	cbnz	NBLK, .Lccm\id\()_enc_loop
	.endm

	/*
	 * The same for ciphertext blocks C: P = C ^ E(ctr) to DST, v0 <- E(v0 ^ P); the
	 * keystream of the next block (v1) runs with the MAC of this one.
	 */
	.macro	ccm_dec_blocks, id
	next_ctr v1
	sm4_rounds1 v1				/* v1: the first keystream block */
.Lccm\id\()_dec_loop:
	tbl	v1.16b, {v1.16b}, BSWAP.16b
	ld1	{v3.16b}, [SRC], #16
	eor	v3.16b, v3.16b, v1.16b		/* v3: P */
	st1	{v3.16b}, [DST], #16
	rev32	v4.16b, v3.16b
	eor	v0.16b, v0.16b, v4.16b
	sub	NBLK, NBLK, #1
	cbz	NBLK, .Lccm\id\()_dec_last
	next_ctr v1
	sm4_rounds2 v0, v1
	tbl	v0.16b, {v0.16b}, WREV.16b
	b	.Lccm\id\()_dec_loop
.Lccm\id\()_dec_last:
	sm4_rounds1 v0
	tbl	v0.16b, {v0.16b}, WREV.16b
	.endm

	/* The state of a call: round keys, permutations, counter, MAC. */
	.macro	ccm_enter
	load_round_keys
	load_perm WREV, .Lccm_wordrev
	load_perm BSWAP, .Lccm_bswap128
	load_ctr CTR
	load_mac
	.endm

	/* The counter and the MAC stored back. */
	.macro	ccm_leave
	store_ctr CTR
	store_mac
	.endm

/*
 * void sm4rs_ce_ccm_enc(const u32 rk[32], u8 *dst, const u8 *src, unsigned int nblocks,
 *			 u8 ctr[16], u8 mac[16]);
 *
 * For each plaintext block P: mac <- E(mac ^ P), C = P ^ E(ctr), ctr incremented (its
 * last 32 bits, written back).
 */
SYM_FUNC_START(sm4rs_ce_ccm_enc)
	cbz	NBLK, .Lccm_enc_ret
	ccm_enter
	ccm_enc_blocks e
	ccm_leave
.Lccm_enc_ret:
	ret
SYM_FUNC_END(sm4rs_ce_ccm_enc)

/*
 * void sm4rs_ce_ccm_dec(const u32 rk[32], u8 *dst, const u8 *src, unsigned int nblocks,
 *			 u8 ctr[16], u8 mac[16]);
 *
 * For each ciphertext block C: P = C ^ E(ctr), ctr incremented, mac <- E(mac ^ P).
 */
SYM_FUNC_START(sm4rs_ce_ccm_dec)
	cbz	NBLK, .Lccm_dec_ret
	ccm_enter
	ccm_dec_blocks d
	ccm_leave
.Lccm_dec_ret:
	ret
SYM_FUNC_END(sm4rs_ce_ccm_dec)

	/* v0 <- E(v0 ^ v4), v4 a block in byte order (clobbered). */
	.macro	mac1
	rev32	v4.16b, v4.16b
	eor	v0.16b, v0.16b, v4.16b
	sm4_rounds1 v0
	tbl	v0.16b, {v0.16b}, WREV.16b
	.endm

	/*
	 * A whole request (see sm4rs_ce_ccm_short_enc); \enc: encryption. Registers beyond
	 * the arguments': w9 a piece's length, w11 scratch, w12 the text's length, w13 the
	 * associated data's, x14 the text's source; v5 zero.
	 */
	.macro	ccm_short, id, enc
	load_round_keys
	load_perm WREV, .Lccm_wordrev
	load_perm BSWAP, .Lccm_bswap128
	mov	w13, w5
	/* The MAC <- E(B0) and S0 = E(A0) together; S0 parked in the tag's buffer. */
	mov	MACP, x6
	load_mac
	add	x9, x6, #16
	load_ctr x9
	next_ctr v1
	sm4_rounds2 v0, v1
	tbl	v0.16b, {v0.16b}, WREV.16b
	tbl	v1.16b, {v1.16b}, BSWAP.16b
	st1	{v1.16b}, [x7]
	mov	w12, NBLK
	mov	x14, SRC
	/*
	 * The associated data after its 2-byte length (RFC 3610: fewer than 0xff00 bytes):
	 * the first block holds the length and up to 14 bytes.
	 */
	cbz	w13, .Lccms\id\()_text
	mov	w11, #14
	cmp	w13, w11
	csel	w9, w13, w11, lo
	load_partial 4, x4, w9
	movi	v5.2d, #0
	ext	v4.16b, v5.16b, v4.16b, #14	/* the bytes up by two */
	rev16	w11, w13
	mov	v4.h[0], w11			/* the length, big-endian */
	mac1
	add	SRC, x4, w9, uxtw
	sub	w9, w13, w9
	lsr	NBLK, w9, #4
	cbz	NBLK, .Lccms\id\()_adtail
.Lccms\id\()_adloop:
	ld1	{v4.16b}, [SRC], #16
	mac1
	sub	NBLK, NBLK, #1
	cbnz	NBLK, .Lccms\id\()_adloop
.Lccms\id\()_adtail:
	ands	w9, w9, #15
	b.eq	.Lccms\id\()_text
	load_partial 4, SRC, w9
	mac1
.Lccms\id\()_text:
	/* The text: whole blocks, then a partial one (its MAC of the plaintext padded). */
	mov	SRC, x14
	lsr	NBLK, w12, #4
	cbz	NBLK, .Lccms\id\()_tail
	.if	\enc
	ccm_enc_blocks \id
	.else
	ccm_dec_blocks \id
	.endif
.Lccms\id\()_tail:
	ands	w9, w12, #15
	b.eq	.Lccms\id\()_tag
	ctr_partial 1, w9
	.if	!\enc
	load_partial 4, DST, w9			/* the plaintext, padded with zeros */
	.endif
	mac1
.Lccms\id\()_tag:
	b	.Lccm_final_tag			/* the tag, as sm4rs_ce_ccm_final */
	.endm

/*
 * void sm4rs_ce_ccm_short_enc(const u32 rk[32], u8 *dst, const u8 *src, unsigned int len,
 *			       const u8 *ad, unsigned int adlen, const u8 b0_a0[32],
 *			       u8 tag[16]);
 *
 * A whole CCM encryption in one call, for associated data of fewer than 0xff00 bytes:
 * b0_a0 holds the formatted first block B0 and the counter block A0 (RFC 3610 2.2, 2.3);
 * the len bytes at src and the adlen bytes at ad authenticated, the len bytes encrypted to
 * dst (the same or disjoint), and the full 16-byte tag written to tag. For requests short
 * enough for one NEON section.
 */
SYM_FUNC_START(sm4rs_ce_ccm_short_enc)
	ccm_short se, 1
SYM_FUNC_END(sm4rs_ce_ccm_short_enc)

/*
 * void sm4rs_ce_ccm_short_dec(const u32 rk[32], u8 *dst, const u8 *src, unsigned int len,
 *			       const u8 *ad, unsigned int adlen, const u8 b0_a0[32],
 *			       u8 tag[16]);
 *
 * As sm4rs_ce_ccm_short_enc for a decryption: the len bytes at src decrypted to dst and
 * the plaintext authenticated; tag gets the tag computed, for the caller to compare.
 */
SYM_FUNC_START(sm4rs_ce_ccm_short_dec)
	ccm_short sd, 0
SYM_FUNC_END(sm4rs_ce_ccm_short_dec)

/*
 * void sm4rs_ce_ccm_final(const u8 mac[16], u8 tag[16]);
 *
 * The tag of a request, and its one computation: the CBC-MAC mac masked with S0 = E(A0),
 * which tag holds on entry and the full 16-byte tag replaces. The one-call functions end
 * here too, at .Lccm_final_tag, with their MAC in v0 (lane order) and x7 the tag.
 */
SYM_FUNC_START(sm4rs_ce_ccm_final)
	mov	MACP, x0
	load_mac
	mov	x7, x1
.Lccm_final_tag:
	/* The tag: the MAC masked with S0. */
	rev32	v0.16b, v0.16b
	ld1	{v1.16b}, [x7]
	eor	v0.16b, v0.16b, v1.16b
	st1	{v0.16b}, [x7]
	ret
SYM_FUNC_END(sm4rs_ce_ccm_final)

	.section ".rodata", "a"
	.align	4
.Lccm_bswap128:
	.byte	15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
.Lccm_wordrev:
	.byte	12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3
