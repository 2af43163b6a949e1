// The CLF date (common/wallclock.h): the Apache documentation's example, agreement with
// the C library's strftime over 1970..2100, and the current second.
#include <time.h>

#include <string>

#include <gtest/gtest.h>

#include "common/wallclock.h"
#include "test/unit/guarded_buffer.h"

namespace {

// wallclock_render_clf into a buffer of exactly WALLCLOCK_CLF_LEN bytes against a guard
// page: a byte more would crash.
std::string Render(uint64_t unix_seconds)
{
	GuardedBuffer out(WALLCLOCK_CLF_LEN);
	wallclock_render_clf(unix_seconds, out.mutable_data());
	return std::string(out.data(), WALLCLOCK_CLF_LEN);
}

// What strftime says in the C locale, in UTC.
std::string Libc(time_t t)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	char text[64];
	size_t n = strftime(text, sizeof(text), "[%d/%b/%Y:%H:%M:%S +0000]", &tm);
	return std::string(text, n);
}

TEST(WallclockTest, KnownDates)
{
	EXPECT_EQ(Render(971186136), "[10/Oct/2000:13:55:36 +0000]"); // CLF's own example
	EXPECT_EQ(Render(0), "[01/Jan/1970:00:00:00 +0000]");
	EXPECT_EQ(Render(951868799), "[29/Feb/2000:23:59:59 +0000]");
}

// Steps of 3 days and 7919 s (the remainder walks through every hour, minute and second
// over the range) from 1970 to 2100, rendered into one guarded buffer.
TEST(WallclockTest, AgreesWithStrftime)
{
	const time_t end = 4102444800; // 2100-01-01
	GuardedBuffer out(WALLCLOCK_CLF_LEN);
	for (time_t t = 0; t < end; t += 3 * 86400 + 7919) {
		wallclock_render_clf((uint64_t)t, out.mutable_data());
		ASSERT_EQ(std::string(out.data(), WALLCLOCK_CLF_LEN), Libc(t)) << t;
	}
}

// The current second, read through the clock (the syscall, as no vDSO was looked up).
TEST(WallclockTest, NowIsNow)
{
	time_t before = time(nullptr);
	std::string now(wallclock_clf_now(), WALLCLOCK_CLF_LEN);
	time_t after = time(nullptr);
	EXPECT_TRUE(now == Libc(before) || now == Libc(after)) << now;
}

} // namespace
