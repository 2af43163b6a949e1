/* gzip at load through libdeflate (see compress.h). The library keeps state of its own,
 * which test/state_allowlist.txt lists as kind linked: libdeflate_malloc_func and
 * libdeflate_free_func (the allocator compress_begin sets), crc32_impl and
 * libdeflate_x86_cpu_features or libdeflate_arm_cpu_features (its CPU probe's). */
#include "common/answer/compress.h"

#include <libdeflate.h>

#include "common/base/load_heap.h"

struct libdeflate_compressor *compress_begin(int level)
{
	if (level < COMPRESS_LEVEL_MIN || level > COMPRESS_LEVEL_MAX || load_heap_open() < 0)
		return 0;
	/* The daemon's archive already calls these for malloc and free (its renames);
	 * a host build with libc gets the same heap this way. */
	libdeflate_set_memory_allocator(load_heap_alloc, load_heap_free);
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
	if (!c)
		load_heap_close();
	return c;
}

void compress_end(struct libdeflate_compressor *c)
{
	if (c)
		libdeflate_free_compressor(c);
	load_heap_close();
}

size_t compress_gzip_cap(size_t len)
{
	if (len < COMPRESS_MIN_BYTES)
		return 0;
	return len - (len + COMPRESS_SAVE_DIVISOR - 1) / COMPRESS_SAVE_DIVISOR;
}

size_t compress_gzip(struct libdeflate_compressor *c, const void *in, size_t len, void *out,
		     size_t cap)
{
	size_t most = compress_gzip_cap(len);
	if (!c || most == 0)
		return 0;
	return libdeflate_gzip_compress(c, in, len, out, cap < most ? cap : most);
}
