// Descriptor exhaustion over the wire (feature `routes`, BEHAVIOUR 4): a daemon whose
// RLIMIT_NOFILE is 40 sizes its table from it and stays alive. When every held connection is
// inside a request (nothing to evict) it answers the next connection 503 at once and
// closes it, and serves again once a held connection closes; when they wait between requests
// (feature `deadlines`), the next connection evicts the oldest and is served at once.
#include <unistd.h>

#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr rlim_t kDaemonNofile = 40;
constexpr int kAcceptWaitMs = 3000;

// Waits until the daemon holds exactly want descriptors; returns the last count seen.
int WaitForExactDescriptors(Daemon &daemon, int want)
{
	return WaitForOpenDescriptors(daemon, want, kAcceptWaitMs, kDaemonNofile);
}

// The connections a daemon holding `own` descriptors at start takes under kDaemonNofile
// (BEHAVIOUR 4): two descriptors each (its socket, a file it may send from disk), one
// spare for the accept that evicts.
int TableSize(int own)
{
	return (static_cast<int>(kDaemonNofile) - own - 1) / 2;
}

// Opens connections until the daemon's connection table is full, each first sending
// `first_bytes` (may be empty), into *held; checks each is accepted. Returns how many fit.
int FillTable(Daemon &daemon, const std::string &first_bytes, std::vector<int> *held)
{
	int baseline = daemon.OpenDescriptorCount(kDaemonNofile);
	EXPECT_GT(baseline, 0);
	int fits = TableSize(baseline);
	for (int i = 1; i <= fits; i++) {
		int fd = ConnectLoopback(daemon.port());
		if (fd < 0 || (!first_bytes.empty() && !SendAll(fd, first_bytes))) {
			ADD_FAILURE() << "connection " << i << " could not be made";
			return i - 1;
		}
		held->push_back(fd);
		if (WaitForExactDescriptors(daemon, baseline + i) != baseline + i) {
			ADD_FAILURE() << "connection " << i << " of " << fits << " was not accepted";
			return i;
		}
	}
	return fits;
}

TEST(DescriptorExhaustionTest, FullTableAnswers503ThenServes)
{
	REQUIRE_FEATURE("routes");
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--idle-timeout", "60", "--header-timeout", "60"},
					   kDaemonNofile});
	// After a served request the loop is running: listener and epoll descriptors exist.
	ASSERT_EQ(LivenessProblem(daemon.port()), "");
	std::vector<int> held;
	// Inside a head: a connection in the middle of a request is never evicted.
	FillTable(daemon, "GET /health HTTP/1.1\r\n", &held);
	ASSERT_FALSE(HasFailure());

	// Nothing to evict: the next connection is answered 503 at once and closed.
	Received refused = Roundtrip(daemon.port(), GetClose("/health"), false, kAcceptWaitMs);
	HttpResponse r503 = ParseResponse(refused.bytes);
	EXPECT_EQ(r503.status, 503) << refused.bytes;
	EXPECT_EQ(r503.Header("Retry-After"), "1");
	EXPECT_EQ(r503.Header("Connection"), "close");
	EXPECT_TRUE(refused.eof || refused.reset) << "the 503's connection stays open";
	EXPECT_TRUE(daemon.IsAlive()) << "the daemon exited on a full table";
	int table = TableSize(daemon.OpenDescriptorCount(kDaemonNofile) - static_cast<int>(held.size()));
	EXPECT_EQ(static_cast<int>(held.size()), table) << "the table holds what the limit allows";

	// A slot freed: the next fresh client is served.
	close(held.front());
	held.erase(held.begin());
	std::string problem;
	EXPECT_TRUE(WaitUntil([&] { return (problem = LivenessProblem(daemon.port())).empty(); }))
		<< "not served after a slot freed: " << problem;
	for (int fd : held)
		close(fd);
	EXPECT_EQ(LivenessProblem(daemon.port()), "");
}

TEST(DescriptorExhaustionTest, FullTableOfIdleConnectionsEvictsTheOldest)
{
	REQUIRE_FEATURE("deadlines");
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--idle-timeout", "60"}, kDaemonNofile});
	ASSERT_EQ(LivenessProblem(daemon.port()), "");
	std::vector<int> held; // silent: waiting for a first request
	int fits = FillTable(daemon, "", &held);
	ASSERT_FALSE(HasFailure());
	std::string raw;
	std::map<std::string, uint64_t> m = FetchMetrics(daemon.port(), &raw);
	EXPECT_EQ(m["connections_evicted"], 1u) << raw;
	Received oldest = ReadUntilClose(held.front(), 2000);
	EXPECT_TRUE(oldest.eof && oldest.bytes.empty()) << "the oldest was not the one evicted";
	int open = 0;
	for (size_t i = 1; i < held.size(); i++)
		open += !PeerSpokeOrClosed(held[i], 0);
	EXPECT_EQ(open, fits - 1);
	for (int fd : held)
		close(fd);
	EXPECT_TRUE(daemon.IsAlive());
}

} // namespace
} // namespace wire
