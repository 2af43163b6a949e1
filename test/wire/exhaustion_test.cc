// Descriptor exhaustion over the wire (feature `routes`, BEHAVIOUR 4): a daemon whose
// RLIMIT_NOFILE is 40 sizes its table from it and stays alive. When every held connection is
// inside a request (nothing to evict) it leaves the next connection in the kernel backlog
// unanswered and serves it once a held connection closes; when they wait between requests
// (feature `deadlines`), the next connection evicts the oldest and is served at once.
#include <unistd.h>

#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr rlim_t kDaemonNofile = 40;
constexpr int kParkedCheckMs = 1500; // the parked request must stay unanswered this long
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

TEST(DescriptorExhaustionTest, FullTableParksThenServes)
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

	int parked = ConnectLoopback(daemon.port());
	ASSERT_GE(parked, 0) << "the kernel backlog takes the connection";
	ASSERT_TRUE(SendAll(parked, GetClose("/health")));
	if (PeerSpokeOrClosed(parked, kParkedCheckMs)) {
		Received early = ReadUntilClose(parked, 1000);
		ADD_FAILURE() << "answered or closed while the descriptor table was full: '"
			      << early.bytes << "' eof=" << early.eof << " reset=" << early.reset
			      << "; daemon descriptors " << daemon.OpenDescriptorCount(kDaemonNofile);
	}
	EXPECT_TRUE(daemon.IsAlive()) << "the daemon exited on EMFILE";
	int table = TableSize(daemon.OpenDescriptorCount(kDaemonNofile) - static_cast<int>(held.size()));
	EXPECT_EQ(static_cast<int>(held.size()), table) << "the table holds what the limit allows";

	close(held.front());
	held.erase(held.begin());
	Received r = ReadUntilClose(parked, 5000);
	close(parked);
	EXPECT_EQ(OutcomeProblem(r, Outcome::kStatus2xx, GetClose("/health")), "")
		<< "the parked connection was not served after a slot freed";
	EXPECT_EQ(ParseResponse(r.bytes).body, "ok");
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
