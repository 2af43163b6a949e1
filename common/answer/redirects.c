/* --redirects FILE: the rules, their tables and their redirects (see redirects.h). */
#include "common/answer/redirects.h"

#include <linux/fcntl.h> /* O_RDONLY, O_CLOEXEC, AT_FDCWD */

#include "common/answer/responses.h"
#include "common/answer/site_files.h"
#include "common/base/console.h"
#include "common/base/errno_text.h"
#include "common/base/span.h"
#include "common/base/sys.h"
#include "common/http/url_path.h"

#define SPLAT_NAME "splat"
#define INDEX_NAME "index.html" /* a 200 rule's TO ending in '/' names this file */

/* The state of the site's two configuration files (site_files.h); this module's is
 * site_files.redirects, the current site's (sites.h). */
struct site_files_state site_files;
#define redirects site_files.redirects[site_files.current]

void redirects_enter(uint32_t site)
{
	site_files.current = site;
}

static const char *const problem_words[] = {
#define REDIRECTS_PROBLEM_WORDS(id, words) [id] = words,
	FOR_EACH_REDIRECTS_PROBLEM(REDIRECTS_PROBLEM_WORDS)
#undef REDIRECTS_PROBLEM_WORDS
};

/* Each redirect code's number, status line, counter and body. */
static const struct {
	uint16_t code;
	uint8_t counter;
	struct text_span line;
	struct text_span body;
} redirect_codes[REDIRECT_CODE_COUNT] = {
#define REDIRECT_CODE_ROW(id, number, status, cnt, text) \
	[id] = {number, cnt, {LITERAL(HEAD_STATUS_LINE(status))}, {LITERAL(text)}},
	FOR_EACH_REDIRECT_CODE(REDIRECT_CODE_ROW)
#undef REDIRECT_CODE_ROW
};

/* FNV-1a of s[0..n): the key both tables are probed with. */
static uint32_t key_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* The bytes of s[0..n) before its first '/'. */
static size_t segment_len(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && s[i] != '/')
		i++;
	return i;
}

/* 1 when s[0..n) holds byte c. */
static int has_byte(const char *s, size_t n, char c)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == c)
			return 1;
	return 0;
}

static int is_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The length of the placeholder name at s[0..n) (a letter, then letters, digits, '_'),
 * 0 when s starts none. */
static size_t name_len(const char *s, size_t n)
{
	size_t i = 0;
	if (n && is_letter(s[0]))
		for (i = 1; i < n && (is_letter(s[i]) || (s[i] >= '0' && s[i] <= '9') || s[i] == '_');
		     i++)
			;
	return i;
}

/* The slot of table holding key[0..n) (each used slot's key: its rule's FROM, or with
 * first_segment its FROM's first segment), or the empty slot where it would go. */
static uint32_t *slot_of(uint32_t *table, const char *key, size_t n, int first_segment)
{
	for (uint32_t i = key_hash(key, n);; i++) {
		uint32_t *s = &table[i & (REDIRECT_SLOTS - 1)];
		if (!*s)
			return s;
		const struct redirect_rule *r = &redirects.rule[*s - 1];
		size_t len = first_segment ? segment_len(r->from, r->from_len) : r->from_len;
		if (len == n && span_eq(r->from, key, n))
			return s;
	}
}

/* Appends rule i (a pattern) to the chain *first..*last. */
static void chain_append(uint32_t *first, uint32_t *last, uint32_t i)
{
	if (*last)
		redirects.rule[*last - 1].next = i + 1;
	else
		*first = i + 1;
	*last = i + 1;
}

/* Puts rule i into the tables: an exact FROM hashed (the first rule of a FROM kept), a
 * pattern appended to the chain of its literal first segment or to the wild chain. */
static void index_rule(uint32_t i)
{
	const struct redirect_rule *r = &redirects.rule[i];
	if (!r->pattern) {
		uint32_t *s = slot_of(redirects.exact_slot, r->from, r->from_len, 0);
		if (!*s)
			*s = i + 1;
		return;
	}
	size_t seg = segment_len(r->from, r->from_len);
	if (seg == 0 || r->from[0] == ':' || (seg == 1 && r->from[0] == '*')) {
		chain_append(&redirects.wild_first, &redirects.wild_last, i);
		return;
	}
	uint32_t *s = slot_of(redirects.chain_slot, r->from, seg, 1);
	chain_append(s, &redirects.chain_last[s - redirects.chain_slot], i);
}

/* Checks FROM's segments (after its '/'): '*' only as the last, each ':' a whole
 * placeholder. Sets *pattern when it has either. */
static enum redirects_problem check_from(const char *f, size_t n, uint8_t *pattern)
{
	uint32_t captures = 0;
	for (size_t at = 0; at <= n;) {
		size_t seg = segment_len(f + at, n - at);
		int splat = seg == 1 && f[at] == '*';
		for (size_t i = 0; i < seg && !splat; i++)
			if (f[at + i] == '*')
				return REDIRECTS_BAD_SPLAT;
		if (splat && at + seg != n)
			return REDIRECTS_BAD_SPLAT;
		if (seg && f[at] == ':' && (seg < 2 || name_len(f + at + 1, seg - 1) != seg - 1))
			return REDIRECTS_BAD_PLACEHOLDER;
		if (splat || (seg && f[at] == ':'))
			captures++;
		at += seg + 1;
	}
	*pattern = captures != 0;
	return captures > REDIRECT_CAPTURES_MAX ? REDIRECTS_TOO_MANY_CAPTURES : REDIRECTS_OK;
}

/* 1 when FROM f[0..n) has the placeholder name[0..k) ("splat": a '*'). */
static int from_has(const char *f, size_t n, const char *name, size_t k)
{
	int splat = k == sizeof(SPLAT_NAME) - 1 && span_eq(name, LITERAL(SPLAT_NAME));
	for (size_t at = 0; at <= n;) {
		size_t seg = segment_len(f + at, n - at);
		if (splat ? seg == 1 && f[at] == '*'
			  : seg == k + 1 && f[at] == ':' && span_eq(f + at + 1, name, k))
			return 1;
		at += seg + 1;
	}
	return 0;
}

/* The placeholders TO names (":" then a name): counts them in *named and checks each is
 * FROM's. */
static enum redirects_problem check_to(const struct redirect_rule *r, uint32_t *named)
{
	*named = 0;
	for (size_t i = 0; i < r->to_len; i++) {
		size_t k = r->to[i] == ':' ? name_len(r->to + i + 1, r->to_len - i - 1) : 0;
		if (!k)
			continue;
		if (!from_has(r->from, r->from_len, r->to + i + 1, k))
			return REDIRECTS_UNKNOWN_PLACEHOLDER;
		++*named;
		i += k;
	}
	return REDIRECTS_OK;
}

/* Reads a CODE word: 200, 301-308 (not 304-306), 410, an optional '!' (force: every
 * rule is forced here). Returns 1 and sets *code, or 0. */
static int parse_code(const char *w, size_t n, uint8_t *code)
{
	static const struct {
		char digits[4];
		uint8_t code;
	} codes[] = {{"200", REDIRECT_REWRITE}, {"301", REDIRECT_301}, {"302", REDIRECT_302},
		     {"303", REDIRECT_303},     {"307", REDIRECT_307}, {"308", REDIRECT_308},
		     {"410", REDIRECT_GONE}};
	if (n == 4 && w[3] == '!')
		n = 3;
	for (size_t i = 0; n == 3 && i < sizeof(codes) / sizeof(codes[0]); i++)
		if (span_eq(w, codes[i].digits, 3)) {
			*code = codes[i].code;
			return 1;
		}
	return 0;
}

/* A 200 rule's TO as a file of the snapshot, or NULL. */
static const struct cached_file *rewrite_file(const struct redirect_rule *r,
					      redirect_find_fn find)
{
	char name[REDIRECT_FIELD_MAX + sizeof(INDEX_NAME)];
	if (r->to[0] != '/' || !find)
		return 0;
	char *end = copy_span(name, r->to + 1, r->to_len - 1u);
	if (end == name || end[-1] == '/')
		end = copy_span(end, LITERAL(INDEX_NAME));
	const struct cached_file *f = find(name, (size_t)(end - name));
	return f && f->kind == CACHED_FILE ? f : 0;
}

/* Checks rule r (FROM, TO and code read) and finds a 200 rule's file. */
static enum redirects_problem check_rule(struct redirect_rule *r, redirect_find_fn find)
{
	uint32_t named;
	enum redirects_problem p = check_from(r->from, r->from_len, &r->pattern);
	int local = r->to[0] == '/';
	if (p == REDIRECTS_OK && !local && !(r->to_len > 7 && span_eq(r->to, LITERAL("http://"))) &&
	    !(r->to_len > 8 && span_eq(r->to, LITERAL("https://"))))
		p = REDIRECTS_BAD_TO;
	if (p == REDIRECTS_OK)
		p = check_to(r, &named);
	if (p == REDIRECTS_OK && r->code == REDIRECT_REWRITE &&
	    (named || !(r->file = rewrite_file(r, find))))
		p = REDIRECTS_BAD_REWRITE;
	if (p == REDIRECTS_OK && r->code < REDIRECT_CODE_COUNT && local &&
	    r->to_len == r->from_len + 1u && span_eq(r->to + 1, r->from, r->from_len))
		p = REDIRECTS_LOOP;
	return p;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Splits p[0..end) into at most 4 words (blank-separated); returns how many it found. */
static uint32_t split_words(const char *p, const char *end, struct text_span w[4])
{
	uint32_t n = 0;
	while (p < end && n < 4) {
		while (p < end && is_blank(*p))
			p++;
		if (p == end)
			break;
		w[n].text = p;
		while (p < end && !is_blank(*p))
			p++;
		w[n].len = (uint32_t)(p - w[n].text);
		n++;
	}
	return n;
}

/* Reads one line p[0..end) into the next rule (none for a blank or comment line). */
static enum redirects_problem parse_line(const char *p, const char *end, redirect_find_fn find)
{
	struct text_span w[4];
	uint32_t n = split_words(p, end, w);
	if (n == 0 || w[0].text[0] == '#')
		return REDIRECTS_OK;
	if (n < 2)
		return REDIRECTS_TOO_FEW;
	if (n > 3)
		return REDIRECTS_TOO_MANY_FIELDS;
	if (redirects.count == REDIRECTS_MAX)
		return REDIRECTS_TOO_MANY;
	if (w[0].len > REDIRECT_FIELD_MAX || w[1].len > REDIRECT_FIELD_MAX)
		return REDIRECTS_TOO_LONG;
	struct redirect_rule *r = &redirects.rule[redirects.count];
	*r = (struct redirect_rule){.from = w[0].text + 1, .to = w[1].text,
				    .from_len = (uint16_t)(w[0].len - 1u), .to_len = (uint16_t)w[1].len,
				    .code = REDIRECT_DEFAULT_CODE};
	if (w[0].text[0] != '/' || has_byte(w[0].text, w[0].len, '?') || has_byte(w[0].text, w[0].len, '#'))
		return REDIRECTS_BAD_FROM;
	if (n == 3 && !parse_code(w[2].text, w[2].len, &r->code))
		return REDIRECTS_BAD_CODE;
	enum redirects_problem problem = check_rule(r, find);
	if (problem == REDIRECTS_OK)
		redirects.count++;
	return problem;
}

/* Empties the rules and tables. */
static void redirects_clear(void)
{
	redirects.count = 0;
	redirects.wild_first = redirects.wild_last = 0;
	for (uint32_t i = 0; i < REDIRECT_SLOTS; i++)
		redirects.exact_slot[i] = redirects.chain_slot[i] = redirects.chain_last[i] = 0;
}

enum redirects_problem redirects_parse(const char *text, size_t len, redirect_find_fn find,
				       uint32_t *line)
{
	redirects_clear();
	*line = 0;
	for (const char *p = text, *end = text + len; p < end;) {
		const char *eol = p;
		while (eol < end && *eol != '\n')
			eol++;
		++*line;
		enum redirects_problem r = parse_line(p, eol, find);
		if (r != REDIRECTS_OK) {
			redirects_clear();
			return r;
		}
		p = eol < end ? eol + 1 : end;
	}
	for (uint32_t i = 0; i < redirects.count; i++)
		index_rule(i);
	return REDIRECTS_OK;
}

/* The line console_file_problem writes for problem p of the file at path; EXIT_USAGE. */
static enum exit_code refuse(const char *path, uint32_t line, enum redirects_problem p, long err)
{
	console_file_problem("--redirects", path, line, problem_words[p], err);
	return EXIT_USAGE;
}

enum exit_code redirects_load(const char *path, redirect_find_fn find)
{
	long fd = sys_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (sys_is_error(fd))
		return refuse(path, 0, REDIRECTS_CANNOT_OPEN, fd);
	long n = sys_read_full((int)fd, redirects.file, sizeof(redirects.file));
	sys_close((int)fd);
	if (sys_is_error(n))
		return refuse(path, 0, REDIRECTS_CANNOT_READ, n);
	if ((size_t)n > REDIRECTS_FILE_MAX)
		return refuse(path, 0, REDIRECTS_FILE_TOO_BIG, 0);
	uint32_t line;
	enum redirects_problem p = redirects_parse(redirects.file, (size_t)n, find, &line);
	return p == REDIRECTS_OK ? EXIT_OK : refuse(path, line, p, 0);
}

/* Records capture from[0..k) (a placeholder's name, or "*") = value[0..n) in c. */
static void capture(struct redirect_captures *c, const char *from, size_t k, const char *value,
		    size_t n)
{
	struct text_span name = {from + 1, (uint32_t)(k - 1)};
	if (from[0] == '*') {
		name.text = SPLAT_NAME;
		name.len = sizeof(SPLAT_NAME) - 1;
	}
	c->name[c->count] = name;
	c->value[c->count].text = value;
	c->value[c->count++].len = (uint32_t)n;
}

/* 1 when pattern rule r matches name[0..len), its captures in *c. A '*' matches the rest
 * (empty too, and a name that ends just before its '/'). */
static int pattern_matches(const struct redirect_rule *r, const char *n, size_t len,
			   struct redirect_captures *c)
{
	const char *f = r->from, *fend = r->from + r->from_len, *nend = n + len;
	c->count = 0;
	for (;;) {
		size_t fs = segment_len(f, (size_t)(fend - f)), ns = segment_len(n, (size_t)(nend - n));
		if (fs == 1 && *f == '*') {
			capture(c, f, fs, n, (size_t)(nend - n));
			return 1;
		}
		if (*f == ':' ? ns == 0 : fs != ns || !span_eq(f, n, fs))
			return 0;
		if (*f == ':')
			capture(c, f, fs, n, ns);
		f += fs;
		n += ns;
		if (f == fend || n == nend)
			break;
		f++; /* both at a '/' */
		n++;
	}
	if (f == fend)
		return n == nend;
	if (fend - f == 2 && f[1] == '*') { /* a final splat against a name that ends */
		capture(c, f + 1, 1, n, 0);
		return 1;
	}
	return 0;
}

/* Walks the chain from rule first - 1 while its rules come before rule best - 1 (best 0:
 * none yet); returns the first that matches + 1 (its captures in *c), else best. */
static uint32_t chain_match(uint32_t first, uint32_t best, const char *name, size_t len,
			    struct redirect_captures *c)
{
	struct redirect_captures tried;
	for (uint32_t i = first; i && (!best || i < best); i = redirects.rule[i - 1].next)
		if (pattern_matches(&redirects.rule[i - 1], name, len, &tried)) {
			*c = tried;
			return i;
		}
	return best;
}

const struct redirect_rule *redirect_match(const char *name, size_t len,
					   struct redirect_captures *c)
{
	c->count = 0;
	if (!redirects.count)
		return 0;
	uint32_t best = *slot_of(redirects.exact_slot, name, len, 0);
	size_t seg = segment_len(name, len);
	uint32_t chain = seg ? *slot_of(redirects.chain_slot, name, seg, 1) : 0;
	if (chain)
		best = chain_match(chain, best, name, len, c);
	best = chain_match(redirects.wild_first, best, name, len, c);
	return best ? &redirects.rule[best - 1] : 0;
}

const struct redirect_rule *redirects_rules(void)
{
	return redirects.count ? redirects.rule : 0;
}

/* Copies src[0..n) to out when out is set; returns n (the counting pass writes nothing). */
static size_t put(char *out, const char *src, size_t n)
{
	if (out)
		copy_span(out, src, n);
	return n;
}

/* The value captured as name[0..k). */
static struct text_span captured(const struct redirect_captures *c, const char *name, size_t k)
{
	for (uint32_t i = 0; i < c->count; i++)
		if (c->name[i].len == k && span_eq(c->name[i].text, name, k))
			return c->value[i];
	return (struct text_span){"", 0}; /* never: redirects_parse checked every name */
}

/* Writes (out NULL: counts) the Location of redirect_location_of. */
static size_t location_write(char *out, const struct redirect_rule *r,
			     const struct redirect_captures *c, const char *query, size_t qn)
{
	size_t n = 0;
	int has_query = has_byte(r->to, r->to_len, '?');
	for (size_t i = 0; i < r->to_len; i++) {
		size_t k = r->to[i] == ':' ? name_len(r->to + i + 1, r->to_len - i - 1) : 0;
		if (!k) {
			n += put(out ? out + n : 0, r->to + i, 1);
			continue;
		}
		struct text_span v = captured(c, r->to + i + 1, k);
		n += url_encode(out ? out + n : 0, v.text, v.len, URL_KEEP_PATH);
		i += k;
	}
	if (!has_query)
		n += url_encode(out ? out + n : 0, query, qn, URL_KEEP_QUERY);
	return n;
}

size_t redirect_location_of(const struct redirect_rule *r, const struct redirect_captures *c,
			    const char *query, size_t query_len)
{
	return location_write(0, r, c, query, query_len);
}

size_t redirect_render(char *out, const struct redirect_rule *r, const struct redirect_captures *c,
		       const char *query, size_t query_len, enum conn_form form,
		       uint32_t *head_len)
{
	const struct text_span *line = &redirect_codes[r->code].line;
	const struct text_span *body = &redirect_codes[r->code].body;
	char *p = copy_span(out, line->text, line->len);
	p = copy_span(p, LITERAL("Content-Type: " CONTENT_TYPE_TEXT HEAD_LENGTH_FIELD));
	p += u64_to_dec(body->len, p);
	p = copy_span(p, LITERAL("\r\nLocation: "));
	p += location_write(p, r, c, query, query_len);
	p = copy_span(p, head_tail[form].text, head_tail[form].len);
	*head_len = (uint32_t)(p - out);
	p = copy_span(p, body->text, body->len);
	return (size_t)(p - out);
}

uint8_t redirect_counter(const struct redirect_rule *r)
{
	return redirect_codes[r->code].counter;
}
