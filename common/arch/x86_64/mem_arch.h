/* x86_64 block copy and fill for the daemon's memcpy and memset (common/base/mem_words.h):
 * `rep movsb` and `rep stosb`. On CPUs with ERMS (Ivy Bridge on; FSRM from Ice Lake
 * makes short ones fast too) the microcode moves whole cache lines, faster than a word
 * loop once the start-up cost (tens of cycles) is paid: from ARCH_MEM_BLOCK_MIN bytes
 * (Intel's optimization manual, 3.7.6, puts the crossover near 128-512 bytes; the
 * kernel's own memcpy switches to `rep movsb` for any length with FSRM).
 * Registers: rdi the destination, rsi the source, rcx the count, al the fill byte;
 * the direction flag is clear (the SysV ABI guarantees it at every call). */
#ifndef APOLLOD_COMMON_ARCH_X86_64_MEM_ARCH_H
#define APOLLOD_COMMON_ARCH_X86_64_MEM_ARCH_H

#include <stddef.h>

#define ARCH_MEM_BLOCK_MIN 512

/* Copies n bytes from src to dst; expects the ranges not to overlap. */
static inline void arch_copy_block(void *dst, const void *src, size_t n)
{
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}
#define arch_copy_block arch_copy_block

/* Sets n bytes at dst to c. */
static inline void arch_fill_block(void *dst, unsigned char c, size_t n)
{
	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(c) : "memory");
}
#define arch_fill_block arch_fill_block

#endif /* APOLLOD_COMMON_ARCH_X86_64_MEM_ARCH_H */
