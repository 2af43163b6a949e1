/* Header fields the answer needs beyond the ones the hot-path parser keeps (Host,
 * Content-Length, Connection): If-None-Match, Range, Accept-Encoding, Accept and the like.
 * They are looked up on demand, after parse_headers has accepted the whole block, so the
 * hot path (C and assembly) and its 16-byte header_block stay as they are, and a request
 * that never needs a field (/, /health) never pays for a scan. Pure; no syscalls. */
#ifndef APOLLOD_COMMON_HTTP_FIELDS_H
#define APOLLOD_COMMON_HTTP_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "common/http_parse.h"
#include "common/span.h"
#include "common/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* Returns 1 when some line of the block parse_headers filled h from names field id. */
static inline int header_field_seen(const struct header_block *h, enum recorded_field id)
{
	return (h->fields_seen >> id) & 1u;
}

/* Walks the lines of field id that parse_headers recorded in h, in the order of the
 * block: finds the first at index *i or later, sets *value to its value (OWS trimmed,
 * possibly empty; inside block, the block h was parsed from), moves *i past it and
 * returns 1; returns 0 when no further line names id. Start with *i = 0. Reads h only:
 * the block's bytes are never walked again. */
static inline int header_field_next(const struct header_block *h, const char *block,
				    enum recorded_field id, uint32_t *i, struct text_span *value)
{
	if (!header_field_seen(h, id))
		return 0;
	for (; *i < h->field_count; (*i)++) {
		const struct field_line *line = &h->field[*i];
		if (line->id == id) {
			value->text = block + line->at;
			value->len = line->len;
			(*i)++;
			return 1;
		}
	}
	return 0;
}

/* header_field_next from the start: the value of the first line of field id. */
static inline int header_field_first(const struct header_block *h, const char *block,
				     enum recorded_field id, struct text_span *value)
{
	uint32_t i = 0;
	return header_field_next(h, block, id, &i, value);
}

/* A walk over the field lines of one header block. */
struct field_cursor {
	const char *at;  /* start of the next line to look at */
	const char *end; /* one past the block's final CRLF */
};

/* Starts a walk over a block that parse_headers returned COMPLETE for: block is its first
 * byte (the first header line, or the final CRLF), block_len its block_len. */
static inline struct field_cursor field_cursor_start(const char *block, uint32_t block_len)
{
	struct field_cursor c = { block, block + block_len };
	return c;
}

/* Finds the next line at or after the cursor whose field name equals name
 * (case-insensitive, whole name). Returns 1 and sets *value to the field value with
 * leading and trailing spaces and tabs removed (possibly empty), and moves the cursor
 * past that line; returns 0 when no further line has that name. Expects a block accepted
 * by parse_headers (every line is `name:value CRLF`, no obs-fold); reads only inside it. */
int field_next(struct field_cursor *c, const char *name, size_t name_len,
	       struct text_span *value);

/* field_next from the block's start: the first line named name. */
static inline int field_find(const char *block, uint32_t block_len, const char *name,
			     size_t name_len, struct text_span *value)
{
	struct field_cursor c = field_cursor_start(block, block_len);
	return field_next(&c, name, name_len, value);
}

/* The most names one field_scan looks for: its result is a bit mask. */
#define FIELD_SCAN_MAX 32

/* One walk over a block parse_headers accepted, for several names at once: for each
 * i < count (count <= FIELD_SCAN_MAX), values[i] becomes the value of the first line named
 * names[i], as field_next sets it. Returns a mask with bit i set when names[i] was found;
 * values[i] is left alone when it was not. Reads only inside the block. */
uint32_t field_scan(const char *block, uint32_t block_len, const struct text_span *names,
		    int count, struct text_span *values);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_HTTP_FIELDS_H */
