/* The Date field every routed response carries (RFC 9110 6.6.1, BEHAVIOUR 15), rendered
 * at most once per second from the vDSO wall clock (clock.h).
 *
 * How it reaches the wire without a copy of any head: every pre-rendered head ends in
 * "\r\n\r\n"; the connection queues the head without its last "\r\n", then the
 * DATE_TAIL_LEN bytes "Date: <IMF-fixdate>\r\n\r\n", then the body, all in the same
 * writev. Date is therefore the last field of every head. */
#ifndef APOLLOD_COMMON_DATE_FIELD_H
#define APOLLOD_COMMON_DATE_FIELD_H

#include <stdint.h>

#include "common/http/http_date.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define DATE_FIELD_NAME "Date: "
#define DATE_TAIL_END "\r\n\r\n"
#define DATE_TAIL_LEN (sizeof(DATE_FIELD_NAME) - 1 + HTTP_DATE_LEN + sizeof(DATE_TAIL_END) - 1)
STATIC_ASSERT(DATE_TAIL_LEN == 39, "Date: + IMF-fixdate + CRLFCRLF");
/* What a head gives up to the tail: its final empty line's CRLF. */
#define DATE_HEAD_CUT 2

/* Writes the tail of unix_seconds ("Date: <IMF-fixdate>\r\n\r\n", DATE_TAIL_LEN bytes)
 * at out. Pure. */
void date_tail_render(uint64_t unix_seconds, char *out);

/* Copies the current tail to out (DATE_TAIL_LEN bytes). The wall clock (wallclock.c)
 * renders it anew, with the access log's date, when its second has changed since the
 * last render. Costs a vDSO clock read and a 39-byte copy; the renders (about 60
 * divisions) once a second. */
void date_tail_copy(char *out);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_DATE_FIELD_H */
