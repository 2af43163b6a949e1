// Files served from `--root DIR` over the wire (feature `files`): byte-exact bodies and
// heads for GET and HEAD, 404 for every name the start-up walk did not load (traversal,
// encoded forms, symlinks, directories), built-in routes first, keep-alive and pipelined
// file responses, a slow reader of a large file, the cache counters, and the start-up
// limits and failures (exit 9 and 10, nothing announced).
//
// Fixture trees are built under a fresh mkdtemp directory per test suite, filled with
// random bytes, and removed when the suite ends. They live under /tmp rather than
// TEST_TMPDIR: the unreadable-file case runs the daemon as user nobody, who must be able
// to traverse the path (TEST_TMPDIR lies below /root, mode 0700).
//
// Every request here says `Connection: close` unless it tests keep-alive, so a one-shot
// exchange ends with the daemon's EOF instead of the idle deadline.
#include <algorithm>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kExitUsage = 64;
constexpr int kExitRootLimit = 9;
constexpr int kExitRootRead = 10;
constexpr int kRunTimeoutMs = 10000;      // a start-up that must fail, or a big exchange
constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * kKiB;
// Content-Types of the extension table the fixtures use; anything else is octet-stream.
constexpr char kOctetStream[] = "application/octet-stream";
constexpr char kText[] = "text/plain; charset=utf-8";
constexpr char kHtml[] = "text/html; charset=utf-8";
constexpr char kCss[] = "text/css; charset=utf-8";
constexpr char kJson[] = "application/json";
constexpr char kPng[] = "image/png";

// ---- Fixture trees ----

// n random bytes.
std::string RandomBytes(size_t n)
{
	static std::mt19937_64 rng{std::random_device{}()};
	std::string s(n, '\0');
	for (size_t i = 0; i < n; i++)
		s[i] = static_cast<char>(rng());
	return s;
}

// Creates the file at path holding content (mode 0644). Fails the test and returns false
// when it cannot.
bool WriteFile(const std::string &path, const std::string &content)
{
	int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	bool ok = fd >= 0 && write(fd, content.data(), content.size()) ==
				     static_cast<ssize_t>(content.size());
	if (!ok)
		ADD_FAILURE() << "cannot write " << path << ": " << strerror(errno);
	if (fd >= 0)
		close(fd);
	return ok;
}

// Creates directory path (mode 0755; its parent must exist). Fails the test if it cannot.
bool MakeDir(const std::string &path)
{
	bool ok = mkdir(path.c_str(), 0755) == 0;
	if (!ok)
		ADD_FAILURE() << "cannot mkdir " << path << ": " << strerror(errno);
	return ok;
}

// A fresh directory /tmp/apollod-files-XXXXXX, mode 0755 (see the top of the file), removed
// with everything in it when the object goes.
class TempDir {
public:
	TempDir()
	{
		char name[] = "/tmp/apollod-files-XXXXXX";
		if (mkdtemp(name) == nullptr || chmod(name, 0755) != 0) {
			ADD_FAILURE() << "mkdtemp: " << strerror(errno);
			return;
		}
		path_ = name;
	}
	~TempDir()
	{
		if (!path_.empty())
			RemoveTree(path_);
	}
	TempDir(const TempDir &) = delete;
	TempDir &operator=(const TempDir &) = delete;

	const std::string &path() const { return path_; } // "" when creation failed

private:
	std::string path_;
};

// The tree most suites serve: <temp>/root is DIR, <temp>/outside.txt is a real file next
// to it that no request may reach.
class ServedTree {
public:
	ServedTree()
	{
		if (temp_.path().empty())
			return;
		root_ = temp_.path() + "/root";
		outside_ = temp_.path() + "/outside.txt";
		bool ok = MakeDir(root_) && WriteFile(outside_, RandomBytes(30));
		for (const char *dir : {"sub", "a", "a/b", "v1.0"})
			ok = ok && MakeDir(root_ + "/" + dir);
		const std::vector<std::pair<std::string, size_t>> files = {
			{"empty.txt", 0},        {"one", 1},           {"page.html", 4 * kKiB},
			{"quarter.bin", 256 * kKiB}, {"big.PNG", 4 * kMiB}, {"f.txt", 100},
			{"style.css", 300},      {"sub/f.txt", 50},    {"sub/inner.json", 200},
			{"a/b/c.txt", 64},       {"v1.0/readme", 10},  {"health", 20},
		};
		for (const auto &f : files)
			ok = ok && Add(f.first, RandomBytes(f.second));
		// Names a request spells percent-encoded.
		ok = ok && Add("has space.txt", "x") && Add("what?.txt", "x");
		// On disk but never loaded: dotfiles (without --dotfiles), symbolic links (never
		// followed), a FIFO (not a regular file).
		ok = ok && WriteFile(root_ + "/.hidden", "x");
		const std::vector<std::pair<std::string, std::string>> links = {
			{"link.txt", "f.txt"},
			{"escape.txt", "../outside.txt"},
			{"linkdir", "sub"},
		};
		for (const auto &l : links) {
			if (ok && symlink(l.second.c_str(), (root_ + "/" + l.first).c_str()) != 0) {
				ADD_FAILURE() << "symlink " << l.first << ": " << strerror(errno);
				ok = false;
			}
		}
		if (ok && mkfifo((root_ + "/pipe").c_str(), 0644) != 0) {
			ADD_FAILURE() << "mkfifo: " << strerror(errno);
			ok = false;
		}
		ok_ = ok;
	}

	bool ok() const { return ok_; }
	const std::string &root() const { return root_; }
	const std::string &outside() const { return outside_; }
	// The body of the servable file at relative path rel (which must be one).
	const std::string &Body(const std::string &rel) const { return files_.at(rel); }
	size_t FileCount() const { return files_.size(); }
	uint64_t ByteCount() const
	{
		uint64_t n = 0;
		for (const auto &f : files_)
			n += f.second.size();
		return n;
	}

private:
	// Writes a servable file and remembers its content.
	bool Add(const std::string &rel, const std::string &content)
	{
		files_[rel] = content;
		return WriteFile(root_ + "/" + rel, content);
	}

	TempDir temp_;
	std::string root_, outside_;
	std::map<std::string, std::string> files_; // servable: relative path -> content
	bool ok_ = false;
};

// ---- Requests and responses ----

// method target on HTTP/1.1 with a Host header; `Connection: close` unless keep_alive.
std::string Request(const std::string &method, const std::string &target, bool keep_alive = false)
{
	return method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
	       (keep_alive ? "" : "Connection: close\r\n") + "\r\n";
}

// "" if got == want, else where they part (without printing megabytes).
std::string Mismatch(const std::string &raw, const std::string &want)
{
	std::string got = WithoutDates(raw); // this file reads with loops of its own
	if (got == want)
		return "";
	size_t at = 0;
	while (at < got.size() && at < want.size() && got[at] == want[at])
		at++;
	return "got " + std::to_string(got.size()) + " bytes, want " +
	       std::to_string(want.size()) + "; first difference at byte " + std::to_string(at) +
	       "; got there: '" + got.substr(at, 60) + "'; head got: '" + got.substr(0, 160) + "'";
}

// Cuts the first complete response off the front of *stream: its head, then Content-Length
// body bytes unless head_only (the reply to a HEAD). Returns false, leaving *stream as it
// was, while the response is incomplete.
bool TakeResponse(std::string *stream, bool head_only, std::string *response)
{
	size_t end = stream->find("\r\n\r\n");
	if (end == std::string::npos)
		return false;
	size_t total = end + 4;
	if (!head_only) {
		HttpResponse head = ParseResponse(stream->substr(0, total));
		total += strtoull(head.Header("Content-Length").c_str(), nullptr, 10);
	}
	if (stream->size() < total)
		return false;
	*response = stream->substr(0, total);
	stream->erase(0, total);
	return true;
}

// Reads from fd, after what *pending already holds, until one complete response is there
// (see TakeResponse), for up to timeout_ms. Returns true with it in *response; bytes after
// it stay in *pending. False on EOF, error or timeout.
bool ReadResponse(int fd, bool head_only, std::string *pending, std::string *response,
		  int timeout_ms = kRunTimeoutMs)
{
	int64_t deadline = NowMs() + timeout_ms;
	char buf[65536];
	while (!TakeResponse(pending, head_only, response)) {
		struct pollfd p = {fd, POLLIN, 0};
		int64_t left = deadline - NowMs();
		if (left <= 0 || poll(&p, 1, static_cast<int>(left)) <= 0)
			return false;
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			return false;
		pending->append(buf, static_cast<size_t>(n));
	}
	return true;
}

// Counters from the bytes of a /metrics response; fails the test and returns an empty map
// on any problem.
std::map<std::string, uint64_t> CountersOf(const std::string &raw, Counters *ordered = nullptr)
{
	HttpResponse resp = ParseResponse(raw);
	Counters counters;
	std::string error;
	if (!resp.parsed || resp.status != 200 || !ParseMetricsBody(resp.body, &counters, &error)) {
		ADD_FAILURE() << "/metrics: " << resp.error << error << " '" << raw.substr(0, 200)
			      << "'";
		return {};
	}
	if (ordered)
		*ordered = counters;
	return std::map<std::string, uint64_t>(counters.begin(), counters.end());
}

// GET /metrics on a fresh connection that closes after it, keeping the counters in the
// daemon's order too (FetchMetrics returns them by name only).
std::map<std::string, uint64_t> Metrics(int port, Counters *ordered = nullptr)
{
	Received r = Roundtrip(port, Request("GET", "/metrics"), false, kRunTimeoutMs);
	EXPECT_TRUE(r.eof) << "/metrics: the daemon did not close after Connection: close";
	return CountersOf(r.bytes, ordered);
}

// ---- Suites over the served tree ----

// Names a parametrized test by its case's label (every case struct has one).
template <class Case>
std::string CaseLabel(const testing::TestParamInfo<Case> &param_info)
{
	return param_info.param.label;
}

// Builds a ServedTree and starts a daemon with --root on it for the suite; both go when
// the suite ends. Tests skip unless the tier declares `files`.
template <class Base>
class ServedTreeFixture : public Base {
protected:
	static void SetUpTestSuite()
	{
		if (!HasFeature("files"))
			return;
		tree_ = new ServedTree;
		if (!tree_->ok())
			return;
		daemon_ = new Daemon;
		DaemonOptions options;
		options.extra_args = {"--root", tree_->root()};
		std::string error;
		if (!daemon_->Start(options, &error))
			ADD_FAILURE() << error;
	}
	static void TearDownTestSuite()
	{
		delete daemon_;
		daemon_ = nullptr;
		delete tree_;
		tree_ = nullptr;
	}
	void SetUp() override
	{
		REQUIRE_FEATURE("files");
		ASSERT_TRUE(tree_ != nullptr && tree_->ok()) << "the fixture tree was not built";
		ASSERT_TRUE(daemon_ != nullptr && daemon_->IsAlive())
			<< "the daemon serving " << tree_->root() << " is not running";
		port_ = daemon_->port();
	}
	const ServedTree &tree() const { return *tree_; }

	int port_ = 0;

private:
	inline static ServedTree *tree_ = nullptr;
	inline static Daemon *daemon_ = nullptr;
};

// One servable file, how a request names it, and the Content-Type it must carry.
struct ServeCase {
	std::string label;
	std::string target; // the request target
	std::string file;   // its relative path in the tree
	std::string type;
};

void PrintTo(const ServeCase &c, std::ostream *os) { *os << c.label; }

class FilesServeTest : public ServedTreeFixture<testing::TestWithParam<ServeCase>> {};

// GET: exactly head + body, then EOF. HEAD: exactly the same head and nothing else.
TEST_P(FilesServeTest, GetAndHeadByteExact)
{
	const ServeCase &c = GetParam();
	const std::string &body = tree().Body(c.file);
	std::string head = FileHead(c.type, body.size(), tree().root() + "/" + c.file, false);

	Received get = Roundtrip(port_, Request("GET", c.target), false, kRunTimeoutMs);
	EXPECT_TRUE(get.eof && !get.reset && !get.timed_out) << "GET did not end in EOF";
	EXPECT_EQ(Mismatch(get.bytes, head + body), "") << "GET " << c.target;

	Received head_reply = Roundtrip(port_, Request("HEAD", c.target), false, kRunTimeoutMs);
	EXPECT_TRUE(head_reply.eof && !head_reply.reset && !head_reply.timed_out)
		<< "HEAD did not end in EOF";
	EXPECT_EQ(Mismatch(head_reply.bytes, head), "") << "HEAD " << c.target;
}

const ServeCase kServeCases[] = {
	{"empty_0B_txt", "/empty.txt", "empty.txt", kText},
	{"one_1B_no_extension", "/one", "one", kOctetStream},
	{"html_4KiB", "/page.html", "page.html", kHtml},
	{"bin_256KiB_default_type", "/quarter.bin", "quarter.bin", kOctetStream},
	{"png_4MiB_upper_case_extension", "/big.PNG", "big.PNG", kPng},
	{"css", "/style.css", "style.css", kCss},
	{"json_in_subdirectory", "/sub/inner.json", "sub/inner.json", kJson},
	{"nested_a_b_c_txt", "/a/b/c.txt", "a/b/c.txt", kText},
	{"dot_in_directory_is_no_extension", "/v1.0/readme", "v1.0/readme", kOctetStream},
	{"query_string_ignored", "/f.txt?x=1", "f.txt", kText},
	{"encoded_dot", "/f%2etxt", "f.txt", kText},
	{"encoded_space", "/has%20space.txt", "has space.txt", kText},
	{"encoded_question_mark_lower_hex", "/what%3f.txt", "what?.txt", kText},
	{"empty_query_string", "/sub/f.txt?", "sub/f.txt", kText},
};

INSTANTIATE_TEST_SUITE_P(Files, FilesServeTest, testing::ValuesIn(kServeCases),
			 CaseLabel<ServeCase>);

// A target that must earn 404 on a fresh connection. "{outside}" stands for the absolute
// path of the real file next to DIR.
struct NotFoundCase {
	std::string label;
	std::string target;
};

void PrintTo(const NotFoundCase &c, std::ostream *os) { *os << c.label; }

class FilesNotFoundTest : public ServedTreeFixture<testing::TestWithParam<NotFoundCase>> {};

TEST_P(FilesNotFoundTest, Answers404)
{
	std::string target = GetParam().target;
	size_t marker = target.find("{outside}");
	if (marker != std::string::npos)
		target.replace(marker, strlen("{outside}"), tree().outside());
	for (const char *method : {"GET", "HEAD"}) {
		std::string request = Request(method, target);
		Received r = Roundtrip(port_, request, false, kRunTimeoutMs);
		EXPECT_EQ(OutcomeProblem(r, Outcome::kStatus404, request), "")
			<< method << " " << target << " got '" << r.bytes.substr(0, 200) << "'";
	}
}

const NotFoundCase kNotFoundCases[] = {
	{"missing", "/nope.txt"},
	{"missing_nested", "/a/b/nope.txt"},
	{"double_slash", "//f.txt"},
	{"dotdot_inside_to_a_name_not_loaded", "/sub/../outside.txt"},
	{"encoded_dot_names_no_file", "/f%2etxt.txt"},
	{"dotfile", "/.hidden"},
	{"absolute_path_outside", "{outside}"},
	{"absolute_path_double_slash", "/{outside}"},
	{"symlink_to_file_inside", "/link.txt"},
	{"symlink_to_file_outside", "/escape.txt"},
	{"through_symlinked_directory", "/linkdir/f.txt"},
	{"directory_slash_without_index", "/sub/"},
	{"nested_directory_slash_without_index", "/a/b/"},
	{"file_with_trailing_slash", "/f.txt/"},
	{"case_differs", "/F.TXT"},
	{"fifo", "/pipe"},
	{"unencoded_question_mark_starts_the_query", "/what?.txt"},
};

INSTANTIATE_TEST_SUITE_P(Files, FilesNotFoundTest, testing::ValuesIn(kNotFoundCases),
			 CaseLabel<NotFoundCase>);

// What one request of a keep-alive or pipelined exchange must earn.
struct Reply {
	std::string request;
	std::string expected; // the exact response; "" for a 404 that keeps the connection
	bool head_only;       // the request is a HEAD: the response has no body
};

// Checks response against what reply expects (non-fatal failures).
void CheckReply(const std::string &response, const Reply &reply)
{
	if (!reply.expected.empty()) {
		EXPECT_EQ(Mismatch(response, reply.expected), "");
		return;
	}
	HttpResponse resp = ParseResponse(response);
	EXPECT_EQ(resp.status, 404) << response;
	EXPECT_EQ(resp.Header("Connection"), "keep-alive") << response;
}

// The first line of a request, for messages.
std::string RequestLine(const std::string &request)
{
	return request.substr(0, request.find('\r'));
}

class FilesTest : public ServedTreeFixture<testing::Test> {
protected:
	// method target (a name of the tree's file rel, of Content-Type type), on a
	// connection that persists unless !keep_alive, and its exact response.
	Reply FileReply(const std::string &method, const std::string &target,
			const std::string &rel, const std::string &type,
			bool keep_alive = true) const
	{
		const std::string &body = tree().Body(rel);
		bool head_only = method == "HEAD";
		return {Request(method, target, keep_alive),
			FileHead(type, body.size(), tree().root() + "/" + rel, keep_alive) +
				(head_only ? "" : body),
			head_only};
	}
	// GET target, a name the tree does not serve, on a persistent connection.
	static Reply NotFoundReply(const std::string &target)
	{
		return {Request("GET", target, true), "", false};
	}
};

// A file named `health` in DIR does not shadow the built-in route.
TEST_F(FilesTest, BuiltInRoutesKeepPrecedence)
{
	Received r = Roundtrip(port_, Request("GET", "/health"), false, kRunTimeoutMs);
	HttpResponse resp = ParseResponse(r.bytes);
	EXPECT_EQ(resp.status, 200) << r.bytes.substr(0, 200);
	EXPECT_EQ(resp.body, "ok");
	r = Roundtrip(port_, Request("GET", "/"), false, kRunTimeoutMs);
	EXPECT_EQ(ParseResponse(r.bytes).status, 200) << r.bytes.substr(0, 200);
	EXPECT_NE(r.bytes.find("\r\n\r\n"), std::string::npos);
}

// Several files, a HEAD and a 404 on one connection, each read in full before the next
// request; every file response byte-exact with `Connection: keep-alive`, the last one
// (Connection: close) with `close`, then EOF.
TEST_F(FilesTest, KeepAliveServesSeveralFilesOnOneConnection)
{
	const std::vector<Reply> steps = {
		FileReply("GET", "/empty.txt", "empty.txt", kText),
		FileReply("GET", "/quarter.bin", "quarter.bin", kOctetStream),
		FileReply("HEAD", "/page.html", "page.html", kHtml),
		NotFoundReply("/nope"),
		FileReply("GET", "/a/b/c.txt", "a/b/c.txt", kText),
		FileReply("GET", "/big.PNG", "big.PNG", kPng),
		FileReply("GET", "/one", "one", kOctetStream, false),
	};
	int fd = ConnectLoopback(port_);
	ASSERT_GE(fd, 0);
	std::string pending;
	for (size_t i = 0; i < steps.size(); i++) {
		SCOPED_TRACE("request " + std::to_string(i) + ": " + RequestLine(steps[i].request));
		ASSERT_TRUE(SendAll(fd, steps[i].request));
		std::string response;
		ASSERT_TRUE(ReadResponse(fd, steps[i].head_only, &pending, &response))
			<< "no complete response; have '" << pending.substr(0, 200) << "'";
		CheckReply(response, steps[i]);
	}
	Received rest = ReadUntilClose(fd, kRunTimeoutMs);
	close(fd);
	EXPECT_EQ(pending + rest.bytes, "") << "bytes after the last response";
	EXPECT_TRUE(rest.eof) << "no EOF after the Connection: close response";
}

// One send holds every request; the responses come back in order, byte-exact, and the
// last request's `Connection: close` ends the connection.
TEST_F(FilesTest, PipelinedFileRequestsAnsweredInOrder)
{
	const std::vector<Reply> batch = {
		FileReply("GET", "/f.txt", "f.txt", kText),
		FileReply("GET", "/big.PNG", "big.PNG", kPng),
		FileReply("HEAD", "/quarter.bin", "quarter.bin", kOctetStream),
		NotFoundReply("/missing.txt"),
		FileReply("GET", "/empty.txt?q", "empty.txt", kText),
		FileReply("GET", "/quarter.bin", "quarter.bin", kOctetStream),
		FileReply("GET", "/sub/inner.json", "sub/inner.json", kJson),
		FileReply("GET", "/one", "one", kOctetStream),
		FileReply("GET", "/a/b/c.txt", "a/b/c.txt", kText, false),
	};
	std::string all;
	for (const Reply &reply : batch)
		all += reply.request;
	Received r = Roundtrip(port_, all, false, kRunTimeoutMs);
	EXPECT_TRUE(r.eof && !r.reset && !r.timed_out) << "the exchange did not end in EOF";
	std::string stream = r.bytes;
	for (size_t i = 0; i < batch.size(); i++) {
		SCOPED_TRACE("response " + std::to_string(i) + " to " +
			     RequestLine(batch[i].request));
		std::string response;
		ASSERT_TRUE(TakeResponse(&stream, batch[i].head_only, &response))
			<< "incomplete; " << stream.size() << " bytes left";
		CheckReply(response, batch[i]);
	}
	EXPECT_EQ(stream.size(), 0u) << "bytes after the last response";
}

// A reader with a small receive window that waits until the daemon's writes hit EAGAIN
// (its send buffer, a few MiB at most on loopback, fills behind a window of a few KiB:
// `write_eagains` rises), then reads 4 MiB in small chunks with pauses: the writes resume
// on EPOLLOUT until every byte has gone.
TEST_F(FilesTest, SlowReaderGetsEveryByteOfTheLargeFile)
{
	constexpr int kReceiveBuffer = 8192;   // SO_RCVBUF: the kernel doubles it
	constexpr size_t kChunk = 4096;        // bytes per read
	constexpr int kReadsPerPause = 16;     // a 1 ms pause after this many reads
	constexpr int kReadBudgetMs = 8000;    // the whole transfer; it takes well under 1 s
	std::map<std::string, uint64_t> before = Metrics(port_);

	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_GE(fd, 0);
	int size = kReceiveBuffer;
	// Before connect, so the window announced in the handshake is already small.
	ASSERT_EQ(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)), 0);
	struct sockaddr_in addr = {};
	addr.sin_family = AF_INET;
	addr.sin_port = htons(static_cast<uint16_t>(port_));
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_EQ(connect(fd, reinterpret_cast<struct sockaddr *>(&addr), sizeof(addr)), 0)
		<< strerror(errno);
	ASSERT_TRUE(SendAll(fd, Request("GET", "/big.PNG")));
	ASSERT_TRUE(WaitUntil([&] {
		return Metrics(port_)["write_eagains"] > before["write_eagains"];
	})) << "the daemon never found the socket full";

	std::string got;
	bool eof = false;
	int64_t deadline = NowMs() + kReadBudgetMs;
	char buf[kChunk];
	for (int reads = 1; !eof && NowMs() < deadline; reads++) {
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, static_cast<int>(deadline - NowMs())) <= 0)
			break;
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno != EINTR)
			break;
		if (n == 0)
			eof = true;
		else if (n > 0)
			got.append(buf, static_cast<size_t>(n));
		if (reads % kReadsPerPause == 0)
			SleepMs(1);
	}
	close(fd);
	EXPECT_TRUE(eof) << "no EOF within " << kReadBudgetMs << " ms";
	EXPECT_EQ(Mismatch(got, FileReply("GET", "/big.PNG", "big.PNG", kPng, false).expected), "");
}

// ---- Counters on a fresh daemon ----

// Each test starts its own daemon over the suite's tree (the suite's shared daemon is not
// used), so only that test's requests move the counters it reads.
class FilesCountersTest : public ServedTreeFixture<testing::Test> {
protected:
	void SetUp() override
	{
		ServedTreeFixture::SetUp();
		if (IsSkipped() || HasFatalFailure())
			return;
		DaemonOptions options;
		options.extra_args = {"--root", tree().root()};
		START_DAEMON(fresh_, options);
	}
	Daemon fresh_;
};

// The six file counters follow syscalls_total, in this order (later ones may follow them), and a fresh daemon reports
// exactly what the walk loaded (servable regular files only) and no hits or misses.
TEST_F(FilesCountersTest, NamesOrderAndCachedTotals)
{
	Counters ordered;
	std::map<std::string, uint64_t> m = Metrics(fresh_.port(), &ordered);
	std::vector<std::string> names;
	for (const auto &c : ordered)
		names.push_back(c.first);
	const std::vector<std::string> tail = {"syscalls_total", "cache_hits",
					       "cache_misses",   "response_syscalls",
					       "write_eagains",  "files_cached",
					       "bytes_cached"};
	// Later counters (the deadline ones) may follow.
	auto at = std::find(names.begin(), names.end(), tail.front());
	ASSERT_LE(tail.size(), static_cast<size_t>(names.end() - at));
	EXPECT_EQ(std::vector<std::string>(at, at + tail.size()), tail);
	EXPECT_EQ(m["files_cached"], tree().FileCount());
	EXPECT_EQ(m["bytes_cached"], tree().ByteCount());
	EXPECT_EQ(m["cache_hits"], 0u);
	EXPECT_EQ(m["cache_misses"], 0u);
	EXPECT_EQ(m["write_eagains"], 0u);
}

// GET and HEAD of cached paths count hits, of other paths misses; built-in routes and
// other methods count neither; files_cached and bytes_cached do not move.
TEST_F(FilesCountersTest, HitsAndMissesCountedExactly)
{
	struct Counted {
		std::string request;
		int status;
		bool hit, miss;
	};
	const std::vector<Counted> sequence = {
		{Request("GET", "/empty.txt"), 200, true, false},
		{Request("HEAD", "/page.html"), 200, true, false},
		{Request("GET", "/a/b/c.txt"), 200, true, false},
		{Request("GET", "/f.txt?x=1"), 200, true, false},
		{Request("HEAD", "/big.PNG"), 200, true, false},
		{Request("GET", "/missing"), 404, false, true},
		{Request("HEAD", "/sub"), 301, false, true},
		{Request("GET", "/sub/"), 404, false, true},
		{Request("GET", "//f.txt"), 404, false, true},
		{Request("GET", "/link.txt"), 404, false, true},
		{Request("GET", "/health"), 200, false, false},
		{Request("GET", "/"), 200, false, false},
		{Request("POST", "/f.txt"), 405, false, false},
	};
	std::map<std::string, uint64_t> before = Metrics(fresh_.port());
	uint64_t hits = 0, misses = 0;
	for (const Counted &c : sequence) {
		Received r = Roundtrip(fresh_.port(), c.request, false, kRunTimeoutMs);
		EXPECT_EQ(ParseResponse(r.bytes).status, c.status)
			<< RequestLine(c.request);
		hits += c.hit;
		misses += c.miss;
	}
	std::map<std::string, uint64_t> after = Metrics(fresh_.port());
	EXPECT_EQ(after["cache_hits"] - before["cache_hits"], hits);
	EXPECT_EQ(after["cache_misses"] - before["cache_misses"], misses);
	EXPECT_EQ(after["files_cached"], tree().FileCount());
	EXPECT_EQ(after["bytes_cached"], tree().ByteCount());
}

// K keep-alive GETs of the 256 KiB file, each read in full before the next is sent, cost
// exactly K response write(v) calls: head and body leave in one writev, and with the
// client's window drained the loopback send buffer (autotuned to MiBs) takes 256 KiB
// whole, so no short write and no EAGAIN.
TEST_F(FilesCountersTest, OneWritePerKeepAliveFileResponse)
{
	constexpr int kRequests = 8;
	int fd = ConnectLoopback(fresh_.port());
	ASSERT_GE(fd, 0);
	std::string pending, response;
	// The window is bounded by two /metrics on this connection, to a daemon nothing else
	// talks to. A /metrics body is rendered before its own write is counted, so the first
	// one's write lands inside the window and the second one's outside it:
	// Δresponse_syscalls = kRequests + 1.
	ASSERT_TRUE(SendAll(fd, Request("GET", "/metrics", true)));
	ASSERT_TRUE(ReadResponse(fd, false, &pending, &response));
	std::map<std::string, uint64_t> before = CountersOf(response);
	const std::string expected =
		FileHead(kOctetStream, 256 * kKiB, tree().root() + "/quarter.bin", true) +
				     tree().Body("quarter.bin");
	for (int i = 0; i < kRequests; i++) {
		ASSERT_TRUE(SendAll(fd, Request("GET", "/quarter.bin", true)));
		ASSERT_TRUE(ReadResponse(fd, false, &pending, &response)) << "request " << i;
		EXPECT_EQ(Mismatch(response, expected), "") << "request " << i;
	}
	ASSERT_TRUE(SendAll(fd, Request("GET", "/metrics")));
	ASSERT_TRUE(ReadResponse(fd, false, &pending, &response));
	close(fd);
	std::map<std::string, uint64_t> after = CountersOf(response);
	EXPECT_EQ(after["response_syscalls"] - before["response_syscalls"],
		  static_cast<uint64_t>(kRequests + 1));
	EXPECT_EQ(after["write_eagains"] - before["write_eagains"], 0u);
	EXPECT_EQ(after["cache_hits"] - before["cache_hits"], static_cast<uint64_t>(kRequests));
}

// ---- Start-up limits and failures ----

// Creates a chain of `levels` directories d1/d2/... under root with a file in the deepest
// (no extension: served as application/octet-stream).
// Returns the file's relative path ("" on failure).
std::string MakeNestedFile(const std::string &root, int levels)
{
	std::string rel;
	for (int i = 1; i <= levels; i++) {
		rel += (i > 1 ? "/d" : "d") + std::to_string(i);
		if (!MakeDir(root + "/" + rel))
			return "";
	}
	rel += "/deep";
	return WriteFile(root + "/" + rel, "probe") ? rel : "";
}

// Creates files f0 ... f<count-1> (one byte each) under root.
void MakeFiles(const std::string &root, int count)
{
	for (int i = 0; i < count && WriteFile(root + "/f" + std::to_string(i), "x"); i++) {
	}
}

// Creates a file whose path relative to root is `length` bytes: "p/" then a long name.
// Returns that relative path.
std::string MakeLongPath(const std::string &root, size_t length)
{
	std::string rel = "p/" + std::string(length - 2, 'n');
	if (!MakeDir(root + "/p") || !WriteFile(root + "/" + rel, "probe"))
		return "";
	return rel;
}

// One --root tree and what the daemon must make of it.
struct RootCase {
	std::string label;
	// Builds the tree at root (root does not exist yet); returns the relative path of a
	// file holding "probe" that must be served when the daemon starts, or "".
	std::string (*build)(const std::string &root);
	int exit_code;      // 0: the daemon starts and serves the probe
	std::string reason; // the stderr line after "apollod: --root ROOT: "
	bool names_path;    // the line goes on with ": <relative path>"
	std::vector<std::string> flags = {}; // after --root ROOT
};

void PrintTo(const RootCase &c, std::ostream *os) { *os << c.label; }

// 300 paths of 250 bytes: 75 000 bytes of names, over the old 64 KiB limit: now they load.
constexpr int kLongNames = 300;
constexpr size_t kLongNameLength = 250;

const RootCase kRootCases[] = {
	{"files_1024_at_max_files_start",
	 [](const std::string &root) -> std::string {
		 MakeDir(root);
		 MakeFiles(root, 1023);
		 return WriteFile(root + "/probe", "probe") ? "probe" : "";
	 },
	 0, "", false, {"--max-files", "1024"}},
	{"files_1025_over_max_files_exit_9",
	 [](const std::string &root) -> std::string {
		 MakeDir(root);
		 MakeFiles(root, 1025);
		 return "";
	 },
	 kExitRootLimit, "more files and directories than --max-files", true,
	 {"--max-files=1024"}},
	{"directories_count_against_max_files_exit_9",
	 [](const std::string &root) -> std::string {
		 MakeDir(root);
		 MakeFiles(root, 2);
		 MakeDir(root + "/d");
		 return "";
	 },
	 kExitRootLimit, "more files and directories than --max-files", true, {"--max-files", "2"}},
	{"files_1025_by_default_start",
	 [](const std::string &root) -> std::string {
		 MakeDir(root);
		 MakeFiles(root, 1024);
		 return WriteFile(root + "/probe", "probe") ? "probe" : "";
	 },
	 0, "", false},
	{"levels_8_start",
	 [](const std::string &root) -> std::string {
		 MakeDir(root);
		 return MakeNestedFile(root, 8);
	 },
	 0, "", false},
	{"levels_40_start", // no depth limit of its own (BEHAVIOUR 10.3)
	 [](const std::string &root) -> std::string {
		 MakeDir(root);
		 return MakeNestedFile(root, 40);
	 },
	 0, "", false},
	{"levels_127_path_255_bytes_start", // the deepest a 255-byte path allows
	 [](const std::string &root) -> std::string {
		 MakeDir(root);
		 std::string rel;
		 for (int i = 0; i < 127; i++) {
			 rel += i ? "/a" : "a";
			 if (!MakeDir(root + "/" + rel))
				 return "";
		 }
		 rel += "/f";
		 return rel.size() == 255 && WriteFile(root + "/" + rel, "probe") ? rel : "";
	 },
	 0, "", false},
	{"path_255_bytes_start",
	 [](const std::string &root) -> std::string {
		 MakeDir(root);
		 return MakeLongPath(root, 255);
	 },
	 0, "", false},
	{"path_256_bytes_skipped_start", // the line: SkippedEntriesTest
	 [](const std::string &root) -> std::string {
		 MakeDir(root);
		 MakeLongPath(root, 256);
		 return WriteFile(root + "/probe", "probe") ? "probe" : "";
	 },
	 0, "", false},
	{"names_over_64KiB_start",
	 [](const std::string &root) -> std::string {
		 MakeDir(root);
		 for (int i = 0; i < kLongNames; i++) {
			 std::string name = std::to_string(i) + "_";
			 name.resize(kLongNameLength, 'n');
			 if (!WriteFile(root + "/" + name, "x"))
				 break;
		 }
		 return WriteFile(root + "/probe", "probe") ? "probe" : "";
	 },
	 0, "", false},
	{"bytes_over_1GiB_start", // sparse: no disk space; served from disk (BEHAVIOUR 10.18)
	 [](const std::string &root) -> std::string {
		 MakeDir(root);
		 std::string path = root + "/huge.bin";
		 if (WriteFile(path, "") && truncate(path.c_str(), (1ll << 30) + 1) != 0)
			 ADD_FAILURE() << "truncate: " << strerror(errno);
		 return WriteFile(root + "/probe", "probe") ? "probe" : "";
	 },
	 0, "", false},
	{"nonexistent_root_exit_10", [](const std::string &) -> std::string { return ""; },
	 kExitRootRead, "cannot open directory: no such file or directory", false},
	{"root_is_a_file_exit_10",
	 [](const std::string &root) -> std::string {
		 WriteFile(root, "not a directory");
		 return "";
	 },
	 kExitRootRead, "cannot open directory: not a directory", false},
};

class FilesRootTest : public testing::TestWithParam<RootCase> {
protected:
	static void SetUpTestSuite()
	{
		if (HasFeature("files"))
			temp_ = new TempDir;
	}
	static void TearDownTestSuite()
	{
		delete temp_;
		temp_ = nullptr;
	}
	void SetUp() override
	{
		REQUIRE_FEATURE("files");
		ASSERT_FALSE(temp_ == nullptr || temp_->path().empty());
	}
	inline static TempDir *temp_ = nullptr;
};

// Returns "" if err is exactly one line "apollod: --root ROOT: <reason>", followed by
// ": <something>" when names_path, else what differs.
std::string StderrLineProblem(const std::string &err, const std::string &root,
			      const std::string &reason, bool names_path)
{
	std::string want = "apollod: --root " + root + ": " + reason;
	if (err.find('\n') != err.size() - 1)
		return "not exactly one line: '" + err + "'";
	std::string line = err.substr(0, err.size() - 1);
	if (!names_path)
		return line == want ? "" : "want '" + want + "', got '" + line + "'";
	if (line.rfind(want + ": ", 0) != 0 || line.size() == want.size() + 2)
		return "want '" + want + ": <path>', got '" + line + "'";
	return "";
}

TEST_P(FilesRootTest, StartsOrExitsWithOneLine)
{
	const RootCase &c = GetParam();
	std::string root = temp_->path() + "/" + c.label;
	std::string probe = c.build(root);
	ASSERT_FALSE(HasFailure()) << "building the tree failed";
	if (c.exit_code == 0) {
		ASSERT_NE(probe, "");
		Daemon daemon;
		DaemonOptions options;
		options.extra_args = {"--root", root};
		options.extra_args.insert(options.extra_args.end(), c.flags.begin(), c.flags.end());
		START_DAEMON(daemon, options);
		Received r = Roundtrip(daemon.port(), Request("GET", "/" + probe), false,
				       kRunTimeoutMs);
		EXPECT_EQ(Mismatch(r.bytes,
				   FileHead(kOctetStream, 5, root + "/" + probe, false) + "probe"),
			  "")
			<< "GET /" << probe;
		return;
	}
	std::vector<std::string> argv = DaemonCommand();
	argv.insert(argv.end(), {"--listen", "127.0.0.1:0", "--root", root});
	argv.insert(argv.end(), c.flags.begin(), c.flags.end());
	CommandResult r = RunCommand(argv, "", kRunTimeoutMs);
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, c.exit_code) << r.err;
	EXPECT_EQ(r.out, "") << "the port was announced";
	EXPECT_EQ(StderrLineProblem(r.err, root, c.reason, c.names_path), "");
}

INSTANTIATE_TEST_SUITE_P(Files, FilesRootTest, testing::ValuesIn(kRootCases), CaseLabel<RootCase>);

// The bytes of the open file fd from its start.
std::string ReadFileAt(int fd)
{
	std::string out;
	char buf[4096];
	for (ssize_t n; (n = pread(fd, buf, sizeof(buf), (off_t)out.size())) > 0;)
		out.append(buf, (size_t)n);
	return out;
}

// Starts daemon as nobody with args, its standard error going to a temporary file that
// is read into *err once the port is announced (the load is over then). Returns whether
// it started (else *error says why).
static bool StartAsNobody(Daemon *daemon, const std::vector<std::string> &args,
			  std::string *err, std::string *error)
{
	char err_path[] = "/tmp/apollod-skipped-err-XXXXXX";
	int err_fd = mkstemp(err_path);
	if (err_fd < 0) {
		*error = std::string("mkstemp: ") + strerror(errno);
		return false;
	}
	unlink(err_path);
	DaemonOptions options;
	options.extra_args = args;
	options.as_nobody = true;
	options.stderr_fd = err_fd;
	bool started = daemon->Start(options, error);
	*err = ReadFileAt(err_fd);
	close(err_fd);
	return started;
}

// Start-up never stops for one bad entry (BEHAVIOUR 10.3). Root reads anything, so the
// daemon runs as nobody over a tree under /tmp (TEST_TMPDIR is below /root, mode 0700)
// with a file and a directory chmod 000 and a path of 256 bytes: each is skipped with
// its one line and counted, and the rest is served.
TEST(SkippedEntriesTest, UnreadableAndTooLongSkippedWithOneLineEach)
{
	REQUIRE_FEATURE("routes");
	if (geteuid() != 0 || !DaemonLauncher().empty())
		GTEST_SKIP() << "needs root, natively, to start the daemon as nobody";
	char dir[] = "/tmp/apollod-skipped-XXXXXX";
	ASSERT_NE(mkdtemp(dir), nullptr) << strerror(errno);
	std::string root = std::string(dir) + "/root";
	ASSERT_TRUE(chmod(dir, 0755) == 0 && MakeDir(root) && MakeDir(root + "/sub") &&
		    MakeDir(root + "/locked"));
	ASSERT_TRUE(WriteFile(root + "/readable", "probe") &&
		    WriteFile(root + "/sub/open", "probe") &&
		    WriteFile(root + "/sub/secret.bin", "hidden") &&
		    WriteFile(root + "/locked/inner.txt", "hidden"));
	std::string long_path = MakeLongPath(root, 256);
	ASSERT_NE(long_path, "");
	ASSERT_EQ(chmod((root + "/sub/secret.bin").c_str(), 0), 0) << strerror(errno);
	ASSERT_EQ(chmod((root + "/locked").c_str(), 0), 0) << strerror(errno);
	Daemon daemon;
	std::string err, error;
	bool started = StartAsNobody(&daemon, {"--root", root}, &err, &error);
	if (started) {
		for (const char *path : {"/readable", "/sub/open"})
			EXPECT_EQ(Mismatch(Roundtrip(daemon.port(), Request("GET", path), false,
						     kRunTimeoutMs)
						   .bytes,
					   FileHead(kOctetStream, 5, root + path, false) + "probe"),
				  "")
				<< path;
		for (const char *path : {"/sub/secret.bin", "/locked/inner.txt"})
			EXPECT_EQ(Roundtrip(daemon.port(), Request("GET", path), false, kRunTimeoutMs)
					  .bytes.substr(0, 12),
				  "HTTP/1.1 404")
				<< path;
		EXPECT_EQ(FetchMetrics(daemon.port())["entries_skipped"], 3u);
	}
	daemon.Stop();
	RunCommand({"chmod", "-R", "u+rwx", dir}, "", kRunTimeoutMs);
	RunCommand({"rm", "-rf", dir}, "", kRunTimeoutMs);
	ASSERT_TRUE(started) << error << "; stderr '" << err << "'";
	std::string lead = "apollod: --root " + root + ": skipped: ";
	std::vector<std::string> want = {
		lead + "cannot open: sub/secret.bin: permission denied\n",
		lead + "cannot open directory: locked: permission denied\n",
		lead + "a path longer than 255 bytes, in: p\n"};
	size_t lines = (size_t)std::count(err.begin(), err.end(), '\n');
	EXPECT_EQ(lines, want.size()) << err;
	for (const std::string &line : want)
		EXPECT_NE(err.find(line), std::string::npos) << "want " << line << "got " << err;
}

// A file beyond --cache-bytes is stat'ed by name and never opened at load (BEHAVIOUR
// 10.3, 10.18): an unreadable one is not skipped (no line, entries_skipped 0) but
// recorded on disk, and its request, whose open fails, answers 404; a file that fits is
// served from memory. Run as nobody, as above.
TEST(SkippedEntriesTest, UnreadableFileBeyondTheBudgetIsNotOpenedAtLoad)
{
	REQUIRE_FEATURE("routes");
	if (geteuid() != 0 || !DaemonLauncher().empty())
		GTEST_SKIP() << "needs root, natively, to start the daemon as nobody";
	char dir[] = "/tmp/apollod-beyond-XXXXXX";
	ASSERT_NE(mkdtemp(dir), nullptr) << strerror(errno);
	std::string root = std::string(dir) + "/root";
	ASSERT_TRUE(chmod(dir, 0755) == 0 && MakeDir(root) &&
		    WriteFile(root + "/readable", "probe") &&
		    WriteFile(root + "/big.bin", std::string(100, 'b')));
	ASSERT_EQ(chmod((root + "/big.bin").c_str(), 0), 0) << strerror(errno);
	Daemon daemon;
	std::string err, error;
	bool started =
		StartAsNobody(&daemon, {"--root", root, "--cache-bytes", "10"}, &err, &error);
	if (started) {
		EXPECT_EQ(Mismatch(Roundtrip(daemon.port(), Request("GET", "/readable"), false,
					     kRunTimeoutMs)
					   .bytes,
				   FileHead(kOctetStream, 5, root + "/readable", false) + "probe"),
			  "");
		EXPECT_EQ(Roundtrip(daemon.port(), Request("GET", "/big.bin"), false, kRunTimeoutMs)
				  .bytes.substr(0, 12),
			  "HTTP/1.1 404");
		std::map<std::string, uint64_t> m = FetchMetrics(daemon.port());
		EXPECT_EQ(m["entries_skipped"], 0u);
		EXPECT_EQ(m["files_cached"], 1u);
	}
	daemon.Stop();
	RunCommand({"rm", "-rf", dir}, "", kRunTimeoutMs);
	ASSERT_TRUE(started) << error << "; stderr '" << err << "'";
	EXPECT_EQ(err.find("skipped"), std::string::npos) << err;
}

// `--root` needs a non-empty value: usage error naming it, nothing announced.
TEST(FilesStartupTest, RootWithoutValueExits64)
{
	REQUIRE_FEATURE("files");
	for (const std::vector<std::string> &args :
	     {std::vector<std::string>{"--listen", "127.0.0.1:0", "--root"},
	      std::vector<std::string>{"--listen", "127.0.0.1:0", "--root="}}) {
		SCOPED_TRACE(args.back());
		std::vector<std::string> argv = DaemonCommand();
		argv.insert(argv.end(), args.begin(), args.end());
		CommandResult r = RunCommand(argv, "", kRunTimeoutMs);
		ASSERT_TRUE(r.ran) << r.problem;
		EXPECT_EQ(r.exit_code, kExitUsage);
		EXPECT_EQ(r.out, "");
		EXPECT_EQ(UsageErrorProblem(r.err, args.back() == "--root"
							   ? "apollod: --root needs a value\n"
							   : "apollod: --root: bad value ''\n"),
			  "");
	}
}

} // namespace
} // namespace wire
