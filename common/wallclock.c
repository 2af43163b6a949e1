/* The CLF date, once per second (see wallclock.h). */
#include "common/wallclock.h"

#include "common/civil_time.h"
#include "common/clock.h"
#include "common/span.h"

/* Writes v's last `digits` decimal digits, zero-padded, at out. Returns out + digits. */
static char *put_padded(char *out, uint32_t v, int digits)
{
	for (int i = digits - 1; i >= 0; i--, v /= 10)
		out[i] = (char)('0' + v % 10);
	return out + digits;
}

void wallclock_render_clf(uint64_t unix_seconds, char *out)
{
	struct civil_time t = civil_from_unix(unix_seconds);
	char *p = out;
	*p++ = '[';
	p = put_padded(p, t.day, 2);
	*p++ = '/';
	p = copy_span(p, civil_month_names[t.month - 1], 3);
	*p++ = '/';
	p = put_padded(p, t.year, 4);
	*p++ = ':';
	p = put_padded(p, t.hour, 2);
	*p++ = ':';
	p = put_padded(p, t.minute, 2);
	*p++ = ':';
	p = put_padded(p, t.second, 2);
	copy_span(p, LITERAL(" +0000]"));
}

const char *wallclock_clf_now(void)
{
	static char text[WALLCLOCK_CLF_LEN];
	static int64_t rendered = -1; /* the second text holds, or none yet */
	struct k_timespec now;
	clock_read(K_CLOCK_REALTIME, &now);
	if (now.tv_sec != rendered) {
		wallclock_render_clf((uint64_t)now.tv_sec, text);
		rendered = now.tv_sec;
	}
	return text;
}
