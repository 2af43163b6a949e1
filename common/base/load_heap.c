/* The load-time heap (see load_heap.h). */
#include "common/base/load_heap.h"

#include <linux/mman.h> /* PROT_*, MAP_* */
#include <stdint.h>

#include "common/base/sys.h"

/* The heap: its mapping, the bump offset, and where the latest block starts. */
static struct {
	unsigned char *base; /* NULL while closed */
	size_t used;
	size_t latest;
} heap;

long load_heap_open(void)
{
	if (heap.base) {
		heap.used = heap.latest = 0;
		return 0;
	}
	long m = sys_mmap(0, LOAD_HEAP_BYTES, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (sys_is_error(m))
		return m;
	heap.base = (unsigned char *)m;
	heap.used = heap.latest = 0;
	return 0;
}

void load_heap_close(void)
{
	if (heap.base)
		sys_munmap(heap.base, LOAD_HEAP_BYTES);
	heap.base = 0;
	heap.used = heap.latest = 0;
}

void *load_heap_alloc(size_t n)
{
	size_t at = (heap.used + LOAD_HEAP_ALIGN - 1) & ~(size_t)(LOAD_HEAP_ALIGN - 1);
	if (!heap.base || n > LOAD_HEAP_BYTES || at > LOAD_HEAP_BYTES - n)
		return 0;
	heap.latest = heap.used;
	heap.used = at + n;
	return heap.base + at;
}

void load_heap_free(void *p)
{
	if (!p || !heap.base)
		return;
	size_t at = (heap.latest + LOAD_HEAP_ALIGN - 1) & ~(size_t)(LOAD_HEAP_ALIGN - 1);
	if ((unsigned char *)p == heap.base + at) {
		heap.used = heap.latest;
		heap.latest = 0; /* one step back only: older blocks go at close */
	}
}

size_t load_heap_used(void)
{
	return heap.used;
}
