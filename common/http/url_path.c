/* Percent-decoding and -encoding (see url_path.h). */
#include "common/http/url_path.h"

#define HEX_NONE 0xff /* hex_value: not a hex digit */

/* The value of hex digit c (either case), or HEX_NONE. */
static unsigned hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20; /* ASCII letters: fold to lower case */
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return HEX_NONE;
}

enum url_path_outcome url_path_decode(const char *in, size_t len, char *out, size_t cap,
				      size_t *out_len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++, n++) {
		unsigned char c = (unsigned char)in[i];
		if (c == '%') {
			if (len - i < 3)
				return URL_PATH_BAD;
			unsigned hi = hex_value((unsigned char)in[i + 1]);
			unsigned lo = hex_value((unsigned char)in[i + 2]);
			if (hi == HEX_NONE || lo == HEX_NONE)
				return URL_PATH_BAD;
			c = (unsigned char)(hi << 4 | lo);
			if (c == '/' || c == '\0')
				return URL_PATH_BAD;
			i += 2;
		}
		if (n < cap)
			out[n] = (char)c;
	}
	if (n > cap)
		return URL_PATH_TOO_LONG;
	*out_len = n;
	return URL_PATH_OK;
}

/* The index of the first '/' in path[from..len), or len. */
static size_t segment_end(const char *path, size_t from, size_t len)
{
	while (from < len && path[from] != '/')
		from++;
	return from;
}

/* The length of out[0..n) without its last segment and that segment's '/'. Expects n
 * >= 1 and out[0] == '/'. */
static size_t drop_last_segment(const char *out, size_t n)
{
	while (n > 0 && out[--n] != '/')
		;
	return n;
}

size_t url_path_remove_dots(char *path, size_t len)
{
	size_t n = 0; /* output bytes: path[0..n), always <= the input read */
	for (size_t i = 0; i < len;) { /* path[i] == '/' */
		size_t end = segment_end(path, i + 1, len);
		size_t seg = end - i - 1;
		int dot = seg == 1 && path[i + 1] == '.';
		int dots = seg == 2 && path[i + 1] == '.' && path[i + 2] == '.';
		if (dots && n == 0)
			return URL_PATH_ABOVE_ROOT;
		if (dots)
			n = drop_last_segment(path, n);
		if (!dot && !dots) {
			__builtin_memmove(path + n, path + i, end - i);
			n += end - i;
		} else if (end == len) { /* a final "." or "..": the directory itself */
			path[n++] = '/';
		}
		i = end;
	}
	return n;
}

/* Returns 1 for an unreserved byte of RFC 3986 2.3: A-Z a-z 0-9 - . _ ~ */
static int is_unreserved(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == '~';
}

/* Returns 1 if in[i] stays as it is under keep (see enum url_keep), else 0. */
static int url_byte_kept(const char *in, size_t len, size_t i, enum url_keep keep)
{
	unsigned char c = (unsigned char)in[i];
	if (is_unreserved(c))
		return 1;
	if (keep == URL_KEEP_UNRESERVED)
		return 0;
	switch (c) {
	case '!': case '$': case '&': case '\'': case '(': case ')': case '*': case '+':
	case ',': case ';': case '=': case ':': case '@': case '/':
		return 1;
	case '?':
		return keep == URL_KEEP_QUERY;
	case '%': /* pct-encoded = "%" HEXDIG HEXDIG */
		return len - i >= 3 && hex_value((unsigned char)in[i + 1]) != HEX_NONE &&
		       hex_value((unsigned char)in[i + 2]) != HEX_NONE;
	default:
		return 0;
	}
}

size_t url_encode(char *out, const char *in, size_t len, enum url_keep keep)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];
		if (url_byte_kept(in, len, i, keep)) {
			if (out)
				out[n] = (char)c;
			n++;
			continue;
		}
		if (out) {
			out[n] = '%';
			out[n + 1] = "0123456789ABCDEF"[c >> 4];
			out[n + 2] = "0123456789ABCDEF"[c & 0xf];
		}
		n += URL_ENCODED_MAX;
	}
	return n;
}

int name_extension(const char *name, size_t len, size_t *at)
{
	size_t dot = len;
	while (dot > 0 && name[dot - 1] != '.' && name[dot - 1] != '/')
		dot--;
	*at = dot;
	return dot > 0 && name[dot - 1] == '.';
}
