/* The wall clock's second, rendered once per second as the CLF date (see wallclock.h)
 * and as the Date tail (date_field.h). */
#include "common/serve/wallclock.h"

#include "common/base/civil_time.h"
#include "common/base/clock.h"
#include "common/http/date_field.h"
#include "common/base/span.h"

void wallclock_render_clf(uint64_t unix_seconds, char *out)
{
	struct civil_time t = civil_from_unix(unix_seconds);
	char *p = out;
	*p++ = '[';
	p = put_zero_padded(p, t.day, 2);
	*p++ = '/';
	p = copy_span(p, civil_month_names[t.month - 1], 3);
	*p++ = '/';
	p = put_zero_padded(p, t.year, 4);
	*p++ = ':';
	p = put_zero_padded(p, t.hour, 2);
	*p++ = ':';
	p = put_zero_padded(p, t.minute, 2);
	*p++ = ':';
	p = put_zero_padded(p, t.second, 2);
	copy_span(p, LITERAL(" +0000]"));
}

/* The current second in both forms, refreshed together: one cache, one render a second,
 * whichever of the access log and the Date field asks first. One per process: every
 * worker renders its own. */
static struct {
	uint64_t second; /* the second both texts hold; UINT64_MAX: none yet */
	char clf[WALLCLOCK_CLF_LEN];
	char date_tail[DATE_TAIL_LEN];
} wall = {.second = UINT64_MAX};

/* Reads the wall clock (clock.h) and renders both texts when the second has changed. */
static void wall_refresh(void)
{
	uint64_t now = clock_now_unix_s();
	if (now == wall.second)
		return;
	wallclock_render_clf(now, wall.clf);
	date_tail_render(now, wall.date_tail);
	wall.second = now;
}

const char *wallclock_clf_now(void)
{
	wall_refresh();
	return wall.clf;
}

void date_tail_copy(char *out)
{
	wall_refresh();
	copy_span(out, wall.date_tail, DATE_TAIL_LEN);
}
