/* /metrics rendering and the choice of its form (see metrics.h). */
#include "common/answer/metrics.h"

#include "common/http/http_fields.h"

/* One line of a body: its fixed text, then (unless METRICS_NO_VALUE) a value and LF. */
struct metrics_line {
	struct text_span text;
	uint8_t value; /* counter_id, metrics_derived or METRICS_NO_VALUE */
};

/* The original form: "name " and the counter, in FOR_EACH_COUNTER order. */
static const struct metrics_line plain_lines[] = {
#define PLAIN_LINE(name) {{LITERAL(#name " ")}, C_##name},
	FOR_EACH_COUNTER(PLAIN_LINE)
#undef PLAIN_LINE
};

static const struct metrics_line prometheus_lines[] = {
#define FAMILY_LINE(name, type, help) \
	{{LITERAL(METRICS_FAMILY_TEXT(name, type, help))}, METRICS_NO_VALUE},
#define SAMPLE_LINE(series, value) {{LITERAL(series " ")}, value},
	FOR_EACH_PROMETHEUS_LINE(FAMILY_LINE, SAMPLE_LINE)
#undef FAMILY_LINE
#undef SAMPLE_LINE
};

/* The tier apollod_build_info names: "none" here, a weak definition that the daemon's
 * own (common/main/daemon_main.c, compiled with the tier's APOLLOD_TIER_NAME) replaces at
 * link time; the unit tests' host build keeps this one. Read-only either way. */
__attribute__((weak)) const char apollod_tier_name[] = "none";

/* The status counters' sum (counters.h: requests_total is derived, never stored). */
static uint64_t requests_answered(void)
{
	uint64_t answered = 0;
#define ADD_STATUS(name) answered += counter_read(C_##name);
	FOR_EACH_STATUS_COUNTER(ADD_STATUS)
#undef ADD_STATUS
	return answered;
}

/* a - b, or 0 when b is ahead: with --workers a scrape can read one counter of a pair
 * before another worker's add to the other lands (the pair's order is not guaranteed). */
static uint64_t minus_floor0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* A value as /metrics reports it: a counter, or one of metrics_derived. */
static uint64_t metric_value(uint8_t id)
{
	switch (id) {
	case C_requests_total:
		return requests_answered();
	case M_requests_other:
		return minus_floor0(requests_answered(),
				    counter_read(C_requests_get) + counter_read(C_requests_head));
	case M_open_connections: { /* closed first: a connection is accepted before closed */
		uint64_t closed = counter_read(C_connections_closed);
		return minus_floor0(counter_read(C_connections_accepted), closed);
	}
	case M_build_info:
		return 1;
	default:
		return counter_read((enum counter_id)id);
	}
}

/* Skips spaces and tabs from p up to end. Returns the first other byte's address. */
static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* Returns the first byte at or after p, before end, that equals c, or end. */
static const char *find_byte(const char *p, const char *end, char c)
{
	while (p < end && *p != c)
		p++;
	return p;
}

/* 1 when [p, end) with blanks around it removed is `word` (case-insensitive). */
static int trimmed_is(const char *p, const char *end, const char *word, size_t word_len)
{
	p = skip_blanks(p, end);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return (size_t)(end - p) == word_len && span_ieq(p, word, word_len);
}

/* 1 when one media range of an Accept value, [p, end), names a form of the exposition:
 * application/openmetrics-text with any parameters, or text/plain with version=0.0.4. */
static int media_range_wants_exposition(const char *p, const char *end)
{
	const char *semi = find_byte(p, end, ';');
	if (trimmed_is(p, semi, LITERAL("application/openmetrics-text")))
		return 1;
	if (!trimmed_is(p, semi, LITERAL("text/plain")))
		return 0;
	while (semi < end) { /* each parameter */
		const char *next = find_byte(semi + 1, end, ';');
		if (trimmed_is(semi + 1, next, LITERAL("version=0.0.4")))
			return 1;
		semi = next;
	}
	return 0;
}

/* 1 when some media range of some Accept line wants the exposition. q-values are not
 * weighed: naming the format at all asks for it (no client sends it with q=0). */
static int accept_wants_exposition(const struct header_block *h, const char *block)
{
	struct text_span v;
	for (uint32_t i = 0; header_field_next(h, block, FIELD_ACCEPT, &i, &v);) {
		const char *end = v.text + v.len;
		for (const char *p = v.text; p < end;) {
			const char *comma = find_byte(p, end, ',');
			if (media_range_wants_exposition(p, comma))
				return 1;
			p = comma + 1;
		}
	}
	return 0;
}

/* 1 when the query (the target after '?') has the parameter format=prometheus. */
static int query_wants_exposition(const struct request_line *line)
{
	const char *end = line->target + line->target_len;
	for (const char *p = line->target + line->path_len; p < end;) {
		const char *amp = find_byte(p + 1, end, '&'); /* p is at '?' or '&' */
		if ((size_t)(amp - p - 1) == sizeof("format=prometheus") - 1 &&
		    span_eq(p + 1, LITERAL("format=prometheus")))
			return 1;
		p = amp;
	}
	return 0;
}

enum metrics_format metrics_format_wanted(const struct request_line *line,
					  const struct header_block *h, const char *block)
{
	if (query_wants_exposition(line) || accept_wants_exposition(h, block))
		return METRICS_PROMETHEUS;
	return METRICS_PLAIN;
}

/* Writes the n lines at out. Returns one past the last byte written. */
static char *render_lines(char *out, const struct metrics_line *lines, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		out = copy_span(out, lines[i].text.text, lines[i].text.len);
		if (lines[i].value == METRICS_NO_VALUE)
			continue;
		if (lines[i].value == M_build_info) { /* the tier in place of the separator */
			size_t len = cstr_len(apollod_tier_name);
			out = copy_span(out - 1, apollod_tier_name,
					len < METRICS_TIER_MAX ? len : METRICS_TIER_MAX);
			out = copy_span(out, LITERAL("\"} "));
		}
		out += u64_to_dec(metric_value(lines[i].value), out);
		*out++ = '\n';
	}
	return out;
}

struct rendered_response build_metrics(char *out, enum conn_form form,
				       enum metrics_format format)
{
	char *body = out + METRICS_HEAD_RESERVE;
	char *p = format == METRICS_PROMETHEUS
			  ? render_lines(body, prometheus_lines,
					 sizeof(prometheus_lines) / sizeof(prometheus_lines[0]))
			  : render_lines(body, plain_lines, COUNTER_COUNT);
	size_t body_len = (size_t)(p - body);
	size_t type_len = sizeof(METRICS_CONTENT_TYPE) - 1;
	size_t head_len = head_200_len(type_len, body_len, form);
	char *head = body - head_len;
	render_head_200(head, METRICS_CONTENT_TYPE, type_len, body_len, form);

	struct rendered_response r = {
		.bytes = head,
		.head_len = (uint32_t)head_len,
		.total_len = (uint32_t)(head_len + body_len),
	};
	return r;
}
