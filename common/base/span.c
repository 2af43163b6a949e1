/* Reference C implementations of the span and number routines (see span.h). */
#include "common/base/span.h"

#include "common/base/mem_words.h"

int span_eq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/* Folds one byte: A-Z to a-z, everything else unchanged. */
static inline unsigned char ascii_lower(unsigned char c)
{
	return (unsigned char)(c - 'A') < 26 ? (unsigned char)(c | 0x20) : c;
}

int span_ieq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ascii_lower((unsigned char)a[i]) != ascii_lower((unsigned char)b[i]))
			return 0;
	return 1;
}

/* A word at a time (mem_words.h): the heads and names the loader renders go through it,
 * and a byte loop was a twentieth of the whole tree's load
 * (benchmarks/reports/2026-12-06-loader.md). */
char *copy_span(char *dst, const char *src, size_t n)
{
	mem_copy_forward((unsigned char *)dst, (const unsigned char *)src, n);
	return dst + n;
}

size_t u64_to_dec(uint64_t v, char *out)
{
	/* Count the digits first so the number is written in place, back to front, with no
	 * scratch buffer and no final copy. */
	size_t digits = 1;
	for (uint64_t rest = v; rest >= 10; rest /= 10)
		digits++;
	for (size_t i = digits; i-- > 0; v /= 10)
		out[i] = (char)('0' + v % 10);
	return digits;
}
