/* The static response table (see responses.h). */
#include "common/responses.h"

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

#define RESPONSE_HEAD(status, len, extra)                                              \
	"HTTP/1.1 " status "\r\nContent-Type: " CONTENT_TYPE_TEXT "\r\nContent-Length: " \
	STRINGIFY(len) "\r\n" extra "Connection: close\r\n\r\n"

/* The build fails when a declared Content-Length differs from its body's length. */
#define RESPONSE_CHECK(id, status, cnt, len, body, extra) \
	STATIC_ASSERT(sizeof(body) - 1 == (len), #id ": Content-Length != body length");
FOR_EACH_STATIC_RESPONSE(RESPONSE_CHECK)

#define RESPONSE_ENTRY(id, status, cnt, len, body, extra)              \
	[id] = {                                                            \
		.bytes = RESPONSE_HEAD(status, len, extra) body,            \
		.head_len = sizeof(RESPONSE_HEAD(status, len, extra)) - 1,  \
		.total_len = sizeof(RESPONSE_HEAD(status, len, extra) body) - 1, \
		.counter = cnt,                                         \
	},

const struct static_response static_responses[STATIC_RESPONSE_COUNT] = {
	FOR_EACH_STATIC_RESPONSE(RESPONSE_ENTRY)
};
