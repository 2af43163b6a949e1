/* libFuzzer target: the C request parser (parse_request, and parse_request_line alone).
 * Besides the sanitizers it checks the parser's contract (common/http/http_parse.h): a
 * COMPLETE head lies inside the input and within 16 KiB, its target inside the head and
 * starting with '/' (or the static "/" of an absolute-form target without a path, or the
 * "*" of an OPTIONS), the authority of an absolute-form target inside the head, the
 * lengths consistent; the outcome is one of the four (a
 * TARGET_TOO_LONG only with more than HTTP_TARGET_MAX bytes after the method); the
 * recorded field lines are exactly the block's lines with a recorded name, in order, each
 * span the line's value with OWS trimmed (checked against this file's own walk). */
#include <strings.h>

#include "common/http/http_request.h"
#include "test/fuzz/fuzz_common.h"

/* The recorded fields' names, by enum recorded_field. */
#define RECORDED_NAME(id, name) name,
static const char *const recorded_names[RECORDED_FIELD_COUNT] = {
	FOR_EACH_RECORDED_FIELD(RECORDED_NAME)};
#undef RECORDED_NAME

/* The enum recorded_field of the name [name, name + len), or RECORDED_FIELD_COUNT. */
static unsigned recorded_id(const char *name, size_t len)
{
	unsigned id = 0;
	while (id < RECORDED_FIELD_COUNT &&
	       !(strlen(recorded_names[id]) == len && !strncasecmp(name, recorded_names[id], len)))
		id++;
	return id;
}

static int is_ows(char c)
{
	return c == ' ' || c == '\t';
}

/* Checks h's recorded lines against a walk of its COMPLETE block [block, + block_len):
 * every line is name ':' value CRLF, the last one empty. */
static void check_recorded(const char *block, const struct header_block *h)
{
	uint32_t n = 0;
	unsigned seen = 0;
	for (const char *line = block; line[0] != '\r';) {
		const char *colon = memchr(line, ':', (size_t)(block + h->block_len - line));
		const char *cr = memchr(colon, '\r', (size_t)(block + h->block_len - colon));
		FUZZ_CHECK(colon && cr);
		unsigned id = recorded_id(line, (size_t)(colon - line));
		if (id < RECORDED_FIELD_COUNT) {
			const char *v = colon + 1, *v_end = cr;
			while (v < v_end && is_ows(*v))
				v++;
			while (v_end > v && is_ows(v_end[-1]))
				v_end--;
			FUZZ_CHECK(n < h->field_count && h->field[n].id == id);
			FUZZ_CHECK(block + h->field[n].at == v && h->field[n].len == v_end - v);
			seen |= 1u << id;
			n++;
		}
		line = cr + 2;
	}
	FUZZ_CHECK(n == h->field_count && seen == h->fields_seen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len;
	const char *buf = fuzz_guarded_copy(data, size, &len);
	struct http_request req;
	enum parse_outcome r = parse_request(buf, len, &req);
	FUZZ_CHECK(r == PARSE_COMPLETE || r == PARSE_PARTIAL || r == PARSE_BAD ||
		   r == PARSE_TARGET_TOO_LONG);
	if (r == PARSE_TARGET_TOO_LONG) /* SP, then '/' and HTTP_TARGET_MAX more target bytes */
		FUZZ_CHECK(len > HTTP_TARGET_MAX + 2);
	if (r == PARSE_COMPLETE) {
		const struct request_line *l = &req.line;
		FUZZ_CHECK(req.head_len <= len && req.head_len <= HTTP_HEAD_MAX);
		FUZZ_CHECK(req.head_len == l->line_len + req.headers.block_len);
		int inside = l->target >= buf && l->target + l->target_len <= buf + l->line_len;
		FUZZ_CHECK(inside || (req.target_form == TARGET_ABSOLUTE && l->target_len == 1));
		FUZZ_CHECK(l->target[0] == '/' ||
			   (req.target_form == TARGET_ASTERISK && l->target_len == 1 &&
			    l->target[0] == '*' && l->method == HTTP_METHOD_OPTIONS));
		FUZZ_CHECK(req.target_form == TARGET_ABSOLUTE
				   ? req.authority > buf && req.authority_len >= 1 &&
					     req.authority + req.authority_len <= buf + l->line_len
				   : req.authority == 0);
		FUZZ_CHECK(l->target_len >= 1 && l->target_len <= HTTP_TARGET_MAX);
		FUZZ_CHECK(l->path_len >= 1 && l->path_len <= l->target_len);
		FUZZ_CHECK(l->method <= HTTP_METHOD_OPTIONS && l->version_minor <= 1);
		FUZZ_CHECK(req.headers.connection <= HTTP_CONNECTION_CLOSE);
		FUZZ_CHECK(req.headers.host_count <= 1);
		FUZZ_CHECK(buf[req.head_len - 1] == '\n' && buf[req.head_len - 2] == '\r');
		check_recorded(buf + l->line_len, &req.headers);
	}
	struct request_line line;
	enum parse_outcome rl = parse_request_line(buf, len, &line);
	if (r == PARSE_COMPLETE) /* a complete head starts with a complete request line */
		FUZZ_CHECK(rl == PARSE_COMPLETE && line.line_len == req.line.line_len);
	if (rl == PARSE_BAD || rl == PARSE_TARGET_TOO_LONG) /* the head is decided by its line */
		FUZZ_CHECK(r == rl);
	return 0;
}
