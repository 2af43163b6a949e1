/* --headers FILE's reader (see headers_file.h). */
#include "common/process/headers_file.h"

#include "common/base/span.h"

const char *const headers_problem_words[] = {
#define HEADERS_PROBLEM_WORDS(id, words) [id] = words,
	FOR_EACH_HEADERS_PROBLEM(HEADERS_PROBLEM_WORDS)
#undef HEADERS_PROBLEM_WORDS
};

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Turns the path line p[0..n) into its --header-for pattern, NUL-terminated in place.
 * Returns the pattern, or NULL when it has no --header-for form. */
static const char *pattern_of(char *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (p[i] == '*' || p[i] == ':')
			if (!(p[i] == '*' && i + 2 < n && p[i + 1] == '.'))
				return 0; /* only a final '*' or a '*.ext' */
	if (n >= 2 && p[n - 1] == '*' && p[n - 2] == '/') { /* all, or a folder's */
		p[n - 1] = '\0';
		return p;
	}
	if (n > 3 && p[1] == '*' && p[2] == '.') { /* an extension anywhere */
		p[n] = '\0';
		return p + 1;
	}
	return 0;
}

/* Reads one line p[0..n) (n bytes before its LF, which it may overwrite) with *path the
 * current pattern (NULL before the first). */
static enum headers_problem parse_line(char *p, size_t n, const char **path,
				       struct headers_out *out, uint32_t line)
{
	size_t at = 0;
	while (at < n && is_blank(p[at]))
		at++;
	while (n > at && is_blank(p[n - 1]))
		n--;
	if (at == n || p[at] == '#')
		return HEADERS_OK;
	if (at == 0) {
		*path = p[0] == '/' ? pattern_of(p, n) : 0;
		return *path ? HEADERS_OK : HEADERS_BAD_PATTERN;
	}
	if (!*path)
		return HEADERS_FIELD_FIRST;
	if (p[at] == '!')
		return HEADERS_DETACH;
	size_t colon = at;
	while (colon < n && p[colon] != ':')
		colon++;
	if (colon == n || colon == at)
		return HEADERS_NOT_A_FIELD;
	if (*out->n == out->max)
		return HEADERS_TOO_MANY;
	p[n] = '\0';
	out->pattern[*out->n] = *path;
	out->field[*out->n] = p + at;
	out->line[(*out->n)++] = line;
	return HEADERS_OK;
}

enum headers_problem headers_file_parse(char *text, size_t len, struct headers_out *out,
					uint32_t *line)
{
	const char *path = 0;
	*line = 0;
	for (char *p = text, *end = text + len; p < end;) {
		char *eol = p;
		while (eol < end && *eol != '\n')
			eol++;
		++*line;
		enum headers_problem r = parse_line(p, (size_t)(eol - p), &path, out, *line);
		if (r != HEADERS_OK)
			return r;
		p = eol + 1;
	}
	return HEADERS_OK;
}
