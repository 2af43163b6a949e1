// /metrics over the wire (feature `routes`, SPEC 7): the body's shape, and exact counter
// deltas after a burst of known requests. Each test has its own daemon so that only its
// own requests move the counters.
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

class MetricsTest : public testing::Test {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("routes");
		START_DAEMON(daemon_, DaemonOptions{});
	}
	Daemon daemon_;
};

// A fresh daemon's first /metrics counts exactly itself.
TEST_F(MetricsTest, FirstScrapeCountsItself)
{
	std::string raw;
	std::map<std::string, uint64_t> m = FetchMetrics(daemon_.port(), &raw);
	HttpResponse resp = ParseResponse(raw);
	Counters counters;
	std::string error;
	ASSERT_TRUE(ParseMetricsBody(resp.body, &counters, &error)) << error;
	ASSERT_GE(counters.size(), kSpecCounterNames.size()) << resp.body;
	for (size_t i = 0; i < kSpecCounterNames.size(); i++)
		EXPECT_EQ(counters[i].first, kSpecCounterNames[i]) << "SPEC 7 order, line " << i + 1;
	const std::map<std::string, uint64_t> expected = {
		{"requests_total", 1}, {"requests_get", 1},  {"requests_head", 0},
		{"responses_200", 1},  {"responses_400", 0}, {"responses_404", 0},
		{"responses_405", 0},  {"bytes_read", Get("/metrics").size()},
		{"bytes_written", 0},  {"timeouts", 0},
	};
	for (const auto &e : expected)
		EXPECT_EQ(m[e.first], e.second) << e.first << " in:\n" << resp.body;
}

// One request of the burst and what it counts.
struct BurstRequest {
	const char *label;
	std::string raw;
	int status;
	bool is_get;
	bool is_head;
};

TEST_F(MetricsTest, BurstDeltasAreExact)
{
	const std::vector<BurstRequest> burst = {
		{"get_root", Get("/"), 200, true, false},
		{"get_health", Get("/health"), 200, true, false},
		{"get_health_query", Get("/health?x=1"), 200, true, false},
		{"head_root", Get("/", "HEAD"), 200, false, true},
		{"head_health", Get("/health", "HEAD"), 200, false, true},
		{"head_metrics", Get("/metrics", "HEAD"), 200, false, true},
		{"get_unknown", Get("/nope"), 404, true, false},
		{"head_unknown", Get("/nope", "HEAD"), 404, false, true},
		{"put", Get("/", "PUT"), 405, false, false},
		{"delete", Get("/health", "DELETE"), 405, false, false},
		{"lowercase_method", Get("/", "get"), 400, false, false},
		// 400s whose method is not GET or HEAD: SPEC 7 does not say whether a
		// malformed GET counts in requests_get.
		{"digit_method", "123 / HTTP/1.1\r\n\r\n", 400, false, false},
		{"put_two_hosts", "PUT / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, false, false},
	};
	constexpr int kRounds = 3;
	std::string first_raw;
	std::map<std::string, uint64_t> before = FetchMetrics(daemon_.port(), &first_raw);
	std::map<std::string, uint64_t> want;
	uint64_t sent = 0, received = first_raw.size(); // the first scrape's own reply
	for (int round = 0; round < kRounds; round++) {
		for (const BurstRequest &b : burst) {
			Received r = Roundtrip(daemon_.port(), b.raw);
			HttpResponse resp = ParseResponse(r.bytes);
			ASSERT_TRUE(r.eof) << b.label;
			ASSERT_EQ(resp.status, b.status) << b.label << ": " << r.bytes;
			sent += b.raw.size();
			received += r.bytes.size();
			want["requests_total"]++;
			want["requests_get"] += b.is_get;
			want["requests_head"] += b.is_head;
			want["responses_" + std::to_string(b.status)]++;
		}
	}
	std::string scrape = Get("/metrics");
	std::map<std::string, uint64_t> after = FetchMetrics(daemon_.port());
	// The second scrape counts itself, except the bytes of its own reply.
	want["requests_total"]++;
	want["requests_get"]++;
	want["responses_200"]++;
	want["bytes_read"] = sent + scrape.size();
	want["bytes_written"] = received;
	want["timeouts"] = 0;
	for (const std::string &name : kSpecCounterNames)
		EXPECT_EQ(after[name] - before[name], want[name]) << name;
}

} // namespace
} // namespace wire
