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
 * A request's text goes through one routine per direction (sm4rs_ce_ccm_enc, _dec), a call
 * per step of the walk: the first step also makes E(B0) and S0 and MACs associated data
 * in one piece, the last one also the partial block and the tag (.Lccm_tag, its one
 * computation), so a request in one piece is one call. Associated data in other pieces
 * goes through sm4rs_ce_ccm_mac between the first step and the text.
 *
 * Registers (AAPCS64): x0-x6 arguments, x8 the counter's address, x9-x14 scratch (x15-x17
 * for partial blocks); v0 the MAC state, v1-v2 keystream, v3-v4 data, v5 zero, v16
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
	NBLK	.req	w3	/* unsigned int nblocks (the text's length on entry to a step) */
	MACP	.req	x4	/* the CBC-MAC, 16 bytes: a step's struct sm4rs_ccm_state, below */
	AD	.req	x5	/* const u8 *ad: associated data in one piece */
	STEP	.req	x6	/* struct sm4rs_aead_step: adlen in bits 0-31, flags in 32-63 */
	ADLEN	.req	w6	/* its adlen */
	CTRP	.req	x8	/* the state's counter block (MACP + 16) */
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

	/* v0 <- E(v0 ^ v4), v4 a block in byte order (clobbered). */
	.macro	mac1
	rev32	v4.16b, v4.16b
	eor	v0.16b, v0.16b, v4.16b
	sm4_rounds1 v0
	tbl	v0.16b, {v0.16b}, WREV.16b
	.endm

	/*
	 * A step of a request (see sm4rs_ce_ccm_enc); \enc: encryption. Falls through to the
	 * tag (.Lccm_tag) after the last step, returns after the others. Registers beyond the
	 * arguments': w9 a piece's length, w11 scratch, w12 the text's length, x14 the text's
	 * source; v5 zero.
	 */
	.macro	ccm_step, id, enc
	load_round_keys
	load_perm WREV, .Lccm_wordrev
	load_perm BSWAP, .Lccm_bswap128
	add	CTRP, MACP, #16
	load_mac
	load_ctr CTRP
	tbz	STEP, #32, .Lccm\id\()_ad
	/*
	 * The first step: the MAC <- E(B0), B0 the MAC on entry, and S0 = E(A0), A0 the
	 * counter block, together; S0 to the tag's place.
	 */
	next_ctr v1
	sm4_rounds2 v0, v1
	tbl	v0.16b, {v0.16b}, WREV.16b
	tbl	v1.16b, {v1.16b}, BSWAP.16b
	add	x9, MACP, #32
	st1	{v1.16b}, [x9]
.Lccm\id\()_ad:
	/*
	 * Associated data in one piece after its 2-byte length (RFC 3610: fewer than 0xff00
	 * bytes): the first block holds the length and up to 14 bytes.
	 */
	cbz	ADLEN, .Lccm\id\()_text
	mov	w12, NBLK
	mov	x14, SRC
	mov	w11, #14
	cmp	ADLEN, w11
	csel	w9, ADLEN, w11, lo
	load_partial 4, AD, w9
	movi	v5.2d, #0
	ext	v4.16b, v5.16b, v4.16b, #14	/* the bytes up by two */
	rev16	w11, ADLEN
	mov	v4.h[0], w11			/* the length, big-endian */
	mac1
	add	SRC, AD, w9, uxtw
	sub	w9, ADLEN, w9
	lsr	NBLK, w9, #4
	cbz	NBLK, .Lccm\id\()_adtail
.Lccm\id\()_adloop:
	ld1	{v4.16b}, [SRC], #16
	mac1
	sub	NBLK, NBLK, #1
	cbnz	NBLK, .Lccm\id\()_adloop
.Lccm\id\()_adtail:
	ands	w9, w9, #15
	b.eq	.Lccm\id\()_adend
	load_partial 4, SRC, w9
	mac1
.Lccm\id\()_adend:
	mov	SRC, x14
	mov	NBLK, w12
.Lccm\id\()_text:
	/* The text: whole blocks, and in the last step the partial one (its plaintext MACed). */
	mov	w12, NBLK
	lsr	NBLK, w12, #4
	cbz	NBLK, .Lccm\id\()_tail
	.if	\enc
	ccm_enc_blocks \id
	.else
	ccm_dec_blocks \id
	.endif
.Lccm\id\()_tail:
	tbnz	STEP, #33, .Lccm\id\()_last
	/* Not the last step: the counter and the MAC stored back. */
	store_ctr CTRP
	store_mac
	ret
.Lccm\id\()_last:
	ands	w9, w12, #15
	b.eq	.Lccm\id\()_end
	ctr_partial 1, w9
	.if	!\enc
	mask_partial 4, 1, w9			/* the plaintext, padded with zeros */
	.endif
	mac1
.Lccm\id\()_end:
	.endm

/*
 * struct sm4rs_ccm_state {
 *	u8 mac[16];	the CBC-MAC (B0, RFC 3610 2.2, before the first step)
 *	u8 ctr[16];	the counter block of the next keystream block (A0 before the first step)
 *	u8 tag[16];	S0 = E(A0) from the first step on, the full tag after the last
 * };
 *
 * void sm4rs_ce_ccm_enc(const u32 rk[32], u8 *dst, const u8 *src, unsigned int len,
 *			 struct sm4rs_ccm_state *st, const u8 *ad,
 *			 struct sm4rs_aead_step step);
 *
 * A step of a CCM encryption, the one routine of a request's text; step as for
 * sm4rs_ce_gcm_enc (sm4_ce_gcm_core.S). In the first step, the MAC started with E(B0) and
 * S0 = E(A0) into tag; the adlen bytes at ad (associated data in one piece, fewer than
 * 0xff00 bytes, or none) MACed after their length; the whole blocks of the len bytes at
 * src MACed and encrypted in counter mode to dst (the same or disjoint). In the last step,
 * also the partial block that ends the text, and the tag: the MAC masked with S0 into tag
 * (.Lccm_tag, the tag's one computation); otherwise mac and ctr are written back.
 * Associated data in other pieces goes through sm4rs_ce_ccm_mac between the first step
 * and the text.
 */
SYM_FUNC_START(sm4rs_ce_ccm_enc)
	ccm_step e, 1
	b	.Lccm_tag
SYM_FUNC_END(sm4rs_ce_ccm_enc)

/*
 * void sm4rs_ce_ccm_dec(const u32 rk[32], u8 *dst, const u8 *src, unsigned int len,
 *			 struct sm4rs_ccm_state *st, const u8 *ad,
 *			 struct sm4rs_aead_step step);
 *
 * As sm4rs_ce_ccm_enc for a decryption: the len bytes at src decrypted to dst and the
 * plaintext MACed; tag gets the tag computed, for the caller to compare.
 */
SYM_FUNC_START(sm4rs_ce_ccm_dec)
	ccm_step d, 0
.Lccm_tag:
	/* The tag: the MAC masked with S0. */
	rev32	v0.16b, v0.16b
	add	x9, MACP, #32
	ld1	{v1.16b}, [x9]
	eor	v0.16b, v0.16b, v1.16b
	st1	{v0.16b}, [x9]
	ret
SYM_FUNC_END(sm4rs_ce_ccm_dec)

	.section ".rodata", "a"
	.align	4
.Lccm_bswap128:
	.byte	15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
.Lccm_wordrev:
	.byte	12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3
