/* One deadline FIFO (see deadline_queue.h). */
#include "common/serve/deadline_queue.h"

#define INT32_MAX_MS 2147483647

void deadline_queue_init(struct deadline_queue *q, uint64_t timeout_ms)
{
	q->head = DEADLINE_QUEUE_NONE;
	q->tail = DEADLINE_QUEUE_NONE;
	q->timeout_ms = timeout_ms;
}

void deadline_queue_arm(struct deadline_queue *q, int32_t slot, uint64_t now_ms)
{
	struct deadline_node *n = &q->node[slot];
	n->expires_ms = now_ms + q->timeout_ms;
	n->next = DEADLINE_QUEUE_NONE;
	n->prev = q->tail;
	if (q->tail != DEADLINE_QUEUE_NONE)
		q->node[q->tail].next = slot;
	else
		q->head = slot;
	q->tail = slot;
}

void deadline_queue_cancel(struct deadline_queue *q, int32_t slot)
{
	struct deadline_node *n = &q->node[slot];
	if (n->prev != DEADLINE_QUEUE_NONE)
		q->node[n->prev].next = n->next;
	else
		q->head = n->next;
	if (n->next != DEADLINE_QUEUE_NONE)
		q->node[n->next].prev = n->prev;
	else
		q->tail = n->prev;
	n->prev = DEADLINE_QUEUE_NONE;
	n->next = DEADLINE_QUEUE_NONE;
}

void deadline_queue_touch(struct deadline_queue *q, int32_t slot, uint64_t now_ms)
{
	if (q->tail == slot) { /* already last: only the time moves */
		q->node[slot].expires_ms = now_ms + q->timeout_ms;
		return;
	}
	deadline_queue_cancel(q, slot);
	deadline_queue_arm(q, slot, now_ms);
}

int32_t deadline_queue_wait_ms(const struct deadline_queue *q, uint64_t now_ms)
{
	if (q->head == DEADLINE_QUEUE_NONE)
		return -1;
	uint64_t expires = q->node[q->head].expires_ms;
	if (expires <= now_ms)
		return 0;
	uint64_t left = expires - now_ms;
	return left > INT32_MAX_MS ? INT32_MAX_MS : (int32_t)left;
}

int32_t deadline_queue_expired(const struct deadline_queue *q, uint64_t now_ms)
{
	if (q->head != DEADLINE_QUEUE_NONE && q->node[q->head].expires_ms <= now_ms)
		return q->head;
	return DEADLINE_QUEUE_NONE;
}
