/* span_eq, span_ieq, copy_span and u64_to_dec in x86_64 assembly: the contracts of
 * common/base/span.h, behind the same C prototypes (System V AMD64 ABI: arguments in rdi, rsi,
 * rdx; result in rax; rax, rcx, rdx, rsi, rdi, r8-r11 may be clobbered; rbx, rbp, rsp,
 * r12-r15 preserved; the direction flag is clear on entry and exit). None of these
 * routines touches the stack or calls anything. */
#include "variants/asm-hotpath/x86_64/hotpath_asm.h"

/* int span_eq(const char *a, const char *b, size_t n)
 *
 *   in   rdi  a
 *        rsi  b
 *        rdx  n (0 allowed)
 *   out  eax  1 when the n bytes match, else 0
 *   uses rax, rcx, r8;  clobbers rax, rcx, r8
 *
 * Compares 8 bytes at a time; the tail is one more 8-byte compare ending exactly at n
 * (it may overlap bytes already compared), so no load leaves [a, a+n) or [b, b+n). Under
 * 8 bytes the same trick runs with 4-, 2- and 1-byte loads. */
/* For 2 <= n <= 2 * width: compares the first and the last width bytes of each side (they
 * overlap when n < 2 * width, which covers every byte without reading past n), loading
 * with load into load_reg and comparing as cmp_reg; leaves through .Leq_result (ZF) or
 * .Leq_differ. */
.macro COMPARE_FIRST_AND_LAST width, load, load_reg, cmp, cmp_reg
	\load	(%rdi), \load_reg
	\cmp	(%rsi), \cmp_reg
	jne	.Leq_differ
	\load	-\width(%rdi,%rdx), \load_reg
	\cmp	-\width(%rsi,%rdx), \cmp_reg
	jmp	.Leq_result
.endm

FUNCTION_BEGIN(span_eq)
	cmpq	$8, %rdx
	jb	.Leq_under_8
	leaq	-8(%rdx), %rcx		/* offset of the last 8-byte word */
	xorl	%r8d, %r8d		/* offset of the next 8-byte word */
.Leq_words:
	cmpq	%rcx, %r8
	jae	.Leq_last_word
	movq	(%rdi,%r8), %rax
	cmpq	(%rsi,%r8), %rax
	jne	.Leq_differ
	addq	$8, %r8
	jmp	.Leq_words
.Leq_last_word:
	movq	(%rdi,%rcx), %rax
	cmpq	(%rsi,%rcx), %rax
	jmp	.Leq_result
.Leq_under_8:
	cmpq	$4, %rdx
	jb	.Leq_under_4
	COMPARE_FIRST_AND_LAST 4, movl, %eax, cmpl, %eax
.Leq_under_4:
	cmpq	$2, %rdx
	jb	.Leq_under_2
	COMPARE_FIRST_AND_LAST 2, movzwl, %eax, cmpw, %ax
.Leq_under_2:
	testq	%rdx, %rdx
	jz	.Leq_same
	movzbl	(%rdi), %eax
	cmpb	(%rsi), %al
.Leq_result:				/* ZF set by the last compare */
	sete	%al
	movzbl	%al, %eax
	ret
.Leq_same:
	movl	$1, %eax
	ret
.Leq_differ:
	xorl	%eax, %eax
	ret
FUNCTION_END(span_eq)

/* int span_ieq(const char *a, const char *b, size_t n)
 *
 *   in   rdi  a
 *        rsi  b
 *        rdx  n (0 allowed)
 *   out  eax  1 when the n bytes match after folding A-Z to a-z on both sides, else 0
 *   uses rax, rcx, r8, r9;  clobbers rax, rcx, r8, r9
 *
 * One byte at a time, reading exactly n bytes from each side. Identical bytes need no
 * folding, so the fold only runs on a mismatch. The daemon's assembly parser folds its
 * header names inline; this routine serves the C callers and the tests. */
FUNCTION_BEGIN(span_ieq)
	xorl	%ecx, %ecx		/* index */
.Lieq_next:
	cmpq	%rdx, %rcx
	je	.Lieq_same
	movzbl	(%rdi,%rcx), %eax
	movzbl	(%rsi,%rcx), %r8d
	incq	%rcx
	cmpl	%r8d, %eax
	je	.Lieq_next
	/* fold each side: c - 'A' <= 'Z' - 'A' (unsigned) means A-Z, which becomes c | 0x20 */
	leal	-'A'(%rax), %r9d
	cmpl	$'Z' - 'A', %r9d
	ja	.Lieq_a_folded
	orl	$ASCII_CASE_BIT, %eax
.Lieq_a_folded:
	leal	-'A'(%r8), %r9d
	cmpl	$'Z' - 'A', %r9d
	ja	.Lieq_b_folded
	orl	$ASCII_CASE_BIT, %r8d
.Lieq_b_folded:
	cmpl	%r8d, %eax
	je	.Lieq_next
	xorl	%eax, %eax
	ret
.Lieq_same:
	movl	$1, %eax
	ret
FUNCTION_END(span_ieq)

/* char *copy_span(char *dst, const char *src, size_t n)
 *
 *   in   rdi  dst
 *        rsi  src (must not overlap [dst, dst+n))
 *        rdx  n (0 allowed)
 *   out  rax  dst + n
 *   uses rax, rcx, rsi, rdi;  clobbers rax, rcx, rsi, rdi
 *
 * rep movsb copies rcx bytes forward (the ABI guarantees DF = 0 on entry) and leaves rdi
 * one past the last byte written, which is the return value. */
FUNCTION_BEGIN(copy_span)
	movq	%rdx, %rcx
	rep movsb
	movq	%rdi, %rax
	ret
FUNCTION_END(copy_span)

/* size_t u64_to_dec(uint64_t v, char *out)
 *
 *   in   rdi  v
 *        rsi  out (room for ASM_U64_DEC_MAX bytes; only the digits are written)
 *   out  rax  digit count, 1..ASM_U64_DEC_MAX
 *   uses rax, rcx, rdx, rdi, r8, r9, r10;  clobbers the same
 *
 * Counts the digits against growing powers of ten (10^19 is the last that fits in 64
 * bits), then writes back to front. v / 10 is the high half of v * ceil(2^67 / 10)
 * shifted right by 3, exact for every 64-bit v (Granlund & Montgomery 1994). */
#define DIVIDE_BY_10_MAGIC 0xCCCCCCCCCCCCCCCD
#define DIVIDE_BY_10_SHIFT 3
FUNCTION_BEGIN(u64_to_dec)
	movl	$1, %ecx		/* digits */
	movl	$10, %r8d		/* 10^digits */
.Ldec_count:
	cmpq	%r8, %rdi
	jb	.Ldec_counted
	incl	%ecx
	cmpl	$ASM_U64_DEC_MAX, %ecx
	je	.Ldec_counted		/* 10^20 would overflow; v has 20 digits */
	leaq	(%r8,%r8,4), %r8
	addq	%r8, %r8
	jmp	.Ldec_count
.Ldec_counted:
	movq	%rcx, %r10		/* the return value */
	movabsq	$DIVIDE_BY_10_MAGIC, %r8
.Ldec_digit:
	movq	%rdi, %rax
	mulq	%r8			/* rdx:rax = v * magic */
	shrq	$DIVIDE_BY_10_SHIFT, %rdx	/* rdx = v / 10 */
	leaq	(%rdx,%rdx,4), %r9
	addq	%r9, %r9		/* r9 = (v / 10) * 10 */
	subq	%r9, %rdi		/* rdi = v % 10 */
	addl	$'0', %edi
	movb	%dil, -1(%rsi,%rcx)
	movq	%rdx, %rdi
	decq	%rcx
	jnz	.Ldec_digit
	movq	%r10, %rax
	ret
FUNCTION_END(u64_to_dec)

	.section .note.GNU-stack, "", @progbits
