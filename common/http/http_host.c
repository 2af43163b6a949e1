/* Host header validation (contract in http_host.h). Kept apart from the parsers so the
 * assembly parser of the asm-hotpath tier calls this same routine. */
#include "common/http/http_host.h"

#include "common/base/char_class.h"

int http_host_valid(const char *v, size_t n)
{
	size_t i = 0;
	if (n > 0 && v[0] == '[') {
		/* IP-literal: IPv6address or IPvFuture, both drawn from hex digits, ':', '.',
		 * 'v' and unreserved / sub-delims; the exact grammar is not enforced. */
		i = 1;
		while (i < n && v[i] != ']') {
			unsigned char c = (unsigned char)v[i];
			if (c != ':' && !(http_char_class[c] & CC_HOST))
				return 0;
			i++;
		}
		if (i == n || i == 1)
			return 0;
		i++;
	} else {
		while (i < n && (http_char_class[(unsigned char)v[i]] & CC_HOST))
			i++;
	}
	if (i == n)
		return 1;
	if (v[i] != ':')
		return 0;
	for (i++; i < n; i++)
		if (!(http_char_class[(unsigned char)v[i]] & CC_DIGIT))
			return 0;
	return 1;
}
