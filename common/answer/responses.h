/* Static responses: head and body in one contiguous block, declared once in
 * FOR_EACH_STATIC_RESPONSE with the Content-Length written as a literal number, which the
 * build checks against the body's real length. A HEAD response is the same block cut
 * after the head. */
#ifndef APOLLOD_COMMON_RESPONSES_H
#define APOLLOD_COMMON_RESPONSES_H

#include <stdint.h>

#include "common/answer/conn_form.h"
#include "common/http/http_date.h"
#include "common/http/http_parse.h"
#include "common/http/url_path.h"
#include "common/base/counters.h"
#include "common/base/error_statuses.h"
#include "common/base/span.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define CONTENT_TYPE_TEXT "text/plain; charset=utf-8"

/* The pieces every response head is made of, in this order. */
#define HEAD_STATUS_LINE(status) "HTTP/1.1 " status "\r\n"
#define HEAD_200_PREFIX HEAD_STATUS_LINE("200 OK") "Content-Type: "
#define HEAD_LENGTH_FIELD "\r\nContent-Length: "
#define HEAD_CONNECTION_FIELD "\r\nConnection: "
#define HEAD_END "\r\n\r\n"

/* The methods the daemon answers, as Allow lists them (RFC 9110 10.2.1): on a 405, an
 * OPTIONS * and an OPTIONS of a path (BEHAVIOUR 6.2). */
#define ALLOW_METHODS "GET, HEAD, OPTIONS"
#define HEAD_ALLOW_LINE "Allow: " ALLOW_METHODS "\r\n"

/* A request for a host no site serves (BEHAVIOUR 10.21): RFC 9110 15.5.20. */
#define STATUS_421 "421 Misdirected Request"

/* A full table's 503 (BEHAVIOUR 4): come back in a second, when a slot may be free. */
#define HEAD_RETRY_AFTER_LINE "Retry-After: 1\r\n"

/* X(id, status line, counter, Content-Length, body, extra header lines). The counter is
 * the response's status counter, or for what answers no request (408, the full table's
 * 503) the counter of that event. */
#define FOR_EACH_STATIC_RESPONSE(X)                                                        \
	X(RESP_HELLO, "200 OK", C_responses_200, 17, "apollo says hello", "")               \
	X(RESP_HEALTH, "200 OK", C_responses_200, 2, "ok", "")                              \
	X(RESP_BAD_REQUEST, STATUS_400, C_responses_400, 12, "bad request\n", "")          \
	X(RESP_NOT_FOUND, STATUS_404, C_responses_404, 10, "not found\n", "")              \
	X(RESP_NOT_ALLOWED, STATUS_405, C_responses_405, 19, "method not allowed\n",       \
	  HEAD_ALLOW_LINE)                                                               \
	X(RESP_TIMEOUT, STATUS_408, C_responses_408, 16, "request timeout\n", "")          \
	X(RESP_URI_TOO_LONG, STATUS_414, C_responses_414, 13, "uri too long\n", "")        \
	X(RESP_GONE, STATUS_410, C_responses_410, 5, "gone\n", "")                         \
	X(RESP_OPTIONS_ANY, "200 OK", C_responses_200, 0, "", HEAD_ALLOW_LINE)            \
	X(RESP_HEALTH_DRAINING, STATUS_503, C_responses_503, 9, "draining\n", "")          \
	X(RESP_UNAVAILABLE, STATUS_503, C_connections_refused, 20, "service unavailable\n", \
	  HEAD_RETRY_AFTER_LINE)                                                         \
	X(RESP_DISK_BUSY, STATUS_503, C_responses_503, 20, "service unavailable\n",       \
	  HEAD_RETRY_AFTER_LINE)                                                         \
	X(RESP_MISDIRECTED, STATUS_421, C_responses_421, 20, "misdirected request\n", "")

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
	uint32_t counter;    /* enum counter_id of its status (responses_NNN), or of the event */
	uint32_t reserved;
};
#define STATIC_RESPONSE_SIZE 24
STATIC_ASSERT(sizeof(struct static_response) == STATIC_RESPONSE_SIZE, "layout");

/* static_responses[form][id]: both forms pre-rendered, so each leaves in one write. */
extern const struct static_response static_responses[CONN_FORM_COUNT][STATIC_RESPONSE_COUNT];

/* The head of a 200 response rendered at run time or start-up (/metrics, the file cache):
 * the same status line and header order as the static table, with the caller's
 * Content-Type and Content-Length. The longest head for a type of type_len bytes: */
#define HEAD_200_MAX(type_len) \
	(sizeof(HEAD_200_PREFIX HEAD_LENGTH_FIELD HEAD_CONNECTION_FIELD "keep-alive" HEAD_END) - 1 + \
	 (type_len) + U64_DEC_MAX)

/* What ends a rendered head of each form: HEAD_CONNECTION_FIELD, the form's value and
 * HEAD_END. A file's 200 head is stored in one form only; the other is spliced in by
 * queueing the stored head up to this tail, then this tail of the other form. */
extern const struct text_span head_tail[CONN_FORM_COUNT];

/* Renders that head at out: "HTTP/1.1 200 OK", Content-Type, Content-Length and the
 * Connection header of `form`, then the empty line. out must have room for
 * HEAD_200_MAX(type_len) bytes. Returns the bytes written (head_200_len of the same
 * arguments). Pure. */
size_t render_head_200(char *out, const char *type, size_t type_len,
		       uint64_t content_length, enum conn_form form);

/* The length render_head_200 would write, without writing. Pure. */
size_t head_200_len(size_t type_len, uint64_t content_length, enum conn_form form);

/* render_head_200 with fields[0..fields_len) (field lines, each "\r\nName: value", as
 * file_fields renders them) between Content-Length and Connection: a file's 200 head.
 * out must have room for HEAD_200_MAX(type_len) + fields_len bytes. Returns the bytes
 * written. Pure. */
size_t render_head_200_with(char *out, const char *type, size_t type_len,
			    uint64_t content_length, const char *fields, size_t fields_len,
			    enum conn_form form);

/* An error page (--error-page CODE=/PATH, BEHAVIOUR 10.12): a file's head under its
 * status's line, with no validators among its fields; the 405's carries Allow first, as
 * the static 405 does. The longest prefix and the most bytes a page head adds to a 200's: */
#define HEAD_404_PREFIX HEAD_STATUS_LINE(STATUS_404) "Content-Type: "
#define HEAD_PAGE_PREFIX_MAX (sizeof(HEAD_STATUS_LINE(STATUS_416) "Content-Type: ") - 1)
#define HEAD_ALLOW_FIELD "\r\nAllow: " ALLOW_METHODS
#define HEAD_PAGE_EXTRA_MAX \
	(HEAD_PAGE_PREFIX_MAX - (sizeof(HEAD_200_PREFIX) - 1) + sizeof(HEAD_ALLOW_FIELD) - 1)
#define ERROR_PAGE_LINE_CHECK(id, code, line)                                              \
	STATIC_ASSERT(sizeof(HEAD_STATUS_LINE(line) "Content-Type: ") - 1 <= HEAD_PAGE_PREFIX_MAX, \
		      #id ": its prefix fits HEAD_PAGE_PREFIX_MAX");
FOR_EACH_ERROR_STATUS(ERROR_PAGE_LINE_CHECK)
#undef ERROR_PAGE_LINE_CHECK

/* Renders at out the head of error page `page` (enum error_page_id): its status line,
 * Content-Type type, Content-Length size, Allow for the 405, then fields (its --header-for
 * lines), the Connection header of form and the empty line. out must have room for
 * HEAD_200_MAX(type.len) + HEAD_PAGE_EXTRA_MAX + fields.len bytes. Returns the bytes
 * written. Pure. */
size_t render_page_head(char *out, unsigned page, struct text_span type, uint64_t size,
			struct text_span fields, enum conn_form form);

/* The 416 of a file of size bytes answered with an error page (BEHAVIOUR 10.12): the
 * page's stored head (page_head[0..cut), up to its Connection line), then Content-Range
 * naming only size, then the Connection header of form. out must have room for cut +
 * CONTENT_RANGE_MAX + the tail. Returns the bytes written. Pure. */
size_t render_page_416(char *out, struct text_span page_head, uint64_t size, enum conn_form form);

/* render_head_200_with under the status line and Content-Type name `prefix`
 * (HEAD_200_PREFIX or HEAD_404_PREFIX): room for prefix.len - sizeof(HEAD_200_PREFIX) + 1
 * bytes more. Pure. */
size_t render_head_with(char *out, struct text_span prefix, const char *type, size_t type_len,
			uint64_t content_length, const char *fields, size_t fields_len,
			enum conn_form form);

/* A file's fields after Content-Length (BEHAVIOUR 10.8-10.10), in this order:
 * Content-Encoding (a precompressed representation only), Last-Modified, ETag,
 * Accept-Ranges (200 and 206 only), Vary (a file with precompressed variants and those
 * variants). The ETag is "<size>-<mtime in ns>-<inode>", each in lower-case hex without
 * leading zeros, with "-br" or "-gz" before the closing quote for a representation. */
#define HEAD_CONTENT_ENCODING_FIELD "\r\nContent-Encoding: "
#define HEAD_LAST_MODIFIED_FIELD "\r\nLast-Modified: "
#define HEAD_ETAG_FIELD "\r\nETag: "
#define HEAD_ACCEPT_RANGES_FIELD "\r\nAccept-Ranges: bytes"
#define HEAD_VARY_FIELD "\r\nVary: Accept-Encoding"
#define U64_HEX_MAX 16
#define ETAG_SUFFIX_MAX (sizeof("-gz12") - 1) /* a generated gzip's: level 12 (file_gzip.c) */
#define ETAG_MAX (sizeof("\"--\"") - 1 + 3 * U64_HEX_MAX + ETAG_SUFFIX_MAX)
#define CONTENT_CODING_MAX (sizeof("gzip") - 1)
/* The validators' bytes before the ETag's opening quote. */
#define VALIDATORS_ETAG_AT \
	(sizeof(HEAD_LAST_MODIFIED_FIELD HEAD_ETAG_FIELD) - 1 + HTTP_DATE_LEN)
#define FILE_VALIDATORS_MAX (VALIDATORS_ETAG_AT + ETAG_MAX)
/* The most a file's fields after Content-Length take, in its 200 and in its 304. */
#define FILE_FIELDS_200_MAX                                                        \
	(sizeof(HEAD_CONTENT_ENCODING_FIELD) - 1 + CONTENT_CODING_MAX + FILE_VALIDATORS_MAX + \
	 sizeof(HEAD_ACCEPT_RANGES_FIELD HEAD_VARY_FIELD) - 1)
#define FILE_FIELDS_304_MAX (FILE_VALIDATORS_MAX + sizeof(HEAD_VARY_FIELD) - 1)
/* The longest file head of each kind, for a type of type_len bytes. */
#define FILE_HEAD_200_MAX(type_len) (HEAD_200_MAX(type_len) + FILE_FIELDS_200_MAX)
#define HEAD_304_PREFIX "HTTP/1.1 304 Not Modified"
#define FILE_HEAD_304_MAX                                                          \
	(sizeof(HEAD_304_PREFIX HEAD_CONNECTION_FIELD "keep-alive" HEAD_END) - 1 + \
	 FILE_FIELDS_304_MAX)

/* Renders at out the 304 of a file: the status line, its validators (HEAD_LAST_MODIFIED_FIELD
 * and HEAD_ETAG_FIELD lines, at most FILE_VALIDATORS_MAX bytes), HEAD_VARY_FIELD when vary
 * is set, then `fields` (its --header-for lines, "\r\nName: value" each, BEHAVIOUR
 * 10.13), the Connection header of form and the empty line; no Content-Length and no body
 * (RFC 9110 15.4.5). out must have room for FILE_HEAD_304_MAX + fields.len bytes. Returns
 * the bytes written. Pure. */
size_t render_head_304(char *out, struct text_span validators, int vary, struct text_span fields,
		       enum conn_form form);

/* The 206 of a file (BEHAVIOUR 10.9): its 200 head with the status line changed, the
 * slice's Content-Length, and Content-Range after it. */
#define HEAD_206_PREFIX HEAD_STATUS_LINE("206 Partial Content") "Content-Type: "
#define HEAD_CONTENT_RANGE_FIELD "\r\nContent-Range: bytes "
#define CONTENT_RANGE_MAX (sizeof(HEAD_CONTENT_RANGE_FIELD "-/") - 1 + 3 * U64_DEC_MAX)
/* The longest 206 head made from a 200 head of head_200_len bytes. */
#define HEAD_206_MAX(head_200_len) \
	((head_200_len) + sizeof(HEAD_206_PREFIX) - sizeof(HEAD_200_PREFIX) + CONTENT_RANGE_MAX)

/* Renders at out a 206 for bytes first..last (inclusive) of a size-byte file: the status
 * line, Content-Type type, Content-Length (last - first + 1), Content-Range, then fields,
 * the file's 200 head between its Content-Length digits and its Connection line (the
 * validators, Accept-Ranges, ...), then head_tail[form]. out must have room for
 * HEAD_206_MAX of the 200 head's length. Returns the bytes written. Pure. */
size_t render_head_206(char *out, struct text_span type, uint64_t first, uint64_t last,
		       uint64_t size, struct text_span fields, enum conn_form form);

/* The 416 of a file whose size is N: a text body, and a Content-Range that names no
 * range, only N, between Content-Length and Connection (RFC 9110 15.5.17). */
#define RANGE_NOT_SATISFIABLE_BODY "range not satisfiable\n"
#define HEAD_416_PREFIX                                                                \
	HEAD_STATUS_LINE("416 Range Not Satisfiable") "Content-Type: " CONTENT_TYPE_TEXT \
	HEAD_LENGTH_FIELD "22" HEAD_CONTENT_RANGE_FIELD "*/"
STATIC_ASSERT(sizeof(RANGE_NOT_SATISFIABLE_BODY) - 1 == 22, "the 416's Content-Length");
#define RANGE_NOT_SATISFIABLE_MAX                                                        \
	(sizeof(HEAD_416_PREFIX HEAD_CONNECTION_FIELD "keep-alive" HEAD_END                \
		RANGE_NOT_SATISFIABLE_BODY) - 1 + U64_DEC_MAX)

/* Renders at out the 416 for a file of size bytes with the Connection header of form,
 * and its body. out must have room for RANGE_NOT_SATISFIABLE_MAX bytes. Sets *head_len;
 * returns the bytes written (head and body). Pure. */
size_t render_416(char *out, uint64_t size, enum conn_form form, uint32_t *head_len);

/* The 204 of an OPTIONS of a path (BEHAVIOUR 6.2): Allow, then the path's --header-for
 * fields, then Connection; no Content-Type and no Content-Length (RFC 9110 8.6: never on a
 * 204), no body. */
#define OPTIONS_HEAD_PREFIX HEAD_STATUS_LINE("204 No Content") "Allow: " ALLOW_METHODS
#define OPTIONS_HEAD_MAX(fields_len) \
	(sizeof(OPTIONS_HEAD_PREFIX HEAD_CONNECTION_FIELD "keep-alive" HEAD_END) - 1 + (fields_len))

/* Renders at out the 204 above with fields ("\r\nName: value" lines, as path_fields_render
 * writes them) and the Connection header of form. out must have room for
 * OPTIONS_HEAD_MAX(fields.len) bytes. Returns the bytes written (all head). Pure. */
size_t render_options(char *out, struct text_span fields, enum conn_form form);

/* The 301 that sends /dir to /dir/ (--root, BEHAVIOUR 10.4): a text body, the Location
 * between Content-Length and Connection as the 405's Allow line is. */
#define REDIRECT_BODY "moved permanently\n"
#define REDIRECT_HEAD_PREFIX                                                         \
	HEAD_STATUS_LINE("301 Moved Permanently") "Content-Type: " CONTENT_TYPE_TEXT \
	HEAD_LENGTH_FIELD "18\r\nLocation: "
/* The longest Location a 301 carries: the longest target (BEHAVIOUR 6.6) and its '/'.
 * A longer one (a name whose bytes percent-encoding triples) could not be asked for, so
 * the directory's request gets 414 instead (redirect_location_len). */
#define REDIRECT_LOCATION_MAX (HTTP_TARGET_MAX + 1)
#define REDIRECT_MAX(location_len)                                                      \
	(sizeof(REDIRECT_HEAD_PREFIX HEAD_CONNECTION_FIELD "keep-alive" HEAD_END            \
		REDIRECT_BODY) - 1 + (location_len))
STATIC_ASSERT(sizeof(REDIRECT_BODY) - 1 == 18, "the 301's Content-Length is its body's");

/* The bytes of the Location for target[0..target_len), whose path is its first path_len
 * bytes (BEHAVIOUR 10.4): the path percent-encoded outside pchar and '/'
 * (URL_KEEP_PATH), then '/', then the query ('?' included, if any) encoded the same way
 * with '?' kept too (URL_KEEP_QUERY). Pure. */
size_t redirect_location_len(const char *target, uint32_t path_len, uint32_t target_len);

/* Renders at out the 301 whose Location is as redirect_location_len describes, with the
 * Connection header of `form`, and its body. out must have room for
 * REDIRECT_MAX(redirect_location_len(...)) bytes. Sets *head_len; returns the bytes
 * written (head and body). Pure. */
size_t render_redirect(char *out, const char *target, uint32_t path_len, uint32_t target_len,
		       enum conn_form form, uint32_t *head_len);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_RESPONSES_H */
