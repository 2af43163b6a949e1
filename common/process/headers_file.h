/* --headers FILE (BEHAVIOUR 10.13): the _headers format of Netlify and Cloudflare Pages,
 * another spelling of --header-for. A line that starts with '/' is a path pattern; the
 * indented "Name: value" lines after it are its fields. Each pair becomes one
 * --header-for pattern and field, after the command line's. Pure: the caller reads the
 * file. */
#ifndef APOLLOD_COMMON_HEADERS_FILE_H
#define APOLLOD_COMMON_HEADERS_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define HEADERS_FILE_MAX (16u * 1024u) /* its bytes */

/* Why a --headers FILE is refused (one list: the enum and the words of the error). */
#define FOR_EACH_HEADERS_PROBLEM(X)                                                            \
	X(HEADERS_OK, "ok")                                                                    \
	X(HEADERS_BAD_PATTERN, "a path is /*, /dir/* or /*.ext here (the --header-for forms); exact paths, placeholders and URLs are not supported") \
	X(HEADERS_FIELD_FIRST, "a field line before any path line")                            \
	X(HEADERS_NOT_A_FIELD, "an indented line is 'Name: value'")                            \
	X(HEADERS_DETACH, "detaching a field ('! Name') is not supported")                     \
	X(HEADERS_TOO_MANY, "more than 32 fields with --header-for")                           \
	X(HEADERS_FILE_TOO_BIG, "larger than 16384 bytes")                                     \
	X(HEADERS_CANNOT_OPEN, "cannot open")                                                  \
	X(HEADERS_CANNOT_READ, "cannot read")
enum headers_problem {
#define HEADERS_PROBLEM_ENUM(id, words) id,
	FOR_EACH_HEADERS_PROBLEM(HEADERS_PROBLEM_ENUM)
#undef HEADERS_PROBLEM_ENUM
};
extern const char *const headers_problem_words[];

/* Where the pairs go: appended at pattern[*n], field[*n], line[*n] (its 1-based line),
 * *n growing, at most max in all. */
struct headers_out {
	const char **pattern;
	const char **field;
	uint32_t *line;
	uint32_t *n;
	uint32_t max;
};

/* Reads text[0..len) (text[len] writable: len < the buffer's size) in the _headers format
 * into out, NUL-terminating patterns and fields in place: a slash and a star is the
 * pattern "/", "/dir/" and a star the prefix "/dir/", a slash, a star and ".ext" the
 * extension "*.ext"; each field line
 * (indented) is taken without its indentation and trailing blanks. Blank lines and
 * lines starting with '#' (after any indentation) are skipped. Returns HEADERS_OK, or
 * the problem with *line its line number. The fields themselves are checked later
 * (path_fields_setup). */
enum headers_problem headers_file_parse(char *text, size_t len, struct headers_out *out,
					uint32_t *line);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_HEADERS_FILE_H */
