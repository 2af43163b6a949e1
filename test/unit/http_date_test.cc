// IMF-fixdate rendering (common/http_date.h) against RFC 9110's example and the C
// library's strftime over one instant a day (plus an odd second) from 1970 to 2400.
#include <time.h>

#include <string>

#include <gtest/gtest.h>

#include "common/http_date.h"

namespace {

std::string Render(uint64_t unix_seconds)
{
	char out[HTTP_DATE_LEN + 1] = {};
	http_date_render(out, unix_seconds);
	return std::string(out, HTTP_DATE_LEN);
}

TEST(HttpDateTest, RendersRfc9110Example)
{
	EXPECT_EQ(Render(784111777), HTTP_DATE_EXAMPLE);
	EXPECT_EQ(Render(0), "Thu, 01 Jan 1970 00:00:00 GMT");
	EXPECT_EQ(Render(951825599), "Tue, 29 Feb 2000 11:59:59 GMT");
}

TEST(HttpDateTest, MatchesStrftimeEveryDay)
{
	constexpr uint64_t kDay = 86400, kOdd = 37 * 3600 / 24 + 59; // a non-round time of day
	for (uint64_t s = 0; s < 13569465600ull; s += kDay) { // to 2400-01-01
		time_t t = static_cast<time_t>(s + kOdd);
		struct tm tm = {};
		gmtime_r(&t, &tm);
		char want[64];
		size_t n = strftime(want, sizeof(want), "%a, %d %b %Y %H:%M:%S GMT", &tm);
		ASSERT_EQ(Render(s + kOdd), std::string(want, n)) << s;
	}
}

} // namespace
