/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test of scripts/ct_check.py (host check ct-check-planted), assembled with llvm-mc
 * alone: one small routine per rule of the checker, with one planted fault each, which it
 * must report (and nothing else), and ct_clean, in which it must find nothing. The host
 * check compares the findings, as "routine: kind", with the list it holds: a rule that
 * stops firing, or a finding more, fails it. The argument classes of each routine are in
 * ct_check.py's ARGS.
 */
	.arch	armv8.2-a+crypto+sm4
	.text

	/*
	 * void ct_clean(const u32 rk[32], u8 *dst, const u8 *src, unsigned int nblocks,
	 *		 const u8 iv[16]);
	 *
	 * CBC encryption of nblocks blocks, as the cores do it: a constant table (adrp), the
	 * round keys and the IV loaded once, each source block loaded once (a loop advancing
	 * src by post-index writeback), SM4E and tbl on secrets in registers, a public count
	 * in the branches; x19 and d8 (callee-saved) and x30 saved and restored through the
	 * stack. ct_check must find nothing here.
	 */
	.globl	ct_clean
ct_clean:
	stp	x29, x30, [sp, #-32]!
	mov	x29, sp
	str	x19, [sp, #16]
	str	d8, [sp, #24]
	cbz	w3, 2f
	adrp	x9, .Lct_bswap
	add	x9, x9, :lo12:.Lct_bswap
	ld1	{v23.16b}, [x9]			/* a constant table: public */
	ld1	{v24.4s-v27.4s}, [x0], #64
	ld1	{v28.4s-v31.4s}, [x0]
	ld1	{v8.16b}, [x4]			/* the IV, the chain */
	mov	w19, w3
1:	ld1	{v0.16b}, [x2], #16
	eor	v0.16b, v0.16b, v8.16b
	rev32	v0.16b, v0.16b
	sm4e	v0.4s, v24.4s
	sm4e	v0.4s, v25.4s
	sm4e	v0.4s, v26.4s
	sm4e	v0.4s, v27.4s
	sm4e	v0.4s, v28.4s
	sm4e	v0.4s, v29.4s
	sm4e	v0.4s, v30.4s
	sm4e	v0.4s, v31.4s
	tbl	v8.16b, {v0.16b}, v23.16b
	st1	{v8.16b}, [x1], #16
	subs	w19, w19, #1
	b.ne	1b
2:	ldr	d8, [sp, #24]
	ldr	x19, [sp, #16]
	ldp	x29, x30, [sp], #32
	ret

	/* u8 ct_table_lookup(const u8 *table, const u8 *key, u8 *out): a table indexed by a
	 * key byte, as a C S-box lookup compiles (a secret index register). */
	.globl	ct_table_lookup
ct_table_lookup:
	ldrb	w9, [x1]
	ldrb	w10, [x0, x9]
	strb	w10, [x2]
	ret

	/* void ct_secret_arg(u64 secret, u8 *out): a secret passed in a register (the table
	 * of arguments says so) used as an offset. */
	.globl	ct_secret_arg
ct_secret_arg:
	and	x9, x0, #0xf0
	str	xzr, [x1, x9]
	ret

	/* void ct_secret_tbz(const u8 *key, u8 *out, const u8 *in): a branch on a key bit
	 * (tbz). */
	.globl	ct_secret_tbz
ct_secret_tbz:
	ldr	x9, [x0]
	tbz	x9, #3, 1f
	ldr	x10, [x2]
	str	x10, [x1]
1:	ret

	/* void ct_secret_cbnz(const u64 *key, u64 *out): a branch on a key word being zero
	 * (cbnz). */
	.globl	ct_secret_cbnz
ct_secret_cbnz:
	ldr	x9, [x0]
	cbnz	x9, 1f
	str	xzr, [x1]
1:	ret

	/* void ct_secret_flags(const u64 *tag, const u64 *expected, u64 *out): a comparison
	 * of secrets that returns early (cmp, then b.cond on its flags). */
	.globl	ct_secret_flags
ct_secret_flags:
	ldr	x9, [x0]
	ldr	x10, [x1]
	cmp	x9, x10
	b.ne	1f
	str	xzr, [x2]
1:	ret

	/* void ct_secret_br(void (*const *fn)(void)): a jump to an address read from memory,
	 * which is secret (br). */
	.globl	ct_secret_br
ct_secret_br:
	ldr	x9, [x0]
	br	x9

	/* void ct_secret_ret(const u64 *lr): a return to an address read from memory, not from
	 * the stack slot x30 was saved in (ret). */
	.globl	ct_secret_ret
ct_secret_ret:
	ldr	x30, [x0]
	ret

	/* void ct_secret_writeback(const u64 *key, const u8 *src, u8 *out): a pointer
	 * advanced by a secret (post-index writeback by a register: the SIMD structure loads
	 * have it). */
	.globl	ct_secret_writeback
ct_secret_writeback:
	ldr	x9, [x0]
	ld1	{v0.16b}, [x1], x9
	st1	{v0.16b}, [x2]
	ret

	/* void ct_stack_slot(const u8 *key, const u8 *table, u8 *out): a key byte spilled to
	 * the stack and loaded back from its slot, then used as an index. */
	.globl	ct_stack_slot
ct_stack_slot:
	sub	sp, sp, #16
	ldrb	w9, [x0]
	str	x9, [sp, #8]
	mov	x9, xzr
	ldr	x10, [sp, #8]
	ldrb	w11, [x1, x10]
	strb	w11, [x2]
	add	sp, sp, #16
	ret

	/* void ct_const_table(const u8 *key, u8 *out): a constant table (adrp) indexed by a
	 * key byte. */
	.globl	ct_const_table
ct_const_table:
	ldrb	w9, [x0]
	adrp	x10, .Lct_bswap
	add	x10, x10, :lo12:.Lct_bswap
	ldrb	w11, [x10, x9]
	strb	w11, [x1]
	ret

	/* void ct_secret_sp(const u64 *key): a stack frame of a secret size (the stack
	 * pointer moved by a secret). */
	.globl	ct_secret_sp
ct_secret_sp:
	ldr	x9, [x0]
	and	x9, x9, #0xff0
	mov	x10, sp
	sub	sp, sp, x9
	mov	sp, x10
	ret

	/* void ct_reads_output(u8 *dst, const u8 *src, u8 *hash): a block written to dst, then
	 * half of it read back from dst (through a register derived from it) to be hashed,
	 * where another thread may have changed it: an "o" argument loaded from. */
	.globl	ct_reads_output
ct_reads_output:
	ld1	{v0.16b}, [x1]
	ld1	{v1.16b}, [x2]
	eor	v0.16b, v0.16b, v1.16b
	st1	{v0.16b}, [x0]
	add	x9, x0, #8
	ldr	x10, [x9]
	str	x10, [x2]
	ret

	/* void ct_reads_twice(u8 *dst, const u8 *src, unsigned int n): n groups of 64 bytes,
	 * each loaded once to be hashed, then again to be XORed (as sm4_ce_gcm_core.S's
	 * decryption did): the bytes of an "i" argument loaded twice. */
	.globl	ct_reads_twice
ct_reads_twice:
	cbz	w2, 2f
1:	ld1	{v0.16b-v3.16b}, [x1]
	eor	v4.16b, v0.16b, v1.16b
	eor	v4.16b, v4.16b, v2.16b
	eor	v4.16b, v4.16b, v3.16b
	ld1	{v0.16b-v3.16b}, [x1], #64
	eor	v0.16b, v0.16b, v4.16b
	st1	{v0.16b-v3.16b}, [x0], #64
	subs	w2, w2, #1
	b.ne	1b
2:	ret

	/* void ct_unknown_insn(float acc[4], const float x[4]): an instruction ct_check does
	 * not know (fmla). */
	.globl	ct_unknown_insn
ct_unknown_insn:
	ld1	{v0.4s}, [x0]
	ld1	{v1.4s}, [x1]
	fmla	v0.4s, v1.4s, v1.4s
	st1	{v0.4s}, [x0]
	ret

	/* void ct_literal_load(u64 *out): a load whose address ct_check cannot read (a
	 * PC-relative literal). */
	.globl	ct_literal_load
ct_literal_load:
	ldr	x9, .Lct_literal
	str	x9, [x0]
	ret

	/* void ct_not_in_args(u64 *out): a routine missing from ct_check.py's ARGS. */
	.globl	ct_not_in_args
ct_not_in_args:
	str	xzr, [x0]
	ret

	/* void ct_bad_arity(const u64 *src, u64 *dst): two arguments, where ct_check.py's ARGS
	 * gives three classes. */
	.globl	ct_bad_arity
ct_bad_arity:
	ldr	x9, [x0]
	str	x9, [x1]
	ret

	/* ct_no_prototype: a routine in ct_check.py's ARGS (one argument, a pointer) without
	 * a C prototype in a comment or a Rust declaration, so its argument count is unknown
	 * (the planted fault). */
	.globl	ct_no_prototype
ct_no_prototype:
	str	xzr, [x0]
	ret

	.section .rodata
	.align	4
.Lct_bswap:
	.byte	15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
.Lct_literal:
	.quad	0x0123456789abcdef
