/* The idle unit's state, set-up and the two questions that look at every queue (see
 * idle.h). Linked only by tiers with deadlines. */
#include "common/serve/idle.h"

#if !APOLLOD_HAVE_DEADLINES
#error "idle.c is linked only by tiers with deadlines"
#endif

struct idle_state idle_state;

void idle_init(const uint64_t *auxv, const uint64_t timeout_ms[IDLE_KINDS])
{
	(void)auxv; /* daemon_main found the vDSO clock already (clock_init) */
	for (int k = 0; k < IDLE_KINDS; k++)
		deadline_init(&idle_state.queue[k], timeout_ms[k]);
	for (int s = 0; s < IDLE_SLOTS; s++)
		idle_state.kind_of[s] = IDLE_UNQUEUED;
	idle_tick();
}

int idle_wait_ms(void)
{
	int wait = -1;
	for (int k = 0; k < IDLE_KINDS; k++) {
		int w = deadline_wait_ms(&idle_state.queue[k], idle_state.now_ms);
		if (w >= 0 && (wait < 0 || w < wait))
			wait = w;
	}
	return wait;
}

int idle_next_expired(void)
{
	int slot = IDLE_NONE;
	uint64_t earliest = 0;
	for (int k = 0; k < IDLE_KINDS; k++) {
		const struct deadline_queue *q = &idle_state.queue[k];
		int s = deadline_expired(q, idle_state.now_ms);
		if (s != DEADLINE_NONE && (slot == IDLE_NONE || q->node[s].expires_ms < earliest)) {
			slot = s;
			earliest = q->node[s].expires_ms;
		}
	}
	return slot;
}
