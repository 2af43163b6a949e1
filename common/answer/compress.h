/* gzip representations made at load (BEHAVIOUR 10.10): Debian's libdeflate behind one
 * contract, so the loader asks only "this file's gzip bytes, or not worth it". One
 * compressor at a time, over the load-time heap (common/base/load_heap.h): begin before
 * the first file, end before serving; the caller holds it (no state here). Which types
 * are compressed is mime_types.h's type_is_compressible. */
#ifndef APOLLOD_COMMON_ANSWER_COMPRESS_H
#define APOLLOD_COMMON_ANSWER_COMPRESS_H

#include <stddef.h>

#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define COMPRESS_MIN_BYTES 256u    /* smaller files are sent as stored */
#define COMPRESS_SAVE_DIVISOR 20u  /* the result must save at least 1/20th: 5% */
#define COMPRESS_LEVEL_MIN 1
#define COMPRESS_LEVEL_MAX 12      /* libdeflate's levels */
#define COMPRESS_LEVEL_DEFAULT 7   /* the lowest that sends fewer bytes than nginx level 6:
				    * benchmarks/reports/2026-12-06-compress-handover.md */
STATIC_ASSERT(COMPRESS_LEVEL_MIN <= COMPRESS_LEVEL_DEFAULT &&
		      COMPRESS_LEVEL_DEFAULT <= COMPRESS_LEVEL_MAX,
	      "the default is a level");

struct libdeflate_compressor;

/* Opens the load-time heap and makes a compressor for level (COMPRESS_LEVEL_MIN..MAX).
 * Returns it, or NULL when the level is out of range or the heap could not be mapped or
 * held it (compression is then off for this load; nothing is left allocated). */
struct libdeflate_compressor *compress_begin(int level);

/* Frees c (NULL: nothing) and unmaps the heap; nothing of either remains. */
void compress_end(struct libdeflate_compressor *c);

/* The most bytes a gzip representation of len bytes may take: less than len by at least
 * a twentieth (rounded up), so that a result that fits saves at least 5%. 0 below
 * COMPRESS_MIN_BYTES. */
size_t compress_gzip_cap(size_t len);

/* Compresses in[0..len) with c into out[0..cap) as one gzip member (RFC 1952: no name,
 * mtime 0, so the same bytes always give the same representation). Returns its length,
 * or 0 for "not worth it": c is NULL, len is below COMPRESS_MIN_BYTES, or the result
 * does not fit in min(cap, compress_gzip_cap(len)) (libdeflate wants a few bytes of
 * room past what it writes, so a result that just fits may be refused too: it saves
 * under 5% and a bit). Writes only out[0..cap). */
size_t compress_gzip(struct libdeflate_compressor *c, const void *in, size_t len, void *out,
		     size_t cap);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_ANSWER_COMPRESS_H */
