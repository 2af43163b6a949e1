// SIGHUP reload (feature `stop` with `files`, BEHAVIOUR 17): a new process image takes over
// the very listening sockets and serves a new snapshot of --root while the old one
// drains; a new image that cannot start leaves the old one serving, with one stderr line.
// Each case runs with one process and with --workers 2.
//
// The daemon is started here rather than by Daemon (wire_harness.h): its stderr goes to a
// file the test reads, and this process is made a child subreaper (prctl(2)) so that the
// new image, orphaned when the old one exits, is reparented to us and its exit status can
// be read with waitpid.
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
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kLoadMs = 2000;      // the load lasts this long in all
constexpr int kHupAfterMs = 700;   // the HUP comes this far into it
constexpr int kLineWaitMs = 10000; // a reload's stderr line must come within this
constexpr int kExitWaitMs = 10000;

// Reads a whole file ("" when it cannot be read).
std::string Slurp(const std::string &path)
{
	std::ifstream in(path);
	std::stringstream s;
	s << in.rdbuf();
	return s.str();
}

void WriteFile(const std::string &path, const std::string &text)
{
	std::ofstream out(path);
	out << text;
}

// A daemon started with stdout and stderr in files of a fresh directory, --root in it.
class ReloadDaemon {
public:
	~ReloadDaemon()
	{
		for (pid_t p : {pid_, new_pid_})
			if (p > 0 && kill(p, SIGKILL) == 0)
				waitpid(p, nullptr, 0);
		prctl(PR_SET_CHILD_SUBREAPER, 0);
		if (!dir_.empty())
			RunCommand({"rm", "-rf", dir_}, "", 5000);
	}

	// Makes the directory with root/a.txt, starts the daemon with extra_args on a fixed
	// port and waits until it accepts. Returns "" or what went wrong.
	std::string Start(const std::vector<std::string> &extra_args)
	{
		char name[] = "/tmp/apollod-reload-XXXXXX";
		if (mkdtemp(name) == nullptr)
			return "mkdtemp failed";
		dir_ = name;
		if (mkdir(root().c_str(), 0755) != 0)
			return "mkdir root failed";
		WriteFile(root() + "/a.txt", "a\n");
		if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
			return "PR_SET_CHILD_SUBREAPER failed";
		port_ = RecentlyFreePort();
		std::vector<std::string> argv = DaemonCommand();
		for (const char *w : {"--listen"})
			argv.push_back(w);
		argv.push_back("127.0.0.1:" + std::to_string(port_));
		argv.insert(argv.end(), {"--root", root()});
		argv.insert(argv.end(), extra_args.begin(), extra_args.end());
		pid_ = Spawn(argv);
		if (pid_ < 0)
			return "fork failed";
		int fd = -1; // refused until the daemon listens
		for (int64_t end = NowMs() + 10000; fd < 0 && NowMs() < end; SleepMs(20))
			if (waitpid(pid_, nullptr, WNOHANG) == 0)
				fd = ConnectLoopback(port_, 1000);
		if (fd < 0)
			return "the daemon did not accept on port " + std::to_string(port_) +
			       "; stderr: " + Err();
		close(fd);
		return "";
	}

	std::string root() const { return dir_ + "/root"; }
	std::string Err() const { return Slurp(dir_ + "/err"); }
	int port() const { return port_; }
	pid_t pid() const { return pid_; }
	pid_t new_pid() const { return new_pid_; }

	// Waits until stderr holds a line matching re (its first match). Returns the match, or
	// an empty result after kLineWaitMs.
	std::smatch WaitForLine(const std::regex &re)
	{
		static std::string text; // the match refers into it
		int64_t deadline = NowMs() + kLineWaitMs;
		std::smatch m;
		do {
			text = Err();
			if (std::regex_search(text, m, re))
				return m;
			SleepMs(20);
		} while (NowMs() < deadline);
		return std::smatch();
	}

	// Waits for the "reloaded" line and notes the new image's pid. Returns it, or -1.
	pid_t WaitForReloaded()
	{
		std::smatch m = WaitForLine(std::regex(
			"apollod: reloaded: process ([0-9]+) serves the new snapshot; this one drains\n"));
		new_pid_ = m.empty() ? -1 : (pid_t)std::stoi(m[1].str());
		return new_pid_;
	}

	// Waits for pid (ours, or reparented to us) to exit. Returns its wait status, or -1.
	static int WaitExit(pid_t pid)
	{
		int64_t deadline = NowMs() + kExitWaitMs;
		int status;
		while (NowMs() < deadline) {
			pid_t r = waitpid(pid, &status, WNOHANG);
			if (r == pid)
				return status;
			if (r < 0)
				return -1;
			SleepMs(10);
		}
		return -1;
	}

private:
	// Forks and execs argv with stdout and stderr in files; nothing else open.
	pid_t Spawn(const std::vector<std::string> &argv)
	{
		std::string out = dir_ + "/out", err = dir_ + "/err";
		std::vector<char *> args = ArgvOf(argv);
		pid_t pid = fork();
		if (pid != 0)
			return pid;
		int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(o, STDOUT_FILENO);
		dup2(e, STDERR_FILENO);
		close_range(3, ~0u, 0);
		execvp(args[0], args.data());
		_exit(127);
	}

	std::string dir_;
	int port_ = 0;
	pid_t pid_ = -1;
	pid_t new_pid_ = -1;
};

// What a client saw during the load.
struct LoadResult {
	std::atomic<int> ok{0};
	std::atomic<int> failed{0};
	std::atomic<int> retried{0}; // idle keep-alive connections the daemon closed
	std::string first_failure;   // written by the thread that failed first
	std::atomic<bool> failure_noted{false};

	void Fail(const std::string &why)
	{
		if (failed++ == 0 && !failure_noted.exchange(true))
			first_failure = why;
	}
};

const std::string kBodyA = "a\n";

// Whether bytes begin with one complete 200 answer carrying /a.txt's body; *used is its
// length. A response without the whole body yet is "incomplete" (false, *used = 0).
bool TakeResponse(const std::string &bytes, size_t *used)
{
	*used = 0;
	size_t end = ResponseEnd(bytes, 0, false);
	if (end == std::string::npos || end > bytes.size())
		return false;
	HttpResponse r = ParseResponse(bytes.substr(0, end));
	*used = end;
	return r.parsed && r.status == 200 && r.body == kBodyA;
}

// One request per new connection ("Connection: close") until stop_at_ms. Anything short of
// a whole 200 fails: a refused or timed-out connection, a partial answer, and also an end
// of input or a reset before a single byte of the answer (a new connection's request is
// never one the daemon may drop, reload or not: BEHAVIOUR 11, 17).
void CloseLoad(int port, int64_t stop_at_ms, LoadResult *result)
{
	while (NowMs() < stop_at_ms) {
		Received r = Roundtrip(port, GetClose("/a.txt"));
		size_t used;
		if (TakeResponse(r.bytes, &used) && !r.reset)
			result->ok++;
		else
			result->Fail("close client: got " + std::to_string(r.bytes.size()) +
				     " bytes, eof " + std::to_string(r.eof) + ", reset " +
				     std::to_string(r.reset) + ", timed out " +
				     std::to_string(r.timed_out) + " at " +
				     std::to_string(NowMs()) + " ms: " + r.bytes);
	}
}

// Reads one response on fd into *buf. Returns true with it removed from *buf, or false
// at end of input, a reset or after 5 s (whatever arrived stays in *buf).
bool ReadOneResponse(int fd, std::string *buf)
{
	int64_t deadline = NowMs() + 5000;
	for (;;) {
		size_t used;
		bool good = TakeResponse(*buf, &used);
		if (used) {
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

// Requests on one persistent connection until stop_at_ms. A persistent connection the
// daemon closed while it was idle, before a single byte of the next answer, is one a
// client reopens and asks again (RFC 9112 9.3.1: the request was never processed); that
// is counted as retried. Anything else short of a whole 200 is a failure.
void KeepAliveLoad(int port, int64_t stop_at_ms, LoadResult *result)
{
	int fd = -1;
	bool fresh = true;
	while (NowMs() < stop_at_ms) {
		if (fd < 0) {
			fd = ConnectLoopback(port, 5000);
			fresh = true;
			struct timeval limit = {5, 0}; // every read bounded (ReadOneResponse)
			if (fd >= 0)
				setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
			if (fd < 0) {
				result->Fail("keep-alive client: connect failed");
				return;
			}
		}
		std::string buf;
		bool sent = SendAll(fd, Get("/a.txt"));
		if (sent && ReadOneResponse(fd, &buf)) {
			result->ok++;
			fresh = false;
			continue;
		}
		close(fd);
		fd = -1;
		if (!fresh && buf.empty())
			result->retried++;
		else
			result->Fail("keep-alive client: got " + std::to_string(buf.size()) +
				     " bytes: " + buf);
	}
	if (fd >= 0)
		close(fd);
}

int StatusOf(int port, const std::string &target)
{
	Received r = Roundtrip(port, GetClose(target));
	return ParseResponse(r.bytes).status;
}

// The descriptors >= 3 of pid that are pipes: a reload must leave none in the new image.
int PipeDescriptors(pid_t pid)
{
	CommandResult r = RunCommand({"ls", "-l", "/proc/" + std::to_string(pid) + "/fd"}, "",
				     5000);
	int pipes = 0;
	std::istringstream in(r.out);
	std::string line;
	std::regex fd_re(" ([0-9]+) -> pipe:");
	while (std::getline(in, line)) {
		std::smatch m;
		if (std::regex_search(line, m, fd_re) && std::stoi(m[1].str()) >= 3)
			pipes++;
	}
	return pipes;
}

class ReloadTest : public testing::TestWithParam<int> {
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
		if (GetParam() == 1)
			return {};
		return {"--workers", std::to_string(GetParam())};
	}
};

INSTANTIATE_TEST_SUITE_P(Processes, ReloadTest, testing::Values(1, 2),
			 [](const testing::TestParamInfo<int> &p) {
				 return p.param == 1 ? std::string("Single")
							: "Workers" + std::to_string(p.param);
			 });

// A file added before the HUP is 404 before and 200 after; a keep-alive and a close client
// running across the HUP see no failed request; the new image holds no stray pipe; the old
// one exits 0 after draining and the new one stops gracefully with 0 on SIGTERM.
TEST_P(ReloadTest, NewSnapshotUnderLoadWithoutFailedRequests)
{
	ReloadDaemon d;
	std::string problem = d.Start(Args());
	ASSERT_EQ(problem, "");
	ASSERT_EQ(StatusOf(d.port(), "/b.txt"), 404);
	WriteFile(d.root() + "/b.txt", "b\n");
	EXPECT_EQ(StatusOf(d.port(), "/b.txt"), 404) << "served before the HUP";

	LoadResult keep, closing;
	int64_t stop_at = NowMs() + kLoadMs;
	std::thread t1(KeepAliveLoad, d.port(), stop_at, &keep);
	std::thread t2(CloseLoad, d.port(), stop_at, &closing);
	SleepMs(kHupAfterMs);
	int64_t hup_at = NowMs();
	ASSERT_EQ(kill(d.pid(), SIGHUP), 0);
	pid_t new_pid = d.WaitForReloaded();
	t1.join();
	t2.join();
	ASSERT_GT(new_pid, 0) << "no 'reloaded' line; stderr: " << d.Err();
	EXPECT_EQ(keep.failed + closing.failed, 0)
		<< keep.first_failure << closing.first_failure << "\nHUP at " << hup_at
		<< " ms\nstderr: " << d.Err();
	EXPECT_GT(keep.ok, 0);
	EXPECT_GT(closing.ok, 0);
	RecordProperty("keepalive_ok", keep.ok);
	RecordProperty("keepalive_retried", keep.retried);
	RecordProperty("close_ok", closing.ok);
	EXPECT_LT(keep.retried, keep.ok)
		<< "most requests had to be asked twice";

	// The old group accepts until its stop has begun: ask once it has exited.
	EXPECT_EQ(ReloadDaemon::WaitExit(d.pid()), 0) << "the old image; stderr: " << d.Err();
	EXPECT_EQ(StatusOf(d.port(), "/b.txt"), 200) << "the new snapshot is not served";
	EXPECT_EQ(PipeDescriptors(new_pid), 0) << "the readiness pipe leaked into the new image";
	ASSERT_EQ(kill(new_pid, SIGTERM), 0);
	EXPECT_EQ(ReloadDaemon::WaitExit(new_pid), 0) << d.Err();
	EXPECT_NE(d.Err().find("apollod: stopped: every response finished\n"), std::string::npos);
}

// A tree the new image refuses (more than FILE_CACHE_DEPTH_MAX levels: root reads any
// file, so an unreadable one would not fail here) leaves the old image serving the old
// snapshot, with the child's exit status on stderr; a later HUP with the tree mended
// reloads.
TEST_P(ReloadTest, BrokenTreeLeavesTheOldOneServing)
{
	ReloadDaemon d;
	std::string problem = d.Start(Args());
	ASSERT_EQ(problem, "");
	std::string deep = d.root();
	for (int level = 1; level <= 9; level++) {
		deep += "/" + std::to_string(level);
		ASSERT_EQ(mkdir(deep.c_str(), 0755), 0);
	}
	WriteFile(d.root() + "/b.txt", "b\n");
	ASSERT_EQ(kill(d.pid(), SIGHUP), 0);
	std::smatch m = d.WaitForLine(
		std::regex("apollod: reload failed: the new process exited with status 9; "
			   "serving on\n"));
	ASSERT_FALSE(m.empty()) << d.Err();
	EXPECT_NE(d.Err().find("more than 8 directory levels"), std::string::npos) << d.Err();
	EXPECT_EQ(waitpid(d.pid(), nullptr, WNOHANG), 0) << "the old image exited";
	EXPECT_EQ(StatusOf(d.port(), "/a.txt"), 200);
	EXPECT_EQ(StatusOf(d.port(), "/b.txt"), 404) << "the old snapshot is still the one";

	ASSERT_EQ(RunCommand({"rm", "-rf", d.root() + "/1"}, "", 5000).exit_code, 0);
	ASSERT_EQ(kill(d.pid(), SIGHUP), 0);
	pid_t new_pid = d.WaitForReloaded();
	ASSERT_GT(new_pid, 0) << d.Err();
	// The old group accepts until its stop has begun: ask once it has exited.
	EXPECT_EQ(ReloadDaemon::WaitExit(d.pid()), 0);
	EXPECT_EQ(StatusOf(d.port(), "/b.txt"), 200);
	ASSERT_EQ(kill(new_pid, SIGTERM), 0);
	EXPECT_EQ(ReloadDaemon::WaitExit(new_pid), 0) << d.Err();
}

// With --workers: a HUP sent to one worker directly is ignored (the reload is the
// supervisor's): the worker lives on and the snapshot stays.
TEST_P(ReloadTest, WorkerIgnoresAHupOfItsOwn)
{
	if (GetParam() == 1)
		GTEST_SKIP() << "no workers";
	ReloadDaemon d;
	std::string problem = d.Start(Args());
	ASSERT_EQ(problem, "");
	std::ifstream in("/proc/" + std::to_string(d.pid()) + "/task/" +
			 std::to_string(d.pid()) + "/children");
	pid_t worker = 0;
	ASSERT_TRUE(in >> worker) << "no worker found";
	WriteFile(d.root() + "/b.txt", "b\n");
	ASSERT_EQ(kill(worker, SIGHUP), 0);
	SleepMs(200);
	EXPECT_EQ(kill(worker, 0), 0) << "the worker died of its HUP";
	EXPECT_EQ(StatusOf(d.port(), "/b.txt"), 404);
	EXPECT_EQ(d.Err().find("reload"), std::string::npos) << d.Err();
}

} // namespace
} // namespace wire
