/* --redirects FILE (BEHAVIOUR 10.20): rules in the _redirects format of Netlify and
 * Cloudflare Pages, read at load into tables, matched per request without a scan of
 * every rule: exact paths in a hash table, patterns chained by their first segment.
 * Pure but for redirects_load (which reads the file and reports). */
#ifndef APOLLOD_COMMON_REDIRECTS_H
#define APOLLOD_COMMON_REDIRECTS_H

#include <stddef.h>
#include <stdint.h>

#include "common/answer/conn_form.h"
#include "common/answer/site.h"
#include "common/base/counters.h"
#include "common/base/exit_codes.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* Limits of a --redirects FILE; past any of them the start fails with the line. */
#define REDIRECTS_FILE_MAX (64u * 1024u) /* its bytes */
#define REDIRECTS_MAX 1024u              /* rules */
#define REDIRECT_FIELD_MAX 1024u         /* bytes of one FROM or TO */
#define REDIRECT_CAPTURES_MAX 8u         /* :name placeholders of one FROM, the splat included */
STATIC_ASSERT((REDIRECTS_MAX & (REDIRECTS_MAX - 1)) == 0, "the tables' sizes are powers of two");
STATIC_ASSERT(REDIRECT_FIELD_MAX <= UINT16_MAX, "field lengths fit 16 bits");

/* The redirect statuses a rule may name: X(id, code, status line, counter, body). The
 * body is text/plain; a 200 (a rewrite) and a 410 are answered otherwise (redirect_rule). */
#define FOR_EACH_REDIRECT_CODE(X)                                                         \
	X(REDIRECT_301, 301, "301 Moved Permanently", C_responses_301, "moved permanently\n") \
	X(REDIRECT_302, 302, "302 Found", C_responses_302, "found\n")                       \
	X(REDIRECT_303, 303, "303 See Other", C_responses_303, "see other\n")               \
	X(REDIRECT_307, 307, "307 Temporary Redirect", C_responses_307, "temporary redirect\n") \
	X(REDIRECT_308, 308, "308 Permanent Redirect", C_responses_308, "permanent redirect\n")
enum redirect_code {
#define REDIRECT_CODE_ENUM(id, code, line, counter, body) id,
	FOR_EACH_REDIRECT_CODE(REDIRECT_CODE_ENUM)
#undef REDIRECT_CODE_ENUM
	REDIRECT_CODE_COUNT,
	REDIRECT_REWRITE = REDIRECT_CODE_COUNT, /* 200: serve TO's file as the answer */
	REDIRECT_GONE,                          /* 410: the 410 (its --error-page) */
};

/* The default code of a rule that names none: Netlify's (Cloudflare Pages says 302). */
#define REDIRECT_DEFAULT_CODE REDIRECT_301

/* One rule, in file order. */
struct redirect_rule {
	const char *from;  /* FROM after its leading '/', in the file's text */
	const char *to;    /* TO as written, in the file's text */
	const struct cached_file *file; /* REDIRECT_REWRITE: TO's file in the snapshot */
	uint16_t from_len;
	uint16_t to_len;
	uint8_t code;      /* enum redirect_code */
	uint8_t pattern;   /* FROM has a :name or a '*': matched segment by segment */
	uint16_t reserved;
	uint32_t next;     /* the next pattern rule of the same chain + 1; 0: none */
};
#define REDIRECT_RULE_SIZE 40
STATIC_ASSERT(sizeof(struct redirect_rule) == REDIRECT_RULE_SIZE, "rule layout");

/* What a match captured: each :name of FROM and the splat, as spans of the name. */
struct redirect_captures {
	uint32_t count;
	struct text_span name[REDIRECT_CAPTURES_MAX];  /* the placeholder's name ("splat") */
	struct text_span value[REDIRECT_CAPTURES_MAX]; /* what it matched */
};

/* Why a --redirects FILE is refused (one list: the enum and the words of the error). */
#define FOR_EACH_REDIRECTS_PROBLEM(X)                                                    \
	X(REDIRECTS_OK, "ok")                                                            \
	X(REDIRECTS_TOO_FEW, "a rule is FROM TO [CODE]: TO is missing")                  \
	X(REDIRECTS_TOO_MANY_FIELDS, "more than FROM TO CODE (query matching and conditions are not supported)") \
	X(REDIRECTS_BAD_CODE, "the code is none of 200, 301, 302, 303, 307, 308, 410")     \
	X(REDIRECTS_BAD_FROM, "FROM must be a path starting with '/' (no host, no query)") \
	X(REDIRECTS_BAD_SPLAT, "'*' may only be FROM's last segment")                      \
	X(REDIRECTS_BAD_PLACEHOLDER, "a placeholder is a whole segment ':name' (a letter, then letters, digits, '_')") \
	X(REDIRECTS_TOO_MANY_CAPTURES, "more than 8 placeholders in FROM")                 \
	X(REDIRECTS_BAD_TO, "TO must be a path starting with '/' or an http:// or https:// URL") \
	X(REDIRECTS_UNKNOWN_PLACEHOLDER, "TO names a placeholder FROM does not have")      \
	X(REDIRECTS_BAD_REWRITE, "a 200 rule's TO must be a file of the site, without placeholders") \
	X(REDIRECTS_LOOP, "the rule redirects its own FROM to itself")                     \
	X(REDIRECTS_TOO_LONG, "FROM or TO longer than 1024 bytes")                         \
	X(REDIRECTS_TOO_MANY, "more than 1024 rules")                                      \
	X(REDIRECTS_FILE_TOO_BIG, "larger than 65536 bytes")                               \
	X(REDIRECTS_CANNOT_OPEN, "cannot open")                                            \
	X(REDIRECTS_CANNOT_READ, "cannot read")
enum redirects_problem {
#define REDIRECTS_PROBLEM_ENUM(id, words) id,
	FOR_EACH_REDIRECTS_PROBLEM(REDIRECTS_PROBLEM_ENUM)
#undef REDIRECTS_PROBLEM_ENUM
};
STATIC_ASSERT(REDIRECTS_MAX == 1024 && REDIRECT_FIELD_MAX == 1024 && REDIRECTS_FILE_MAX == 65536 &&
		      REDIRECT_CAPTURES_MAX == 8,
	      "the limits the problem words name");

/* Looks a name (relative to DIR) up in the snapshot: site_find's contract. */
typedef const struct cached_file *(*redirect_find_fn)(const char *path, size_t len);

/* Reads text[0..len) in the _redirects format into the module's tables (emptied first;
 * the rules borrow text, which must outlive them): per line FROM TO [CODE], fields
 * separated by spaces or tabs, blank lines, '#' starting a comment line. A 200 rule's TO
 * is looked up with find. Returns REDIRECTS_OK (*line: the lines read), or the problem
 * with *line its 1-based line number (the tables then hold no rule). */
enum redirects_problem redirects_parse(const char *text, size_t len, redirect_find_fn find,
				       uint32_t *line);

/* Reads the --redirects FILE at path (NUL-terminated) with redirects_parse, after the
 * snapshot is loaded. Returns EXIT_OK, or EXIT_USAGE after one line
 * "apollod: --redirects PATH[:LINE]: <reason>\n". */
enum exit_code redirects_load(const char *path, redirect_find_fn find);

/* The rules redirects_load read; NULL when none were given. */
const struct redirect_rule *redirects_rules(void);

/* The first rule, in file order, whose FROM matches name[0..len) (a request's path,
 * decoded, dot segments removed, without its leading '/'), with its captures in *c; or
 * NULL. Exact FROMs are found by hash, patterns by the chain of name's first segment
 * and the chain of patterns that start with a placeholder: the cost is one hash probe
 * and the patterns sharing that first segment, not the whole file. Pure. */
const struct redirect_rule *redirect_match(const char *name, size_t len,
					   struct redirect_captures *c);

/* The bytes of the Location rule r gives captures c and query[0..query_len) (the
 * request's '?' and what follows, or none): TO with :splat and each :name replaced by
 * what it captured (percent-encoded outside pchar and '/'), then the query when TO has
 * no '?'. redirect_render writes the whole response. Pure. */
size_t redirect_location_of(const struct redirect_rule *r, const struct redirect_captures *c,
			    const char *query, size_t query_len);

/* Renders at out r's redirect (its status line, text body, Location as above) with the
 * Connection header of form. out must have room for REDIRECT_RULE_MAX(location). Sets
 * *head_len; returns the bytes written. Pure. */
#define REDIRECT_RULE_MAX(location_len) \
	(sizeof("HTTP/1.1 307 Temporary Redirect\r\nContent-Type: text/plain; charset=utf-8\r\n" \
		"Content-Length: 19\r\nLocation: \r\nConnection: keep-alive\r\n\r\n"          \
		"temporary redirect\n") + (location_len))
size_t redirect_render(char *out, const struct redirect_rule *r, const struct redirect_captures *c,
		       const char *query, size_t query_len, enum conn_form form,
		       uint32_t *head_len);

/* The status counter of rule r's answer. */
uint8_t redirect_counter(const struct redirect_rule *r);

/* Makes site (< SITES_MAX) current: redirects_load, _rules and _match read and write
 * its rules from now on (sites.h). Site 0, the default, is current at first. */
void redirects_enter(uint32_t site);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_REDIRECTS_H */
