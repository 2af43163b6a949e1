/* The idle unit: every connection's deadline, and the clock that drives it. The loop and
 * the connection code call these and never test a tier's configuration; this header is
 * the one place outside the deadline queue and the clock that does.
 *
 * With deadlines (APOLLOD_HAVE_DEADLINES): a FIFO of connections ordered by their last
 * progress (deadline.h), and monotonic time from the vDSO (clock.h), read once per loop
 * iteration. Without them (the nodeadline tier) every call below is an empty inline that
 * the compiler removes, and neither the queue nor the clock is linked: the way the Linux
 * kernel's coding style stubs out a configuration (section 21, conditional compilation).
 *
 * A slot is the connection's descriptor, 0 <= slot < DEADLINE_SLOTS. */
#ifndef APOLLOD_COMMON_IDLE_H
#define APOLLOD_COMMON_IDLE_H

#include <stdint.h>

#include "common/config.h"
#include "common/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define IDLE_NONE (-1) /* idle_next_expired: nothing has expired */

#if APOLLOD_HAVE_DEADLINES

#include "common/clock.h"
#include "common/deadline.h"

#define IDLE_SLOTS DEADLINE_SLOTS /* slots the unit can track */

/* The unit's state: the queue and the time of this loop iteration. */
struct idle_state {
	uint64_t now_ms; /* CLOCK_MONOTONIC, read by idle_tick() */
	struct deadline_queue queue;
};
extern struct idle_state idle_state;

/* Finds the vDSO clock through auxv (may be NULL), empties the queue and sets every
 * deadline's length to idle_ms. Reads the clock once. */
void idle_init(const uint64_t *auxv, uint64_t idle_ms);

/* Reads the clock: once per loop iteration, after the wait. */
static inline void idle_tick(void)
{
	idle_state.now_ms = clock_now_ms();
}

/* A new connection on slot: its deadline starts now. */
static inline void idle_arm(int slot)
{
	deadline_arm(&idle_state.queue, slot, idle_state.now_ms);
}

/* Bytes moved on slot's connection: its deadline starts again now. */
static inline void idle_touch(int slot)
{
	deadline_touch(&idle_state.queue, slot, idle_state.now_ms);
}

/* slot's connection is closing: it has no deadline any more. */
static inline void idle_cancel(int slot)
{
	deadline_cancel(&idle_state.queue, slot);
}

/* How long the loop may wait before the earliest deadline passes: milliseconds, 0 if one
 * already has, or -1 when no connection is open (wait forever). */
static inline int idle_wait_ms(void)
{
	return deadline_wait_ms(&idle_state.queue, idle_state.now_ms);
}

/* The slot whose deadline has passed, or IDLE_NONE. It stays queued: the caller closes it
 * (which cancels it) and asks again. */
static inline int idle_next_expired(void)
{
	return deadline_expired(&idle_state.queue, idle_state.now_ms);
}

STATIC_ASSERT(DEADLINE_NONE == IDLE_NONE, "one 'no slot' value");

#else /* !APOLLOD_HAVE_DEADLINES: no deadlines, no clock, nothing linked */

#define IDLE_SLOTS INT32_MAX /* nothing is tracked, so any slot will do */

static inline void idle_init(const uint64_t *auxv, uint64_t idle_ms)
{
	(void)auxv;
	(void)idle_ms;
}
static inline void idle_tick(void) {}
static inline void idle_arm(int slot) { (void)slot; }
static inline void idle_touch(int slot) { (void)slot; }
static inline void idle_cancel(int slot) { (void)slot; }
static inline int idle_wait_ms(void) { return -1; }
static inline int idle_next_expired(void) { return IDLE_NONE; }

#endif /* APOLLOD_HAVE_DEADLINES */

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_IDLE_H */
