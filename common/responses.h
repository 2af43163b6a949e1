/* Static responses: head and body in one contiguous block, declared once in
 * FOR_EACH_STATIC_RESPONSE with the Content-Length written as a literal number, which the
 * build checks against the body's real length. A HEAD response is the same block cut
 * after the head. */
#ifndef APOLLOD_COMMON_RESPONSES_H
#define APOLLOD_COMMON_RESPONSES_H

#include <stdint.h>

#include "common/counters.h"
#include "common/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define CONTENT_TYPE_TEXT "text/plain; charset=utf-8"

/* X(id, status line, counter, Content-Length, body, extra header lines) */
#define FOR_EACH_STATIC_RESPONSE(X)                                                        \
	X(RESP_HELLO, "200 OK", C_responses_200, 17, "apollo says hello", "")               \
	X(RESP_HEALTH, "200 OK", C_responses_200, 2, "ok", "")                              \
	X(RESP_BAD_REQUEST, "400 Bad Request", C_responses_400, 12, "bad request\n", "")    \
	X(RESP_NOT_FOUND, "404 Not Found", C_responses_404, 10, "not found\n", "")          \
	X(RESP_NOT_ALLOWED, "405 Method Not Allowed", C_responses_405, 19,                  \
	  "method not allowed\n", "Allow: GET, HEAD\r\n")

/* The two forms of every response: what the Connection header says the daemon will do.
 * X(id, header value) */
#define FOR_EACH_CONN_FORM(X)                  \
	X(CONN_FORM_CLOSE, "close")            \
	X(CONN_FORM_KEEP_ALIVE, "keep-alive")

enum conn_form {
#define FORM_ENUM(id, value) id,
	FOR_EACH_CONN_FORM(FORM_ENUM)
#undef FORM_ENUM
	CONN_FORM_COUNT
};

enum static_response_id {
#define RESPONSE_ENUM(id, status, cnt, len, body, extra) id,
	FOR_EACH_STATIC_RESPONSE(RESPONSE_ENUM)
#undef RESPONSE_ENUM
	STATIC_RESPONSE_COUNT
};

/* One pre-rendered response. */
struct static_response {
	const char *bytes;   /* head immediately followed by body */
	uint32_t head_len;   /* bytes up to and including the CRLFCRLF */
	uint32_t total_len;  /* head_len + body length */
	uint32_t counter;    /* enum counter_id of its status (responses_NNN) */
	uint32_t reserved;
};
#define STATIC_RESPONSE_SIZE 24
STATIC_ASSERT(sizeof(struct static_response) == STATIC_RESPONSE_SIZE, "layout");

/* static_responses[form][id]: both forms pre-rendered, so each leaves in one write. */
extern const struct static_response static_responses[CONN_FORM_COUNT][STATIC_RESPONSE_COUNT];

/* The head of a dynamic 200 response up to the Content-Length digits, and what follows
 * them in each connection form; /metrics writes the digits in between. */
#define DYNAMIC_200_HEAD_PREFIX \
	"HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: "
#define DYNAMIC_HEAD_SUFFIX(conn) "\r\nConnection: " conn "\r\n\r\n"
#define DYNAMIC_HEAD_SUFFIX_MAX (sizeof(DYNAMIC_HEAD_SUFFIX("keep-alive")) - 1)

/* A piece of text and its length. */
struct text_span {
	const char *text;
	uint32_t len;
};

/* DYNAMIC_HEAD_SUFFIX of each connection form, for heads rendered at run time (/metrics)
 * or at start-up (the file cache). */
extern const struct text_span dynamic_head_suffix[CONN_FORM_COUNT];

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_RESPONSES_H */
