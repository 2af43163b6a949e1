// Signals (feature `stop` with `files`, BEHAVIOUR 11, 14): SIGUSR1 reopens the access log
// (a reload whose new generation opens the path anew), no stray signal whose default
// action ends a process stops the service, and every process is named `apollod` after
// a reload. Each case runs with one process and with --workers 2.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test/wire/reload_daemon.h"
#include "test/wire/wire_harness.h"

namespace wire {
namespace {


// The signals BEHAVIOUR 11 lists as ignored (or, where a process reads them, watched):
// every one whose default action ends a process, but the stop signals, SIGHUP, SIGKILL,
// SIGPIPE (ignored on its own) and SIGUSR1/SIGUSR2 (which the supervisor acts on).
std::vector<int> StraySignals()
{
	std::vector<int> s = {SIGQUIT, SIGILL,  SIGTRAP,   SIGABRT, SIGBUS, SIGFPE,
			      SIGSEGV, SIGALRM, SIGSTKFLT, SIGXCPU, SIGXFSZ, SIGVTALRM,
			      SIGPROF, SIGPWR,  SIGSYS};
	for (int rt = __SIGRTMIN; rt <= __SIGRTMAX; rt++)
		s.push_back(rt);
	return s;
}

uint64_t Bit(int sig) { return uint64_t{1} << (sig - 1); }

// Every process of the daemon: the supervisor, then its descendants.
std::vector<pid_t> Everyone(pid_t supervisor)
{
	std::vector<pid_t> all = {supervisor};
	for (pid_t p : Descendants(supervisor))
		all.push_back(p);
	return all;
}

class SignalsTest : public SupervisorTest {
protected:
	// Waits until the daemon's serving processes (the generation and its workers) are
	// all there. Returns them.
	std::vector<pid_t> Serving(const ReloadDaemon &d)
	{
		size_t want = GetParam() > 1 ? 1 + (size_t)GetParam() : 1;
		std::vector<pid_t> all;
		WaitUntil([&] { return (all = Descendants(d.pid())).size() == want; });
		return all;
	}
};

// BEHAVIOUR 14: after the log is renamed, SIGUSR1 to the daemon makes a new file at the
// path, and a request made after it is logged there.
TEST_P(SignalsTest, Usr1ReopensTheAccessLog)
{
	std::string log = dir_ + "/access.log";
	ReloadDaemon d;
	ASSERT_EQ(d.Start(WithWorkers({"--access-log", log})), "");
	ASSERT_EQ(StatusOf(d.port(), "/a.txt?before"), 200);
	ASSERT_TRUE(WaitUntil([&] { return Slurp(log).find("/a.txt?before") != std::string::npos; }))
		<< "the first line never reached the log";
	ASSERT_EQ(rename(log.c_str(), (log + ".1").c_str()), 0);
	ASSERT_EQ(kill(d.pid(), SIGUSR1), 0);
	ASSERT_GT(d.WaitForReloaded(1), 0) << d.Err();
	// The old generation may still take a connection or two before it has closed its
	// listeners: ask until a request lands in the new file.
	std::string seen;
	for (int i = 0; seen.empty() && i < 500; i++) {
		std::string target = "/a.txt?after" + std::to_string(i);
		ASSERT_EQ(StatusOf(d.port(), target), 200);
		if (WaitUntil([&] { return Slurp(log).find(target + " ") != std::string::npos; }, 200))
			seen = target;
	}
	EXPECT_FALSE(seen.empty()) << "no request after SIGUSR1 reached the new file";
	EXPECT_EQ(Slurp(log).find("?before"), std::string::npos);
	EXPECT_NE(Slurp(log + ".1").find("?before"), std::string::npos);
	EXPECT_EQ(Slurp(log + ".1").find(seen + " "), std::string::npos);
	int status = d.Stop();
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// BEHAVIOUR 11: every process ignores (or watches) each stray signal; sent to each of
// them, none stops or retires anything, and SIGTERM still stops the daemon with 0.
TEST_P(SignalsTest, StraySignalsStopNothing)
{
	ReloadDaemon d;
	ASSERT_EQ(d.Start(WithWorkers({})), "");
	std::vector<pid_t> serving = Serving(d);
	ASSERT_FALSE(serving.empty());
	std::vector<pid_t> all = Everyone(d.pid());
	for (pid_t p : all) {
		uint64_t held = SignalMask(p, "SigIgn") | SignalMask(p, "SigBlk");
		for (int sig : StraySignals())
			EXPECT_TRUE(held & Bit(sig)) << "process " << p << " would die of " << sig;
		for (int sig : {SIGUSR1, SIGUSR2})
			EXPECT_TRUE(held & Bit(sig)) << "process " << p << " would die of " << sig;
	}
	uint64_t sent = 0;
	for (pid_t p : all)
		for (int sig : StraySignals()) {
			ASSERT_EQ(kill(p, sig), 0) << p << " " << sig;
			sent |= Bit(sig);
		}
	for (pid_t p : all) { // a watched one (the retire signal) is read past
		EXPECT_TRUE(WaitNonePending(p, sent)) << "process " << p;
		EXPECT_TRUE(ProcessRuns(p)) << "process " << p << " ended; stderr: " << d.Err();
	}
	EXPECT_EQ(Descendants(d.pid()), serving) << d.Err();
	EXPECT_EQ(StatusOf(d.port(), "/a.txt"), 200);
	int status = d.Stop();
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << d.Err();
	EXPECT_EQ(d.Err().find("killed by signal"), std::string::npos) << d.Err();
}

// BEHAVIOUR 11: after a reload (a generation started by execveat of a descriptor) every
// process is still named apollod in ps (/proc/PID/comm).
TEST_P(SignalsTest, ProcessesKeepTheirNameAfterAReload)
{
	ReloadDaemon d;
	ASSERT_EQ(d.Start(WithWorkers({})), "");
	ASSERT_EQ(kill(d.pid(), SIGHUP), 0);
	pid_t fresh = d.WaitForReloaded(1);
	ASSERT_GT(fresh, 0) << d.Err();
	std::vector<pid_t> now;
	size_t want = GetParam() > 1 ? 1 + (size_t)GetParam() : 1;
	WaitUntil([&] {
		now = Descendants(fresh);
		now.insert(now.begin(), fresh);
		return now.size() == want;
	});
	ASSERT_EQ(now.size(), want);
	for (pid_t p : Everyone(d.pid())) {
		std::string comm = Slurp("/proc/" + std::to_string(p) + "/comm");
		if (comm.empty() && !ProcessRuns(p))
			continue; // the old generation (or a worker) drained between list and read
		EXPECT_EQ(comm, "apollod\n") << "process " << p;
	}
	EXPECT_EQ(d.Stop() >= 0, true);
}

INSTANTIATE_TEST_SUITE_P(Processes, SignalsTest, testing::Values(1, 2), ProcessesName);

} // namespace
} // namespace wire
