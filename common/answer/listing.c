/* The HTML index of a directory (see listing.h). */
#include "common/answer/listing.h"

#include "common/base/civil_time.h"
#include "common/http/url_path.h"

#define PAGE_HEAD                                                                     \
	"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"                        \
	"<meta name=\"viewport\" content=\"width=device-width\"><title>Index of "
#define PAGE_TITLE_END "</title></head>\n<body><h1>Index of "
#define PAGE_TABLE                                                                     \
	"</h1>\n<table>\n<tr><th>Name</th><th>Size</th><th>Last modified (UTC)</th></tr>\n"
#define PAGE_PARENT "<tr><td><a href=\"../\">../</a></td><td></td><td></td></tr>\n"
#define PAGE_END "</table>\n</body></html>\n"
#define ROW_START "<tr><td><a href=\""
#define ROW_LINK_END "\">"
#define ROW_NAME_END "</a></td><td>"
#define ROW_SIZE_END "</td><td>"
#define ROW_END "</td></tr>\n"
#define DIRECTORY_SIZE "-"
STATIC_ASSERT(sizeof(PAGE_HEAD PAGE_TITLE_END PAGE_TABLE PAGE_PARENT PAGE_END) - 1 + 4 <=
		      LISTING_PAGE_FIXED,
	      "a page's fixed bytes, and the two pairs of '/' around its path");
STATIC_ASSERT(sizeof(ROW_START ROW_LINK_END ROW_NAME_END ROW_SIZE_END ROW_END) - 1 + 2 +
			      U64_DEC_MAX + LISTING_TIME_LEN <=
		      LISTING_ROW_FIXED,
	      "a row's fixed bytes, the two '/' of a directory, the size and the time");

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

size_t listing_start(char *out, const char *dir, size_t dir_len)
{
	char *p = copy_span(out, LITERAL(PAGE_HEAD));
	p += escaped_path(p, dir, dir_len);
	p = copy_span(p, LITERAL(PAGE_TITLE_END));
	p += escaped_path(p, dir, dir_len);
	p = copy_span(p, LITERAL(PAGE_TABLE));
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
	if (r->directory)
		p = copy_span(p, LITERAL(DIRECTORY_SIZE));
	else
		p += u64_to_dec(r->size, p);
	p = copy_span(p, LITERAL(ROW_SIZE_END));
	p = put_time(p, r->mtime);
	p = copy_span(p, LITERAL(ROW_END));
	return (size_t)(p - out);
}

size_t listing_end(char *out)
{
	return (size_t)(copy_span(out, LITERAL(PAGE_END)) - out);
}
