// A full table answers (issue 30, BEHAVIOUR 4), on every routed tier: when every slot is
// sending a response nobody reads and nothing can be evicted, a fresh client gets the
// static 503 (Retry-After, Connection: close) at once and is closed, long before a send
// deadline could have freed a slot; the downloads go on, and once they leave the daemon
// serves again. Waits for state with bounds that only end a hang.
#include <unistd.h>

#include <map>
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kTable = 4;                  // --max-connections: every slot a download
constexpr size_t kBigBytes = 4 << 20;      // far beyond what the small windows take
constexpr int kSmallWindow = 8192;         // the downloads' receive buffer
constexpr int kSendTimeoutS = 60;          // a send deadline far beyond every bound below
constexpr int kAnswerBoundMs = 20000;      // ends a hang only (qemu included)
const std::string kExpected503 =
	"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
	"Content-Length: 20\r\nRetry-After: 1\r\nConnection: close\r\n\r\nservice unavailable\n";

// Asks for /metrics until a slot takes it (a 503 is asked again), within kAnswerBoundMs.
// Adds the 503s it got to *refused. Returns the counters, empty if none came.
std::map<std::string, uint64_t> MetricsOnceServed(int port, uint64_t *refused)
{
	std::map<std::string, uint64_t> out;
	WaitUntil(
		[&] {
			HttpResponse r = ParseResponse(
				Roundtrip(port, GetClose("/metrics"), false, kAnswerBoundMs).bytes);
			*refused += r.status == 503;
			Counters counters;
			std::string error;
			if (r.status != 200 || !ParseMetricsBody(r.body, &counters, &error))
				return false;
			out.insert(counters.begin(), counters.end());
			return true;
		},
		kAnswerBoundMs);
	return out;
}

TEST(FullTableTest, SlowDownloadsFillTheTableAndAFreshClientGets503AtOnce)
{
	REQUIRE_FEATURE("routes");
	REQUIRE_FEATURE("files");
	FileRoot root({{"big", Random(kBigBytes, 30)}});
	ASSERT_NE(root.dir(), "");
	std::vector<std::string> args = {"--root", root.dir(), "--max-connections",
					 std::to_string(kTable)};
	if (HasFeature("deadlines"))
		args.insert(args.end(), {"--send-timeout", std::to_string(kSendTimeoutS)});
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{args});
	ASSERT_EQ(LivenessProblem(daemon.port()), "");
	std::vector<int> downloads;
	for (int i = 0; i < kTable; i++) {
		int fd = ConnectLoopback(daemon.port(), kAnswerBoundMs, kSmallWindow);
		ASSERT_GE(fd, 0);
		ASSERT_TRUE(SendAll(fd, Get("/big")));
		downloads.push_back(fd);
		// Its response has started: the slot is sending, not waiting for a request.
		ASSERT_TRUE(PeerSpokeOrClosed(fd, kAnswerBoundMs)) << "download " << i;
	}
	int64_t asked = NowMs();
	Received r = Roundtrip(daemon.port(), GetClose("/health"), false, kAnswerBoundMs);
	int64_t answered_ms = NowMs() - asked;
	EXPECT_EQ(r.bytes, kExpected503) << "after " << answered_ms << " ms";
	EXPECT_TRUE(r.eof || r.reset) << "the 503's connection stays open";
	EXPECT_EQ(r.dates, 0u) << "the static 503 carries no Date (BEHAVIOUR 15)";
	EXPECT_LT(answered_ms, kSendTimeoutS * 1000) << "answered only after a send deadline";
	for (int fd : downloads)
		close(fd);
	uint64_t refused = 1;
	std::map<std::string, uint64_t> m = MetricsOnceServed(daemon.port(), &refused);
	ASSERT_FALSE(m.empty()) << "no /metrics after the downloads left";
	EXPECT_EQ(m["timeouts_send"], 0u) << "the 503 waited for a send deadline";
	EXPECT_EQ(m["connections_evicted"], 0u) << "a download was evicted";
	EXPECT_EQ(m["connections_refused"], refused);
	EXPECT_EQ(m["responses_503"], 0u) << "a refusal counted as a request's answer";
	EXPECT_EQ(LivenessProblem(daemon.port()), "");
}

} // namespace
} // namespace wire
