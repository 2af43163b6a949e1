/* aarch64 definitions for the hot path assembly (http_parse.S, span.S): function framing,
 * reaching the C core, and the character-class bit numbers tbz/tbnz take; the constants
 * shared with the other CPUs come from ../hotpath_consts.h.
 *
 * Assembler-safe: only #define lines and assembler directives, no C declarations. On
 * AArch64 `@` starts a comment, so section and symbol types are written %progbits and
 * %function. */
#ifndef APOLLOD_VARIANTS_ASM_HOTPATH_AARCH64_HOTPATH_ASM_H
#define APOLLOD_VARIANTS_ASM_HOTPATH_AARCH64_HOTPATH_ASM_H

#include "variants/asm-hotpath/hotpath_consts.h"

/* One section per function so --gc-sections drops what a binary does not call. A64
 * instructions are 4 bytes and need 4-byte alignment; 16 keeps entries on fetch blocks. */
#define FUNCTION_BEGIN(name)                                                   \
	.section .text.SYM(name), "ax", %progbits;                             \
	.globl SYM(name);                                                      \
	.type SYM(name), %function;                                            \
	.p2align 4;                                                            \
	SYM(name):
#define FUNCTION_END(name) .size SYM(name), .-SYM(name)

/* Reaching the C core (http_char_class, http_host_valid), which never takes the prefix.
 * The daemon is a static non-PIC executable: adrp + add reach any symbol within 4 GiB.
 * The unit tests may be built -fPIC and link the core as a shared object, so there the
 * address comes from the GOT; `bl` lets the linker add a PLT stub when one is needed. */
#ifdef __PIC__
#define LOAD_C_ADDRESS(symbol, reg) adrp reg, :got:symbol; ldr reg, [reg, :got_lo12:symbol]
#else
#define LOAD_C_ADDRESS(symbol, reg) adrp reg, symbol; add reg, reg, :lo12:symbol
#endif
#define CALL_C(symbol) bl symbol

/* http_char_class bit numbers for tbz/tbnz, which test one bit in one instruction;
 * layout_check.c checks 1 << ASM_CC_*_BIT == CC_*. */
#define ASM_CC_TCHAR_BIT 0
#define ASM_CC_TARGET_BIT 1
#define ASM_CC_VALUE_BIT 2
#define ASM_CC_UPPER_BIT 3
#define ASM_CC_DIGIT_BIT 4
#define ASM_CC_OWS_BIT 6

#endif /* APOLLOD_VARIANTS_ASM_HOTPATH_AARCH64_HOTPATH_ASM_H */
