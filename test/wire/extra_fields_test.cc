// --header 'Name: value' (BEHAVIOUR 16): on every response of a routed tier, after the
// Date line, byte-exact; a bad word is refused at start-up with exit 64 and one line
// naming it.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kExitUsage = 64;
constexpr int kRunTimeoutMs = 10000;
const std::vector<std::string> kFlags = {"--header", "Cache-Control: no-store", "--header",
					 "X-Frame-Options:  DENY "};
const char kFields[] = "Cache-Control: no-store\r\nX-Frame-Options: DENY\r\n";
const char kText[] = "Content-Type: text/plain; charset=utf-8\r\n";

class ExtraFieldsTest : public testing::Test {
protected:
	void SetUp() override { REQUIRE_FEATURE("routes"); }
};

// The harness takes the Date line out; what remains is byte-exact, the added fields last.
TEST_F(ExtraFieldsTest, EveryResponseCarriesThemInOrder)
{
	Daemon daemon;
	DaemonOptions options;
	options.extra_args = kFlags;
	START_DAEMON(daemon, options);
	const std::string end = std::string("Connection: close\r\n") + kFields + "\r\n";
	const struct {
		std::string request, want;
	} cases[] = {
		{GetClose("/health"), std::string("HTTP/1.1 200 OK\r\n") + kText +
					      "Content-Length: 2\r\n" + end + "ok"},
		{GetClose("/", "HEAD"), std::string("HTTP/1.1 200 OK\r\n") + kText +
						"Content-Length: 17\r\n" + end},
		{GetClose("/nope"), std::string("HTTP/1.1 404 Not Found\r\n") + kText +
					    "Content-Length: 10\r\n" + end + "not found\n"},
		{GetClose("/", "PUT"), std::string("HTTP/1.1 405 Method Not Allowed\r\n") + kText +
					       "Content-Length: 19\r\nAllow: GET, HEAD, OPTIONS\r\n" + end +
					       "method not allowed\n"},
		{"BAD\r\n\r\n", std::string("HTTP/1.1 400 Bad Request\r\n") + kText +
					"Content-Length: 12\r\n" + end + "bad request\n"},
	};
	for (const auto &c : cases) {
		Received r = Roundtrip(daemon.port(), c.request);
		EXPECT_EQ(r.bytes, c.want) << c.request;
		EXPECT_EQ(r.dates, 1u) << c.request;
	}
	HttpResponse metrics = ParseResponse(Roundtrip(daemon.port(), GetClose("/metrics")).bytes);
	EXPECT_EQ(metrics.Header("Cache-Control"), "no-store");
	EXPECT_EQ(metrics.headers.back().first, "X-Frame-Options");
}

// Files and the 301 of --root carry them too.
TEST_F(ExtraFieldsTest, FilesAndRedirectsCarryThem)
{
	REQUIRE_FEATURE("files");
	SmallSite site("hi\n");
	ASSERT_NE(site.path(), "");
	Daemon daemon;
	DaemonOptions options;
	options.extra_args = {"--root", site.path()};
	options.extra_args.insert(options.extra_args.end(), kFlags.begin(), kFlags.end());
	START_DAEMON(daemon, options);
	EXPECT_EQ(Roundtrip(daemon.port(), GetClose("/f.txt")).bytes,
		  std::string("HTTP/1.1 200 OK\r\n") + kText + "Content-Length: 3\r\n" +
			  FileFields(ValidatorsOf(site.path() + "/f.txt")) + "Connection: close\r\n" +
			  kFields + "\r\nhi\n");
	HttpResponse moved = ParseResponse(Roundtrip(daemon.port(), GetClose("/sub")).bytes);
	EXPECT_EQ(moved.status, 301);
	EXPECT_EQ(moved.Header("Location"), "/sub/");
	EXPECT_EQ(moved.Header("Cache-Control"), "no-store");
}

// A bad word: exit 64, nothing on stdout, one stderr line naming the word and why.
TEST_F(ExtraFieldsTest, BadWordsAreRefusedAtStartUp)
{
	const struct {
		std::string word, why;
	} cases[] = {
		{"X A: v", "the name must be a token (RFC 9110 5.6.2)"},
		{"NoColon", "expected 'Name: value'"},
		{"X-A: a\tb\x01", "the value may hold only visible ASCII, space and tab"},
		{"Content-Length: 0", "the daemon writes that field itself"},
	};
	for (const auto &c : cases) {
		std::vector<std::string> argv = DaemonCommand();
		argv.insert(argv.end(), {"--listen", "127.0.0.1:0", "--header", c.word});
		CommandResult r = RunCommand(argv, "", kRunTimeoutMs);
		ASSERT_TRUE(r.ran) << r.problem;
		EXPECT_EQ(r.exit_code, kExitUsage) << c.word;
		EXPECT_EQ(r.out, "");
		EXPECT_EQ(r.err, "apollod: --header '" + c.word + "': " + c.why + "\n");
	}
}

} // namespace
} // namespace wire
