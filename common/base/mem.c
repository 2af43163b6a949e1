/* memcpy, memmove and memset for the libc-free binaries: the compiler may emit calls to
 * them for struct copies and zeroing even in freestanding code (GCC manual, "Standards":
 * "GCC requires the freestanding environment provide memcpy, memmove, memset and
 * memcmp"), and Debian's libdeflate.a calls them for its match copies and buffers. A
 * word at a time, with the cpu's block instruction for large ones (mem_words.h). Built
 * with -fno-tree-loop-distribute-patterns so GCC cannot turn these very loops back into
 * calls to themselves. Only daemon binaries link this file. */
#include <stddef.h>

#include "common/base/mem_words.h"

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	mem_copy(dst, src, n);
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	if (d <= s || d >= s + n)
		mem_copy_forward(d, s, n);
	else
		mem_copy_backward(d, s, n);
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	mem_fill(dst, (unsigned char)c, n);
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] - y[i];
	return 0;
}
