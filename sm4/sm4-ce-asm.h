/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Assembler macros shared by the SM4E cores (sm4_ce_core.S, sm4_ce_gcm_core.S,
 * sm4_ce_ccm_core.S). They name the registers of the file that uses them: RK (the round
 * keys' address), CTRB (a counter block in SM4E lane order), COUNT (its 32-bit counter) and
 * BSWAP (the tbl index that reverses 16 bytes).
 */

	/* v24-v31 <- rk[0..31]; clobbers RK. */
	.macro	load_round_keys
	ld1	{v24.4s, v25.4s, v26.4s, v27.4s}, [RK], #64
	ld1	{v28.4s, v29.4s, v30.4s, v31.4s}, [RK]
	.endm

	/* The 32 rounds of one block \b, in SM4E lane order. */
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

	/* Four rounds (round keys \k) of the four blocks in v0-v3. */
	.macro	sm4_round4, k
	sm4e	v0.4s, \k\().4s
	sm4e	v1.4s, \k\().4s
	sm4e	v2.4s, \k\().4s
	sm4e	v3.4s, \k\().4s
	.endm

	/* The 32 rounds of the four blocks in v0-v3, interleaved to hide SM4E's latency. */
	.macro	sm4_rounds4
	sm4_round4 v24
	sm4_round4 v25
	sm4_round4 v26
	sm4_round4 v27
	sm4_round4 v28
	sm4_round4 v29
	sm4_round4 v30
	sm4_round4 v31
	.endm

	/* v0-v3 <- the four blocks in v0-v3 after their rounds, in output byte order. */
	.macro	tbl4
	tbl	v0.16b, {v0.16b}, BSWAP.16b
	tbl	v1.16b, {v1.16b}, BSWAP.16b
	tbl	v2.16b, {v2.16b}, BSWAP.16b
	tbl	v3.16b, {v3.16b}, BSWAP.16b
	.endm

	/*
	 * \v <- the counter block CTRB with the counter COUNT in its last word (lane 3: the
	 * block's last 32 bits as an integer), and COUNT incremented (modulo 2^32).
	 */
	.macro	next_ctr, v
	mov	\v\().16b, CTRB.16b
	mov	\v\().s[3], COUNT
	add	COUNT, COUNT, #1
	.endm

	/* CTRB and COUNT <- the counter block at \p. */
	.macro	load_ctr, p
	ld1	{CTRB.16b}, [\p]
	rev32	CTRB.16b, CTRB.16b
	mov	COUNT, CTRB.s[3]
	.endm

	/* The counter block with COUNT back to \p. */
	.macro	store_ctr, p
	mov	CTRB.s[3], COUNT
	rev32	CTRB.16b, CTRB.16b
	st1	{CTRB.16b}, [\p]
	.endm
