/* The extension table (see mime_types.h). */
#include "common/answer/mime_types.h"

#define CHECK_TYPE_LEN(ext, type) \
	STATIC_ASSERT(sizeof(type) - 1 <= CONTENT_TYPE_MAX, ext ": Content-Type too long");
FOR_EACH_CONTENT_TYPE(CHECK_TYPE_LEN)
#undef CHECK_TYPE_LEN
STATIC_ASSERT(sizeof(CONTENT_TYPE_DEFAULT) - 1 <= CONTENT_TYPE_MAX, "default type");

static const struct {
	const char *ext;
	const char *type;
	uint8_t ext_len;
	uint8_t type_len;
} content_types[] = {
#define TYPE_ENTRY(ext, type) {ext, type, sizeof(ext) - 1, sizeof(type) - 1},
	FOR_EACH_CONTENT_TYPE(TYPE_ENTRY)
#undef TYPE_ENTRY
};
#define CONTENT_TYPE_COUNT (sizeof(content_types) / sizeof(content_types[0]))

void mime_type_of(const char *name, size_t len, struct text_span *type)
{
	size_t dot = len;
	while (dot > 0 && name[dot - 1] != '.' && name[dot - 1] != '/')
		dot--;
	if (dot > 0 && name[dot - 1] == '.') {
		for (size_t i = 0; i < CONTENT_TYPE_COUNT; i++)
			if (content_types[i].ext_len == len - dot &&
			    span_ieq(name + dot, content_types[i].ext, len - dot)) {
				type->text = content_types[i].type;
				type->len = content_types[i].type_len;
				return;
			}
	}
	type->text = CONTENT_TYPE_DEFAULT;
	type->len = sizeof(CONTENT_TYPE_DEFAULT) - 1;
}
