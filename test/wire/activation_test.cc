// Socket activation over the wire (BEHAVIOUR 13.5), with systemd's own
// systemd-socket-activate: it opens the sockets, waits for the first connection, then
// execs the daemon with LISTEN_FDS and LISTEN_PID. The daemon serves the passed sockets,
// announces each, and binds nothing (not even its --listen).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kRunTimeoutMs = 10000;

// systemd-socket-activate running the daemon, stdout piped; killed (SIGKILL) if still
// there when it goes out of scope.
class Activated {
public:
	// Starts it with one -l per entry of listen, then the daemon with daemon_args.
	bool Start(const std::vector<std::string> &listen,
		   const std::vector<std::string> &daemon_args, std::string *error)
	{
		std::vector<std::string> args = {"systemd-socket-activate"};
		for (const std::string &l : listen)
			args.insert(args.end(), {"-l", l});
		args.push_back("--");
		std::vector<std::string> daemon = DaemonCommand();
		args.insert(args.end(), daemon.begin(), daemon.end());
		args.insert(args.end(), daemon_args.begin(), daemon_args.end());
		std::vector<char *> argv;
		for (std::string &a : args)
			argv.push_back(a.data());
		argv.push_back(nullptr);
		int out[2];
		if (pipe2(out, O_CLOEXEC) != 0) {
			*error = std::string("pipe2: ") + strerror(errno);
			return false;
		}
		pid_ = fork();
		if (pid_ == 0) {
			dup2(out[1], STDOUT_FILENO);
			close_range(3, ~0u, 0);
			execvp(argv[0], argv.data());
			_exit(127);
		}
		close(out[1]);
		out_ = out[0];
		return pid_ > 0;
	}

	// Reads stdout until it holds n lines (timeout_ms at most); returns them.
	std::vector<std::string> Lines(size_t n, int timeout_ms)
	{
		int64_t deadline = NowMs() + timeout_ms;
		while (static_cast<size_t>(std::count(text_.begin(), text_.end(), '\n')) < n &&
		       NowMs() < deadline) {
			struct pollfd p = {out_, POLLIN, 0};
			if (poll(&p, 1, 50) <= 0)
				continue;
			char buf[512];
			ssize_t got = read(out_, buf, sizeof(buf));
			if (got <= 0)
				break;
			text_.append(buf, static_cast<size_t>(got));
		}
		std::vector<std::string> lines;
		for (size_t at = 0, nl; (nl = text_.find('\n', at)) != std::string::npos; at = nl + 1)
			lines.push_back(text_.substr(at, nl - at));
		return lines;
	}

	// SIGTERM, then waits (timeout_ms at most). Returns the exit status, or -1.
	int Stop(int timeout_ms)
	{
		kill(pid_, SIGTERM);
		int status = 0;
		for (int64_t deadline = NowMs() + timeout_ms; NowMs() < deadline; SleepMs(10))
			if (waitpid(pid_, &status, WNOHANG) == pid_) {
				pid_ = -1;
				return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
			}
		return -1;
	}

	~Activated()
	{
		if (pid_ > 0) {
			kill(pid_, SIGKILL);
			waitpid(pid_, nullptr, 0);
		}
		if (out_ >= 0)
			close(out_);
	}

private:
	pid_t pid_ = -1;
	int out_ = -1;
	std::string text_;
};

// Passes `count` sockets on fresh ports and checks each is served and announced, and
// that the daemon's own --listen port stays closed.
void CheckActivation(int count, const std::vector<std::string> &extra)
{
	std::vector<int> ports;
	std::vector<std::string> listen;
	for (int i = 0; i < count; i++) {
		ports.push_back(RecentlyFreePort());
		ASSERT_GT(ports.back(), 0);
		listen.push_back("127.0.0.1:" + std::to_string(ports.back()));
	}
	int own = RecentlyFreePort();
	ASSERT_GT(own, 0);
	std::vector<std::string> args = {"--listen", "127.0.0.1:" + std::to_string(own)};
	args.insert(args.end(), extra.begin(), extra.end());
	Activated activated;
	std::string error;
	ASSERT_TRUE(activated.Start(listen, args, &error)) << error;
	// systemd-socket-activate listens a moment after the fork: the first connection that
	// gets through starts the daemon, which answers it from the backlog.
	int first = -1;
	for (int64_t deadline = NowMs() + kRunTimeoutMs; first < 0 && NowMs() < deadline;
	     SleepMs(20))
		first = ConnectLoopback(ports[0], 500);
	ASSERT_GE(first, 0) << "systemd-socket-activate never listened on " << listen[0];
	Received r = Exchange(first, GetClose("/health"), false, kRunTimeoutMs);
	EXPECT_EQ(ParseResponse(r.bytes).status, 200) << r.bytes;
	for (int round = 0; round < 3; round++)
		for (int port : ports)
			EXPECT_EQ(LivenessProblem(port), "") << "port " << port;
	std::vector<std::string> lines = activated.Lines(ports.size(), kRunTimeoutMs);
	ASSERT_EQ(lines.size(), ports.size());
	for (size_t i = 0; i < ports.size(); i++)
		EXPECT_EQ(lines[i], "apollod listening on " + listen[i]);
	EXPECT_LT(ConnectLoopback(own, 500), 0) << "the daemon bound its own --listen too";
	EXPECT_EQ(activated.Stop(kRunTimeoutMs), 0) << "graceful stop of the activated daemon";
}

TEST(ActivationTest, ServesOnePassedSocket)
{
	REQUIRE_FEATURE("routes");
	CheckActivation(1, {});
}

TEST(ActivationTest, ServesTwoPassedSockets)
{
	REQUIRE_FEATURE("routes");
	CheckActivation(2, {});
}

// With --workers every worker serves the same passed sockets.
TEST(ActivationTest, WorkersShareThePassedSockets)
{
	REQUIRE_FEATURE("workers");
	CheckActivation(2, {"--workers", "2"});
}

// LISTEN_PID names this process but LISTEN_FDS is unusable: a usage error, one line.
TEST(ActivationTest, BadListenFdsIsRefused)
{
	REQUIRE_FEATURE("routes");
	for (const char *fds : {"0", "9", "x", ""}) {
		SCOPED_TRACE(std::string("LISTEN_FDS=") + fds);
		std::string cmd = "LISTEN_PID=$$ LISTEN_FDS='" + std::string(fds) + "' exec";
		for (const std::string &w : DaemonCommand())
			cmd += " '" + w + "'";
		CommandResult r = RunCommand({"sh", "-c", cmd}, "", kRunTimeoutMs);
		ASSERT_TRUE(r.ran) << r.problem;
		EXPECT_EQ(r.exit_code, 64);
		EXPECT_EQ(r.err, "apollod: LISTEN_FDS: not 1 to 8 sockets for this process\n");
	}
}

// A passed descriptor that is no listening socket: exit 4 with a line naming it.
TEST(ActivationTest, PassedNonSocketIsRefused)
{
	REQUIRE_FEATURE("routes");
	std::string cmd = "LISTEN_PID=$$ LISTEN_FDS=1 exec";
	for (const std::string &w : DaemonCommand())
		cmd += " '" + w + "'";
	cmd += " 3</dev/null";
	CommandResult r = RunCommand({"sh", "-c", cmd}, "", kRunTimeoutMs);
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, 4);
	EXPECT_EQ(r.out, "");
	EXPECT_EQ(r.err, "apollod: LISTEN_FDS socket 3: socket operation on non-socket\n");
}

} // namespace
} // namespace wire
