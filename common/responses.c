/* The static response table (see responses.h). */
#include "common/responses.h"

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

#define RESPONSE_HEAD(status, len, extra, conn)                                        \
	"HTTP/1.1 " status "\r\nContent-Type: " CONTENT_TYPE_TEXT "\r\nContent-Length: " \
	STRINGIFY(len) "\r\n" extra "Connection: " conn "\r\n\r\n"

/* The build fails when a declared Content-Length differs from its body's length. */
#define RESPONSE_CHECK(id, status, cnt, len, body, extra) \
	STATIC_ASSERT(sizeof(body) - 1 == (len), #id ": Content-Length != body length");
FOR_EACH_STATIC_RESPONSE(RESPONSE_CHECK)

#define RESPONSE_ENTRY(id, status, cnt, len, body, extra, conn)                  \
	[id] = {                                                                 \
		.bytes = RESPONSE_HEAD(status, len, extra, conn) body,           \
		.head_len = sizeof(RESPONSE_HEAD(status, len, extra, conn)) - 1, \
		.total_len = sizeof(RESPONSE_HEAD(status, len, extra, conn) body) - 1, \
		.counter = cnt,                                                  \
	},
#define ENTRY_CLOSE(id, status, cnt, len, body, extra) \
	RESPONSE_ENTRY(id, status, cnt, len, body, extra, "close")
#define ENTRY_KEEP_ALIVE(id, status, cnt, len, body, extra) \
	RESPONSE_ENTRY(id, status, cnt, len, body, extra, "keep-alive")

const struct static_response static_responses[CONN_FORM_COUNT][STATIC_RESPONSE_COUNT] = {
	[CONN_FORM_CLOSE] = {FOR_EACH_STATIC_RESPONSE(ENTRY_CLOSE)},
	[CONN_FORM_KEEP_ALIVE] = {FOR_EACH_STATIC_RESPONSE(ENTRY_KEEP_ALIVE)},
};

const struct text_span dynamic_head_suffix[CONN_FORM_COUNT] = {
#define SUFFIX_ENTRY(id, value) \
	[id] = {DYNAMIC_HEAD_SUFFIX(value), sizeof(DYNAMIC_HEAD_SUFFIX(value)) - 1},
	FOR_EACH_CONN_FORM(SUFFIX_ENTRY)
#undef SUFFIX_ENTRY
};
