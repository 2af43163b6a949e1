// The Date field (BEHAVIOUR 15): on every response a routed tier sends, the last field of
// its head, an IMF-fixdate of the wall clock, and it moves with the clock. These tests read
// raw bytes with their own loop: the harness's readers take Date lines out.
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kTimeoutMs = 5000;
constexpr time_t kClockSlackS = 60; // the daemon's clock is this machine's: same minute

// Sends request on a fresh connection and reads everything until the daemon closes,
// unfiltered. "" when the connection fails.
std::string RawExchange(int port, const std::string &request, int timeout_ms = kTimeoutMs)
{
	int fd = ConnectLoopback(port);
	if (fd < 0)
		return "";
	std::string got;
	if (SendAll(fd, request)) {
		int64_t deadline = NowMs() + timeout_ms;
		char buf[65536];
		for (int64_t left; (left = deadline - NowMs()) > 0;) {
			struct pollfd p = {fd, POLLIN, 0};
			if (poll(&p, 1, static_cast<int>(left)) <= 0)
				break;
			ssize_t n = recv(fd, buf, sizeof(buf), 0);
			if (n <= 0)
				break;
			got.append(buf, static_cast<size_t>(n));
		}
	}
	close(fd);
	return got;
}

// "" if raw is one response whose head carries exactly one Date, as its last field, that is
// an IMF-fixdate within kClockSlackS of this machine's clock; else what is wrong. *date
// receives the value.
std::string DateProblem(const std::string &raw, std::string *date = nullptr)
{
	HttpResponse r = ParseResponse(raw);
	if (!r.parsed)
		return "unparsed: " + r.error + ": " + raw.substr(0, 200);
	int count = 0;
	std::string value = r.Header("Date", &count);
	if (count != 1)
		return "Date fields: " + std::to_string(count) + " in " + r.head;
	if (r.headers.back().first != "Date")
		return "Date is not the last field: " + r.head;
	if (!IsImfFixdate(value))
		return "not an IMF-fixdate: '" + value + "'";
	struct tm t = {};
	strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &t);
	time_t said = timegm(&t), now = time(nullptr);
	if (said < now - kClockSlackS || said > now + kClockSlackS)
		return "not this machine's time: '" + value + "'";
	if (date)
		*date = value;
	return "";
}

class DateTest : public testing::Test {
protected:
	void SetUp() override { REQUIRE_FEATURE("routes"); }
};

// Every kind of response the routed daemon builds: static table (hello, health, 400, 404,
// 405), /metrics, GET and HEAD.
TEST_F(DateTest, EveryBuiltInResponseCarriesDate)
{
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{});
	const std::vector<std::string> requests = {
		GetClose("/"),          GetClose("/health"),         GetClose("/metrics"),
		GetClose("/nope"),      GetClose("/", "HEAD"),       GetClose("/metrics", "HEAD"),
		"GARBAGE\r\n\r\n",      GetClose("/", "DELETE"),
	};
	for (const std::string &request : requests)
		EXPECT_EQ(DateProblem(RawExchange(daemon.port(), request)), "") << request;
}

// A file, its HEAD and the 301 of a directory named without its '/' (--root).
TEST_F(DateTest, FilesAndRedirectsCarryDate)
{
	REQUIRE_FEATURE("files");
	SmallSite site("hello file\n");
	ASSERT_NE(site.path(), "");
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--root", site.path()}});
	for (const std::string &request :
	     {GetClose("/f.txt"), GetClose("/f.txt", "HEAD"), GetClose("/sub"), GetClose("/nope")})
		EXPECT_EQ(DateProblem(RawExchange(daemon.port(), request)), "") << request;
}

// The 408 a head deadline sends.
TEST_F(DateTest, RequestTimeoutCarriesDate)
{
	REQUIRE_FEATURE("deadlines");
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--header-timeout", "1"}});
	std::string raw = RawExchange(daemon.port(), "GET / HTTP/1.1\r\n", 3 * kTimeoutMs);
	EXPECT_EQ(ParseResponse(raw).status, 408) << raw;
	EXPECT_EQ(DateProblem(raw), "");
}

// Pipelined answers on one connection all carry it, and two requests 1.1 s apart see two
// different seconds (the render follows the clock).
TEST_F(DateTest, DateFollowsTheClock)
{
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{});
	std::string first, second;
	ASSERT_EQ(DateProblem(RawExchange(daemon.port(), GetClose("/health")), &first), "");
	SleepMs(1100);
	ASSERT_EQ(DateProblem(RawExchange(daemon.port(), GetClose("/health")), &second), "");
	EXPECT_NE(first, second);
	if (!HasFeature("keepalive"))
		return;
	size_t dates = 0;
	std::string raw = RawExchange(daemon.port(), Get("/") + Get("/nope") + GetClose("/health"));
	std::string rest = WithoutDates(raw, &dates);
	EXPECT_EQ(dates, 3u) << raw;
	EXPECT_EQ(rest.size() + 3 * kDateLineBytes, raw.size());
}

} // namespace
} // namespace wire
