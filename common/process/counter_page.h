/* The counter page the resident supervisor owns (BEHAVIOUR 7, 17): a memfd of one page
 * (COUNTERS_PAGE) mapped over the counter block (counters.h) before the first generation
 * forks, so every generation, worker and the supervisor add to the same words, and
 * passed to each generation a reload or an upgrade starts (descriptor number in
 * COUNTER_PAGE_ENV), which maps it over its own block at start-up. Counters therefore
 * run on across reloads, upgrades and restarts for the service's life. */
#ifndef APOLLOD_COMMON_PROCESS_COUNTER_PAGE_H
#define APOLLOD_COMMON_PROCESS_COUNTER_PAGE_H

#include <stdint.h>

#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define COUNTER_PAGE_NAME "apollod-counters" /* the memfd's name (/proc/PID/fd links) */
#define COUNTER_PAGE_ENV "APOLLOD_COUNTERS_FD=" /* a generation's counter page descriptor */

/* In the resident supervisor, before the first generation forks: a new page holding the
 * block's values so far, mapped over the block (MAP_SHARED | MAP_FIXED), its header
 * written and start_time_seconds set to now. Returns its descriptor (close-on-exec),
 * or -errno (the block is then unchanged). */
long counter_page_create(void);

/* In a generation started by exec, first thing: maps the page COUNTER_PAGE_ENV names
 * over the block and closes the descriptor. A page whose header is another layout's is
 * cleared and given this binary's header, with one line ("counters: ... starting
 * afresh"); a matching one keeps every value. Nothing without the variable, or when the
 * mapping fails (one line: this generation then counts alone). */
void counter_page_adopt(char **envp);

/* Replaces the counter block's page with a shared anonymous mapping holding the same
 * values, so every process forked afterwards adds to the same counters (--workers
 * without a supervisor's page). Nothing when the block is the supervisor's page
 * already (a fork shares it). Returns 0 or -errno (the block is then unchanged). */
long counters_share(void);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_PROCESS_COUNTER_PAGE_H */
