/* HTTP dates (RFC 9110 5.6.7): the IMF-fixdate the daemon writes, e.g.
 * "Sun, 06 Nov 1994 08:49:37 GMT", always 29 bytes. Pure. */
#ifndef APOLLOD_COMMON_HTTP_DATE_H
#define APOLLOD_COMMON_HTTP_DATE_H

#include <stdint.h>

#include "common/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define HTTP_DATE_EXAMPLE "Sun, 06 Nov 1994 08:49:37 GMT"
#define HTTP_DATE_LEN (sizeof(HTTP_DATE_EXAMPLE) - 1)
STATIC_ASSERT(HTTP_DATE_LEN == 29, "IMF-fixdate is fixed-width");

/* Writes unix_seconds (a year of four digits: before 10000) as IMF-fixdate at out, which
 * has room for HTTP_DATE_LEN bytes (no NUL is written). */
void http_date_render(char *out, uint64_t unix_seconds);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_HTTP_DATE_H */
