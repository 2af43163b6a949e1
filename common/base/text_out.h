/* A bounded text writer for the few lines apollod composes (usage, --help, fatal errors):
 * text past the end of the buffer is dropped, never written. Pure. */
#ifndef APOLLOD_COMMON_TEXT_OUT_H
#define APOLLOD_COMMON_TEXT_OUT_H

#include <stddef.h>

#include "common/base/span.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* Where the next byte goes, and the end of the buffer. */
struct text_out {
	char *p;
	char *end;
};

/* Appends as many of the n bytes at s as fit. */
static inline void put(struct text_out *o, const char *s, size_t n)
{
	size_t room = (size_t)(o->end - o->p);
	o->p = copy_span(o->p, s, n < room ? n : room);
}

/* Appends the NUL-terminated s, as much as fits. */
static inline void put_cstr(struct text_out *o, const char *s)
{
	put(o, s, cstr_len(s));
}

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_TEXT_OUT_H */
