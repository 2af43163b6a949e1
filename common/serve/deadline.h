/* The deadline unit: every connection's deadline, and the clock that drives it. The loop and
 * the connection code call these and never test a tier's configuration; this header is
 * the one place outside the deadline queues and the clock that does.
 *
 * Three kinds of deadline (BEHAVIOUR 5), each with its own fixed length, so each kind is a
 * FIFO (deadline_queue.h) that stays sorted by itself; a slot sits in at most one of them. The
 * loop waits until the earliest of the three heads. Monotonic time comes from the vDSO
 * (clock.h), read once per loop iteration. Without deadlines (the nodeadline tier) every
 * call below is an empty inline that the compiler removes, and the queues are not linked
 * (the clock is: the Date field reads it, date_field.h): the way the Linux kernel's coding style stubs out a configuration
 * (section 21, conditional compilation).
 *
 * A slot is the connection's descriptor, 0 <= slot < DEADLINE_QUEUE_SLOTS. */
#ifndef APOLLOD_COMMON_DEADLINE_H
#define APOLLOD_COMMON_DEADLINE_H

#include <stdint.h>

#include "common/base/config.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define DEADLINE_NONE (-1) /* deadline_next_expired, deadline_oldest_waiting: no such slot */

/* The kinds of deadline; a connection's state decides which one it is under (conn.c). */
enum deadline_kind {
	DEADLINE_WAITING = 0, /* from accept, between requests, lingering: --idle-timeout */
	DEADLINE_HEAD = 1,    /* inside a head or a skipped body: --header-timeout, not moved by
			   * progress */
	DEADLINE_SEND = 2,    /* a response waits for the client: --send-timeout, moved by each
			   * byte sent */
	DEADLINE_KINDS = 3
};

#if APOLLOD_HAVE_DEADLINES

#include "common/base/clock.h"
#include "common/serve/deadline_queue.h"

#define DEADLINE_SLOTS DEADLINE_QUEUE_SLOTS /* slots the unit can track */
#define DEADLINE_UNQUEUED 0xff        /* deadline_state.kind_of: the slot is in no queue */

/* The unit's state: one queue per kind, which queue each slot is in, and the time of this
 * loop iteration. */
struct deadline_state {
	uint64_t now_ms; /* CLOCK_MONOTONIC, read by deadline_tick() */
	struct deadline_queue queue[DEADLINE_KINDS];
	uint8_t kind_of[DEADLINE_SLOTS]; /* enum deadline_kind, or DEADLINE_UNQUEUED */
};
extern struct deadline_state deadline_state;

/* Expects clock_init to have run (daemon_main). auxv is unused (kept for the stub's
 * shape). Empties the queues and sets the length of each kind's deadlines,
 * timeout_ms[kind] (milliseconds, > 0). Reads the clock once. */
void deadline_init(const uint64_t *auxv, const uint64_t timeout_ms[DEADLINE_KINDS]);

/* Reads the clock: once per loop iteration, after the wait. */
static inline void deadline_tick(void)
{
	deadline_state.now_ms = clock_now_ms();
}

/* slot's connection is closing: it has no deadline any more. Any slot may be passed. */
static inline void deadline_cancel(int slot)
{
	uint8_t kind = deadline_state.kind_of[slot];
	if (kind == DEADLINE_UNQUEUED)
		return;
	deadline_queue_cancel(&deadline_state.queue[kind], slot);
	deadline_state.kind_of[slot] = DEADLINE_UNQUEUED;
}

/* slot's deadline of this kind starts now; it leaves the queue it was in, if any. */
static inline void deadline_arm(int slot, enum deadline_kind kind)
{
	deadline_cancel(slot);
	deadline_queue_arm(&deadline_state.queue[kind], slot, deadline_state.now_ms);
	deadline_state.kind_of[slot] = (uint8_t)kind;
}

/* Bytes of a response left (kind DEADLINE_SEND): slot's deadline starts again now. */
static inline void deadline_touch(int slot)
{
	deadline_queue_touch(&deadline_state.queue[deadline_state.kind_of[slot]], slot,
			     deadline_state.now_ms);
}

/* How long the loop may wait before the earliest deadline of any kind passes:
 * milliseconds, 0 if one already has, or -1 when no slot is queued (wait forever). */
int deadline_wait_ms(void);

/* A slot whose deadline has passed (the earliest such), or DEADLINE_NONE. It stays queued:
 * the caller closes or re-arms it, then asks again. */
int deadline_next_expired(void);

/* The slot that has waited longest under DEADLINE_WAITING (deadline passed or not), or
 * DEADLINE_NONE: the one to evict when a new connection needs room. */
static inline int deadline_oldest_waiting(void)
{
	return deadline_state.queue[DEADLINE_WAITING].head;
}

/* The slot that has waited longest after slot under DEADLINE_WAITING, or DEADLINE_NONE. */
static inline int deadline_next_waiting(int slot)
{
	return deadline_state.queue[DEADLINE_WAITING].node[slot].next;
}

STATIC_ASSERT(DEADLINE_QUEUE_NONE == DEADLINE_NONE, "one 'no slot' value");
STATIC_ASSERT(DEADLINE_KINDS < DEADLINE_UNQUEUED, "a kind fits kind_of's byte");

#else /* !APOLLOD_HAVE_DEADLINES: no deadlines, no clock, nothing linked */

#define DEADLINE_SLOTS INT32_MAX /* nothing is tracked, so any slot will do */

static inline void deadline_init(const uint64_t *auxv, const uint64_t timeout_ms[DEADLINE_KINDS])
{
	(void)auxv;
	(void)timeout_ms;
}
static inline void deadline_tick(void) {}
static inline void deadline_arm(int slot, enum deadline_kind kind)
{
	(void)slot;
	(void)kind;
}
static inline void deadline_touch(int slot) { (void)slot; }
static inline void deadline_cancel(int slot) { (void)slot; }
static inline int deadline_wait_ms(void) { return -1; }
static inline int deadline_next_expired(void) { return DEADLINE_NONE; }
static inline int deadline_oldest_waiting(void) { return DEADLINE_NONE; }
static inline int deadline_next_waiting(int slot) { (void)slot; return DEADLINE_NONE; }

#endif /* APOLLOD_HAVE_DEADLINES */

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_DEADLINE_H */
