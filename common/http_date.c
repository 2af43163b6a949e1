/* IMF-fixdate rendering (see http_date.h). */
#include "common/http_date.h"

#include "common/civil_time.h"
#include "common/span.h"

/* Offsets of the fields in "Sun, 06 Nov 1994 08:49:37 GMT". */
#define DATE_AT_DAY 5
#define DATE_AT_MONTH 8
#define DATE_AT_YEAR 12
#define DATE_AT_HOUR 17
#define DATE_AT_MINUTE 20
#define DATE_AT_SECOND 23
#define DATE_NAME_LEN 3
STATIC_ASSERT(DATE_AT_SECOND + 2 + sizeof(" GMT") - 1 == HTTP_DATE_LEN, "field offsets");

void http_date_render(char *out, uint64_t unix_seconds)
{
	struct civil_time t = civil_from_unix(unix_seconds);
	copy_span(out, LITERAL(HTTP_DATE_EXAMPLE)); /* the punctuation and " GMT" */
	copy_span(out, civil_weekday_names[t.weekday], DATE_NAME_LEN);
	put_zero_padded(out + DATE_AT_DAY, t.day, 2);
	copy_span(out + DATE_AT_MONTH, civil_month_names[t.month - 1], DATE_NAME_LEN);
	put_zero_padded(out + DATE_AT_YEAR, t.year, 4);
	put_zero_padded(out + DATE_AT_HOUR, t.hour, 2);
	put_zero_padded(out + DATE_AT_MINUTE, t.minute, 2);
	put_zero_padded(out + DATE_AT_SECOND, t.second, 2);
}
