/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Partial blocks for the AEAD cores (sm4_ce_gcm_core.S, sm4_ce_ccm_core.S, which
 * include this file after sm4/sm4-ce-asm.h): the bytes of a block shorter than 16, read
 * and written in pieces of 8, 4, 2 and 1 bytes, never past their end, each read once. The
 * macros name the registers of the file that uses them: SRC and DST (a source and a destination),
 * BSWAP (the byte reversal of an SM4E output), CTRB and COUNT (the counter block).
 */

	/*
	 * v\v <- the \n (fewer than 16) bytes at \p, the rest of the block zero: read from
	 * the end in pieces of 1, 2, 4 and 8 bytes (the bits of \n), never past it.
	 * Clobbers x15-x17.
	 */
	.macro	load_partial, v, p, n
	add	x15, \p, \n, uxtw		/* x15: the end, moving down */
	mov	x16, xzr			/* x16: the bytes after the first 8 (or all) */
	tbz	\n, #0, .Lldp1\@
	ldrb	w16, [x15, #-1]!
.Lldp1\@:
	tbz	\n, #1, .Lldp2\@
	ldrh	w17, [x15, #-2]!
	orr	x16, x17, x16, lsl #16
.Lldp2\@:
	tbz	\n, #2, .Lldp4\@
	ldr	w17, [x15, #-4]!
	orr	x16, x17, x16, lsl #32
.Lldp4\@:
	tbz	\n, #3, .Lldp8\@
	ldr	x17, [\p]
	fmov	d\v, x17
	mov	v\v\().d[1], x16
	b	.Lldpend\@
.Lldp8\@:
	fmov	d\v, x16			/* also zeroes the upper half */
.Lldpend\@:
	.endm

	/* The first \n (fewer than 16) bytes of v\v to \p. Clobbers x15-x17. */
	.macro	store_partial, v, p, n
	fmov	x16, d\v			/* x16: the bytes still to store */
	mov	x17, v\v\().d[1]
	mov	x15, \p				/* x15: where they go */
	tbz	\n, #3, .Lstp8\@
	str	x16, [x15], #8
	mov	x16, x17
.Lstp8\@:
	tbz	\n, #2, .Lstp4\@
	str	w16, [x15], #4
	lsr	x16, x16, #32
.Lstp4\@:
	tbz	\n, #1, .Lstp2\@
	strh	w16, [x15], #2
	lsr	x16, x16, #16
.Lstp2\@:
	tbz	\n, #0, .Lstp1\@
	strb	w16, [x15]
.Lstp1\@:
	.endm

	/*
	 * The partial block that ends a text in counter mode: v\ks <- the keystream of the
	 * next counter block, the \n (fewer than 16) bytes at SRC XORed with it to DST, v4 <-
	 * those input bytes padded with zeros. Clobbers x15-x17.
	 */
	.macro	ctr_partial, ks, n
	next_ctr v\ks
	sm4_rounds1 v\ks
	tbl	v\ks\().16b, {v\ks\().16b}, BSWAP.16b
	load_partial 4, SRC, \n
	eor	v\ks\().16b, v\ks\().16b, v4.16b
	store_partial \ks, DST, \n
	.endm

	/*
	 * v\out <- the first \n (fewer than 16) bytes of v\v, the rest of the block zero: what
	 * ctr_partial wrote, without reading it back from DST. Clobbers x15, v5 and v6.
	 */
	.macro	mask_partial, out, v, n
	adr_l	x15, .Lpartial_index
	ld1	{v5.16b}, [x15]
	dup	v6.16b, \n
	cmhi	v6.16b, v6.16b, v5.16b		/* 0xff where the byte's index is below \n */
	and	v\out\().16b, v\v\().16b, v6.16b
	.endm

	.pushsection ".rodata", "a"
	.align	4
.Lpartial_index:
	.byte	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	.popsection
