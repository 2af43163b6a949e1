// The access log (feature `routes`, BEHAVIOUR 14): byte-exact lines for a known sequence
// (only the date and the microseconds masked, each by a strict pattern), and for --root's
// 304, 206 and 416; a log on a full
// pipe (a FIFO the test fills), where serving goes on and log_lines_dropped counts every
// lost line exactly; --workers 2 appending to one file in whole lines; a path that cannot
// be opened.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

// One line: `host - - [date] "request" status bytes µs coding`. Group 1: the date, group
// 2 the microseconds; masking replaces exactly those.
const std::regex kLine(
	R"re(^127\.0\.0\.1 - - \[([0-3][0-9]/(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)/20[0-9]{2}:[0-2][0-9]:[0-5][0-9]:[0-6][0-9] \+0000)\] "(?:[^"\\]|\\["\\])*" [1-5][0-9]{2} (?:[1-9][0-9]*|-) ([0-9]+) (?:-|gzip|br)$)re");

// A fresh directory under TEST_TMPDIR (or /tmp); "" on failure.
std::string TempDir()
{
	const char *tmp = getenv("TEST_TMPDIR");
	std::string name = std::string(tmp ? tmp : "/tmp") + "/access_log.XXXXXX";
	return mkdtemp(name.data()) ? name : "";
}

std::string ReadWholeFile(const std::string &path)
{
	std::ifstream in(path, std::ios::binary);
	std::stringstream s;
	s << in.rdbuf();
	return s.str();
}

// Splits text into lines (without LF); *complete is false when it does not end in LF.
std::vector<std::string> Lines(const std::string &text, bool *complete)
{
	std::vector<std::string> lines;
	std::istringstream in(text);
	std::string line;
	while (std::getline(in, line))
		lines.push_back(line);
	*complete = text.empty() || text.back() == '\n';
	return lines;
}

// The line with its date replaced by DATE and its microseconds by US, or "no match: line".
std::string Masked(const std::string &line)
{
	std::smatch m;
	if (!std::regex_match(line, m, kLine))
		return "no match: " + line;
	std::string out = line;
	out.replace(m.position(2), m.length(2), "US");
	out.replace(m.position(1), m.length(1), "DATE");
	return out;
}

// Waits (5 s at most) until path holds at least n complete lines; returns its text.
std::string WaitForLines(const std::string &path, size_t n)
{
	std::string text;
	for (int64_t deadline = NowMs() + 5000; NowMs() < deadline; SleepMs(20)) {
		text = ReadWholeFile(path);
		bool complete;
		if (Lines(text, &complete).size() >= n && complete)
			break;
	}
	return text;
}

class AccessLogTest : public testing::Test {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("routes");
		dir_ = TempDir();
		ASSERT_NE(dir_, "");
	}
	std::string dir_;
};

// A known sequence, each request on its own connection, gives exactly these lines, in
// order. The date is checked against the test's own clock.
TEST_F(AccessLogTest, ByteExactLinesForAKnownSequence)
{
	const std::string log = dir_ + "/access.log";
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--access-log", log}});
	// BYTES: the body length the response announced ("-" for none), as CLF has it.
	const struct {
		std::string raw;
		std::string line;
	} sequence[] = {
		{GetClose("/health"), R"(127.0.0.1 - - [DATE] "GET /health HTTP/1.1" 200 BYTES US -)"},
		{GetClose("/", "HEAD"), R"(127.0.0.1 - - [DATE] "HEAD / HTTP/1.1" 200 - US -)"},
		{GetClose("/nope?q=\"a\\b\""),
		 R"(127.0.0.1 - - [DATE] "GET /nope?q=\"a\\b\" HTTP/1.1" 404 BYTES US -)"},
		{GetClose("/", "PUT"), R"(127.0.0.1 - - [DATE] "PUT / HTTP/1.1" 405 BYTES US -)"},
		{"get / HTTP/1.1\r\n\r\n", R"(127.0.0.1 - - [DATE] "-" 400 BYTES US -)"},
		{"GET / HTTP/1.0\r\n\r\n", R"(127.0.0.1 - - [DATE] "GET / HTTP/1.0" 200 BYTES US -)"},
		// Targets: 1,024 bytes logged whole; 8,000 cut to 1,024 and marked; 8,001 a 414.
		{GetClose("/" + std::string(1023, 'a')),
		 "127.0.0.1 - - [DATE] \"GET /" + std::string(1023, 'a') + " HTTP/1.1\" 404 BYTES US -"},
		{GetClose("/" + std::string(1022, 'a') + "\"" + std::string(6976, 'b')),
		 "127.0.0.1 - - [DATE] \"GET /" + std::string(1022, 'a') + "\\\"... HTTP/1.1\" 404 BYTES US -"},
		{GetClose("/" + std::string(8000, 'a')), R"(127.0.0.1 - - [DATE] "-" 414 BYTES US -)"},
	};
	std::vector<std::string> expected;
	time_t before = time(nullptr);
	for (const auto &s : sequence) {
		Received r = Roundtrip(daemon.port(), s.raw, true);
		ASSERT_TRUE(r.eof) << s.raw;
		HttpResponse resp = ParseResponse(r.bytes);
		std::string line = s.line;
		size_t at = line.find("BYTES");
		if (at != std::string::npos)
			line.replace(at, 5, resp.Header("Content-Length"));
		expected.push_back(line);
	}
	time_t after = time(nullptr);
	bool complete;
	std::vector<std::string> lines = Lines(WaitForLines(log, std::size(sequence)), &complete);
	EXPECT_TRUE(complete);
	ASSERT_EQ(lines.size(), std::size(sequence));
	for (size_t i = 0; i < lines.size(); i++) {
		EXPECT_EQ(Masked(lines[i]), expected[i]) << "line " << i + 1;
		std::smatch m;
		if (!std::regex_match(lines[i], m, kLine))
			continue;
		struct tm tm = {};
		ASSERT_NE(strptime(m[1].str().c_str(), "%d/%b/%Y:%H:%M:%S", &tm), nullptr);
		time_t at = timegm(&tm);
		EXPECT_GE(at, before) << lines[i];
		EXPECT_LE(at, after) << lines[i];
	}
}

// The log's descriptor is a FIFO that the test has filled: every write fails with EAGAIN.
// --root's 304, 206 and 416 (BEHAVIOUR 10.8, 10.9) are logged with their own status and
// the body bytes they sent: none for a 304, the slice for a 206.
TEST_F(AccessLogTest, FileStatusesAndTheirBytes)
{
	REQUIRE_FEATURE("files");
	SmallSite site("0123456789\n");
	ASSERT_NE(site.path(), "");
	const std::string log = dir_ + "/access.log";
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--root", site.path(), "--access-log", log}});
	auto ask = [](const std::string &method, const std::string &field) {
		return method + " /f.txt HTTP/1.1\r\nHost: x\r\n" + field +
		       "\r\nConnection: close\r\n\r\n";
	};
	const struct {
		std::string raw;
		const char *line;
	} sequence[] = {
		{ask("GET", "If-None-Match: *"), R"(127.0.0.1 - - [DATE] "GET /f.txt HTTP/1.1" 304 - US -)"},
		{ask("HEAD", "If-None-Match: *"), R"(127.0.0.1 - - [DATE] "HEAD /f.txt HTTP/1.1" 304 - US -)"},
		{ask("GET", "Range: bytes=0-3"), R"(127.0.0.1 - - [DATE] "GET /f.txt HTTP/1.1" 206 4 US -)"},
		{ask("GET", "Range: bytes=100-"), R"(127.0.0.1 - - [DATE] "GET /f.txt HTTP/1.1" 416 22 US -)"},
	};
	for (const auto &s : sequence)
		ASSERT_TRUE(Roundtrip(daemon.port(), s.raw, true).eof) << s.raw;
	bool complete;
	std::vector<std::string> lines = Lines(WaitForLines(log, std::size(sequence)), &complete);
	EXPECT_TRUE(complete);
	ASSERT_EQ(lines.size(), std::size(sequence));
	for (size_t i = 0; i < lines.size(); i++)
		EXPECT_EQ(Masked(lines[i]), sequence[i].line) << "line " << i + 1;
}

// 300 requests on one keep-alive connection are all answered, and log_lines_dropped
// counts each of their lines; once the FIFO is drained, the next request's line arrives
// whole, and nothing before it is a broken line.
TEST_F(AccessLogTest, FullPipeDropsLinesAndServingGoesOn)
{
	REQUIRE_FEATURE("keepalive");
	const std::string fifo = dir_ + "/log.fifo";
	ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
	int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ASSERT_GE(reader, 0);
	int filler = open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	ASSERT_GE(filler, 0);
	const std::string chunk(4096, '#');
	for (size_t size : {chunk.size(), (size_t)1})
		while (write(filler, chunk.data(), size) > 0) {
		}
	close(filler);

	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--access-log", fifo}});
	constexpr int kRequests = 300;
	{
		Client client(daemon.port());
		ASSERT_TRUE(client.connected());
		for (int i = 0; i < kRequests; i++) {
			ASSERT_TRUE(client.Send(Get("/health")));
			ASSERT_NE(client.TakeResponse(), "") << "request " << i;
		}
	}
	// The client waited for each answer: each line met its iteration's failed write.
	std::map<std::string, uint64_t> m = FetchMetrics(daemon.port());
	EXPECT_EQ(m["log_lines_dropped"], (uint64_t)kRequests);

	char buf[65536];
	while (read(reader, buf, sizeof(buf)) > 0) { // drain the filler
	}
	// The scrape's line may have met the full FIFO or, if its iteration's write came after
	// the drain, gone through: lines before the marker's may vary, but each is whole.
	const std::string marker = "/after-the-drain";
	ASSERT_TRUE(Roundtrip(daemon.port(), GetClose(marker)).eof);
	std::string text;
	for (int64_t deadline = NowMs() + 5000; NowMs() < deadline; SleepMs(20)) {
		ssize_t n = read(reader, buf, sizeof(buf));
		if (n > 0)
			text.append(buf, (size_t)n);
		if (text.find(marker) != std::string::npos && text.back() == '\n')
			break;
	}
	close(reader);
	bool complete;
	std::vector<std::string> lines = Lines(text, &complete);
	EXPECT_TRUE(complete) << text;
	ASSERT_FALSE(lines.empty());
	EXPECT_LE(lines.size(), 2u) << "at most the scrape's line before the marker's:\n" << text;
	for (const std::string &line : lines)
		EXPECT_NE(Masked(line).rfind("no match", 0), 0u) << line;
	EXPECT_EQ(Masked(lines.back()),
		  R"(127.0.0.1 - - [DATE] "GET /after-the-drain HTTP/1.1" 404 )" +
			  std::to_string(ParseResponse(Roundtrip(daemon.port(), GetClose(marker)).bytes)
						 .body.size()) +
			  " US -");
	EXPECT_EQ(LivenessProblem(daemon.port()), "");
}

// Two workers append to one file: every request's line is there, each whole.
TEST_F(AccessLogTest, WorkersAppendWholeLines)
{
	REQUIRE_FEATURE("workers");
	const std::string log = dir_ + "/access.log";
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--workers", "2", "--access-log", log}});
	constexpr int kRequests = 40;
	for (int i = 0; i < kRequests; i++)
		ASSERT_TRUE(Roundtrip(daemon.port(), GetClose("/health")).eof);
	bool complete;
	std::vector<std::string> lines = Lines(WaitForLines(log, kRequests), &complete);
	EXPECT_TRUE(complete);
	ASSERT_EQ(lines.size(), (size_t)kRequests);
	for (const std::string &line : lines)
		EXPECT_EQ(Masked(line), R"(127.0.0.1 - - [DATE] "GET /health HTTP/1.1" 200 2 US -)");
}

// Off by default: the daemon writes nothing after its start-up line; a path that cannot
// be opened exits 15 with one line naming it, before any socket.
TEST_F(AccessLogTest, UnopenablePathExits15)
{
	std::vector<std::string> argv = DaemonCommand();
	const std::string bad = dir_ + "/missing/access.log";
	argv.insert(argv.end(), {"--listen", "127.0.0.1:0", "--access-log", bad});
	CommandResult r = RunCommand(argv, "", 10000);
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, 15);
	EXPECT_EQ(r.out, "");
	EXPECT_EQ(r.err, "apollod: --access-log " + bad + ": cannot open for appending (errno 2)\n");
}

} // namespace
} // namespace wire
