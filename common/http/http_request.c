/* parse_request: the request line, then the header block (contract in http_request.h). */
#include "common/http/http_request.h"

enum parse_outcome parse_request(const char *buf, size_t len, struct http_request *out)
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
