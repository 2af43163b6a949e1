// Concurrency over the wire (feature `routes`, BEHAVIOUR 4): one thread must keep serving
// while other connections are half-sent, idle or very many, and count exactly under 64
// concurrent clients.
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

// A deadline tier must not expire the held connections while a test runs.
const std::vector<std::string> kLongIdleArgs = {"--idle-timeout", "60"};

// Closes every descriptor in fds.
void CloseAll(std::vector<int> *fds)
{
	for (int fd : *fds)
		close(fd);
	fds->clear();
}

// Opens count silent connections into *fds; false if one cannot be opened.
bool OpenSilentConnections(int port, int count, std::vector<int> *fds)
{
	for (int i = 0; i < count; i++) {
		int fd = ConnectLoopback(port);
		if (fd < 0)
			return false;
		fds->push_back(fd);
	}
	return true;
}

// Waits (5 s at most) until the daemon holds at least want descriptors. Returns the count.
int WaitForDescriptors(Daemon &daemon, int want, int timeout_ms = 5000)
{
	int count = -1;
	WaitUntil([&] { return (count = daemon.OpenDescriptorCount()) >= want; }, timeout_ms);
	return count;
}

class ConcurrencyTest : public testing::Test {
protected:
	void SetUp() override { REQUIRE_FEATURE("routes"); }
	Daemon daemon_;
};

TEST_F(ConcurrencyTest, HalfSentRequestHeldWhileOthersServed)
{
	START_DAEMON(daemon_, DaemonOptions{kLongIdleArgs});
	int held = ConnectLoopback(daemon_.port());
	ASSERT_GE(held, 0);
	ASSERT_TRUE(SendAll(held, "GET /health HTTP/1.1\r\nHo"));
	for (int i = 0; i < 10; i++)
		ASSERT_EQ(LivenessProblem(daemon_.port()), "") << "request " << i;
	EXPECT_FALSE(PeerSpokeOrClosed(held, 0)) << "the half-sent request was answered or closed";
	// The rest asks to close, so the daemon's close ends the exchange.
	std::string rest = "st: a\r\nConnection: close\r\n\r\n";
	Received r = Exchange(held, rest, false);
	EXPECT_EQ(OutcomeProblem(r, Outcome::kStatus2xx, "GET /health HTTP/1.1\r\nHo" + rest), "");
}

TEST_F(ConcurrencyTest, HundredIdleConnectionsHeldWhileRequestServed)
{
	START_DAEMON(daemon_, DaemonOptions{kLongIdleArgs});
	std::vector<int> idle;
	ASSERT_TRUE(OpenSilentConnections(daemon_.port(), 100, &idle));
	EXPECT_EQ(LivenessProblem(daemon_.port()), "");
	int closed = 0;
	for (int fd : idle)
		closed += PeerSpokeOrClosed(fd, 0);
	EXPECT_EQ(closed, 0) << "idle connections were closed or answered";
	CloseAll(&idle);
}

TEST_F(ConcurrencyTest, TwoThousandConnectionsHeldWhileRequestServed)
{
	constexpr int kHeld = 2000;
	constexpr rlim_t kDaemonNofile = 4096;
	ASSERT_GE(RaiseOwnNofileLimit(kHeld + 256), static_cast<rlim_t>(kHeld + 256))
		<< "this test needs RLIMIT_NOFILE above " << kHeld;
	START_DAEMON(daemon_, DaemonOptions{kLongIdleArgs, kDaemonNofile});
	ASSERT_EQ(LivenessProblem(daemon_.port()), "");
	int baseline = daemon_.OpenDescriptorCount();
	std::vector<int> held;
	bool opened = OpenSilentConnections(daemon_.port(), kHeld, &held);
	EXPECT_TRUE(opened) << "opened only " << held.size();
	// Accepted by the daemon, not only waiting in the kernel backlog.
	EXPECT_EQ(WaitForDescriptors(daemon_, baseline + kHeld), baseline + kHeld);
	EXPECT_EQ(LivenessProblem(daemon_.port()), "");
	EXPECT_TRUE(daemon_.IsAlive());
	CloseAll(&held);
}

// BEHAVIOUR 4: under a soft descriptor limit of 8192 the table holds 4096 descriptors'
// connections, less the daemon's own, and no descriptor lands beyond it. A full table of silent connections: on a deadline tier each new
// connection evicts the oldest and is served; without deadlines nothing can be evicted and
// each new connection is answered 503 and closed at once.
TEST_F(ConcurrencyTest, FullTableEvictsOrRefuses)
{
	constexpr int kTableSlots = 4096;
	constexpr int kBeyond = 7; // connections that find the table full (odd: one eviction each,
				   // not two every other one)
	constexpr rlim_t kDaemonNofile = 8192;
	ASSERT_GE(RaiseOwnNofileLimit(kTableSlots + 256), static_cast<rlim_t>(kTableSlots + 256))
		<< "this test needs RLIMIT_NOFILE above " << kTableSlots;
	START_DAEMON(daemon_, DaemonOptions{kLongIdleArgs, kDaemonNofile});
	ASSERT_EQ(LivenessProblem(daemon_.port()), "");
	int fits = kTableSlots - daemon_.OpenDescriptorCount(kTableSlots);
	std::vector<int> held;
	ASSERT_TRUE(OpenSilentConnections(daemon_.port(), fits, &held)) << held.size();
	ASSERT_EQ(WaitForDescriptors(daemon_, kTableSlots), kTableSlots) << "table not filled";
	EXPECT_EQ(daemon_.OpenDescriptorCount(), kTableSlots) << "a descriptor beyond the table";
	std::vector<int> beyond;
	ASSERT_TRUE(OpenSilentConnections(daemon_.port(), kBeyond, &beyond));
	bool evicts = HasFeature("deadlines");
	// Every new connection has met the full table and the daemon waits again: with
	// deadlines each was accepted (evicting one), without them each was accepted and
	// answered (the 503, then a close), so none is left queued.
	pid_t serving = daemon_.ServingPid();
	ASSERT_TRUE(WaitUntil([&] {
		if (ListenerOn(daemon_.port()).receive_queue != 0)
			return false;
		for (int fd : beyond)
			if (evicts ? ServerEndOf(fd).inode == 0 : !PeerSpokeOrClosed(fd, 0))
				return false;
		return Sleeps(serving);
	})) << "the new connections were not " << (evicts ? "accepted" : "answered");
	int evicted = 0;
	for (int i = 0; i < kBeyond; i++)
		evicted += ReadUntilClose(held[i], evicts ? 3000 : 1).eof;
	EXPECT_EQ(evicted, evicts ? kBeyond : 0) << "the oldest silent connections";
	// Each new descriptor lands beyond the table (the numbers below are all held) and
	// takes the evicted one's number: one eviction per connection, no more.
	EXPECT_FALSE(PeerSpokeOrClosed(held[kBeyond], 0)) << "an eviction too many";
	int beyond_open = 0, beyond_503 = 0;
	for (int fd : beyond) {
		if (evicts) {
			beyond_open += !PeerSpokeOrClosed(fd, 0);
			continue;
		}
		Received r = ReadUntilClose(fd, kStateWaitMs);
		beyond_503 += ParseResponse(r.bytes).status == 503 && (r.eof || r.reset);
	}
	EXPECT_EQ(beyond_open, evicts ? kBeyond : 0) << "a new connection was refused";
	EXPECT_EQ(beyond_503, evicts ? 0 : kBeyond) << "a new connection was not answered 503";
	CloseAll(&beyond);
	CloseAll(&held);
	EXPECT_EQ(LivenessProblem(daemon_.port()), "") << "a freed slot is used again";
	EXPECT_TRUE(daemon_.IsAlive());
}

TEST_F(ConcurrencyTest, SixtyFourClientThreadsCountExactly)
{
	constexpr int kThreads = 64;
	constexpr int kRequestsPerThread = 50;
	START_DAEMON(daemon_, DaemonOptions{});
	int port = daemon_.port();
	std::map<std::string, uint64_t> before = FetchMetrics(port);
	std::atomic<int> successes{0}, errors{0};
	std::mutex first_error_lock;
	std::string first_error;
	std::vector<std::thread> clients;
	for (int t = 0; t < kThreads; t++) {
		clients.emplace_back([&] {
			for (int i = 0; i < kRequestsPerThread; i++) {
				Received r = Roundtrip(port, GetClose("/health"), false, 10000);
				HttpResponse resp = ParseResponse(r.bytes);
				if (r.eof && resp.status == 200 && resp.body == "ok") {
					successes++;
					continue;
				}
				errors++;
				std::lock_guard<std::mutex> hold(first_error_lock);
				if (first_error.empty())
					first_error = "'" + r.bytes + "' timed_out=" +
						      std::to_string(r.timed_out);
			}
		});
	}
	for (std::thread &t : clients)
		t.join();
	EXPECT_EQ(errors.load(), 0) << "first error: " << first_error;
	EXPECT_EQ(successes.load(), kThreads * kRequestsPerThread);
	std::map<std::string, uint64_t> after = FetchMetrics(port);
	uint64_t served = static_cast<uint64_t>(successes.load()) + 1; // + the second scrape
	EXPECT_EQ(after["requests_total"] - before["requests_total"], served);
	EXPECT_EQ(after["requests_get"] - before["requests_get"], served);
	EXPECT_EQ(after["responses_200"] - before["responses_200"], served);
}

} // namespace
} // namespace wire
