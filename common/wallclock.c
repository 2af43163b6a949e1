/* The CLF date, once per second (see wallclock.h). */
#include "common/wallclock.h"

#include "common/civil_time.h"
#include "common/clock.h"
#include "common/span.h"

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

const char *wallclock_clf_now(void)
{
	static char text[WALLCLOCK_CLF_LEN];
	static uint64_t rendered = UINT64_MAX; /* the second text holds, or none yet */
	uint64_t now = clock_now_unix_s(); /* the Date field's clock read (clock.h) */
	if (now != rendered) {
		wallclock_render_clf(now, text);
		rendered = now;
	}
	return text;
}
