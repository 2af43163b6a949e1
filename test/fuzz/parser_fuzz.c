/* libFuzzer target: the C request parser (parse_request, and parse_request_line alone).
 * Besides the sanitizers it checks the parser's contract (common/http/http_parse.h): a
 * COMPLETE head lies inside the input and within 8 KiB, its target inside the head and
 * starting with '/', the lengths consistent; the outcome is one of the three. */
#include "common/http/http_request.h"
#include "test/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len;
	const char *buf = fuzz_guarded_copy(data, size, &len);
	struct http_request req;
	enum parse_outcome r = parse_request(buf, len, &req);
	FUZZ_CHECK(r == PARSE_COMPLETE || r == PARSE_PARTIAL || r == PARSE_BAD);
	if (r == PARSE_COMPLETE) {
		const struct request_line *l = &req.line;
		FUZZ_CHECK(req.head_len <= len && req.head_len <= HTTP_HEAD_MAX);
		FUZZ_CHECK(req.head_len == l->line_len + req.headers.block_len);
		FUZZ_CHECK(l->target >= buf && l->target + l->target_len <= buf + l->line_len);
		FUZZ_CHECK(l->target[0] == '/');
		FUZZ_CHECK(l->target_len >= 1 && l->target_len <= HTTP_TARGET_MAX);
		FUZZ_CHECK(l->path_len >= 1 && l->path_len <= l->target_len);
		FUZZ_CHECK(l->method <= HTTP_METHOD_OTHER && l->version_minor <= 1);
		FUZZ_CHECK(req.headers.connection <= HTTP_CONNECTION_CLOSE);
		FUZZ_CHECK(req.headers.host_count <= 1);
		FUZZ_CHECK(buf[req.head_len - 1] == '\n' && buf[req.head_len - 2] == '\r');
	}
	struct request_line line;
	enum parse_outcome rl = parse_request_line(buf, len, &line);
	if (r == PARSE_COMPLETE) /* a complete head starts with a complete request line */
		FUZZ_CHECK(rl == PARSE_COMPLETE && line.line_len == req.line.line_len);
	if (rl == PARSE_BAD) /* a bad request line is never part of a good head */
		FUZZ_CHECK(r == PARSE_BAD);
	return 0;
}
