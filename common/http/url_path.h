/* Percent-decoding of a request path (RFC 3986 2.1) before a --root lookup. The decoded
 * name is only ever compared with names loaded at start-up, so decoding cannot reach
 * outside DIR; what it refuses is what would make one name mean two things: an encoded
 * '/' (a separator that is not one), an encoded NUL, and a '%' not followed by two hex
 * digits. Pure: no syscalls. */
#ifndef APOLLOD_COMMON_URL_PATH_H
#define APOLLOD_COMMON_URL_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

enum url_path_outcome {
	URL_PATH_OK = 0,       /* decoded: *out_len bytes at out */
	URL_PATH_BAD = 1,      /* %2F/%2f, %00 or a malformed escape: answer 400 */
	URL_PATH_TOO_LONG = 2, /* well-formed, but longer than cap: no loaded name is that long */
};

/* Decodes the len bytes at in (a path, without the query) into out, which has room for
 * cap bytes. Every escape is checked even past cap, so a bad one is BAD, never TOO_LONG.
 * Writes only out[0..cap); reads only in[0..len). Returns the outcome; *out_len is set on
 * URL_PATH_OK. */
enum url_path_outcome url_path_decode(const char *in, size_t len, char *out, size_t cap,
				      size_t *out_len);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_URL_PATH_H */
