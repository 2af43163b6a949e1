// Calendar conversion (common/base/civil_time.h) against known dates and against the C
// library's gmtime_r/timegm over every day of 1970..2400.
#include <time.h>

#include <gtest/gtest.h>

#include "common/base/civil_time.h"

namespace {

TEST(CivilTimeTest, KnownDates)
{
	const struct {
		const char *label;
		uint64_t unix_seconds;
		uint32_t year;
		int month, day, hour, minute, second, weekday;
	} cases[] = {
		{"epoch", 0, 1970, 1, 1, 0, 0, 0, 4},
		{"RFC 9110's example", 784111777, 1994, 11, 6, 8, 49, 37, 0},
		{"leap day 2000", 951782400, 2000, 2, 29, 0, 0, 0, 2},
		{"last second of 1999", 946684799, 1999, 12, 31, 23, 59, 59, 5},
		{"2038 rollover", 2147483648u, 2038, 1, 19, 3, 14, 8, 2},
		{"no leap day 2100: Mar 1", 4107542400u, 2100, 3, 1, 0, 0, 0, 1},
	};
	for (const auto &tc : cases) {
		SCOPED_TRACE(tc.label);
		struct civil_time t = civil_from_unix(tc.unix_seconds);
		EXPECT_EQ(t.year, tc.year);
		EXPECT_EQ(t.month, tc.month);
		EXPECT_EQ(t.day, tc.day);
		EXPECT_EQ(t.hour, tc.hour);
		EXPECT_EQ(t.minute, tc.minute);
		EXPECT_EQ(t.second, tc.second);
		EXPECT_EQ(t.weekday, tc.weekday);
		EXPECT_EQ(unix_from_civil(&t), tc.unix_seconds);
	}
}

TEST(CivilTimeTest, AgreesWithGmtimeEveryDayTo2400)
{
	const uint64_t last = 13569465600u; /* 2400-01-01 */
	for (uint64_t s = 0; s < last; s += 86400u + 3671u /* walks the time of day too */) {
		time_t tt = (time_t)s;
		struct tm tm;
		ASSERT_NE(gmtime_r(&tt, &tm), nullptr);
		struct civil_time t = civil_from_unix(s);
		ASSERT_EQ(t.year, (uint32_t)tm.tm_year + 1900) << s;
		ASSERT_EQ(t.month, tm.tm_mon + 1) << s;
		ASSERT_EQ(t.day, tm.tm_mday) << s;
		ASSERT_EQ(t.hour, tm.tm_hour) << s;
		ASSERT_EQ(t.minute, tm.tm_min) << s;
		ASSERT_EQ(t.second, tm.tm_sec) << s;
		ASSERT_EQ(t.weekday, tm.tm_wday) << s;
		ASSERT_EQ(unix_from_civil(&t), s);
	}
}

} // namespace
