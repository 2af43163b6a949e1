/* HTTP dates (RFC 9110 5.6.7): the IMF-fixdate the daemon writes, e.g.
 * "Sun, 06 Nov 1994 08:49:37 GMT", always 29 bytes, and the three forms it reads
 * (If-Modified-Since, If-Range). Pure. */
#ifndef APOLLOD_COMMON_HTTP_DATE_H
#define APOLLOD_COMMON_HTTP_DATE_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define HTTP_DATE_EXAMPLE "Sun, 06 Nov 1994 08:49:37 GMT"
#define HTTP_DATE_LEN (sizeof(HTTP_DATE_EXAMPLE) - 1)
STATIC_ASSERT(HTTP_DATE_LEN == 29, "IMF-fixdate is fixed-width");

/* Writes unix_seconds (a year of four digits: before 10000) as IMF-fixdate at out, which
 * has room for HTTP_DATE_LEN bytes (no NUL is written). */
void http_date_render(char *out, uint64_t unix_seconds);

/* The latest instant http_date_render writes with a four-digit year: 9999-12-31 23:59:59. */
#define HTTP_DATE_LAST 253402300799ull

/* Parses the len bytes at s as exactly one HTTP-date in any of the three forms RFC 9110
 * 5.6.7 makes recipients accept: IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), the
 * obsolete rfc850-date ("Sunday, 06-Nov-94 08:49:37 GMT") and asctime-date
 * ("Sun Nov  6 08:49:37 1994"). Names are case-sensitive, as the grammar says; the
 * weekday must be a weekday name but is not checked against the date. A two-digit year
 * is the year with those last digits that is at most 50 years after now_s's year (5.6.7).
 * Returns 1 and sets *unix_seconds, or 0 when s is anything else: other lengths or
 * bytes, a field out of range (hour 24, minute 60, second 61, day 31 in April, 29
 * February outside a leap year), or a year before 1970. Reads only s[0..len). */
int http_date_parse(const char *s, size_t len, uint64_t now_s, uint64_t *unix_seconds);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_HTTP_DATE_H */
