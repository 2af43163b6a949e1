/* Host header validation: the lowest layer of the request parser. It sits below the
 * header parser (C, and the assembly of the asm-hotpath tier), which call it; it calls
 * nothing but the character classes. */
#ifndef APOLLOD_COMMON_HTTP_HOST_H
#define APOLLOD_COMMON_HTTP_HOST_H

#include <stddef.h>

#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* Checks a Host value: reg-name, IPv4 or [IP-literal] (RFC 3986 3.2.2), optionally
 * followed by ':' and digits. An empty value is valid (RFC 9112 3.2). Returns 1 or 0.
 * Reads exactly len bytes at value. */
int http_host_valid(const char *value, size_t len);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_HTTP_HOST_H */
