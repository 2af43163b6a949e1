// Hostile clients that leave (issue 33), on every routed tier: after each scenario every
// client closes, and the daemon must come back to rest by itself. Each test then waits
// for state, never sleeps and asserts: the serving process uses no CPU over a second
// (/proc/PID/stat), answers /health, holds no descriptor beyond its baseline
// (/proc/PID/fd), and exits within --drain-timeout of SIGTERM. The scenarios, scaled to a
// small table so they run in seconds:
//   - a full table of unfinished heads beside an idle flood that reconnects (more
//     connections than the uring tier's accepts once queued: a queue that filled left an
//     accept completion in the ring that held every one behind it, and the loop spun);
//   - tricklers holding every slot while fresh clients ask for /health (served, or 503);
//   - slow downloads from disk under a low descriptor limit, ended by their send
//     deadline;
//   - a bounded random walk of opens, half-sent requests, resets and closes.
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kDrainSeconds = 2;           // --drain-timeout of every daemon here
constexpr int kExitSlackMs = 1000;         // SIGTERM to exit: the drain and this at most
constexpr int kClockGrainMs = 1;           // the daemon's deadlines count whole ms
constexpr int kIdleWindowMs = 1000;        // "idle": CPU used over this window ...
constexpr uint64_t kIdleTicksMax = 5;      // ... at most this many clock ticks (50 ms)
constexpr int kRestBoundMs = 15000;        // every wait for rest ends a hang, no more
constexpr rlim_t kClientNofile = 1024;     // this process: the floods' sockets
constexpr const char *kUnfinishedHead = "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ";

// CPU time (user + system, clock ticks) pid has used, from /proc/PID/stat; -1 if gone.
int64_t CpuTicks(pid_t pid)
{
	std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
	std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
	size_t paren = stat.rfind(')');
	if (paren == std::string::npos)
		return -1;
	std::istringstream fields(stat.substr(paren + 2));
	std::string f;
	int64_t utime = 0, stime = 0;
	for (int i = 3; fields >> f && i <= 15; i++) { // fields 14 and 15 (1-based)
		if (i == 14)
			utime = std::stoll(f);
		if (i == 15)
			stime = std::stoll(f);
	}
	return utime + stime;
}

// The clock ticks pid uses over one kIdleWindowMs window; -1 if it is gone.
int64_t TicksOverWindow(pid_t pid)
{
	int64_t before = CpuTicks(pid);
	SleepMs(kIdleWindowMs); // the measuring window, not a wait for state
	int64_t after = CpuTicks(pid);
	return before < 0 || after < 0 ? -1 : after - before;
}

// Waits (kRestBoundMs at most) until pid uses at most kIdleTicksMax over one
// kIdleWindowMs window. Returns "" or what the last window used.
std::string RestProblem(pid_t pid)
{
	int64_t end = NowMs() + kRestBoundMs;
	int64_t used = -1;
	while (NowMs() < end) {
		used = TicksOverWindow(pid);
		if (used < 0)
			return "the serving process is gone";
		if (used <= static_cast<int64_t>(kIdleTicksMax))
			return "";
	}
	return "still busy: " + std::to_string(used) + " ticks in the last " +
	       std::to_string(kIdleWindowMs) + " ms";
}

// How long after the drain a stopped daemon may take to exit. Natively a timing bound
// (BEHAVIOUR 11: the stop ends within --drain-timeout), a second for the exit path on a
// loaded machine. Under an emulator (DaemonLauncher) only the end of a hang: qemu-user at
// a load of 15 took longer than that to run the same exit (issue 32), so what shows the
// drain's own deadline ended the stop there is the daemon's word for it, exit 12, after a
// stop no shorter than the drain.
int ExitSlackMs()
{
	return DaemonLauncher().empty() ? kExitSlackMs : kStateWaitMs;
}

// Waits (bound_ms at most) until /health is answered. Returns "" or the last problem.
std::string ServesProblem(int port, int bound_ms = kRestBoundMs)
{
	std::string problem = "not asked";
	for (int64_t end = NowMs() + bound_ms; NowMs() < end;) {
		problem = LivenessProblem(port);
		if (problem.empty())
			return "";
	}
	return problem;
}

// Asks /metrics once for counter. Returns whether it was answered, with *value set (0
// when the counter is absent).
bool ReadCounter(int port, const std::string &counter, uint64_t *value)
{
	HttpResponse r = ParseResponse(Roundtrip(port, GetClose("/metrics"), false, 1000).bytes);
	Counters counters;
	std::string error;
	if (r.status != 200 || !ParseMetricsBody(r.body, &counters, &error))
		return false;
	*value = 0;
	for (const auto &c : counters)
		if (c.first == counter)
			*value = c.second;
	return true;
}

// Waits (kRestBoundMs at most) until /metrics, asked afresh each time (it may find no
// slot free), shows counter above floor. Returns the last value seen (0: never read).
uint64_t CounterOnceAbove(int port, const std::string &counter, uint64_t floor)
{
	uint64_t value = 0;
	WaitUntil([&] { return ReadCounter(port, counter, &value) && value > floor; },
		  kRestBoundMs);
	return value;
}

// counter as the first /metrics answered within kRestBoundMs shows it; -1 if none was.
int64_t CounterNow(int port, const std::string &counter)
{
	uint64_t value = 0;
	if (!WaitUntil([&] { return ReadCounter(port, counter, &value); }, kRestBoundMs))
		return -1;
	return static_cast<int64_t>(value);
}

// What every scenario checks once its clients have gone: rest, service, no descriptor
// beyond baseline (the serving process's count before any client came), and an exit
// within the drain after SIGTERM. context names the scenario in failure messages.
void ExpectBackAtRest(Daemon &daemon, pid_t serving, int baseline, const std::string &context)
{
	EXPECT_EQ(RestProblem(serving), "") << context;
	EXPECT_EQ(ServesProblem(daemon.port()), "") << context;
	EXPECT_EQ(WaitForOpenDescriptors(daemon, baseline, kRestBoundMs), baseline)
		<< context << ": descriptors beyond the baseline";
	EXPECT_EQ(RestProblem(serving), "") << context << " (after /health)";
	int64_t start = NowMs();
	ASSERT_EQ(kill(daemon.pid(), SIGTERM), 0);
	int status = 0;
	EXPECT_TRUE(daemon.WaitExit(kDrainSeconds * 1000 + ExitSlackMs(), &status))
		<< context << ": no exit within the drain after SIGTERM";
	EXPECT_LE(NowMs() - start, kDrainSeconds * 1000 + ExitSlackMs()) << context;
}

// A non-blocking connection to 127.0.0.1:port, connecting; -1 on failure.
int OpenNonBlocking(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	sockaddr_in a{};
	a.sin_family = AF_INET;
	a.sin_port = htons(static_cast<uint16_t>(port));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

// Closes fd with a reset (SO_LINGER 0) instead of a FIN.
void Reset(int fd)
{
	linger l{1, 0};
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
	close(fd);
}

// count connections kept open by a thread: each sends step(i) when due (nothing when it
// returns ""), and is opened again the moment the daemon closes it. Runs until destroyed
// (or run_max_ms), then closes them all.
class Crowd {
public:
	using Step = std::function<std::string(int)>; // i-th send of a connection, or ""
	Crowd(int port, int count, int every_ms, Step step, int run_max_ms = 60000)
	    : port_(port), count_(count), every_ms_(every_ms), step_(std::move(step)),
	      end_ms_(NowMs() + run_max_ms)
	{
		thread_ = std::thread([this] { Run(); });
	}
	~Crowd()
	{
		stop_ = true;
		thread_.join();
	}
	int reopened() const { return reopened_; }

private:
	struct Conn {
		int fd;
		int sent;
		int64_t next_ms;
	};
	void Open(int ep, Conn *c)
	{
		c->fd = OpenNonBlocking(port_);
		c->sent = 0;
		c->next_ms = NowMs();
		epoll_event ev{};
		ev.events = EPOLLIN | EPOLLRDHUP;
		ev.data.ptr = c;
		if (c->fd >= 0)
			epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
	}
	void Run()
	{
		int ep = epoll_create1(EPOLL_CLOEXEC);
		std::vector<Conn> conns(count_);
		for (Conn &c : conns)
			Open(ep, &c);
		epoll_event events[64];
		while (!stop_ && NowMs() < end_ms_) {
			int n = epoll_wait(ep, events, 64, 10);
			for (int i = 0; i < n; i++) { // closed (or answered): open again
				Conn *c = static_cast<Conn *>(events[i].data.ptr);
				epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, nullptr);
				close(c->fd);
				reopened_++;
				Open(ep, c);
			}
			for (Conn &c : conns)
				Send(&c);
		}
		for (Conn &c : conns)
			if (c.fd >= 0)
				close(c.fd);
		close(ep);
	}
	void Send(Conn *c)
	{
		if (c->fd < 0 || NowMs() < c->next_ms)
			return;
		std::string bytes = step_(c->sent);
		if (!bytes.empty() && send(c->fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) > 0)
			c->sent++;
		c->next_ms = NowMs() + every_ms_;
	}

	int port_, count_, every_ms_;
	Step step_;
	int64_t end_ms_;
	std::atomic<bool> stop_{false};
	std::atomic<int> reopened_{0};
	std::thread thread_;
};

class HostileTest : public testing::Test {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("routes");
		ASSERT_GE(RaiseOwnNofileLimit(kClientNofile), kClientNofile);
	}

	// Starts the daemon with --drain-timeout and args (plus, with deadlines, deadline_args),
	// under nofile (0: inherited), and takes the serving process and its baseline.
	void Start(std::vector<std::string> args, const std::vector<std::string> &deadline_args,
		   rlim_t nofile = 0)
	{
		args.push_back("--drain-timeout");
		args.push_back(std::to_string(kDrainSeconds));
		if (HasFeature("deadlines"))
			args.insert(args.end(), deadline_args.begin(), deadline_args.end());
		START_DAEMON(daemon_, DaemonOptions{args, nofile});
		serving_ = daemon_.ServingPid();
		ASSERT_EQ(LivenessProblem(daemon_.port()), "");
		baseline_ = daemon_.OpenDescriptorCount();
		ASSERT_GT(baseline_, 0);
	}

	// Waits (kRestBoundMs at most) until the serving process holds at least want
	// descriptors beyond its baseline (a completion backend may hold accepted ones more).
	void WaitForConnections(int want)
	{
		int have = 0;
		if (!WaitUntil([&] { return (have = daemon_.OpenDescriptorCount() - baseline_) >= want; },
			       kRestBoundMs))
			FAIL() << "connections held: " << have << ", want " << want;
	}

	Daemon daemon_;
	pid_t serving_ = -1;
	int baseline_ = 0;
};

constexpr int kHeadTable = 16;     // --max-connections: every slot an unfinished head
constexpr int kIdleCrowd = 100;    // beyond the table and the uring accept queue of old
constexpr int kCrowdRunMs = 1500;  // how long the idle crowd keeps reconnecting
constexpr int kFreshTries = 3;

// Issue 33 (1): a full table of unfinished heads, an idle crowd reconnecting beside it
// and a few fresh clients, then everybody leaves.
TEST_F(HostileTest, FullTableOfHeadsThenEveryoneLeaves)
{
	Start({"--max-connections", std::to_string(kHeadTable)}, {"--header-timeout", "60"});
	std::vector<int> heads;
	for (int i = 0; i < kHeadTable; i++) {
		int fd = ConnectLoopback(daemon_.port());
		ASSERT_GE(fd, 0);
		ASSERT_TRUE(SendAll(fd, kUnfinishedHead));
		heads.push_back(fd);
	}
	WaitForConnections(kHeadTable);
	{
		Crowd idle(daemon_.port(), kIdleCrowd, kCrowdRunMs, [](int) { return ""; });
		int64_t end = NowMs() + kCrowdRunMs; // the crowd's time to churn: a load, not a wait
		for (int i = 0; i < kFreshTries && NowMs() < end; i++) {
			int fd = OpenNonBlocking(daemon_.port());
			if (fd >= 0) {
				SendAll(fd, GetClose("/health"));
				heads.push_back(fd);
			}
			SleepMs(kCrowdRunMs / kFreshTries);
		}
	}
	for (int fd : heads)
		close(fd);
	ExpectBackAtRest(daemon_, serving_, baseline_, "full table of heads");
}

constexpr int kTrickleTable = 16;
constexpr int kTrickleEveryMs = 1500; // below the 2 s head deadline: each byte in time
constexpr int kFreshClients = 4;
constexpr int kFreshBoundMs = 8000;   // a head deadline frees a slot well before this
constexpr int kFreshTriesMax = 20;    // per fresh client whose request missed its handshake

// Issue 33 (2): tricklers hold every slot and reconnect when closed; each fresh client
// that sends a whole request is answered (200, or 503 when no slot was free: issue 30),
// then everybody leaves. The tricklers' reconnects evict silent connections, as they may
// (BEHAVIOUR 4), so a fresh client is one whose request completes its handshake
// (RoundtripOnHandshake): the daemon never sees it silent, however late this process
// runs between its connect and its send (issue 32: under load it did, and was evicted).
// One whose request missed the handshake (this process held up past the kernel's 200 ms
// delayed ACK) proves nothing either way and is asked again.
TEST_F(HostileTest, TricklersThenFreshClients)
{
	REQUIRE_FEATURE("deadlines");
	Start({"--max-connections", std::to_string(kTrickleTable)}, {"--header-timeout", "2"});
	std::string head = kUnfinishedHead + std::string(64, 'a');
	{
		Crowd tricklers(daemon_.port(), kTrickleTable + 1, kTrickleEveryMs, [&](int i) {
			return i < static_cast<int>(head.size()) ? head.substr(i, 1) : "";
		});
		WaitForConnections(kTrickleTable);
		for (int i = 0; i < kFreshClients; i++) {
			Received r;
			bool rode = false;
			for (int tries = 0; !rode && tries < kFreshTriesMax; tries++)
				r = RoundtripOnHandshake(daemon_.port(), GetClose("/health"),
							 kFreshBoundMs, &rode);
			ASSERT_TRUE(rode) << "fresh client " << i << ": no request came with its "
					  << "handshake in " << kFreshTriesMax << " tries";
			int status = ParseResponse(r.bytes).status;
			EXPECT_TRUE(status == 200 || status == 503) // 503: no slot free (BEHAVIOUR 4)
				<< "fresh client " << i << " got '" << r.bytes << "' (" << HowItEnded(r)
				<< "); tricklers reopened " << tricklers.reopened();
		}
	}
	ExpectBackAtRest(daemon_, serving_, baseline_, "tricklers");
}

// BEHAVIOUR 4, in the order that failed TricklersThenFreshClients under load: a fresh
// client accepted before its request came waits (the only one, in a table of one); then,
// while the daemon is stopped, a newcomer's handshake and the fresh client's request
// arrive in that order, so one batch of reports names the listener first. The fresh
// client is answered, never evicted with its request unread: the batch's connections are
// read before its accepts. (It was reset on the epoll tiers, closed on uring, where the
// request had already left the socket for its completion.) The newcomer then has the slot
// the answered client freed, or, while that one lingers unread, the 503.
TEST_F(HostileTest, AnAcceptNeverEvictsARequestThatCame)
{
	REQUIRE_FEATURE("deadlines");
	Start({"--max-connections", "1"}, {"--idle-timeout", "60"});
	int fresh = ConnectLoopback(daemon_.port());
	ASSERT_GE(fresh, 0);
	ASSERT_TRUE(WaitUntilDaemonAccepted(serving_, fresh)); // its first read found nothing
	int newcomer = -1;
	{
		ASSERT_EQ(kill(serving_, SIGSTOP), 0);
		ResumeOnExit resume{serving_};
		ASSERT_TRUE(WaitUntil([&] { return ProcessStopped(serving_); }));
		newcomer = ConnectLoopback(daemon_.port()); // the kernel completes the handshake
		ASSERT_GE(newcomer, 0);
		ASSERT_TRUE(SendAll(fresh, GetClose("/health")));
	}
	Received answered = ReadUntilClose(fresh, kRestBoundMs);
	close(fresh);
	EXPECT_EQ(ParseResponse(answered.bytes).status, 200)
		<< "the fresh client got '" << answered.bytes << "' (" << HowItEnded(answered) << ")";
	Received r = Exchange(newcomer, GetClose("/health"), false, kRestBoundMs);
	int status = ParseResponse(r.bytes).status;
	EXPECT_TRUE(status == 200 || status == 503)
		<< "the newcomer got '" << r.bytes << "' (" << HowItEnded(r) << ")";
}

constexpr int kLookHeads = 64; // BACKEND_EVENTS_MAX: with the listener's, more than one wait takes

// BEHAVIOUR 4, the eviction's look when every waiting connection holds bytes: as above,
// but 64 unfinished heads fill the table beside the fresh client and each sends one byte
// more between the newcomer's handshake and the fresh client's request, so the wait that
// reports the listener (64 reports at most) does not report the request. The accept's
// look finds the request in the socket: nothing is evicted, the newcomer gets the 503 and
// the fresh client its answer. (The only one waiting, it was evicted all the same, and
// reset.) Not on uring: there the request may have left the socket for a completion
// beyond the batch, where the look cannot see it (BEHAVIOUR 4), as the kernel ran the
// ring's deferred receives (6.18 runs a few per wait and passes).
TEST_F(HostileTest, AnEvictionLeavesTheRequestItSees)
{
	REQUIRE_FEATURE("deadlines");
	if (HasFeature("uring"))
		GTEST_SKIP() << "uring: a request beyond the batch may be out of the socket (BEHAVIOUR 4)";
	Start({"--max-connections", std::to_string(kLookHeads + 1)},
	      {"--header-timeout", "60", "--idle-timeout", "60"});
	std::vector<int> heads;
	for (int i = 0; i < kLookHeads; i++) {
		heads.push_back(ConnectLoopback(daemon_.port()));
		ASSERT_GE(heads.back(), 0);
		ASSERT_TRUE(SendAll(heads.back(), kUnfinishedHead));
	}
	for (int fd : heads)
		ASSERT_TRUE(WaitUntilDaemonRead(serving_, fd));
	int fresh = ConnectLoopback(daemon_.port());
	ASSERT_GE(fresh, 0);
	ASSERT_TRUE(WaitUntilDaemonAccepted(serving_, fresh));
	int newcomer = -1;
	{
		ASSERT_EQ(kill(serving_, SIGSTOP), 0);
		ResumeOnExit resume{serving_};
		ASSERT_TRUE(WaitUntil([&] { return ProcessStopped(serving_); }));
		newcomer = ConnectLoopback(daemon_.port());
		ASSERT_GE(newcomer, 0);
		for (int fd : heads)
			ASSERT_TRUE(SendAll(fd, "a"));
		ASSERT_TRUE(SendAll(fresh, GetClose("/health")));
	}
	Received answered = ReadUntilClose(fresh, kRestBoundMs);
	Received refused = ReadUntilClose(newcomer, kRestBoundMs);
	for (int fd : heads)
		close(fd);
	close(fresh);
	close(newcomer);
	EXPECT_EQ(ParseResponse(answered.bytes).status, 200)
		<< "the fresh client got '" << answered.bytes << "' (" << HowItEnded(answered) << ")";
	EXPECT_EQ(ParseResponse(refused.bytes).status, 503)
		<< "the newcomer got '" << refused.bytes << "' (" << HowItEnded(refused) << ")";
}

constexpr rlim_t kLowNofile = 64;          // a table of about 28
constexpr int kDownloads = 40;             // more than the table holds
constexpr size_t kDownloadBytes = 4 << 20; // far beyond what 8 KiB windows take
constexpr int kSmallWindow = 8192;
constexpr int kDownloadSendTimeoutS = 3;   // the stall a CPU window is measured in
constexpr int kDownloadsServeBoundMs = 12000; // the send deadline, a wave or two more
constexpr int kDescriptorsFree = 2;        // "full": this close to kLowNofile

// Issue 33 (3): slow downloads from disk (--cache-bytes 0) under a descriptor limit of
// 64, never read, ended by their send deadline. While every slot's send is stalled and
// more downloads wait for a slot, the daemon rests; /health is answered soon after the
// deadlines; and no download was answered 404: on uring a multishot accept took the
// whole backlog up to the descriptor limit, so the opens of the files to send failed
// (27 of 60 downloads answered 404 in the run; accept4 in the loop now).
TEST_F(HostileTest, SlowDownloadsEndedBySendDeadline)
{
	REQUIRE_FEATURE("deadlines");
	REQUIRE_FEATURE("files");
	FileRoot root({{"big", Random(kDownloadBytes, 33)}});
	ASSERT_NE(root.dir(), "");
	Start({"--root", root.dir(), "--cache-bytes", "0"},
	      {"--send-timeout", std::to_string(kDownloadSendTimeoutS)}, kLowNofile);
	std::vector<int> downloads;
	for (int i = 0; i < kDownloads; i++) {
		int fd = ConnectLoopback(daemon_.port(), 10000, kSmallWindow);
		ASSERT_GE(fd, 0);
		SendAll(fd, Get("/big"));
		downloads.push_back(fd);
	}
	int held = 0;
	EXPECT_TRUE(WaitUntil([&] { return (held = daemon_.OpenDescriptorCount()) >=
					  static_cast<int>(kLowNofile) - kDescriptorsFree; },
			      kRestBoundMs))
		<< "descriptors held: " << held;
	int64_t stalled = TicksOverWindow(serving_); // the first deadline is seconds away
	EXPECT_LE(stalled, static_cast<int64_t>(kIdleTicksMax)) << "busy while every send stalls";
	// Until the send deadlines have ended downloads (a /metrics that finds no slot is
	// asked again), then /health within the bound: the stall served nothing for
	// about 15 s after that.
	EXPECT_GT(CounterOnceAbove(daemon_.port(), "timeouts_send", 0), 0u)
		<< "no send deadline passed";
	EXPECT_EQ(ServesProblem(daemon_.port(), kDownloadsServeBoundMs), "");
	EXPECT_EQ(CounterNow(daemon_.port(), "responses_404"), 0)
		<< "downloads of a file that exists answered 404";
	for (int fd : downloads)
		close(fd);
	ExpectBackAtRest(daemon_, serving_, baseline_, "slow downloads");
}

constexpr int kStopHeads = 4;
constexpr int kStopDownloads = 4;
constexpr int kDrainTimeoutExit = 12; // BEHAVIOUR 11: --drain-timeout passed

// BEHAVIOUR 11: a stop that finds work in flight when the drain ends (unfinished heads of
// fresh connections, downloads nobody reads, an idle crowd queued beyond a full table)
// cancels it and exits 12 within the drain: exit 12 is the daemon's word that the drain's
// deadline ended it, the stop lasts the drain at least, and the exit follows within
// ExitSlackMs (under an emulator, a bound that only ends a hang).
TEST_F(HostileTest, StopWithWorkInFlightEndsWithinTheDrain)
{
	REQUIRE_FEATURE("stop");
	REQUIRE_FEATURE("files");
	FileRoot root({{"big", Random(kDownloadBytes, 33)}});
	ASSERT_NE(root.dir(), "");
	Start({"--max-connections", std::to_string(kHeadTable), "--root", root.dir(),
	       "--cache-bytes", "0"},
	      {"--header-timeout", "60", "--send-timeout", "60"});
	std::vector<int> held;
	for (int i = 0; i < kStopHeads + kStopDownloads; i++) {
		int fd = ConnectLoopback(daemon_.port(), 10000, kSmallWindow);
		ASSERT_GE(fd, 0);
		ASSERT_TRUE(SendAll(fd, i < kStopHeads ? std::string(kUnfinishedHead) : Get("/big")));
		held.push_back(fd);
	}
	WaitForConnections(kStopHeads + kStopDownloads);
	Crowd idle(daemon_.port(), kIdleCrowd, kCrowdRunMs, [](int) { return ""; });
	WaitForConnections(kHeadTable); // the crowd fills the table
	int64_t start = NowMs();
	ASSERT_EQ(kill(daemon_.pid(), SIGTERM), 0);
	int status = 0;
	ASSERT_TRUE(daemon_.WaitExit(kDrainSeconds * 1000 + ExitSlackMs(), &status))
		<< "no exit within the drain after SIGTERM";
	int64_t took = NowMs() - start;
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == kDrainTimeoutExit)
		<< "status " << status << " after " << took << " ms";
	EXPECT_GE(took, kDrainSeconds * 1000 - kClockGrainMs) << "the drain was cut short";
	EXPECT_LE(took, kDrainSeconds * 1000 + ExitSlackMs());
	for (int fd : held)
		close(fd);
}

constexpr uint32_t kFuzzSeed = 33;
constexpr int kFuzzSteps = 400;
constexpr int kFuzzTable = 8;
constexpr int kFuzzOpenMax = 24; // connections held at once: three tables

// A bounded random walk under a small table: open, half-send, send whole, reset, close.
TEST_F(HostileTest, RandomOpensHalfSendsResetsAndCloses)
{
	Start({"--max-connections", std::to_string(kFuzzTable)}, {"--header-timeout", "2"});
	std::mt19937 rng(kFuzzSeed);
	std::vector<int> open;
	const std::string whole = Get("/health");
	for (int step = 0; step < kFuzzSteps; step++) {
		uint32_t action = rng() % 5;
		if (open.empty() || (action == 0 && open.size() < static_cast<size_t>(kFuzzOpenMax))) {
			int fd = OpenNonBlocking(daemon_.port());
			if (fd >= 0)
				open.push_back(fd);
			continue;
		}
		size_t pick = rng() % open.size();
		int fd = open[pick];
		if (action == 1)
			send(fd, whole.data(), 1 + rng() % (whole.size() - 1), MSG_NOSIGNAL);
		else if (action == 2)
			send(fd, whole.data(), whole.size(), MSG_NOSIGNAL);
		if (action < 3)
			continue;
		if (action == 3)
			Reset(fd);
		else
			close(fd);
		open.erase(open.begin() + static_cast<long>(pick));
	}
	for (int fd : open)
		Reset(fd);
	ExpectBackAtRest(daemon_, serving_, baseline_,
			 "random walk, seed " + std::to_string(kFuzzSeed) + ", " +
				 std::to_string(kFuzzSteps) + " steps");
}

} // namespace
} // namespace wire
