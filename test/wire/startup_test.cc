// Start-up over the wire (BEHAVIOUR 2-3): the routed tiers' --help, usage errors (exit 64
// with a one-line usage on stderr), a second daemon on a busy port (exit 3) and a chosen
// port; every tier: a closed or broken stdout. The min tier's command line: min_test.cc.
#include <regex>
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
	REQUIRE_FEATURE("routes");
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
	std::string problem; // the line before the usage line, naming the word at fault
};

void PrintTo(const UsageCase &c, std::ostream *os) { *os << c.label; }

class UsageErrorTest : public testing::TestWithParam<UsageCase> {};

TEST_P(UsageErrorTest, Exits64NamingTheWord)
{
	REQUIRE_FEATURE("routes");
	const UsageCase &c = GetParam();
	CommandResult r = RunDaemon(c.args);
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, kExitUsage);
	EXPECT_EQ(r.out, "") << "nothing on stdout";
	EXPECT_EQ(UsageErrorProblem(r.err, c.problem), "");
}

const UsageCase kUsageCases[] = {
	{"unknown_flag", {"--bogus"}, "apollod: unknown flag '--bogus'\n"},
	{"positional_argument", {"extra"}, "apollod: unknown flag 'extra'\n"},
	{"single_dash", {"-h"}, "apollod: unknown flag '-h'\n"},
	{"help_with_value", {"--help=yes"}, "apollod: unknown flag '--help=yes'\n"},
	{"listen_missing_value", {"--listen"}, "apollod: --listen needs a value\n"},
	{"listen_hostname", {"--listen", "localhost:80"},
	 "apollod: --listen: bad value 'localhost:80'\n"},
	{"listen_no_port", {"--listen", "127.0.0.1"},
	 "apollod: --listen: bad value '127.0.0.1'\n"},
	{"listen_port_too_big", {"--listen", "127.0.0.1:65536"},
	 "apollod: --listen: bad value '127.0.0.1:65536'\n"},
	{"listen_octet_too_big", {"--listen", "256.0.0.1:80"},
	 "apollod: --listen: bad value '256.0.0.1:80'\n"},
	{"listen_trailing_junk", {"--listen", "127.0.0.1:80x"},
	 "apollod: --listen: bad value '127.0.0.1:80x'\n"},
	{"listen_empty", {"--listen="}, "apollod: --listen: bad value ''\n"},
	{"bad_word_after_good_flags", {"--listen", "127.0.0.1:0", "--bogus"},
	 "apollod: unknown flag '--bogus'\n"},
	{"long_word_cut", {std::string(100, 'x')},
	 "apollod: unknown flag '" + std::string(64, 'x') + "...'\n"},
	{"idle_timeout_missing_value", {"--idle-timeout"},
	 "apollod: --idle-timeout needs a value\n"},
	{"idle_timeout_not_a_number", {"--idle-timeout", "abc"},
	 "apollod: --idle-timeout: bad value 'abc'\n"},
	{"idle_timeout_negative", {"--idle-timeout=-1"},
	 "apollod: --idle-timeout: bad value '-1'\n"},
};

INSTANTIATE_TEST_SUITE_P(Usage, UsageErrorTest, testing::ValuesIn(kUsageCases),
			 LabelName<UsageCase>);

TEST(StartupTest, SecondDaemonOnBusyPortExits3)
{
	REQUIRE_FEATURE("routes");
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
	REQUIRE_FEATURE("routes");
	int port = RecentlyFreePort();
	ASSERT_GT(port, 0);
	Daemon chosen;
	std::string error;
	DaemonOptions options{{"--listen", "127.0.0.1:" + std::to_string(port)}};
	// Its own --listen replaces the harness default; the announcement carries the port.
	ASSERT_TRUE(chosen.Start(options, &error)) << error;
	EXPECT_EQ(chosen.port(), port);
	EXPECT_EQ(LivenessProblem(chosen.port()), "");
}

// The report a start that times out prints (the harness's): every process of the daemon
// by its command line, every thread with a state letter and its syscall line.
TEST(StartupTest, ProcessTreeReportNamesEachProcessAndThread)
{
	Daemon d;
	std::string error;
	ASSERT_TRUE(d.Start({}, &error)) << error;
	d.ServingPid(); // a routed tier's supervisor forks its generation after announcing
	std::vector<pid_t> kids = Descendants(d.pid());
	std::string report = ProcessTreeReport(d.pid());
	std::string head = "process " + std::to_string(d.pid()) + ": ";
	EXPECT_EQ(report.rfind(head, 0), 0u) << report;
	EXPECT_NE(report.find(DaemonCommand().back()), std::string::npos) << report;
	std::regex thread("\n  thread [0-9]+ state [RSDTtZXIP] wchan [^\n]* syscall [^\n]+\n");
	EXPECT_TRUE(std::regex_search(report, thread)) << report;
	for (pid_t kid : kids)
		EXPECT_NE(report.find("process " + std::to_string(kid) + ": "), std::string::npos)
			<< report;
}

// BEHAVIOUR 2: "A closed stdout is not an error": the daemon still serves, whether descriptor
// 1 is closed or a pipe nobody reads (EPIPE, and SIGPIPE must not kill it). Every tier: min
// writes nothing there, and must not care either.
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
