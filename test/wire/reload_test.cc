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

#include "test/wire/reload_daemon.h"
#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kLoadMs = 2000;      // the load lasts this long in all
constexpr int kHupAfterMs = 700;   // the HUP comes this far into it
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
	std::thread t2(CloseLoad, d.port(), stop_at, &closing, nullptr);
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
