// Idle floods over the wire (feature `deadlines`, BEHAVIOUR 4): a daemon under a low
// descriptor limit, with its default table sizing, and a few hundred connections that send
// nothing, more than its table holds. Every fresh client is still answered: the flood's
// connections are evicted, oldest first, whether the table or the descriptor limit runs
// out first. The bound on each fresh client is generous (behaviour, not speed).
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <unistd.h>

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
constexpr int kFloodSettleMs = 1000;    // the flood fills the table first
constexpr int kFloodPollMs = 50;
constexpr int kFloodRunMaxMs = 60000;   // the flood thread ends by then whatever happens
constexpr int kLoweredNofile = 100;     // a limit lowered under a running daemon

// kFloodConnections idle connections to 127.0.0.1:port, opened by a thread that, with
// reconnect, opens a new one whenever one is closed. Sends nothing. Stops (and closes
// them all) when destroyed, or after kFloodRunMaxMs.
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
		int64_t end = NowMs() + kFloodRunMaxMs;
		epoll_event events[64];
		while (!stop_ && NowMs() < end) {
			int n = epoll_wait(ep, events, 64, kFloodPollMs);
			for (int i = 0; i < n; i++) {
				int fd = events[i].data.fd; // closed (or answered: never, it sent nothing)
				epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
				close(fd);
				socks.erase(fd);
				closed_++;
				if (reconnect_)
					OpenOne(ep, &socks);
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

// One fresh client: connect, GET /health with Connection: close, read until close.
// Returns "" when a 200 "ok" came within kFreshBoundMs of the connect's start, else what
// went wrong.
std::string FreshClientProblem(int port)
{
	int64_t start = NowMs();
	int fd = ConnectLoopback(port, kFreshBoundMs);
	if (fd < 0)
		return "no connection within the bound";
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

	// kFreshClients fresh clients in turn while `flood` runs: each must be answered.
	void ExpectEveryFreshClientAnswered(const IdleFlood &flood)
	{
		SleepMs(kFloodSettleMs);
		for (int i = 0; i < kFreshClients; i++) {
			EXPECT_EQ(FreshClientProblem(daemon_.port()), "")
				<< "fresh client " << i << "; flood opened " << flood.opened()
				<< ", closed " << flood.closed();
			SleepMs(kFreshEveryMs);
		}
		EXPECT_TRUE(daemon_.IsAlive());
		EXPECT_GT(flood.closed(), 0) << "the flood never outgrew the table";
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
	// Under qemu, in the whole full suite only (not filtered, not on asm-hotpath, not in 40
	// starts by hand), this test's daemon has never announced within the 60 s start bound:
	// 3 runs of 3 on 2026-12-04. Not understood yet; natively it runs on every tier.
	if (!DaemonLauncher().empty())
		GTEST_SKIP() << "under an emulator its daemon's start hangs in the full suite";
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
