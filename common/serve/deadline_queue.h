/* One deadline queue: every slot in it has the same timeout, so ordering slots by the
 * time they were armed also orders them by deadline: a FIFO. The deadline unit keeps one per
 * kind of deadline (deadline.h). An intrusive
 * doubly linked list over slot indices gives O(1) arm, re-arm (move to the tail), cancel
 * and expiry (pop the head), with no syscall: the event loop's epoll_wait timeout is the
 * time left until the head's deadline. Pure: no syscalls; time comes from the caller. */
#ifndef APOLLOD_COMMON_DEADLINE_QUEUE_H
#define APOLLOD_COMMON_DEADLINE_QUEUE_H

#include <stdint.h>

#include "common/base/limits.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define DEADLINE_QUEUE_SLOTS CONN_SLOTS /* one node per connection slot */
#define DEADLINE_QUEUE_NONE (-1)  /* an empty link */

/* One slot's place in the queue. */
struct deadline_node {
	uint64_t expires_ms; /* monotonic ms at which the connection times out */
	int32_t prev;        /* towards the head (earlier deadline), or DEADLINE_QUEUE_NONE */
	int32_t next;        /* towards the tail (later deadline), or DEADLINE_QUEUE_NONE */
};
STATIC_ASSERT(sizeof(struct deadline_node) == 16, "nodes pack four to a cache line");

struct deadline_queue {
	int32_t head;        /* earliest deadline, or DEADLINE_QUEUE_NONE */
	int32_t tail;        /* latest deadline, or DEADLINE_QUEUE_NONE */
	uint64_t timeout_ms; /* the timeout every deadline in this queue is armed with */
	struct deadline_node node[DEADLINE_QUEUE_SLOTS];
};

/* Empties q and sets its timeout. */
void deadline_queue_init(struct deadline_queue *q, uint64_t timeout_ms);

/* Appends slot (0 <= slot < DEADLINE_QUEUE_SLOTS, not queued) with deadline now_ms + timeout_ms.
 * now_ms must not be smaller than any earlier call's: that is what keeps the FIFO sorted. */
void deadline_queue_arm(struct deadline_queue *q, int32_t slot, uint64_t now_ms);

/* Removes slot (which must be queued) from q. */
void deadline_queue_cancel(struct deadline_queue *q, int32_t slot);

/* Re-arms a queued slot: moves it to the tail with deadline now_ms + timeout_ms. */
void deadline_queue_touch(struct deadline_queue *q, int32_t slot, uint64_t now_ms);

/* Milliseconds from now_ms until the head expires (0 if it already has), or -1 when the
 * queue is empty: exactly the timeout argument epoll_wait wants. Capped at INT32_MAX. */
int32_t deadline_queue_wait_ms(const struct deadline_queue *q, uint64_t now_ms);

/* Returns the head slot if its deadline is <= now_ms, without removing it; otherwise
 * DEADLINE_QUEUE_NONE. The caller cancels (closes) it and asks again. */
int32_t deadline_queue_expired(const struct deadline_queue *q, uint64_t now_ms);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_DEADLINE_QUEUE_H */
