/* gzip at load through libdeflate (see compress.h). */
#include "common/answer/compress.h"

#include <libdeflate.h>

#include "common/base/load_heap.h"

/* The one compressor, between compress_begin and compress_end. */
static struct libdeflate_compressor *compressor;

int compress_begin(int level)
{
	compress_end();
	if (level < COMPRESS_LEVEL_MIN || level > COMPRESS_LEVEL_MAX || load_heap_open() < 0)
		return -1;
	/* The daemon's archive already calls these for malloc and free (its renames);
	 * a host build with libc gets the same heap this way. */
	libdeflate_set_memory_allocator(load_heap_alloc, load_heap_free);
	compressor = libdeflate_alloc_compressor(level);
	if (!compressor) {
		load_heap_close();
		return -1;
	}
	return 0;
}

void compress_end(void)
{
	if (compressor)
		libdeflate_free_compressor(compressor);
	compressor = 0;
	load_heap_close();
}

size_t compress_gzip_cap(size_t len)
{
	if (len < COMPRESS_MIN_BYTES)
		return 0;
	return len - (len + COMPRESS_SAVE_DIVISOR - 1) / COMPRESS_SAVE_DIVISOR;
}

size_t compress_gzip(const void *in, size_t len, void *out, size_t cap)
{
	size_t most = compress_gzip_cap(len);
	if (!compressor || most == 0)
		return 0;
	return libdeflate_gzip_compress(compressor, in, len, out, cap < most ? cap : most);
}
