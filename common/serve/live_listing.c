/* Listings made per request: buffers and stats (see live_listing.h). */
#include "common/serve/live_listing.h"

#include "common/base/counters.h"
#include "common/base/sys.h"
#include "common/serve/disk_open.h"

char *live_listing_buffer(struct live_listings *l, int fd, uint32_t gen,
			  live_sending_fn sending)
{
	int free_at = -1;
	for (int i = 0; i < LIVE_LISTING_BUFFERS; i++) {
		const struct live_holder *h = &l->holder[i];
		if (h->fd_plus_one == fd + 1 && h->gen == gen)
			return l->buffer[i]; /* its own: nothing of it is queued */
		if (free_at < 0 && (h->fd_plus_one == 0 || !sending(h->fd_plus_one - 1, h->gen)))
			free_at = i;
	}
	if (free_at < 0)
		return 0;
	l->holder[free_at] = (struct live_holder){fd + 1, gen};
	return l->buffer[free_at];
}

int live_listing_stat(void *ctx, const struct cached_file *f, struct disk_stat *st)
{
	long file = disk_open(site_root_fd(), f, st, (uint8_t *)ctx);
	if (file == -EMFILE || file == -ENFILE)
		return LIVE_STAT_BUSY;
	if (sys_is_error(file))
		return LIVE_STAT_GONE;
	counter_add(C_syscalls_total, 1);
	sys_close((int)file);
	return LIVE_STAT_OK;
}
