/* span_eq, span_ieq, copy_span and u64_to_dec in AArch64 assembly: the contracts of
 * common/base/span.h, behind the same C prototypes (AAPCS64: arguments in x0, x1, x2; result
 * in x0; x0-x17 may be clobbered; x19-x28, x29, sp preserved). None of these routines
 * touches the stack or calls anything. */
#include "variants/asm-hotpath/aarch64/hotpath_asm.h"

/* int span_eq(const char *a, const char *b, size_t n)
 *
 *   in   x0  a
 *        x1  b
 *        x2  n (0 allowed)
 *   out  w0  1 when the n bytes match, else 0
 *   clobbers x3-x6, flags
 *
 * Compares 8 bytes at a time; the tail is one more 8-byte compare ending exactly at n
 * (it may overlap bytes already compared), so no load leaves [a, a+n) or [b, b+n). Under
 * 8 bytes the same trick runs with 4-, 2- and 1-byte loads. */
/* For width <= n <= 2 * width: compares the first and the last width bytes of each side
 * (loaded with load, which zero-extends into w5 and w6); leaves through .Leq_result (Z)
 * or .Leq_differ. */
.macro COMPARE_FIRST_AND_LAST width, load
	\load	w5, [x0]
	\load	w6, [x1]
	cmp	w5, w6
	b.ne	.Leq_differ
	sub	x3, x2, #\width
	\load	w5, [x0, x3]
	\load	w6, [x1, x3]
	cmp	w5, w6
	b	.Leq_result
.endm

FUNCTION_BEGIN(span_eq)
	cmp	x2, #8
	b.lo	.Leq_under_8
	sub	x3, x2, #8		/* offset of the last 8-byte word */
	mov	x4, #0			/* offset of the next 8-byte word */
.Leq_words:
	cmp	x4, x3
	b.hs	.Leq_last_word
	ldr	x5, [x0, x4]
	ldr	x6, [x1, x4]
	cmp	x5, x6
	b.ne	.Leq_differ
	add	x4, x4, #8
	b	.Leq_words
.Leq_last_word:
	ldr	x5, [x0, x3]
	ldr	x6, [x1, x3]
	cmp	x5, x6
	b	.Leq_result
.Leq_under_8:
	cmp	x2, #4
	b.lo	.Leq_under_4
	COMPARE_FIRST_AND_LAST 4, ldr
.Leq_under_4:
	cmp	x2, #2
	b.lo	.Leq_under_2
	COMPARE_FIRST_AND_LAST 2, ldrh
.Leq_under_2:
	cbz	x2, .Leq_same
	ldrb	w5, [x0]
	ldrb	w6, [x1]
	cmp	w5, w6
.Leq_result:				/* Z set by the last compare */
	cset	w0, eq
	ret
.Leq_same:
	mov	w0, #1
	ret
.Leq_differ:
	mov	w0, #0
	ret
FUNCTION_END(span_eq)

/* int span_ieq(const char *a, const char *b, size_t n)
 *
 *   in   x0  a
 *        x1  b
 *        x2  n (0 allowed)
 *   out  w0  1 when the n bytes match after folding A-Z to a-z on both sides, else 0
 *   clobbers x3-x7, flags
 *
 * One byte at a time, reading exactly n bytes from each side. Identical bytes need no
 * folding, so the fold (branch-free: csel picks c | 0x20 when c - 'A' <= 'Z' - 'A',
 * unsigned) only runs on a mismatch. */
FUNCTION_BEGIN(span_ieq)
	mov	x3, #0			/* index */
.Lieq_next:
	cmp	x3, x2
	b.eq	.Lieq_same
	ldrb	w4, [x0, x3]
	ldrb	w5, [x1, x3]
	add	x3, x3, #1
	cmp	w4, w5
	b.eq	.Lieq_next
	sub	w6, w4, #'A'
	orr	w7, w4, #ASCII_CASE_BIT
	cmp	w6, #'Z' - 'A'
	csel	w4, w7, w4, ls
	sub	w6, w5, #'A'
	orr	w7, w5, #ASCII_CASE_BIT
	cmp	w6, #'Z' - 'A'
	csel	w5, w7, w5, ls
	cmp	w4, w5
	b.eq	.Lieq_next
	mov	w0, #0
	ret
.Lieq_same:
	mov	w0, #1
	ret
FUNCTION_END(span_ieq)

/* char *copy_span(char *dst, const char *src, size_t n)
 *
 *   in   x0  dst
 *        x1  src (must not overlap [dst, dst+n))
 *        x2  n (0 allowed)
 *   out  x0  dst + n
 *   clobbers x1-x4
 *
 * 8 bytes a step while 8 remain, then single bytes; unaligned 8-byte accesses are allowed
 * on normal memory (Linux user space runs with SCTLR_EL1.A clear). */
FUNCTION_BEGIN(copy_span)
	add	x3, x0, x2		/* the return value */
.Lcopy_words:
	cmp	x2, #8
	b.lo	.Lcopy_bytes
	ldr	x4, [x1], #8
	str	x4, [x0], #8
	sub	x2, x2, #8
	b	.Lcopy_words
.Lcopy_bytes:
	cbz	x2, .Lcopy_done
	ldrb	w4, [x1], #1
	strb	w4, [x0], #1
	sub	x2, x2, #1
	b	.Lcopy_bytes
.Lcopy_done:
	mov	x0, x3
	ret
FUNCTION_END(copy_span)

/* size_t u64_to_dec(uint64_t v, char *out)
 *
 *   in   x0  v
 *        x1  out (room for ASM_U64_DEC_MAX bytes; only the digits are written)
 *   out  x0  digit count, 1..ASM_U64_DEC_MAX
 *   clobbers x2-x8, flags
 *
 * Counts the digits against growing powers of ten (10^19 is the last that fits in 64
 * bits), then writes back to front. v / 10 is the high half of v * ceil(2^67 / 10)
 * shifted right by 3, exact for every 64-bit v (Granlund & Montgomery 1994); umulh gives
 * that high half in one instruction. */
#define DIVIDE_BY_10_MAGIC_LESS_1 0xCCCCCCCCCCCCCCCC /* an A64 logical immediate */
#define DIVIDE_BY_10_SHIFT 3
FUNCTION_BEGIN(u64_to_dec)
	mov	x2, #1			/* digits */
	mov	x3, #10			/* 10^digits */
.Ldec_count:
	cmp	x0, x3
	b.lo	.Ldec_counted
	add	x2, x2, #1
	cmp	x2, #ASM_U64_DEC_MAX
	b.eq	.Ldec_counted		/* 10^20 would overflow; v has 20 digits */
	add	x3, x3, x3, lsl #2
	lsl	x3, x3, #1		/* x3 *= 10 */
	b	.Ldec_count
.Ldec_counted:
	mov	x4, x2			/* the return value */
	mov	x8, #DIVIDE_BY_10_MAGIC_LESS_1
	add	x8, x8, #1		/* 0xCCCCCCCCCCCCCCCD */
	mov	x7, #10
.Ldec_digit:
	umulh	x5, x0, x8
	lsr	x5, x5, #DIVIDE_BY_10_SHIFT	/* x5 = v / 10 */
	msub	x6, x5, x7, x0		/* x6 = v - (v / 10) * 10 */
	add	w6, w6, #'0'
	sub	x2, x2, #1
	strb	w6, [x1, x2]
	mov	x0, x5
	cbnz	x2, .Ldec_digit
	mov	x0, x4
	ret
FUNCTION_END(u64_to_dec)

	.section .note.GNU-stack, "", %progbits
