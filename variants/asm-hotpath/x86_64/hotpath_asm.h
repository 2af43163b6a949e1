/* x86_64 definitions for the hot path assembly (http_parse.S, span.S): function framing
 * and reaching the C core; the constants shared with the other CPUs come from
 * ../hotpath_consts.h.
 *
 * Assembler-safe: only #define lines and assembler directives, no C declarations. */
#ifndef APOLLOD_VARIANTS_ASM_HOTPATH_X86_64_HOTPATH_ASM_H
#define APOLLOD_VARIANTS_ASM_HOTPATH_X86_64_HOTPATH_ASM_H

#include "variants/asm-hotpath/hotpath_consts.h"

/* One section per function so --gc-sections drops what a binary does not call, as
 * -ffunction-sections does for the C code. */
#define FUNCTION_BEGIN(name)                                                   \
	.section .text.SYM(name), "ax", @progbits;                             \
	.globl SYM(name);                                                      \
	.type SYM(name), @function;                                            \
	.p2align 4;                                                            \
	SYM(name):
#define FUNCTION_END(name) .size SYM(name), .-SYM(name)

/* Reaching the C core (http_char_class, http_host_valid), which never takes the prefix.
 * The daemon is a static non-PIC executable: a plain RIP-relative address and a direct
 * call. The unit tests compile with -fPIC and may link the core as a shared object, so
 * there the table's address comes from the GOT and the call goes through the PLT. */
#ifdef __PIC__
#define LOAD_C_ADDRESS(symbol, reg) movq symbol@GOTPCREL(%rip), reg
#define CALL_C(symbol) call symbol@PLT
#else
#define LOAD_C_ADDRESS(symbol, reg) leaq symbol(%rip), reg
#define CALL_C(symbol) call symbol
#endif

/* Two case bits side by side, for 16-bit compares. */
#define ASCII_CASE_BITS2 BYTES2(ASCII_CASE_BIT, ASCII_CASE_BIT)

#endif /* APOLLOD_VARIANTS_ASM_HOTPATH_X86_64_HOTPATH_ASM_H */
