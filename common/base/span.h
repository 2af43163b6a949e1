/* Byte spans: compare and copy without libc. Pure routines, no syscalls. The asm-hotpath
 * tier provides the same symbols in assembly; both are tested by the same tables. */
#ifndef APOLLOD_COMMON_SPAN_H
#define APOLLOD_COMMON_SPAN_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* Returns 1 when the n bytes at a equal the n bytes at b, else 0. n may be 0 (equal).
 * Reads exactly n bytes from each side and nothing beyond. */
int span_eq(const char *a, const char *b, size_t n);

/* Returns 1 when the n bytes at a equal the n bytes at b after folding ASCII A-Z to a-z
 * on both sides, else 0. Bytes outside A-Z compare exactly. Reads exactly n bytes each. */
int span_ieq(const char *a, const char *b, size_t n);

/* Copies n bytes from src to dst (the ranges must not overlap) and returns dst + n. */
char *copy_span(char *dst, const char *src, size_t n);

/* A piece of text and its length. */
struct text_span {
	const char *text;
	uint32_t len;
};

/* A string literal as the (pointer, length) pair the span routines take. */
#define LITERAL(s) s, (sizeof(s) - 1)

/* Length of the NUL-terminated string s (strlen without libc). Not on any hot path. */
static inline size_t cstr_len(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

/* Longest decimal form of a uint64_t: 18446744073709551615. */
#define U64_DEC_MAX 20

/* Writes v in decimal ASCII at out (no sign, no leading zeros, no terminator) and returns
 * the digit count, 1..U64_DEC_MAX. out must have room for U64_DEC_MAX bytes; only the
 * returned count is written. */
size_t u64_to_dec(uint64_t v, char *out);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_SPAN_H */
