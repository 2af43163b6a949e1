/* The deadline unit's state, set-up and the two questions that look at every queue (see
 * deadline.h). Linked only by tiers with deadlines. */
#include "common/serve/deadline.h"

#if !APOLLOD_HAVE_DEADLINES
#error "deadline.c is linked only by tiers with deadlines"
#endif

struct deadline_state deadline_state;

void deadline_init(const uint64_t *auxv, const uint64_t timeout_ms[DEADLINE_KINDS])
{
	(void)auxv; /* daemon_main found the vDSO clock already (clock_init) */
	for (int k = 0; k < DEADLINE_KINDS; k++)
		deadline_queue_init(&deadline_state.queue[k], timeout_ms[k]);
	for (int s = 0; s < DEADLINE_SLOTS; s++)
		deadline_state.kind_of[s] = DEADLINE_UNQUEUED;
	deadline_tick();
}

int deadline_wait_ms(void)
{
	int wait = -1;
	for (int k = 0; k < DEADLINE_KINDS; k++) {
		int w = deadline_queue_wait_ms(&deadline_state.queue[k], deadline_state.now_ms);
		if (w >= 0 && (wait < 0 || w < wait))
			wait = w;
	}
	return wait;
}

int deadline_next_expired(void)
{
	int slot = DEADLINE_NONE;
	uint64_t earliest = 0;
	for (int k = 0; k < DEADLINE_KINDS; k++) {
		const struct deadline_queue *q = &deadline_state.queue[k];
		int s = deadline_queue_expired(q, deadline_state.now_ms);
		if (s != DEADLINE_QUEUE_NONE &&
		    (slot == DEADLINE_NONE || q->node[s].expires_ms < earliest)) {
			slot = s;
			earliest = q->node[s].expires_ms;
		}
	}
	return slot;
}
