// BEHAVIOUR 19, the sandbox: every serving process runs under the seccomp filter with
// no_new_privs (the rest of the suite runs with it on, so the allowlist is complete for
// what it exercises); --no-sandbox leaves it off; --user drops root, and a --user that
// cannot be honoured is exit 16 with one line.
#include <sys/prctl.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kUserExit = 16; // EXIT_USER
constexpr int kRunTimeoutMs = 10000;

// Field name of /proc/pid/status ("Seccomp", "Uid", ...): its value after the tab, or "".
std::string StatusField(pid_t pid, const std::string &name)
{
	std::ifstream in("/proc/" + std::to_string(pid) + "/status");
	std::string line;
	while (std::getline(in, line))
		if (line.rfind(name + ":\t", 0) == 0)
			return line.substr(name.size() + 2);
	return "";
}

// The sandbox can be seen here: the daemon runs natively (not under qemu-user, whose
// /proc/PID/status would be the emulator's, and which refuses seccomp to its guest) on a
// kernel with seccomp.
#define REQUIRE_SECCOMP()                                                               \
	do {                                                                            \
		REQUIRE_FEATURE("routes");                                              \
		if (!DaemonLauncher().empty() || prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) \
			GTEST_SKIP() << "no seccomp for the daemon here (qemu-user: "   \
					"BEHAVIOUR 19.5)";                              \
	} while (0)

// The serving process shows the filter and no_new_privs, and serves.
TEST(SandboxTest, SingleProcessServesUnderTheFilter)
{
	REQUIRE_SECCOMP();
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{});
	ASSERT_EQ(ParseResponse(Roundtrip(daemon.port(), GetClose("/health")).bytes).status, 200);
	EXPECT_EQ(StatusField(daemon.pid(), "Seccomp"), "2");
	EXPECT_EQ(StatusField(daemon.pid(), "NoNewPrivs"), "1");
}

// Each worker shows it; the supervisor, which forks and reloads, does not.
TEST(SandboxTest, EveryWorkerServesUnderTheFilter)
{
	REQUIRE_SECCOMP();
	REQUIRE_FEATURE("workers");
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--workers", "2"}});
	std::vector<pid_t> workers = WaitForChildren(daemon.pid(), 2);
	ASSERT_EQ(workers.size(), 2u);
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(ParseResponse(Roundtrip(daemon.port(), GetClose("/health")).bytes).status,
			  200);
	for (pid_t w : workers) {
		EXPECT_EQ(StatusField(w, "Seccomp"), "2") << "worker " << w;
		EXPECT_EQ(StatusField(w, "NoNewPrivs"), "1") << "worker " << w;
	}
	EXPECT_EQ(StatusField(daemon.pid(), "Seccomp"), "0");
}

TEST(SandboxTest, NoSandboxLeavesItOff)
{
	REQUIRE_SECCOMP();
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--no-sandbox"}});
	ASSERT_EQ(ParseResponse(Roundtrip(daemon.port(), GetClose("/health")).bytes).status, 200);
	EXPECT_EQ(StatusField(daemon.pid(), "Seccomp"), "0");
}

// --user by name and by number: every uid and gid is the user's, and the one
// supplementary group is the group (BEHAVIOUR 19.3).
TEST(SandboxTest, UserDropsRoot)
{
	REQUIRE_FEATURE("routes");
	if (getuid() != 0)
		GTEST_SKIP() << "--user needs the test to run as root";
	const std::string nobody = std::to_string(kNobodyId);
	const std::string all4 = nobody + "\t" + nobody + "\t" + nobody + "\t" + nobody;
	for (const std::string &spec : {nobody + ":" + nobody, std::string("nobody")}) {
		Daemon daemon;
		START_DAEMON(daemon, DaemonOptions{{"--user", spec}});
		ASSERT_EQ(ParseResponse(Roundtrip(daemon.port(), GetClose("/health")).bytes).status,
			  200)
			<< spec;
		EXPECT_EQ(StatusField(daemon.pid(), "Uid"), all4) << spec;
		EXPECT_EQ(StatusField(daemon.pid(), "Gid"), all4) << spec;
		EXPECT_EQ(StatusField(daemon.pid(), "Groups"), nobody + " ") << spec;
	}
}

// Runs the daemon on a free port with args; returns what it did.
CommandResult RunDaemonWith(const std::vector<std::string> &args)
{
	std::vector<std::string> argv = DaemonCommand();
	argv.insert(argv.end(), {"--listen", "127.0.0.1:0"});
	argv.insert(argv.end(), args.begin(), args.end());
	return RunCommand(argv, "", kRunTimeoutMs);
}

TEST(SandboxTest, UnknownUserIsExit16)
{
	REQUIRE_FEATURE("routes");
	CommandResult r = RunDaemonWith({"--user", "no-such-user-apollod"});
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, kUserExit);
	EXPECT_EQ(r.err,
		  "apollod: --user 'no-such-user-apollod': no such user in /etc/passwd\n");
	r = RunDaemonWith({"--user", "0:no-such-group-apollod"});
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, kUserExit);
	EXPECT_EQ(r.err, "apollod: --user '0:no-such-group-apollod': no such group in /etc/group\n");
}

TEST(SandboxTest, UserWithoutRootIsExit16)
{
	REQUIRE_FEATURE("routes");
	if (getuid() != 0)
		GTEST_SKIP() << "running the daemon as nobody needs root";
	CommandResult r = RunDaemonAsNobody({"--listen", "127.0.0.1:0", "--user", "0:0"},
					    kRunTimeoutMs);
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, kUserExit);
	EXPECT_EQ(r.err, "apollod: --user '0:0': only root can change its user\n");
}

} // namespace
} // namespace wire
