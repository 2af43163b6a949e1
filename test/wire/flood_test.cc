// Idle floods over the wire (feature `deadlines`, BEHAVIOUR 4): a daemon under a low
// descriptor limit, with its default table sizing, and a few hundred connections that send
// nothing, more than its table holds. Every fresh client is still answered: the flood's
// connections are evicted, oldest first, whether the table or the descriptor limit runs
// out first. The bound on each fresh client is generous (behaviour, not speed).
//
// Why the reconnecting flood is paced: eviction takes the connection that has waited
// longest, and a fresh client is accepted as the youngest, so it is safe until the table's
// other M connections have been evicted before it: for M accepts. A flood that reconnects
// at once churns a 120-slot table at 8,000 to 16,000 closes/s (measured), which leaves a
// client 6 to 15 ms between connecting and sending: a property of the policy, but then
// the test depends on the test's own thread being scheduled in time. The flood here
// reconnects at most once per kReconnectEveryMs, so that window is at least
// kTableAtLeast x kReconnectEveryMs (1.6 s) however the machine schedules either side (a
// late flood thread only widens it). The fresh clients send at once; one more client
// waits kLateSendMs, half the window, before it sends, and must be served too.
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr rlim_t kDaemonNofile = 256;   // soft and hard: a table of about 120
constexpr int kFloodConnections = 300;  // more than the descriptor limit, let alone the table
constexpr int kFreshClients = 6;
constexpr int kFreshBoundMs = 5000;     // each fresh client: answered within this
constexpr int kFreshEveryMs = 200;
constexpr int kFloodPollMs = 50;
constexpr int kReconnectEveryMs = 20;   // the reconnecting flood: one new connection at most
constexpr int kTableAtLeast = 80;       // connections the daemon holds, at kLoweredNofile too
constexpr int kLateSendMs = kTableAtLeast * kReconnectEveryMs / 2;
constexpr int kFloodRunMaxMs = 60000;   // the flood thread ends by then whatever happens
constexpr int kLoweredNofile = 100;     // a limit lowered under a running daemon

// kFloodConnections idle connections to 127.0.0.1:port, opened by a thread that, with
// reconnect, opens a new one for each one closed, one per kReconnectEveryMs at most.
// Sends nothing. Stops (and closes them all) when destroyed, or after kFloodRunMaxMs.
class IdleFlood {
public:
	IdleFlood(int port, bool reconnect) : port_(port), reconnect_(reconnect)
	{
		thread_ = std::thread([this] { Run(); });
	}
	~IdleFlood()
	{
		stop_ = true;
		thread_.join();
	}
	int opened() const { return opened_; }
	int closed() const { return closed_; }

private:
	// Opens one non-blocking connection and watches it. Returns false if that failed.
	bool OpenOne(int ep, std::map<int, bool> *socks)
	{
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return false;
		sockaddr_in a{};
		a.sin_family = AF_INET;
		a.sin_port = htons(static_cast<uint16_t>(port_));
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 &&
		    errno != EINPROGRESS) {
			close(fd);
			return false;
		}
		epoll_event ev{};
		ev.events = EPOLLIN | EPOLLRDHUP;
		ev.data.fd = fd;
		epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
		(*socks)[fd] = true;
		opened_++;
		return true;
	}

	void Run()
	{
		int ep = epoll_create1(EPOLL_CLOEXEC);
		std::map<int, bool> socks;
		for (int i = 0; i < kFloodConnections; i++)
			OpenOne(ep, &socks);
		int64_t end = NowMs() + kFloodRunMaxMs, next_open = 0;
		int owed = 0; // connections closed and not opened again yet
		epoll_event events[64];
		while (!stop_ && NowMs() < end) {
			int64_t wait_ms = kFloodPollMs; // until the next connection is due
			if (owed)
				wait_ms = std::min<int64_t>(std::max<int64_t>(next_open - NowMs(), 0),
							    kFloodPollMs);
			int n = epoll_wait(ep, events, 64, static_cast<int>(wait_ms));
			for (int i = 0; i < n; i++) {
				int fd = events[i].data.fd; // closed (or answered: never, it sent nothing)
				epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
				close(fd);
				socks.erase(fd);
				closed_++;
				owed += reconnect_;
			}
			if (owed > 0 && NowMs() >= next_open) {
				OpenOne(ep, &socks);
				owed--;
				next_open = NowMs() + kReconnectEveryMs;
			}
		}
		for (auto &s : socks)
			close(s.first);
		close(ep);
	}

	int port_;
	bool reconnect_;
	std::atomic<bool> stop_{false};
	std::atomic<int> opened_{0};
	std::atomic<int> closed_{0};
	std::thread thread_;
};

// One fresh client: connect, wait send_after_ms (a client slow to send), GET /health with
// Connection: close, read until close. Returns "" when a 200 "ok" came within
// kFreshBoundMs of the connect's start (plus send_after_ms), else what went wrong.
std::string FreshClientProblem(int port, int send_after_ms = 0)
{
	int64_t start = NowMs() + send_after_ms;
	int fd = ConnectLoopback(port, kFreshBoundMs);
	if (fd < 0)
		return "no connection within the bound";
	SleepMs(send_after_ms); // the stimulus: it sends this late
	if (!SendAll(fd, GetClose("/health"))) {
		close(fd);
		return "the request could not be sent";
	}
	int left = static_cast<int>(kFreshBoundMs - (NowMs() - start));
	Received r = ReadUntilClose(fd, left > 0 ? left : 1);
	close(fd);
	std::string problem = OutcomeProblem(r, Outcome::kStatus2xx, GetClose("/health"));
	if (!problem.empty())
		return problem + " after " + std::to_string(NowMs() - start) + " ms";
	if (ParseResponse(r.bytes).body != "ok")
		return "body '" + ParseResponse(r.bytes).body + "'";
	return "";
}

class FloodTest : public testing::Test {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("deadlines");
		ASSERT_GE(RaiseOwnNofileLimit(kFloodConnections + 256),
			  static_cast<rlim_t>(kFloodConnections + 256))
			<< "this test needs RLIMIT_NOFILE above " << kFloodConnections;
	}

	// Starts the daemon under kDaemonNofile with extra_args (the default table sizing).
	void StartUnderLowLimit(const std::vector<std::string> &extra_args)
	{
		START_DAEMON(daemon_, DaemonOptions{extra_args, kDaemonNofile});
		ASSERT_EQ(LivenessProblem(daemon_.port()), "");
	}

	// Once the flood has outgrown the table (all its connections opened and accepted,
	// some evicted), kFreshClients fresh clients in turn, then one that sends
	// kLateSendMs after connecting: each must be answered.
	void ExpectEveryFreshClientAnswered(const IdleFlood &flood)
	{
		ASSERT_TRUE(WaitUntil([&] {
			return flood.opened() >= kFloodConnections && flood.closed() > 0 &&
			       ListenerOn(daemon_.port()).receive_queue == 0;
		})) << "the flood never outgrew the table: opened " << flood.opened() << ", closed "
		    << flood.closed();
		for (int i = 0; i < kFreshClients; i++) {
			EXPECT_EQ(FreshClientProblem(daemon_.port()), "")
				<< "fresh client " << i << "; flood opened " << flood.opened()
				<< ", closed " << flood.closed();
			SleepMs(kFreshEveryMs);
		}
		EXPECT_EQ(FreshClientProblem(daemon_.port(), kLateSendMs), "")
			<< "a client sending " << kLateSendMs << " ms after connecting; flood "
			<< "opened " << flood.opened() << ", closed " << flood.closed();
		EXPECT_TRUE(daemon_.IsAlive());
	}

	Daemon daemon_;
};

// The flood reconnects whenever one of its connections is closed (BEHAVIOUR 4, eviction).
TEST_F(FloodTest, IdleFloodThatReconnects)
{
	StartUnderLowLimit({});
	IdleFlood flood(daemon_.port(), true);
	ExpectEveryFreshClientAnswered(flood);
}

// With a long idle deadline nothing times out: only eviction makes room, and the flood
// does not come back for the connections it loses.
TEST_F(FloodTest, IdleFloodUnderALongIdleTimeout)
{
	StartUnderLowLimit({"--idle-timeout", "60"});
	IdleFlood flood(daemon_.port(), false);
	ExpectEveryFreshClientAnswered(flood);
}

// The descriptor limit lowered under the running daemon, below what its table was sized
// for: accept4 is refused with EMFILE before the table is full, and every such refusal
// evicts as a full table does.
TEST_F(FloodTest, RefusedAcceptEvictsToo)
{
	StartUnderLowLimit({"--idle-timeout", "60"});
	struct rlimit lowered = {kLoweredNofile, kLoweredNofile};
	ASSERT_EQ(prlimit(daemon_.pid(), RLIMIT_NOFILE, &lowered, nullptr), 0)
		<< "prlimit on the daemon: errno " << errno;
	IdleFlood flood(daemon_.port(), true);
	ExpectEveryFreshClientAnswered(flood);
}

} // namespace
} // namespace wire
