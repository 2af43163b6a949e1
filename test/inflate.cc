// See inflate.h.
#include "test/inflate.h"

#include <stdint.h>
#include <stdlib.h>

#if APOLLOD_TEST_INFLATE_ZLIB
#include <zlib.h>
#else
#include <libdeflate.h>
#endif

bool InflateGzip(const void *gz, size_t gz_len, size_t expected_len, std::string *out)
{
	out->assign(expected_len + 1, '\0'); // one spare byte shows an overlong result
#if APOLLOD_TEST_INFLATE_ZLIB
	z_stream z = {};
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) // 16: a gzip wrapper
		return false;
	z.next_in = static_cast<Bytef *>(const_cast<void *>(gz));
	z.avail_in = static_cast<uInt>(gz_len);
	z.next_out = reinterpret_cast<Bytef *>(&(*out)[0]);
	z.avail_out = static_cast<uInt>(out->size());
	int r = inflate(&z, Z_FINISH);
	size_t got = z.total_out;
	bool whole = z.avail_in == 0;
	inflateEnd(&z);
	out->resize(got);
	return r == Z_STREAM_END && whole && got == expected_len;
#else
	// The daemon's code may have given libdeflate another allocator: libc's here.
	libdeflate_set_memory_allocator(malloc, free);
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	if (!d)
		return false;
	size_t in_used = 0, got = 0;
	enum libdeflate_result r = libdeflate_gzip_decompress_ex(d, gz, gz_len, &(*out)[0],
								 out->size(), &in_used, &got);
	libdeflate_free_decompressor(d);
	out->resize(got);
	return r == LIBDEFLATE_SUCCESS && in_used == gz_len && got == expected_len;
#endif
}
