/* memcpy, memmove and memset for the libc-free binaries: the compiler may emit calls to
 * them for struct copies and zeroing even in freestanding code (GCC manual, "Standards":
 * "GCC requires the freestanding environment provide memcpy, memmove, memset and
 * memcmp"). Built with -fno-tree-loop-distribute-patterns so GCC cannot turn these very
 * loops back into calls to themselves. Only daemon binaries link this file. */
#include <stddef.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	while (n--)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	if (d < s) {
		while (n--)
			*d++ = *s++;
	} else {
		while (n--)
			d[n] = s[n];
	}
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	while (n--)
		*d++ = (unsigned char)c;
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
