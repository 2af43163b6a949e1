/* Huge pages for the snapshot's large bodies: see huge_pages.h. */
#include "common/answer/huge_pages.h"

#include <linux/fcntl.h> /* AT_FDCWD, O_RDONLY, O_CLOEXEC */
#include <linux/mman.h>  /* MAP_*, PROT_NONE */

#include "common/base/char_class.h"
#include "common/base/counters.h"
#include "common/base/kernel_consts.h"
#include "common/base/sys.h"

#define HUGE_PAGE_SIZE_MIN (64u << 10) /* below it no kernel has a PMD size */

uint64_t huge_page_size(void)
{
	char text[HUGE_PAGE_SIZE_TEXT_MAX];
	long fd = sys_openat(AT_FDCWD, HUGE_PAGE_SIZE_FILE, O_RDONLY | O_CLOEXEC);
	if (sys_is_error(fd))
		return 0;
	long n = sys_read_full((int)fd, text, sizeof text);
	sys_close((int)fd);
	const char *p = text, *end = text + (sys_is_error(n) ? 0 : n);
	uint64_t v;
	if (!dec_to_u64(&p, end, &v) || p == end || *p != '\n')
		return 0;
	return v >= HUGE_PAGE_SIZE_MIN && (v & (v - 1)) == 0 ? v : 0;
}

long huge_map_aligned(uint64_t bytes, int prot, int flags, int fd, uint64_t align)
{
	if (align <= 1)
		return sys_mmap(0, bytes, prot, flags, fd, 0);
	long r = sys_mmap(0, bytes + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			  -1, 0);
	if (sys_is_error(r))
		return r;
	uint64_t start = (uint64_t)r, at = (start + align - 1) & ~(align - 1);
	long m = sys_mmap((void *)at, bytes, prot, flags | MAP_FIXED, fd, 0);
	if (sys_is_error(m)) {
		sys_munmap((void *)start, bytes + align);
		return m;
	}
	if (at > start) /* the reservation's unused ends; munmap of a range we own */
		sys_munmap((void *)start, at - start);
	if (start + align > at)
		sys_munmap((void *)(at + bytes), start + align - at);
	return m;
}

void huge_join(const char *base, uint64_t from, uint64_t to, uint64_t block)
{
	if (!block || to <= from)
		return;
	if (!sys_is_error(sys_madvise((void *)(base + from), to - from, K_MADV_COLLAPSE))) {
		counter_add(C_huge_pages_joined, (to - from) / block);
		return;
	}
	for (uint64_t at = from; at < to; at += block) {
		long r = sys_madvise((void *)(base + at), block, K_MADV_COLLAPSE);
		counter_add(sys_is_error(r) ? C_huge_pages_refused : C_huge_pages_joined, 1);
	}
}
