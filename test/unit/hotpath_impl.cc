// The list of hot-path implementations under test (see hotpath_impl.h).
#include "test/unit/hotpath_impl.h"

#include "common/span.h"

// The asm-hotpath tier's assembly, built with the asm_ symbol prefix
// (//variants/asm-hotpath:asm_hotpath_for_tests) so it links next to the C reference.
extern "C" {
enum parse_outcome asm_parse_request_line(const char *buf, size_t len, struct request_line *out);
enum parse_outcome asm_parse_headers(const char *buf, size_t len, struct header_block *out);
int asm_span_eq(const char *a, const char *b, size_t n);
int asm_span_ieq(const char *a, const char *b, size_t n);
size_t asm_u64_to_dec(uint64_t v, char *out);
}

const struct hotpath_impl hotpath_impls[] = {
	{"c", parse_request_line, parse_headers, span_eq, span_ieq, u64_to_dec},
	{"asm", asm_parse_request_line, asm_parse_headers, asm_span_eq, asm_span_ieq, asm_u64_to_dec},
};
const size_t hotpath_impl_count = sizeof(hotpath_impls) / sizeof(hotpath_impls[0]);
