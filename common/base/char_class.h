/* One 256-entry table classifies every byte the parser looks at (RFC 9110 tchar, target
 * bytes, field-value bytes, A-Z, digits). Shared by the C and assembly parsers. */
#ifndef APOLLOD_COMMON_CHAR_CLASS_H
#define APOLLOD_COMMON_CHAR_CLASS_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define CC_TCHAR 0x01  /* RFC 9110 5.6.2 token character */
#define CC_TARGET 0x02 /* request-target byte: 0x21-0x7e */
#define CC_VALUE 0x04  /* field-value byte: 0x20-0x7e or HTAB */
#define CC_UPPER 0x08  /* A-Z: method bytes */
#define CC_DIGIT 0x10  /* 0-9 */
#define CC_HOST 0x20   /* reg-name byte: unreserved, sub-delims, '%' (RFC 3986) */
#define CC_OWS 0x40    /* SP or HTAB */
#define CHAR_CLASS_SIZE 256

extern const uint8_t http_char_class[CHAR_CLASS_SIZE];

/* Reads the decimal digits at *p (before end) into *v, saturating at UINT64_MAX, and
 * moves *p past them. Returns the number of digits read (0: none, *v is 0). */
size_t dec_to_u64(const char **p, const char *end, uint64_t *v);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_CHAR_CLASS_H */
