/* The HTML index of a directory without index.html (--listing, BEHAVIOUR 10.14): its
 * pieces rendered into a buffer the caller sized with the bounds below. listing_pages.c
 * picks and sorts the rows and stores the page as a file of the snapshot. Pure. */
#ifndef APOLLOD_COMMON_LISTING_H
#define APOLLOD_COMMON_LISTING_H

#include <stddef.h>
#include <stdint.h>

#include "common/answer/mime_types.h"
#include "common/base/span.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define LISTING_TYPE TEXT_UTF8("text/html")
#define LISTING_ESCAPE_MAX 6  /* bytes one name byte may become in HTML text ("&quot;") */
#define LISTING_HREF_MAX 3    /* bytes one name byte may become in a link ("%3C") */
#define LISTING_TIME_LEN 19   /* "YYYY-MM-DD HH:MM:SS", UTC, a four-digit year */
/* The fixed bytes of a page (without its rows) and of a row; the page's title and
 * heading each hold the escaped directory path, so the bound for a directory of n bytes
 * is LISTING_PAGE_FIXED + 2 * LISTING_ESCAPE_MAX * (n + 2). */
#define LISTING_PAGE_FIXED 768
#define LISTING_ROW_FIXED 160 /* markup, the size's digits and its readable form, the time */
#define LISTING_PAGE_MAX(dir_len) \
	(LISTING_PAGE_FIXED + 2u * LISTING_ESCAPE_MAX * ((uint64_t)(dir_len) + 2u))
#define LISTING_ROW_MAX(name_len) \
	(LISTING_ROW_FIXED + (LISTING_ESCAPE_MAX + LISTING_HREF_MAX) * (uint64_t)(name_len))

/* The orders a directory is listed in (BEHAVIOUR 10.14): ?sort=name|size|date and
 * &order=asc|desc, each a page of its own made at load. Order k is sort * 2 + (desc);
 * 0 (name, ascending) is the page a path without a known sort gets. */
enum listing_sort { LISTING_BY_NAME = 0, LISTING_BY_SIZE = 1, LISTING_BY_DATE = 2 };
#define LISTING_SORTS 3
#define LISTING_ORDERS (2 * LISTING_SORTS)
#define LISTING_ORDER_DEFAULT 0
/* The page of a directory in order k is a file named "dir/" ("" for the root), and for
 * an order other than the default this byte and the digit '0' + k after it: no loaded
 * name holds a NUL, so no request can name such a page; answer_cached looks it up. */
#define LISTING_ORDER_MARK '\0'
STATIC_ASSERT(LISTING_ORDERS <= 10, "an order is one digit");
/* A readable size: "1023 B", or one decimal and a binary unit ("1.2 KiB" ... "16.0 EiB"). */
#define LISTING_SIZE_TEXT_MAX (sizeof("1023.9 KiB") - 1)

/* One row: an entry of the directory. */
struct listing_entry {
	const char *name;  /* the entry's own name (its last path component) */
	size_t name_len;
	uint64_t size;     /* bytes (files) */
	uint64_t mtime;    /* Unix seconds, as Last-Modified serves it */
	int directory;     /* a directory: its name and link end in '/', no size */
};

/* Writes at out the page's start for the directory dir[0..dir_len) (relative to the
 * root, no leading or trailing '/'; empty for the root) listed in order (< LISTING_ORDERS):
 * doctype, title and heading "Index of /dir/", the table's header row (each column's
 * heading a link to its sort, ascending, or descending when the page is that sort
 * ascending) and, below the root, the "../" row. Returns the bytes written, at most
 * LISTING_PAGE_MAX(dir_len) minus the end's. */
size_t listing_start(char *out, const char *dir, size_t dir_len, unsigned order);

/* The order (< LISTING_ORDERS) a request's query asks for: query[0..len) is the target's
 * part after '?' (len 0: none), parameters separated by '&'; the first sort=name, size or
 * date and the first order=asc or desc count; any other parameter or value is passed
 * over. A sort it does not know, or none, is LISTING_ORDER_DEFAULT whatever order says;
 * an order it does not know is ascending. Pure. */
unsigned listing_order_of_query(const char *query, size_t len);

/* Writes at out the readable form of size: under 1024 "N B", else the largest binary
 * unit (KiB, MiB, GiB, TiB, PiB, EiB) it reaches, with one decimal rounded half up
 * ("1.2 KiB"; a rounding that reaches 1024.0 goes to the next unit). Returns the bytes
 * written, at most LISTING_SIZE_TEXT_MAX. */
size_t listing_size_text(char *out, uint64_t size);

/* Writes at out the row of r: a link percent-encoded (every byte but A-Z a-z 0-9 - . _ ~),
 * the name HTML-escaped (& < > " '), the size readable (listing_size_text) in a cell
 * whose title attribute is its decimal bytes ("-" for a directory, no title), the time as
 * LISTING_TIME_LEN bytes of UTC. Returns the bytes written, at most
 * LISTING_ROW_MAX(r->name_len). */
size_t listing_row(char *out, const struct listing_entry *r);

/* Writes at out the page's end. Returns the bytes written. */
size_t listing_end(char *out);

/* Compares a[0..an) with b[0..bn) byte by byte (unsigned), a prefix first: the order of
 * names in a listing. Returns <0, 0 or >0. Pure. */
int listing_name_cmp(const char *a, size_t an, const char *b, size_t bn);

/* Sorts one directory's rows e[0..n) (distinct names) into listing order (< LISTING_ORDERS,
 * BEHAVIOUR 10.14): directories before files in every order; then by the sort's key (own
 * name bytewise; a file's size, directories having none; the mtime's second), reversed
 * for descending; ties by name, ascending. Heapsort: in place, no recursion, n log n;
 * the order is total, so the result does not depend on the rows' order before. Pure. */
void listing_sort(struct listing_entry *e, size_t n, unsigned order);

/* Writes at out the whole page of directory dir[0..dir_len) in order, its rows e[0..n)
 * as given (listing_start, listing_row each, listing_end). Returns the bytes written, at
 * most LISTING_PAGE_MAX(dir_len) plus each row's LISTING_ROW_MAX. Pure. */
size_t listing_page(char *out, const char *dir, size_t dir_len, unsigned order,
		    const struct listing_entry *e, size_t n);

/* FNV-1a, 64 bits, over a page's bytes s[0..n): its ETag ("l-<size hex>-<this hex>"),
 * strong since the same bytes always make the same tag. Pure. */
uint64_t listing_hash(const char *s, size_t n);

/* Writes at out the name[0..len) with & < > " ' as character references. Returns the
 * bytes written, at most LISTING_ESCAPE_MAX * len. */
size_t listing_escape(char *out, const char *name, size_t len);

/* Writes at out the name[0..len) percent-encoded (upper-case hex), every byte but the
 * unreserved ones of RFC 3986 2.3. Returns the bytes written, at most
 * LISTING_HREF_MAX * len. */
size_t listing_href(char *out, const char *name, size_t len);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_LISTING_H */
