/* A whole request head: the request line, then the header block, parsed by the two
 * parsers of http_parse.h (C, or the assembly of the asm-hotpath tier), then the target's
 * form resolved (RFC 9112 3.2) so that everything after sees an origin-form path. */
#ifndef APOLLOD_COMMON_HTTP_REQUEST_H
#define APOLLOD_COMMON_HTTP_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "common/http/http_parse.h"

APOLLOD_EXTERN_C_BEGIN

/* The forms of request-target the daemon answers (RFC 9112 3.2; BEHAVIOUR 6.1). */
enum target_form {
	TARGET_ORIGIN = 0,   /* "/path?query" */
	TARGET_ABSOLUTE = 1, /* "http://authority/path?query": line.target now points at the
			      * path ("/" when it had none) */
	TARGET_ASTERISK = 2, /* "*", OPTIONS only (RFC 9112 3.2.4) */
};

/* The scheme an absolute-form target may name: http only (the daemon speaks no TLS). */
#define TARGET_HTTP_SCHEME "http://"

struct http_request {
	struct request_line line;
	struct header_block headers;
	uint32_t head_len;      /* line.line_len + headers.block_len */
	uint32_t authority_len; /* TARGET_ABSOLUTE: bytes of authority; else 0 */
	const char *authority;  /* TARGET_ABSOLUTE: its host[:port], into buf (it stands in
				 * for Host, RFC 9112 3.2.2); else NULL */
	uint8_t target_form;    /* enum target_form */
};

/* Parses a whole head at the start of buf, reading only [buf, buf + len).
 * Returns COMPLETE (and fills *out), PARTIAL or BAD as the two parsers do. The method
 * OPTIONS is told apart from the others (HTTP_METHOD_OPTIONS). BAD too for a
 * complete request line whose target is no origin-form path, no absolute-form http URI
 * with a non-empty host[:port] authority without userinfo, and no "*" of an OPTIONS
 * (request_target_resolve). */
enum parse_outcome parse_request(const char *buf, size_t len, struct http_request *out);

/* Resolves the form of out->line's target (parsed, so 1..HTTP_TARGET_MAX bytes of
 * 0x21-0x7e not starting with '?'; its method told apart): sets out->target_form and out->authority, and for an
 * absolute-form target points out->line.target, target_len and path_len at its path and
 * query (a static "/" when the path is empty; the query then goes, which no route reads
 * without a path). "*" is TARGET_ASTERISK for an OPTIONS. Returns PARSE_COMPLETE, or
 * PARSE_BAD for any other form. Pure. */
enum parse_outcome request_target_resolve(struct http_request *out);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_HTTP_REQUEST_H */
