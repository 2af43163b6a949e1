/* --header-for checking, matching and rendering (see path_fields.h). */
#include "common/answer/path_fields.h"

#include "common/answer/mime_types.h"
#include "common/base/span.h"

#define EXTENSION_PATTERN "*."
#define LINE_END "\r\n" /* extra_field_render's lines end so; a stored head's begin so */

/* The checked --header-for, for the load to render. */
struct path_fields_state {
	uint32_t count;                          /* --header-for given */
	uint32_t used;                           /* bytes of block */
	const char *pattern[PATH_FIELDS_MAX];    /* as given: the command line outlives us */
	uint16_t pattern_len[PATH_FIELDS_MAX];
	uint16_t line_at[PATH_FIELDS_MAX];       /* its "Name: value\r\n" in block */
	uint16_t line_len[PATH_FIELDS_MAX];
	char block[PATH_FIELDS_BLOCK_MAX];       /* the rendered lines, in order */
};
/* Each site's (sites.h), and the one the request being answered is for. */
struct path_fields_sites {
	uint32_t current;                          /* the current site: path_fields_enter */
	struct path_fields_state site[SITES_MAX];
};
static struct path_fields_sites path_fields;
#define fields_now (path_fields.site[path_fields.current])
STATIC_ASSERT(PATH_FIELDS_BLOCK_MAX <= UINT16_MAX && PATH_PATTERN_MAX <= UINT16_MAX,
	      "offsets and lengths fit 16 bits");

static const char reason_bad_pattern[] = "a pattern is a prefix '/dir/' or '*.ext'";
static const char reason_too_long[] = "the --header-for fields are too long together (2 KiB)";

int path_pattern_check(const char *pattern, size_t len)
{
	if (len == 0 || len > PATH_PATTERN_MAX)
		return 0;
	if (pattern[0] == '/')
		return pattern[len - 1] == '/';
	if (len <= sizeof(EXTENSION_PATTERN) - 1 || !span_eq(pattern, LITERAL(EXTENSION_PATTERN)))
		return 0;
	for (size_t i = sizeof(EXTENSION_PATTERN) - 1; i < len; i++)
		if (pattern[i] == '.' || pattern[i] == '/' || pattern[i] == '*')
			return 0;
	return 1;
}

int path_pattern_matches(const char *pattern, size_t pattern_len, const char *name, size_t len)
{
	if (pattern[0] == '/') /* "/" + name starts with the pattern */
		return pattern_len - 1 <= len && span_eq(pattern + 1, name, pattern_len - 1);
	size_t ext = pattern_len - (sizeof(EXTENSION_PATTERN) - 1);
	size_t dot;
	return name_extension(name, len, &dot) && len - dot == ext &&
	       span_ieq(name + dot, pattern + pattern_len - ext, ext);
}

const char *path_fields_setup(const char *const *patterns, const char *const *fields, uint32_t n,
			      uint32_t *bad)
{
	fields_now.count = 0;
	fields_now.used = 0;
	for (uint32_t i = 0; i < n; i++) {
		size_t pattern_len = cstr_len(patterns[i]), w = 0;
		*bad = i;
		enum extra_field_problem p = extra_field_render(
			fields[i], cstr_len(fields[i]), fields_now.block + fields_now.used,
			PATH_FIELDS_BLOCK_MAX - fields_now.used, &w);
		if (!path_pattern_check(patterns[i], pattern_len) || p != EXTRA_OK) {
			fields_now.used = 0;
			return !path_pattern_check(patterns[i], pattern_len) ? reason_bad_pattern
			       : p == EXTRA_TOO_LONG                          ? reason_too_long
									      : extra_field_reasons[p];
		}
		fields_now.pattern[i] = patterns[i];
		fields_now.pattern_len[i] = (uint16_t)pattern_len;
		fields_now.line_at[i] = (uint16_t)fields_now.used;
		fields_now.line_len[i] = (uint16_t)w;
		fields_now.used += (uint32_t)w;
	}
	fields_now.count = n;
	return 0;
}

uint32_t path_fields_max(void)
{
	return fields_now.used; /* each line moves its CRLF to the front: the same length */
}

size_t path_fields_render(const char *name, size_t len, char *out)
{
	char *p = out;
	for (uint32_t i = 0; i < fields_now.count; i++) {
		if (!path_pattern_matches(fields_now.pattern[i], fields_now.pattern_len[i], name,
					  len))
			continue;
		const char *line = fields_now.block + fields_now.line_at[i];
		p = copy_span(p, LITERAL(LINE_END));
		p = copy_span(p, line, fields_now.line_len[i] - (sizeof(LINE_END) - 1));
	}
	return (size_t)(p - out);
}

void path_fields_enter(uint32_t site)
{
	path_fields.current = site;
}
