// /metrics over the wire (feature `routes`, BEHAVIOUR 7): the body's shape (the ten original
// counters, then, with feature keepalive, connections_accepted, connections_closed and
// syscalls_total, then the file-cache counters), and exact counter deltas after a burst of known requests, each on its
// own connection that the daemon closes. Each test has its own daemon so that only its own
// requests move the counters.
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
	const std::vector<std::string> names = ExpectedCounterNames();
	ASSERT_EQ(counters.size(), names.size()) << resp.body;
	for (size_t i = 0; i < names.size(); i++)
		EXPECT_EQ(counters[i].first, names[i]) << "BEHAVIOUR 7 order, line " << i + 1;
	std::map<std::string, uint64_t> expected = {
		{"requests_total", 1}, {"requests_get", 1},  {"requests_head", 0},
		{"responses_200", 1},  {"responses_400", 0}, {"responses_404", 0},
		{"responses_405", 0},  {"bytes_read", GetClose("/metrics").size()},
		{"bytes_written", 0},  {"timeouts", 0},
	};
	if (HasFeature("keepalive")) {
		// This connection is accepted and still open while its reply is built.
		expected["connections_accepted"] = 1;
		expected["connections_closed"] = 0;
		// At least the accept4, the read of this request and the epoll_wait that
		// reported the connection; on io_uring, the io_uring_enter that delivered the
		// connection and the one that submitted its recv. The rest is the
		// implementation's business.
		EXPECT_GE(m["syscalls_total"], HasFeature("uring") ? 2u : 3u) << resp.body;
	}
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

// Every request of the burst asks to close (or is a 400, which always closes), so each
// exchange ends with the daemon closing and every connection is counted once.
TEST_F(MetricsTest, BurstDeltasAreExact)
{
	const std::vector<BurstRequest> burst = {
		{"get_root", GetClose("/"), 200, true, false},
		{"get_health", GetClose("/health"), 200, true, false},
		{"get_health_query", GetClose("/health?x=1"), 200, true, false},
		{"head_root", GetClose("/", "HEAD"), 200, false, true},
		{"head_health", GetClose("/health", "HEAD"), 200, false, true},
		{"head_metrics", GetClose("/metrics", "HEAD"), 200, false, true},
		{"get_unknown", GetClose("/nope"), 404, true, false},
		{"head_unknown", GetClose("/nope", "HEAD"), 404, false, true},
		{"put", GetClose("/", "PUT"), 405, false, false},
		{"delete", GetClose("/health", "DELETE"), 405, false, false},
		{"http10_health", "GET /health HTTP/1.0\r\n\r\n", 200, true, false},
		{"lowercase_method", Get("/", "get"), 400, false, false},
		// 400s whose method is not GET or HEAD: BEHAVIOUR 7 does not say whether a
		// malformed GET counts in requests_get.
		{"digit_method", "123 / HTTP/1.1\r\n\r\n", 400, false, false},
		{"put_two_hosts", "PUT / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, false, false},
	};
	constexpr int kRounds = 3;
	std::string first_raw;
	std::map<std::string, uint64_t> before = FetchMetrics(daemon_.port(), &first_raw);
	// The first scrape's connection is closed once its reply has left: what is open now
	// is the daemon's own (listener, epoll, standard streams).
	int idle_descriptors = daemon_.OpenDescriptorCount();
	std::map<std::string, uint64_t> want;
	// the first scrape's own reply, with the Date line the harness took out of it
	uint64_t sent = 0, received = first_raw.size() + kDateLineBytes;
	for (int round = 0; round < kRounds; round++) {
		for (const BurstRequest &b : burst) {
			Received r = Roundtrip(daemon_.port(), b.raw);
			HttpResponse resp = ParseResponse(r.bytes);
			ASSERT_TRUE(r.eof) << b.label;
			ASSERT_EQ(resp.status, b.status) << b.label << ": " << r.bytes;
			ASSERT_EQ(resp.Header("Connection"), "close") << b.label;
			sent += b.raw.size();
			received += r.bytes.size() + r.dates * kDateLineBytes;
			want["requests_total"]++;
			want["requests_get"] += b.is_get;
			want["requests_head"] += b.is_head;
			want["responses_" + std::to_string(b.status)]++;
		}
	}
	// A 400's connection lingers until the daemon reads this client's FIN: wait until
	// every burst connection is closed, so connections_closed is exact.
	EXPECT_EQ(WaitForOpenDescriptors(daemon_, idle_descriptors), idle_descriptors);
	std::string scrape = GetClose("/metrics");
	std::map<std::string, uint64_t> after = FetchMetrics(daemon_.port());
	// The second scrape counts itself, except the bytes of its own reply.
	want["requests_total"]++;
	want["requests_get"]++;
	want["responses_200"]++;
	want["bytes_read"] = sent + scrape.size();
	want["bytes_written"] = received;
	want["timeouts"] = 0;
	uint64_t connections = kRounds * burst.size();
	// Accepted: the burst and the second scrape; closed: the burst and the first scrape
	// (the second is still open while its reply is built).
	want["connections_accepted"] = connections + 1;
	want["connections_closed"] = connections + 1;
	// No --root here: no cache traffic. Every reply is small enough for one write: the
	// burst's and the first scrape's (counted when it is sent, after it was rendered).
	want["response_syscalls"] = connections + 1;
	for (const std::string &name : ExpectedCounterNames()) {
		if (name == "syscalls_total")
			EXPECT_GT(after[name] - before[name], 2 * connections) << name
				<< ": at least an accept4 and a read per connection";
		else
			EXPECT_EQ(after[name] - before[name], want[name]) << name;
	}
}

} // namespace
} // namespace wire
