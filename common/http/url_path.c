/* Percent-decoding (see url_path.h). */
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
