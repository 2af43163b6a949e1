/* The once-per-second Date tail (see date_field.h). One per process: every worker renders
 * its own. */
#include "common/date_field.h"

#include "common/clock.h"
#include "common/span.h"

static char date_tail[DATE_TAIL_LEN];
static uint64_t date_tail_second = UINT64_MAX; /* no render yet */

void date_tail_copy(char *out)
{
	uint64_t now = clock_now_unix_s();
	if (now != date_tail_second) {
		char *p = copy_span(date_tail, LITERAL(DATE_FIELD_NAME));
		http_date_render(p, now);
		copy_span(p + HTTP_DATE_LEN, LITERAL(DATE_TAIL_END));
		date_tail_second = now;
	}
	copy_span(out, date_tail, DATE_TAIL_LEN);
}
