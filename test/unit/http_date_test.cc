// IMF-fixdate rendering (common/http/http_date.h) against RFC 9110's example and the C
// library's strftime over one instant a day (plus an odd second) from 1970 to 2400; and
// http_date_parse: the three forms of RFC 9110 5.6.7, a table of named rejects, and every
// rendered date parsing back to its instant.
#include <time.h>

#include <string>

#include <gtest/gtest.h>

#include "common/http/http_date.h"

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

// 2026-12-01 00:00:00 UTC: the "now" the two-digit years are read against.
constexpr uint64_t kNow = 1796083200;

// Parses text (exactly its bytes) against kNow; -1 when it is rejected.
int64_t Parse(const std::string &text, uint64_t now = kNow)
{
	uint64_t v = 0;
	if (!http_date_parse(text.data(), text.size(), now, &v))
		return -1;
	return static_cast<int64_t>(v);
}

TEST(HttpDateParseTest, ReadsTheThreeFormsOfRfc9110)
{
	EXPECT_EQ(Parse("Sun, 06 Nov 1994 08:49:37 GMT"), 784111777);
	EXPECT_EQ(Parse("Sunday, 06-Nov-94 08:49:37 GMT"), 784111777);
	EXPECT_EQ(Parse("Sun Nov  6 08:49:37 1994"), 784111777);
	EXPECT_EQ(Parse("Thu Jan 01 00:00:00 1970"), 0);
	EXPECT_EQ(Parse("Tue, 29 Feb 2000 11:59:59 GMT"), 951825599);
	EXPECT_EQ(Parse("Fri, 31 Dec 9999 23:59:59 GMT"), (int64_t)HTTP_DATE_LAST);
	EXPECT_EQ(Parse("Sat, 31 Dec 2016 23:59:60 GMT"), 1483228800); // a leap second
}

TEST(HttpDateParseTest, TwoDigitYearsAreNeverMoreThanFiftyYearsAhead)
{
	// Against 2026: "76" is 2076 (50 years ahead), "77" is 1977.
	EXPECT_EQ(Parse("Tuesday, 01-Dec-76 00:00:00 GMT"), Parse("Tue, 01 Dec 2076 00:00:00 GMT"));
	EXPECT_EQ(Parse("Thursday, 01-Dec-77 00:00:00 GMT"), Parse("Thu, 01 Dec 1977 00:00:00 GMT"));
	EXPECT_EQ(Parse("Monday, 01-Jan-01 00:00:00 GMT"), Parse("Mon, 01 Jan 2001 00:00:00 GMT"));
	// Against 1994, "94" is 1994 and "69" is before 1970: rejected.
	EXPECT_EQ(Parse("Sunday, 06-Nov-94 08:49:37 GMT", 784111777), 784111777);
	EXPECT_EQ(Parse("Monday, 01-Jan-69 00:00:00 GMT", 0), -1);
}

TEST(HttpDateParseTest, RejectsAnythingElse)
{
	const struct {
		const char *label, *text;
	} cases[] = {
		{"empty", ""},
		{"lower-case month", "Sun, 06 nov 1994 08:49:37 GMT"},
		{"lower-case weekday", "sun, 06 Nov 1994 08:49:37 GMT"},
		{"no weekday", "06 Nov 1994 08:49:37 GMT"},
		{"unknown weekday", "Sux, 06 Nov 1994 08:49:37 GMT"},
		{"UTC for GMT", "Sun, 06 Nov 1994 08:49:37 UTC"},
		{"trailing byte", "Sun, 06 Nov 1994 08:49:37 GMTx"},
		{"trailing space", "Sun, 06 Nov 1994 08:49:37 GMT "},
		{"one-digit day", "Sun, 6 Nov 1994 08:49:37 GMT"},
		{"hour 24", "Sun, 06 Nov 1994 24:00:00 GMT"},
		{"minute 60", "Sun, 06 Nov 1994 08:60:00 GMT"},
		{"second 61", "Sun, 06 Nov 1994 08:49:61 GMT"},
		{"day 0", "Sun, 00 Nov 1994 08:49:37 GMT"},
		{"31 April", "Sun, 31 Apr 1994 08:49:37 GMT"},
		{"29 February 1900", "Thu, 29 Feb 1900 00:00:00 GMT"},
		{"29 February 2001", "Thu, 29 Feb 2001 00:00:00 GMT"},
		{"before 1970", "Wed, 31 Dec 1969 23:59:59 GMT"},
		{"a sign in the year", "Sun, 06 Nov +994 08:49:37 GMT"},
		{"rfc850 short weekday", "Sun, 06-Nov-94 08:49:37 GMT"},
		{"rfc850 four-digit year", "Sunday, 06-Nov-1994 08:49:37 GMT"},
		{"asctime zero-less day with a digit", "Sun Nov 6  08:49:37 1994"},
		{"asctime with GMT", "Sun Nov  6 08:49:37 1994 GMT"},
		{"two dates", "Sun, 06 Nov 1994 08:49:37 GMT, Sun, 06 Nov 1994 08:49:37 GMT"},
	};
	for (const auto &c : cases)
		EXPECT_EQ(Parse(c.text), -1) << c.label << ": '" << c.text << "'";
}

TEST(HttpDateParseTest, EveryRenderedDateParsesBack)
{
	constexpr uint64_t kDay = 86400, kOdd = 12345;
	for (uint64_t s = 0; s < 13569465600ull; s += kDay)
		ASSERT_EQ(Parse(Render(s + kOdd)), (int64_t)(s + kOdd)) << Render(s + kOdd);
}

} // namespace
