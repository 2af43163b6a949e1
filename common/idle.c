/* The idle unit's state and set-up (see idle.h). Linked only by tiers with deadlines. */
#include "common/idle.h"

#if !APOLLOD_HAVE_DEADLINES
#error "idle.c is linked only by tiers with deadlines"
#endif

struct idle_state idle_state;

void idle_init(const uint64_t *auxv, uint64_t idle_ms)
{
	clock_init(auxv);
	deadline_init(&idle_state.queue, idle_ms);
	idle_tick();
}
