// Start-up over the wire (every tier, BEHAVIOUR 2-3): --help, usage errors (exit 64 with a
// one-line usage on stderr), and a second daemon on a busy port (exit 3).
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kExitUsage = 64;
constexpr int kExitBind = 3;
constexpr int kRunTimeoutMs = 5000;

// Runs the daemon binary with args.
CommandResult RunDaemon(const std::vector<std::string> &args)
{
	std::vector<std::string> argv = DaemonCommand();
	argv.insert(argv.end(), args.begin(), args.end());
	return RunCommand(argv, "", kRunTimeoutMs);
}

TEST(StartupTest, HelpExitsZeroWithUsageOnStdout)
{
	CommandResult r = RunDaemon({"--help"});
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, 0);
	EXPECT_EQ(r.out.rfind("usage: ", 0), 0u) << r.out;
	EXPECT_NE(r.out.find("--listen"), std::string::npos) << r.out;
	EXPECT_EQ(r.err, "");
}

struct UsageCase {
	std::string label;
	std::vector<std::string> args;
	bool min_only; // a flag only the min tier lacks
};

void PrintTo(const UsageCase &c, std::ostream *os) { *os << c.label; }

class UsageErrorTest : public testing::TestWithParam<UsageCase> {};

TEST_P(UsageErrorTest, Exits64WithOneLineUsage)
{
	const UsageCase &c = GetParam();
	if (c.min_only)
		REQUIRE_FEATURE("min");
	CommandResult r = RunDaemon(c.args);
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, kExitUsage);
	EXPECT_EQ(r.out, "") << "nothing on stdout";
	EXPECT_EQ(r.err.rfind("usage: ", 0), 0u) << r.err;
	EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "exactly one line: '" << r.err << "'";
}

const UsageCase kUsageCases[] = {
	{"unknown_flag", {"--bogus"}, false},
	{"positional_argument", {"extra"}, false},
	{"single_dash", {"-h"}, false},
	{"listen_missing_value", {"--listen"}, false},
	{"listen_hostname", {"--listen", "localhost:80"}, false},
	{"listen_no_port", {"--listen", "127.0.0.1"}, false},
	{"listen_port_too_big", {"--listen", "127.0.0.1:65536"}, false},
	{"listen_octet_too_big", {"--listen", "256.0.0.1:80"}, false},
	{"listen_trailing_junk", {"--listen", "127.0.0.1:80x"}, false},
	{"listen_empty", {"--listen="}, false},
	{"idle_timeout_missing_value", {"--idle-timeout"}, false},
	{"idle_timeout_not_a_number", {"--idle-timeout", "abc"}, false},
	{"idle_timeout_negative", {"--idle-timeout", "-1"}, false},
	{"min_has_no_idle_timeout", {"--idle-timeout", "5"}, true},
};

INSTANTIATE_TEST_SUITE_P(Usage, UsageErrorTest, testing::ValuesIn(kUsageCases),
			 [](const testing::TestParamInfo<UsageCase> &param_info) {
				 return param_info.param.label;
			 });

TEST(StartupTest, SecondDaemonOnBusyPortExits3)
{
	Daemon first;
	START_DAEMON(first, DaemonOptions{});
	CommandResult r = RunDaemon({"--listen", "127.0.0.1:" + std::to_string(first.port())});
	ASSERT_TRUE(r.ran) << r.problem << " (the second daemon did not exit)";
	EXPECT_EQ(r.exit_code, kExitBind) << r.err;
	EXPECT_TRUE(first.IsAlive());
	EXPECT_EQ(LivenessProblem(first.port()), "");
}

TEST(StartupTest, ListensOnChosenPortAndAnnouncesIt)
{
	int port = RecentlyFreePort();
	ASSERT_GT(port, 0);
	Daemon chosen;
	std::string error;
	DaemonOptions options{{"--listen", "127.0.0.1:" + std::to_string(port)}};
	// The later --listen wins; the announcement must carry the chosen port.
	ASSERT_TRUE(chosen.Start(options, &error)) << error;
	EXPECT_EQ(chosen.port(), port);
	EXPECT_EQ(LivenessProblem(chosen.port()), "");
}

// BEHAVIOUR 2: "A closed stdout is not an error": the daemon still serves, whether descriptor
// 1 is closed or a pipe nobody reads (EPIPE, and SIGPIPE must not kill it).
TEST(StartupTest, ClosedOrBrokenStdoutIsNotAnError)
{
	for (DaemonStdout mode : {DaemonStdout::kClosed, DaemonStdout::kBrokenPipe}) {
		SCOPED_TRACE(mode == DaemonStdout::kClosed ? "stdout closed" : "stdout broken pipe");
		DaemonOptions options;
		options.stdout_mode = mode;
		options.fixed_port = RecentlyFreePort();
		ASSERT_GT(options.fixed_port, 0);
		Daemon daemon;
		START_DAEMON(daemon, options);
		EXPECT_EQ(LivenessProblem(daemon.port()), "");
		EXPECT_TRUE(daemon.IsAlive());
	}
}

} // namespace
} // namespace wire
