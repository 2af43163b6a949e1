/* The request hot path as a value: the parser, span and number routines of one
 * implementation, so the same GoogleTest tables run against every implementation
 * (BEHAVIOUR 8: the asm-hotpath tier is tested by the same unit tests as the C reference). */
#ifndef APOLLOD_TEST_UNIT_HOTPATH_IMPL_H
#define APOLLOD_TEST_UNIT_HOTPATH_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "common/http_parse.h"

/* One implementation's entry points; each has the contract of its namesake in
 * common/http_parse.h or common/span.h. */
struct hotpath_impl {
	const char *name; /* test-name suffix: letters, digits and '_' only */
	enum parse_outcome (*parse_request_line)(const char *buf, size_t len,
						 struct request_line *out);
	enum parse_outcome (*parse_headers)(const char *buf, size_t len,
					    struct header_block *out);
	int (*span_eq)(const char *a, const char *b, size_t n);
	int (*span_ieq)(const char *a, const char *b, size_t n);
	size_t (*u64_to_dec)(uint64_t v, char *out);
};

/* Every implementation linked into this test binary, defined in hotpath_impl.cc.
 * Adding one is a line there and its library in the BUILD deps; its symbols must not
 * clash with the C reference's (give them a prefix) since both are linked together. */
extern const struct hotpath_impl hotpath_impls[];
extern const size_t hotpath_impl_count;

#endif /* APOLLOD_TEST_UNIT_HOTPATH_IMPL_H */
