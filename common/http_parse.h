/* HTTP/1.x request-head parser (SPEC section 6). Pure: no syscalls, no allocation, no
 * writes outside the result structure. Both parsers read only bytes in [buf, buf + len)
 * and may return early: a byte that can never start a valid request is reported as BAD
 * at once, even when the head is not complete yet.
 *
 * The layouts below are shared with the assembly implementation in the asm-hotpath tier,
 * so every field offset is a named constant checked at compile time. */
#ifndef APOLLOD_COMMON_HTTP_PARSE_H
#define APOLLOD_COMMON_HTTP_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "common/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* Limits from SPEC section 6. */
#define HTTP_METHOD_MAX 16         /* bytes of A-Z */
#define HTTP_TARGET_MAX 1024       /* bytes of 0x21-0x7e, starting with '/' */
#define HTTP_HEADER_NAME_MAX 64    /* tchar bytes */
#define HTTP_CONTENT_LENGTH_MAX 19 /* digits: every value fits in a uint64_t */
#define HTTP_HEAD_MAX 8192         /* request line + headers + CRLFCRLF */

/* What a parser found. Never a bare number. */
enum parse_outcome {
	PARSE_COMPLETE = 0, /* a whole element was parsed; its length is in the result */
	PARSE_PARTIAL = 1,  /* every byte so far is valid, but more are needed */
	PARSE_BAD = 2,      /* the bytes can never form a valid element: answer 400 */
};

enum http_method {
	HTTP_METHOD_GET = 0,
	HTTP_METHOD_HEAD = 1,
	HTTP_METHOD_OTHER = 2, /* any other 1-16 byte A-Z token: 405 */
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
#define REQUEST_LINE_TARGET 0
#define REQUEST_LINE_TARGET_LEN 8
#define REQUEST_LINE_PATH_LEN 12
#define REQUEST_LINE_LINE_LEN 16
#define REQUEST_LINE_METHOD 20
#define REQUEST_LINE_VERSION_MINOR 21
#define REQUEST_LINE_SIZE 24
STATIC_ASSERT(offsetof(struct request_line, target) == REQUEST_LINE_TARGET, "layout");
STATIC_ASSERT(offsetof(struct request_line, target_len) == REQUEST_LINE_TARGET_LEN, "layout");
STATIC_ASSERT(offsetof(struct request_line, path_len) == REQUEST_LINE_PATH_LEN, "layout");
STATIC_ASSERT(offsetof(struct request_line, line_len) == REQUEST_LINE_LINE_LEN, "layout");
STATIC_ASSERT(offsetof(struct request_line, method) == REQUEST_LINE_METHOD, "layout");
STATIC_ASSERT(offsetof(struct request_line, version_minor) == REQUEST_LINE_VERSION_MINOR,
	      "layout");
STATIC_ASSERT(sizeof(struct request_line) == REQUEST_LINE_SIZE, "layout");

/* Result of parse_headers. */
struct header_block {
	uint64_t content_length; /* valid when has_content_length */
	uint32_t block_len;      /* bytes consumed, the final empty line's CRLF included */
	uint8_t connection;      /* enum http_connection */
	uint8_t has_content_length;
	uint8_t host_count;      /* 0 or 1 (two or more is BAD) */
	uint8_t reserved;
};
#define HEADER_BLOCK_CONTENT_LENGTH 0
#define HEADER_BLOCK_BLOCK_LEN 8
#define HEADER_BLOCK_CONNECTION 12
#define HEADER_BLOCK_HAS_CONTENT_LENGTH 13
#define HEADER_BLOCK_HOST_COUNT 14
#define HEADER_BLOCK_SIZE 16
STATIC_ASSERT(offsetof(struct header_block, content_length) == HEADER_BLOCK_CONTENT_LENGTH,
	      "layout");
STATIC_ASSERT(offsetof(struct header_block, block_len) == HEADER_BLOCK_BLOCK_LEN, "layout");
STATIC_ASSERT(offsetof(struct header_block, connection) == HEADER_BLOCK_CONNECTION, "layout");
STATIC_ASSERT(offsetof(struct header_block, has_content_length) ==
		      HEADER_BLOCK_HAS_CONTENT_LENGTH,
	      "layout");
STATIC_ASSERT(offsetof(struct header_block, host_count) == HEADER_BLOCK_HOST_COUNT, "layout");
STATIC_ASSERT(sizeof(struct header_block) == HEADER_BLOCK_SIZE, "layout");

/* Parses `METHOD SP target SP HTTP/1.x CRLF` at the start of buf.
 * COMPLETE: *out is filled; out->line_len bytes were consumed and out->target points
 *           into [buf, buf + len).
 * PARTIAL:  buf is a valid prefix of a request line; *out is unspecified.
 * BAD:      400 (empty, lowercase or over-long method, target not starting with '/',
 *           over-long target, target byte outside 0x21-0x7e, other version, bare CR or
 *           LF, anything else out of place); *out is unspecified. */
enum parse_outcome parse_request_line(const char *buf, size_t len, struct request_line *out);

/* Parses header lines up to and including the empty line that ends the head.
 * buf starts at the first header line (or at the final CRLF when there are none).
 * COMPLETE: *out is filled; out->block_len bytes were consumed.
 * PARTIAL:  buf is a valid prefix of a header block; *out is unspecified.
 * BAD:      400 (no colon, empty or non-tchar or over-long name, obs-fold, control byte,
 *           bare CR or LF, Transfer-Encoding, bad or conflicting Content-Length, two Host
 *           lines, a Host value that is not host[:port]); *out is unspecified. */
enum parse_outcome parse_headers(const char *buf, size_t len, struct header_block *out);

/* Checks a Host value: reg-name, IPv4 or [IP-literal] (RFC 3986 3.2.2), optionally
 * followed by ':' and digits. An empty value is valid (RFC 9112 3.2). Returns 1 or 0. */
int http_host_valid(const char *value, size_t len);

/* A whole request head: the request line then the header block. */
struct http_request {
	struct request_line line;
	struct header_block headers;
	uint32_t head_len; /* line.line_len + headers.block_len */
};

/* Parses a whole head at the start of buf with the two parsers above.
 * Returns COMPLETE (and fills *out), PARTIAL or BAD as they do. */
enum parse_outcome parse_request(const char *buf, size_t len, struct http_request *out);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_HTTP_PARSE_H */
