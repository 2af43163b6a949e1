/* The HTML index of a directory (see listing.h). */
#include "common/answer/listing.h"

#include "common/base/civil_time.h"
#include "common/http/url_path.h"

#define PAGE_HEAD                                                                     \
	"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"                        \
	"<meta name=\"viewport\" content=\"width=device-width\"><title>Index of "
#define PAGE_TITLE_END "</title></head>\n<body><h1>Index of "
#define PAGE_TABLE "</h1>\n<table>\n<tr>"
#define HEADING_START "<th><a href=\"?sort="
#define HEADING_ORDER "&amp;order="
#define HEADING_LINK_END "\">"
#define HEADING_END "</a></th>"
#define PAGE_TABLE_END "</tr>\n"
#define HEADINGS_MAX                                                                   \
	(LISTING_SORTS * (sizeof(HEADING_START HEADING_ORDER HEADING_LINK_END HEADING_END) - 1 + \
			  sizeof("desc") - 1) +                                              \
	 sizeof("name" "size" "date" "Name" "Size" "Last modified (UTC)") - 1)
#define PAGE_PARENT "<tr><td><a href=\"../\">../</a></td><td></td><td></td></tr>\n"
#define PAGE_END "</table>\n</body></html>\n"
#define ROW_START "<tr><td><a href=\""
#define ROW_LINK_END "\">"
#define ROW_NAME_END "</a></td><td"
#define ROW_TITLE " title=\""
#define ROW_TITLE_END "\">"
#define ROW_SIZE_END "</td><td>"
#define ROW_END "</td></tr>\n"
#define DIRECTORY_SIZE ">-"
STATIC_ASSERT(sizeof(PAGE_HEAD PAGE_TITLE_END PAGE_TABLE PAGE_TABLE_END PAGE_PARENT PAGE_END) -
			      1 + HEADINGS_MAX + 4 <=
		      LISTING_PAGE_FIXED,
	      "a page's fixed bytes, and the two pairs of '/' around its path");
STATIC_ASSERT(sizeof(ROW_START ROW_LINK_END ROW_NAME_END ROW_TITLE ROW_TITLE_END ROW_SIZE_END
			     ROW_END) - 1 + 2 + U64_DEC_MAX + LISTING_SIZE_TEXT_MAX +
			      LISTING_TIME_LEN <=
		      LISTING_ROW_FIXED,
	      "a row's fixed bytes, the two '/' of a directory, the size twice and the time");

/* The sorts by enum listing_sort: the word a query names it by, its column's heading. */
static const struct {
	const char *word;
	const char *heading;
} listing_sorts[LISTING_SORTS] = {
	[LISTING_BY_NAME] = {"name", "Name"},
	[LISTING_BY_SIZE] = {"size", "Size"},
	[LISTING_BY_DATE] = {"date", "Last modified (UTC)"},
};

size_t listing_escape(char *out, const char *name, size_t len)
{
	char *p = out;
	for (size_t i = 0; i < len; i++) {
		switch (name[i]) {
		case '&':
			p = copy_span(p, LITERAL("&amp;"));
			break;
		case '<':
			p = copy_span(p, LITERAL("&lt;"));
			break;
		case '>':
			p = copy_span(p, LITERAL("&gt;"));
			break;
		case '"':
			p = copy_span(p, LITERAL("&quot;"));
			break;
		case '\'':
			p = copy_span(p, LITERAL("&#39;"));
			break;
		default:
			*p++ = name[i];
		}
	}
	return (size_t)(p - out);
}

STATIC_ASSERT(LISTING_HREF_MAX == URL_ENCODED_MAX, "a link's byte is one url_encode byte");

size_t listing_href(char *out, const char *name, size_t len)
{
	return url_encode(out, name, len, URL_KEEP_UNRESERVED);
}

/* Writes "/dir/" (escaped; "/" for the root) at out. Returns the bytes written. */
static size_t escaped_path(char *out, const char *dir, size_t dir_len)
{
	char *p = out;
	*p++ = '/';
	if (dir_len) {
		p += listing_escape(p, dir, dir_len);
		*p++ = '/';
	}
	return (size_t)(p - out);
}

/* Writes the header row's cells for a page in order: each column's heading links to its
 * sort, ascending, or descending when this page is that sort ascending. */
static char *put_headings(char *p, unsigned order)
{
	for (unsigned s = 0; s < LISTING_SORTS; s++) {
		p = copy_span(p, LITERAL(HEADING_START));
		p = copy_span(p, listing_sorts[s].word, cstr_len(listing_sorts[s].word));
		p = copy_span(p, LITERAL(HEADING_ORDER));
		p = order == 2 * s ? copy_span(p, LITERAL("desc")) : copy_span(p, LITERAL("asc"));
		p = copy_span(p, LITERAL(HEADING_LINK_END));
		p = copy_span(p, listing_sorts[s].heading, cstr_len(listing_sorts[s].heading));
		p = copy_span(p, LITERAL(HEADING_END));
	}
	return copy_span(p, LITERAL(PAGE_TABLE_END));
}

size_t listing_start(char *out, const char *dir, size_t dir_len, unsigned order)
{
	char *p = copy_span(out, LITERAL(PAGE_HEAD));
	p += escaped_path(p, dir, dir_len);
	p = copy_span(p, LITERAL(PAGE_TITLE_END));
	p += escaped_path(p, dir, dir_len);
	p = copy_span(p, LITERAL(PAGE_TABLE));
	p = put_headings(p, order);
	if (dir_len)
		p = copy_span(p, LITERAL(PAGE_PARENT));
	return (size_t)(p - out);
}

/* Writes unix_seconds as "YYYY-MM-DD HH:MM:SS" (LISTING_TIME_LEN bytes, UTC) at out. */
static char *put_time(char *out, uint64_t unix_seconds)
{
	struct civil_time t = civil_from_unix(unix_seconds);
	char *p = put_zero_padded(out, t.year, 4);
	*p++ = '-';
	p = put_zero_padded(p, t.month, 2);
	*p++ = '-';
	p = put_zero_padded(p, t.day, 2);
	*p++ = ' ';
	p = put_zero_padded(p, t.hour, 2);
	*p++ = ':';
	p = put_zero_padded(p, t.minute, 2);
	*p++ = ':';
	return put_zero_padded(p, t.second, 2);
}

size_t listing_row(char *out, const struct listing_entry *r)
{
	char *p = copy_span(out, LITERAL(ROW_START));
	p += listing_href(p, r->name, r->name_len);
	if (r->directory)
		*p++ = '/';
	p = copy_span(p, LITERAL(ROW_LINK_END));
	p += listing_escape(p, r->name, r->name_len);
	if (r->directory)
		*p++ = '/';
	p = copy_span(p, LITERAL(ROW_NAME_END));
	if (r->directory) {
		p = copy_span(p, LITERAL(DIRECTORY_SIZE));
	} else {
		p = copy_span(p, LITERAL(ROW_TITLE));
		p += u64_to_dec(r->size, p);
		p = copy_span(p, LITERAL(ROW_TITLE_END));
		p += listing_size_text(p, r->size);
	}
	p = copy_span(p, LITERAL(ROW_SIZE_END));
	p = put_time(p, r->mtime);
	p = copy_span(p, LITERAL(ROW_END));
	return (size_t)(p - out);
}

size_t listing_end(char *out)
{
	return (size_t)(copy_span(out, LITERAL(PAGE_END)) - out);
}

int listing_name_cmp(const char *a, size_t an, const char *b, size_t bn)
{
	for (size_t i = 0; i < an && i < bn; i++)
		if (a[i] != b[i])
			return (unsigned char)a[i] < (unsigned char)b[i] ? -1 : 1;
	return an < bn ? -1 : an > bn;
}

static int u64_cmp(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* listing_sort's order between rows a and b in listing order k. Returns <0, 0 or >0. */
static int row_order(const struct listing_entry *a, const struct listing_entry *b, unsigned k)
{
	if (a->directory != b->directory)
		return a->directory ? -1 : 1;
	int by_name = listing_name_cmp(a->name, a->name_len, b->name, b->name_len);
	unsigned sort = k / 2;
	int c = sort == LISTING_BY_NAME ? by_name
		: sort == LISTING_BY_DATE ? u64_cmp(a->mtime, b->mtime)
		: a->directory		  ? 0
					  : u64_cmp(a->size, b->size);
	if (k & 1)
		c = -c;
	return c ? c : by_name;
}

/* Moves e[i] down the max-heap e[0..n) (by row_order in order k) to its place. */
static void sift_down(struct listing_entry *e, size_t i, size_t n, unsigned k)
{
	for (size_t child; (child = 2 * i + 1) < n; i = child) {
		if (child + 1 < n && row_order(&e[child], &e[child + 1], k) < 0)
			child++;
		if (row_order(&e[i], &e[child], k) >= 0)
			return;
		struct listing_entry t = e[i];
		e[i] = e[child];
		e[child] = t;
	}
}

void listing_sort(struct listing_entry *e, size_t n, unsigned order)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(e, i, n, order);
	for (size_t end = n; end-- > 1;) {
		struct listing_entry t = e[0];
		e[0] = e[end];
		e[end] = t;
		sift_down(e, 0, end, order);
	}
}

size_t listing_page(char *out, const char *dir, size_t dir_len, unsigned order,
		    const struct listing_entry *e, size_t n)
{
	char *p = out + listing_start(out, dir, dir_len, order);
	for (size_t i = 0; i < n; i++)
		p += listing_row(p, &e[i]);
	p += listing_end(p);
	return (size_t)(p - out);
}

uint64_t listing_hash(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

size_t listing_size_text(char *out, uint64_t size)
{
	static const char units[] = "KMGTPE";
	char *p = out;
	if (size < 1024) {
		p += u64_to_dec(size, p);
		return (size_t)(copy_span(p, LITERAL(" B")) - out);
	}
	unsigned u = 0;
	uint64_t unit = 1024;
	while (u + 1 < sizeof(units) - 1 && size / unit >= 1024) {
		unit <<= 10;
		u++;
	}
	/* tenths of the unit, rounded half up; size % unit < 2^60, so * 10 cannot wrap */
	uint64_t tenths = size / unit * 10 + ((size % unit) * 10 + unit / 2) / unit;
	if (tenths >= 10240 && u + 1 < sizeof(units) - 1) { /* 1023.95 KiB and up: 1.0 MiB */
		unit <<= 10;
		u++;
		tenths = size / unit * 10 + ((size % unit) * 10 + unit / 2) / unit;
	}
	p += u64_to_dec(tenths / 10, p);
	*p++ = '.';
	*p++ = (char)('0' + tenths % 10);
	*p++ = ' ';
	*p++ = units[u];
	return (size_t)(copy_span(p, LITERAL("iB")) - out);
}

/* Whether the parameter p[0..len) is key=value. */
static int parameter_is(const char *p, size_t len, const char *key, const char *value)
{
	size_t k = cstr_len(key), v = cstr_len(value);
	return len == k + 1 + v && span_eq(p, key, k) && p[k] == '=' && span_eq(p + k + 1, value, v);
}

/* The sort parameter p[0..len) names (enum listing_sort), or LISTING_SORTS for none. */
static unsigned sort_named(const char *p, size_t len)
{
	unsigned s = 0;
	while (s < LISTING_SORTS && !parameter_is(p, len, "sort", listing_sorts[s].word))
		s++;
	return s;
}

unsigned listing_order_of_query(const char *query, size_t len)
{
	unsigned sort = LISTING_SORTS, desc = 2; /* 2: no order met yet */
	for (size_t at = 0; at < len;) {
		size_t end = at;
		while (end < len && query[end] != '&')
			end++;
		if (sort == LISTING_SORTS)
			sort = sort_named(query + at, end - at);
		if (desc == 2 && parameter_is(query + at, end - at, "order", "desc"))
			desc = 1;
		else if (desc == 2 && parameter_is(query + at, end - at, "order", "asc"))
			desc = 0;
		at = end + 1;
	}
	if (sort == LISTING_SORTS)
		return LISTING_ORDER_DEFAULT;
	return 2 * sort + (desc == 1);
}
