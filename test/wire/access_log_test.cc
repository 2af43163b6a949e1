// The access log (feature `routes`, BEHAVIOUR 14): byte-exact lines for a known sequence
// (only the date and the microseconds masked, each by a strict pattern), and for --root's
// 304, 206 and 416; a log on a full
// pipe (a FIFO the test fills), where serving goes on and log_lines_dropped counts every
// lost line exactly; --workers 2 appending to one file in whole lines; a path that cannot
// be opened.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
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

// A combined line (issue 30): after the bytes, the quoted Referer and User-Agent. Groups
// as kLine's.
const std::regex kCombinedLine(
	R"re(^127\.0\.0\.1 - - \[([0-3][0-9]/(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)/20[0-9]{2}:[0-2][0-9]:[0-5][0-9]:[0-6][0-9] \+0000)\] "(?:[^"\\]|\\["\\])*" [1-5][0-9]{2} (?:[1-9][0-9]*|-) "[^"]*" "[^"]*" ([0-9]+) (?:-|gzip|br)$)re");

// The line with its date replaced by DATE and its microseconds by US, or "no match: line".
std::string Masked(const std::string &line, const std::regex &form = kLine)
{
	std::smatch m;
	if (!std::regex_match(line, m, form))
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
	bool complete;
	std::vector<std::string> lines = Lines(WaitForLines(log, std::size(sequence)), &complete);
	// Read once the lines are there: the daemon may stamp the last one after its answer's
	// end reached the test (under qemu a second boundary fell between them once, issue
	// 32); and from CLOCK_REALTIME itself, which time() (the kernel's tick-coarse copy)
	// can trail by a tick.
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	time_t after = now.tv_sec;
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

// A request for /health on its own connection with the given field lines (each ending in
// CRLF).
std::string HealthWith(const std::string &fields)
{
	return "GET /health HTTP/1.1\r\nHost: x\r\n" + fields + "Connection: close\r\n\r\n";
}

// Sends each request on its own connection, shutting the write side, and reads until
// the daemon closes. Returns "", or which request got no close.
std::string AskEach(int port, const std::vector<std::string> &requests)
{
	for (const std::string &raw : requests)
		if (!Roundtrip(port, raw, true).eof)
			return "no close after " + raw.substr(0, 60);
	return "";
}

// issue 30, --access-log-format combined: Referer and User-Agent quoted after the bytes,
// escaped as nginx escapes them (\xHH for ", \ and a tab), "-" when absent, "" when
// empty, the first of two lines, any case, OWS trimmed; a value over 512 escaped bytes
// cut before the escape that would pass them, then "..."; an unparseable request "-".
TEST_F(AccessLogTest, CombinedLinesCarryRefererAndUserAgent)
{
	const std::string log = dir_ + "/access.log";
	Daemon daemon;
	START_DAEMON(daemon,
		     DaemonOptions{{"--access-log", log, "--access-log-format", "combined"}});
	const std::string ok = R"(127.0.0.1 - - [DATE] "GET /health HTTP/1.1" 200 2 )";
	const struct {
		std::string raw, line;
	} sequence[] = {
		{HealthWith("Referer: https://example.org/a?b=1\r\nUser-Agent:  Mo\"zi\\lla\t1.0 \t\r\n"),
		 ok + R"("https://example.org/a?b=1" "Mo\x22zi\x5Clla\x091.0" US -)"},
		{HealthWith(""), ok + R"("-" "-" US -)"},
		{HealthWith("referer:\r\nuser-AGENT: first\r\nUser-Agent: second\r\n"),
		 ok + R"("" "first" US -)"},
		{HealthWith("User-Agent: " + std::string(600, 'a') + "\r\n"),
		 ok + R"("-" ")" + std::string(512, 'a') + R"(..." US -)"},
		{HealthWith("User-Agent: " + std::string(300, '"') + "\r\n"),
		 ok + R"("-" ")" + [] {
			 std::string e;
			 for (int i = 0; i < 128; i++)
				 e += "\\x22";
			 return e;
		 }() + R"(..." US -)"},
		{"get / HTTP/1.1\r\nUser-Agent: u\r\n\r\n",
		 R"(127.0.0.1 - - [DATE] "-" 400 12 "-" "-" US -)"},
	};
	std::vector<std::string> raws;
	for (const auto &s : sequence)
		raws.push_back(s.raw);
	ASSERT_EQ(AskEach(daemon.port(), raws), "");
	bool complete;
	std::vector<std::string> lines = Lines(WaitForLines(log, std::size(sequence)), &complete);
	EXPECT_TRUE(complete);
	ASSERT_EQ(lines.size(), std::size(sequence));
	for (size_t i = 0; i < lines.size(); i++)
		EXPECT_EQ(Masked(lines[i], kCombinedLine), sequence[i].line) << "line " << i + 1;
}

// What python3 running script prints with text on its standard input, or "error: ..."
// when it failed.
std::string PythonOutput(const char *script, const std::string &text)
{
	CommandResult r = RunCommand({"python3", "-c", script}, text, 20000);
	if (!r.ran || r.exit_code != 0)
		return "error: " + r.problem + " " + r.err;
	return r.out;
}

// Parses each line of text with Python's json module (strict: a raw control byte in a
// string is an error) and prints, a line each, its keys and values as JSON again (every
// value but time_local and service_us, which are checked for their type and form).
// Returns what it printed, or "error: ..." when python3 failed.
std::string ParsedByPython(const std::string &text)
{
	static const char kScript[] = R"py(
import json, re, sys
for line in sys.stdin.read().splitlines():
    o = json.loads(line)
    assert re.fullmatch(r"\d\d/[A-Z][a-z][a-z]/\d{4}:\d\d:\d\d:\d\d \+0000", o["time_local"])
    assert type(o["service_us"]) is int and o["service_us"] >= 0
    print(json.dumps([list(o), o["remote_addr"], o["request"], o["status"],
                      o["body_bytes_sent"], o["http_referer"], o["http_user_agent"],
                      o["content_encoding"]]))
)py";
	return PythonOutput(kScript, text);
}

// issue 30, --access-log-format json: every line parses with a real JSON parser (Python's,
// in a child process), its keys in order, the values typed (numbers, strings, null for
// what the request did not have), the escapes (\" \\ \u0009) giving back the bytes sent.
TEST_F(AccessLogTest, JsonLinesParse)
{
	const std::string log = dir_ + "/access.log";
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--access-log", log, "--access-log-format", "json"}});
	ASSERT_EQ(AskEach(daemon.port(),
			  {HealthWith("Referer: http://r/\"q\"\r\nUser-Agent: a\"b\\c\td\r\n"),
			   GetClose("/", "HEAD"), GetClose("/no\"pe\\"), "get / HTTP/1.1\r\n\r\n",
			   HealthWith("User-Agent: " + std::string(600, '\\') + "\r\n")}),
		  "");
	const std::string keys =
		R"([["remote_addr", "time_local", "request", "status", "body_bytes_sent", )"
		R"("http_referer", "http_user_agent", "service_us", "content_encoding"], "127.0.0.1", )";
	const std::string expected =
		keys + R"("GET /health HTTP/1.1", 200, 2, "http://r/\"q\"", "a\"b\\c\td", null])" "\n" +
		keys + R"("HEAD / HTTP/1.1", 200, 0, null, null, null])" "\n" +
		keys + R"("GET /no\"pe\\ HTTP/1.1", 404, 10, null, null, null])" "\n" +
		keys + R"(null, 400, 12, null, null, null])" "\n" +
		keys + R"("GET /health HTTP/1.1", 200, 2, null, ")" + std::string(2 * 256, '\\') +
		R"(...", null])" "\n";
	std::string text = WaitForLines(log, 5);
	EXPECT_EQ(ParsedByPython(text), expected) << text;
}

// issue 31, --site (BEHAVIOUR 10.21, 14): the host ends every line the running daemon
// writes to its log file, in combined and in json: the Host value as sent (case and port
// kept), an absolute-form target's authority over Host, "-" (json: null) for a request
// without Host; the site each host picked answers (its own index page, or the default's).
class AccessLogHostTest : public AccessLogTest,
			  public testing::WithParamInterface<const char *> {};

INSTANTIATE_TEST_SUITE_P(Formats, AccessLogHostTest, testing::Values("combined", "json"),
			 [](const testing::TestParamInfo<const char *> &p) {
				 return std::string(p.param);
			 });

// Prints "status host" for each json line of text (host "None" for null), by Python's
// json module; "error: ..." when python3 failed.
std::string JsonStatusAndHost(const std::string &text)
{
	static const char kScript[] = R"py(
import json, sys
for line in sys.stdin.read().splitlines():
    o = json.loads(line)
    assert list(o)[-1] == "host"
    print(o["status"], o["host"], o["body_bytes_sent"])
)py";
	return PythonOutput(kScript, text);
}

TEST_P(AccessLogHostTest, HostEndsEveryLine)
{
	REQUIRE_FEATURE("files");
	const std::string format = GetParam(), log = dir_ + "/access.log";
	ASSERT_TRUE(Put(dir_, "d/index.html", "default\n"));
	ASSERT_TRUE(Put(dir_, "a/index.html", "site a\n"));
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--access-log", log, "--access-log-format", format,
					    "--root", dir_ + "/d", "--site",
					    "a.example=" + dir_ + "/a"}});
	const struct {
		std::string raw, host, body;
	} sequence[] = {
		{"GET / HTTP/1.1\r\nHost: A.Example:8080\r\nConnection: close\r\n\r\n",
		 "A.Example:8080", "site a\n"},
		{"GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n", "other.test",
		 "default\n"},
		{"GET http://a.example/ HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n",
		 "a.example", "site a\n"},
		{"GET / HTTP/1.0\r\n\r\n", "-", "default\n"},
	};
	for (const auto &s : sequence) {
		Received r = Roundtrip(daemon.port(), s.raw, true);
		EXPECT_EQ(ParseResponse(r.bytes).body, s.body) << s.raw;
	}
	std::string text = WaitForLines(log, std::size(sequence));
	bool complete;
	std::vector<std::string> lines = Lines(text, &complete);
	ASSERT_EQ(lines.size(), std::size(sequence)) << text;
	if (format == "json") {
		std::string expected;
		for (const auto &s : sequence)
			expected += "200 " + (s.host == "-" ? std::string("None") : s.host) + " " +
				    std::to_string(s.body.size()) + "\n";
		EXPECT_EQ(JsonStatusAndHost(text), expected) << text;
		return;
	}
	for (size_t i = 0; i < lines.size(); i++) {
		const std::string &line = lines[i], tail = " " + sequence[i].host;
		ASSERT_GT(line.size(), tail.size());
		EXPECT_EQ(line.substr(line.size() - tail.size()), tail) << line;
		std::string before = Masked(line.substr(0, line.size() - tail.size()), kCombinedLine);
		EXPECT_EQ(before.rfind("no match", 0), std::string::npos) << before;
		EXPECT_NE(before.find("\" 200 " + std::to_string(sequence[i].body.size()) + " "),
			  std::string::npos)
			<< before;
	}
}

// issue 30: access-log-format is a config-file setting (BEHAVIOUR 2.1), the command line
// over it; a bad word is refused: on the command line exit 64 with its line and the
// usage, in the file exit 19 with FILE:LINE.
TEST_F(AccessLogTest, FormatFromTheConfigFileAndItsRefusals)
{
	const std::string log = dir_ + "/access.log", conf = dir_ + "/apollod.conf";
	ASSERT_TRUE(Put(dir_, "apollod.conf",
			"access-log " + log + "\naccess-log-format json\n"));
	{
		Daemon daemon;
		START_DAEMON(daemon, DaemonOptions{{"--config", conf}});
		ASSERT_EQ(AskEach(daemon.port(), {GetClose("/health")}), "");
		EXPECT_EQ(WaitForLines(log, 1).rfind("{\"remote_addr\":\"127.0.0.1\",", 0), 0u);
	}
	ASSERT_EQ(unlink(log.c_str()), 0);
	{
		Daemon daemon;
		START_DAEMON(daemon,
			     DaemonOptions{{"--config", conf, "--access-log-format", "common"}});
		ASSERT_EQ(AskEach(daemon.port(), {GetClose("/health")}), "");
		bool complete;
		std::vector<std::string> lines = Lines(WaitForLines(log, 1), &complete);
		ASSERT_EQ(lines.size(), 1u);
		EXPECT_EQ(Masked(lines[0]), R"(127.0.0.1 - - [DATE] "GET /health HTTP/1.1" 200 2 US -)");
	}
	std::vector<std::string> argv = DaemonCommand();
	argv.insert(argv.end(), {"--listen", "127.0.0.1:0", "--access-log-format", "xml"});
	CommandResult r = RunCommand(argv, "", 10000);
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, 64);
	EXPECT_EQ(r.err.substr(0, r.err.find('\n') + 1),
		  "apollod: --access-log-format: bad value 'xml'\n");
	ASSERT_TRUE(Put(dir_, "bad.conf", "listen 127.0.0.1:0\naccess-log-format yaml\n"));
	argv = DaemonCommand();
	argv.insert(argv.end(), {"--config", dir_ + "/bad.conf"});
	r = RunCommand(argv, "", 10000);
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, 19);
	EXPECT_EQ(r.err, "apollod: " + dir_ + "/bad.conf:2: access-log-format: bad value 'yaml'\n");
}

constexpr size_t kDownloadBytes = 4u << 20;
constexpr size_t kReadBeforeCheck = 256u << 10;
constexpr int kSlowWindow = 8192;

// One slow download of /big.bin (kDownloadBytes) on a connection with a small receive
// window, read kReadBeforeCheck bytes into: the test's clock when its first bytes came.
struct SlowDownload {
	int fd = -1;
	int64_t first_bytes_us = 0;
	size_t got = 0;
	std::string start; // the first bytes read: the head
	~SlowDownload()
	{
		if (fd >= 0)
			close(fd);
	}
};

int64_t NowUs()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

// Starts d: connects, asks, reads until kReadBeforeCheck bytes have come. "" or what
// failed.
std::string StartSlowDownload(int port, SlowDownload *d)
{
	d->fd = ConnectLoopback(port, 10000, kSlowWindow);
	if (d->fd < 0 || !SendAll(d->fd, GetClose("/big.bin")))
		return "connect or send failed";
	char buf[4096];
	while (d->got < kReadBeforeCheck) {
		ssize_t n = recv(d->fd, buf, sizeof(buf), 0);
		if (n <= 0)
			return "the download ended early";
		if (!d->got) {
			d->first_bytes_us = NowUs();
			d->start.assign(buf, (size_t)n);
		}
		d->got += (size_t)n;
	}
	return "";
}

// The big.bin line of the log at path, or "".
std::string DownloadLine(const std::string &path)
{
	bool complete;
	for (const std::string &line : Lines(ReadWholeFile(path), &complete))
		if (line.find("/big.bin") != std::string::npos)
			return line;
	return "";
}

// "" when line is a common line of a cut /big.bin download: 200, its bytes more than
// none and fewer than the body; else what is wrong.
std::string CutLineProblem(const std::string &line)
{
	std::regex fields(R"re(.*"GET /big\.bin HTTP/1\.1" 200 ([0-9]+) [0-9]+ -$)re");
	std::smatch f;
	if (!std::regex_match(line, kLine) || !std::regex_match(line, f, fields))
		return "not a 200 line of /big.bin with its bytes: " + line;
	uint64_t sent = std::stoull(f[1].str());
	return sent > 0 && sent < kDownloadBytes ? "" : "not cut: " + line;
}

// big.bin (kDownloadBytes) served from a tree in memory and sent by reference (sendfile
// from the snapshot), or (--cache-bytes 0) from disk by sendfile, with the log on.
class AccessLogSendTest : public AccessLogTest, public testing::WithParamInterface<bool> {
protected:
	// Starts daemon_ on the tree; then d's download, read kReadBeforeCheck bytes into,
	// with the daemon still sending (bytes_written below the body's size).
	void StartDownload(uint64_t seed, SlowDownload *d,
			   const std::vector<std::string> &more = {})
	{
		REQUIRE_FEATURE("files");
		site_ = std::make_unique<SmallSite>("x\n");
		ASSERT_NE(site_->path(), "");
		ASSERT_TRUE(Put(site_->path(), "big.bin", Random(kDownloadBytes, seed)));
		log_ = dir_ + "/access.log";
		std::vector<std::string> flags = {"--root", site_->path(), "--access-log", log_};
		if (GetParam())
			flags.insert(flags.end(), {"--cache-bytes", "0"});
		flags.insert(flags.end(), more.begin(), more.end());
		START_DAEMON(daemon_, DaemonOptions{flags});
		ASSERT_EQ(StartSlowDownload(daemon_.port(), d), "");
		ASSERT_LT(FetchMetrics(daemon_.port())["bytes_written"], kDownloadBytes)
			<< "the daemon must still be sending";
	}
	std::unique_ptr<SmallSite> site_;
	std::string log_;
	Daemon daemon_;
};

// issue 30, BEHAVIOUR 14: the line of a 4 MiB download into an 8 KiB window is written
// once its last byte has left, not when the head is sent: while the daemon has not sent
// it all (bytes_written below its size) there is no line; after the client has read the
// last byte the line comes, its service time at least the time the test saw the download
// under way (from its first bytes to that check: both on CLOCK_MONOTONIC, the daemon's
// start no later than the first bytes, its end no earlier than the check).
TEST_P(AccessLogSendTest, SlowDownloadIsLoggedWhenItsLastByteLeft)
{
	SlowDownload d;
	ASSERT_NO_FATAL_FAILURE(StartDownload(30, &d));
	if (IsSkipped())
		return;
	int64_t checked_us = NowUs();
	EXPECT_EQ(DownloadLine(log_), "") << "no line before the last byte left";
	Received rest = ReadUntilClose(d.fd, kStateWaitMs);
	ASSERT_TRUE(rest.eof);
	size_t head_end = d.start.find("\r\n\r\n");
	ASSERT_NE(head_end, std::string::npos);
	EXPECT_EQ(d.got + rest.bytes.size() - (head_end + 4), kDownloadBytes) << "every byte came";
	std::string line;
	ASSERT_TRUE(WaitUntil([&] { return !(line = DownloadLine(log_)).empty(); })) << "no line";
	std::smatch m;
	ASSERT_TRUE(std::regex_match(line, m, kLine)) << line;
	EXPECT_NE(line.find("\" 200 " + std::to_string(kDownloadBytes) + " "), std::string::npos)
		<< line;
	EXPECT_GE(std::stoll(m[2].str()), checked_us - d.first_bytes_us) << line;
}

// issue 30, BEHAVIOUR 14: a client that resets the connection mid-download still gets a
// line, written when the daemon's send fails and it closes: status 200 as answered, its
// bytes field the body bytes that left (more than none, fewer than the file).
TEST_P(AccessLogSendTest, ResetMidSendIsLoggedAsCut)
{
	{
		SlowDownload d;
		ASSERT_NO_FATAL_FAILURE(StartDownload(31, &d));
		if (IsSkipped())
			return;
		struct linger reset = {1, 0};
		ASSERT_EQ(setsockopt(d.fd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset)), 0);
	} // closed: RST
	std::string line;
	ASSERT_TRUE(WaitUntil([&] { return !(line = DownloadLine(log_)).empty(); })) << "no line";
	EXPECT_EQ(CutLineProblem(line), "");
	EXPECT_EQ(LivenessProblem(daemon_.port()), "");
}

// issue 30, BEHAVIOUR 11 and 14: a stop whose --drain-timeout runs out with a download
// under way (the client reads no more) ends the process; the download's line is written
// on the way out, as cut: 200, its bytes more than none and fewer than the body.
TEST_P(AccessLogSendTest, DrainTimeoutLogsTheCutDownload)
{
	REQUIRE_FEATURE("stop");
	SlowDownload d;
	ASSERT_NO_FATAL_FAILURE(StartDownload(32, &d, {"--drain-timeout", "1"}));
	if (IsSkipped())
		return;
	ASSERT_EQ(kill(daemon_.pid(), SIGTERM), 0);
	int status = 0;
	ASSERT_TRUE(daemon_.WaitExit(kStateWaitMs, &status)) << "the drain ends the daemon";
	EXPECT_EQ(CutLineProblem(DownloadLine(log_)), "");
}

INSTANTIATE_TEST_SUITE_P(Body, AccessLogSendTest, testing::Values(false, true),
			 [](const testing::TestParamInfo<bool> &p) {
				 return std::string(p.param ? "FromDisk" : "ByReference");
			 });

// issue 30: 40 pipelined requests whose User-Agent is escaped to the 512-byte cut (held
// lines of about 600 bytes each: more than a connection's 8 KiB of held lines at once)
// are all answered in order and all logged, none dropped: answering waits for room.
TEST_F(AccessLogTest, PipelinedLongLinesWaitForRoomAndAllArrive)
{
	REQUIRE_FEATURE("keepalive");
	const std::string log = dir_ + "/access.log";
	Daemon daemon;
	START_DAEMON(daemon,
		     DaemonOptions{{"--access-log", log, "--access-log-format", "combined"}});
	constexpr int kRequests = 40;
	const std::string request = "GET /health HTTP/1.1\r\nHost: x\r\nUser-Agent: " +
				    std::string(300, '"') + "\r\n\r\n";
	std::string batch;
	for (int i = 0; i < kRequests; i++)
		batch += request;
	Client c(daemon.port());
	ASSERT_TRUE(c.connected());
	ASSERT_TRUE(c.Send(batch));
	for (int i = 0; i < kRequests; i++)
		ASSERT_EQ(ParseResponse(c.TakeResponse()).body, "ok") << "answer " << i;
	bool complete;
	std::vector<std::string> lines = Lines(WaitForLines(log, kRequests), &complete);
	ASSERT_EQ(lines.size(), (size_t)kRequests);
	for (const std::string &line : lines)
		EXPECT_NE(Masked(line, kCombinedLine).rfind("no match", 0), 0u) << line;
	EXPECT_EQ(FetchMetrics(daemon.port())["log_lines_dropped"], 0u);
}

} // namespace
} // namespace wire
