/* One access-log line: the held record and the line made from it (see access_log_line.h).
 *
 * common:   host - - [date] "request line" status bytes µs coding LF
 * combined: host - - [date] "request line" status bytes "referer" "user-agent" µs coding LF
 * json:     {"remote_addr":..,"time_local":..,"request":..,"status":..,"body_bytes_sent":..,
 *            "http_referer":..,"http_user_agent":..,"service_us":..,"content_encoding":..}
 * and with --site, last, the request's host: " host" ("-": none), or ,"host":.. (null)
 * (BEHAVIOUR 14). */
#include "common/serve/access_log_line.h"

#include "common/base/counters.h"

#define FIELD_REFERER "referer"
#define FIELD_USER_AGENT "user-agent"
#define ESCAPE_HEX_MAX 6 /* \u00XX, the longest escape of one byte */

static const char hex_upper[] = "0123456789ABCDEF";
static const char hex_lower[] = "0123456789abcdef";

/* The three digits of a status counter's code. */
static const char *status_digits(uint8_t status_counter)
{
	switch (status_counter) {
	case C_responses_206: return "206";
	case C_responses_301: return "301";
	case C_responses_304: return "304";
	case C_responses_400: return "400";
	case C_responses_404: return "404";
	case C_responses_405: return "405";
	case C_responses_408: return "408";
	case C_responses_414: return "414";
	case C_responses_204: return "204";
	case C_responses_416: return "416";
	case C_responses_503: return "503";
	case C_responses_302: return "302";
	case C_responses_303: return "303";
	case C_responses_307: return "307";
	case C_responses_308: return "308";
	case C_responses_410: return "410";
	case C_responses_421: return "421";
	default: return "200";
	}
}

/* Writes byte c of a field value escaped for format at p (ESCAPE_HEX_MAX bytes). Returns
 * the bytes written. combined: \xHH (upper-case, as nginx) for a byte outside 0x20-0x7e
 * and for " and \; json (RFC 8259 7): \" and \\, \u00XX (lower-case) for a byte below
 * 0x20 and from 0x7f up (so a line is ASCII whatever the bytes: a byte >= 0x80 reads as
 * the code point of the same number, never as part of a UTF-8 sequence). */
static size_t escape_byte(char *p, unsigned char c, enum access_log_format format)
{
	int plain = c >= 0x20 && c < 0x7f;
	if (plain && c != '"' && c != '\\') {
		p[0] = (char)c;
		return 1;
	}
	if (format == ACCESS_LOG_JSON && plain) {
		p[0] = '\\';
		p[1] = (char)c;
		return 2;
	}
	size_t n = 0;
	p[n++] = '\\';
	if (format == ACCESS_LOG_JSON) {
		p[n++] = 'u';
		p[n++] = '0';
		p[n++] = '0';
	} else {
		p[n++] = 'x';
	}
	const char *hex = format == ACCESS_LOG_JSON ? hex_lower : hex_upper;
	p[n++] = hex[c >> 4];
	p[n++] = hex[c & 0xf];
	return n;
}

/* Writes the value s escaped for format at p, stopping before the escape that would take
 * it past max bytes; sets *used to the bytes of s written. Returns the end. */
static char *put_value_upto(char *p, struct text_span s, enum access_log_format format,
			    size_t max, uint32_t *used)
{
	char *start = p;
	char one[ESCAPE_HEX_MAX];
	uint32_t i = 0;
	for (; i < s.len; i++) {
		size_t n = escape_byte(one, (unsigned char)s.text[i], format);
		if ((size_t)(p - start) + n > max)
			break;
		p = copy_span(p, one, n);
	}
	*used = i;
	return p;
}

/* Writes the value s escaped for format at p, cut (then ACCESS_LOG_CUT_MARK) before the
 * escape that would take it past ACCESS_LOG_VALUE_MAX bytes. Returns the end. */
static char *put_value(char *p, struct text_span s, enum access_log_format format)
{
	uint32_t used = 0;
	char *end = put_value_upto(p, s, format, ACCESS_LOG_VALUE_MAX, &used);
	return used < s.len ? copy_span(end, LITERAL(ACCESS_LOG_CUT_MARK)) : end;
}

/* Copies the request line with '"' and '\' escaped as \" and \\ (its other bytes are
 * 0x21-0x7e and spaces: parse_request_line allows nothing else). */
static char *put_escaped(char *p, struct text_span s)
{
	for (uint32_t i = 0; i < s.len; i++) {
		if (s.text[i] == '"' || s.text[i] == '\\')
			*p++ = '\\';
		*p++ = s.text[i];
	}
	return p;
}

/* Copies the request line s ("METHOD SP target SP HTTP/1.x", as parse_request_line
 * accepted it) escaped, its target cut to ACCESS_LOG_TARGET_MAX bytes and marked when
 * longer. Writes at most ACCESS_LOG_REQUEST_MAX bytes. */
static char *put_request_line(char *p, struct text_span s)
{
	uint32_t target_at = 0;
	while (s.text[target_at] != ' ') /* the method is A-Z only */
		target_at++;
	target_at++;
	uint32_t version_at = s.len - (uint32_t)ACCESS_LOG_VERSION_LEN;
	if (version_at - target_at <= ACCESS_LOG_TARGET_MAX)
		return put_escaped(p, s);
	p = put_escaped(p, (struct text_span){s.text, target_at + ACCESS_LOG_TARGET_MAX});
	p = copy_span(p, LITERAL(ACCESS_LOG_CUT_MARK));
	return copy_span(p, s.text + version_at, ACCESS_LOG_VERSION_LEN); /* nothing to escape */
}

static char lower_ascii(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c + ('a' - 'A')) : c;
}

/* Whether the line at line (its name ending at colon) names `name` (lower case), any
 * case. */
static int names_field(const char *line, uint32_t colon, const char *name, uint32_t len)
{
	if (colon != len)
		return 0;
	for (uint32_t i = 0; i < len; i++)
		if (lower_ascii(line[i]) != name[i])
			return 0;
	return 1;
}

/* The value (OWS trimmed) of the first line of block (a header block parse_headers
 * accepted: lines "name:value" each ending in CRLF) named `name` (lower case), in *out.
 * Returns 1, or 0 when no line names it. */
static int find_field(struct text_span block, const char *name, uint32_t name_len,
		      struct text_span *out)
{
	uint32_t at = 0;
	while (at < block.len) {
		uint32_t colon = at, end = at;
		while (end < block.len && block.text[end] != '\n')
			end++;
		while (colon < end && block.text[colon] != ':')
			colon++;
		if (colon < end && names_field(block.text + at, colon - at, name, name_len)) {
			uint32_t v = colon + 1, e = end - 1; /* e: the CR */
			while (v < e && (block.text[v] == ' ' || block.text[v] == '\t'))
				v++;
			while (e > v && (block.text[e - 1] == ' ' || block.text[e - 1] == '\t'))
				e--;
			*out = (struct text_span){block.text + v, e - v};
			return 1;
		}
		at = end + 1;
	}
	return 0;
}

/* Appends the escaped value of field `name` of req at p and sets *len (ACCESS_LOG_ABSENT
 * when the request has no such line). Returns the end. */
static char *put_field(char *p, const struct access_log_request *req, const char *name,
		       uint32_t name_len, enum access_log_format format, uint16_t *len)
{
	struct text_span v;
	if (!req->fields.len || !find_field(req->fields, name, name_len, &v)) {
		*len = ACCESS_LOG_ABSENT;
		return p;
	}
	char *end = put_value(p, v, format);
	*len = (uint16_t)(end - p);
	return end;
}

size_t access_log_record_make(char *out, const struct access_log_request *req,
			      uint64_t arrived_us, uint64_t response_bytes,
			      enum access_log_format format)
{
	struct access_log_record *r = (struct access_log_record *)(void *)out;
	char *p = out + ACCESS_LOG_RECORD_SIZE;
	*r = (struct access_log_record){.arrived_us = arrived_us, .total = response_bytes,
					.left = response_bytes, .body_bytes = req->body_bytes,
					.status_counter = req->status_counter};
	if (req->coding.len && req->coding.len <= ACCESS_LOG_CODING_MAX) {
		r->coding_len = (uint8_t)req->coding.len;
		copy_span(r->coding, req->coding.text, req->coding.len);
	}
	if (req->line.len)
		p = put_request_line(p, req->line);
	r->request_len = (uint16_t)(p - (out + ACCESS_LOG_RECORD_SIZE));
	r->referer_len = r->agent_len = ACCESS_LOG_ABSENT;
	if (format != ACCESS_LOG_COMMON) {
		p = put_field(p, req, LITERAL(FIELD_REFERER), format, &r->referer_len);
		p = put_field(p, req, LITERAL(FIELD_USER_AGENT), format, &r->agent_len);
	}
	r->vhost_len = ACCESS_LOG_ABSENT;
	if (req->vhost_on) {
		uint32_t used = 0;
		char *end = put_value_upto(p, req->vhost, format, ACCESS_LOG_VHOST_MAX, &used);
		r->vhost_len = (uint16_t)(end - p);
		p = end;
	}
	size_t size = ((size_t)(p - out) + ACCESS_LOG_ALIGN - 1) & ~(size_t)(ACCESS_LOG_ALIGN - 1);
	r->size = (uint16_t)size;
	return size;
}

/* The body bytes r's line reports: all of them once its response has left; else those
 * of the bytes sent that were beyond the head. */
static uint64_t body_sent(const struct access_log_record *r)
{
	uint64_t head = r->total - r->body_bytes, sent = r->total - r->left;
	return r->left == 0 ? r->body_bytes : sent > head ? sent - head : 0;
}

/* The texts a line is made of, found once for every format. */
struct line_parts {
	struct text_span request, referer, agent, coding;
	struct text_span vhost; /* text NULL: no host field (no --site); len 0: none sent */
	uint64_t body, service_us;
};

/* A held text of len bytes at *at (ACCESS_LOG_ABSENT: none, text NULL); moves *at. */
static struct text_span held_text(const char **at, uint16_t len)
{
	struct text_span s = {0, 0};
	if (len == ACCESS_LOG_ABSENT)
		return s;
	s = (struct text_span){*at, len};
	*at += len;
	return s;
}

/* Writes s quoted ("-" quoted when s is absent or, with dash_if_empty, empty). */
static char *put_quoted(char *p, struct text_span s, int dash_if_empty)
{
	*p++ = '"';
	if (!s.text || (dash_if_empty && !s.len))
		*p++ = '-';
	else
		p = copy_span(p, s.text, s.len);
	*p++ = '"';
	return p;
}

/* Writes v in decimal, or "-" when v is 0 (CLF's bytes). */
static char *put_count_or_dash(char *p, uint64_t v)
{
	if (!v) {
		*p++ = '-';
		return p;
	}
	return p + u64_to_dec(v, p);
}

/* The common and combined forms of a line with parts x. */
static char *put_clf(char *p, const struct line_parts *x, const struct access_log_moment *m,
		     uint8_t status_counter, enum access_log_format format)
{
	p = copy_span(p, m->host, m->host_len);
	p = copy_span(p, LITERAL(" - - "));
	p = copy_span(p, m->date, WALLCLOCK_CLF_LEN);
	*p++ = ' ';
	p = put_quoted(p, x->request, 1);
	*p++ = ' ';
	p = copy_span(p, status_digits(status_counter), 3);
	*p++ = ' ';
	p = put_count_or_dash(p, x->body);
	if (format == ACCESS_LOG_COMBINED) {
		*p++ = ' ';
		p = put_quoted(p, x->referer, 0);
		*p++ = ' ';
		p = put_quoted(p, x->agent, 0);
	}
	*p++ = ' ';
	p += u64_to_dec(x->service_us, p);
	*p++ = ' ';
	p = x->coding.len ? copy_span(p, x->coding.text, x->coding.len) : copy_span(p, "-", 1);
	if (x->vhost.text) {
		*p++ = ' ';
		p = x->vhost.len ? copy_span(p, x->vhost.text, x->vhost.len) : copy_span(p, "-", 1);
	}
	*p++ = '\n';
	return p;
}

/* Writes key (key_len bytes: its quotes and colon) then s as a JSON string, or null when
 * s is absent. */
static char *put_json_string(char *p, const char *key, size_t key_len, struct text_span s)
{
	p = copy_span(p, key, key_len);
	if (!s.text)
		return copy_span(p, LITERAL("null"));
	return put_quoted(p, s, 0);
}

/* The JSON form of a line with parts x (key order: ACCESS_LOG_JSON_SKELETON). */
static char *put_json(char *p, const struct line_parts *x, const struct access_log_moment *m,
		      uint8_t status_counter)
{
	p = copy_span(p, LITERAL("{\"remote_addr\":\""));
	p = copy_span(p, m->host, m->host_len);
	p = copy_span(p, LITERAL("\",\"time_local\":\""));
	p = copy_span(p, m->date + 1, WALLCLOCK_CLF_LEN - 2); /* without the brackets */
	p = put_json_string(p, LITERAL("\",\"request\":"), x->request);
	p = copy_span(p, LITERAL(",\"status\":"));
	p = copy_span(p, status_digits(status_counter), 3);
	p = copy_span(p, LITERAL(",\"body_bytes_sent\":"));
	p += u64_to_dec(x->body, p);
	p = put_json_string(p, LITERAL(",\"http_referer\":"), x->referer);
	p = put_json_string(p, LITERAL(",\"http_user_agent\":"), x->agent);
	p = copy_span(p, LITERAL(",\"service_us\":"));
	p += u64_to_dec(x->service_us, p);
	p = put_json_string(p, LITERAL(",\"content_encoding\":"), x->coding);
	if (x->vhost.text)
		p = put_json_string(p, LITERAL(",\"host\":"),
				    x->vhost.len ? x->vhost : (struct text_span){0, 0});
	return copy_span(p, LITERAL("}\n"));
}

size_t access_log_line_render(char *out, const struct access_log_record *r,
			      const struct access_log_moment *m, enum access_log_format format)
{
	const char *at = (const char *)r + ACCESS_LOG_RECORD_SIZE;
	struct line_parts x;
	x.request = held_text(&at, r->request_len ? r->request_len : ACCESS_LOG_ABSENT);
	x.referer = held_text(&at, r->referer_len);
	x.agent = held_text(&at, r->agent_len);
	x.vhost = held_text(&at, r->vhost_len);
	x.coding = (struct text_span){r->coding_len ? r->coding : 0, r->coding_len};
	x.body = body_sent(r);
	x.service_us = m->now_us > r->arrived_us ? m->now_us - r->arrived_us : 0;
	char *end = format == ACCESS_LOG_JSON ? put_json(out, &x, m, r->status_counter)
					      : put_clf(out, &x, m, r->status_counter, format);
	return (size_t)(end - out);
}
