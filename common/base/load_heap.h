/* The load-time heap: the one malloc/free of the daemon, for Debian's libdeflate (which
 * calls them through the renames in third_party/libdeflate/BUILD) while the snapshot
 * loader compresses. One anonymous mapping, opened before the first compression and
 * unmapped after the last, before the process serves: nothing is allocated while
 * serving (BEHAVIOUR 1). A bump allocator: free gives back only the latest block, which
 * is all one compressor's allocate-use-free needs; the rest goes at close. */
#ifndef APOLLOD_COMMON_BASE_LOAD_HEAP_H
#define APOLLOD_COMMON_BASE_LOAD_HEAP_H

#include <stddef.h>

#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* libdeflate 1.14 asks 9,009,543 bytes for a compressor at levels 10 to 12 and 668,295
 * below (measured with a counting allocator); with alignment slack this holds either. */
#define LOAD_HEAP_BYTES (16u * 1024u * 1024u)
#define LOAD_HEAP_ALIGN 64u /* a cache line: libdeflate asks 64-byte aligned blocks */
STATIC_ASSERT((LOAD_HEAP_ALIGN & (LOAD_HEAP_ALIGN - 1)) == 0, "a power of two");

/* Maps the heap (MAP_NORESERVE: only touched pages cost memory). Returns 0, or the
 * negative errno of mmap. Opening an open heap empties it. */
long load_heap_open(void);

/* Unmaps the heap; allocations fail until the next open. */
void load_heap_close(void);

/* malloc: n bytes aligned to LOAD_HEAP_ALIGN, or NULL when the heap is closed or full. */
void *load_heap_alloc(size_t n);

/* free: gives the block back when it is the latest one; NULL and others are ignored. */
void load_heap_free(void *p);

/* Bytes in use now (the unit tests check a compressor gives them all back). */
size_t load_heap_used(void);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_BASE_LOAD_HEAP_H */
