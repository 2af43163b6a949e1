/* Reading the header fields the answer needs (If-None-Match, If-Modified-Since, If-Range,
 * Range, Accept-Encoding, Accept) from what parse_headers recorded in the header_block
 * (http_parse.h: field[], fields_seen), in the one pass that also found Host and
 * Content-Length. The block's bytes are never walked again: these read the table, and
 * the values they return point into the block. Which lines of a repeated field count is
 * the caller's rule (docs/ARCHITECTURE.md, "Header fields: read once"). Pure; inline. */
#ifndef APOLLOD_COMMON_HTTP_FIELDS_H
#define APOLLOD_COMMON_HTTP_FIELDS_H

#include <stdint.h>

#include "common/http/http_parse.h"
#include "common/base/span.h"
#include "common/base/static_assert.h"

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

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_HTTP_FIELDS_H */
