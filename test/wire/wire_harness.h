// The over-the-wire harness: the suite's command line (daemon path, features), starting
// and stopping a daemon on an ephemeral port, raw TCP client helpers, HTTP response
// parsing and running real client programs. Every wait is bounded in time.
#ifndef APOLLOD_TEST_WIRE_WIRE_HARNESS_H
#define APOLLOD_TEST_WIRE_WIRE_HARNESS_H

#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace wire {

// ---- The suite's command line (set once by main) ----

// Parses argv after InitGoogleTest removed its own flags: argv[1] is the daemon binary,
// then `--features=a,b`. Returns false (and prints why) when the daemon path is missing.
bool ParseSuiteArgs(int argc, char **argv);

// The daemon binary under test, as given on the command line.
const std::string &DaemonPath();

// A file of the test's runfiles by its path in the workspace: under $TEST_SRCDIR when
// Bazel runs the test and the file is there, else the relative path itself.
std::string RunfilePath(const std::string &relative);

// Words that go before the daemon binary on every command line that starts it: none
// natively; under `bazel test --config=aarch64`, the qemu-aarch64 command that runs the
// aarch64 daemon (environment variable APOLLOD_EMULATOR, split on spaces, set by
// bazel/aarch64/qemu_run.sh).
const std::vector<std::string> &DaemonLauncher();

// The command that starts the daemon: DaemonLauncher() then DaemonPath().
std::vector<std::string> DaemonCommand();

// True if the tier under test declared `feature`: min, routes, deadlines, no_deadlines,
// keepalive, files, stop, workers, uring or uring_emulated (test/wire/README.md).
bool HasFeature(const std::string &feature);

// Skips the current test unless the tier declares feature (GTEST_SKIP returns from the
// calling function, so this must be a macro).
#define REQUIRE_FEATURE(feature)                                                     \
	do {                                                                         \
		if (!::wire::HasFeature(feature))                                    \
			GTEST_SKIP() << "tier does not declare feature '" << (feature) \
				     << "'";                                         \
	} while (0)

// Skips the current test when the daemon runs under an emulator (DaemonLauncher): the
// filter of test/wire/seccomp_refuse.c speaks x86_64 syscall numbers, not the emulated
// daemon's.
#define REQUIRE_SECCOMP_REFUSE()                                                     \
	do {                                                                         \
		if (!::wire::DaemonLauncher().empty())                               \
			GTEST_SKIP() << "the seccomp filter speaks x86_64 syscall "  \
					"numbers, not the emulated daemon's";        \
	} while (0)

// Milliseconds on the monotonic clock.
int64_t NowMs();

// Sleeps ms milliseconds.
void SleepMs(int64_t ms);

// How long a test waits for a state it is owed: a bound that only ends a hang, so it is
// generous enough for a daemon emulated by qemu on a loaded machine.
constexpr int kStateWaitMs = 20000;

// Polls ready() every step_ms until it holds, or timeout_ms have passed. Returns whether
// it held (ready() is asked once more at the bound).
template <class Ready>
bool WaitUntil(Ready ready, int64_t timeout_ms = kStateWaitMs, int64_t step_ms = 10)
{
	for (int64_t end = NowMs() + timeout_ms;; SleepMs(step_ms)) {
		if (ready())
			return true;
		if (NowMs() >= end)
			return false;
	}
}

// ---- Daemon process ----

// Where the daemon's standard output goes.
enum class DaemonStdout {
	kPipe,       // a pipe the harness reads the announcement from
	kClosed,     // descriptor 1 closed (BEHAVIOUR 2: not an error)
	kBrokenPipe, // a pipe whose read end is already closed: the write fails with EPIPE
};

struct DaemonOptions {
	// After `--listen 127.0.0.1:0`, or instead of it when they hold a --listen of their
	// own (port() is then the first address's, announced() has one line per address,
	// an --admin-listen's last).
	// The min tier gets its port as its one argument instead (0, or fixed_port).
	std::vector<std::string> extra_args;
	rlim_t nofile_limit = 0;             // 0: inherit; else soft and hard RLIMIT_NOFILE
	DaemonStdout stdout_mode = DaemonStdout::kPipe;
	int fixed_port = 0; // without kPipe there is no announcement: listen on this port
			    // (the min tier: always, when not 0)
	rlim_t nofile_hard = 0; // with nofile_limit: a different hard limit (0: the same)
	// Runs the daemon as nobody (kNobodyId): the binary is opened as root, then the
	// groups, gid and uid are dropped before fexecve. Needs root, and no DaemonLauncher.
	bool as_nobody = false;
	int stderr_fd = -1; // >= 0: the daemon's standard error (else the test's own)
	// The `listen` lines of a --config file in extra_args (BEHAVIOUR 2.1): when not 0 and
	// extra_args hold no --listen, none is added, and this many announcements come.
	size_t config_listens = 0;
	// Start waits for a settled start (WaitForSettledStart): when the first start left
	// gzip forms to make (BEHAVIOUR 10.10), until the compressing generation serves and
	// the first has drained. false: returns once the port is known.
	bool settle = true;
};

// One daemon child process listening on 127.0.0.1:<ephemeral port>.
class Daemon {
public:
	Daemon() = default;
	Daemon(const Daemon &) = delete;
	Daemon &operator=(const Daemon &) = delete;
	~Daemon() { Stop(); }

	// Forks and execs the daemon with `--listen 127.0.0.1:0` plus options.extra_args and
	// reads its "... listening on 127.0.0.1:PORT" line (10 s at most). Without a stdout
	// pipe it listens on options.fixed_port instead and is ready once a connect succeeds.
	// The min tier, which announces nothing, is given port 0 as its argument (or
	// fixed_port) and its port is read from /proc: the listening socket among its
	// descriptors. Returns true once the port is known; on failure returns false with
	// *error set and no child left.
	bool Start(const DaemonOptions &options, std::string *error);

	// Before Start: a program and its arguments the daemon's command is handed to, which
	// must exec it in the same process (seccomp_refuse, test/wire/seccomp_refuse.c); empty: none.
	void SetWrapper(const std::vector<std::string> &wrapper) { wrapper_ = wrapper; }

	// SIGTERM, then SIGKILL after 2 s, and reaps the child. Safe to call twice.
	void Stop();

	// True while the child has not exited (checked without blocking).
	bool IsAlive();

	// Waits up to timeout_ms for the child to exit by itself and reaps it. Returns true
	// with its wait status in *status, or false if it is still running.
	bool WaitExit(int timeout_ms, int *status);

	// Descriptors numbered below `below` the child has open now (/proc/PID/fd), or -1.
	int OpenDescriptorCount(int below = 1 << 30) const;

	int port() const { return port_; }
	pid_t pid() const { return pid_; }
	// The process that serves: on the routed tiers the resident supervisor's one child
	// (its serving generation, BEHAVIOUR 17; with --workers the workers' parent; waited
	// for up to 5 s just after start), for min the daemon itself.
	pid_t ServingPid() const;
	// The "... listening on ADDR:PORT" lines read at start, without their newline.
	const std::vector<std::string> &announced() const { return announced_; }

private:
	pid_t pid_ = -1;
	int port_ = 0;
	std::vector<std::string> announced_;
	std::vector<std::string> wrapper_; // SetWrapper
};

// The port at the end of an announcement line ("apollod listening on [::1]:8080"), or 0.
int AnnouncedPort(const std::string &line);

// Waits (timeout_ms at most) until daemon holds exactly want descriptors numbered below
// `below`. Returns the last count seen: want, or what it was when time ran out. Closing is
// asynchronous to the client (a lingering close ends when the daemon reads the client's
// FIN), so tests that count closed connections wait here first.
int WaitForOpenDescriptors(Daemon &daemon, int want, int timeout_ms = 3000,
			   int below = 1 << 30);

// Starts daemon with options inside a test, failing the test (fatally) when it cannot.
#define START_DAEMON(daemon, ...)                                   \
	do {                                                        \
		std::string start_error_;                           \
		ASSERT_TRUE((daemon).Start(__VA_ARGS__, &start_error_)) \
			<< start_error_;                            \
	} while (0)

// A fixture whose tests share one daemon with default options: started by the first test
// (or restarted if a previous test left it dead, which that test's own liveness check
// reports), stopped after the fixture's last test. Counters are not meaningful here:
// tests that compare /metrics deltas start their own daemon.
template <class Base>
class SharedDaemonFixture : public Base {
protected:
	void SetUp() override
	{
		if (shared_daemon_ == nullptr || !shared_daemon_->IsAlive()) {
			delete shared_daemon_;
			shared_daemon_ = new Daemon;
			START_DAEMON(*shared_daemon_, DaemonOptions{});
		}
		port_ = shared_daemon_->port();
	}
	static void TearDownTestSuite()
	{
		delete shared_daemon_;
		shared_daemon_ = nullptr;
	}
	Daemon &daemon() { return *shared_daemon_; }

	int port_ = 0;

private:
	inline static Daemon *shared_daemon_ = nullptr;
};

// ---- Raw TCP client ----

// A port that was free a moment ago, for tests that must name the port themselves: a
// random one outside the kernel's ephemeral range, so that parallel suites' port-0 binds
// and connects cannot take it, and never one this process was given before; 0 if none
// could be found.
constexpr int kNamedPortMin = 10000; // below it: well-known services' ports
constexpr int kFreePortTries = 64;
int RecentlyFreePort();

// Connects to 127.0.0.1:port (non-blocking connect, bounded by timeout_ms), returning a
// blocking, close-on-exec socket, or -1. receive_buffer > 0: SO_RCVBUF set to it before
// connect, so the window announced in the handshake is already small (a slow reader).
// *error, if given, receives why it failed (the connect's errno; ETIMEDOUT when it did
// not complete within timeout_ms), or 0.
int ConnectLoopback(int port, int timeout_ms = 10000, int receive_buffer = 0,
		    int *error = nullptr);

// n pseudo-random bytes (mt19937_64), the same for the same seed: a file's content a test
// can write once and expect again.
std::string Random(size_t n, uint64_t seed);

// Sends all of data (MSG_NOSIGNAL). Returns false if the peer refused part of it.
bool SendAll(int fd, const std::string &data);

// What came back on one connection.
struct Received {
	std::string bytes;      // everything read
	bool eof = false;       // the peer closed (read returned 0)
	bool reset = false;     // read failed with ECONNRESET (after `bytes`)
	bool timed_out = false; // neither happened within the time limit
	bool shut_write = false; // the client shut its write side after its request: a
				 // keep-alive answer may then end with the daemon closing
	size_t dates = 0;        // Date fields checked (IMF-fixdate) and taken out of bytes
	std::string pending;     // read, held back: it may be the start of a Date line
	// How it went, for failure messages (HowItEnded); what passes depends on none of it.
	bool connect_failed = false; // Roundtrip: no connection (timed_out is set too)
	int error = 0;               // errno of the failed connect, read (reset) or send
	size_t request_size = 0;     // Exchange: the request's bytes ...
	size_t request_sent = 0;     // ... and how many of them left
	int64_t took_ms = 0;         // from the connect (or the first read) to the end
};

// One line saying how r ended, for a failure message: "connect failed (ETIMEDOUT)", or
// "EOF" / "reset (ECONNRESET)" / "timed out", then the bytes read, how much of the
// request left (and a send's error), and the time taken: an empty answer then says
// whether the daemon closed, reset, or never answered.
std::string HowItEnded(const Received &r);

// Every read of the harness (Received, Client) passes through a filter that checks each
// `Date: ` field line the daemon sends (the last field of every head, BEHAVIOUR 15) is
// an IMF-fixdate and takes it out, so byte-exact expectations stay free of the clock;
// Received::dates counts them. date_test.cc checks Date itself on raw bytes.
// True if s (29 bytes) is an IMF-fixdate (RFC 9110 5.6.7) naming a real instant.
bool IsImfFixdate(const std::string &s);

// The bytes one Date field line takes on the wire: "Date: " + IMF-fixdate + CRLF.
constexpr size_t kDateLineBytes = 37;

// raw, read by a test's own loop, through the same filter: every complete, well-formed
// Date line taken out. *dates, if given, receives how many.
std::string WithoutDates(const std::string &raw, size_t *dates = nullptr);

// Reads until EOF, a reset, or timeout_ms without completion (total, not per read).
Received ReadUntilClose(int fd, int timeout_ms = 5000);

// Sends request while reading whatever the daemon answers (so a daemon that answers early
// and then drains cannot deadlock a large send), optionally shuts the write side after
// the last byte, then reads until close. Closes fd. Bounded by timeout_ms in total.
Received Exchange(int fd, const std::string &request, bool shut_write, int timeout_ms = 5000);

// Connects, exchanges request (see Exchange) and closes. A failed connect comes back as
// timed_out with no bytes. A persistent connection does not end by itself: request must
// ask to close (GetClose, HTTP/1.0) or shut_write must be true, else this times out.
Received Roundtrip(int port, const std::string &request, bool shut_write = false,
		   int timeout_ms = 5000);

// Roundtrip for a client whose request completes its handshake: TCP_DEFER_ACCEPT set on
// the connecting socket holds back the handshake's last ACK until data goes (Linux,
// tcp_rcv_synsent_state_process; at most its 200 ms delayed-ACK timer), and request is
// sent at once, so the daemon's listener reports the connection with the request in it:
// the daemon never holds it silent, and no accept can evict it before its request
// (BEHAVIOUR 4) however late this process runs. *rode says whether the request did come
// with the handshake (the socket sent 2 segments, the SYN and it; where TCP_INFO is cut
// short, as under qemu-user: it left within 150 ms of the connect); false means the ACK
// left alone first, or the send failed. request must fit in one send (a few KiB).
Received RoundtripOnHandshake(int port, const std::string &request, int timeout_ms, bool *rode);

// True if fd has been closed by the peer or has data waiting, within wait_ms.
bool PeerSpokeOrClosed(int fd, int wait_ms);

// The offset just past the complete response that starts at `at` in bytes (its head, plus
// Content-Length body bytes unless head_only or a 204 or 304), or npos while it is
// incomplete or has no readable Content-Length.
size_t ResponseEnd(const std::string &bytes, size_t at, bool head_only);

// One client connection kept open across requests (keep-alive, pipelining). Every read
// is bounded by a timeout; bytes read but not yet taken stay buffered in order.
class Client {
public:
	// Connects to 127.0.0.1:port with TCP_NODELAY (so each Send leaves at once);
	// connected() is false on failure.
	explicit Client(int port);
	~Client();
	Client(const Client &) = delete;
	Client &operator=(const Client &) = delete;

	bool connected() const { return fd_ >= 0; }
	int fd() const { return fd_; }

	// Sends all of data in one send(2) where the kernel takes it (the batch tests rely
	// on that: loopback socket buffers hold far more than they send). False on refusal.
	bool Send(const std::string &data);

	// Shuts the write side (FIN): the daemon answers what it has, then closes.
	void ShutWrite();

	// Sends data and the FIN in one TCP segment (TCP_CORK holds the data until the
	// shutdown flushes both), so the daemon learns of both from one readiness report.
	bool SendWithFin(const std::string &data);

	// Reads until n bytes are buffered, then takes and returns them. Returns fewer when
	// the daemon closed, reset or timeout_ms passed first (see ended()).
	std::string Take(size_t n, int timeout_ms = 5000);

	// Takes one complete response (see ResponseEnd); "" if none completed in time.
	std::string TakeResponse(bool head_only = false, int timeout_ms = 5000);

	// True if no untaken bytes are buffered, nothing arrives within wait_ms and the
	// daemon does not close: the connection is open and idle.
	bool Quiet(int wait_ms);

	// Reads until the daemon closes (timeout_ms at most); returns everything not yet
	// taken, with how the stream ended.
	Received TakeUntilClose(int timeout_ms = 5000);

	// True once the stream ended: EOF, reset, or a read that timed out.
	bool ended() const { return in_.eof || in_.reset || in_.timed_out; }
	const Received &state() const { return in_; }

private:
	// Reads once (waiting until deadline_ms); false when the stream ended or time ran out.
	bool ReadMore(int64_t deadline_ms);

	int fd_ = -1;
	Received in_; // in_.bytes: read, not yet taken
};

// ---- --root's files (BEHAVIOUR 10.5, 10.8) ----

// t as an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT").
std::string HttpDate(time_t t);

// The validators --root sends for the file at path, from stat(2) now: call it before the
// test changes the file. Both empty when stat fails.
struct FileValidators {
	std::string etag;          // "\"<size>-<mtime in ns>-<inode>\"", lower-case hex
	std::string last_modified; // HttpDate of the mtime's second
};
FileValidators ValidatorsOf(const std::string &path);

// The field lines of a file's 200 and 206 heads between Content-Length and Connection:
// "Last-Modified: ...\r\nETag: ...\r\nAccept-Ranges: bytes\r\n".
std::string FileFields(const FileValidators &v);

// The exact 200 head the daemon renders for the file at path (stat'ed now) of Content-Type
// type and length bytes, in the Connection form it will follow (Date taken out, as the
// harness's reads do).
std::string FileHead(const std::string &type, size_t length, const std::string &path,
		     bool keep_alive);

// ---- HTTP responses ----

struct HttpResponse {
	bool parsed = false;         // a complete head with a valid status line
	std::string error;           // why not, or the first framing fault found
	int status = 0;              // e.g. 200
	std::string status_line;     // without CRLF
	std::string head;            // status line through the final CRLFCRLF
	std::vector<std::pair<std::string, std::string>> headers; // in order, as sent
	std::string body;            // everything after the head

	// The value of the only header named name (any case); "" and *count = 0 if absent.
	std::string Header(const std::string &name, int *count = nullptr) const;
};

// Parses bytes as one HTTP/1.1 response. Checks the framing byte by byte: every line ends
// in CRLF, no bare CR or LF in the head, `name: value` header lines.
HttpResponse ParseResponse(const std::string &bytes);

// The bytes of a string literal, embedded NULs included (std::string(s) stops at NUL).
template <size_t N>
std::string Bytes(const char (&literal)[N])
{
	return std::string(literal, N - 1);
}

// GET request bytes for target on HTTP/1.1 with a Host header. On a keepalive tier the
// daemon keeps the connection open after answering it.
std::string Get(const std::string &target, const std::string &method = "GET");

// The same request with `Connection: close`: the daemon closes after answering it.
std::string GetClose(const std::string &target, const std::string &method = "GET");

// The bytes of the same response on a persistent connection: close_form (a response
// saying `Connection: close`) with `Connection: keep-alive` instead.
std::string AsKeepAlive(const std::string &close_form);

// The Connection header the daemon must send in its answer to the first request in
// request, given the answer's status. "close" on a tier without feature keepalive, and for
// a 400, a 405 announcing a body (Content-Length > 0), a GET or HEAD announcing more than
// 1 MiB, HTTP/1.1 with a `close` token in Connection, HTTP/1.0 without a `keep-alive`
// token; "keep-alive" otherwise (docs/BEHAVIOUR.md 6.2 and 9.1).
std::string ExpectedConnection(const std::string &request, int status);

// Liveness: a fresh GET /health (min: GET /) is answered 200. Returns "" or what failed.
std::string LivenessProblem(int port);

// Counters parsed from a /metrics body, in body order.
using Counters = std::vector<std::pair<std::string, uint64_t>>;

// Parses `name value\n` lines; false with *error on any other line.
bool ParseMetricsBody(const std::string &body, Counters *out, std::string *error);

// Fetches /metrics. Returns the counters by name; fails the test (non-fatally) and returns
// an empty map on any problem. *raw, if given, receives every byte of the response.
std::map<std::string, uint64_t> FetchMetrics(int port, std::string *raw = nullptr);

// The ten counter names of BEHAVIOUR 7, in order.
extern const std::vector<std::string> kSpecCounterNames;

// The counters feature keepalive appends after the ten, in order.
extern const std::vector<std::string> kKeepAliveCounterNames;

// The six counters of the warm file cache (feature files), after the keepalive ones.
extern const std::vector<std::string> kFilesCounterNames;

// The deadline and eviction counters every routed tier appends after the file cache's.
extern const std::vector<std::string> kSlowClientCounterNames;

// The counters --root's 304, 206 and 416 move (BEHAVIOUR 10.8, 10.9), last of all.
extern const std::vector<std::string> kFileStatusCounterNames;

// Every counter name the tier under test must report, in /metrics order.
std::vector<std::string> ExpectedCounterNames();

// What a request should earn (malformed, header and conformance tables).
enum class Outcome {
	kStatus2xx,   // a 2xx response
	kStatus400,   // 400 Bad Request
	kStatus404,   // 404 Not Found
	kStatus405,   // 405 with `Allow: GET, HEAD, OPTIONS`
	kStatus414,   // 414 URI Too Long (BEHAVIOUR 6.8: closes like a malformed 400)
	kCloseNo2xx,  // no 2xx (a 400 is fine), and the daemon closes
	kSilentClose, // the daemon closes without sending a byte
};

// Returns "" if r, everything the daemon sent until it closed in reply to request, is
// what outcome asks for, else what differs. outcome is checked on the first response.
// r may hold several responses (pipelined requests, or a follow-up request): each must be
// well framed and carry Content-Type, an exact Content-Length (a reply to HEAD: no body;
// a later response is taken as a reply to HEAD when the next status line or the end
// follows its head: no body of this daemon starts with "HTTP/1.1 "), a 405 `Allow: GET,
// HEAD`, and one Connection header saying what the daemon did: `keep-alive` on every
// response but the last (it answered more), `close` or, only when the client shut its
// write side, `keep-alive` on the last. The first response's Connection must be
// ExpectedConnection(request). The stream must end with the daemon closing (EOF: a reset
// that may have cut the reply is a fault). *responses, if given, receives how many
// responses r holds.
std::string OutcomeProblem(const Received &r, Outcome expected, const std::string &request,
			   size_t *responses = nullptr);

// Readable name of an outcome, for messages.
const char *OutcomeName(Outcome outcome);

// One labelled raw request and what it must earn.
struct RawCase {
	std::string label;   // a gtest name: letters, digits, underscores
	std::string raw;     // bytes sent on a fresh connection
	bool shut_write;     // shut the write side after them (a request ended by EOF)
	Outcome expected;
};

// gtest prints a failing parameter by its label rather than as raw bytes.
inline void PrintTo(const RawCase &c, std::ostream *os) { *os << c.label; }

// Sends raw on a fresh connection (shutting the write side after it if shut_write) and
// reads until the first response is complete or the daemon closes. If that response says
// `keep-alive` and the write side is open, sends GetClose("/health") on the same
// connection (*followed_up = true): its answer proves the connection persisted and the
// first request was framed exactly. Then reads until the daemon closes. Bounded by
// timeout_ms in total.
Received ReplayRaw(int port, const std::string &raw, bool shut_write, bool *followed_up,
		   int timeout_ms = 5000);

// Replays c (ReplayRaw) and checks its outcome (OutcomeProblem), the follow-up's answer
// when there was one, then that the daemon still answers a liveness request on a new
// connection (non-fatal failures).
void CheckRawCase(int port, const RawCase &c);

// Names a parametrized RawCase test by its label.
std::string RawCaseName(const testing::TestParamInfo<RawCase> &info);

// Names a parametrized test by its case's label (a gtest name: letters, digits, _).
template <class Case>
std::string LabelName(const testing::TestParamInfo<Case> &info)
{
	return info.param.label;
}

// Removes the tree at path and everything in it, symlinks as links (never followed);
// what cannot be removed is left.
void RemoveTree(const std::string &path);

// A fresh /tmp/apollod-site-XXXXXX (mode 0755) holding f.txt (text) and an empty sub/,
// for --root: removed with everything in it when the object goes (a test may Put more
// files there). path() is "" when creation failed (the test has failed non-fatally then).
class SmallSite {
public:
	explicit SmallSite(const std::string &text);
	~SmallSite();
	SmallSite(const SmallSite &) = delete;
	SmallSite &operator=(const SmallSite &) = delete;
	const std::string &path() const { return path_; }

private:
	std::string path_;
};

// A fresh /tmp/apollod-root-XXXXXX (mode 0755) holding files, each a relative path
// ("a/b.txt": the directories on the way are made, mode 0755) and its bytes, for --root:
// removed with everything in it when the object goes. dir() is "" when creation failed
// (the test has failed non-fatally then).
class FileRoot {
public:
	explicit FileRoot(const std::vector<std::pair<std::string, std::string>> &files);
	~FileRoot();
	FileRoot(const FileRoot &) = delete;
	FileRoot &operator=(const FileRoot &) = delete;
	const std::string &dir() const { return dir_; }

private:
	std::string dir_;
};

// A fresh /tmp/apollod-<what>-XXXXXX tree that fill writes (it returns "" or what went
// wrong), served with --root and flags after it; the daemon stops and the tree goes with
// the object. error() says why it is not serving ("" when it is).
class ServedTree {
public:
	ServedTree(const std::string &what,
		   const std::function<std::string(const std::string &dir)> &fill,
		   const std::vector<std::string> &flags);
	~ServedTree();
	ServedTree(const ServedTree &) = delete;
	ServedTree &operator=(const ServedTree &) = delete;
	const std::string &error() const { return error_; }
	int port() const { return daemon_.port(); }
	pid_t pid() const { return daemon_.pid(); }
	const std::string &dir() const { return dir_; }

private:
	std::string dir_, error_;
	Daemon daemon_;
};

// The chromium command line for a headless run against url (profile: a fresh directory),
// then what it does ("--dump-dom", "--screenshot=PNG", ...).
std::vector<std::string> Chromium(const std::string &profile, const std::string &what,
				  const std::string &url);

// A suite whose tests share one tree served with --root (feature files), made once for
// the suite by Derived::WriteTree(dir) ("" or what failed) under the name
// Derived::kTreeName, served with Derived::TreeFlags(); every test is skipped without
// the feature and fails when the tree could not be served.
template <typename Derived>
class TreeSuite : public testing::Test {
protected:
	static void SetUpTestSuite()
	{
		if (HasFeature("files"))
			tree_ = new ServedTree(Derived::kTreeName, Derived::WriteTree,
					       Derived::TreeFlags());
	}
	static void TearDownTestSuite()
	{
		delete tree_;
		tree_ = nullptr;
	}
	void SetUp() override
	{
		REQUIRE_FEATURE("files");
		ASSERT_TRUE(tree_ != nullptr && tree_->error().empty())
			<< (tree_ ? tree_->error() : "no tree");
	}
	static std::vector<std::string> TreeFlags() { return {}; }
	static const ServedTree &tree() { return *tree_; }

private:
	inline static ServedTree *tree_ = nullptr;
};

// Writes content to root/rel, creating the directories on the way. False on failure.
bool Put(const std::string &root, const std::string &rel, const std::string &content);

// ---- Child programs ----

// A NULL-terminated argv view of args (which must outlive it), for execv/execvp. Build it
// before fork: the child of a threaded test should only exec.
std::vector<char *> ArgvOf(const std::vector<std::string> &args);

struct CommandResult {
	bool ran = false;        // exec succeeded and the child exited by itself in time
	int exit_code = -1;      // its exit status (or -1)
	bool signalled = false;  // killed by a signal (ours after a timeout, or another)
	std::string out, err;    // its stdout and stderr
	std::string problem;     // why ran is false
};

// Runs argv (argv[0] looked up on PATH) with stdin_data on its stdin, collecting stdout
// and stderr; kills it after timeout_ms.
CommandResult RunCommand(const std::vector<std::string> &argv, const std::string &stdin_data,
			 int timeout_ms);

// Runs the daemon on root_dir (--listen 127.0.0.1:0) with flags, to the refusal a test
// expects: returns its exit code and stderr, expecting it ran and announced nothing.
CommandResult RunToRefusal(const std::string &root_dir, const std::vector<std::string> &flags,
			   int timeout_ms);

// Returns "" if err is what a refused command line writes (BEHAVIOUR 3): the line naming
// the word at fault, exactly `problem` (with its newline), then one usage line; else what
// differs.
std::string UsageErrorProblem(const std::string &err, const std::string &problem);

// The uid and gid of user and group nobody (Debian).
constexpr uid_t kNobodyId = 65534;

// Runs the daemon (with its launcher) with args as user and group nobody (no
// supplementary groups), stdout and stderr captured; kills it after timeout_ms. Root reads
// and binds anything: failure paths that need an unprivileged daemon (an unreadable file,
// a port below 1024) run it this way. Needs root (ran is false otherwise).
CommandResult RunDaemonAsNobody(const std::vector<std::string> &args, int timeout_ms);

// Raises this process's soft RLIMIT_NOFILE to at least want (up to the hard limit).
// Returns the soft limit in effect afterwards.
rlim_t RaiseOwnNofileLimit(rlim_t want);

// The children of parent, from /proc/PID/task/PID/children (empty once it is gone).
std::vector<pid_t> Children(pid_t parent);

// Waits until parent has exactly n children; returns them (or what there was at the end).
std::vector<pid_t> WaitForChildren(pid_t parent, size_t n, int timeout_ms = 5000);

// The index of gzip_pending in the counter page (BEHAVIOUR 7: the 53rd counter);
// WaitForSettledStart checks it against ExpectedCounterNames, /metrics's order.
constexpr size_t kGzipPendingCounter = 52;

// Counter `index` of the counter page the resident supervisor pid holds (its
// memfd:apollod-counters, read through /proc/PID/fd), or -1 when it holds none (yet) or
// its page is not filled yet (the layout word, written last, reads 0).
int64_t SupervisorCounter(pid_t supervisor, size_t index);

// A settled start (BEHAVIOUR 10.10): waits until the resident supervisor pid has its
// counter page, and, when gzip_pending says the first start left gzip forms to make,
// until it reads 0 (the compressing generation serves); then, in every case, until one
// generation is left (pid has one child: a handed-over first one has drained). Nothing
// for a process that holds no page and ends, or the min tier. Returns whether it settled
// within kStateWaitMs.
bool WaitForSettledStart(pid_t supervisor);

// The serving generation of a routed daemon whose resident supervisor is pid (its one
// child, BEHAVIOUR 17), waited for up to 5 s; -1 when there is not exactly one.
pid_t ServingGeneration(pid_t supervisor);

// pid's children, their children and so on, from /proc.
std::vector<pid_t> Descendants(pid_t pid);

// What pid and its descendants are doing, for a start that timed out: per process its
// command line, then per thread its state, wchan and /proc/.../syscall, one line each.
std::string ProcessTreeReport(pid_t pid);

// Whether pid still runs: it exists and is not a zombie (/proc/PID/stat state).
bool ProcessRuns(pid_t pid);

// Waits until pid no longer runs (ProcessRuns), timeout_ms at most (a bound that only
// ends a hang). After a reload, the old image's exit: it accepts until its retire signal
// (BEHAVIOUR 17), so only then does every new connection reach the new one. Returns
// whether it ended.
bool WaitUntilExited(pid_t pid, int timeout_ms = kStateWaitMs);

// Whether pid is stopped (SIGSTOP, or a tracer): /proc/PID/stat state T or t.
bool ProcessStopped(pid_t pid);

// Resumes a process a test stopped (SIGCONT) when the scope ends, whatever the test's
// outcome, so Stop() can end it.
struct ResumeOnExit {
	pid_t pid;
	~ResumeOnExit() { kill(pid, SIGCONT); }
};

// One descriptor of a process that names a memfd of the snapshot ("/memfd:apollod-snapshot",
// BEHAVIOUR 10.17): its /proc/PID/fd path, and the memfd's inode and size.
struct SnapshotMemfd {
	std::string path;
	ino_t inode;
	off_t size;
};

// The descriptors of pid that name the snapshot's memfds (empty once it is gone).
std::vector<SnapshotMemfd> SnapshotMemfdsOf(pid_t pid);

// ---- Waiting for state (/proc, sock_diag), never for time: WaitUntil above ----

// One IPv4 TCP socket of this network namespace (what /proc/net/tcp shows, read through
// sock_diag netlink).
struct TcpSocket {
	bool found = false;
	unsigned state = 0;           // TCP_ESTABLISHED (1) ... TCP_LISTEN (10), netinet/tcp.h
	uint64_t send_queue = 0;      // sent, not yet acknowledged by the peer
	uint64_t receive_queue = 0;   // arrived, not yet read (a listener: not yet accepted)
	unsigned long inode = 0;      // 0 until a process accepts it
};

// The daemon's end of the loopback connection whose client end is fd (not found once it
// is gone, or only in TIME_WAIT).
TcpSocket ServerEndOf(int fd);

// The client end fd itself.
TcpSocket ClientEndOf(int fd);

// The IPv4 socket listening on port (its receive_queue: connections waiting to be
// accepted).
TcpSocket ListenerOn(int port);

// Whether pid holds the socket of that inode among its descriptors.
bool HoldsSocket(pid_t pid, unsigned long inode);

// TCP connections pid holds (IPv4 and IPv6, listeners not counted).
int ConnectionsHeld(pid_t pid);

// Whether pid holds a listening TCP socket (IPv4 or IPv6).
bool HoldsListener(pid_t pid);

// Whether every thread of pid sleeps (/proc/PID/task/*/stat state S): the daemon's only
// blocking call is its event wait, so it has done all it can with what it has read.
bool Sleeps(pid_t pid);

// The poll step of a wait made once per byte or per step of a test (the keep-alive
// split tests wait about a hundred times, each usually over within a millisecond).
constexpr int64_t kPerByteStepMs = 1;

// Waits until the serving process pid has read every byte the client sent on fd and gone
// back to its wait: fd's bytes are all acknowledged (SIOCOUTQ 0), then every thread of pid
// sleeps. On loopback the kernel wakes the daemon's socket before the ack reaches the
// client (tcp_rcv_established), and the daemon sleeps only in its event wait with nothing
// ready, so by then it has accepted the connection and done what it does with the bytes.
// No socket table is read (/proc/net/tcp where sock_diag is refused), so a test may wait
// so once per byte. False after timeout_ms.
bool WaitUntilDaemonRead(pid_t pid, int fd, int timeout_ms = kStateWaitMs);

// Waits until the serving process pid holds fd's peer among its descriptors and sleeps
// again: it has accepted the connection, and its first read, which found nothing, is
// done. For a client that has sent nothing yet (with bytes sent, WaitUntilDaemonRead).
// False after timeout_ms.
bool WaitUntilDaemonAccepted(pid_t pid, int fd, int timeout_ms = kStateWaitMs);

// A signal mask of /proc/PID/status by its field name ("SigPnd", "ShdPnd", "SigBlk",
// "SigIgn", "SigCgt"): bit n-1 is signal n. 0 when unreadable.
uint64_t SignalMask(pid_t pid, const std::string &field);

// Waits until no signal of mask is pending for pid (its own or its process's: SigPnd,
// ShdPnd). Returns whether that came within timeout_ms.
bool WaitNonePending(pid_t pid, uint64_t mask, int timeout_ms = kStateWaitMs);

} // namespace wire

#endif // APOLLOD_TEST_WIRE_WIRE_HARNESS_H
