// Fatal start-up errors over the wire (the routed tiers, BEHAVIOUR 3 "Errors"): each one
// ends with one stderr line naming the step, the address or path and the reason, with the
// exit code of exit_codes.h and nothing announced; and --version, --help. The min tier
// prints nothing and has neither flag: its exit codes are checked in min_test.cc.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kExitBind = 3;
constexpr int kExitRootRead = 10;
constexpr int kRunTimeoutMs = 5000;
// TEST-NET-1 (RFC 5737): assigned to no host, so no interface here has it.
const char kNonLocalAddress[] = "192.0.2.1";

// Runs the daemon binary with args.
CommandResult RunDaemon(const std::vector<std::string> &args)
{
	std::vector<std::string> argv = DaemonCommand();
	argv.insert(argv.end(), args.begin(), args.end());
	return RunCommand(argv, "", kRunTimeoutMs);
}

// The error lines, --version and --help are the routed tiers' code (console.c, cli.c).
class ErrorsTest : public testing::Test {
protected:
	void SetUp() override { REQUIRE_FEATURE("routes"); }
};

TEST_F(ErrorsTest, BusyPortNamesBindAddressAndReason)
{
	Daemon first;
	START_DAEMON(first, DaemonOptions{});
	std::string addr = "127.0.0.1:" + std::to_string(first.port());
	CommandResult r = RunDaemon({"--listen", addr});
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, kExitBind);
	EXPECT_EQ(r.out, "") << "nothing announced";
	EXPECT_EQ(r.err, "apollod: bind " + addr + ": address already in use\n");
	EXPECT_EQ(LivenessProblem(first.port()), "") << "the first daemon still serves";
}

TEST_F(ErrorsTest, NonLocalAddressNamesBindAddressAndReason)
{
	std::string addr = std::string(kNonLocalAddress) + ":8080";
	CommandResult r = RunDaemon({"--listen", addr});
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, kExitBind);
	EXPECT_EQ(r.out, "");
	EXPECT_EQ(r.err, "apollod: bind " + addr + ": cannot assign requested address\n");
}

// The first port an unprivileged process may bind (ip(7)), or -1 if unknown.
int UnprivilegedPortStart()
{
	std::ifstream in("/proc/sys/net/ipv4/ip_unprivileged_port_start");
	int start = -1;
	in >> start;
	return in ? start : -1;
}

// A port below 1024 as user nobody: bind refuses it with EACCES, which root would not
// see (the suite runs as root), so the harness drops to nobody for the daemon.
TEST_F(ErrorsTest, LowPortAsUnprivilegedUserNamesBindAndReason)
{
	if (geteuid() != 0)
		GTEST_SKIP() << "needs root to start the daemon as nobody";
	int start = UnprivilegedPortStart();
	if (start <= 1)
		GTEST_SKIP() << "ip_unprivileged_port_start is " << start
			     << ": every port is open to every user here";
	std::string addr = "127.0.0.1:" + std::to_string(start - 1);
	CommandResult r = RunDaemonAsNobody({"--listen", addr}, kRunTimeoutMs);
	ASSERT_TRUE(r.ran) << r.problem << "; stderr '" << r.err << "'";
	EXPECT_EQ(r.exit_code, kExitBind);
	EXPECT_EQ(r.out, "");
	EXPECT_EQ(r.err, "apollod: bind " + addr + ": permission denied\n");
}

// A --root directory nobody may open: the line names --root, the path and the reason.
TEST_F(ErrorsTest, UnreadableRootNamesPathAndReason)
{
	REQUIRE_FEATURE("files");
	if (geteuid() != 0)
		GTEST_SKIP() << "needs root to start the daemon as nobody";
	char dir[] = "/tmp/apollod-errors-XXXXXX"; // not TEST_TMPDIR: below /root, mode 0700
	ASSERT_NE(mkdtemp(dir), nullptr) << strerror(errno);
	ASSERT_EQ(chmod(dir, 0700), 0) << strerror(errno); // owned by root: closed to nobody
	CommandResult r =
		RunDaemonAsNobody({"--listen", "127.0.0.1:0", "--root", dir}, kRunTimeoutMs);
	rmdir(dir);
	ASSERT_TRUE(r.ran) << r.problem << "; stderr '" << r.err << "'";
	EXPECT_EQ(r.exit_code, kExitRootRead);
	EXPECT_EQ(r.out, "") << "the port was announced";
	EXPECT_EQ(r.err, "apollod: --root " + std::string(dir) +
				 ": cannot open directory: permission denied\n");
}

TEST_F(ErrorsTest, BadFlagNamesTheWord)
{
	CommandResult r = RunDaemon({"--listen", "127.0.0.1:0", "--lisen", "127.0.0.1:0"});
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, 64);
	EXPECT_EQ(r.out, "");
	EXPECT_EQ(UsageErrorProblem(r.err, "apollod: unknown flag '--lisen'\n"), "");
}

// The serving loop's fatal errors (BEHAVIOUR 13.1), which a healthy kernel never gives,
// made so by a seccomp filter around the daemon (seccomp_refuse.c, x86_64 numbers only).
constexpr int kExitAccept = 5;
constexpr int kExitEpoll = 8;
constexpr int kRetryMs = 20;

// Runs the daemon on a free port under `seccomp_refuse syscall EINVAL` and, once it
// accepts connections, connects once (what a refused accept4 needs to be tried). Returns
// what the daemon printed and how it ended; *addr is its address.
CommandResult RunRefusing(const std::string &syscall, std::string *addr)
{
	int port = RecentlyFreePort();
	*addr = "127.0.0.1:" + std::to_string(port);
	std::vector<std::string> argv = {RunfilePath("test/wire/seccomp_refuse"), syscall,
					 "EINVAL"};
	std::vector<std::string> daemon = DaemonCommand();
	argv.insert(argv.end(), daemon.begin(), daemon.end());
	argv.insert(argv.end(), {"--listen", *addr});
	CommandResult r;
	std::atomic<bool> ended{false};
	std::thread runner([&] {
		r = RunCommand(argv, "", kRunTimeoutMs);
		ended = true;
	});
	// Until one connect succeeds or the daemon has ended (a refused wait ends it unasked).
	for (int tries = 0; tries < kRunTimeoutMs / kRetryMs && !ended; tries++) {
		int fd = ConnectLoopback(port, kRetryMs);
		if (fd >= 0) {
			close(fd);
			break;
		}
		usleep(kRetryMs * 1000);
	}
	runner.join();
	return r;
}

TEST_F(ErrorsTest, FatalAcceptNamesListenerAndReason)
{
	REQUIRE_SECCOMP_REFUSE();
	if (HasFeature("uring"))
		GTEST_SKIP() << "the ring accepts: no accept4 syscall to refuse";
	std::string addr;
	CommandResult r = RunRefusing("accept4", &addr);
	ASSERT_TRUE(r.ran) << r.problem << "; stderr '" << r.err << "'";
	EXPECT_EQ(r.exit_code, kExitAccept);
	EXPECT_EQ(r.err, "apollod: accept4 " + addr + ": invalid argument\n");
}

TEST_F(ErrorsTest, FatalWaitNamesTheCallAndReason)
{
	REQUIRE_SECCOMP_REFUSE();
	bool ring = HasFeature("uring");
	std::string addr;
	CommandResult r = RunRefusing(ring ? "io_uring_enter" : "epoll_wait", &addr);
	ASSERT_TRUE(r.ran) << r.problem << "; stderr '" << r.err << "'";
	EXPECT_EQ(r.exit_code, kExitEpoll);
	EXPECT_EQ(r.err, std::string("apollod: ") + (ring ? "io_uring_enter" : "epoll_wait") +
				 ": invalid argument\n");
}

TEST_F(ErrorsTest, VersionPrintsVersionAndTier)
{
	CommandResult r = RunDaemon({"--version"});
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, 0);
	EXPECT_EQ(r.err, "");
	std::smatch m;
	std::regex version("apollod ([0-9]+\\.[0-9]+\\.[0-9]+) \\(tier ([a-z0-9-]+)\\)\n");
	ASSERT_TRUE(std::regex_match(r.out, m, version)) << r.out;
	// The tier named is the one whose features the suite was given.
	EXPECT_EQ(m[2] == "uring", HasFeature("uring") || HasFeature("uring_emulated")) << r.out;
}

// --help: the usage line, then one row per flag of the usage line, in the same order;
// every flag that takes a value shows its default.
TEST_F(ErrorsTest, HelpListsEveryFlagWithItsDefault)
{
	CommandResult r = RunDaemon({"--help"});
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, 0);
	EXPECT_EQ(r.err, "");
	std::vector<std::string> lines;
	for (size_t at = 0, nl; (nl = r.out.find('\n', at)) != std::string::npos; at = nl + 1)
		lines.push_back(r.out.substr(at, nl - at));
	ASSERT_GE(lines.size(), 2u) << r.out;
	ASSERT_EQ(lines[0].rfind("usage: apollod ", 0), 0u) << r.out;
	std::regex usage_flag("\\[(--[a-z-]+)( [^\\]]+)?\\]");
	size_t row = 1;
	for (std::sregex_iterator it(lines[0].begin(), lines[0].end(), usage_flag), end;
	     it != end; ++it, ++row) {
		std::string flag = (*it)[1];
		SCOPED_TRACE(flag);
		ASSERT_LT(row, lines.size()) << "no row for it";
		EXPECT_EQ(lines[row].rfind("  " + flag + " ", 0), 0u) << lines[row];
		bool takes_value = (*it)[2].matched;
		EXPECT_EQ(lines[row].find(" (default ") != std::string::npos, takes_value)
			<< lines[row];
	}
	EXPECT_EQ(row, lines.size()) << "a row for a flag the usage line lacks";
	EXPECT_NE(r.out.find("  --listen ADDR:PORT"), std::string::npos);
	EXPECT_NE(r.out.find("(default 127.0.0.1:8080)"), std::string::npos);
}

} // namespace
} // namespace wire
