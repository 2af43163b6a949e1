/* What a GET or HEAD of a cached file gets (see file_answer.h). */
#include "common/answer/file_answer.h"

#include "common/base/char_class.h"

#include "common/http/http_date.h"
#include "common/http/http_fields.h"

#define RANGE_UNIT "bytes="
#define WEAK_PREFIX "W/"

static int is_list_space(char c)
{
	return c == ' ' || c == '\t' || c == ',';
}

/* Moves p past OWS (spaces and tabs), not beyond end. */
static const char *skip_ows(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* Moves p past OWS and commas (empty list members), not beyond end. */
static const char *skip_list_space(const char *p, const char *end)
{
	while (p < end && is_list_space(*p))
		p++;
	return p;
}

/* 1 for an etagc byte of RFC 9110 8.8.3 (obs-text never reaches here: 6.3). */
static int is_etagc(char c)
{
	return c == 0x21 || (c >= 0x23 && c <= 0x7e);
}

/* The end of the opaque-tag that starts at p ('"'), the byte after its closing quote, or
 * NULL when it is unterminated or holds a byte that is no etagc. */
static const char *opaque_tag_end(const char *p, const char *end)
{
	for (p++; p < end && *p != '"'; p++)
		if (!is_etagc(*p))
			return 0;
	return p < end ? p + 1 : 0;
}

enum etag_list etag_list_read(struct text_span list, const char *etag, size_t etag_len)
{
	const char *p = list.text, *end = list.text + list.len;
	if (list.len == 1 && *p == '*')
		return ETAG_LIST_ANY;
	enum etag_list r = ETAG_LIST_NO_MATCH;
	for (;;) {
		p = skip_list_space(p, end);
		if (p == end)
			return r;
		if (end - p >= 2 && span_eq(p, LITERAL(WEAK_PREFIX)))
			p += 2; /* the weak comparison ignores it */
		const char *tag = p;
		p = p < end && *p == '"' ? opaque_tag_end(p, end) : 0;
		if (!p)
			return ETAG_LIST_INVALID;
		if ((size_t)(p - tag) == etag_len && span_eq(tag, etag, etag_len))
			r = ETAG_LIST_MATCH;
		p = skip_ows(p, end);
		if (p < end && *p != ',')
			return ETAG_LIST_INVALID; /* junk after a member */
	}
}

enum range_outcome range_parse(struct text_span value, uint64_t size, uint64_t *first,
			       uint64_t *last)
{
	const char *p = value.text, *end = value.text + value.len;
	if (value.len < sizeof(RANGE_UNIT) - 1 || !span_ieq(p, LITERAL(RANGE_UNIT)))
		return RANGE_IGNORED;
	p = skip_list_space(p + sizeof(RANGE_UNIT) - 1, end);
	uint64_t a = 0, b = 0;
	int suffix = p < end && *p == '-'; /* "-n": the last n bytes */
	if (!suffix && dec_to_u64(&p, end, &a) == 0)
		return RANGE_IGNORED;
	if (p == end || *p != '-')
		return RANGE_IGNORED;
	p++;
	if (dec_to_u64(&p, end, &b) == 0) {
		if (suffix)
			return RANGE_IGNORED;
		b = UINT64_MAX; /* "a-": to the end */
	}
	if (skip_list_space(p, end) != end || (!suffix && b < a))
		return RANGE_IGNORED; /* a second range, bytes that are no range, or b < a */
	if (suffix) {
		if (b == 0)
			return RANGE_UNSATISFIABLE;
		a = b < size ? size - b : 0;
		b = size - 1;
	}
	if (a >= size)
		return RANGE_UNSATISFIABLE;
	*first = a;
	*last = b < size ? b : size - 1;
	return RANGE_SATISFIABLE;
}

/* Returns 1 when an If-Range value holds for f: an entity-tag strongly equal to f's (a
 * weak one never is: RFC 9110 13.1.5), or a date exactly f's Last-Modified. */
static int if_range_holds(struct text_span v, const struct cached_file *f, wall_second_fn now)
{
	uint64_t date;
	if (v.len && v.text[0] == '"')
		return v.len == f->etag_len && span_eq(v.text, f->etag, v.len);
	return http_date_parse(v.text, v.len, now(), &date) && date == f->mtime;
}

/* Returns 1 when an If-Modified-Since value says f is not modified: a valid date, not in
 * the future (RFC 9110 13.1.3: that is invalid), at or after f's Last-Modified. */
static int not_modified_since(struct text_span v, const struct cached_file *f, wall_second_fn now)
{
	uint64_t date, now_s = now();
	return http_date_parse(v.text, v.len, now_s, &date) && date <= now_s && f->mtime <= date;
}

/* What the request's If-None-Match field, all its lines together (a list may be split
 * over lines: RFC 9110 5.3), says of f: ETAG_LIST_INVALID when a line is, or when "*"
 * shares the field with another line (the field is then "*" / #entity-tag no more). */
static enum etag_list none_match_read(const struct header_block *h, const char *block,
				      const struct cached_file *f)
{
	struct text_span v;
	enum etag_list all = ETAG_LIST_NO_MATCH;
	uint32_t lines = 0;
	for (uint32_t i = 0; header_field_next(h, block, FIELD_IF_NONE_MATCH, &i, &v); lines++) {
		enum etag_list r = etag_list_read(v, f->etag, f->etag_len);
		if (r == ETAG_LIST_INVALID || (r == ETAG_LIST_ANY && lines) ||
		    (all == ETAG_LIST_ANY))
			return ETAG_LIST_INVALID;
		if (r > all)
			all = r;
	}
	return all;
}

enum file_status file_status_of(const struct header_block *h, const char *block, int head_only,
				const struct cached_file *f, wall_second_fn now, uint64_t *first,
				uint64_t *last)
{
	struct text_span v, range;
	/* If-None-Match, when present and valid, decides: If-Modified-Since is then ignored
	 * (13.1.3). An invalid one is as if absent. */
	enum etag_list inm = header_field_seen(h, FIELD_IF_NONE_MATCH)
				     ? none_match_read(h, block, f)
				     : ETAG_LIST_INVALID;
	if (inm != ETAG_LIST_INVALID) {
		if (inm == ETAG_LIST_MATCH || inm == ETAG_LIST_ANY)
			return FILE_STATUS_304;
	} else if (header_field_first(h, block, FIELD_IF_MODIFIED_SINCE, &v) &&
		   not_modified_since(v, f, now)) {
		return FILE_STATUS_304;
	}
	/* Range is defined for GET only (14.2); an empty file has no range to give. Of a
	 * repeated Range or If-Range, the first line counts. */
	if (head_only || f->size == 0 || !header_field_first(h, block, FIELD_RANGE, &range))
		return FILE_STATUS_200;
	if (header_field_first(h, block, FIELD_IF_RANGE, &v) && !if_range_holds(v, f, now))
		return FILE_STATUS_200;
	switch (range_parse(range, f->size, first, last)) {
	case RANGE_SATISFIABLE:
		return FILE_STATUS_206;
	case RANGE_UNSATISFIABLE:
		return FILE_STATUS_416;
	default:
		return FILE_STATUS_200;
	}
}

#define WEIGHT_MAX 1000 /* q=1 in thousandths */
#define Q_PARAM "q="

/* The codings Accept-Encoding may name that matter here, and their encodings. */
static const struct {
	struct text_span name;
	uint8_t encoding; /* enum file_encoding */
} coding_names[] = {
	{{LITERAL("br")}, FILE_ENCODING_BR},
	{{LITERAL("zstd")}, FILE_ENCODING_ZSTD},
	{{LITERAL("gzip")}, FILE_ENCODING_GZIP},
	{{LITERAL("x-gzip")}, FILE_ENCODING_GZIP}, /* RFC 9110 8.4.1.3: the same as gzip */
	{{LITERAL("identity")}, FILE_ENCODING_IDENTITY},
};
#define CODING_NAMES (sizeof(coding_names) / sizeof(coding_names[0]))

/* Reads a qvalue (RFC 9110 12.4.2: "0" or "1", then up to three decimals, "1" only with
 * zeros) from [p, end) into *q in thousandths. Returns the byte after it, or NULL when
 * it is malformed. */
static const char *read_qvalue(const char *p, const char *end, int *q)
{
	if (p == end || (*p != '0' && *p != '1'))
		return 0;
	int one = *p++ == '1', v = one ? WEIGHT_MAX : 0, scale = WEIGHT_MAX / 10;
	if (p < end && *p == '.') {
		for (p++; p < end && *p >= '0' && *p <= '9' && scale > 0; p++, scale /= 10) {
			if (one && *p != '0')
				return 0;
			v += (*p - '0') * scale;
		}
	}
	*q = v;
	return p;
}

/* Reads the weight after a coding at [p, end) ("; q=0.5"), up to the next comma or the
 * end. Returns it in thousandths (1000 without one), or -1 when the member is malformed:
 * another parameter, a bad qvalue, a second weight or other bytes after it (RFC 9110
 * 12.4.2: `[ weight ]`, one at most). */
static int member_weight(const char *p, const char *end)
{
	int q = WEIGHT_MAX;
	p = skip_ows(p, end);
	if (p < end && *p == ';') {
		p = skip_ows(p + 1, end);
		if (end - p < 2 || !span_ieq(p, LITERAL(Q_PARAM)))
			return -1; /* Accept-Encoding defines no other parameter */
		p = read_qvalue(p + 2, end, &q);
		if (!p)
			return -1;
		p = skip_ows(p, end);
	}
	return p == end || *p == ',' ? q : -1;
}

/* Records the weight q of the coding name[0..len) in *w (ignored when not one of ours). */
static void note_weight(const char *name, size_t len, int q, struct coding_weights *w)
{
	if (len == 1 && name[0] == '*') {
		w->star = (int16_t)q;
		return;
	}
	for (size_t i = 0; i < CODING_NAMES; i++)
		if (len == coding_names[i].name.len && span_ieq(name, coding_names[i].name.text, len))
			w->q[coding_names[i].encoding] = (int16_t)q;
}

void accept_encoding_weigh(struct text_span value, struct coding_weights *w)
{
	const char *p = value.text, *end = value.text + value.len;
	for (;;) {
		p = skip_list_space(p, end);
		if (p == end)
			return;
		const char *name = p;
		while (p < end && *p != ',' && *p != ';' && *p != ' ' && *p != '\t')
			p++;
		size_t name_len = (size_t)(p - name);
		int q = member_weight(p, end);
		if (q >= 0)
			note_weight(name, name_len, q, w);
		while (p < end && *p != ',')
			p++; /* past the parameters, to the next member */
	}
}

enum file_encoding coding_choice(const struct coding_weights *w, unsigned available)
{
	enum file_encoding best = FILE_ENCODING_IDENTITY;
	int best_q = 0;
	for (int e = FILE_ENCODING_IDENTITY + 1; e < FILE_ENCODING_COUNT; e++) {
		int q = w->q[e] >= 0 ? w->q[e] : w->star;
		if (((available >> e) & 1u) && q > best_q) { /* strict: the earlier wins a tie */
			best = (enum file_encoding)e;
			best_q = q;
		}
	}
	return w->q[FILE_ENCODING_IDENTITY] > best_q ? FILE_ENCODING_IDENTITY : best;
}

const struct cached_file *file_representation(const struct header_block *h, const char *block,
					      const struct cached_file *f)
{
	struct coding_weights w = {{-1, -1, -1, -1}, -1};
	STATIC_ASSERT(FILE_ENCODING_COUNT == 4, "one initialiser per encoding");
	struct text_span v;
	unsigned available = 0;
	for (uint32_t i = 0; header_field_next(h, block, FIELD_ACCEPT_ENCODING, &i, &v);)
		accept_encoding_weigh(v, &w);
	for (int e = FILE_ENCODING_IDENTITY + 1; e < FILE_ENCODING_COUNT; e++)
		if (f->variant[e - 1])
			available |= 1u << e;
	enum file_encoding chosen = coding_choice(&w, available);
	return chosen == FILE_ENCODING_IDENTITY ? f : f->variant[chosen - 1];
}

#define MEDIA_HTML "text/html"

/* Raises *html to the weight of each text/html member of one Accept line v, and *other to
 * that of each other member (accept_prefers_html). */
static void accept_line_weights(struct text_span v, int *html, int *other)
{
	const char *p = v.text, *end = v.text + v.len;
	while ((p = skip_list_space(p, end)) < end) {
		const char *range = p;
		while (p < end && *p != ',' && *p != ';' && *p != ' ' && *p != '\t')
			p++;
		size_t n = (size_t)(p - range);
		int q = member_weight(p, end);
		while (p < end && *p != ',')
			p++; /* the next member */
		int *w = n == sizeof(MEDIA_HTML) - 1 && span_ieq(range, LITERAL(MEDIA_HTML)) ? html
											 : other;
		if (q > *w)
			*w = q;
	}
}

int accept_prefers_html(const struct header_block *h, const char *block)
{
	int html = -1, other = -1; /* -1: not named */
	struct text_span v;
	for (uint32_t i = 0; header_field_next(h, block, FIELD_ACCEPT, &i, &v);)
		accept_line_weights(v, &html, &other);
	return html > 0 && html >= other;
}
