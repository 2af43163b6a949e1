/* What a GET or HEAD of a cached file gets (BEHAVIOUR 10.8-10.10): which representation
 * (the file or a precompressed variant, by Accept-Encoding), then the whole of it (200),
 * not modified (304: If-None-Match, If-Modified-Since; RFC 9110 13.1-13.2), one range of
 * it (206) or none it has (416: Range, If-Range; RFC 9110 14). The fields are the lines
 * parse_headers recorded in its header_block (http_fields.h reads them): the block is
 * not walked again. Pure; no syscalls. */
#ifndef APOLLOD_COMMON_FILE_ANSWER_H
#define APOLLOD_COMMON_FILE_ANSWER_H

#include <stddef.h>
#include <stdint.h>

#include "common/answer/site.h"
#include "common/http/http_parse.h"
#include "common/base/span.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

enum file_status {
	FILE_STATUS_200 = 0, /* the whole file */
	FILE_STATUS_304 = 1, /* not modified: its validators, no body */
	FILE_STATUS_206 = 2, /* bytes [first, last] of it */
	FILE_STATUS_416 = 3, /* the range names no byte of it */
};

/* What one If-None-Match line (its value, OWS trimmed) holds (RFC 9110 13.1.2). */
enum etag_list {
	ETAG_LIST_INVALID = 0,  /* not "*" nor a list of entity-tags: the field is invalid */
	ETAG_LIST_NO_MATCH = 1, /* a list (possibly empty) without a matching tag */
	ETAG_LIST_MATCH = 2,    /* a list holding a tag equal to etag */
	ETAG_LIST_ANY = 3,      /* exactly "*" */
};

/* Reads an If-None-Match line strictly: exactly "*", or entity-tags ([W/]"etagc*", etagc
 * being 0x21 and 0x23-0x7e: RFC 9110 8.8.3) separated by commas with optional spaces
 * and tabs (empty members allowed, RFC 9110 5.6.1). Anything else, such as "*x",
 * "\"e\"x", "\"e\";q=1" or two tags without a comma, makes it ETAG_LIST_INVALID. A tag
 * matches etag (etag_len bytes, quotes included) by the weak comparison (RFC 9110
 * 8.8.3.2: a "W/" prefix on either side is ignored). Reads only list.text[0..list.len). */
enum etag_list etag_list_read(struct text_span list, const char *etag, size_t etag_len);

enum range_outcome {
	RANGE_IGNORED = 0,       /* not one valid byte range: serve the whole file */
	RANGE_SATISFIABLE = 1,   /* *first..*last (inclusive) lie inside the file */
	RANGE_UNSATISFIABLE = 2, /* valid, but no byte of it is in the file: 416 */
};

/* Reads a Range value against a file of size bytes (size > 0): exactly one byte range
 * `bytes=a-b`, `bytes=a-` or `bytes=-n` (the unit case-insensitive, empty list members
 * and OWS around commas allowed, RFC 9110 14.1.1). A b past the end is cut to the last
 * byte; `-n` longer than the file is the whole file. Returns RANGE_IGNORED for another
 * unit, bad syntax, b < a, or two or more ranges; RANGE_UNSATISFIABLE when a >= size or
 * n = 0; else RANGE_SATISFIABLE with *first and *last set. Numbers too large for 64 bits
 * saturate. Reads only value.text[0..value.len). */
enum range_outcome range_parse(struct text_span value, uint64_t size, uint64_t *first,
			       uint64_t *last);

/* What an Accept-Encoding field says of each coding (RFC 9110 12.5.3): its weight in
 * thousandths (q=0.5 is 500, no q is 1000), or -1 when the field does not name it. */
struct coding_weights {
	int16_t q[FILE_ENCODING_COUNT]; /* identity, br, zstd, gzip (or x-gzip) */
	int16_t star;                   /* "*": any coding not named */
};

/* Adds what one Accept-Encoding value says to *w: members `coding[;q=v]` separated by
 * commas (OWS around them, empty members allowed), names case-insensitive. A member with
 * a malformed q-value, a parameter other than one q, or bytes after it is skipped; codings other than
 * br, zstd, gzip, x-gzip, identity and * are ignored; a coding named twice keeps the last
 * weight. Reads only value.text[0..value.len). */
void accept_encoding_weigh(struct text_span value, struct coding_weights *w);

/* The representation to serve when encodings in `available` (bit e set for each
 * enum file_encoding e a variant exists for) are on offer: the one with the highest weight
 * above 0 (a coding not named takes the weight of "*", if any), br, then zstd, then gzip
 * on a tie; identity when none is above 0 or when "identity" is named with a higher
 * weight than the best. Pure. */
enum file_encoding coding_choice(const struct coding_weights *w, unsigned available);

/* f itself, or the precompressed representation of f (f->variant) that the request's
 * Accept-Encoding lines (every one, in order; none: identity) choose by coding_choice.
 * h is the header_block parse_headers filled from block. Pure: reads h, the recorded
 * values in block, and f only. */
const struct cached_file *file_representation(const struct header_block *h, const char *block,
					      const struct cached_file *f);

/* Returns the wall clock's second (clock_now_unix_s, or a test's fixed clock). */
typedef uint64_t (*wall_second_fn)(void);

/* Decides the response to a GET (head_only 0) or HEAD of the file f from the request's
 * recorded fields (h, as parse_headers filled it from block); now is asked for the wall
 * clock's second only when a date is to be read. If-None-Match first (a match on any of
 * its lines is 304); only without it, the first If-Modified-Since line (a valid date not
 * after now and not before f's mtime is 304); then, for a GET of a non-empty file, the
 * first Range line (206 or 416) when If-Range is absent or its first line holds (an
 * entity-tag strongly equal to f's, or f's exact Last-Modified date). Sets *first and
 * *last for FILE_STATUS_206. Pure but for now(): reads h, the recorded values in block,
 * and f only. */
/* Returns 1 when the request's Accept lines prefer text/html (BEHAVIOUR 10.12: what a
 * browser's navigation sends): "text/html" (case-insensitive) is named with a weight
 * above 0, no lower than every other media range's (a member's weight is its q, 1
 * without one; a member with another parameter or a malformed q is skipped). No Accept,
 * or only the wildcard range and image ranges: 0. */
int accept_prefers_html(const struct header_block *h, const char *block);

enum file_status file_status_of(const struct header_block *h, const char *block, int head_only,
				const struct cached_file *f, wall_second_fn now, uint64_t *first,
				uint64_t *last);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_FILE_ANSWER_H */
