/* The statuses an --error-page may name (BEHAVIOUR 10.12): the one list the command line
 * parses "CODE=/PATH" from (process/cli.c), the file cache renders each page's head from
 * (answer/site.c) and the static responses take their status lines from
 * (answer/responses.h). In base so that both layers read the same list. */
#ifndef APOLLOD_COMMON_BASE_ERROR_STATUSES_H
#define APOLLOD_COMMON_BASE_ERROR_STATUSES_H

#include "common/base/static_assert.h"

/* The status lines (after "HTTP/1.1 ") of the answers with a body the daemon gives. */
#define STATUS_400 "400 Bad Request"
#define STATUS_403 "403 Forbidden"
#define STATUS_404 "404 Not Found"
#define STATUS_405 "405 Method Not Allowed"
#define STATUS_408 "408 Request Timeout"
#define STATUS_410 "410 Gone"
#define STATUS_414 "414 URI Too Long"
#define STATUS_416 "416 Range Not Satisfiable"
#define STATUS_503 "503 Service Unavailable"

/* X(id, code as --error-page spells it, status line). 403 and 503 are accepted (a site
 * written for another server names them) and checked, but no answer of the daemon has
 * either status, so their pages are never served; a 410 is a --redirects rule's. */
#define FOR_EACH_ERROR_STATUS(X)                  \
	X(ERROR_PAGE_400, "400", STATUS_400)      \
	X(ERROR_PAGE_403, "403", STATUS_403)      \
	X(ERROR_PAGE_404, "404", STATUS_404)      \
	X(ERROR_PAGE_405, "405", STATUS_405)      \
	X(ERROR_PAGE_408, "408", STATUS_408)      \
	X(ERROR_PAGE_410, "410", STATUS_410)      \
	X(ERROR_PAGE_414, "414", STATUS_414)      \
	X(ERROR_PAGE_416, "416", STATUS_416)      \
	X(ERROR_PAGE_503, "503", STATUS_503)

enum error_page_id {
#define ERROR_PAGE_ENUM(id, code, line) id,
	FOR_EACH_ERROR_STATUS(ERROR_PAGE_ENUM)
#undef ERROR_PAGE_ENUM
	ERROR_PAGE_COUNT,
	ERROR_PAGE_NONE = ERROR_PAGE_COUNT /* an answer that is no error page */
};

/* Every code is three digits. */
#define ERROR_STATUS_CODE_LEN 3
#define ERROR_STATUS_CODE_CHECK(id, code, line) \
	STATIC_ASSERT(sizeof(code) - 1 == ERROR_STATUS_CODE_LEN, #id ": a three-digit code");
FOR_EACH_ERROR_STATUS(ERROR_STATUS_CODE_CHECK)
#undef ERROR_STATUS_CODE_CHECK

#endif /* APOLLOD_COMMON_BASE_ERROR_STATUSES_H */
