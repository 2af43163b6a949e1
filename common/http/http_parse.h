/* HTTP/1.x request-head parser (BEHAVIOUR 6). Pure: no syscalls, no allocation, no
 * writes outside the result structure. Both parsers read only bytes in [buf, buf + len)
 * and may return early: a byte that can never start a valid request is reported as BAD
 * at once, even when the head is not complete yet.
 *
 * The layouts below are shared with the assembly implementation in the asm-hotpath tier,
 * whose offsets are named in its hotpath_asm.h and checked against these structs at
 * compile time (variants/asm-hotpath/layout_check.c). parse_headers validates Host with
 * http_host_valid (http_host.h), the layer below it. */
#ifndef APOLLOD_COMMON_HTTP_PARSE_H
#define APOLLOD_COMMON_HTTP_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/limits.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* Limits from BEHAVIOUR 6. */
#define HTTP_METHOD_MAX 16         /* bytes of A-Z */
#define HTTP_TARGET_MAX 8000       /* bytes of 0x21-0x7e, starting with '/': RFC 9112 3
				    * recommends request lines of at least 8,000 octets */
#define HTTP_HEADER_NAME_MAX 64    /* tchar bytes */
#define HTTP_CONTENT_LENGTH_MAX 19 /* digits: every value fits in a uint64_t */

/* What a parser found. Never a bare number. */
enum parse_outcome {
	PARSE_COMPLETE = 0, /* a whole element was parsed; its length is in the result */
	PARSE_PARTIAL = 1,  /* every byte so far is valid, but more are needed */
	PARSE_BAD = 2,      /* the bytes can never form a valid element: answer 400 */
	PARSE_TARGET_TOO_LONG = 3, /* a valid request line so far, but its target is longer
				    * than HTTP_TARGET_MAX: answer 414 */
};

enum http_method {
	HTTP_METHOD_GET = 0,
	HTTP_METHOD_HEAD = 1,
	HTTP_METHOD_OTHER = 2, /* any other 1-16 byte A-Z token: 405 */
	HTTP_METHOD_OPTIONS = 3, /* OPTIONS: never set by the parsers (which say OTHER), but by
				  * parse_request (http_request.h) */
};

/* What the Connection header asked for. "close" wins over "keep-alive". */
enum http_connection {
	HTTP_CONNECTION_NONE = 0,
	HTTP_CONNECTION_KEEP_ALIVE = 1,
	HTTP_CONNECTION_CLOSE = 2,
};

/* Result of parse_request_line. */
struct request_line {
	const char *target;     /* into buf: first byte of the target, always '/' */
	uint32_t target_len;    /* whole target, query included: 1..HTTP_TARGET_MAX */
	uint32_t path_len;      /* target up to (not including) the first '?' */
	uint32_t line_len;      /* bytes consumed, CRLF included */
	uint8_t method;         /* enum http_method */
	uint8_t version_minor;  /* 0 for HTTP/1.0, 1 for HTTP/1.1 */
	uint8_t reserved[2];
};
#define REQUEST_LINE_SIZE 24
STATIC_ASSERT(sizeof(struct request_line) == REQUEST_LINE_SIZE, "layout");

/* The header fields the answer reads, one list: X(ID, lowercase name). parse_headers
 * records every line named one of them (struct field_line) in the pass that checks the
 * block and finds Host and Content-Length, so the answer never walks the block again;
 * which of the lines count (the first, or every one) is the answer's business
 * (http_fields.h). Validators and Range: BEHAVIOUR 10.8-10.9; Accept-Encoding: 10.10;
 * Accept: /metrics (BEHAVIOUR 7.2). */
#define FOR_EACH_RECORDED_FIELD(X)                \
	X(IF_NONE_MATCH, "if-none-match")         \
	X(IF_MODIFIED_SINCE, "if-modified-since") \
	X(IF_RANGE, "if-range")                   \
	X(RANGE, "range")                         \
	X(ACCEPT_ENCODING, "accept-encoding")     \
	X(ACCEPT, "accept")

#define RECORDED_FIELD_ENUM(id, name) FIELD_##id,
enum recorded_field { FOR_EACH_RECORDED_FIELD(RECORDED_FIELD_ENUM) RECORDED_FIELD_COUNT };
#undef RECORDED_FIELD_ENUM

/* One recorded line, as picohttpparser's struct phr_header keeps a header but with
 * 16-bit offsets: its value (OWS trimmed on both sides, possibly empty) is bytes
 * [at, at + len) of the block parse_headers read. */
struct field_line {
	uint16_t at;      /* the value's first byte, from the block's first byte */
	uint16_t len;     /* value bytes */
	uint8_t id;       /* enum recorded_field: the line's name */
	uint8_t reserved; /* unspecified */
};
#define FIELD_LINE_SIZE 6
STATIC_ASSERT(sizeof(struct field_line) == FIELD_LINE_SIZE, "layout");
/* A line is recorded only when its value ends at or before this offset (the 16 bits of
 * at and len); a block the daemon parses ends before HTTP_HEAD_MAX. */
#define FIELD_LINE_END_MAX UINT16_MAX
STATIC_ASSERT(HTTP_HEAD_MAX <= FIELD_LINE_END_MAX, "the daemon's blocks fit 16-bit offsets");

/* The shortest recorded line is "range:" CRLF. Every line recorded is a whole line
 * inside the buffer, so a buffer of HTTP_HEAD_MAX bytes (the most the daemon parses)
 * holds at most HEADER_FIELD_LINES_MAX of them: every line of every recorded field of
 * any request is kept, however often a field repeats. */
#define FIELD_LINE_MIN (sizeof("range:\r\n") - 1)
#define HEADER_FIELD_LINES_MAX (HTTP_HEAD_MAX / FIELD_LINE_MIN)
#define RECORDED_NAME_FITS(id, name)                                                  \
	STATIC_ASSERT(sizeof(name ":\r\n") - 1 >= FIELD_LINE_MIN, "shortest line: " name);
FOR_EACH_RECORDED_FIELD(RECORDED_NAME_FITS)
#undef RECORDED_NAME_FITS

/* Result of parse_headers. */
struct header_block {
	uint64_t content_length; /* valid when has_content_length */
	uint32_t block_len;      /* bytes consumed, the final empty line's CRLF included */
	uint8_t connection;      /* enum http_connection */
	uint8_t has_content_length;
	uint8_t host_count;      /* 0 or 1 (two or more is BAD) */
	uint8_t fields_seen;     /* bit 1 << id set for each enum recorded_field with a line */
	uint32_t field_count;    /* lines in field[] */
	struct field_line field[HEADER_FIELD_LINES_MAX]; /* every line of a recorded field,
							  * in the order of the block */
	uint16_t host_at;        /* host_count 1: the Host value's first byte (OWS trimmed),
				  * from the block's first byte; --site picks by it */
	uint16_t host_len;       /* host_count 1: its bytes */
};
/* 20 bytes, the lines, and the Host value's place in what was the tail padding. */
#define HEADER_BLOCK_SIZE 12312
STATIC_ASSERT(sizeof(struct header_block) == HEADER_BLOCK_SIZE, "layout");
STATIC_ASSERT(RECORDED_FIELD_COUNT <= 8, "fields_seen has a bit for each field");
#define HEADER_BLOCK_HOST_AT 12308
STATIC_ASSERT(__builtin_offsetof(struct header_block, host_at) == HEADER_BLOCK_HOST_AT,
	      "the Host place sits in the tail that was padding");

/* Parses `METHOD SP target SP HTTP/1.x CRLF` at the start of buf.
 * COMPLETE: *out is filled; out->line_len bytes were consumed and out->target points
 *           into [buf, buf + len).
 * PARTIAL:  buf is a valid prefix of a request line; *out is unspecified.
 * TARGET_TOO_LONG: 414: a valid method and SP, then HTTP_TARGET_MAX + 1 target bytes;
 *           decided at that byte, whatever follows it; *out is unspecified.
 * BAD:      400 (empty, lowercase or over-long method, target not starting with '/',
 *           target byte outside 0x21-0x7e, other version, bare CR or LF, anything else
 *           out of place); *out is unspecified. */
enum parse_outcome parse_request_line(const char *buf, size_t len, struct request_line *out);

/* Parses header lines up to and including the empty line that ends the head.
 * buf starts at the first header line (or at the final CRLF when there are none).
 * COMPLETE: *out is filled; out->block_len bytes were consumed. Each line named a
 *           recorded field (If-None-Match, If-Modified-Since, If-Range, Range,
 *           Accept-Encoding, Accept: names compared ignoring case) is in out->field[],
 *           in order, its value's offsets relative to buf; nothing in them is
 *           interpreted.
 * PARTIAL:  buf is a valid prefix of a header block; *out is unspecified.
 * BAD:      400 (no colon, empty or non-tchar or over-long name, obs-fold, control byte,
 *           bare CR or LF, Transfer-Encoding, bad or conflicting Content-Length, two Host
 *           lines, a Host value that is not host[:port]); also more than
 *           HEADER_FIELD_LINES_MAX recorded lines, or one whose value ends past
 *           FIELD_LINE_END_MAX, neither of which fits the HTTP_HEAD_MAX bytes the daemon
 *           parses; *out is unspecified. */
enum parse_outcome parse_headers(const char *buf, size_t len, struct header_block *out);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_HTTP_PARSE_H */
