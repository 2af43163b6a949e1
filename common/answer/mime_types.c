/* The extension table and the --mime-types FILE (see mime_types.h). */
#include "common/answer/mime_types.h"

#include "common/answer/site_files.h"

#include <linux/fcntl.h> /* O_RDONLY, O_CLOEXEC, AT_FDCWD */

#include "common/base/char_class.h"
#include "common/base/console.h"
#include "common/base/errno_text.h"
#include "common/base/sys.h"

#define CHECK_TYPE_LEN(ext, type) \
	STATIC_ASSERT(sizeof(type) - 1 <= CONTENT_TYPE_MAX, ext ": Content-Type too long");
FOR_EACH_CONTENT_TYPE(CHECK_TYPE_LEN)
#undef CHECK_TYPE_LEN
STATIC_ASSERT(sizeof(CONTENT_TYPE_DEFAULT) - 1 <= CONTENT_TYPE_MAX, "default type");

static const struct {
	const char *ext;
	const char *type;
	uint8_t ext_len;
	uint8_t type_len;
} content_types[] = {
#define TYPE_ENTRY(ext, type) {ext, type, sizeof(ext) - 1, sizeof(type) - 1},
	FOR_EACH_CONTENT_TYPE(TYPE_ENTRY)
#undef TYPE_ENTRY
};
#define CONTENT_TYPE_COUNT (sizeof(content_types) / sizeof(content_types[0]))

static const char *const mime_problem_words[] = {
#define MIME_PROBLEM_WORDS(id, words) [id] = words,
	FOR_EACH_MIME_PROBLEM(MIME_PROBLEM_WORDS)
#undef MIME_PROBLEM_WORDS
};

#define TEXT_PREFIX "text/"
#define CHARSET_SUFFIX "; charset=utf-8"

/* The module's state, site_files.mime (site_files.h, defined in redirects.c): the
 * --mime-types FILE's text and what it says (empty without). */
#define mime_types site_files.mime

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int is_token(char c)
{
	return (http_char_class[(unsigned char)c] & CC_TCHAR) != 0;
}

/* Returns 1 when w[0..n) is type "/" subtype, both non-empty tokens. */
static int is_media_type(const char *w, size_t n)
{
	size_t slash = 0;
	while (slash < n && w[slash] != '/')
		slash++;
	if (slash == 0 || slash + 1 >= n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (i != slash && !is_token(w[i]))
			return 0;
	return 1;
}

/* Sets *type to the type word w[0..n) as served: a text/ type without parameters gets
 * CHARSET_SUFFIX (copied into t->text_types). Returns MIME_OK or the problem. */
static enum mime_problem served_type(const char *w, size_t n, struct mime_table *t,
				     struct text_span *type)
{
	if (!is_media_type(w, n))
		return MIME_BAD_TYPE;
	type->text = w;
	type->len = (uint32_t)n;
	if (n < sizeof(TEXT_PREFIX) - 1 || !span_ieq(w, LITERAL(TEXT_PREFIX))) {
		return n > CONTENT_TYPE_MAX ? MIME_TYPE_TOO_LONG : MIME_OK;
	}
	size_t full = n + sizeof(CHARSET_SUFFIX) - 1;
	if (full > CONTENT_TYPE_MAX)
		return MIME_TYPE_TOO_LONG;
	if (full > MIME_TEXT_TYPES_MAX - t->text_used)
		return MIME_TEXT_TYPES_FULL;
	char *at = t->text_types + t->text_used;
	copy_span(copy_span(at, w, n), LITERAL(CHARSET_SUFFIX));
	t->text_used += (uint32_t)full;
	type->text = at;
	type->len = (uint32_t)full;
	return MIME_OK;
}

/* Adds the extension w[0..n) of type to t. Returns MIME_OK or the problem. */
static enum mime_problem add_extension(const char *w, size_t n, struct text_span type,
				       struct mime_table *t)
{
	for (size_t i = 0; i < n; i++)
		if (!is_token(w[i]))
			return MIME_BAD_EXTENSION; /* '/' is no token character either */
	if (n > MIME_EXT_MAX)
		return MIME_EXTENSION_TOO_LONG;
	if (t->count == MIME_ENTRIES_MAX)
		return MIME_TOO_MANY;
	struct mime_entry *e = &t->entry[t->count++];
	e->ext = w;
	e->ext_len = (uint8_t)n;
	e->type = type.text;
	e->type_len = (uint8_t)type.len;
	return MIME_OK;
}

/* Reads the one line [p, end) (no LF). Its type is checked, and its length and charset
 * settled, only when an extension follows: a type no extension names is never served
 * (Debian's file has some longer than CONTENT_TYPE_MAX). Returns MIME_OK or the problem. */
static enum mime_problem parse_line(const char *p, const char *end, struct mime_table *t)
{
	struct text_span word0 = {0, 0}, type = {0, 0};
	for (;;) {
		while (p < end && is_blank(*p))
			p++;
		if (p == end || *p == '#')
			return word0.text && !type.text && !is_media_type(word0.text, word0.len)
				       ? MIME_BAD_TYPE
				       : MIME_OK; /* the rest is a comment */
		const char *w = p;
		while (p < end && !is_blank(*p))
			p++;
		size_t n = (size_t)(p - w);
		enum mime_problem r = MIME_OK;
		if (!word0.text) {
			word0.text = w;
			word0.len = (uint32_t)n;
			continue;
		}
		if (!type.text)
			r = served_type(word0.text, word0.len, t, &type);
		if (r == MIME_OK)
			r = add_extension(w, n, type, t);
		if (r != MIME_OK)
			return r;
	}
}

enum mime_problem mime_table_parse(const char *text, size_t len, struct mime_table *t,
				   uint32_t *line)
{
	t->count = 0;
	t->text_used = 0;
	*line = 0;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *eol = p;
		while (eol < end && *eol != '\n')
			eol++;
		++*line;
		enum mime_problem r = parse_line(p, eol, t);
		if (r != MIME_OK)
			return r;
		p = eol < end ? eol + 1 : end;
	}
	return MIME_OK;
}

int mime_table_find(const struct mime_table *t, const char *ext, size_t len,
		    struct text_span *type)
{
	for (uint32_t i = t->count; i-- > 0;) {
		const struct mime_entry *e = &t->entry[i];
		if (e->ext_len == len && span_ieq(ext, e->ext, len)) {
			type->text = e->type;
			type->len = e->type_len;
			return 1;
		}
	}
	return 0;
}

/* The line console_file_problem writes for problem p of the file at path; EXIT_USAGE. */
static enum exit_code refuse(const char *path, uint32_t line, enum mime_problem p, long err)
{
	console_file_problem("--mime-types", path, line, mime_problem_words[p], err);
	return EXIT_USAGE;
}

enum exit_code mime_types_load(const char *path)
{
	long fd = sys_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (sys_is_error(fd))
		return refuse(path, 0, MIME_CANNOT_OPEN, fd);
	long n = sys_read_full((int)fd, mime_types.file, sizeof(mime_types.file));
	sys_close((int)fd);
	if (sys_is_error(n))
		return refuse(path, 0, MIME_CANNOT_READ, n);
	size_t got = (size_t)n;
	if (got > MIME_FILE_MAX)
		return refuse(path, 0, MIME_FILE_TOO_BIG, 0);
	uint32_t line;
	enum mime_problem p = mime_table_parse(mime_types.file, got, &mime_types.table, &line);
	if (p != MIME_OK) {
		mime_types.table.count = 0;
		return refuse(path, line, p, 0);
	}
	return EXIT_OK;
}

void mime_type_of(const char *name, size_t len, struct text_span *type)
{
	size_t dot;
	if (name_extension(name, len, &dot)) {
		if (mime_table_find(&mime_types.table, name + dot, len - dot, type))
			return;
		for (size_t i = 0; i < CONTENT_TYPE_COUNT; i++)
			if (content_types[i].ext_len == len - dot &&
			    span_ieq(name + dot, content_types[i].ext, len - dot)) {
				type->text = content_types[i].type;
				type->len = content_types[i].type_len;
				return;
			}
	}
	type->text = CONTENT_TYPE_DEFAULT;
	type->len = sizeof(CONTENT_TYPE_DEFAULT) - 1;
}

static const struct text_span compressible_types[] = {
#define COMPRESSIBLE_ENTRY(type) {type, sizeof(type) - 1},
	FOR_EACH_COMPRESSIBLE_TYPE(COMPRESSIBLE_ENTRY)
#undef COMPRESSIBLE_ENTRY
};
#define COMPRESSIBLE_COUNT (sizeof(compressible_types) / sizeof(compressible_types[0]))
#define JSON_SUFFIX "+json"
#define XML_SUFFIX "+xml"

/* Returns 1 when the subtype of type[0..n) (after its '/') is longer than suffix[0..k)
 * and ends with it, ASCII case ignored ("+json" alone is no type). */
static int ends_with(const char *type, size_t n, const char *suffix, size_t k)
{
	size_t slash = 0;
	while (slash < n && type[slash] != '/')
		slash++;
	return slash > 0 && n - slash > k + 1 && span_ieq(type + n - k, suffix, k);
}

int type_is_compressible(const char *type, size_t len)
{
	size_t n = 0; /* the media type: up to a parameter's ';' or a space */
	while (n < len && type[n] != ';' && type[n] != ' ')
		n++;
	if ((n > sizeof(TEXT_PREFIX) - 1 && span_ieq(type, LITERAL(TEXT_PREFIX))) ||
	    ends_with(type, n, LITERAL(JSON_SUFFIX)) || ends_with(type, n, LITERAL(XML_SUFFIX)))
		return 1;
	for (size_t i = 0; i < COMPRESSIBLE_COUNT; i++)
		if (compressible_types[i].len == n && span_ieq(type, compressible_types[i].text, n))
			return 1;
	return 0;
}
