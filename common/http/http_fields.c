/* On-demand header field lookup: see http_fields.h. */
#include "common/http/http_fields.h"

/* Returns the first byte of the line after the one starting at line (past its LF), or end
 * when the line is the last. parse_headers guarantees every line ends in CRLF. */
static const char *line_after(const char *line, const char *end)
{
	while (line < end && *line != '\n')
		line++;
	return line < end ? line + 1 : end;
}

static int is_ows(char c)
{
	return c == ' ' || c == '\t';
}

/* Sets *value to the bytes between the colon at colon and the line's CR, OWS trimmed. */
static void trimmed_value(const char *colon, const char *next_line, struct text_span *value)
{
	const char *v = colon + 1;
	const char *v_end = next_line - 2; /* the CR of the line's CRLF */
	while (v < v_end && is_ows(*v))
		v++;
	while (v_end > v && is_ows(v_end[-1]))
		v_end--;
	value->text = v;
	value->len = (uint32_t)(v_end - v);
}

/* Returns 1 when the line [line, next) is a field line named name[0..name_len). */
static int line_named(const char *line, const char *next, const char *name, size_t name_len)
{
	/* A field line is name ':' ...; the final empty line is just CRLF. */
	return (size_t)(next - line) >= name_len + 3 && line[name_len] == ':' &&
	       span_ieq(line, name, name_len);
}

int field_next(struct field_cursor *c, const char *name, size_t name_len,
	       struct text_span *value)
{
	while (c->at < c->end) {
		const char *line = c->at;
		const char *next = line_after(line, c->end);
		c->at = next;
		if (!line_named(line, next, name, name_len))
			continue;
		trimmed_value(line + name_len, next, value);
		return 1;
	}
	return 0;
}

uint32_t field_scan(const char *block, uint32_t block_len, const struct text_span *names,
		    int count, struct text_span *values)
{
	uint32_t found = 0;
	const char *end = block + block_len;
	for (const char *line = block; line < end;) {
		const char *next = line_after(line, end);
		for (int i = 0; i < count; i++) {
			if ((found >> i) & 1u || !line_named(line, next, names[i].text, names[i].len))
				continue;
			trimmed_value(line + names[i].len, next, &values[i]);
			found |= 1u << i;
		}
		line = next;
	}
	return found;
}
