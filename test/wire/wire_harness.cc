// The over-the-wire harness (see wire_harness.h).
#include "test/wire/wire_harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace wire {
namespace {

std::string g_daemon_path;
std::vector<std::string> g_features;

constexpr char kFeaturesFlag[] = "--features=";
constexpr char kListeningMarker[] = " listening on 127.0.0.1:";
constexpr int kStartTimeoutMs = 10000;
constexpr int kStopGraceMs = 2000;
constexpr size_t kReadChunk = 65536;

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

// A NULL-terminated argv view of args (which must outlive it).
std::vector<char *> ArgvOf(const std::vector<std::string> &args)
{
	std::vector<char *> argv;
	for (const std::string &a : args)
		argv.push_back(const_cast<char *>(a.c_str()));
	argv.push_back(nullptr);
	return argv;
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

// ---- The suite's command line ----

bool ParseSuiteArgs(int argc, char **argv)
{
	if (argc < 2 || strncmp(argv[1], "--", 2) == 0) {
		fprintf(stderr, "usage: %s DAEMON_BINARY --features=a,b [gtest flags]\n", argv[0]);
		return false;
	}
	g_daemon_path = argv[1];
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

// Reads the daemon's announcement from fd (kStartTimeoutMs at most). Returns the port, or
// 0 with *line holding what was read.
static int ReadAnnouncedPort(int fd, std::string *line)
{
	int64_t deadline = NowMs() + kStartTimeoutMs;
	while (line->find('\n') == std::string::npos) {
		struct pollfd p = {fd, POLLIN, 0};
		if (!PollOne(&p, deadline) || !DrainInto(fd, line))
			break;
	}
	size_t at = line->find(kListeningMarker);
	if (at == std::string::npos || line->find('\n') == std::string::npos)
		return 0;
	return atoi(line->c_str() + at + strlen(kListeningMarker));
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

bool Daemon::Start(const DaemonOptions &options, std::string *error)
{
	bool announced = options.stdout_mode == DaemonStdout::kPipe;
	std::string listen = "127.0.0.1:" + std::to_string(announced ? 0 : options.fixed_port);
	std::vector<std::string> args = {g_daemon_path, "--listen", listen};
	args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());
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
		// Only stdin, stdout and stderr go to the daemon: descriptors this process
		// inherited would otherwise count against the daemon's RLIMIT_NOFILE.
		close_range(3, ~0u, 0);
		if (options.nofile_limit != 0) {
			struct rlimit lim = {options.nofile_limit, options.nofile_limit};
			if (setrlimit(RLIMIT_NOFILE, &lim) != 0)
				_exit(126);
		}
		execv(argv[0], argv.data());
		_exit(127);
	}
	close(out[1]);
	if (pid_ < 0) {
		*error = std::string("fork: ") + strerror(errno);
		if (announced)
			close(out[0]);
		return false;
	}
	std::string line;
	if (announced) {
		port_ = ReadAnnouncedPort(out[0], &line);
		close(out[0]);
	} else if (WaitUntilListening(options.fixed_port)) {
		port_ = options.fixed_port;
	}
	if (port_ <= 0) {
		*error = "daemon " + g_daemon_path + " did not start listening; stdout was: '" +
			 line + "'";
		Stop();
		return false;
	}
	return true;
}

int RecentlyFreePort()
{
	Daemon probe;
	std::string error;
	if (!probe.Start(DaemonOptions{}, &error))
		return 0;
	return probe.port();
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

int Daemon::OpenDescriptorCount(int below) const
{
	std::string dir = "/proc/" + std::to_string(pid_) + "/fd";
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

// ---- Raw TCP client ----

int ConnectLoopback(int port, int timeout_ms)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_in addr = {};
	addr.sin_family = AF_INET;
	addr.sin_port = htons(static_cast<uint16_t>(port));
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int r = connect(fd, reinterpret_cast<struct sockaddr *>(&addr), sizeof(addr));
	if (r != 0 && errno == EINPROGRESS) {
		struct pollfd p = {fd, POLLOUT, 0};
		int err = ETIMEDOUT;
		socklen_t len = sizeof(err);
		if (poll(&p, 1, timeout_ms) == 1)
			getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
		r = err == 0 ? 0 : -1;
	}
	if (r != 0) {
		close(fd);
		return -1;
	}
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

// Reads once from fd into r. Returns false when the stream ended (EOF or reset) or an
// unexpected error occurred; true for data or "try again".
static bool ReadOnce(int fd, Received *r)
{
	static thread_local char buf[kReadChunk];
	ssize_t n = recv(fd, buf, sizeof(buf), 0);
	if (n > 0) {
		r->bytes.append(buf, static_cast<size_t>(n));
		return true;
	}
	if (n == 0) {
		r->eof = true;
		return false;
	}
	if (errno == EINTR || errno == EAGAIN)
		return true;
	r->reset = true; // ECONNRESET, or anything else that ends the stream
	return false;
}

Received ReadUntilClose(int fd, int timeout_ms)
{
	Received r;
	int64_t deadline = NowMs() + timeout_ms;
	for (;;) {
		struct pollfd p = {fd, POLLIN, 0};
		if (!PollOne(&p, deadline)) {
			r.timed_out = true;
			return r;
		}
		if (!ReadOnce(fd, &r))
			return r;
	}
}

Received Exchange(int fd, const std::string &request, bool shut_write, int timeout_ms)
{
	Received r;
	int64_t deadline = NowMs() + timeout_ms;
	size_t off = 0;
	bool sending = true;
	SetNonBlocking(fd, true);
	for (;;) {
		if (sending && off == request.size()) {
			if (shut_write)
				shutdown(fd, SHUT_WR);
			sending = false;
		}
		struct pollfd p = {fd, static_cast<short>(POLLIN | (sending ? POLLOUT : 0)), 0};
		if (!PollOne(&p, deadline)) {
			r.timed_out = true;
			break;
		}
		if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
			if (!ReadOnce(fd, &r))
				break;
		}
		if (sending && (p.revents & POLLOUT)) {
			ssize_t n = send(fd, request.data() + off, request.size() - off,
					 MSG_NOSIGNAL);
			if (n > 0)
				off += static_cast<size_t>(n);
			else if (n < 0 && errno != EAGAIN && errno != EINTR)
				sending = false; // the daemon closed early; read what it said
		}
	}
	close(fd);
	return r;
}

Received Roundtrip(int port, const std::string &request, bool shut_write, int timeout_ms)
{
	int fd = ConnectLoopback(port, timeout_ms);
	if (fd < 0) {
		Received r;
		r.timed_out = true;
		return r;
	}
	return Exchange(fd, request, shut_write, timeout_ms);
}

bool PeerSpokeOrClosed(int fd, int wait_ms)
{
	struct pollfd p = {fd, POLLIN, 0};
	return PollOne(&p, NowMs() + wait_ms);
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

std::string LivenessProblem(int port)
{
	bool min = HasFeature("min");
	Received r = Roundtrip(port, Get(min ? "/" : "/health"));
	HttpResponse resp = ParseResponse(r.bytes);
	if (!resp.parsed)
		return "liveness request got no valid response (" + resp.error + ", eof=" +
		       std::to_string(r.eof) + ", timed_out=" + std::to_string(r.timed_out) + ")";
	if (resp.status != 200 || resp.body != (min ? "OK" : "ok"))
		return "liveness request got '" + resp.status_line + "' body '" + resp.body + "'";
	return "";
}

const std::vector<std::string> kSpecCounterNames = {
	"requests_total", "requests_get",  "requests_head", "responses_200", "responses_400",
	"responses_404",  "responses_405", "bytes_read",    "bytes_written", "timeouts",
};

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
	Received r = Roundtrip(port, Get("/metrics"));
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
	case Outcome::kCloseNo2xx: return "close without 2xx";
	case Outcome::kSilentClose: return "silent close";
	}
	return "?";
}

// Returns "" if resp has the headers every routed response carries. A reply to HEAD has
// no body: its Content-Length is the GET body's, so only its presence is checked.
static std::string CommonHeaderProblem(const HttpResponse &resp, bool head_request)
{
	int count;
	std::string length = resp.Header("Content-Length", &count);
	bool length_ok = head_request ? !length.empty() && resp.body.empty()
				      : length == std::to_string(resp.body.size());
	if (count != 1 || !length_ok)
		return "Content-Length '" + length + "' (x" + std::to_string(count) + ") but body has " +
		       std::to_string(resp.body.size()) + " bytes";
	if (resp.Header("Connection", &count) != "close" || count != 1)
		return "no single 'Connection: close'";
	if (resp.Header("Content-Type", &count).empty() || count != 1)
		return "no single Content-Type";
	return "";
}

std::string OutcomeProblem(const Received &r, Outcome expected, const std::string &request)
{
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
	HttpResponse resp = ParseResponse(r.bytes);
	if (!resp.parsed)
		return "no valid response: " + resp.error + (ending.empty() ? "" : "; " + ending);
	std::string problem = CommonHeaderProblem(resp, request.rfind("HEAD ", 0) == 0);
	if (!problem.empty())
		return "'" + resp.status_line + "': " + problem;
	bool is_2xx = resp.status >= 200 && resp.status < 300;
	bool status_ok = false;
	switch (expected) {
	case Outcome::kStatus2xx: status_ok = is_2xx; break;
	case Outcome::kStatus400: status_ok = resp.status == 400; break;
	case Outcome::kStatus404: status_ok = resp.status == 404; break;
	case Outcome::kStatus405: status_ok = resp.status == 405; break;
	case Outcome::kCloseNo2xx: status_ok = !is_2xx; break;
	case Outcome::kSilentClose: break;
	}
	if (!status_ok)
		return std::string("expected ") + OutcomeName(expected) + ", got '" +
		       resp.status_line + "'";
	if (resp.status == 405 && resp.Header("Allow") != "GET, HEAD")
		return "405 without 'Allow: GET, HEAD' (Allow: '" + resp.Header("Allow") + "')";
	return ending;
}

void CheckRawCase(int port, const RawCase &c)
{
	Received r = Roundtrip(port, c.raw, c.shut_write);
	EXPECT_EQ(OutcomeProblem(r, c.expected, c.raw), "")
		<< c.label << ": got '" << r.bytes.substr(0, 200) << "'";
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

} // namespace wire
