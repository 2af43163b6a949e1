/* A file served from disk (BEHAVIOUR 10.18): beyond --cache-bytes the snapshot keeps only
 * a file's name, type and --header-for lines; each request opens the file beneath DIR
 * (common/serve/disk_open.h) and takes its length and validators from the fstat of that
 * open. Here, purely, that fstat becomes a view of the file that reads like a loaded one
 * (size, Last-Modified, ETag, its 200 head or an --error-page's head), so the same
 * decisions (file_status_of) and renderers (file_head_304, render_head_206, render_416)
 * serve both. No syscalls. */
#ifndef APOLLOD_COMMON_DISK_FILE_H
#define APOLLOD_COMMON_DISK_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "common/answer/site.h"
#include "common/answer/listing.h"
#include "common/answer/responses.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* What the fstat (statx) of a disk-served file's open said. */
struct disk_stat {
	uint64_t size;     /* bytes now */
	int64_t mtime_s;   /* the mtime's seconds (may be before 1970) */
	uint32_t mtime_ns; /* and its nanoseconds */
	uint32_t reserved;
	uint64_t inode;
};

/* The bytes disk_file_view writes: the validators, then the head. */
#define DISK_VIEW_MAX (FILE_VALIDATORS_MAX + FILE_HEAD_STORED_MAX)
/* Where in a connection's scratch the view goes: after the most a 206 or 304 head made
 * from it takes at the start (conn.c renders those at the scratch's first byte). */
#define DISK_VIEW_AT HEAD_206_MAX(FILE_HEAD_STORED_MAX)
STATIC_ASSERT(FILE_HEAD_304_MAX + PATH_FIELDS_BLOCK_MAX <= DISK_VIEW_AT &&
		      RANGE_NOT_SATISFIABLE_MAX <= DISK_VIEW_AT,
	      "a 304 or a 416 rendered at the scratch's start ends before the view");

/* Fills *view with f (FILE_ON_DISK: a file, a representation, or error page `page`, an
 * enum error_page_id, when page is not ERROR_PAGE_NONE) as st says it is now: its size, its Last-Modified (the
 * mtime's second, never before 1970 nor after now_s: RFC 9110 8.8.2.1), and at out
 * (DISK_VIEW_MAX bytes) its validators (the ETag "<size>-<mtime ns>-<inode>" with the
 * representation's suffix, as a loaded file's) and its 200 head in FILE_HEAD_FORM; for a
 * page, the head of its status with its type and --header-for lines and no validators,
 * as site_load_pages renders a loaded page's (render_page_head). view->body is NULL: the bytes are the open
 * file's. view's pointers stay in out and f's head. Pure. */
void disk_file_view(const struct cached_file *f, const struct disk_stat *st, uint64_t now_s,
		    unsigned page, char *out, struct cached_file *view);

/* The Last-Modified second st's mtime is served as: never before 1970 nor after now_s
 * (RFC 9110 8.8.2.1). Pure. */
static inline uint64_t disk_served_mtime(const struct disk_stat *st, uint64_t now_s)
{
	return st->mtime_s < 0 ? 0 : (uint64_t)st->mtime_s > now_s ? now_s : (uint64_t)st->mtime_s;
}

/* A live listing (FILE_LISTED_LIVE, BEHAVIOUR 10.14) is rendered into one buffer of this
 * many bytes: its rows (struct listing_entry each), then its validators and head
 * (DISK_VIEW_MAX), then its page. A directory whose page could take more (its rows and
 * names at their largest, LISTING_LIVE_BYTES) keeps the pages rendered at load, with the
 * sizes and times of then. 256 KiB: some 600 rows of 20-byte names. */
#define LISTING_LIVE_MAX (256u << 10)
#define LISTING_LIVE_ROWS_BYTES(rows) ((uint64_t)(rows) * sizeof(struct listing_entry))
STATIC_ASSERT(sizeof(struct listing_entry) % 8 == 0, "the view after the rows is aligned");

/* What a live listing asks of the file system for its child f (FILE_ON_DISK): fills *st
 * as disk_open's statx would and returns LIVE_STAT_OK; LIVE_STAT_GONE when f cannot be
 * opened (gone, a link swapped in): its row is left out; LIVE_STAT_BUSY when the
 * descriptor table is full (EMFILE, ENFILE): the listing is not made. ctx is the
 * caller's. */
enum live_stat { LIVE_STAT_OK = 0, LIVE_STAT_GONE = 1, LIVE_STAT_BUSY = 2 };
typedef int (*listing_stat_fn)(void *ctx, const struct cached_file *f, struct disk_stat *st);

/* Renders page (a FILE_LISTED_LIVE listing of the current site's cache, in its order)
 * into out (LISTING_LIVE_MAX bytes, 8-byte aligned) as the directory is now: each
 * FILE_ON_DISK child's size and mtime from stat (called once for each; now_s clamps the
 * mtime, disk_served_mtime), the rows sorted in the page's order, Last-Modified the
 * newest of the directory's and its rows', ETag "l-<size>-<listing_hash>" of the bytes
 * made. Fills *view as a loaded file reads (body, size, validators and 200 head in out,
 * arena FILE_ARENA_NONE, place FILE_IN_MEMORY) and returns LIVE_STAT_OK; or returns
 * LIVE_STAT_BUSY (a stat said so; *view unset). Reads the cache; no syscalls but stat's. */
enum live_stat site_live_listing(const struct cached_file *page, listing_stat_fn stat, void *ctx,
			     uint64_t now_s, char *out, struct cached_file *view);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_DISK_FILE_H */
