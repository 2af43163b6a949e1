/* Reference C request-line and header-block parsers (contracts in http_parse.h).
 *
 * Both walk the buffer once, front to back, and stop at the first byte that decides the
 * outcome. Running out of bytes before a decision is PARTIAL; the caller re-parses from
 * the start when more bytes arrive (heads are at most 16 KiB, so this stays cheap and the
 * parsers keep no state between calls). */
#include "common/http/http_parse.h"

#include "common/base/char_class.h"
#include "common/http/http_host.h"
#include "common/base/span.h"

#define VERSION_PREFIX "HTTP/1."
#define VERSION_PREFIX_LEN (sizeof(VERSION_PREFIX) - 1)
STATIC_ASSERT(VERSION_PREFIX_LEN == 7, "HTTP/1. is seven bytes");

static inline int has_class(unsigned char c, uint8_t cls)
{
	return (http_char_class[c] & cls) != 0;
}

/* Expects the CR of a CRLF at buf[i]. Returns COMPLETE when buf[i..i+1] is CRLF, PARTIAL
 * when the buffer ends first, BAD for anything else (a bare CR). */
static enum parse_outcome expect_crlf(const char *buf, size_t len, size_t i)
{
	if (i >= len)
		return PARSE_PARTIAL;
	if (buf[i] != '\r')
		return PARSE_BAD;
	if (i + 1 >= len)
		return PARSE_PARTIAL;
	return buf[i + 1] == '\n' ? PARSE_COMPLETE : PARSE_BAD;
}

/* method: 1-16 bytes of A-Z, then SP. On COMPLETE stores the method and sets *i to the
 * byte after the SP. */
static enum parse_outcome parse_method(const char *buf, size_t len, size_t *i,
				       struct request_line *out)
{
	size_t n = 0;
	for (;;) {
		if (n == len)
			return PARSE_PARTIAL;
		if (!has_class((unsigned char)buf[n], CC_UPPER))
			break;
		if (++n > HTTP_METHOD_MAX)
			return PARSE_BAD;
	}
	if (n == 0 || buf[n] != ' ')
		return PARSE_BAD;
	if (n == 3 && span_eq(buf, "GET", 3))
		out->method = HTTP_METHOD_GET;
	else if (n == 4 && span_eq(buf, "HEAD", 4))
		out->method = HTTP_METHOD_HEAD;
	else
		out->method = HTTP_METHOD_OTHER;
	*i = n + 1;
	return PARSE_COMPLETE;
}

/* target at *i: 0x21-0x7e bytes, at most HTTP_TARGET_MAX, the first not '?' (its form,
 * '/' or an absolute URI or '*', is http_request.c's business), then SP. On COMPLETE
 * stores target, target_len and path_len and moves *i past the SP; TARGET_TOO_LONG at
 * the target byte one past HTTP_TARGET_MAX. */
static enum parse_outcome parse_target(const char *buf, size_t len, size_t *i,
				       struct request_line *out)
{
	size_t target = *i;
	size_t k = target;
	size_t path_end = 0;
	if (k == len)
		return PARSE_PARTIAL;
	if (!has_class((unsigned char)buf[k], CC_TARGET) || buf[k] == '?')
		return PARSE_BAD;
	for (;;) {
		if (k == len)
			return PARSE_PARTIAL;
		unsigned char c = (unsigned char)buf[k];
		if (!has_class(c, CC_TARGET))
			break;
		if (c == '?' && path_end == 0)
			path_end = k;
		if (++k - target > HTTP_TARGET_MAX)
			return PARSE_TARGET_TOO_LONG;
	}
	if (buf[k] != ' ')
		return PARSE_BAD;
	out->target = buf + target;
	out->target_len = (uint32_t)(k - target);
	out->path_len = (uint32_t)((path_end ? path_end : k) - target);
	*i = k + 1;
	return PARSE_COMPLETE;
}

/* version at i: HTTP/1.0 or HTTP/1.1, then CRLF. On COMPLETE stores version_minor and
 * line_len. */
static enum parse_outcome parse_version(const char *buf, size_t len, size_t i,
					struct request_line *out)
{
	for (size_t k = 0; k < VERSION_PREFIX_LEN; k++, i++) {
		if (i == len)
			return PARSE_PARTIAL;
		if (buf[i] != VERSION_PREFIX[k])
			return PARSE_BAD;
	}
	if (i == len)
		return PARSE_PARTIAL;
	if (buf[i] != '0' && buf[i] != '1')
		return PARSE_BAD;
	out->version_minor = (uint8_t)(buf[i] - '0');
	i++;
	enum parse_outcome end = expect_crlf(buf, len, i);
	if (end != PARSE_COMPLETE)
		return end;
	out->line_len = (uint32_t)(i + 2);
	return PARSE_COMPLETE;
}

enum parse_outcome parse_request_line(const char *buf, size_t len, struct request_line *out)
{
	size_t i = 0;
	enum parse_outcome r = parse_method(buf, len, &i, out);
	if (r == PARSE_COMPLETE)
		r = parse_target(buf, len, &i, out);
	if (r == PARSE_COMPLETE)
		r = parse_version(buf, len, i, out);
	return r;
}

/* What a field name asks of parse_headers: act on it, record it for the answer, or
 * nothing. */
enum name_kind {
	NAME_OTHER = 0,
	NAME_HOST = 1,
	NAME_CONTENT_LENGTH = 2,
	NAME_TRANSFER_ENCODING = 3,
	NAME_CONNECTION = 4,
	NAME_RECORDED = 5, /* NAME_RECORDED + id: a line of enum recorded_field id */
};

/* The first four bytes of a name, as one little-endian word, with the ASCII case bit set
 * in each (FOLD4 of the lowercase literal). A name equal to a literal ignoring case
 * always folds to the literal's word; the word only picks which literal to compare the
 * rest with, so a byte that folds like a letter without being one cannot cause a match. */
#define FOLD4(a, b, c, d) \
	((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define ASCII_CASE_BITS4 FOLD4(0x20, 0x20, 0x20, 0x20)
#define NAME_SWITCH_LEN 4 /* bytes the switch reads: every name below has them */

static uint32_t folded4(const char *p)
{
	const unsigned char *b = (const unsigned char *)p;
	return FOLD4(b[0], b[1], b[2], b[3]) | ASCII_CASE_BITS4;
}

/* Returns kind when name[0..len) is the lowercase literal lit ignoring case, given that
 * its first NAME_SWITCH_LEN bytes already are; else NAME_OTHER. */
static int named(const char *name, size_t len, const char *lit, size_t lit_len, int kind)
{
	if (len != lit_len || !span_ieq(name + NAME_SWITCH_LEN, lit + NAME_SWITCH_LEN,
					len - NAME_SWITCH_LEN))
		return NAME_OTHER;
	return kind;
}
#define NAMED(name, len, lit, kind) named(name, len, LITERAL(lit), kind)

/* The recorded fields' names, by enum recorded_field. */
#define RECORDED_FIELD_NAME(id, name) [FIELD_##id] = {LITERAL(name)},
static const struct text_span recorded_names[RECORDED_FIELD_COUNT] = {
	FOR_EACH_RECORDED_FIELD(RECORDED_FIELD_NAME)
};
#undef RECORDED_FIELD_NAME

/* NAME_RECORDED + id when name[0..len) is recorded field id's name, else NAME_OTHER. */
static int recorded(const char *name, size_t len, enum recorded_field id)
{
	return named(name, len, recorded_names[id].text, recorded_names[id].len,
		     NAME_RECORDED + (int)id);
}

/* Classifies a field name (1..HTTP_HEADER_NAME_MAX tchar) by a switch on its first four
 * bytes, as lwan's parse_headers does, then one compare of the rest. Returns an enum
 * name_kind value. */
static int name_kind(const char *name, size_t len)
{
	if (len < NAME_SWITCH_LEN)
		return NAME_OTHER;
	switch (folded4(name)) {
	case FOLD4('h', 'o', 's', 't'):
		return NAMED(name, len, "host", NAME_HOST);
	case FOLD4('c', 'o', 'n', 't'):
		return NAMED(name, len, "content-length", NAME_CONTENT_LENGTH);
	case FOLD4('c', 'o', 'n', 'n'):
		return NAMED(name, len, "connection", NAME_CONNECTION);
	case FOLD4('t', 'r', 'a', 'n'):
		return NAMED(name, len, "transfer-encoding", NAME_TRANSFER_ENCODING);
	case FOLD4('i', 'f', '-', 'n'):
		return recorded(name, len, FIELD_IF_NONE_MATCH);
	case FOLD4('i', 'f', '-', 'm'):
		return recorded(name, len, FIELD_IF_MODIFIED_SINCE);
	case FOLD4('i', 'f', '-', 'r'):
		return recorded(name, len, FIELD_IF_RANGE);
	case FOLD4('r', 'a', 'n', 'g'):
		return recorded(name, len, FIELD_RANGE);
	case FOLD4('a', 'c', 'c', 'e'):
		if (len == recorded_names[FIELD_ACCEPT].len)
			return recorded(name, len, FIELD_ACCEPT);
		return recorded(name, len, FIELD_ACCEPT_ENCODING);
	default:
		return NAME_OTHER;
	}
}

/* Content-Length: 1-19 digits and nothing else. Returns 1 and stores the value, or 0. */
static int parse_content_length(const char *v, size_t n, uint64_t *value)
{
	if (n == 0 || n > HTTP_CONTENT_LENGTH_MAX)
		return 0;
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		if (!has_class((unsigned char)v[i], CC_DIGIT))
			return 0;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	*value = x;
	return 1;
}

/* 1 when the token v[0..n) is the lowercase literal lit, ignoring case. */
#define TOKEN_IS(v, n, lit) ((n) == sizeof(lit) - 1 && span_ieq((v), lit, sizeof(lit) - 1))

/* Connection: a comma-separated token list (RFC 9110 7.6.1). Returns what it asks for;
 * tokens other than close and keep-alive (upgrade, TE, ...) are ignored. */
static enum http_connection parse_connection(const char *v, size_t n)
{
	enum http_connection result = HTTP_CONNECTION_NONE;
	size_t i = 0;
	while (i < n) {
		while (i < n && (v[i] == ',' || has_class((unsigned char)v[i], CC_OWS)))
			i++;
		size_t start = i;
		while (i < n && v[i] != ',' && !has_class((unsigned char)v[i], CC_OWS))
			i++;
		size_t tlen = i - start;
		if (TOKEN_IS(v + start, tlen, "close"))
			result = HTTP_CONNECTION_CLOSE;
		else if (TOKEN_IS(v + start, tlen, "keep-alive") && result == HTTP_CONNECTION_NONE)
			result = HTTP_CONNECTION_KEEP_ALIVE;
	}
	return result;
}

/* One header field the parser found: name and value, OWS trimmed from the value. */
struct header_field {
	const char *name;
	const char *value;
	size_t name_len;
	size_t value_len;
};

/* Parses one `name ":" OWS value OWS CRLF` line at buf[*i]. On COMPLETE fills *f and
 * moves *i past the CRLF. */
static enum parse_outcome parse_field(const char *buf, size_t len, size_t *i,
				      struct header_field *f)
{
	size_t k = *i;
	size_t name = k; /* field-name: 1-64 tchar, then ':' with no space before it */
	while (k < len && has_class((unsigned char)buf[k], CC_TCHAR))
		if (++k - name > HTTP_HEADER_NAME_MAX)
			return PARSE_BAD;
	if (k == len)
		return PARSE_PARTIAL;
	if (k == name || buf[k] != ':')
		return PARSE_BAD; /* obs-fold, empty name, space, bare LF, control byte */
	f->name = buf + name;
	f->name_len = k - name;
	k++;
	while (k < len && has_class((unsigned char)buf[k], CC_OWS))
		k++;
	size_t value = k;
	while (k < len && has_class((unsigned char)buf[k], CC_VALUE))
		k++;
	enum parse_outcome eol = expect_crlf(buf, len, k);
	if (eol != PARSE_COMPLETE)
		return eol;
	size_t value_end = k;
	while (value_end > value && has_class((unsigned char)buf[value_end - 1], CC_OWS))
		value_end--;
	f->value = buf + value;
	f->value_len = value_end - value;
	*i = k + 2;
	return PARSE_COMPLETE;
}

/* Records field f, a line of recorded field id in the block buf, in out->field[].
 * Returns COMPLETE, or BAD when the table is full or the value ends past
 * FIELD_LINE_END_MAX (neither happens within HTTP_HEAD_MAX bytes: http_parse.h). */
static enum parse_outcome record_field(const char *buf, const struct header_field *f,
				       enum recorded_field id, struct header_block *out)
{
	size_t at = (size_t)(f->value - buf);
	if (out->field_count == HEADER_FIELD_LINES_MAX || at + f->value_len > FIELD_LINE_END_MAX)
		return PARSE_BAD;
	struct field_line *line = &out->field[out->field_count++];
	line->at = (uint16_t)at;
	line->len = (uint16_t)f->value_len;
	line->id = (uint8_t)id;
	out->fields_seen |= (uint8_t)(1u << id);
	return PARSE_COMPLETE;
}

/* Records what field f (a line of the block buf) means for the request in *out.
 * Returns COMPLETE, or BAD for a field that makes the head invalid. */
static enum parse_outcome apply_field(const char *buf, const struct header_field *f,
				      struct header_block *out)
{
	int kind = name_kind(f->name, f->name_len);
	switch (kind) {
	case NAME_OTHER:
		return PARSE_COMPLETE;
	case NAME_HOST:
		if (out->host_count++ || !http_host_valid(f->value, f->value_len))
			return PARSE_BAD;
		out->host_at = (uint16_t)(f->value - buf); /* the block fits 16 bits */
		out->host_len = (uint16_t)f->value_len;
		return PARSE_COMPLETE;
	case NAME_CONTENT_LENGTH: {
		uint64_t cl;
		if (!parse_content_length(f->value, f->value_len, &cl))
			return PARSE_BAD;
		if (out->has_content_length && out->content_length != cl)
			return PARSE_BAD;
		out->content_length = cl;
		out->has_content_length = 1;
		return PARSE_COMPLETE;
	}
	case NAME_TRANSFER_ENCODING:
		return PARSE_BAD; /* the daemon reads no bodies: BEHAVIOUR 6, framing */
	case NAME_CONNECTION: {
		enum http_connection c = parse_connection(f->value, f->value_len);
		if (c > out->connection)
			out->connection = (uint8_t)c;
		return PARSE_COMPLETE;
	}
	default:
		return record_field(buf, f, (enum recorded_field)(kind - NAME_RECORDED), out);
	}
}

enum parse_outcome parse_headers(const char *buf, size_t len, struct header_block *out)
{
	size_t i = 0;
	out->content_length = 0;
	out->connection = HTTP_CONNECTION_NONE;
	out->has_content_length = 0;
	out->host_count = 0;
	out->fields_seen = 0;
	out->field_count = 0;

	for (;;) {
		if (i == len)
			return PARSE_PARTIAL;
		if (buf[i] == '\r') { /* the empty line that ends the head */
			enum parse_outcome end = expect_crlf(buf, len, i);
			if (end != PARSE_COMPLETE)
				return end;
			out->block_len = (uint32_t)(i + 2);
			return PARSE_COMPLETE;
		}
		struct header_field f;
		enum parse_outcome r = parse_field(buf, len, &i, &f);
		if (r == PARSE_COMPLETE)
			r = apply_field(buf, &f, out);
		if (r != PARSE_COMPLETE)
			return r;
	}
}
