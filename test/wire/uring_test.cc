// The uring feature (test/wire/README.md): the tier serves through an io_uring ring and
// not epoll, far fewer syscalls than requests on keep-alive connections, more
// connections than the ring's SQ entries all served at once, and exit 11 with one stderr
// line when the kernel refuses io_uring (BEHAVIOUR 3).
#include <stdio.h>
#include <unistd.h>

#include <dirent.h>

#include <memory>
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kExitUring = 11;
constexpr int kRunTimeoutMs = 5000;
constexpr int kSqEntries = 64; // URING_SQ_ENTRIES in common/backend_uring.h

// What each of pid's descriptors refers to, as /proc/PID/fd's links say.
std::vector<std::string> DescriptorTargets(pid_t pid)
{
	std::vector<std::string> targets;
	std::string dir = "/proc/" + std::to_string(pid) + "/fd";
	DIR *d = opendir(dir.c_str());
	if (!d)
		return targets;
	while (struct dirent *e = readdir(d)) {
		char buf[256];
		ssize_t n = readlink((dir + "/" + e->d_name).c_str(), buf, sizeof(buf));
		if (n > 0)
			targets.emplace_back(buf, static_cast<size_t>(n));
	}
	closedir(d);
	return targets;
}

int CountOf(const std::vector<std::string> &all, const std::string &want)
{
	int n = 0;
	for (const std::string &s : all)
		n += s == want;
	return n;
}

TEST(UringTest, ServesThroughARingNotEpoll)
{
	REQUIRE_FEATURE("uring");
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{});
	ASSERT_EQ(LivenessProblem(daemon.port()), "");
	std::vector<std::string> targets = DescriptorTargets(daemon.pid());
	EXPECT_EQ(CountOf(targets, "anon_inode:[io_uring]"), 1);
	EXPECT_EQ(CountOf(targets, "anon_inode:[eventpoll]"), 0);
}

// 1,000 keep-alive requests on 50 connections in lock-step rounds (a request on every
// connection, then every answer). A readiness backend pays at least a read and a write
// per request here, 2,000 syscalls; the ring submits the round's sends and receives
// together and reaps their completions in batches. The figure is printed and recorded.
TEST(UringTest, ThousandKeepAliveRequestsTakeFarFewerSyscalls)
{
	REQUIRE_FEATURE("uring");
	constexpr int kConnections = 50;
	constexpr int kRounds = 20;
	constexpr uint64_t kRequests = kConnections * kRounds;
	constexpr uint64_t kMaxSyscalls = kRequests; // under one per request; epoll: over two
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{});
	std::vector<std::unique_ptr<Client>> clients;
	std::string answer;
	for (int i = 0; i < kConnections; i++) { // connected and warm before the window
		clients.push_back(std::make_unique<Client>(daemon.port()));
		ASSERT_TRUE(clients.back()->connected());
		ASSERT_TRUE(clients.back()->Send(Get("/")));
		std::string got = clients.back()->TakeResponse();
		ASSERT_NE(got, "");
		if (answer.empty())
			answer = got;
		ASSERT_EQ(got, answer);
	}
	std::map<std::string, uint64_t> before = FetchMetrics(daemon.port());
	for (int round = 0; round < kRounds; round++) {
		for (auto &c : clients)
			ASSERT_TRUE(c->Send(Get("/")));
		for (auto &c : clients)
			ASSERT_EQ(c->Take(answer.size()), answer) << "round " << round;
	}
	std::map<std::string, uint64_t> after = FetchMetrics(daemon.port());
	// Both scrapes count themselves: the second one's request is inside the window.
	EXPECT_EQ(after["requests_total"] - before["requests_total"], kRequests + 1);
	uint64_t syscalls = after["syscalls_total"] - before["syscalls_total"];
	RecordProperty("syscalls_per_lockstep_request",
		       std::to_string(static_cast<double>(syscalls) / kRequests));
	printf("uring: %llu syscalls for %llu keep-alive requests\n",
	       static_cast<unsigned long long>(syscalls), static_cast<unsigned long long>(kRequests));
	EXPECT_LT(syscalls, kMaxSyscalls);
}

// More connections than the SQ has entries, connected first, then all sending at once:
// every completion batch asks for more SQEs than the SQ holds, so the backend must submit
// early; every connection is answered.
TEST(UringTest, MoreConnectionsThanSqEntriesAllServed)
{
	REQUIRE_FEATURE("uring");
	constexpr int kConnections = 5 * kSqEntries;
	RaiseOwnNofileLimit(kConnections + 64);
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{});
	std::map<std::string, uint64_t> before = FetchMetrics(daemon.port());
	std::vector<int> fds;
	for (int i = 0; i < kConnections; i++) {
		int fd = ConnectLoopback(daemon.port());
		ASSERT_GE(fd, 0) << "connection " << i;
		fds.push_back(fd);
	}
	const std::string request = GetClose("/");
	for (int fd : fds)
		ASSERT_TRUE(SendAll(fd, request));
	int served = 0;
	for (int fd : fds) {
		Received r = ReadUntilClose(fd);
		HttpResponse resp = ParseResponse(r.bytes);
		served += r.eof && resp.parsed && resp.status == 200 && resp.body == "apollo says hello";
		close(fd);
	}
	EXPECT_EQ(served, kConnections);
	std::map<std::string, uint64_t> after = FetchMetrics(daemon.port());
	EXPECT_EQ(after["responses_200"] - before["responses_200"],
		  static_cast<uint64_t>(kConnections) + 1);
	EXPECT_EQ(LivenessProblem(daemon.port()), "");
}

struct RefusedCase {
	std::string errno_name; // what the seccomp filter makes io_uring_setup return
	int errno_value;
};

void PrintTo(const RefusedCase &c, std::ostream *os) { *os << c.errno_name; }

class UringRefusedTest : public testing::TestWithParam<RefusedCase> {};

// A kernel without io_uring (ENOSYS) or refusing it (EPERM, kernel.io_uring_disabled=2):
// exit 11 and one line on stderr, made so by a seccomp filter around this one process.
TEST_P(UringRefusedTest, Exits11WithOneLine)
{
	REQUIRE_FEATURE("uring");
	const RefusedCase &c = GetParam();
	CommandResult r = RunCommand({RunfilePath("test/wire/seccomp_refuse"), "io_uring_setup",
				      c.errno_name, DaemonPath(), "--listen", "127.0.0.1:0"},
				     "", kRunTimeoutMs);
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, kExitUring) << r.err;
	EXPECT_EQ(r.err, "apollod: io_uring unavailable: io_uring_setup (errno " +
				 std::to_string(c.errno_value) + ")\n");
}

// Under qemu-user (bazel test --config=aarch64) io_uring does not exist: the aarch64 uring
// daemon must say so and exit 11, the same refusal a kernel without io_uring gets.
TEST(UringEmulatedTest, RefusedUnderQemuExits11)
{
	REQUIRE_FEATURE("uring_emulated");
	std::vector<std::string> argv = DaemonCommand();
	argv.insert(argv.end(), {"--listen", "127.0.0.1:0"});
	CommandResult r = RunCommand(argv, "", kRunTimeoutMs);
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, kExitUring) << r.err;
	EXPECT_EQ(r.err, "apollod: io_uring unavailable: io_uring_setup (errno 38)\n");
}

INSTANTIATE_TEST_SUITE_P(Refusals, UringRefusedTest,
			 testing::Values(RefusedCase{"ENOSYS", 38}, RefusedCase{"EPERM", 1}),
			 [](const testing::TestParamInfo<RefusedCase> &param_info) {
				 return param_info.param.errno_name;
			 });

} // namespace
} // namespace wire
