/* The restart backoff of the resident supervisor and of --workers' supervisor (BEHAVIOUR
 * 12, 17): a process that dies is started again BACKOFF_FIRST_MS later, twice as long
 * after each death that follows (BACKOFF_MAX_MS at most), and BACKOFF_FIRST_MS again once
 * one has run BACKOFF_HEALTHY_MS since its start. Times are clock_now_ms. */
#ifndef APOLLOD_COMMON_PROCESS_BACKOFF_H
#define APOLLOD_COMMON_PROCESS_BACKOFF_H

#include <stdint.h>

#include "common/base/kernel_consts.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define BACKOFF_FIRST_MS 10u
#define BACKOFF_MAX_MS 5000u
#define BACKOFF_HEALTHY_MS 30000u
#define BACKOFF_NS_PER_MS 1000000u
#define BACKOFF_MS_PER_S 1000u

/* One supervisor's backoff; zero is "nothing scheduled, no death yet". */
struct backoff {
	uint64_t next_ms;  /* the next restart's wait (0: none yet) */
	uint64_t due_ms;   /* a restart is due then, 0 when none is */
	uint64_t since_ms; /* when the last start became healthy-counting (0: none) */
};

/* A start at now: health counts from here. */
static inline void backoff_started(struct backoff *b, uint64_t now)
{
	b->since_ms = now;
}

/* A death at now: schedules the restart and returns its wait in ms. */
static inline uint64_t backoff_schedule(struct backoff *b, uint64_t now)
{
	if (!b->next_ms || (b->since_ms && now - b->since_ms >= BACKOFF_HEALTHY_MS))
		b->next_ms = BACKOFF_FIRST_MS;
	uint64_t wait = b->next_ms;
	b->since_ms = 0;
	b->due_ms = now + wait;
	b->next_ms = wait * 2 < BACKOFF_MAX_MS ? wait * 2 : BACKOFF_MAX_MS;
	return wait;
}

/* Whether the scheduled restart is due at now; if so it is no longer scheduled. */
static inline int backoff_due(struct backoff *b, uint64_t now)
{
	if (!b->due_ms || now < b->due_ms)
		return 0;
	b->due_ms = 0;
	return 1;
}

/* The wait until the scheduled restart as a ppoll timeout in *t. Returns t, or NULL when
 * none is scheduled (wait without a bound). */
static inline struct k_timespec *backoff_timeout(const struct backoff *b, uint64_t now,
						  struct k_timespec *t)
{
	if (!b->due_ms)
		return 0;
	uint64_t wait = b->due_ms > now ? b->due_ms - now : 0;
	t->tv_sec = (int64_t)(wait / BACKOFF_MS_PER_S);
	t->tv_nsec = (int64_t)(wait % BACKOFF_MS_PER_S) * BACKOFF_NS_PER_MS;
	return t;
}

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_PROCESS_BACKOFF_H */
