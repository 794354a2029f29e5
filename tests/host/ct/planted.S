/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test of scripts/ct_check.py (host check ct-check-planted): routines that it must pass
 * (ct_clean) and fail (one planted fault each), assembled with llvm-mc alone.
 */
	.arch	armv8.2-a+crypto+sm4
	.text

	/* void ct_clean(const u8 *rk, u8 *dst, const u8 *src, unsigned int n): secrets in
	 * registers only, addresses and loop count public, a constant table. */
	.globl	ct_clean
ct_clean:
	adrp	x9, table
	add	x9, x9, :lo12:table
	ld1	{v1.16b}, [x9]
	ld1	{v2.16b}, [x0]
1:	ld1	{v0.16b}, [x2], #16
	eor	v0.16b, v0.16b, v2.16b
	tbl	v0.16b, {v0.16b}, v1.16b
	sm4e	v0.4s, v2.4s
	st1	{v0.16b}, [x1], #16
	subs	w3, w3, #1
	b.ne	1b
	ret

	/* u8 ct_table_lookup(const u8 *table, const u8 *key, u8 *out): a table indexed by a
	 * key byte, as a C S-box lookup compiles. */
	.globl	ct_table_lookup
ct_table_lookup:
	ldrb	w9, [x1]
	ldrb	w10, [x0, x9]
	strb	w10, [x2]
	ret

	/* void ct_secret_branch(const u8 *key, u8 *out, const u8 *in): a branch on a key
	 * bit. */
	.globl	ct_secret_branch
ct_secret_branch:
	ldr	x9, [x0]
	tbz	x9, #3, 1f
	ldr	x10, [x2]
	str	x10, [x1]
1:	ret

	/* void ct_secret_arg(u64 secret, u8 *out): a secret passed in a register (the table
	 * of arguments says so) used as an offset. */
	.globl	ct_secret_arg
ct_secret_arg:
	and	x9, x0, #0xf0
	str	xzr, [x1, x9]
	ret

	.section .rodata
	.align	4
table:
	.byte	15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
