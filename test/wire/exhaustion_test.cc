// Descriptor exhaustion over the wire (feature `routes`, BEHAVIOUR 4): a daemon whose
// RLIMIT_NOFILE is 40 accepts what fits, stays alive, leaves the next connection in the
// kernel backlog unanswered, and serves it once a held connection closes.
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

TEST(DescriptorExhaustionTest, FullTableParksThenServes)
{
	REQUIRE_FEATURE("routes");
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--idle-timeout", "60"}, kDaemonNofile});
	// After a served request the loop is running: listener and epoll descriptors exist.
	ASSERT_EQ(LivenessProblem(daemon.port()), "");
	int baseline = daemon.OpenDescriptorCount(kDaemonNofile);
	ASSERT_GT(baseline, 0);
	int fits = static_cast<int>(kDaemonNofile) - baseline;
	ASSERT_GT(fits, 0);

	std::vector<int> held;
	for (int i = 1; i <= fits; i++) {
		int fd = ConnectLoopback(daemon.port());
		ASSERT_GE(fd, 0);
		held.push_back(fd);
		ASSERT_EQ(WaitForExactDescriptors(daemon, baseline + i), baseline + i)
			<< "connection " << i << " of " << fits << " was not accepted";
	}

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
	EXPECT_EQ(daemon.OpenDescriptorCount(kDaemonNofile), static_cast<int>(kDaemonNofile));

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

} // namespace
} // namespace wire
