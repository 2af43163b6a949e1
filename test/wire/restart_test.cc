// The supervisor never gives up (feature `stop` with `files`, BEHAVIOUR 12, 17): a
// serving generation or worker that dies is restarted after a backoff that starts at
// 10 ms and doubles with each death that follows; a replacement killed before it is
// ready is restarted too (the first generation as well), and the service answers again
// within the backoff. Each case
// runs with one process and with --workers 2.
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test/wire/reload_daemon.h"
#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kKills = 5;      // deaths in a row: waits of 10, 20, 40, 80 and 160 ms

// Waits (polling /proc without a pause: a new child is killed before it is ready) for
// a child of parent other than old. Returns it, or -1 after kStateWaitMs.
pid_t WaitForOtherChild(pid_t parent, pid_t old)
{
	for (int64_t end = NowMs() + kStateWaitMs; NowMs() < end;)
		for (pid_t p : Children(parent))
			if (p != old)
				return p;
	return -1;
}

// Waits until a request on a new connection gets /a.txt's 200. Returns the ms it took,
// or -1 after kStateWaitMs.
int64_t MsUntilAnswered(int port)
{
	int64_t start = NowMs();
	if (WaitUntil([&] { return StatusOf(port, "/a.txt") == 200; }, kStateWaitMs, 5))
		return NowMs() - start;
	return -1;
}

class RestartTest : public SupervisorTest {};

// The serving generation killed, then its replacement as soon as it appears (before it
// is ready, as a crash loop would): the supervisor restarts again after twice the wait,
// the service answers within the backoff, and both restarts are counted.
TEST_P(RestartTest, ReplacementKilledBeforeReadyIsRestartedAfterTheBackoff)
{
	ReloadDaemon d;
	ASSERT_EQ(d.Start(WithWorkers({})), "");
	pid_t first = d.generation();
	ASSERT_GT(first, 0);
	ASSERT_EQ(kill(first, SIGKILL), 0);
	pid_t second = WaitForOtherChild(d.pid(), first);
	ASSERT_GT(second, 0) << d.Err();
	ASSERT_EQ(kill(second, SIGKILL), 0);
	std::regex doubled("was killed by signal 9; starting a new one in 20 ms\n");
	ASSERT_FALSE(d.WaitForLine(doubled).empty()) << d.Err();
	int64_t ms = MsUntilAnswered(d.port());
	EXPECT_GE(ms, 0) << d.Err();
	EXPECT_LT(ms, 5000) << "the backoff is 20 ms; the start a few ms more";
	EXPECT_TRUE(ProcessRuns(d.pid()));
	// The supervisor counts a restart just after its fork: under load the new generation
	// can answer first.
	std::map<std::string, uint64_t> m;
	WaitUntil([&] {
		m = FetchMetrics(d.port());
		return m["restarts_backed_off"] >= 2;
	});
	EXPECT_EQ(m["restarts_backed_off"], 2u);
	int status = d.Stop();
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << d.Err();
}

// The first generation killed as soon as it appears, before it is ready (as an OOM kill
// during a long load would): one more death, restarted after the backoff, not the end of
// the supervisor. Should the kill land once it is ready, the same line follows.
TEST_P(RestartTest, FirstGenerationKilledAtOnceIsRestarted)
{
	ReloadDaemon d;
	d.NoWait();
	ASSERT_EQ(d.Start(WithWorkers({})), "");
	pid_t first = WaitForOtherChild(d.pid(), -1);
	ASSERT_GT(first, 0) << d.Err();
	ASSERT_EQ(kill(first, SIGKILL), 0);
	std::regex restarted("was killed by signal 9; starting a new one in 10 ms\n");
	ASSERT_FALSE(d.WaitForLine(restarted).empty()) << d.Err();
	EXPECT_GE(MsUntilAnswered(d.port()), 0) << d.Err();
	EXPECT_TRUE(ProcessRuns(d.pid())) << d.Err();
	int status = d.Stop();
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << d.Err();
}

// kKills deaths in a row: each wait twice the one before (10 ms to 160 ms), never a
// restart without one, and the daemon serves at the end.
TEST_P(RestartTest, CrashLoopBacksOffExponentially)
{
	ReloadDaemon d;
	ASSERT_EQ(d.Start(WithWorkers({})), "");
	pid_t victim = d.generation();
	for (int i = 0; i < kKills; i++) {
		ASSERT_GT(victim, 0) << d.Err();
		ASSERT_EQ(kill(victim, SIGKILL), 0);
		victim = WaitForOtherChild(d.pid(), victim);
	}
	std::string waits;
	std::regex line("starting a new one in ([0-9]+) ms\n");
	WaitUntil([&] {
		std::string err = d.Err();
		waits.clear();
		for (std::sregex_iterator i(err.begin(), err.end(), line), e; i != e; ++i)
			waits += (*i)[1].str() + " ";
		return waits.size() >= std::string("10 20 40 80 160 ").size();
	});
	EXPECT_EQ(waits, "10 20 40 80 160 ") << d.Err();
	EXPECT_GE(MsUntilAnswered(d.port()), 0) << d.Err();
	// The supervisor counts a restart after its fork: the last one's generation may answer
	// first (4 of 5 once, in a clean clone's CI run).
	uint64_t restarts = 0;
	WaitUntil([&] {
		restarts = FetchMetrics(d.port())["restarts_backed_off"];
		return restarts >= (uint64_t)kKills;
	});
	EXPECT_EQ(restarts, (uint64_t)kKills);
	EXPECT_GE(d.Stop(), 0);
}

// --workers 2: a worker killed three times in a row is restarted each time after its
// backoff (counted in workers_restarted and restarts_backed_off); both serve again.
TEST_P(RestartTest, WorkerDeathsAreRestartedAfterTheBackoff)
{
	if (GetParam() < 2)
		GTEST_SKIP() << "no workers";
	ReloadDaemon d;
	ASSERT_EQ(d.Start(WithWorkers({})), "");
	pid_t generation = d.generation();
	std::vector<pid_t> both = WaitForChildren(generation, 2);
	ASSERT_EQ(both.size(), 2u);
	pid_t victim = both[0];
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(kill(victim, SIGKILL), 0);
		pid_t next = -1;
		for (int64_t end = NowMs() + kStateWaitMs; next < 0 && NowMs() < end;)
			for (pid_t p : Children(generation))
				if (p != victim && p != both[1])
					next = p;
		ASSERT_GT(next, 0) << d.Err();
		victim = next;
	}
	EXPECT_EQ(WaitForChildren(generation, 2).size(), 2u);
	// The replacement is a child (in /proc) a moment before its parent counts it.
	std::map<std::string, uint64_t> m;
	WaitUntil([&] {
		m = FetchMetrics(d.port());
		return m["workers_restarted"] >= 3 && m["restarts_backed_off"] >= 3;
	});
	EXPECT_EQ(m["workers_restarted"], 3u);
	EXPECT_EQ(m["restarts_backed_off"], 3u);
	int status = d.Stop();
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << d.Err();
}

INSTANTIATE_TEST_SUITE_P(Processes, RestartTest, testing::Values(1, 2), ProcessesName);

} // namespace
} // namespace wire
