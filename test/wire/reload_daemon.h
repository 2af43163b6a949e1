// What the reload tests share (reload_test.cc: SIGHUP; watch_test.cc: --watch): a daemon
// started with --root in a fresh directory and its stderr in a file, this process its
// child subreaper, and a client that asks for /a.txt on a new connection in a loop.
#ifndef APOLLOD_TEST_WIRE_RELOAD_DAEMON_H
#define APOLLOD_TEST_WIRE_RELOAD_DAEMON_H

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test/wire/wire_harness.h"

namespace wire {

constexpr int kLineWaitMs = 10000; // a reload's stderr line must come within this
constexpr int kExitWaitMs = 10000;

// Reads a whole file ("" when it cannot be read).
inline std::string Slurp(const std::string &path)
{
	std::ifstream in(path);
	std::stringstream s;
	s << in.rdbuf();
	return s.str();
}

inline void WriteFile(const std::string &path, const std::string &text)
{
	std::ofstream out(path);
	out << text;
}

// A suite run once as one serving process (parameter 1) and once with --workers N.
class ProcessesTest : public testing::TestWithParam<int> {
protected:
	// args, then --workers N when the parameter N is over 1.
	std::vector<std::string> WithWorkers(std::vector<std::string> args) const
	{
		if (GetParam() > 1)
			args.insert(args.end(), {"--workers", std::to_string(GetParam())});
		return args;
	}
};

// A ProcessesTest of the resident supervisor (the routed tiers with --root, run
// natively: under an emulator a new image would be the emulator) with a scratch
// directory of its own, dir_, removed afterwards.
class SupervisorTest : public ProcessesTest {
protected:
	void SetUp() override
	{
		if (!HasFeature("stop") || !HasFeature("files"))
			GTEST_SKIP() << "the resident supervisor belongs to the routed tiers with --root";
		if (!DaemonLauncher().empty())
			GTEST_SKIP() << "under an emulator the new image would be the emulator";
		char name[] = "/tmp/apollod-supervisor-XXXXXX";
		ASSERT_NE(mkdtemp(name), nullptr);
		dir_ = name;
	}
	void TearDown() override
	{
		if (!dir_.empty())
			RunCommand({"rm", "-rf", dir_}, "", 5000);
	}
	std::string dir_;
};

// Puts a copy of source at dest by rename, as an installer does (a running image's file
// cannot be written: ETXTBSY), executable. Returns whether it worked.
inline bool InstallByRename(const std::string &source, const std::string &dest)
{
	std::string next = dest + ".next";
	CommandResult r = RunCommand({"cp", source, next}, "", 10000);
	return r.ran && r.exit_code == 0 && chmod(next.c_str(), 0755) == 0 &&
	       rename(next.c_str(), dest.c_str()) == 0;
}

// The instances' names: Single, Workers2.
inline std::string ProcessesName(const testing::TestParamInfo<int> &p)
{
	return p.param == 1 ? std::string("Single") : "Workers" + std::to_string(p.param);
}

// The snapshot's arenas (the `memfd:apollod-snapshot` links, BEHAVIOUR 10.17) pid holds,
// by inode (several descriptors may name one), with each one's size.
inline std::map<ino_t, off_t> Arenas(pid_t pid)
{
	std::map<ino_t, off_t> found;
	for (const SnapshotMemfd &m : SnapshotMemfdsOf(pid))
		found[m.inode] = m.size;
	return found;
}

// A daemon started with stdout and stderr in files of a fresh directory, --root in it.
class ReloadDaemon {
public:
	~ReloadDaemon()
	{
		std::vector<pid_t> left = Descendants(pid_);
		if (pid_ > 0 && kill(pid_, SIGKILL) == 0)
			waitpid(pid_, nullptr, 0);
		for (pid_t p : left) // reparented to us (the subreaper), if still there
			if (kill(p, SIGKILL) == 0)
				waitpid(p, nullptr, 0);
		prctl(PR_SET_CHILD_SUBREAPER, 0);
		if (!dir_.empty())
			RunCommand({"rm", "-rf", dir_}, "", 5000);
	}

	// Makes the directory with root/a.txt (and each of files: a name relative to root,
	// its text), starts the daemon with extra_args on a fixed port (`port`, or a recently
	// free one when 0) and waits until it answers. Returns "" or what went wrong.
	std::string Start(const std::vector<std::string> &extra_args, int port = 0,
			  const std::map<std::string, std::string> &files = {})
	{
		char name[] = "/tmp/apollod-reload-XXXXXX";
		if (mkdtemp(name) == nullptr)
			return "mkdtemp failed";
		dir_ = name;
		if (mkdir(root().c_str(), 0755) != 0)
			return "mkdir root failed";
		WriteFile(root() + "/a.txt", "a\n");
		for (const auto &f : files)
			WriteFile(root() + "/" + f.first, f.second);
		/* qemu-user refuses it; there orphans go to init, which reaps them */
		if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0 && DaemonLauncher().empty())
			return "PR_SET_CHILD_SUBREAPER failed";
		port_ = port ? port : RecentlyFreePort();
		std::vector<std::string> argv =
			binary_.empty() ? DaemonCommand() : std::vector<std::string>{binary_};
		std::string listen = "127.0.0.1:" + std::to_string(port_);
		if (use_config_) {
			WriteFile(config(), config_lines_ + "listen " + listen + "\nroot " + root() + "\n");
			argv.insert(argv.end(), {"--config", config()});
		} else {
			argv.insert(argv.end(), {"--listen", listen, "--root", root()});
		}
		argv.insert(argv.end(), extra_args.begin(), extra_args.end());
		pid_ = Spawn(argv);
		if (pid_ < 0)
			return "fork failed";
		if (no_wait_)
			return "";
		int fd = -1; // refused until the daemon listens
		for (int64_t end = NowMs() + 10000; fd < 0 && NowMs() < end; SleepMs(20))
			if (waitpid(pid_, nullptr, WNOHANG) == 0)
				fd = ConnectLoopback(port_, 1000);
		if (fd < 0)
			return "the daemon did not accept on port " + std::to_string(port_) +
			       "; stderr: " + Err();
		close(fd);
		// The listener is the supervisor's from the announcement on; a generation
		// answers once it is ready (a SIGHUP before that waits for it: BEHAVIOUR 17).
		if (!WaitUntil([&] { return ParseResponse(Roundtrip(port_, GetClose("/health")).bytes)
						    .status > 0; }))
			return "no answer on port " + std::to_string(port_) + "; stderr: " + Err();
		if (settle_ && !WaitForSettledStart(pid_))
			return "the daemon did not settle (gzip forms); stderr: " + Err();
		return "";
	}

	// Start returns once the daemon is spawned, without waiting for it to accept.
	void NoWait() { no_wait_ = true; }
	// Start returns once the daemon answers, without waiting for a settled start.
	void DoNotSettle() { settle_ = false; }
	// Starts the daemon from binary (a copy of it, say) rather than DaemonCommand().
	void UseBinary(const std::string &binary) { binary_ = binary; }
	// Gives --listen and --root in a --config file, config(), after lines (BEHAVIOUR 2.1).
	void UseConfig(const std::string &lines)
	{
		use_config_ = true;
		config_lines_ = lines;
	}
	std::string config() const { return dir_ + "/apollod.conf"; }

	std::string root() const { return dir_ + "/root"; }
	std::string Err() const { return Slurp(dir_ + "/err"); }
	std::string Out() const { return Slurp(dir_ + "/out"); } // the announcement lines
	int port() const { return port_; }
	pid_t pid() const { return pid_; }
	pid_t new_pid() const { return new_pid_; }
	pid_t generation() const { return ServingGeneration(pid_); } // the one serving now

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

	// Waits for the n-th "reloaded" line (the resident supervisor's, BEHAVIOUR 17) and
	// notes the new generation's pid and the draining one's. Returns the new one, or -1
	// after kLineWaitMs.
	pid_t WaitForReloaded(int n = 1)
	{
		std::regex re("apollod: reloaded: process ([0-9]+) serves the new snapshot; "
			      "process ([0-9]+) drains\n");
		int64_t deadline = NowMs() + kLineWaitMs;
		do {
			std::string text = Err();
			int seen = 0;
			for (std::sregex_iterator i(text.begin(), text.end(), re), end; i != end; ++i)
				if (++seen == n) {
					draining_pid_ = (pid_t)std::stoi((*i)[2].str());
					return new_pid_ = (pid_t)std::stoi((*i)[1].str());
				}
			SleepMs(10);
		} while (NowMs() < deadline);
		return -1;
	}

	// WaitForReloaded(n), then waits for the generation its line names as draining to exit
	// (kStateWaitMs at most): it accepts until its retire signal (BEHAVIOUR 17), so only
	// from then on does every new connection reach the new one. Returns the new
	// generation's pid, or -1.
	pid_t WaitForReloadedAlone(int n = 1)
	{
		return WaitForReloaded(n) > 0 && WaitUntilExited(draining_pid_) ? new_pid_ : -1;
	}

	// SIGTERM to the daemon (its resident supervisor); waits for it and reaps whatever
	// was reparented to us. Returns its wait status, or -1.
	int Stop()
	{
		if (kill(pid_, SIGTERM) != 0)
			return -1;
		int status = WaitExit(pid_);
		while (waitpid(-1, nullptr, WNOHANG) > 0) {
		}
		if (status >= 0)
			pid_ = -1;
		return status;
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
	std::string binary_; // "" for DaemonCommand()
	bool settle_ = true; // Start waits for a settled start (WaitForSettledStart)
	bool use_config_ = false;  // UseConfig
	bool no_wait_ = false;     // NoWait
	std::string config_lines_; // what config() holds before --listen and --root
	int port_ = 0;
	pid_t pid_ = -1;
	pid_t new_pid_ = -1;
	pid_t draining_pid_ = -1; // the n-th reloaded line's, WaitForReloaded
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

inline const std::string kBodyA = "a\n";

// Whether bytes begin with one complete 200 answer carrying /a.txt's body; *used is its
// length. A response without the whole body yet is "incomplete" (false, *used = 0).
inline bool TakeResponse(const std::string &bytes, size_t *used)
{
	*used = 0;
	size_t end = ResponseEnd(bytes, 0, false);
	if (end == std::string::npos || end > bytes.size())
		return false;
	HttpResponse r = ParseResponse(bytes.substr(0, end));
	*used = end;
	return r.parsed && r.status == 200 && r.body == kBodyA;
}

// One request per new connection ("Connection: close") until stop_at_ms (or *stop). Anything short of
// a whole 200 fails: a refused or timed-out connection, a partial answer, and also an end
// of input or a reset before a single byte of the answer (a new connection's request is
// never one the daemon may drop, reload or not: BEHAVIOUR 11, 17).
inline void CloseLoad(int port, int64_t stop_at_ms, LoadResult *result,
		      const std::atomic<bool> *stop = nullptr)
{
	while (NowMs() < stop_at_ms && !(stop && *stop)) {
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

inline int StatusOf(int port, const std::string &target)
{
	Received r = Roundtrip(port, GetClose(target));
	return ParseResponse(r.bytes).status;
}

} // namespace wire

#endif // APOLLOD_TEST_WIRE_RELOAD_DAEMON_H
