// The min tier over the wire (feature `min`, BEHAVIOUR 8): exact response bytes whatever the
// request; the port from its one argument; every other command line exits 64; each fatal
// step exits with its code; and none of it writes a byte to stdout or stderr. 100
// sequential requests and early-closing peers are checked by the suites every tier runs
// (routes_test.cc, malformed_test.cc); the harness starts it on port 0 and finds the port
// through /proc (wire_harness.h).
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr char kMinResponse[] =
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nOK";
constexpr int kExitSocket = 1;
constexpr int kExitSetsockopt = 2;
constexpr int kExitBind = 3;
constexpr int kExitListen = 4;
constexpr int kExitAccept = 5;
constexpr int kExitUsage = 64;
constexpr int kRunTimeoutMs = 5000;

class MinTest : public SharedDaemonFixture<testing::Test> {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("min");
		SharedDaemonFixture::SetUp();
	}
};

TEST_F(MinTest, ExactResponseBytesWhateverTheRequest)
{
	for (const std::string &request :
	     {Get("/"), Get("/health"), Get("/anything?x=1"), Get("/", "HEAD"), Get("/", "PUT"),
	      std::string("GET / HTTP/1.0\r\n\r\n")}) {
		Received r = Roundtrip(port_, request);
		EXPECT_TRUE(r.eof) << "min closes after its reply";
		EXPECT_EQ(r.bytes, kMinResponse) << "request: " << request;
	}
}

// Runs the min binary with args; it must end by itself (a fatal step or a usage error).
CommandResult RunMin(const std::vector<std::string> &args)
{
	std::vector<std::string> argv = DaemonCommand();
	argv.insert(argv.end(), args.begin(), args.end());
	return RunCommand(argv, "", kRunTimeoutMs);
}

// Expects r to be a silent exit with code.
void ExpectSilentExit(const CommandResult &r, int code)
{
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, code);
	EXPECT_EQ(r.out, "") << "nothing on stdout";
	EXPECT_EQ(r.err, "") << "nothing on stderr";
}

TEST(MinCommandLineTest, ServesOnThePortItIsGiven)
{
	REQUIRE_FEATURE("min");
	DaemonOptions options;
	options.fixed_port = RecentlyFreePort();
	ASSERT_GT(options.fixed_port, 0);
	Daemon daemon;
	START_DAEMON(daemon, options);
	EXPECT_EQ(daemon.port(), options.fixed_port);
	EXPECT_EQ(Roundtrip(daemon.port(), GetClose("/")).bytes, kMinResponse);
}

struct BadArgs {
	std::string label;
	std::vector<std::string> args;
};

void PrintTo(const BadArgs &c, std::ostream *os) { *os << c.label; }

class MinUsageTest : public testing::TestWithParam<BadArgs> {};

// Anything but one decimal port below 65536 exits 64 before any socket, saying nothing.
TEST_P(MinUsageTest, Exits64Silently)
{
	REQUIRE_FEATURE("min");
	ExpectSilentExit(RunMin(GetParam().args), kExitUsage);
}

const BadArgs kBadArgs[] = {
	{"empty", {""}},
	{"letters", {"http"}},
	{"port_too_big", {"65536"}},
	{"far_too_big", {"99999999999999999999"}},
	{"negative", {"-1"}},
	{"plus_sign", {"+80"}},
	{"trailing_junk", {"80x"}},
	{"leading_space", {" 80"}},
	{"address_and_port", {"127.0.0.1:80"}},
	{"two_ports", {"0", "0"}},
	{"routed_flag", {"--listen", "127.0.0.1:0"}},
	{"help", {"--help"}},
	{"version", {"--version"}},
};

INSTANTIATE_TEST_SUITE_P(Min, MinUsageTest, testing::ValuesIn(kBadArgs),
			 LabelName<BadArgs>);

TEST(MinCommandLineTest, BusyPortExitsWithTheBindCodeSilently)
{
	REQUIRE_FEATURE("min");
	Daemon first;
	START_DAEMON(first, DaemonOptions{});
	ExpectSilentExit(RunMin({std::to_string(first.port())}), kExitBind);
	EXPECT_TRUE(first.IsAlive());
	EXPECT_EQ(LivenessProblem(first.port()), "");
}

// A port below ip_unprivileged_port_start as user nobody: bind refuses it (EACCES).
TEST(MinCommandLineTest, PrivilegedPortAsNobodyExitsWithTheBindCode)
{
	REQUIRE_FEATURE("min");
	if (geteuid() != 0)
		GTEST_SKIP() << "needs root to start the daemon as nobody";
	int start = -1;
	std::ifstream("/proc/sys/net/ipv4/ip_unprivileged_port_start") >> start;
	if (start <= 1)
		GTEST_SKIP() << "ip_unprivileged_port_start is " << start
			     << ": every port is open to every user here";
	ExpectSilentExit(RunDaemonAsNobody({std::to_string(start - 1)}, kRunTimeoutMs),
			 kExitBind);
}

struct RefusedStep {
	std::string syscall; // what seccomp_refuse makes fail with EINVAL
	int exit_code;
};

void PrintTo(const RefusedStep &c, std::ostream *os) { *os << c.syscall; }

class MinFatalStepTest : public testing::TestWithParam<RefusedStep> {};

// Each step fails once, made so by a seccomp filter (seccomp_refuse.c, x86_64 numbers
// only): the exit code names the step, and nothing is printed. accept4 fails on the first
// call, before any connection, so the run needs no client.
TEST_P(MinFatalStepTest, ExitsWithItsCodeSilently)
{
	REQUIRE_FEATURE("min");
	REQUIRE_SECCOMP_REFUSE();
	std::vector<std::string> argv = {RunfilePath("test/wire/seccomp_refuse"),
					 GetParam().syscall, "EINVAL"};
	std::vector<std::string> daemon = DaemonCommand();
	argv.insert(argv.end(), daemon.begin(), daemon.end());
	argv.push_back(std::to_string(RecentlyFreePort()));
	ExpectSilentExit(RunCommand(argv, "", kRunTimeoutMs), GetParam().exit_code);
}

INSTANTIATE_TEST_SUITE_P(Min, MinFatalStepTest,
			 testing::Values(RefusedStep{"socket", kExitSocket},
					 RefusedStep{"setsockopt", kExitSetsockopt},
					 RefusedStep{"bind", kExitBind},
					 RefusedStep{"listen", kExitListen},
					 RefusedStep{"accept4", kExitAccept}),
			 [](const testing::TestParamInfo<RefusedStep> &param_info) {
				 return param_info.param.syscall;
			 });

} // namespace
} // namespace wire
