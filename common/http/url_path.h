/* Percent-decoding of a request path (RFC 3986 2.1) before a --root lookup, and the
 * percent-encoding of the links and redirect targets the daemon writes. The decoded
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

/* Removes the dot segments of path[0..len) in place (RFC 3986 5.2.4, BEHAVIOUR 10.4): a
 * "." segment goes, a ".." segment takes the segment before it away, and a path that
 * ended in either ends in '/' (so "/sub/.." is "/", an index). Expects a decoded path
 * that starts with '/' (len >= 1). Writes only path[0..len). Returns the new length
 * (>= 1, still starting with '/'), or URL_PATH_ABOVE_ROOT when a ".." would climb above
 * the root ("/..", "/a/../.."), where RFC 3986 would silently stop at it. */
#define URL_PATH_ABOVE_ROOT ((size_t)-1)
size_t url_path_remove_dots(char *path, size_t len);

/* Finds the extension of name[0..len): what follows the last '.' of the last path
 * segment. Returns 1 with *at its offset (it may be empty: "a."), or 0 when there is none.
 * The one rule for the Content-Type, --header-for's *.ext patterns and which misses
 * --fallback answers (BEHAVIOUR 10.5, 10.12, 10.13). Pure. */
int name_extension(const char *name, size_t len, size_t *at);

/* What url_encode leaves as it is; every other byte becomes %HH (upper-case hex). */
enum url_keep {
	URL_KEEP_UNRESERVED = 0, /* RFC 3986 2.3 unreserved: A-Z a-z 0-9 - . _ ~ (a name
				  * put into a link) */
	URL_KEEP_PATH = 1,       /* pchar and '/' (RFC 3986 3.3): unreserved, sub-delims
				  * ! $ & ' ( ) * + , ; =, ':', '@', and a '%' that starts a
				  * pct-encoded triplet (a lone '%' becomes %25) */
	URL_KEEP_QUERY = 2,      /* URL_KEEP_PATH and '?' (RFC 3986 3.4) */
};
#define URL_ENCODED_MAX 3 /* bytes one input byte may become ("%5C") */

/* Writes in[0..len) at out, every byte outside `keep` as %HH. out has room for
 * URL_ENCODED_MAX * len bytes (or is NULL: only the length is wanted). Returns the
 * bytes written (or that would be). */
size_t url_encode(char *out, const char *in, size_t len, enum url_keep keep);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_URL_PATH_H */
