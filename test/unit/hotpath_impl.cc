// The list of hot-path implementations under test (see hotpath_impl.h).
#include "test/unit/hotpath_impl.h"

#include "common/span.h"

const struct hotpath_impl hotpath_impls[] = {
	{"c", parse_request_line, parse_headers, span_eq, span_ieq, u64_to_dec},
};
const size_t hotpath_impl_count = sizeof(hotpath_impls) / sizeof(hotpath_impls[0]);
