// The wall clock's two renders: the CLF date (common/serve/wallclock.h): the Apache
// documentation's example, agreement with the C library's strftime over 1970..2100, and
// the current second; and the Date tail (common/http/date_field.h), refreshed with it.
#include <time.h>

#include <string>

#include <gtest/gtest.h>

#include "common/http/date_field.h"
#include "common/serve/wallclock.h"
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
	// time() may read the coarse clock, up to a tick behind CLOCK_REALTIME: after + 1 too.
	EXPECT_TRUE(now == Libc(before) || now == Libc(after) || now == Libc(after + 1)) << now;
}

// The Date tail: RFC 9110's example date, exactly DATE_TAIL_LEN bytes.
TEST(WallclockTest, DateTailKnownDate)
{
	GuardedBuffer out(DATE_TAIL_LEN);
	date_tail_render(784111777, out.mutable_data());
	EXPECT_EQ(std::string(out.data(), DATE_TAIL_LEN),
		  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n");
}

// Both forms come from the one per-second cache: the CLF date asked right after the Date
// tail names its second (or the next, when a second boundary fell between the two calls).
// (time() may read a coarser clock than CLOCK_REALTIME: the second is looked for around
// it.)
TEST(WallclockTest, DateTailAndClfNameTheSameSecond)
{
	time_t around = time(nullptr);
	char tail[DATE_TAIL_LEN];
	date_tail_copy(tail);
	std::string clf(wallclock_clf_now(), WALLCLOCK_CLF_LEN);
	int found = 0;
	for (time_t t = around - 1; t <= around + 1; t++) {
		char want[DATE_TAIL_LEN];
		date_tail_render((uint64_t)t, want);
		if (std::string(want, DATE_TAIL_LEN) != std::string(tail, DATE_TAIL_LEN))
			continue;
		found = 1;
		EXPECT_TRUE(clf == Libc(t) || clf == Libc(t + 1))
			<< clf << " is not the Date tail's second " << Libc(t);
	}
	EXPECT_TRUE(found) << std::string(tail, DATE_TAIL_LEN);
}

} // namespace
