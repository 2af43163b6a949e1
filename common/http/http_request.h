/* A whole request head: the request line, then the header block, parsed by the two
 * parsers of http_parse.h (C, or the assembly of the asm-hotpath tier). */
#ifndef APOLLOD_COMMON_HTTP_REQUEST_H
#define APOLLOD_COMMON_HTTP_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "common/http/http_parse.h"

APOLLOD_EXTERN_C_BEGIN

struct http_request {
	struct request_line line;
	struct header_block headers;
	uint32_t head_len; /* line.line_len + headers.block_len */
};

/* Parses a whole head at the start of buf, reading only [buf, buf + len): the request
 * line, then the header block after it. Returns COMPLETE (and fills *out), PARTIAL or BAD
 * as the two parsers do. */
static inline enum parse_outcome parse_request(const char *buf, size_t len,
					       struct http_request *out)
{
	enum parse_outcome r = parse_request_line(buf, len, &out->line);
	if (r != PARSE_COMPLETE)
		return r;
	uint32_t line_len = out->line.line_len;
	r = parse_headers(buf + line_len, len - line_len, &out->headers);
	if (r != PARSE_COMPLETE)
		return r;
	out->head_len = line_len + out->headers.block_len;
	return PARSE_COMPLETE;
}

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_HTTP_REQUEST_H */
