/* The Date tail's render (see date_field.h). The once-per-second cache that calls it is
 * the wall clock's (wallclock.c), shared with the access log's date. */
#include "common/http/date_field.h"

#include "common/base/span.h"

void date_tail_render(uint64_t unix_seconds, char *out)
{
	char *p = copy_span(out, LITERAL(DATE_FIELD_NAME));
	http_date_render(p, unix_seconds);
	copy_span(p + HTTP_DATE_LEN, LITERAL(DATE_TAIL_END));
}
