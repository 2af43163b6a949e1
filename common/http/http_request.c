/* parse_request: the request line, then the header block, then the target's form
 * (contracts in http_request.h). */
#include "common/http/http_request.h"

#include "common/base/span.h"
#include "common/http/http_host.h"

/* The path of an absolute-form target that has none (RFC 9112 3.2.1: "/" for an empty
 * path). */
static const char root_path[] = "/";

/* Points line at the path and query after an authority that ends at line->target[at]
 * ('/', '?' or the target's end). */
static void target_from(struct request_line *line, uint32_t at)
{
	if (at == line->target_len || line->target[at] != '/') {
		line->target = root_path;
		line->target_len = line->path_len = sizeof(root_path) - 1;
		return;
	}
	line->target += at;
	line->target_len -= at;
	line->path_len = line->path_len > at ? line->path_len - at : 0;
}

/* An absolute-form target: "http://" (scheme ignoring case), a non-empty host[:port]
 * (http_host_valid, which refuses userinfo's '@'), then '/', '?' or the end. */
static enum parse_outcome resolve_absolute(struct http_request *out)
{
	struct request_line *line = &out->line;
	uint32_t scheme = sizeof(TARGET_HTTP_SCHEME) - 1;
	if (line->target_len < scheme || !span_ieq(line->target, LITERAL(TARGET_HTTP_SCHEME)))
		return PARSE_BAD;
	uint32_t end = scheme;
	while (end < line->target_len && line->target[end] != '/' && line->target[end] != '?')
		end++;
	const char *authority = line->target + scheme;
	uint32_t len = end - scheme;
	if (len == 0 || authority[0] == ':' || !http_host_valid(authority, len))
		return PARSE_BAD; /* RFC 9110 4.2.1: an http URI has a host */
	out->authority = authority;
	out->authority_len = len;
	out->target_form = TARGET_ABSOLUTE;
	target_from(line, end);
	return PARSE_COMPLETE;
}

enum parse_outcome request_target_resolve(struct http_request *out)
{
	out->authority = 0;
	out->authority_len = 0;
	out->target_form = TARGET_ORIGIN;
	if (out->line.target[0] == '/')
		return PARSE_COMPLETE;
	if (out->line.target_len == 1 && out->line.target[0] == '*') {
		out->target_form = TARGET_ASTERISK;
		return out->line.method == HTTP_METHOD_OPTIONS ? PARSE_COMPLETE : PARSE_BAD;
	}
	return resolve_absolute(out);
}

/* The method OPTIONS, with its SP (the parsers say only OTHER for it). */
#define OPTIONS_SP "OPTIONS "

enum parse_outcome parse_request(const char *buf, size_t len, struct http_request *out)
{
	enum parse_outcome r = parse_request_line(buf, len, &out->line);
	if (r == PARSE_COMPLETE && out->line.method == HTTP_METHOD_OTHER &&
	    span_eq(buf, LITERAL(OPTIONS_SP)))
		out->line.method = HTTP_METHOD_OPTIONS; /* a complete line is longer than it */
	if (r == PARSE_COMPLETE)
		r = request_target_resolve(out);
	if (r != PARSE_COMPLETE)
		return r;
	uint32_t line_len = out->line.line_len;
	r = parse_headers(buf + line_len, len - line_len, &out->headers);
	if (r != PARSE_COMPLETE)
		return r;
	out->head_len = line_len + out->headers.block_len;
	return PARSE_COMPLETE;
}
