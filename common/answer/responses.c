/* The static response table (see responses.h). */
#include "common/answer/responses.h"

#include "common/answer/path_fields.h"

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

/* The 405's Allow line sits between Content-Length and Connection. */
#define RESPONSE_HEAD(status, len, extra, conn)                                        \
	HEAD_STATUS_LINE(status) "Content-Type: " CONTENT_TYPE_TEXT HEAD_LENGTH_FIELD       \
	STRINGIFY(len) "\r\n" extra "Connection: " conn HEAD_END

/* The build fails when a declared Content-Length differs from its body's length. */
#define RESPONSE_CHECK(id, status, cnt, len, body, extra) \
	STATIC_ASSERT(sizeof(body) - 1 == (len), #id ": Content-Length != body length");
FOR_EACH_STATIC_RESPONSE(RESPONSE_CHECK)

#define RESPONSE_ENTRY(id, status, cnt, len, body, extra, conn)                  \
	[id] = {                                                                 \
		.bytes = RESPONSE_HEAD(status, len, extra, conn) body,           \
		.head_len = sizeof(RESPONSE_HEAD(status, len, extra, conn)) - 1, \
		.total_len = sizeof(RESPONSE_HEAD(status, len, extra, conn) body) - 1, \
		.counter = cnt,                                                  \
	},
#define ENTRY_CLOSE(id, status, cnt, len, body, extra) \
	RESPONSE_ENTRY(id, status, cnt, len, body, extra, "close")
#define ENTRY_KEEP_ALIVE(id, status, cnt, len, body, extra) \
	RESPONSE_ENTRY(id, status, cnt, len, body, extra, "keep-alive")

const struct static_response static_responses[CONN_FORM_COUNT][STATIC_RESPONSE_COUNT] = {
	[CONN_FORM_CLOSE] = {FOR_EACH_STATIC_RESPONSE(ENTRY_CLOSE)},
	[CONN_FORM_KEEP_ALIVE] = {FOR_EACH_STATIC_RESPONSE(ENTRY_KEEP_ALIVE)},
};

/* HEAD_CONNECTION_FIELD, the form's value and HEAD_END: what ends every rendered head. */
const struct text_span head_tail[CONN_FORM_COUNT] = {
#define TAIL_ENTRY(id, value) [id] = {LITERAL(HEAD_CONNECTION_FIELD value HEAD_END)},
	FOR_EACH_CONN_FORM(TAIL_ENTRY)
#undef TAIL_ENTRY
};

size_t head_200_len(size_t type_len, uint64_t content_length, enum conn_form form)
{
	char digits[U64_DEC_MAX];
	return sizeof(HEAD_200_PREFIX HEAD_LENGTH_FIELD) - 1 + type_len +
	       u64_to_dec(content_length, digits) + head_tail[form].len;
}

size_t render_head_200_with(char *out, const char *type, size_t type_len,
			    uint64_t content_length, const char *fields, size_t fields_len,
			    enum conn_form form)
{
	struct text_span prefix = {LITERAL(HEAD_200_PREFIX)};
	return render_head_with(out, prefix, type, type_len, content_length, fields, fields_len,
				form);
}

size_t render_head_with(char *out, struct text_span prefix, const char *type, size_t type_len,
			uint64_t content_length, const char *fields, size_t fields_len,
			enum conn_form form)
{
	char *p = copy_span(out, prefix.text, prefix.len);
	p = copy_span(p, type, type_len);
	p = copy_span(p, LITERAL(HEAD_LENGTH_FIELD));
	p += u64_to_dec(content_length, p);
	p = copy_span(p, fields, fields_len);
	p = copy_span(p, head_tail[form].text, head_tail[form].len);
	return (size_t)(p - out);
}

size_t render_head_200(char *out, const char *type, size_t type_len,
		       uint64_t content_length, enum conn_form form)
{
	return render_head_200_with(out, type, type_len, content_length, 0, 0, form);
}

size_t render_head_304(char *out, struct text_span validators, int vary, struct text_span fields,
		       enum conn_form form)
{
	char *p = copy_span(out, LITERAL(HEAD_304_PREFIX));
	p = copy_span(p, validators.text, validators.len);
	if (vary)
		p = copy_span(p, LITERAL(HEAD_VARY_FIELD));
	p = copy_span(p, fields.text, fields.len);
	p = copy_span(p, head_tail[form].text, head_tail[form].len);
	return (size_t)(p - out);
}

size_t render_head_206(char *out, struct text_span type, uint64_t first, uint64_t last,
		       uint64_t size, struct text_span fields, enum conn_form form)
{
	char *p = copy_span(out, LITERAL(HEAD_206_PREFIX));
	p = copy_span(p, type.text, type.len);
	p = copy_span(p, LITERAL(HEAD_LENGTH_FIELD));
	p += u64_to_dec(last - first + 1, p);
	p = copy_span(p, LITERAL(HEAD_CONTENT_RANGE_FIELD));
	p += u64_to_dec(first, p);
	*p++ = '-';
	p += u64_to_dec(last, p);
	*p++ = '/';
	p += u64_to_dec(size, p);
	p = copy_span(p, fields.text, fields.len);
	p = copy_span(p, head_tail[form].text, head_tail[form].len);
	return (size_t)(p - out);
}

size_t render_416(char *out, uint64_t size, enum conn_form form, uint32_t *head_len)
{
	char *p = copy_span(out, LITERAL(HEAD_416_PREFIX));
	p += u64_to_dec(size, p);
	p = copy_span(p, head_tail[form].text, head_tail[form].len);
	*head_len = (uint32_t)(p - out);
	p = copy_span(p, LITERAL(RANGE_NOT_SATISFIABLE_BODY));
	return (size_t)(p - out);
}

size_t redirect_location_len(const char *target, uint32_t path_len, uint32_t target_len)
{
	return url_encode(0, target, path_len, URL_KEEP_PATH) + 1 +
	       url_encode(0, target + path_len, target_len - path_len, URL_KEEP_QUERY);
}

size_t render_redirect(char *out, const char *target, uint32_t path_len, uint32_t target_len,
		       enum conn_form form, uint32_t *head_len)
{
	char *p = copy_span(out, LITERAL(REDIRECT_HEAD_PREFIX));
	p += url_encode(p, target, path_len, URL_KEEP_PATH);
	*p++ = '/';
	p += url_encode(p, target + path_len, target_len - path_len, URL_KEEP_QUERY);
	p = copy_span(p, head_tail[form].text, head_tail[form].len);
	*head_len = (uint32_t)(p - out);
	p = copy_span(p, LITERAL(REDIRECT_BODY));
	return (size_t)(p - out);
}

size_t render_options(char *out, struct text_span fields, enum conn_form form)
{
	char *p = copy_span(out, LITERAL(OPTIONS_HEAD_PREFIX));
	p = copy_span(p, fields.text, fields.len);
	p = copy_span(p, head_tail[form].text, head_tail[form].len);
	return (size_t)(p - out);
}

/* Each error page's status line and Content-Type name, by enum error_page_id. */
static const struct text_span page_prefix[ERROR_PAGE_COUNT] = {
#define PAGE_PREFIX(id, code, line) [id] = {LITERAL(HEAD_STATUS_LINE(line) "Content-Type: ")},
	FOR_EACH_ERROR_STATUS(PAGE_PREFIX)
#undef PAGE_PREFIX
};

size_t render_page_head(char *out, unsigned page, struct text_span type, uint64_t size,
			struct text_span fields, enum conn_form form)
{
	char all[sizeof(HEAD_ALLOW_FIELD) - 1 + PATH_FIELDS_BLOCK_MAX];
	size_t n = 0;
	if (page == ERROR_PAGE_405) /* as the static 405: Allow after Content-Length */
		n = (size_t)(copy_span(all, LITERAL(HEAD_ALLOW_FIELD)) - all);
	n = (size_t)(copy_span(all + n, fields.text, fields.len) - all);
	return render_head_with(out, page_prefix[page], type.text, type.len, size, all, n, form);
}

size_t render_page_416(char *out, struct text_span page_head, uint64_t size, enum conn_form form)
{
	char *p = copy_span(out, page_head.text, page_head.len);
	p = copy_span(p, LITERAL(HEAD_CONTENT_RANGE_FIELD "*/"));
	p += u64_to_dec(size, p);
	p = copy_span(p, head_tail[form].text, head_tail[form].len);
	return (size_t)(p - out);
}
