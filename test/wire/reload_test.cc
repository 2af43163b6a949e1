// SIGHUP reload (feature `stop` with `files`, BEHAVIOUR 11, 17): the process started is a
// resident supervisor; a reload starts a new serving generation on the very listening
// sockets, which serves a new snapshot of --root while the old one drains; a generation
// that cannot start leaves the old one serving, with one stderr line; the supervisor's
// pid stays the daemon's, SIGTERM to it stops everything, and its death takes every
// generation and worker with it. Each case runs with one process and with --workers 2.
//
// The daemon is started here rather than by Daemon (wire_harness.h): its stderr goes to a
// file the test reads, and this process is made a child subreaper (prctl(2)) so that a
// generation orphaned by a killed supervisor is reparented to us and can be reaped.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "test/wire/reload_daemon.h"
#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kReloads = 5;        // reloads under one load
constexpr int kAnswersEach = 20;   // each kind of client is answered this many times more
				   // before the first HUP, between reloads and after the last
constexpr int kKeepAliveClients = 2;
constexpr int kGoneWithinMs = 5000; // processes that must end do within this

// Reads one response on fd into *buf. Returns true with it removed from *buf (its head in
// *head), or false at end of input, a reset or after 5 s (what arrived stays in *buf).
bool ReadOneResponse(int fd, std::string *buf, std::string *head)
{
	int64_t deadline = NowMs() + 5000;
	for (;;) {
		size_t used;
		bool good = TakeResponse(*buf, &used);
		if (used) {
			*head = buf->substr(0, buf->find("\r\n\r\n"));
			buf->erase(0, used);
			return good;
		}
		if (NowMs() >= deadline)
			return false;
		char chunk[4096];
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n <= 0)
			return false;
		buf->append(chunk, (size_t)n);
	}
}

// Requests on persistent connections until *stop, as a client without retries: every
// request sent must be answered with a whole 200. A response that says Connection: close
// ends the connection (the next request goes on a new one); anything else short of a
// 200 (an end of input or a reset where an answer was due) is a failure.
void KeepAliveLoad(int port, const std::atomic<bool> *stop, LoadResult *result)
{
	int fd = -1;
	while (!*stop) {
		if (fd < 0) {
			fd = ConnectLoopback(port, 5000);
			struct timeval limit = {5, 0}; // every read bounded (ReadOneResponse)
			if (fd >= 0)
				setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
			if (fd < 0) {
				result->Fail("keep-alive client: connect failed");
				return;
			}
		}
		std::string buf, head;
		bool sent = SendAll(fd, Get("/a.txt"));
		if (sent && ReadOneResponse(fd, &buf, &head)) {
			result->ok++;
			if (head.find("\r\nConnection: close") != std::string::npos) {
				close(fd);
				fd = -1;
			}
			continue;
		}
		close(fd);
		fd = -1;
		result->Fail("keep-alive client: got " + std::to_string(buf.size()) +
			     " bytes at " + std::to_string(NowMs()) + " ms: " + buf);
	}
	if (fd >= 0)
		close(fd);
}

// The descriptors of pid (/proc/PID/fd), or -1.
int DescriptorCount(pid_t pid)
{
	CommandResult r = RunCommand({"ls", "/proc/" + std::to_string(pid) + "/fd"}, "", 5000);
	if (!r.ran || r.exit_code != 0)
		return -1;
	int n = 0;
	std::istringstream in(r.out);
	for (std::string word; in >> word;)
		n++;
	return n;
}

// Waits until none of pids runs (zombies reparented to us are reaped). Returns those
// still running after kGoneWithinMs.
std::vector<pid_t> WaitGone(const std::vector<pid_t> &pids)
{
	std::vector<pid_t> left = pids;
	for (int64_t end = NowMs() + kGoneWithinMs; !left.empty() && NowMs() < end;) {
		while (waitpid(-1, nullptr, WNOHANG) > 0) {
		}
		std::vector<pid_t> still;
		for (pid_t p : left)
			if (ProcessRuns(p))
				still.push_back(p);
		left = still;
		if (!left.empty())
			SleepMs(10);
	}
	return left;
}

// Waits until the keep-alive clients and the close client have each had kAnswersEach
// answers more than when called: the load runs across what the test does next. False
// after kStateWaitMs (a client that stopped being answered fails the test by its count).
bool LoadMovesOn(const LoadResult &keep, const LoadResult &closing)
{
	int keep_from = keep.ok, closing_from = closing.ok;
	return WaitUntil([&] {
		return keep.ok >= keep_from + kAnswersEach &&
		       closing.ok >= closing_from + kAnswersEach;
	});
}

// The process of generation `generation` (it, or one of its workers) that holds the
// daemon's end of the connection whose client end is fd, or -1.
pid_t HolderOf(pid_t generation, int fd)
{
	std::vector<pid_t> all = Descendants(generation);
	all.push_back(generation);
	unsigned long inode = ServerEndOf(fd).inode;
	for (pid_t p : all)
		if (HoldsSocket(p, inode))
			return p;
	return -1;
}

// Every process that ever served, by pid (the generations and their workers seen).
void Note(std::set<pid_t> *seen, pid_t supervisor)
{
	for (pid_t p : Descendants(supervisor))
		seen->insert(p);
}

constexpr int kBrokenFiles = 20; // files a broken tree adds: past --max-files 16

class ReloadTest : public ProcessesTest {
protected:
	void SetUp() override
	{
		if (!HasFeature("stop") || !HasFeature("files"))
			GTEST_SKIP() << "SIGHUP reload belongs to the routed tiers with --root";
		if (!DaemonLauncher().empty())
			GTEST_SKIP() << "under an emulator the new image would be the emulator";
	}
	std::vector<std::string> Args() const
	{
		return WithWorkers({});
	}
	// Args() with room for the first tree, not for kBrokenFiles more: a tree the new
	// generation refuses (BEHAVIOUR 10.3: exit 9).
	std::vector<std::string> Limited() const
	{
		return WithWorkers({"--max-files", "16"});
	}
};

INSTANTIATE_TEST_SUITE_P(Processes, ReloadTest, testing::Values(1, 2),
			 ProcessesName);

// kReloads HUPs under a load of keep-alive clients without retries and a close client:
// no request fails; the daemon's pid is the same throughout and counts every reload; a
// file added before the first HUP is 404 before and 200 after; the last generation holds
// as many descriptors as the first (nothing of a reload leaks into it); SIGTERM to the
// daemon stops it with 0 and no process that ever served is left.
TEST_P(ReloadTest, FiveReloadsUnderLoadFailNoRequestAndKeepThePid)
{
	ReloadDaemon d;
	std::string problem = d.Start(Args());
	ASSERT_EQ(problem, "");
	pid_t first = d.generation();
	ASSERT_GT(first, 0) << "no serving generation under the supervisor";
	// Start's probe connection closed (on uring, asynchronously)
	ASSERT_TRUE(WaitUntil([&] { return ConnectionsHeld(first) == 0; }))
		<< ConnectionsHeld(first) << " connections still held";
	// less the snapshot's arenas: a reload that reads b.txt adds one (BEHAVIOUR 10.17)
	int first_fds = DescriptorCount(first) - (int)Arenas(first).size();
	ASSERT_EQ(StatusOf(d.port(), "/b.txt"), 404);
	WriteFile(d.root() + "/b.txt", "b\n");
	EXPECT_EQ(StatusOf(d.port(), "/b.txt"), 404) << "served before the HUP";

	std::set<pid_t> seen;
	Note(&seen, d.pid());
	LoadResult keep, closing;
	std::atomic<bool> stop{false};
	std::vector<std::thread> clients;
	for (int i = 0; i < kKeepAliveClients; i++)
		clients.emplace_back(KeepAliveLoad, d.port(), &stop, &keep);
	clients.emplace_back(CloseLoad, d.port(), NowMs() + 60000, &closing, &stop);
	EXPECT_TRUE(LoadMovesOn(keep, closing)) << "the load is not answered";
	pid_t new_pid = -1;
	for (int i = 1; i <= kReloads && (i == 1 || new_pid > 0); i++) {
		ASSERT_EQ(kill(d.pid(), SIGHUP), 0) << "the daemon's pid is gone at reload " << i;
		new_pid = d.WaitForReloaded(i);
		Note(&seen, d.pid());
		EXPECT_TRUE(LoadMovesOn(keep, closing)) << "no answers after reload " << i;
	}
	stop = true;
	for (std::thread &t : clients)
		t.join();
	ASSERT_GT(new_pid, 0) << "a 'reloaded' line is missing; stderr: " << d.Err();
	EXPECT_EQ(keep.failed + closing.failed, 0)
		<< keep.first_failure << closing.first_failure << "\nstderr: " << d.Err();
	EXPECT_GT(keep.ok, 0);
	EXPECT_GT(closing.ok, 0);
	RecordProperty("keepalive_ok", keep.ok);
	RecordProperty("close_ok", closing.ok);

	EXPECT_EQ(waitpid(d.pid(), nullptr, WNOHANG), 0) << "the daemon's pid exited";
	EXPECT_EQ(d.generation(), new_pid) << "the last reload's generation serves alone";
	EXPECT_EQ(FetchMetrics(d.port())["reloads"], (uint64_t)kReloads);
	EXPECT_EQ(StatusOf(d.port(), "/b.txt"), 200) << "the new snapshot is not served";
	if (GetParam() == 1) { // workers hold their own set (one listener each)
		// the clients' last connections closed
		EXPECT_TRUE(WaitUntil([&] { return ConnectionsHeld(new_pid) == 0; }))
			<< ConnectionsHeld(new_pid) << " connections still held";
		EXPECT_EQ(DescriptorCount(new_pid) - (int)Arenas(new_pid).size(), first_fds)
			<< "a reload leaked a descriptor";
	}
	Note(&seen, d.pid());
	int status = d.Stop();
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << d.Err();
	EXPECT_EQ(WaitGone(std::vector<pid_t>(seen.begin(), seen.end())), std::vector<pid_t>())
		<< "served and still running after the stop";
	EXPECT_NE(d.Err().find("apollod: stopped: every response finished\n"), std::string::npos);
}

// A tree the new generation refuses (more entries than --max-files: an unreadable or
// too deep entry is only skipped, BEHAVIOUR 10.3) leaves the old one serving the old
// snapshot, with the child's exit status on stderr; a later HUP with the tree mended
// reloads, and the old generation then drains and exits.
TEST_P(ReloadTest, BrokenTreeLeavesTheOldOneServing)
{
	ReloadDaemon d;
	std::string problem = d.Start(Limited());
	ASSERT_EQ(problem, "");
	pid_t serving = d.generation();
	ASSERT_GT(serving, 0);
	ASSERT_EQ(mkdir((d.root() + "/1").c_str(), 0755), 0);
	for (int i = 0; i < kBrokenFiles; i++) // past Limited()'s --max-files
		WriteFile(d.root() + "/1/" + std::to_string(i), "x");
	WriteFile(d.root() + "/b.txt", "b\n");
	ASSERT_EQ(kill(d.pid(), SIGHUP), 0);
	std::smatch m = d.WaitForLine(
		std::regex("apollod: reload failed: the new process exited with status 9; "
			   "serving on\n"));
	ASSERT_FALSE(m.empty()) << d.Err();
	EXPECT_NE(d.Err().find("more files and directories than --max-files"), std::string::npos)
		<< d.Err();
	EXPECT_EQ(d.generation(), serving) << "the old generation stopped serving";
	EXPECT_EQ(StatusOf(d.port(), "/a.txt"), 200);
	EXPECT_EQ(StatusOf(d.port(), "/b.txt"), 404) << "the old snapshot is still the one";

	ASSERT_EQ(RunCommand({"rm", "-rf", d.root() + "/1"}, "", 5000).exit_code, 0);
	ASSERT_EQ(kill(d.pid(), SIGHUP), 0);
	pid_t new_pid = d.WaitForReloaded();
	ASSERT_GT(new_pid, 0) << d.Err();
	EXPECT_EQ(WaitGone({serving}), std::vector<pid_t>()) << "the old generation drains and exits";
	EXPECT_EQ(StatusOf(d.port(), "/b.txt"), 200);
	EXPECT_EQ(d.Stop(), 0) << d.Err();
}

// BEHAVIOUR 17: a SIGHUP that comes before the first generation is ready is kept and done
// once it is. The supervisor holds its signals before it announces, and forks the first
// generation after; the HUP goes the moment the announcement is on stdout, so it usually
// reaches a supervisor that has no generation yet. The witness that it was done: b.txt,
// written after the start-up load, is served by the reload's generation.
TEST_P(ReloadTest, HupBeforeTheFirstGenerationIsReadyReloadsOnceItIs)
{
	ReloadDaemon d;
	d.NoWait();
	ASSERT_EQ(d.Start(Args()), "");
	ASSERT_TRUE(WaitUntil([&] { return d.Out().find(" listening on ") != std::string::npos; },
			      kStateWaitMs, 1))
		<< d.Err();
	WriteFile(d.root() + "/b.txt", "b\n");
	ASSERT_EQ(kill(d.pid(), SIGHUP), 0);
	bool before_any_generation = Descendants(d.pid()).empty();
	RecordProperty("hup_before_any_generation", before_any_generation ? "yes" : "no");
	// (the first generation's workers may take a connection until their drain has begun)
	ASSERT_GT(d.WaitForReloadedAlone(1), 0) << d.Err();
	EXPECT_EQ(StatusOf(d.port(), "/b.txt"), 200);
	EXPECT_EQ(d.Stop(), 0) << d.Err();
}

// With --workers: a HUP sent to one worker directly is ignored (the reload is the
// supervisor's): the worker lives on and the snapshot stays. The witness that the HUP is
// over: the worker ignores SIGHUP and does not block it (/proc/PID/status SigIgn, SigBlk),
// so the kernel discards it when it is sent, and it is not pending afterwards; nothing of
// it is left to reach the supervisor.
TEST_P(ReloadTest, WorkerIgnoresAHupOfItsOwn)
{
	if (GetParam() == 1)
		GTEST_SKIP() << "no workers";
	ReloadDaemon d;
	std::string problem = d.Start(Args());
	ASSERT_EQ(problem, "");
	std::vector<pid_t> workers = WaitForChildren(d.generation(), 2);
	ASSERT_EQ(workers.size(), 2u) << "no worker found";
	pid_t worker = workers[0];
	WriteFile(d.root() + "/b.txt", "b\n");
	const uint64_t hup = 1u << (SIGHUP - 1);
	// (a worker just forked sets this up first thing)
	ASSERT_TRUE(WaitUntil([&] {
		return (SignalMask(worker, "SigIgn") & hup) != 0 &&
		       (SignalMask(worker, "SigBlk") & hup) == 0;
	})) << "the worker does not ignore SIGHUP, or blocks it (it would wait)";
	ASSERT_EQ(kill(worker, SIGHUP), 0);
	EXPECT_TRUE(WaitNonePending(worker, hup)) << "the HUP is still pending";
	EXPECT_EQ(kill(worker, 0), 0) << "the worker died of its HUP";
	EXPECT_EQ(StatusOf(d.port(), "/b.txt"), 404);
	EXPECT_EQ(d.Err().find("reload"), std::string::npos) << d.Err();
}

// A HUP sent to the serving generation (not the supervisor) is passed to the supervisor:
// one reload, the same as a HUP to the daemon.
TEST_P(ReloadTest, HupToTheGenerationReloadsThroughTheSupervisor)
{
	ReloadDaemon d;
	ASSERT_EQ(d.Start(Args()), "");
	WriteFile(d.root() + "/b.txt", "b\n");
	pid_t old = d.generation();
	ASSERT_EQ(kill(old, SIGHUP), 0);
	ASSERT_GT(d.WaitForReloaded(), 0) << d.Err();
	// The old generation's workers may take a connection until their drain has begun.
	EXPECT_EQ(WaitGone({old}), std::vector<pid_t>());
	EXPECT_EQ(StatusOf(d.port(), "/b.txt"), 200);
	EXPECT_EQ(d.Stop(), 0) << d.Err();
}

// While the old generation drains, a keep-alive connection it answered before the reload
// is not closed between requests: its next request is answered, with Connection: close,
// and the connection then ends. One that stays silent is closed at the drain's end
// (--drain-timeout 1), and the old generation exits.
TEST_P(ReloadTest, IdleKeepAliveConnectionGetsOneMoreAnswer)
{
	ReloadDaemon d;
	std::vector<std::string> args = Args();
	args.insert(args.end(), {"--drain-timeout", "1"});
	ASSERT_EQ(d.Start(args), "");
	pid_t old = d.generation();
	int talking = ConnectLoopback(d.port(), 5000), silent = ConnectLoopback(d.port(), 5000);
	ASSERT_GE(talking, 0);
	ASSERT_GE(silent, 0);
	std::string buf, head;
	for (int fd : {talking, silent}) {
		struct timeval limit = {5, 0};
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
		ASSERT_TRUE(SendAll(fd, Get("/a.txt")));
		ASSERT_TRUE(ReadOneResponse(fd, &buf, &head));
		EXPECT_EQ(head.find("Connection: close"), std::string::npos) << head;
	}
	int64_t hup_at = NowMs(); // the drain cannot begin before this
	ASSERT_EQ(kill(d.pid(), SIGHUP), 0);
	ASSERT_GT(d.WaitForReloaded(), 0) << d.Err();
	// The process serving `talking` has its retire signal: its drain has begun once it has
	// closed its listeners.
	pid_t holder = HolderOf(old, talking);
	ASSERT_GT(holder, 0) << "no process of the old generation holds the connection";
	ASSERT_TRUE(WaitUntil([&] { return !HoldsListener(holder); })) << "the drain never began";
	ASSERT_TRUE(SendAll(talking, Get("/a.txt")));
	ASSERT_TRUE(ReadOneResponse(talking, &buf, &head)) << "the next request failed: " << buf;
	EXPECT_NE(head.find("\r\nConnection: close"), std::string::npos) << head;
	char byte;
	EXPECT_EQ(read(talking, &byte, 1), 0) << "the connection ends after that answer";
	EXPECT_EQ(read(silent, &byte, 1), 0) << "the silent connection is closed";
	// --drain-timeout 1 from a start after hup_at (20 ms: the daemon's clock may be coarse)
	EXPECT_GE(NowMs() - hup_at, 1000 - 20) << "closed before the drain's end";
	close(talking);
	close(silent);
	EXPECT_EQ(WaitGone({old}), std::vector<pid_t>()) << "the old generation exits";
	EXPECT_EQ(d.Stop(), 0) << d.Err();
}

// kill -9 of the supervisor: every generation and worker ends with it (PR_SET_PDEATHSIG)
// and a daemon started again on the same port owns it alone: all its requests are
// answered from its own tree.
TEST_P(ReloadTest, SupervisorKilledTakesEveryProcessAlong)
{
	ReloadDaemon d;
	ASSERT_EQ(d.Start(Args()), "");
	ASSERT_GT(d.generation(), 0);
	if (GetParam() > 1)
		ASSERT_EQ(WaitForChildren(d.generation(), (size_t)GetParam()).size(), (size_t)GetParam());
	std::vector<pid_t> serving = Descendants(d.pid());
	ASSERT_EQ(kill(d.pid(), SIGKILL), 0);
	EXPECT_EQ(ReloadDaemon::WaitExit(d.pid()) & 0x7f, SIGKILL);
	EXPECT_EQ(WaitGone(serving), std::vector<pid_t>()) << "outlived their supervisor";
	// On uring the listener may outlive them a moment: a ring's pending accept holds it
	// until the kernel's worker tears the ring down (BEHAVIOUR 11).
	EXPECT_TRUE(WaitUntil([&] { return !ListenerOn(d.port()).found; }))
		<< "the listener outlived every process";

	ReloadDaemon again;
	ASSERT_EQ(again.Start(Args(), d.port()), "");
	WriteFile(again.root() + "/only-new.txt", "new\n");
	pid_t first = again.generation();
	ASSERT_EQ(kill(again.pid(), SIGHUP), 0);
	ASSERT_GT(again.WaitForReloaded(), 0) << again.Err();
	EXPECT_EQ(WaitGone({first}), std::vector<pid_t>());
	int answered = 0;
	for (int i = 0; i < 40; i++)
		answered += StatusOf(again.port(), "/only-new.txt") == 200;
	EXPECT_EQ(answered, 40) << "requests answered by someone else's files";
	EXPECT_EQ(again.Stop(), 0) << again.Err();
}

// BEHAVIOUR 11 (issue 30): once the old generation's drain has begun (it has closed its
// listener), /health on its idle keep-alive connection gets the 503 with Connection:
// close, and a new connection reaches the new generation, which says 200.
TEST(ReloadHealthTest, HealthSays503InTheOldGenerationsDrain)
{
	if (!HasFeature("stop") || !HasFeature("files"))
		GTEST_SKIP() << "SIGHUP reload belongs to the routed tiers with --root";
	if (!DaemonLauncher().empty())
		GTEST_SKIP() << "under an emulator the new image would be the emulator";
	ReloadDaemon d;
	ASSERT_EQ(d.Start({"--drain-timeout", "30"}), "");
	pid_t old = d.generation();
	ASSERT_GT(old, 0);
	int kept = ConnectLoopback(d.port(), 5000);
	ASSERT_GE(kept, 0);
	std::string buf, head;
	ASSERT_TRUE(SendAll(kept, Get("/a.txt")));
	ASSERT_TRUE(ReadOneResponse(kept, &buf, &head)) << buf; // a whole 200, kept alive
	int old_fds = DescriptorCount(old);
	ASSERT_EQ(kill(d.pid(), SIGHUP), 0);
	ASSERT_GT(d.WaitForReloaded(), 0) << d.Err();
	ASSERT_TRUE(WaitUntil([&] { return DescriptorCount(old) < old_fds; }))
		<< "the old generation never closed its listener";
	ASSERT_TRUE(SendAll(kept, Get("/health")));
	Received r = ReadUntilClose(kept, kExitWaitMs);
	close(kept);
	EXPECT_EQ(r.bytes, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; "
			   "charset=utf-8\r\nContent-Length: 9\r\nConnection: close\r\n\r\n"
			   "draining\n");
	EXPECT_TRUE(r.eof);
	EXPECT_EQ(LivenessProblem(d.port()), "") << "the new generation answers /health";
	EXPECT_EQ(d.Stop(), 0) << d.Err();
}

} // namespace
} // namespace wire
