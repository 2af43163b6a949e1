/* The byte classification table (see char_class.h), built with GNU range initialisers so
 * each class reads like its RFC definition. */
#include "common/base/char_class.h"

#define ALNUM_CLASSES (CC_TCHAR | CC_TARGET | CC_VALUE | CC_HOST)

const uint8_t http_char_class[CHAR_CLASS_SIZE] = {
	['\t'] = CC_VALUE | CC_OWS,
	[' '] = CC_VALUE | CC_OWS,
	/* tchar punctuation: ! # $ % & ' * + - . ^ _ ` | ~ */
	['!'] = CC_TCHAR | CC_TARGET | CC_VALUE | CC_HOST,
	['#'] = CC_TCHAR | CC_TARGET | CC_VALUE,
	['$'] = CC_TCHAR | CC_TARGET | CC_VALUE | CC_HOST,
	['%'] = CC_TCHAR | CC_TARGET | CC_VALUE | CC_HOST,
	['&'] = CC_TCHAR | CC_TARGET | CC_VALUE | CC_HOST,
	['\''] = CC_TCHAR | CC_TARGET | CC_VALUE | CC_HOST,
	['*'] = CC_TCHAR | CC_TARGET | CC_VALUE | CC_HOST,
	['+'] = CC_TCHAR | CC_TARGET | CC_VALUE | CC_HOST,
	['-'] = CC_TCHAR | CC_TARGET | CC_VALUE | CC_HOST,
	['.'] = CC_TCHAR | CC_TARGET | CC_VALUE | CC_HOST,
	['^'] = CC_TCHAR | CC_TARGET | CC_VALUE,
	['_'] = CC_TCHAR | CC_TARGET | CC_VALUE | CC_HOST,
	['`'] = CC_TCHAR | CC_TARGET | CC_VALUE,
	['|'] = CC_TCHAR | CC_TARGET | CC_VALUE,
	['~'] = CC_TCHAR | CC_TARGET | CC_VALUE | CC_HOST,
	/* delimiters: visible, not tchar */
	['"'] = CC_TARGET | CC_VALUE,
	['('] = CC_TARGET | CC_VALUE | CC_HOST,
	[')'] = CC_TARGET | CC_VALUE | CC_HOST,
	[','] = CC_TARGET | CC_VALUE | CC_HOST,
	['/'] = CC_TARGET | CC_VALUE,
	[':'] = CC_TARGET | CC_VALUE,
	[';'] = CC_TARGET | CC_VALUE | CC_HOST,
	['<'] = CC_TARGET | CC_VALUE,
	['='] = CC_TARGET | CC_VALUE | CC_HOST,
	['>'] = CC_TARGET | CC_VALUE,
	['?'] = CC_TARGET | CC_VALUE,
	['@'] = CC_TARGET | CC_VALUE,
	['['] = CC_TARGET | CC_VALUE,
	['\\'] = CC_TARGET | CC_VALUE,
	[']'] = CC_TARGET | CC_VALUE,
	['{'] = CC_TARGET | CC_VALUE,
	['}'] = CC_TARGET | CC_VALUE,
	['0' ... '9'] = ALNUM_CLASSES | CC_DIGIT,
	['A' ... 'Z'] = ALNUM_CLASSES | CC_UPPER,
	['a' ... 'z'] = ALNUM_CLASSES,
};

size_t dec_to_u64(const char **p, const char *end, uint64_t *v)
{
	size_t n = 0;
	*v = 0;
	for (; *p < end && **p >= '0' && **p <= '9'; (*p)++, n++) {
		uint64_t d = (uint64_t)(**p - '0');
		*v = *v > (UINT64_MAX - d) / 10u ? UINT64_MAX : *v * 10u + d;
	}
	return n;
}
