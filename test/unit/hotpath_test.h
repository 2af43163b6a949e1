/* GoogleTest glue for suites that run once per hot-path implementation (hotpath_impl.h):
 * derive the suite's fixture from HotpathTest, then INSTANTIATE_FOR_EVERY_HOTPATH(Suite). */
#ifndef APOLLOD_TEST_UNIT_HOTPATH_TEST_H
#define APOLLOD_TEST_UNIT_HOTPATH_TEST_H

#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "test/unit/hotpath_impl.h"

class HotpathTest : public ::testing::TestWithParam<hotpath_impl> {
protected:
	const hotpath_impl &impl() const { return GetParam(); }
};

// So a failing case names the implementation instead of dumping the struct's bytes.
inline void PrintTo(const hotpath_impl &impl, std::ostream *os)
{
	*os << impl.name;
}

inline void PrintTo(parse_outcome outcome, std::ostream *os)
{
	static const char *const names[] = {"PARSE_COMPLETE", "PARSE_PARTIAL", "PARSE_BAD"};
	if ((unsigned)outcome < sizeof(names) / sizeof(names[0]))
		*os << names[outcome];
	else
		*os << "parse_outcome(" << (int)outcome << ")";
}

#define INSTANTIATE_FOR_EVERY_HOTPATH(suite)                                           \
	INSTANTIATE_TEST_SUITE_P(                                                      \
		EveryImpl, suite,                                                      \
		::testing::ValuesIn(hotpath_impls, hotpath_impls + hotpath_impl_count), \
		[](const ::testing::TestParamInfo<hotpath_impl> &param_info) {               \
			return std::string(param_info.param.name);                           \
		})

#endif /* APOLLOD_TEST_UNIT_HOTPATH_TEST_H */
