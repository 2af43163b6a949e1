// BEHAVIOUR 19, the sandbox: every serving process (the serving generation, or each of its
// workers) runs under the seccomp filter with no_new_privs, the resident supervisor does
// not (the rest of the suite runs with it on, so the allowlist is complete for what it
// exercises); --no-sandbox leaves it off; --user drops root in the serving generation,
// and a --user that cannot be honoured is exit 16 with one line.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test/wire/reload_daemon.h"
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

// Field name of pid's status once it reads want, or what it read last after 5 s: a worker
// just forked installs its filter a moment after it appears.
std::string StatusFieldSettled(pid_t pid, const std::string &name, const std::string &want)
{
	std::string got;
	WaitUntil([&] { return (got = StatusField(pid, name)) == want; }, 5000, 5);
	return got;
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

// The serving generation shows the filter and no_new_privs, and serves; the resident
// supervisor (daemon.pid(), which forks and execs generations) runs unfiltered.
TEST(SandboxTest, ServingGenerationServesUnderTheFilter)
{
	REQUIRE_SECCOMP();
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{});
	ASSERT_EQ(ParseResponse(Roundtrip(daemon.port(), GetClose("/health")).bytes).status, 200);
	pid_t serving = ServingGeneration(daemon.pid());
	ASSERT_GT(serving, 0);
	ASSERT_NE(serving, daemon.pid());
	EXPECT_EQ(StatusField(serving, "Seccomp"), "2");
	EXPECT_EQ(StatusField(serving, "NoNewPrivs"), "1");
	EXPECT_EQ(StatusField(daemon.pid(), "Seccomp"), "0");
	EXPECT_EQ(StatusField(daemon.pid(), "NoNewPrivs"), "0");
}

// Each worker (the generation's children) shows it; the generation, which forks
// replacements, and the resident supervisor do not.
TEST(SandboxTest, EveryWorkerServesUnderTheFilter)
{
	REQUIRE_SECCOMP();
	REQUIRE_FEATURE("workers");
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--workers", "2"}});
	pid_t generation = ServingGeneration(daemon.pid());
	ASSERT_GT(generation, 0);
	std::vector<pid_t> workers = WaitForChildren(generation, 2);
	ASSERT_EQ(workers.size(), 2u);
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(ParseResponse(Roundtrip(daemon.port(), GetClose("/health")).bytes).status,
			  200);
	for (pid_t w : workers) {
		EXPECT_EQ(StatusFieldSettled(w, "Seccomp", "2"), "2") << "worker " << w;
		EXPECT_EQ(StatusField(w, "NoNewPrivs"), "1") << "worker " << w;
	}
	EXPECT_EQ(StatusField(generation, "Seccomp"), "0");
	EXPECT_EQ(StatusField(daemon.pid(), "Seccomp"), "0");
}

TEST(SandboxTest, NoSandboxLeavesItOff)
{
	REQUIRE_SECCOMP();
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--no-sandbox"}});
	ASSERT_EQ(ParseResponse(Roundtrip(daemon.port(), GetClose("/health")).bytes).status, 200);
	pid_t serving = ServingGeneration(daemon.pid());
	ASSERT_GT(serving, 0);
	EXPECT_EQ(StatusField(serving, "Seccomp"), "0");
	EXPECT_EQ(StatusField(serving, "NoNewPrivs"), "0");
}

// --user by name and by number: every uid and gid of the serving generation is the
// user's, and the one supplementary group is the group (BEHAVIOUR 19.3); the resident
// supervisor stays root, for the next generation's start-up (binding, reading DIR).
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
		pid_t serving = ServingGeneration(daemon.pid());
		ASSERT_GT(serving, 0) << spec;
		EXPECT_EQ(StatusField(serving, "Uid"), all4) << spec;
		EXPECT_EQ(StatusField(serving, "Gid"), all4) << spec;
		EXPECT_EQ(StatusField(serving, "Groups"), nobody + " ") << spec;
		EXPECT_EQ(StatusField(daemon.pid(), "Uid"), "0\t0\t0\t0") << spec;
	}
}

// How many "reloaded" lines (the resident supervisor's, BEHAVIOUR 17) err holds.
int ReloadedLines(const std::string &err)
{
	int n = 0;
	for (size_t at = 0; (at = err.find("apollod: reloaded: process ", at)) != std::string::npos;
	     at++)
		n++;
	return n;
}

// Waits (kLineWaitMs at most) until target answers 200 with want as its body. Returns
// the last body seen. One answer is the witness: during a hand-over the older generation
// may still accept a connection for a moment and answer from its snapshot (BEHAVIOUR 17),
// so a second request is not bound to reach the generation that answered the first.
std::string WaitForBody(int port, const std::string &target, const std::string &want)
{
	std::string got;
	WaitUntil(
		[&] {
			HttpResponse r = ParseResponse(Roundtrip(port, GetClose(target)).bytes);
			got = r.body;
			return r.status == 200 && got == want;
		},
		kLineWaitMs, 50);
	return got;
}

// What the filter and Landlock must leave working, on one daemon: files served from
// disk (--cache-bytes 0: opened beneath --root at request time, under Landlock), the
// access log, --watch (the generation hears the change and asks the supervisor), and
// the reload it leads to (the supervisor execs a new generation, which installs its own
// filter). Without --workers and with.
TEST(SandboxTest, DiskWatchLogAndReloadWorkUnderTheFilter)
{
	REQUIRE_SECCOMP();
	for (bool workers : {false, true}) {
		if (workers && !HasFeature("workers"))
			continue;
		SCOPED_TRACE(workers ? "--workers 2" : "one serving process");
		ReloadDaemon d;
		std::string log_dir = "/tmp/apollod-sandbox-log-" + std::to_string(getpid());
		mkdir(log_dir.c_str(), 0755);
		std::string log = log_dir + "/access.log";
		std::vector<std::string> args = {"--cache-bytes", "0", "--watch",
						 "--access-log", log};
		if (workers)
			args.insert(args.end(), {"--workers", "2"});
		ASSERT_EQ(d.Start(args), "");
		ASSERT_EQ(mkdir((d.root() + "/sub").c_str(), 0755), 0);
		WriteFile(d.root() + "/sub/b.txt", "b\n");
		// a.txt is on disk from the start; sub/b.txt arrives by --watch's reload.
		Received a = Roundtrip(d.port(), GetClose("/a.txt"));
		EXPECT_EQ(ParseResponse(a.bytes).body, "a\n");
		EXPECT_EQ(WaitForBody(d.port(), "/sub/b.txt", "b\n"), "b\n") << d.Err();
		// A reload by SIGHUP to the supervisor: the new generation serves, filtered.
		// --watch's, one or more; its line comes once the supervisor has read the new
		// generation's readiness, which may be just after that generation answered
		ASSERT_GT(d.WaitForReloaded(1), 0) << d.Err();
		int reloads = ReloadedLines(d.Err());
		ASSERT_EQ(kill(d.pid(), SIGHUP), 0);
		EXPECT_GT(d.WaitForReloaded(reloads + 1), 0) << d.Err();
		EXPECT_EQ(StatusOf(d.port(), "/a.txt"), 200);
		pid_t generation = d.generation();
		ASSERT_GT(generation, 0) << d.Err();
		std::vector<pid_t> serving = {generation};
		if (workers)
			serving = WaitForChildren(generation, 2);
		ASSERT_FALSE(serving.empty());
		for (pid_t p : serving)
			EXPECT_EQ(StatusFieldSettled(p, "Seccomp", "2"), "2") << "process " << p;
		EXPECT_EQ(StatusField(d.pid(), "Seccomp"), "0");
		int status = d.Stop();
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			<< "status " << status << "; stderr: " << d.Err();
		EXPECT_EQ(d.Err().find("signal 31"), std::string::npos) << d.Err();
		std::string logged = Slurp(log);
		EXPECT_NE(logged.find("GET /a.txt"), std::string::npos) << logged;
		EXPECT_NE(logged.find("GET /sub/b.txt"), std::string::npos) << logged;
		RunCommand({"rm", "-rf", log_dir}, "", 5000);
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
	EXPECT_EQ(r.out, "") << "checked before the announcement (BEHAVIOUR 19.3)";
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
	EXPECT_EQ(r.out, "") << "checked before the announcement (BEHAVIOUR 19.3)";
}

} // namespace
} // namespace wire
