/* The counter names as BEHAVIOUR 7 lists them, written out independently of
 * FOR_EACH_COUNTER so a reordering there is caught. */
#ifndef APOLLOD_TEST_UNIT_SPEC_COUNTERS_H
#define APOLLOD_TEST_UNIT_SPEC_COUNTERS_H

#include <string>
#include <vector>

#include "common/base/counters.h"

inline const std::vector<std::string> spec_counter_names = {
	"requests_total", "requests_get",  "requests_head", "responses_200", "responses_400",
	"responses_404",  "responses_405", "bytes_read",    "bytes_written", "timeouts",
};

// Every counter's name in FOR_EACH_COUNTER order (the enum's order).
inline std::vector<std::string> counter_names()
{
	return {
#define COUNTER_NAME(name) #name,
		FOR_EACH_COUNTER(COUNTER_NAME)
#undef COUNTER_NAME
	};
}

#endif /* APOLLOD_TEST_UNIT_SPEC_COUNTERS_H */
