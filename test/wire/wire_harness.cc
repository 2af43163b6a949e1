// The over-the-wire harness (see wire_harness.h).
#include "test/wire/wire_harness.h"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <linux/sock_diag.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <sstream>

namespace wire {
namespace {

std::string g_daemon_path;
std::vector<std::string> g_daemon_launcher;
std::vector<std::string> g_features;

constexpr char kFeaturesFlag[] = "--features=";
// Only ends a hang: a daemon that fails exits, and its stdout's end ends the wait at
// once. Under qemu on a machine loaded by builds, loading BigTreeTest's 100,000 files
// took longer than 10 s.
constexpr int kStartTimeoutMs = 60000;
constexpr int kStopGraceMs = 2000;
constexpr size_t kReadChunk = 65536;
constexpr uint64_t kBodySkipMax = 1024 * 1024; // a larger GET/HEAD body closes instead

// Milliseconds left until deadline_ms (>= 0).
int MsLeft(int64_t deadline_ms)
{
	int64_t left = deadline_ms - NowMs();
	return left > 0 ? static_cast<int>(left) : 0;
}

// Polls the one descriptor in *p until it is ready or deadline_ms passes (at once if it
// has passed), retrying on EINTR. Returns true if it is ready.
bool PollOne(struct pollfd *p, int64_t deadline_ms)
{
	for (;;) {
		int ready = poll(p, 1, MsLeft(deadline_ms));
		if (ready < 0 && errno == EINTR)
			continue;
		return ready > 0;
	}
}

// Turns O_NONBLOCK on or off on fd.
void SetNonBlocking(int fd, bool on)
{
	int flags = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK));
}


// Reads what is available on fd into out. Returns false at EOF or on an error.
bool DrainInto(int fd, std::string *out)
{
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));
	if (n > 0) {
		out->append(buf, static_cast<size_t>(n));
		return true;
	}
	return n < 0 && errno == EINTR;
}

bool IsTokenChar(unsigned char c)
{
	return isalnum(c) || strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

} // namespace

std::vector<char *> ArgvOf(const std::vector<std::string> &args)
{
	std::vector<char *> argv;
	for (const std::string &a : args)
		argv.push_back(const_cast<char *>(a.c_str()));
	argv.push_back(nullptr);
	return argv;
}

// ---- The suite's command line ----

bool ParseSuiteArgs(int argc, char **argv)
{
	if (argc < 2 || strncmp(argv[1], "--", 2) == 0) {
		fprintf(stderr, "usage: %s DAEMON_BINARY --features=a,b [gtest flags]\n", argv[0]);
		return false;
	}
	g_daemon_path = argv[1];
	if (const char *launcher = getenv("APOLLOD_EMULATOR")) {
		std::stringstream words(launcher);
		std::string word;
		while (words >> word)
			g_daemon_launcher.push_back(word);
	}
	for (int i = 2; i < argc; i++) {
		if (strncmp(argv[i], kFeaturesFlag, strlen(kFeaturesFlag)) != 0) {
			fprintf(stderr, "unknown argument: %s\n", argv[i]);
			return false;
		}
		std::stringstream list(argv[i] + strlen(kFeaturesFlag));
		std::string feature;
		while (std::getline(list, feature, ','))
			if (!feature.empty())
				g_features.push_back(feature);
	}
	return true;
}

const std::string &DaemonPath() { return g_daemon_path; }

std::string RunfilePath(const std::string &relative)
{
	const char *srcdir = getenv("TEST_SRCDIR");
	if (srcdir) {
		std::string path = std::string(srcdir) + "/apollod/" + relative;
		if (std::ifstream(path).good())
			return path;
	}
	return relative;
}

const std::vector<std::string> &DaemonLauncher() { return g_daemon_launcher; }

std::vector<std::string> DaemonCommand()
{
	std::vector<std::string> command = g_daemon_launcher;
	command.push_back(g_daemon_path);
	return command;
}

bool HasFeature(const std::string &feature)
{
	for (const std::string &f : g_features)
		if (f == feature)
			return true;
	return false;
}

int64_t NowMs()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

void SleepMs(int64_t ms)
{
	struct timespec ts = {static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1000000};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
}

// ---- Daemon process ----

// Reads `lines` announcement lines from fd (kStartTimeoutMs at most) into *announced.
// Returns the first one's port, or 0; *line holds everything read.
static int ReadAnnouncedPort(int fd, size_t lines, std::string *line,
			     std::vector<std::string> *announced)
{
	int64_t deadline = NowMs() + kStartTimeoutMs;
	while (static_cast<size_t>(std::count(line->begin(), line->end(), '\n')) < lines) {
		struct pollfd p = {fd, POLLIN, 0};
		if (!PollOne(&p, deadline) || !DrainInto(fd, line))
			break;
	}
	for (size_t at = 0, nl; (nl = line->find('\n', at)) != std::string::npos; at = nl + 1)
		announced->push_back(line->substr(at, nl - at));
	return announced->empty() ? 0 : AnnouncedPort(announced->front());
}

int AnnouncedPort(const std::string &line)
{
	size_t colon = line.rfind(':');
	return line.find(" listening on ") == std::string::npos || colon == std::string::npos
		       ? 0
		       : atoi(line.c_str() + colon + 1);
}

// Waits until something accepts connections on port (kStartTimeoutMs at most).
static bool WaitUntilListening(int port)
{
	int64_t deadline = NowMs() + kStartTimeoutMs;
	while (NowMs() < deadline) {
		int fd = ConnectLoopback(port, 500);
		if (fd >= 0) {
			close(fd);
			return true;
		}
		SleepMs(20);
	}
	return false;
}

// The bytes of a /proc file of pid, or what was read before the process went: plain
// read(2) (64 KiB at a time: /proc/net/tcp may hold 30,000 rows), since an ifstream throws from underflow when a read fails with ESRCH (the
// process exited between open and read).
static std::string ReadProcFile(const std::string &path)
{
	std::string bytes;
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bytes;
	static char buf[65536];
	for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;)
		bytes.append(buf, static_cast<size_t>(n));
	close(fd);
	return bytes;
}

// The socket inodes among pid's open descriptors (/proc/PID/fd: "socket:[INODE]").
static std::vector<unsigned long> SocketInodes(pid_t pid)
{
	std::vector<unsigned long> inodes;
	std::string dir = "/proc/" + std::to_string(pid) + "/fd";
	DIR *d = opendir(dir.c_str());
	if (!d)
		return inodes;
	for (struct dirent *e; (e = readdir(d));) {
		char target[64] = {};
		std::string link = dir + "/" + e->d_name;
		unsigned long inode;
		if (readlink(link.c_str(), target, sizeof(target) - 1) > 0 &&
		    sscanf(target, "socket:[%lu]", &inode) == 1)
			inodes.push_back(inode);
	}
	closedir(d);
	return inodes;
}

constexpr unsigned kTcpListen = 10;   // TCP_LISTEN (netinet/tcp.h)
constexpr unsigned kTcpTimeWait = 6;  // TCP_TIME_WAIT: no longer anyone's socket

// One TCP socket with its local and remote ports.
struct TcpRow {
	unsigned local_port, remote_port;
	TcpSocket socket;
};

// States for TcpSockets (bit n: TCP state n of netinet/tcp.h): listeners only, and every
// socket that is still someone's (not TIME_WAIT, of which a busy machine has thousands).
constexpr uint32_t kListening = 1u << kTcpListen;
constexpr uint32_t kLive = 0xfffu & ~(1u << kTcpTimeWait);

// The hex number at *p (skipping blanks), leaving *p after it and the character that
// ends it (':' between an address and its port, or a blank).
static unsigned long HexField(const char **p)
{
	char *end;
	unsigned long v = strtoul(*p, &end, 16);
	*p = *end ? end + 1 : end;
	return v;
}

// One row of /proc/net/tcp or tcp6 whose state is in the mask states, as *row; false for
// any other row. "sl: local:port remote:port st tx:rx tr:when retrnsmt uid timeout inode".
static bool ProcTcpRow(const char *line, uint32_t states, TcpRow *row)
{
	const char *p = strchr(line, ':');
	if (!p || !(p = strchr(p + 1, ':'))) // the sl field's colon, then the local address's
		return false;
	p++;
	row->local_port = static_cast<unsigned>(HexField(&p));
	p = strchr(p, ':'); // after the remote address (32 hex digits in tcp6: no strtoul)
	if (!p)
		return false;
	p++;
	row->remote_port = static_cast<unsigned>(HexField(&p));
	unsigned state = static_cast<unsigned>(HexField(&p));
	if (state >= 32 || !(states & (1u << state)))
		return false;
	uint64_t tx = HexField(&p), rx = HexField(&p);
	for (int skip = 0; skip < 5; skip++) // tr, when, retrnsmt, uid, timeout: digits all
		HexField(&p);
	row->socket = {true, state, tx, rx, strtoul(p, nullptr, 10)};
	return true;
}

// The same rows as TcpSockets, read from /proc/net/tcp or tcp6: slower, since the kernel
// formats every row as text, TIME_WAIT too (tens of thousands on a busy machine).
static std::vector<TcpRow> ProcTcpSockets(int family, uint32_t states)
{
	std::vector<TcpRow> rows;
	std::string text = ReadProcFile(family == AF_INET6 ? "/proc/net/tcp6" : "/proc/net/tcp");
	TcpRow row;
	for (size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 1))
		if (ProcTcpRow(text.c_str() + at + 1, states, &row))
			rows.push_back(row);
	return rows;
}

// The TCP sockets of family (AF_INET, AF_INET6) in this network namespace whose state is
// in the mask states, from the kernel's sock_diag netlink (7), which filters by state:
// /proc/net/tcp lists every TIME_WAIT row as text. Where a NETLINK_SOCK_DIAG socket is
// refused (a kernel without it; the harness itself run under qemu-user, which answers
// EPROTONOSUPPORT) the rows come from /proc.
static std::vector<TcpRow> TcpSockets(int family, uint32_t states)
{
	std::vector<TcpRow> rows;
	int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (nl < 0)
		return ProcTcpSockets(family, states);
	struct {
		struct nlmsghdr head;
		struct inet_diag_req_v2 req;
	} ask = {};
	ask.head.nlmsg_len = sizeof(ask);
	ask.head.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	ask.head.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	ask.req.sdiag_family = static_cast<uint8_t>(family);
	ask.req.sdiag_protocol = IPPROTO_TCP;
	ask.req.idiag_states = states;
	bool done = send(nl, &ask, sizeof(ask), 0) != static_cast<ssize_t>(sizeof(ask));
	alignas(struct nlmsghdr) char buf[32768];
	while (!done) {
		ssize_t got = recv(nl, buf, sizeof(buf), 0);
		int len = static_cast<int>(got);
		done = got <= 0;
		for (auto *h = reinterpret_cast<struct nlmsghdr *>(buf); !done && NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			done = h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR;
			if (done)
				break;
			auto *d = static_cast<struct inet_diag_msg *>(NLMSG_DATA(h));
			TcpSocket t = {true, d->idiag_state, d->idiag_wqueue, d->idiag_rqueue,
				       d->idiag_inode};
			rows.push_back({ntohs(d->id.idiag_sport), ntohs(d->id.idiag_dport), t});
		}
	}
	close(nl);
	return rows;
}

// The local port of the IPv4 TCP socket in LISTEN state whose inode pid holds, or 0 while
// there is none.
static int ListeningPortOf(pid_t pid)
{
	std::vector<unsigned long> inodes = SocketInodes(pid);
	for (const TcpRow &r : TcpSockets(AF_INET, kListening))
		if (std::find(inodes.begin(), inodes.end(), r.socket.inode) != inodes.end())
			return static_cast<int>(r.local_port);
	return 0;
}

// Waits until pid listens (kStartTimeoutMs at most) and returns the port, or 0 when pid
// exited or time ran out. For the min tier, which announces nothing: its listener is
// found by its inode, so the kernel's pick for port 0 is read without a race.
static int WaitForListeningPort(pid_t pid)
{
	int64_t deadline = NowMs() + kStartTimeoutMs;
	for (;;) {
		int port = ListeningPortOf(pid);
		siginfo_t ended = {};
		// WNOWAIT: an exited child stays to be reaped (and its status read) by Stop.
		if (port > 0 || NowMs() > deadline ||
		    (waitid(P_PID, pid, &ended, WEXITED | WNOHANG | WNOWAIT) == 0 && ended.si_pid == pid))
			return port;
		SleepMs(10);
	}
}

bool Daemon::Start(const DaemonOptions &options, std::string *error)
{
	// The min tier takes its port as its one argument and announces nothing.
	bool min = HasFeature("min");
	bool announced = options.stdout_mode == DaemonStdout::kPipe && !min;
	int listen_port = announced ? 0 : options.fixed_port;
	std::vector<std::string> args = DaemonCommand();
	size_t listens = 0; // --listen words in extra_args: one announcement each
	size_t admins = 0;  // --admin-listen: announced after them (BEHAVIOUR 6.5)
	for (const std::string &a : options.extra_args) {
		listens += a == "--listen" || a.rfind("--listen=", 0) == 0;
		admins += a == "--admin-listen" || a.rfind("--admin-listen=", 0) == 0;
	}
	if (listens == 0)
		listens = options.config_listens;
	if (min)
		args.push_back(std::to_string(listen_port));
	else if (listens == 0)
		args.insert(args.end(), {"--listen", "127.0.0.1:" + std::to_string(listen_port)});
	args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());
	args.insert(args.begin(), wrapper_.begin(), wrapper_.end());
	announced_.clear();
	std::vector<char *> argv = ArgvOf(args); // built before fork: the child only execs
	int out[2];
	if (pipe2(out, O_CLOEXEC) != 0) {
		*error = std::string("pipe2: ") + strerror(errno);
		return false;
	}
	if (options.stdout_mode == DaemonStdout::kBrokenPipe)
		close(out[0]);
	pid_ = fork();
	if (pid_ == 0) { // child: async-signal-safe calls only
		if (options.stdout_mode == DaemonStdout::kClosed)
			close(STDOUT_FILENO);
		else
			dup2(out[1], STDOUT_FILENO);
		if (options.stderr_fd >= 0)
			dup2(options.stderr_fd, STDERR_FILENO);
		// Only stdin, stdout and stderr go to the daemon: descriptors this process
		// inherited would otherwise count against the daemon's RLIMIT_NOFILE.
		close_range(3, ~0u, 0);
		if (options.nofile_limit != 0) {
			rlim_t hard = options.nofile_hard ? options.nofile_hard
							  : options.nofile_limit;
			struct rlimit lim = {options.nofile_limit, hard};
			if (setrlimit(RLIMIT_NOFILE, &lim) != 0)
				_exit(126);
		}
		if (options.as_nobody) {
			int binary = open(argv[0], O_RDONLY | O_CLOEXEC);
			if (binary < 0 || setgroups(0, nullptr) != 0 || setgid(kNobodyId) != 0 ||
			    setuid(kNobodyId) != 0)
				_exit(125);
			fexecve(binary, argv.data(), environ);
			_exit(127);
		}
		execv(argv[0], argv.data());
		_exit(127);
	}
	close(out[1]);
	if (pid_ < 0) {
		*error = std::string("fork: ") + strerror(errno);
		if (options.stdout_mode != DaemonStdout::kBrokenPipe)
			close(out[0]);
		return false;
	}
	std::string line;
	if (announced)
		port_ = ReadAnnouncedPort(out[0], (listens ? listens : 1) + admins, &line, &announced_);
	else if (listen_port == 0)
		port_ = WaitForListeningPort(pid_);
	else if (WaitUntilListening(listen_port))
		port_ = listen_port;
	if (options.stdout_mode != DaemonStdout::kBrokenPipe)
		close(out[0]);
	if (port_ <= 0) {
		*error = "daemon " + g_daemon_path + " did not start listening; stdout was: '" +
			 line + "'; its processes:\n" + ProcessTreeReport(pid_);
		Stop();
		return false;
	}
	if (options.settle && !WaitForSettledStart(pid_)) {
		*error = "daemon " + g_daemon_path + " did not settle: its gzip forms were not served";
		Stop();
		return false;
	}
	return true;
}

// True if a listening socket could be bound to 127.0.0.1:port just now.
static bool PortBindsNow(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {};
	a.sin_family = AF_INET;
	a.sin_port = htons(static_cast<uint16_t>(port));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bool ok = fd >= 0 && bind(fd, reinterpret_cast<struct sockaddr *>(&a), sizeof(a)) == 0 &&
		  listen(fd, 1) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

int RecentlyFreePort()
{
	// Not the kernel's pick: every port-0 bind and every client connect of the suites
	// running beside this one takes its port from the ephemeral range
	// (ip_local_port_range), so a port picked there can be taken again before the test
	// binds it (and a uring daemon's listener can outlive its process for a moment). Outside
	// that range only another test's pick can collide: random, and checked by a bind. A
	// port this process handed out is never handed out again: a test that picks two before
	// binding either (activation's passed ports and its own --listen) got the same one twice.
	static std::set<int> handed_out;
	int low = 32768, high = 60999;
	std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> low >> high;
	int first = low > kNamedPortMin + 1000 ? kNamedPortMin : high + 1;
	int last = low > kNamedPortMin + 1000 ? low - 1 : 65535;
	static std::mt19937 rng(std::random_device{}() ^ static_cast<unsigned>(getpid()));
	std::uniform_int_distribution<int> pick(first, last);
	for (int tries = 0; tries < kFreePortTries; tries++) {
		int port = pick(rng);
		if (handed_out.count(port) == 0 && PortBindsNow(port)) {
			handed_out.insert(port);
			return port;
		}
	}
	return 0;
}

void Daemon::Stop()
{
	if (pid_ <= 0)
		return;
	int status;
	if (waitpid(pid_, &status, WNOHANG) == 0) {
		kill(pid_, SIGTERM);
		int64_t deadline = NowMs() + kStopGraceMs;
		while (waitpid(pid_, &status, WNOHANG) == 0) {
			if (NowMs() > deadline) {
				kill(pid_, SIGKILL);
				waitpid(pid_, &status, 0);
				break;
			}
			SleepMs(10);
		}
	}
	pid_ = -1;
	port_ = 0;
}

bool Daemon::WaitExit(int timeout_ms, int *status)
{
	if (pid_ <= 0)
		return false;
	int64_t deadline = NowMs() + timeout_ms;
	for (;;) {
		if (waitpid(pid_, status, WNOHANG) == pid_) {
			pid_ = -1;
			port_ = 0;
			return true;
		}
		if (NowMs() > deadline)
			return false;
		SleepMs(10);
	}
}

bool Daemon::IsAlive()
{
	if (pid_ <= 0)
		return false;
	int status;
	pid_t r = waitpid(pid_, &status, WNOHANG);
	if (r == 0)
		return true;
	pid_ = -1; // reaped (or gone): nothing left to stop
	return false;
}

pid_t Daemon::ServingPid() const
{
	// The announcement comes from the supervisor before it forks the first generation:
	// on a routed tier wait (5 s at most) for a child rather than answer the supervisor.
	std::vector<pid_t> kids = Children(pid_);
	for (int64_t end = NowMs() + 5000; kids.empty() && HasFeature("routes") && NowMs() < end;
	     SleepMs(5))
		kids = Children(pid_);
	return kids.size() == 1 ? kids[0] : pid_;
}

int Daemon::OpenDescriptorCount(int below) const
{
	std::string dir = "/proc/" + std::to_string(ServingPid()) + "/fd";
	DIR *d = opendir(dir.c_str());
	if (!d)
		return -1;
	int count = 0;
	while (struct dirent *e = readdir(d))
		if (e->d_name[0] != '.' && atoi(e->d_name) < below)
			count++;
	closedir(d);
	return count;
}

int WaitForOpenDescriptors(Daemon &daemon, int want, int timeout_ms, int below)
{
	int count = -1;
	WaitUntil([&] { return (count = daemon.OpenDescriptorCount(below)) == want; }, timeout_ms);
	return count;
}

// ---- Raw TCP client ----

std::string Random(size_t n, uint64_t seed)
{
	std::mt19937_64 rng(seed);
	std::string s(n, '\0');
	for (char &c : s)
		c = static_cast<char>(rng());
	return s;
}

// A non-blocking socket connected to 127.0.0.1:port within timeout_ms, set up by
// before(fd) (returning 0, or an errno) ahead of the connect; -1 on failure, with *error
// the errno (ETIMEDOUT when the connect did not complete in time).
static int ConnectWith(int port, int timeout_ms, const std::function<int(int)> &before,
		       int *error)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*error = errno;
		return -1;
	}
	struct sockaddr_in addr = {};
	addr.sin_family = AF_INET;
	addr.sin_port = htons(static_cast<uint16_t>(port));
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	*error = before(fd);
	if (*error == 0 && connect(fd, reinterpret_cast<struct sockaddr *>(&addr), sizeof(addr)) != 0)
		*error = errno;
	if (*error == EINPROGRESS) {
		struct pollfd p = {fd, POLLOUT, 0};
		*error = ETIMEDOUT;
		socklen_t len = sizeof(*error);
		if (poll(&p, 1, timeout_ms) == 1)
			getsockopt(fd, SOL_SOCKET, SO_ERROR, error, &len);
	}
	if (*error != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int ConnectLoopback(int port, int timeout_ms, int receive_buffer, int *error)
{
	int ignored = 0;
	int fd = ConnectWith(
		port, timeout_ms,
		[receive_buffer](int s) {
			return receive_buffer > 0 && setsockopt(s, SOL_SOCKET, SO_RCVBUF, &receive_buffer,
								sizeof(receive_buffer)) != 0
				       ? errno
				       : 0;
		},
		error ? error : &ignored);
	if (fd >= 0)
		SetNonBlocking(fd, false);
	return fd;
}

bool SendAll(int fd, const std::string &data)
{
	size_t off = 0;
	while (off < data.size()) {
		ssize_t n = send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		off += static_cast<size_t>(n);
	}
	return true;
}

bool IsImfFixdate(const std::string &s)
{
	struct tm t = {};
	const char *end = strptime(s.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &t);
	if (s.size() != 29 || end != s.c_str() + s.size())
		return false;
	time_t back = timegm(&t); // normalises: a 31 Feb or a wrong weekday would differ
	struct tm again = {};
	char out[64];
	gmtime_r(&back, &again);
	size_t n = strftime(out, sizeof(out), "%a, %d %b %Y %H:%M:%S GMT", &again);
	return std::string(out, n) == s;
}

// "\r\nDate: " + IMF-fixdate + "\r\n": the line the filter takes out (from "Date").
constexpr char kDateLead[] = "\r\nDate: ";
constexpr size_t kDateLeadLen = sizeof(kDateLead) - 1;
constexpr size_t kDateLineLen = kDateLeadLen + 29 + 2;
static_assert(kDateLineLen == 2 + kDateLineBytes, "the CRLF before the line, then the line");

// Moves r->pending to r->bytes, dropping every well-formed Date line (see Received) and
// holding back a tail that may still become one (all of it at the end of the stream).
static void StripDates(Received *r, bool end)
{
	std::string &in = r->pending;
	size_t at = 0;
	for (;;) {
		size_t p = in.find(kDateLead, at);
		if (p == std::string::npos || p + kDateLineLen > in.size())
			break;
		std::string date = in.substr(p + kDateLeadLen, 29);
		bool ok = IsImfFixdate(date) && in.compare(p + kDateLineLen - 2, 2, "\r\n") == 0;
		r->bytes.append(in, at, p + 2 - at); // through the CRLF before the field
		at = p + 2;
		if (ok) {
			at = p + kDateLineLen;
			r->dates++;
		}
	}
	size_t keep = in.size(); // the earliest CRLF that a Date line may still follow
	for (size_t q = in.size() > at + kDateLineLen ? in.size() - kDateLineLen : at;
	     !end && q < in.size(); q++) {
		size_t n = std::min(in.size() - q, kDateLeadLen);
		// a CRLF right after a CRLF ends a head: no field follows it
		bool ends_head = q >= 2 ? in.compare(q - 2, 2, "\r\n") == 0
					: q == 0 && r->bytes.size() >= 2 &&
						  r->bytes.compare(r->bytes.size() - 2, 2, "\r\n") == 0;
		if (!ends_head && in.compare(q, n, kDateLead, n) == 0) {
			keep = q;
			break;
		}
	}
	r->bytes.append(in, at, keep - at);
	in.erase(0, keep);
}

SmallSite::SmallSite(const std::string &text)
{
	char name[] = "/tmp/apollod-site-XXXXXX";
	if (mkdtemp(name) == nullptr || chmod(name, 0755) != 0) {
		ADD_FAILURE() << "mkdtemp: " << strerror(errno);
		return;
	}
	path_ = name;
	std::ofstream(path_ + "/f.txt") << text;
	if (mkdir((path_ + "/sub").c_str(), 0755) != 0)
		ADD_FAILURE() << "mkdir: " << strerror(errno);
}

void RemoveTree(const std::string &path)
{
	nftw(
		path.c_str(),
		[](const char *p, const struct stat *, int, struct FTW *) { return remove(p); },
		16, FTW_DEPTH | FTW_PHYS);
}

SmallSite::~SmallSite()
{
	if (!path_.empty())
		RemoveTree(path_);
}

FileRoot::FileRoot(const std::vector<std::pair<std::string, std::string>> &files)
{
	char name[] = "/tmp/apollod-root-XXXXXX";
	if (mkdtemp(name) == nullptr || chmod(name, 0755) != 0) {
		ADD_FAILURE() << "mkdtemp: " << strerror(errno);
		return;
	}
	dir_ = name;
	for (const auto &f : files) {
		for (size_t slash = f.first.find('/'); slash != std::string::npos;
		     slash = f.first.find('/', slash + 1))
			mkdir((dir_ + "/" + f.first.substr(0, slash)).c_str(), 0755); // or EEXIST
		std::ofstream(dir_ + "/" + f.first, std::ios::binary) << f.second;
	}
}

FileRoot::~FileRoot()
{
	if (!dir_.empty())
		RemoveTree(dir_);
}

ServedTree::ServedTree(const std::string &what,
		       const std::function<std::string(const std::string &dir)> &fill,
		       const std::vector<std::string> &flags)
{
	std::string pattern = "/tmp/apollod-" + what + "-XXXXXX";
	std::vector<char> name(pattern.begin(), pattern.end());
	name.push_back('\0');
	if (mkdtemp(name.data()) == nullptr) {
		error_ = std::string("mkdtemp: ") + strerror(errno);
		return;
	}
	dir_ = name.data();
	error_ = fill(dir_);
	DaemonOptions options;
	options.extra_args = {"--root", dir_};
	options.extra_args.insert(options.extra_args.end(), flags.begin(), flags.end());
	if (error_.empty())
		daemon_.Start(options, &error_);
}

std::vector<std::string> Chromium(const std::string &profile, const std::string &what,
				  const std::string &url)
{
	return {"chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--user-data-dir=" + profile, "--window-size=900,420", what, url};
}

bool Put(const std::string &root, const std::string &rel, const std::string &content)
{
	for (size_t slash = rel.find('/'); slash != std::string::npos;
	     slash = rel.find('/', slash + 1))
		mkdir((root + "/" + rel.substr(0, slash)).c_str(), 0755); // EEXIST is fine
	int fd = open((root + "/" + rel).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	bool ok = fd >= 0 && write(fd, content.data(), content.size()) ==
				     static_cast<ssize_t>(content.size());
	if (fd >= 0)
		close(fd);
	return ok;
}

ServedTree::~ServedTree()
{
	daemon_.Stop();
	if (!dir_.empty())
		RemoveTree(dir_);
}

std::string WithoutDates(const std::string &raw, size_t *dates)
{
	Received r;
	r.pending = raw;
	StripDates(&r, true);
	if (dates)
		*dates = r.dates;
	return r.bytes;
}

// Reads once from fd into r. Returns false when the stream ended (EOF or reset) or an
// unexpected error occurred; true for data or "try again".
static bool ReadOnce(int fd, Received *r)
{
	static thread_local char buf[kReadChunk];
	ssize_t n = recv(fd, buf, sizeof(buf), 0);
	if (n > 0) {
		r->pending.append(buf, static_cast<size_t>(n));
		StripDates(r, false);
		return true;
	}
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n == 0) {
		r->eof = true;
	} else {
		r->reset = true; // ECONNRESET, or anything else that ends the stream
		r->error = errno;
	}
	StripDates(r, true);
	return false;
}

Received ReadUntilClose(int fd, int timeout_ms)
{
	Received r;
	int64_t start = NowMs(), deadline = start + timeout_ms;
	for (;;) {
		struct pollfd p = {fd, POLLIN, 0};
		if (!PollOne(&p, deadline))
			r.timed_out = true;
		if (r.timed_out || !ReadOnce(fd, &r)) {
			r.took_ms = NowMs() - start;
			return r;
		}
	}
}

// Sends request on fd while reading into *r (see Exchange), shutting the write side after
// the last byte if shut_write. Returns once the request is sent and done(r->bytes) holds,
// or the stream ended (EOF, reset), or deadline_ms passed (r->timed_out). Leaves fd open.
static void ExchangeOn(int fd, const std::string &request, bool shut_write, int64_t deadline_ms,
		       const std::function<bool(const std::string &)> &done, Received *r)
{
	size_t off = 0;
	bool sending = true;
	r->request_size = request.size();
	SetNonBlocking(fd, true);
	for (;;) {
		if (sending && off == request.size()) {
			if (shut_write) {
				shutdown(fd, SHUT_WR);
				r->shut_write = true;
			}
			sending = false;
		}
		if (!sending && done(r->bytes))
			break;
		struct pollfd p = {fd, static_cast<short>(POLLIN | (sending ? POLLOUT : 0)), 0};
		if (!PollOne(&p, deadline_ms)) {
			r->timed_out = true;
			break;
		}
		if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
			if (!ReadOnce(fd, r))
				break;
		}
		if (sending && (p.revents & POLLOUT)) {
			ssize_t n = send(fd, request.data() + off, request.size() - off,
					 MSG_NOSIGNAL);
			if (n > 0)
				off += static_cast<size_t>(n);
			else if (n < 0 && errno != EAGAIN && errno != EINTR)
				sending = false; // the daemon closed early; read what it said
			if (n < 0 && !sending && r->error == 0)
				r->error = errno;
		}
	}
	r->request_sent = off;
	SetNonBlocking(fd, false);
}

// An ExchangeOn condition that never holds: read until the stream ends.
static bool UntilClose(const std::string &) { return false; }

Received Exchange(int fd, const std::string &request, bool shut_write, int timeout_ms)
{
	Received r;
	int64_t start = NowMs();
	ExchangeOn(fd, request, shut_write, start + timeout_ms, UntilClose, &r);
	r.took_ms = NowMs() - start;
	close(fd);
	return r;
}

// What a roundtrip whose connect failed with error (started at start_ms) received.
static Received ConnectFailed(const std::string &request, int error, int64_t start_ms)
{
	Received r;
	r.timed_out = r.connect_failed = true;
	r.error = error;
	r.request_size = request.size();
	r.took_ms = NowMs() - start_ms;
	return r;
}

Received Roundtrip(int port, const std::string &request, bool shut_write, int timeout_ms)
{
	int64_t start = NowMs();
	int error = 0;
	int fd = ConnectLoopback(port, timeout_ms, 0, &error);
	if (fd < 0)
		return ConnectFailed(request, error, start);
	Received r = Exchange(fd, request, shut_write, timeout_ms);
	r.took_ms = NowMs() - start;
	return r;
}

// The kernel's struct tcp_info (linux/tcp.h) runs past glibc's, which ends with
// tcpi_total_retrans: tcpi_segs_out (since Linux 4.2), the segments the socket has sent,
// the SYN included, is at this offset.
constexpr size_t kTcpInfoSegsOut = 136;
static_assert(offsetof(struct tcp_info, tcpi_total_retrans) == 100 &&
		      sizeof(struct tcp_info) == 104,
	      "glibc's tcp_info is the kernel's first 104 bytes");
// Segments a connection has sent when its first data carried the handshake's last ACK.
constexpr int64_t kSegmentsSynThenData = 2;
// Below this long from the connect to the data's send, the kernel's delayed ACK (200 ms,
// TCP_DELACK_MAX, counted in jiffies) cannot have left on its own.
constexpr int64_t kDelayedAckFloorMs = 150;

// Segments fd has sent, or -1 when TCP_INFO does not reach tcpi_segs_out (qemu-user
// copies its first int only).
static int64_t SegmentsSent(int fd)
{
	unsigned char info[kTcpInfoSegsOut + sizeof(uint32_t)] = {};
	socklen_t len = sizeof(info);
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, info, &len) != 0 || len < sizeof(info))
		return -1;
	uint32_t segments;
	memcpy(&segments, info + kTcpInfoSegsOut, sizeof(segments));
	return segments;
}

Received RoundtripOnHandshake(int port, const std::string &request, int timeout_ms, bool *rode)
{
	int64_t start = NowMs();
	int one = 1, error = 0;
	*rode = false;
	int fd = ConnectWith(
		port, timeout_ms,
		[&one](int s) {
			return setsockopt(s, IPPROTO_TCP, TCP_DEFER_ACCEPT, &one, sizeof(one)) != 0
				       ? errno
				       : 0;
		},
		&error);
	if (fd < 0)
		return ConnectFailed(request, error, start);
	Received r;
	ssize_t sent = send(fd, request.data(), request.size(), MSG_NOSIGNAL);
	int64_t segments = SegmentsSent(fd);
	if (sent == static_cast<ssize_t>(request.size()))
		*rode = segments < 0 ? NowMs() - start < kDelayedAckFloorMs
				     : segments == kSegmentsSynThenData;
	size_t first = sent > 0 ? static_cast<size_t>(sent) : 0;
	ExchangeOn(fd, request.substr(first), false, start + timeout_ms, UntilClose, &r);
	close(fd);
	r.request_size = request.size();
	r.request_sent += first;
	r.took_ms = NowMs() - start;
	return r;
}

// errno's symbolic name ("ECONNRESET"), or its number when it has none.
static std::string ErrnoName(int error)
{
	const char *name = strerrorname_np(error);
	return name ? name : "errno " + std::to_string(error);
}

std::string HowItEnded(const Received &r)
{
	std::string how = "after " + std::to_string(r.took_ms) + " ms";
	if (r.connect_failed)
		return "connect failed (" + ErrnoName(r.error) + ") " + how;
	how = (r.eof	   ? "EOF"
	       : r.reset     ? "reset (" + ErrnoName(r.error) + ")"
	       : r.timed_out ? "timed out"
			     : "still open") +
	      " " + how + ", " + std::to_string(r.bytes.size() + r.pending.size()) +
	      " bytes read";
	if (r.request_size > 0)
		how += ", request sent " + std::to_string(r.request_sent) + " of " +
		       std::to_string(r.request_size) + " bytes";
	if (r.request_sent < r.request_size && r.error != 0 && !r.reset)
		how += " (send: " + ErrnoName(r.error) + ")";
	return how + (r.shut_write ? ", write side shut" : "");
}

bool PeerSpokeOrClosed(int fd, int wait_ms)
{
	struct pollfd p = {fd, POLLIN, 0};
	return PollOne(&p, NowMs() + wait_ms);
}

size_t ResponseEnd(const std::string &bytes, size_t at, bool head_only)
{
	size_t head_end = bytes.find("\r\n\r\n", at);
	if (head_end == std::string::npos)
		return std::string::npos;
	head_end += 4;
	// A 204 and a 304 never have a body (RFC 9110 6.4.1), nor a Content-Length to say so.
	if (head_only || bytes.compare(at, 13, "HTTP/1.1 204 ") == 0 ||
	    bytes.compare(at, 13, "HTTP/1.1 304 ") == 0)
		return head_end;
	static const char kName[] = "\r\ncontent-length:";
	size_t name_len = strlen(kName);
	for (size_t i = at; i + name_len <= head_end; i++) {
		if (strncasecmp(bytes.c_str() + i, kName, name_len) != 0)
			continue;
		char *digits_end;
		unsigned long long length = strtoull(bytes.c_str() + i + name_len, &digits_end, 10);
		if (digits_end == bytes.c_str() + i + name_len)
			return std::string::npos;
		size_t end = head_end + static_cast<size_t>(length);
		return end <= bytes.size() ? end : std::string::npos;
	}
	return std::string::npos;
}

Client::Client(int port) : fd_(ConnectLoopback(port))
{
	int one = 1;
	if (fd_ >= 0)
		setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

Client::~Client()
{
	if (fd_ >= 0)
		close(fd_);
}

bool Client::Send(const std::string &data) { return fd_ >= 0 && SendAll(fd_, data); }

void Client::ShutWrite()
{
	shutdown(fd_, SHUT_WR);
	in_.shut_write = true;
}

bool Client::SendWithFin(const std::string &data)
{
	int on = 1;
	if (fd_ < 0 || setsockopt(fd_, IPPROTO_TCP, TCP_CORK, &on, sizeof(on)) != 0)
		return false;
	bool sent = SendAll(fd_, data);
	ShutWrite();
	return sent;
}

bool Client::ReadMore(int64_t deadline_ms)
{
	if (fd_ < 0 || ended())
		return false;
	struct pollfd p = {fd_, POLLIN, 0};
	if (!PollOne(&p, deadline_ms)) {
		in_.timed_out = true;
		return false;
	}
	return ReadOnce(fd_, &in_);
}

std::string Client::Take(size_t n, int timeout_ms)
{
	int64_t deadline = NowMs() + timeout_ms;
	while (in_.bytes.size() < n && ReadMore(deadline)) {
	}
	std::string taken = in_.bytes.substr(0, n);
	in_.bytes.erase(0, taken.size());
	return taken;
}

std::string Client::TakeResponse(bool head_only, int timeout_ms)
{
	int64_t deadline = NowMs() + timeout_ms;
	size_t end;
	while ((end = ResponseEnd(in_.bytes, 0, head_only)) == std::string::npos &&
	       ReadMore(deadline)) {
	}
	if (end == std::string::npos)
		return "";
	return Take(end, 0);
}

bool Client::Quiet(int wait_ms)
{
	return fd_ >= 0 && in_.bytes.empty() && !ended() && !PeerSpokeOrClosed(fd_, wait_ms);
}

Received Client::TakeUntilClose(int timeout_ms)
{
	int64_t deadline = NowMs() + timeout_ms;
	while (ReadMore(deadline)) {
	}
	Received rest = in_;
	in_.bytes.clear();
	return rest;
}

// ---- HTTP responses ----

std::string HttpResponse::Header(const std::string &name, int *count) const
{
	std::string value;
	int n = 0;
	for (const auto &h : headers) {
		if (strcasecmp(h.first.c_str(), name.c_str()) == 0) {
			value = h.second;
			n++;
		}
	}
	if (count)
		*count = n;
	return value;
}

HttpResponse ParseResponse(const std::string &bytes)
{
	HttpResponse resp;
	size_t end = bytes.find("\r\n\r\n");
	if (end == std::string::npos) {
		resp.error = "no CRLFCRLF in " + std::to_string(bytes.size()) + " bytes";
		return resp;
	}
	resp.head = bytes.substr(0, end + 4);
	resp.body = bytes.substr(end + 4);
	for (size_t i = 0; i < resp.head.size(); i++) {
		char c = resp.head[i];
		if (c == '\n' && (i == 0 || resp.head[i - 1] != '\r')) {
			resp.error = "bare LF at head byte " + std::to_string(i);
			return resp;
		}
		if (c == '\r' && (i + 1 >= resp.head.size() || resp.head[i + 1] != '\n')) {
			resp.error = "bare CR at head byte " + std::to_string(i);
			return resp;
		}
	}
	std::vector<std::string> lines;
	for (size_t at = 0; at < end;) {
		size_t eol = resp.head.find("\r\n", at);
		lines.push_back(resp.head.substr(at, eol - at));
		at = eol + 2;
	}
	resp.status_line = lines.empty() ? "" : lines[0];
	const std::string &sl = resp.status_line;
	if (sl.size() < 14 || sl.compare(0, 9, "HTTP/1.1 ") != 0 || !isdigit(sl[9]) ||
	    !isdigit(sl[10]) || !isdigit(sl[11]) || sl[12] != ' ') {
		resp.error = "bad status line '" + sl + "'";
		return resp;
	}
	resp.status = atoi(sl.c_str() + 9);
	for (size_t i = 1; i < lines.size(); i++) {
		const std::string &line = lines[i];
		size_t colon = line.find(':');
		size_t name_len = colon == std::string::npos ? 0 : colon;
		for (size_t k = 0; k < name_len; k++)
			if (!IsTokenChar(static_cast<unsigned char>(line[k])))
				name_len = 0;
		if (name_len == 0 || line.compare(colon, 2, ": ") != 0) {
			resp.error = "bad header line '" + line + "'";
			return resp;
		}
		resp.headers.emplace_back(line.substr(0, colon), line.substr(colon + 2));
	}
	resp.parsed = true;
	return resp;
}

std::string Get(const std::string &target, const std::string &method)
{
	return method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
}

std::string GetClose(const std::string &target, const std::string &method)
{
	return method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
}

std::string AsKeepAlive(const std::string &close_form)
{
	static const std::string kClose = "\r\nConnection: close\r\n";
	std::string bytes = close_form;
	size_t at = bytes.find(kClose);
	if (at != std::string::npos)
		bytes.replace(at, kClose.size(), "\r\nConnection: keep-alive\r\n");
	return bytes;
}

// Adds the comma- or whitespace-separated tokens of a Connection value to *close and
// *keep_alive (matched ignoring case, RFC 9110 7.6.1).
static void ScanConnectionTokens(const std::string &value, bool *close_token, bool *keep_token)
{
	std::string token;
	for (size_t i = 0; i <= value.size(); i++) {
		char c = i < value.size() ? value[i] : ',';
		if (c != ',' && c != ' ' && c != '\t') {
			token += c;
			continue;
		}
		*close_token |= strcasecmp(token.c_str(), "close") == 0;
		*keep_token |= strcasecmp(token.c_str(), "keep-alive") == 0;
		token.clear();
	}
}

std::string ExpectedConnection(const std::string &request, int status)
{
	if (!HasFeature("keepalive") || status == 400 || status == 414)
		return "close";
	std::string head = request.substr(0, request.find("\r\n\r\n"));
	size_t line_end = std::min(head.find("\r\n"), head.size());
	std::string line = head.substr(0, line_end);
	std::string method = line.substr(0, line.find(' '));
	bool http10 = line.size() >= 8 && line.compare(line.size() - 8, 8, "HTTP/1.0") == 0;
	bool close_token = false, keep_token = false;
	uint64_t content_length = 0;
	for (size_t at = line_end; at < head.size();) {
		at += 2; // the CRLF before this header line
		size_t eol = std::min(head.find("\r\n", at), head.size());
		std::string header = head.substr(at, eol - at);
		at = eol;
		size_t colon = header.find(':');
		if (colon == std::string::npos)
			continue;
		std::string name = header.substr(0, colon);
		std::string value = header.substr(colon + 1);
		if (strcasecmp(name.c_str(), "connection") == 0)
			ScanConnectionTokens(value, &close_token, &keep_token);
		else if (strcasecmp(name.c_str(), "content-length") == 0)
			content_length = strtoull(value.c_str(), nullptr, 10);
	}
	bool keep = http10 ? keep_token && !close_token : !close_token;
	if (status == 405 && content_length > 0)
		keep = false; // a 405 with a body closes (BEHAVIOUR 6)
	if ((method == "GET" || method == "HEAD") && content_length > kBodySkipMax)
		keep = false; // not worth reading to skip
	return keep ? "keep-alive" : "close";
}

std::string LivenessProblem(int port)
{
	bool min = HasFeature("min");
	Received r = Roundtrip(port, GetClose(min ? "/" : "/health"));
	HttpResponse resp = ParseResponse(r.bytes);
	if (!resp.parsed)
		return "liveness request got no valid response (" + resp.error + "; " +
		       HowItEnded(r) + ")";
	if (resp.status != 200 || resp.body != (min ? "OK" : "ok"))
		return "liveness request got '" + resp.status_line + "' body '" + resp.body + "'";
	return "";
}

const std::vector<std::string> kSpecCounterNames = {
	"requests_total", "requests_get",  "requests_head", "responses_200", "responses_400",
	"responses_404",  "responses_405", "bytes_read",    "bytes_written", "timeouts",
};

const std::vector<std::string> kKeepAliveCounterNames = {
	"connections_accepted",
	"connections_closed",
	"syscalls_total",
};

const std::vector<std::string> kFilesCounterNames = {
	"cache_hits",     "cache_misses", "response_syscalls",
	"write_eagains",  "files_cached", "bytes_cached",
};

const std::vector<std::string> kSlowClientCounterNames = {
	"timeouts_head",       "timeouts_idle", "timeouts_send",
	"connections_evicted", "responses_408",
};
const std::vector<std::string> kWorkersCounterNames = {"workers_restarted"};
// The 301 of --root's /dir (BEHAVIOUR 10.4); counted in every routed tier.
const std::vector<std::string> kRedirectCounterNames = {"responses_301"};
const std::vector<std::string> kAccessLogCounterNames = {"log_lines_dropped"};
// --root's validators and ranges (BEHAVIOUR 10.8, 10.9); counted in every routed tier.
const std::vector<std::string> kFileStatusCounterNames = {"responses_304", "responses_206",
							  "responses_416"};
// The 414 of a target over 8,000 bytes (BEHAVIOUR 6.8); counted in every routed tier.
const std::vector<std::string> kLongTargetCounterNames = {"responses_414"};
// Reloads by SIGHUP or --watch (BEHAVIOUR 17, 10.16); counted in every routed tier.
const std::vector<std::string> kReloadCounterNames = {"reloads"};
// Bodies sent by reference (BEHAVIOUR 10.17); counted in every routed tier.
const std::vector<std::string> kReferenceCounterNames = {"responses_by_reference",
							 "bytes_by_reference"};
// Files served from disk (BEHAVIOUR 10.18); counted in every routed tier.
const std::vector<std::string> kDiskCounterNames = {"responses_from_disk", "bodies_cut_short"};
const std::vector<std::string> kSkipCounterNames = {"entries_skipped"};
// The service's start and backed-off restarts (BEHAVIOUR 7, 17); every routed tier.
const std::vector<std::string> kServiceCounterNames = {"start_time_seconds",
						       "restarts_backed_off"};
// The 204 of an OPTIONS of a path (BEHAVIOUR 6.2); counted in every routed tier.
const std::vector<std::string> kOptionsCounterNames = {"responses_204"};
// Compressed responses and the bytes they saved (BEHAVIOUR 7, 10.10); every routed tier.
const std::vector<std::string> kCompressionCounterNames = {
	"responses_compressed", "compressed_bytes_saved", "compressions_at_load",
	"gzip_representations"};
// A full table's 503 (BEHAVIOUR 4), /health's during a stop (11); every routed tier.
const std::vector<std::string> kRefusedCounterNames = {"connections_refused", "responses_503"};
// The answers of --redirects rules (BEHAVIOUR 10.20); counted in every routed tier.
const std::vector<std::string> kRuleCounterNames = {"responses_302", "responses_303",
						    "responses_307", "responses_308",
						    "responses_410"};
// A disk open refused by a full descriptor table (BEHAVIOUR 10.18); every routed tier.
const std::vector<std::string> kDiskRefusedCounterNames = {"disk_opens_refused"};
// A host no --site names without --root (BEHAVIOUR 10.21); counted in every routed tier.
const std::vector<std::string> kSiteCounterNames = {"responses_421"};
// Listings made per request, and those refused for want of a buffer (BEHAVIOUR 10.14);
// every routed tier.
const std::vector<std::string> kLiveListingCounterNames = {"listings_rendered",
							   "listings_refused"};

// The first start's gzip forms still to make (BEHAVIOUR 10.10); every routed tier.
const std::vector<std::string> kGzipPendingCounterNames = {"gzip_pending"};
// Bodies by reference through the send pipes (BEHAVIOUR 10.17); every routed tier.
const std::vector<std::string> kSendPipeCounterNames = {
	"bytes_by_pipe", "send_pipe_misses", "send_pipes_recreated", "send_pipes_lost"};
// Huge pages joined, or refused, under the snapshot's large bodies (BEHAVIOUR 10.17);
// every routed tier.
const std::vector<std::string> kHugePageCounterNames = {"huge_pages_joined",
							"huge_pages_refused"};

std::vector<std::string> ExpectedCounterNames()
{
	std::vector<std::string> names = kSpecCounterNames;
	if (HasFeature("keepalive"))
		names.insert(names.end(), kKeepAliveCounterNames.begin(),
			     kKeepAliveCounterNames.end());
	if (HasFeature("files"))
		names.insert(names.end(), kFilesCounterNames.begin(),
			     kFilesCounterNames.end());
	if (HasFeature("routes"))
		names.insert(names.end(), kSlowClientCounterNames.begin(),
			     kSlowClientCounterNames.end());
	if (HasFeature("workers"))
		names.insert(names.end(), kWorkersCounterNames.begin(),
			     kWorkersCounterNames.end());
	if (HasFeature("routes"))
		names.insert(names.end(), kRedirectCounterNames.begin(),
			     kRedirectCounterNames.end());
	if (HasFeature("routes")) // every routed tier has the access log
		names.insert(names.end(), kAccessLogCounterNames.begin(),
			     kAccessLogCounterNames.end());
	if (HasFeature("routes"))
		names.insert(names.end(), kFileStatusCounterNames.begin(),
			     kFileStatusCounterNames.end());
	if (HasFeature("routes"))
		names.insert(names.end(), kLongTargetCounterNames.begin(),
			     kLongTargetCounterNames.end());
	if (HasFeature("routes"))
		names.insert(names.end(), kReloadCounterNames.begin(), kReloadCounterNames.end());
	if (HasFeature("routes"))
		names.insert(names.end(), kReferenceCounterNames.begin(),
			     kReferenceCounterNames.end());
	if (HasFeature("routes"))
		names.insert(names.end(), kDiskCounterNames.begin(), kDiskCounterNames.end());
	if (HasFeature("routes")) // appended in this order: counters.h rows 37 to 62
		for (const auto *list : {&kSkipCounterNames, &kServiceCounterNames,
					 &kOptionsCounterNames, &kCompressionCounterNames,
					 &kRefusedCounterNames, &kRuleCounterNames,
					 &kDiskRefusedCounterNames, &kGzipPendingCounterNames,
					 &kSiteCounterNames, &kLiveListingCounterNames,
					 &kSendPipeCounterNames, &kHugePageCounterNames})
			names.insert(names.end(), list->begin(), list->end());
	return names;
}

std::string HttpDate(time_t t)
{
	struct tm tm = {};
	gmtime_r(&t, &tm);
	char out[64];
	size_t n = strftime(out, sizeof(out), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	return std::string(out, n);
}

FileValidators ValidatorsOf(const std::string &path)
{
	struct stat st;
	FileValidators v;
	if (stat(path.c_str(), &st) != 0)
		return v;
	uint64_t mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + st.st_mtim.tv_nsec;
	char etag[80];
	snprintf(etag, sizeof(etag), "\"%llx-%llx-%llx\"", (unsigned long long)st.st_size,
		 (unsigned long long)mtime_ns, (unsigned long long)st.st_ino);
	v.etag = etag;
	v.last_modified = HttpDate(st.st_mtim.tv_sec);
	return v;
}

std::string FileFields(const FileValidators &v)
{
	return "Last-Modified: " + v.last_modified + "\r\nETag: " + v.etag +
	       "\r\nAccept-Ranges: bytes\r\n";
}

std::string FileHead(const std::string &type, size_t length, const std::string &path,
		     bool keep_alive)
{
	return "HTTP/1.1 200 OK\r\nContent-Type: " + type +
	       "\r\nContent-Length: " + std::to_string(length) + "\r\n" +
	       FileFields(ValidatorsOf(path)) + "Connection: " +
	       (keep_alive ? "keep-alive" : "close") + "\r\n\r\n";
}

bool ParseMetricsBody(const std::string &body, Counters *out, std::string *error)
{
	size_t at = 0;
	while (at < body.size()) {
		size_t eol = body.find('\n', at);
		std::string line = body.substr(at, eol == std::string::npos ? eol : eol - at);
		size_t space = line.find(' ');
		bool ok = eol != std::string::npos && space != std::string::npos && space > 0 &&
			  space + 1 < line.size() && space + 21 > line.size();
		for (size_t k = space + 1; ok && k < line.size(); k++)
			ok = isdigit(static_cast<unsigned char>(line[k]));
		if (!ok) {
			*error = "bad metrics line '" + line + "'";
			return false;
		}
		out->emplace_back(line.substr(0, space),
				  strtoull(line.c_str() + space + 1, nullptr, 10));
		at = eol + 1;
	}
	return true;
}

std::map<std::string, uint64_t> FetchMetrics(int port, std::string *raw)
{
	std::map<std::string, uint64_t> values;
	Received r = Roundtrip(port, GetClose("/metrics"));
	if (raw)
		*raw = r.bytes;
	HttpResponse resp = ParseResponse(r.bytes);
	if (!resp.parsed || resp.status != 200) {
		ADD_FAILURE() << "GET /metrics: " << resp.error << " '" << resp.status_line << "'";
		return values;
	}
	if (resp.Header("Content-Length") != std::to_string(resp.body.size())) {
		ADD_FAILURE() << "GET /metrics Content-Length " << resp.Header("Content-Length")
			      << " but body has " << resp.body.size() << " bytes";
		return values;
	}
	Counters counters;
	std::string error;
	if (!ParseMetricsBody(resp.body, &counters, &error)) {
		ADD_FAILURE() << error;
		return values;
	}
	for (const auto &c : counters)
		values[c.first] = c.second;
	return values;
}

const char *OutcomeName(Outcome outcome)
{
	switch (outcome) {
	case Outcome::kStatus2xx: return "2xx";
	case Outcome::kStatus400: return "400";
	case Outcome::kStatus404: return "404";
	case Outcome::kStatus405: return "405";
	case Outcome::kStatus414: return "414";
	case Outcome::kCloseNo2xx: return "close without 2xx";
	case Outcome::kSilentClose: return "silent close";
	}
	return "?";
}

// Returns "" if resp has the headers every routed response carries. A reply to HEAD has
// no body: its Content-Length is the GET body's, so only its presence is checked. A 204
// (OPTIONS of a path, BEHAVIOUR 6.2) has Allow, Connection and nothing else of these.
static std::string CommonHeaderProblem(const HttpResponse &resp, bool head_request)
{
	int count;
	if (resp.status == 204)
		return resp.Header("Content-Length", &count).empty() && count == 0 &&
				       resp.Header("Content-Type", &count).empty() && count == 0 &&
				       resp.body.empty() && resp.Header("Allow") == "GET, HEAD, OPTIONS"
			       ? ""
			       : "a 204 with Content-Length, Content-Type, a body or no Allow";
	std::string length = resp.Header("Content-Length", &count);
	bool length_ok = head_request ? !length.empty() && resp.body.empty()
				      : length == std::to_string(resp.body.size());
	if (count != 1 || !length_ok)
		return "Content-Length '" + length + "' (x" + std::to_string(count) + ") but body has " +
		       std::to_string(resp.body.size()) + " bytes";
	std::string connection = resp.Header("Connection", &count);
	if (count != 1 || (connection != "close" && connection != "keep-alive"))
		return "no single 'Connection: close' or 'Connection: keep-alive' (x" +
		       std::to_string(count) + ", '" + connection + "')";
	if (resp.Header("Content-Type", &count).empty() || count != 1)
		return "no single Content-Type";
	if (resp.status == 405 && resp.Header("Allow") != "GET, HEAD, OPTIONS")
		return "405 without 'Allow: GET, HEAD, OPTIONS' (Allow: '" + resp.Header("Allow") +
		       "')";
	return "";
}

// Splits bytes into complete responses (*out, *head_only: whether each was taken as a
// reply to HEAD, see OutcomeProblem). Returns "" or why the bytes after the last complete
// response are not one.
static std::string SplitResponses(const std::string &bytes, bool first_is_head,
				  std::vector<HttpResponse> *out, std::vector<bool> *head_only)
{
	static const std::string kStatusPrefix = "HTTP/1.1 ";
	for (size_t at = 0; at < bytes.size();) {
		size_t head_end = bytes.find("\r\n\r\n", at);
		bool head = out->empty() ? first_is_head
					 : head_end != std::string::npos &&
						   (head_end + 4 == bytes.size() ||
						    bytes.compare(head_end + 4, kStatusPrefix.size(),
								  kStatusPrefix) == 0);
		size_t end = ResponseEnd(bytes, at, head);
		std::string which = "response " + std::to_string(out->size() + 1);
		if (end == std::string::npos) {
			HttpResponse partial = ParseResponse(bytes.substr(at));
			return which + " incomplete (" + std::to_string(bytes.size() - at) +
			       " bytes" + (partial.error.empty() ? "" : ": " + partial.error) + ")";
		}
		HttpResponse resp = ParseResponse(bytes.substr(at, end - at));
		if (!resp.parsed)
			return which + ": " + resp.error;
		out->push_back(resp);
		head_only->push_back(head);
		at = end;
	}
	return "";
}

std::string OutcomeProblem(const Received &r, Outcome expected, const std::string &request,
			   size_t *responses)
{
	if (responses)
		*responses = 0;
	std::string ending = r.timed_out ? "the daemon did not close the connection in time"
			     : r.reset  ? "the connection was reset instead of closed"
					: "";
	if (expected == Outcome::kSilentClose) {
		if (!r.bytes.empty())
			return "expected a silent close, got " + std::to_string(r.bytes.size()) +
			       " bytes: '" + r.bytes.substr(0, 80) + "'";
		return ending;
	}
	if (expected == Outcome::kCloseNo2xx && r.bytes.empty())
		return r.timed_out ? ending : "";
	std::vector<HttpResponse> all;
	std::vector<bool> head_only;
	std::string framing = SplitResponses(r.bytes, request.rfind("HEAD ", 0) == 0, &all,
					     &head_only);
	if (responses)
		*responses = all.size();
	if (all.empty() || !framing.empty())
		return "no valid response: " + (framing.empty() ? "no bytes" : framing) +
		       (ending.empty() ? "" : "; " + ending);
	for (size_t i = 0; i < all.size(); i++) {
		std::string problem = CommonHeaderProblem(all[i], head_only[i]);
		if (!problem.empty())
			return "response " + std::to_string(i + 1) + " '" + all[i].status_line +
			       "': " + problem;
		if (i + 1 < all.size() && all[i].Header("Connection") != "keep-alive")
			return "response " + std::to_string(i + 1) + " says 'Connection: " +
			       all[i].Header("Connection") + "' yet " +
			       std::to_string(all.size() - i - 1) + " more followed it";
	}
	const HttpResponse &first = all.front();
	std::string want_connection = ExpectedConnection(request, first.status);
	if (first.Header("Connection") != want_connection)
		return "'" + first.status_line + "' says 'Connection: " + first.Header("Connection") +
		       "', expected '" + want_connection + "'";
	bool last_keeps = all.back().Header("Connection") == "keep-alive";
	if (last_keeps && !r.shut_write && r.eof)
		return "the last response says 'Connection: keep-alive', yet the daemon closed "
		       "(the client had not shut its write side)";
	if (last_keeps && !r.shut_write && r.timed_out)
		return ending + " (the last response says keep-alive: a test that waits for the "
				"close must ask for it or shut its write side)";
	bool is_2xx = first.status >= 200 && first.status < 300;
	bool status_ok = false;
	switch (expected) {
	case Outcome::kStatus2xx: status_ok = is_2xx; break;
	case Outcome::kStatus400: status_ok = first.status == 400; break;
	case Outcome::kStatus404: status_ok = first.status == 404; break;
	case Outcome::kStatus405: status_ok = first.status == 405; break;
	case Outcome::kStatus414: status_ok = first.status == 414; break;
	case Outcome::kCloseNo2xx: status_ok = !is_2xx; break;
	case Outcome::kSilentClose: break;
	}
	if (!status_ok)
		return std::string("expected ") + OutcomeName(expected) + ", got '" +
		       first.status_line + "'";
	return ending;
}

Received ReplayRaw(int port, const std::string &raw, bool shut_write, bool *followed_up,
		   int timeout_ms)
{
	*followed_up = false;
	Received r;
	int64_t deadline = NowMs() + timeout_ms;
	int fd = ConnectLoopback(port, timeout_ms);
	if (fd < 0) {
		r.timed_out = true;
		return r;
	}
	bool head_only = raw.rfind("HEAD ", 0) == 0;
	auto first_answered = [head_only](const std::string &bytes) {
		return ResponseEnd(bytes, 0, head_only) != std::string::npos;
	};
	ExchangeOn(fd, raw, shut_write, deadline, first_answered, &r);
	std::string follow_up;
	if (!r.eof && !r.reset && !r.timed_out && !shut_write) {
		HttpResponse first = ParseResponse(r.bytes.substr(0, ResponseEnd(r.bytes, 0, head_only)));
		if (first.Header("Connection") == "keep-alive") {
			follow_up = GetClose("/health");
			*followed_up = true;
		}
	}
	if (!r.eof && !r.reset && !r.timed_out)
		ExchangeOn(fd, follow_up, false, deadline, UntilClose, &r);
	close(fd);
	return r;
}

void CheckRawCase(int port, const RawCase &c)
{
	bool followed_up;
	Received r = ReplayRaw(port, c.raw, c.shut_write, &followed_up);
	size_t responses;
	EXPECT_EQ(OutcomeProblem(r, c.expected, c.raw, &responses), "")
		<< c.label << ": got '" << r.bytes.substr(0, 300) << "'";
	if (followed_up) {
		// The follow-up GET /health (Connection: close) is answered, and nothing else.
		static const std::string kHealthCloseTail = "Connection: close\r\n\r\nok";
		EXPECT_EQ(responses, 2u) << c.label << ": the request and the follow-up";
		EXPECT_TRUE(r.bytes.size() >= kHealthCloseTail.size() &&
			    r.bytes.compare(r.bytes.size() - kHealthCloseTail.size(),
					    kHealthCloseTail.size(), kHealthCloseTail) == 0)
			<< c.label << ": the follow-up GET /health was not answered last: '"
			<< r.bytes << "'";
	} else {
		EXPECT_LE(responses, 1u) << c.label << ": '" << r.bytes.substr(0, 300) << "'";
	}
	EXPECT_EQ(LivenessProblem(port), "") << "after " << c.label;
}

std::string RawCaseName(const testing::TestParamInfo<RawCase> &info)
{
	return info.param.label;
}

// ---- Child programs ----

CommandResult RunCommand(const std::vector<std::string> &args, const std::string &stdin_data,
			 int timeout_ms)
{
	CommandResult result;
	std::vector<char *> argv = ArgvOf(args);
	int in[2], out[2], err[2];
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		result.problem = std::string("pipe2: ") + strerror(errno);
		return result;
	}
	pid_t pid = fork();
	if (pid == 0) {
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		close_range(3, ~0u, 0);
		execvp(argv[0], argv.data());
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	SetNonBlocking(in[1], true);
	size_t off = 0;
	int64_t deadline = NowMs() + timeout_ms;
	bool out_open = true, err_open = true;
	if (stdin_data.empty()) {
		close(in[1]);
		in[1] = -1;
	}
	while ((out_open || err_open) && MsLeft(deadline) > 0) {
		struct pollfd p[3] = {{out_open ? out[0] : -1, POLLIN, 0},
				      {err_open ? err[0] : -1, POLLIN, 0},
				      {in[1], POLLOUT, 0}};
		if (poll(p, 3, MsLeft(deadline)) <= 0)
			continue;
		if (p[0].revents)
			out_open = DrainInto(out[0], &result.out);
		if (p[1].revents)
			err_open = DrainInto(err[0], &result.err);
		if (in[1] >= 0 && p[2].revents) {
			ssize_t n = write(in[1], stdin_data.data() + off, stdin_data.size() - off);
			if (n > 0)
				off += static_cast<size_t>(n);
			if (n < 0 || off == stdin_data.size()) {
				close(in[1]);
				in[1] = -1;
			}
		}
	}
	if (in[1] >= 0)
		close(in[1]);
	close(out[0]);
	close(err[0]);
	int status = 0;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (MsLeft(deadline) == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			result.problem = "killed after " + std::to_string(timeout_ms) + " ms";
			result.signalled = true;
			return result;
		}
		SleepMs(5);
	}
	if (WIFSIGNALED(status)) {
		result.signalled = true;
		result.problem = "died of signal " + std::to_string(WTERMSIG(status));
		return result;
	}
	result.exit_code = WEXITSTATUS(status);
	if (result.exit_code == 127) {
		result.problem = "could not exec " + args[0] + " (exit 127)";
		return result;
	}
	result.ran = true;
	return result;
}

// What a memfd holds, from the start.
static std::string MemfdContent(int fd)
{
	std::string s;
	char buf[4096];
	ssize_t n;
	for (off_t at = 0; (n = pread(fd, buf, sizeof(buf), at)) > 0; at += n)
		s.append(buf, static_cast<size_t>(n));
	return s;
}

// The binary is opened before the switch and run with fexecve, since nobody may not
// traverse the path to it (bazel-bin lies below /root). With a launcher (qemu), fexecve
// runs the launcher, and the daemon binary, opened here and left open across exec, is
// named to it as /proc/self/fd/N.
CommandResult RunDaemonAsNobody(const std::vector<std::string> &args, int timeout_ms)
{
	CommandResult result;
	std::vector<std::string> all = DaemonLauncher();
	int daemon_fd = -1;
	if (!all.empty()) {
		daemon_fd = open(DaemonPath().c_str(), O_RDONLY);
		all.push_back("/proc/self/fd/" + std::to_string(daemon_fd));
	} else {
		all.push_back(DaemonPath());
	}
	all.insert(all.end(), args.begin(), args.end());
	std::vector<char *> argv;
	for (std::string &a : all)
		argv.push_back(a.data());
	argv.push_back(nullptr);
	int binary = open(all[0].c_str(), O_RDONLY | O_CLOEXEC);
	int out = memfd_create("daemon-stdout", MFD_CLOEXEC);
	int err = memfd_create("daemon-stderr", MFD_CLOEXEC);
	if (binary < 0 || out < 0 || err < 0) {
		result.problem = std::string("open/memfd_create: ") + strerror(errno);
		return result;
	}
	pid_t pid = fork();
	if (pid == 0) { // child: async-signal-safe calls only
		dup2(out, STDOUT_FILENO);
		dup2(err, STDERR_FILENO);
		if (setgroups(0, nullptr) != 0 || setgid(kNobodyId) != 0 || setuid(kNobodyId) != 0)
			_exit(125);
		fexecve(binary, argv.data(), environ);
		_exit(127);
	}
	close(binary);
	if (daemon_fd >= 0)
		close(daemon_fd);
	int status = 0;
	int64_t deadline = NowMs() + timeout_ms;
	while (pid > 0 && waitpid(pid, &status, WNOHANG) == 0) {
		if (NowMs() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			result.problem = "killed after " + std::to_string(timeout_ms) + " ms";
			break;
		}
		SleepMs(5);
	}
	result.out = MemfdContent(out);
	result.err = MemfdContent(err);
	close(out);
	close(err);
	if (pid < 0)
		result.problem = std::string("fork: ") + strerror(errno);
	else if (result.problem.empty() && WIFEXITED(status)) {
		result.exit_code = WEXITSTATUS(status);
		result.ran = result.exit_code != 125 && result.exit_code != 127;
		if (!result.ran)
			result.problem = "could not become nobody or exec (exit " +
					 std::to_string(result.exit_code) + ")";
	} else if (result.problem.empty()) {
		result.signalled = true;
		result.problem = "died of signal " + std::to_string(WTERMSIG(status));
	}
	return result;
}

std::string UsageErrorProblem(const std::string &err, const std::string &problem)
{
	if (err.compare(0, problem.size(), problem) != 0)
		return "want first line '" + problem + "', got '" + err + "'";
	std::string usage = err.substr(problem.size());
	if (usage.rfind("usage: ", 0) != 0 || usage.find('\n') != usage.size() - 1)
		return "want one usage line after it, got '" + usage + "'";
	return "";
}

rlim_t RaiseOwnNofileLimit(rlim_t want)
{
	struct rlimit lim;
	getrlimit(RLIMIT_NOFILE, &lim);
	if (lim.rlim_cur < want) {
		lim.rlim_cur = lim.rlim_max == RLIM_INFINITY || lim.rlim_max >= want ? want
										     : lim.rlim_max;
		setrlimit(RLIMIT_NOFILE, &lim);
		getrlimit(RLIMIT_NOFILE, &lim);
	}
	return lim.rlim_cur;
}

std::vector<pid_t> Children(pid_t parent)
{
	std::vector<pid_t> kids;
	std::istringstream in(ReadProcFile("/proc/" + std::to_string(parent) + "/task/" +
					   std::to_string(parent) + "/children"));
	pid_t pid;
	while (in >> pid)
		kids.push_back(pid);
	return kids;
}

std::vector<pid_t> WaitForChildren(pid_t parent, size_t n, int timeout_ms)
{
	int64_t deadline = NowMs() + timeout_ms;
	std::vector<pid_t> kids = Children(parent);
	while (kids.size() != n && NowMs() < deadline) {
		SleepMs(20);
		kids = Children(parent);
	}
	return kids;
}

int64_t SupervisorCounter(pid_t supervisor, size_t index)
{
	std::string dir = "/proc/" + std::to_string(supervisor) + "/fd";
	DIR *d = opendir(dir.c_str());
	if (!d)
		return -1;
	int64_t value = -1;
	for (struct dirent *e; value < 0 && (e = readdir(d)) != nullptr;) {
		char link[256];
		std::string path = dir + "/" + e->d_name;
		ssize_t n = readlink(path.c_str(), link, sizeof(link) - 1);
		if (n <= 0 || std::string(link, (size_t)n).find("/memfd:apollod-counters") != 0)
			continue;
		int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
		// The page's layout word (its header, at the end) is written after the counters
		// are copied in (counter_page_create): until then the page reads zeros, which
		// would say gzip_pending 0 before the first generation has even started.
		struct stat st;
		uint64_t v = 0, layout = 0;
		off_t layout_at = fd >= 0 && fstat(fd, &st) == 0 ? st.st_size - 2 * (off_t)sizeof(v) : -1;
		if (layout_at > 0 &&
		    pread(fd, &layout, sizeof(layout), layout_at) == sizeof(layout) && layout != 0 &&
		    pread(fd, &v, sizeof(v), (off_t)(index * sizeof(v))) == sizeof(v))
			value = (int64_t)v;
		if (fd >= 0)
			close(fd);
	}
	closedir(d);
	return value;
}

bool WaitForSettledStart(pid_t supervisor)
{
	if (HasFeature("min"))
		return true;
	static const bool index_right = [] {
		std::vector<std::string> names = ExpectedCounterNames();
		return names.size() > kGzipPendingCounter && names[kGzipPendingCounter] == "gzip_pending";
	}();
	if (!index_right) {
		ADD_FAILURE() << "kGzipPendingCounter is not gzip_pending's index (wire_harness.h)";
		return false;
	}
	int64_t pending = -1;
	bool alive = true;
	bool got = WaitUntil([&] {
		pending = SupervisorCounter(supervisor, kGzipPendingCounter);
		alive = kill(supervisor, 0) == 0;
		return pending >= 0 || !alive;
	});
	if (!got || !alive)
		return got; /* (a daemon that ended: its caller finds out why) */
	if (pending > 0 &&
	    !WaitUntil([&] { return SupervisorCounter(supervisor, kGzipPendingCounter) == 0; }))
		return false;
	// Also when gzip_pending already read 0 (asked after a handover): the first
	// generation may still accept for a moment after its retire signal (BEHAVIOUR 17),
	// so settled means one generation left.
	return WaitForChildren(supervisor, 1, kStateWaitMs).size() == 1;
}

pid_t ServingGeneration(pid_t supervisor)
{
	std::vector<pid_t> kids = WaitForChildren(supervisor, 1);
	return kids.size() == 1 ? kids[0] : -1;
}

std::vector<pid_t> Descendants(pid_t pid)
{
	std::vector<pid_t> all = Children(pid);
	for (size_t i = 0; i < all.size(); i++)
		for (pid_t kid : Children(all[i]))
			all.push_back(kid);
	return all;
}

// A /proc file's first line, NULs as spaces (cmdline), "" when unreadable.
static std::string ProcLine(const std::string &path)
{
	std::ifstream in(path);
	std::string line;
	std::getline(in, line);
	std::replace(line.begin(), line.end(), '\0', ' ');
	return line;
}

std::string ProcessTreeReport(pid_t pid)
{
	std::vector<pid_t> all = Descendants(pid);
	all.insert(all.begin(), pid);
	std::string report;
	for (pid_t p : all) {
		std::string dir = "/proc/" + std::to_string(p);
		report += "process " + std::to_string(p) + ": " + ProcLine(dir + "/cmdline") + "\n";
		DIR *d = opendir((dir + "/task").c_str());
		if (d == nullptr)
			continue;
		while (struct dirent *e = readdir(d)) {
			if (e->d_name[0] == '.')
				continue;
			std::string t = dir + "/task/" + e->d_name;
			std::string stat = ProcLine(t + "/stat");
			size_t paren = stat.rfind(')');
			report += "  thread " + std::string(e->d_name) + " state " +
				  (paren == std::string::npos ? "?" : stat.substr(paren + 2, 1)) +
				  " wchan " + ProcLine(t + "/wchan") + " syscall " +
				  ProcLine(t + "/syscall") + "\n";
		}
		closedir(d);
	}
	return report;
}

std::vector<SnapshotMemfd> SnapshotMemfdsOf(pid_t pid)
{
	std::vector<SnapshotMemfd> found;
	std::string dir = "/proc/" + std::to_string(pid) + "/fd";
	DIR *d = opendir(dir.c_str());
	if (d == nullptr)
		return found;
	while (struct dirent *e = readdir(d)) {
		std::string path = dir + "/" + e->d_name;
		char link[256];
		ssize_t n = readlink(path.c_str(), link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		struct stat st;
		if (strncmp(link, "/memfd:apollod-snapshot", 23) == 0 && stat(path.c_str(), &st) == 0)
			found.push_back({path, st.st_ino, st.st_size});
	}
	closedir(d);
	return found;
}

// The state letter of a /proc/.../stat file (R, S, D, Z, ...), or 0 when it is unreadable.
static char ProcessState(const std::string &stat_path)
{
	std::string stat = ReadProcFile(stat_path);
	size_t name_end = stat.rfind(')'); // the name may hold spaces and parentheses
	return name_end != std::string::npos && name_end + 2 < stat.size() ? stat[name_end + 2]
									   : 0;
}

bool ProcessRuns(pid_t pid)
{
	char state = ProcessState("/proc/" + std::to_string(pid) + "/stat");
	return state != 0 && state != 'Z';
}

bool WaitUntilExited(pid_t pid, int timeout_ms)
{
	return WaitUntil([pid] { return !ProcessRuns(pid); }, timeout_ms);
}

bool ProcessStopped(pid_t pid)
{
	char state = ProcessState("/proc/" + std::to_string(pid) + "/stat");
	return state == 'T' || state == 't';
}

// ---- Waiting for state (/proc, sock_diag) ----

// The IPv4 TCP socket with these ports that is still someone's.
static TcpSocket TcpSocketOf(unsigned local_port, unsigned remote_port)
{
	for (const TcpRow &r : TcpSockets(AF_INET, kLive))
		if (r.local_port == local_port && r.remote_port == remote_port)
			return r.socket;
	return TcpSocket();
}

// fd's own port and its peer's, or false.
static bool PortsOf(int fd, unsigned *own, unsigned *peer)
{
	struct sockaddr_in a = {}, b = {};
	socklen_t la = sizeof(a), lb = sizeof(b);
	if (getsockname(fd, reinterpret_cast<sockaddr *>(&a), &la) != 0 ||
	    getpeername(fd, reinterpret_cast<sockaddr *>(&b), &lb) != 0)
		return false;
	*own = ntohs(a.sin_port);
	*peer = ntohs(b.sin_port);
	return true;
}

TcpSocket ServerEndOf(int fd)
{
	unsigned own, peer;
	return PortsOf(fd, &own, &peer) ? TcpSocketOf(peer, own) : TcpSocket();
}

TcpSocket ClientEndOf(int fd)
{
	unsigned own, peer;
	return PortsOf(fd, &own, &peer) ? TcpSocketOf(own, peer) : TcpSocket();
}

TcpSocket ListenerOn(int port)
{
	return TcpSocketOf(static_cast<unsigned>(port), 0);
}

bool HoldsSocket(pid_t pid, unsigned long inode)
{
	std::vector<unsigned long> held = SocketInodes(pid);
	return inode != 0 && std::find(held.begin(), held.end(), inode) != held.end();
}

// pid's TCP sockets (IPv4 and IPv6) that are listeners (listening true) or not.
static int TcpSocketsHeld(pid_t pid, bool listening)
{
	std::vector<unsigned long> held = SocketInodes(pid);
	uint32_t states = listening ? kListening : kLive & ~kListening;
	int n = 0;
	for (int family : {AF_INET, AF_INET6})
		for (const TcpRow &r : TcpSockets(family, states))
			n += std::find(held.begin(), held.end(), r.socket.inode) != held.end();
	return n;
}

int ConnectionsHeld(pid_t pid)
{
	return TcpSocketsHeld(pid, false);
}

bool HoldsListener(pid_t pid)
{
	return TcpSocketsHeld(pid, true) > 0;
}

bool Sleeps(pid_t pid)
{
	std::string dir = "/proc/" + std::to_string(pid) + "/task";
	DIR *d = opendir(dir.c_str());
	if (!d)
		return false;
	bool all = true, any = false;
	for (struct dirent *e; all && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		any = true;
		all = ProcessState(dir + "/" + e->d_name + "/stat") == 'S';
	}
	closedir(d);
	return any && all;
}

// Bytes sent on fd that its peer has not acknowledged yet (SIOCOUTQ), or -1.
static int Unacknowledged(int fd)
{
	int n = -1;
	return ioctl(fd, SIOCOUTQ, &n) == 0 ? n : -1;
}

bool WaitUntilDaemonRead(pid_t pid, int fd, int timeout_ms)
{
	return WaitUntil([pid, fd] { return Unacknowledged(fd) == 0 && Sleeps(pid); },
			 timeout_ms, kPerByteStepMs);
}

bool WaitUntilDaemonAccepted(pid_t pid, int fd, int timeout_ms)
{
	return WaitUntil([pid, fd] { return HoldsSocket(pid, ServerEndOf(fd).inode) && Sleeps(pid); },
			 timeout_ms);
}

uint64_t SignalMask(pid_t pid, const std::string &field)
{
	std::istringstream in(ReadProcFile("/proc/" + std::to_string(pid) + "/status"));
	for (std::string line; std::getline(in, line);)
		if (line.rfind(field + ":", 0) == 0)
			return std::stoull(line.substr(field.size() + 1), nullptr, 16);
	return 0;
}

bool WaitNonePending(pid_t pid, uint64_t mask, int timeout_ms)
{
	return WaitUntil(
		[&] { return ((SignalMask(pid, "SigPnd") | SignalMask(pid, "ShdPnd")) & mask) == 0; },
		timeout_ms);
}

} // namespace wire

namespace wire {
CommandResult RunToRefusal(const std::string &root_dir, const std::vector<std::string> &flags,
			   int timeout_ms)
{
	std::vector<std::string> argv = DaemonCommand();
	argv.insert(argv.end(), {"--listen", "127.0.0.1:0", "--root", root_dir});
	argv.insert(argv.end(), flags.begin(), flags.end());
	CommandResult r = RunCommand(argv, "", timeout_ms);
	EXPECT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.out, "") << "nothing announced";
	return r;
}
} // namespace wire
