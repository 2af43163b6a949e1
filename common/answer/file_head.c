/* The heads and validators of files, loaded or served from disk (see site.h):
 * pure renderers site.c and listing_pages.c use at start-up and disk_file.c per
 * request. */
#include "common/answer/site.h"

#include "common/base/span.h"

/* The content codings, file name suffixes and ETag suffixes, by enum file_encoding. */
const struct text_span file_encoding_coding[FILE_ENCODING_COUNT] = {
#define CODING_ENTRY(id, coding, suffix, etag_suffix) [id] = {LITERAL(coding)},
	FOR_EACH_FILE_ENCODING(CODING_ENTRY)
#undef CODING_ENTRY
};
const struct text_span file_encoding_suffix[FILE_ENCODING_COUNT] = {
#define SUFFIX_ENTRY(id, coding, suffix, etag_suffix) [id] = {LITERAL(suffix)},
	FOR_EACH_FILE_ENCODING(SUFFIX_ENTRY)
#undef SUFFIX_ENTRY
};
const struct text_span file_encoding_etag_suffix[FILE_ENCODING_COUNT] = {
#define ETAG_SUFFIX_ENTRY(id, coding, suffix, etag_suffix) [id] = {LITERAL(etag_suffix)},
	FOR_EACH_FILE_ENCODING(ETAG_SUFFIX_ENTRY)
#undef ETAG_SUFFIX_ENTRY
};
#define ENCODING_CHECK(id, coding, suffix, etag_suffix)                                  \
	STATIC_ASSERT(sizeof(coding) - 1 <= CONTENT_CODING_MAX &&                        \
			      sizeof(etag_suffix) - 1 <= ETAG_SUFFIX_MAX, #id " fits the heads");
FOR_EACH_FILE_ENCODING(ENCODING_CHECK)
#undef ENCODING_CHECK

size_t file_u64_to_hex(uint64_t v, char *out)
{
	size_t n = 1;
	for (uint64_t rest = v >> 4; rest; rest >>= 4)
		n++;
	for (size_t i = n; i-- > 0; v >>= 4)
		out[i] = "0123456789abcdef"[v & 0xf];
	return n;
}

/* Starts f's validators at out: HEAD_LAST_MODIFIED_FIELD of f->mtime, HEAD_ETAG_FIELD
 * and the ETag's opening quote, with f->etag pointing at it. Returns where the ETag goes
 * on; file_validators_end closes it. Pure. */
char *file_validators_start(char *out, struct cached_file *f)
{
	char *p = copy_span(out, LITERAL(HEAD_LAST_MODIFIED_FIELD));
	http_date_render(p, f->mtime);
	p = copy_span(p + HTTP_DATE_LEN, LITERAL(HEAD_ETAG_FIELD));
	f->etag = p;
	*p++ = '"';
	return p;
}

/* Closes the ETag file_validators_start began and ends at p. Returns the byte after it. */
char *file_validators_end(struct cached_file *f, char *p)
{
	*p++ = '"';
	f->etag_len = (uint8_t)(p - f->etag);
	return p;
}

size_t file_validators_render(char *out, struct cached_file *f, uint64_t size,
			      uint64_t mtime_ns, uint64_t inode)
{
	char *p = file_validators_start(out, f);
	p += file_u64_to_hex(size, p);
	*p++ = '-';
	p += file_u64_to_hex(mtime_ns, p);
	*p++ = '-';
	p += file_u64_to_hex(inode, p);
	p = copy_span(p, file_encoding_etag_suffix[f->encoding].text,
		      file_encoding_etag_suffix[f->encoding].len);
	return (size_t)(file_validators_end(f, p) - out);
}

size_t file_head_render(char *out, struct cached_file *f, struct text_span type,
			struct text_span header_for)
{
	struct text_span validators = file_validators(f);
	char fields[FILE_FIELDS_200_MAX + PATH_FIELDS_BLOCK_MAX];
	char *p = fields;
	if (f->encoding != FILE_ENCODING_IDENTITY) {
		p = copy_span(p, LITERAL(HEAD_CONTENT_ENCODING_FIELD));
		p = copy_span(p, file_encoding_coding[f->encoding].text, file_encoding_coding[f->encoding].len);
	}
	p = copy_span(p, validators.text, validators.len);
	p = copy_span(p, LITERAL(HEAD_ACCEPT_RANGES_FIELD));
	if (file_varies(f))
		p = copy_span(p, LITERAL(HEAD_VARY_FIELD));
	p = copy_span(p, header_for.text, header_for.len);
	f->fields_len = (uint16_t)header_for.len;
	f->head = out;
	f->head_len = (uint16_t)render_head_200_with(out, type.text, type.len, f->size, fields,
						     (size_t)(p - fields), FILE_HEAD_FORM);
	char digits[U64_DEC_MAX];
	f->type_len = (uint8_t)type.len;
	f->rest_at = (uint16_t)(HEAD_200_TYPE_AT + type.len + sizeof(HEAD_LENGTH_FIELD) - 1 +
				u64_to_dec(f->size, digits));
	return f->head_len;
}

