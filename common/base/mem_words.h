/* The loops behind the daemon's memcpy, memmove and memset (mem.c), a word (8 bytes) at a
 * time: in a header so that the unit suite runs the very code against a table
 * (test/unit/mem_test.cc) while the daemon links it under the libc names. A cpu's block
 * instruction takes over from ARCH_MEM_BLOCK_MIN bytes where mem_arch.h has one
 * (x86_64's `rep movsb`; aarch64 keeps the loops). Unaligned words are loaded and stored
 * through a may_alias, 1-aligned type: both cpus allow unaligned access to normal memory,
 * and GCC emits plain 8-byte moves for it. */
#ifndef APOLLOD_COMMON_BASE_MEM_WORDS_H
#define APOLLOD_COMMON_BASE_MEM_WORDS_H

#include <stddef.h>
#include <stdint.h>

#include "common/arch/arch.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

typedef uint64_t __attribute__((may_alias, aligned(1))) mem_word;
#define MEM_WORD_BYTES 8u
STATIC_ASSERT(sizeof(mem_word) == MEM_WORD_BYTES, "a word is 8 bytes");
/* Each byte of a word: a byte times this fills a word with it. */
#define MEM_BYTES_ONES 0x0101010101010101ull

/* Copies n bytes from s to d, first to last; expects d <= s or the ranges apart (each
 * word is loaded before any store can reach it). */
static inline void mem_copy_forward(unsigned char *d, const unsigned char *s, size_t n)
{
	for (; n >= MEM_WORD_BYTES; n -= MEM_WORD_BYTES, d += MEM_WORD_BYTES, s += MEM_WORD_BYTES)
		*(mem_word *)d = *(const mem_word *)s;
	while (n--)
		*d++ = *s++;
}

/* Copies n bytes from s to d, last to first; for d > s with the ranges overlapping. */
static inline void mem_copy_backward(unsigned char *d, const unsigned char *s, size_t n)
{
	for (; n >= MEM_WORD_BYTES; n -= MEM_WORD_BYTES)
		*(mem_word *)(d + n - MEM_WORD_BYTES) = *(const mem_word *)(s + n - MEM_WORD_BYTES);
	while (n--)
		d[n] = s[n];
}

/* Copies n bytes from s to d; expects the ranges apart (memcpy's contract). */
static inline void mem_copy(unsigned char *d, const unsigned char *s, size_t n)
{
#ifdef arch_copy_block
	if (n >= ARCH_MEM_BLOCK_MIN) {
		arch_copy_block(d, s, n);
		return;
	}
#endif
	mem_copy_forward(d, s, n);
}

/* Sets n bytes at d to c. */
static inline void mem_fill(unsigned char *d, unsigned char c, size_t n)
{
#ifdef arch_fill_block
	if (n >= ARCH_MEM_BLOCK_MIN) {
		arch_fill_block(d, c, n);
		return;
	}
#endif
	mem_word w = MEM_BYTES_ONES * c;
	for (; n >= MEM_WORD_BYTES; n -= MEM_WORD_BYTES, d += MEM_WORD_BYTES)
		*(mem_word *)d = w;
	while (n--)
		*d++ = c;
}

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_BASE_MEM_WORDS_H */
