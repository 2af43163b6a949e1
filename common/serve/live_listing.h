/* Listings made per request (FILE_LISTED_LIVE, BEHAVIOUR 10.14): the buffers they are
 * rendered into and the statx of their disk-served rows. A listing's bytes must outlive
 * the request (they wait in the connection's queue), and no heap is used while serving:
 * each process holds LIVE_LISTING_BUFFERS buffers of LISTING_LIVE_MAX bytes in .bss
 * (struct live_listings, in the connections' shared state, conn.c's conns: touched only
 * when used), each lent to one connection until its queue is empty. */
#ifndef APOLLOD_COMMON_SERVE_LIVE_LISTING_H
#define APOLLOD_COMMON_SERVE_LIVE_LISTING_H

#include <stdint.h>

#include "common/answer/disk_file.h"
#include "common/base/config.h"

APOLLOD_EXTERN_C_BEGIN

/* Buffers per process: listings being sent at once. A fifth connection asking while four
 * are still sending theirs gets the 503 with Retry-After (listings_refused). */
#define LIVE_LISTING_BUFFERS 4

/* Who holds a buffer: the descriptor plus one (0: nobody) and its accept generation. */
struct live_holder {
	int32_t fd_plus_one;
	uint32_t gen;
};

/* The buffers and their holders. */
struct live_listings {
	char buffer[LIVE_LISTING_BUFFERS][LISTING_LIVE_MAX] __attribute__((aligned(64)));
	struct live_holder holder[LIVE_LISTING_BUFFERS];
};

/* Whether connection fd of accept generation gen still has responses queued (its
 * buffer may still be read by the kernel's copy): the connection code answers. */
typedef int (*live_sending_fn)(int fd, uint32_t gen);

/* A buffer (LISTING_LIVE_MAX bytes, 64-byte aligned) for connection fd of generation gen,
 * which has nothing queued: the one it already holds, else one whose holder is gone or
 * has sent everything (sending says), now held by fd. NULL when every buffer is held by
 * a connection still sending. No syscalls. */
char *live_listing_buffer(struct live_listings *l, int fd, uint32_t gen,
			  live_sending_fn sending);

/* listing_stat_fn for the serving loop (ctx: the uint8_t no_openat2 disk_open keeps):
 * disk_open's open and statx of f beneath the current site's DIR, then its close; each
 * counted in syscalls_total. */
int live_listing_stat(void *ctx, const struct cached_file *f, struct disk_stat *st);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_SERVE_LIVE_LISTING_H */
