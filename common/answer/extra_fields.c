/* --header checking and rendering (see extra_fields.h). */
#include "common/answer/extra_fields.h"

#include "common/base/char_class.h"
#include "common/base/span.h"

struct extra_fields extra_fields;

const char *const extra_field_reasons[EXTRA_PROBLEM_COUNT] = {
	[EXTRA_OK] = "ok",
	[EXTRA_NO_COLON] = "expected 'Name: value'",
	[EXTRA_BAD_NAME] = "the name must be a token (RFC 9110 5.6.2)",
	[EXTRA_BAD_VALUE] = "the value may hold only visible ASCII, space and tab",
	[EXTRA_RESERVED] = "the daemon writes that field itself",
	[EXTRA_TOO_LONG] = "the --header lines are too long together (4 KiB)",
};

/* The fields the daemon writes (or will write) itself: one name, one meaning. */
static const char *const reserved_names[] = {
	"content-length", "transfer-encoding", "connection", "content-type", "date",
	"location", "allow", "last-modified", "etag", "accept-ranges", "content-range",
	"content-encoding", "vary",
};
#define RESERVED_COUNT (sizeof(reserved_names) / sizeof(reserved_names[0]))

/* Returns 1 when name (len bytes) is one of reserved_names, in any case. */
static int is_reserved(const char *name, size_t len)
{
	for (size_t r = 0; r < RESERVED_COUNT; r++) {
		const char *want = reserved_names[r];
		size_t i = 0;
		while (i < len && want[i] && (name[i] | 0x20) == want[i]) /* tchars: | 0x20 folds A-Z */
			i++;
		if (i == len && want[i] == '\0')
			return 1;
	}
	return 0;
}

/* Returns 1 when every byte of s[0..n) has class bit `cls`. */
static int all_of(const char *s, size_t n, uint8_t cls)
{
	for (size_t i = 0; i < n; i++)
		if (!(http_char_class[(uint8_t)s[i]] & cls))
			return 0;
	return 1;
}

enum extra_field_problem extra_field_render(const char *arg, size_t len, char *out,
					    size_t room, size_t *written)
{
	size_t colon = 0;
	while (colon < len && arg[colon] != ':')
		colon++;
	if (colon == len)
		return EXTRA_NO_COLON;
	if (colon == 0 || !all_of(arg, colon, CC_TCHAR))
		return EXTRA_BAD_NAME;
	size_t at = colon + 1, end = len;
	while (at < end && (http_char_class[(uint8_t)arg[at]] & CC_OWS))
		at++;
	while (end > at && (http_char_class[(uint8_t)arg[end - 1]] & CC_OWS))
		end--;
	if (!all_of(arg + at, end - at, CC_VALUE))
		return EXTRA_BAD_VALUE;
	if (is_reserved(arg, colon))
		return EXTRA_RESERVED;
	size_t need = colon + sizeof(": ") - 1 + (end - at) + sizeof("\r\n") - 1;
	if (need > room)
		return EXTRA_TOO_LONG;
	char *p = copy_span(out, arg, colon);
	p = copy_span(p, LITERAL(": "));
	p = copy_span(p, arg + at, end - at);
	copy_span(p, LITERAL("\r\n"));
	*written = need;
	return EXTRA_OK;
}

enum extra_field_problem extra_fields_setup(const char *const *args, uint32_t n, uint32_t *bad)
{
	size_t used = 0;
	const size_t room = EXTRA_FIELDS_BLOCK_MAX - (sizeof(EXTRA_FIELDS_END) - 1);
	extra_fields.len = 0;
	for (uint32_t i = 0; i < n; i++) {
		size_t w = 0;
		enum extra_field_problem p = extra_field_render(
			args[i], cstr_len(args[i]), extra_fields.block + used, room - used, &w);
		if (p != EXTRA_OK) {
			*bad = i;
			return p;
		}
		used += w;
	}
	if (n)
		used = (size_t)(copy_span(extra_fields.block + used, LITERAL(EXTRA_FIELDS_END)) -
				extra_fields.block);
	extra_fields.len = (uint32_t)used;
	return EXTRA_OK;
}
