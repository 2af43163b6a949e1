// Long request targets (feature `routes`, BEHAVIOUR 6.1, 6.6, 6.8): a target of 8,000
// bytes is routed (200, 404, with --root a file or a 301), one of 8,001 bytes gets the
// exact 414 at once, which closes the connection like a malformed request's 400 and
// counts in responses_414 (plain and Prometheus forms); a long query string alike.
#include <unistd.h>

#include <map>
#include <string>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr size_t kTargetMax = 8000; // BEHAVIOUR 6.1
constexpr size_t kHeadMax = 16384;  // BEHAVIOUR 6.8

const std::string k414 = "HTTP/1.1 414 URI Too Long\r\nContent-Type: text/plain; charset=utf-8\r\n"
			 "Content-Length: 13\r\nConnection: close\r\n\r\nuri too long\n";
const std::string k404 = "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\n"
			 "Content-Length: 10\r\nConnection: close\r\n\r\nnot found\n";
const std::string kHealth = "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"
			    "Content-Length: 2\r\nConnection: close\r\n\r\nok";

// prefix followed by fill bytes up to a target of exactly length bytes.
std::string TargetOf(const std::string &prefix, size_t length, char fill = 'a')
{
	return prefix + std::string(length - prefix.size(), fill);
}

// The target's path of length bytes, and the query that makes a target of length bytes.
std::string LongPath(size_t length) { return TargetOf("/", length); }
std::string LongQuery(const std::string &path, size_t length)
{
	return TargetOf(path + "?q=", length, 'x');
}

class LongTargetTest : public testing::Test {
protected:
	void SetUp() override { REQUIRE_FEATURE("routes"); }
	// Starts the daemon, with --root root when root is not empty.
	void Start(const std::string &root = "")
	{
		DaemonOptions options;
		if (!root.empty())
			options.extra_args = {"--root", root};
		START_DAEMON(daemon_, options);
	}
	// The exact bytes the daemon sends for request, which must end with it closing.
	std::string Answer(const std::string &request)
	{
		Received r = Roundtrip(daemon_.port(), request);
		EXPECT_TRUE(r.eof) << "the daemon did not close";
		return r.bytes;
	}
	Daemon daemon_;
};

TEST_F(LongTargetTest, TargetOf8000BytesIsRoutedAnd8001Is414)
{
	Start();
	EXPECT_EQ(Answer(GetClose(LongPath(kTargetMax))), k404);
	EXPECT_EQ(Answer(GetClose(LongQuery("/health", kTargetMax))), kHealth);
	EXPECT_EQ(Answer(GetClose(LongPath(kTargetMax + 1))), k414);
	EXPECT_EQ(Answer(GetClose(LongQuery("/health", kTargetMax + 1))), k414);
	// HEAD and other methods too: the target's length is decided before the method is;
	// HEAD's 414 has no body (BEHAVIOUR 6.7).
	EXPECT_EQ(Answer(GetClose(LongPath(kTargetMax + 1), "HEAD")),
		  k414.substr(0, k414.size() - (sizeof("uri too long\n") - 1)));
	EXPECT_EQ(Answer(GetClose(LongPath(kTargetMax + 1), "POST")), k414);
}

// The 414 leaves as soon as the 8,001st target byte arrives: nothing after it is waited
// for or read as a request, and the connection closes even on HTTP/1.1 (BEHAVIOUR 9.1).
TEST_F(LongTargetTest, AnsweredAtOnceThenClosed)
{
	Start();
	int fd = ConnectLoopback(daemon_.port());
	ASSERT_GE(fd, 0);
	ASSERT_TRUE(SendAll(fd, "GET " + LongPath(kTargetMax + 1))); // no SP, version or CRLF
	Received r = ReadUntilClose(fd);
	close(fd);
	EXPECT_TRUE(r.eof);
	EXPECT_EQ(r.bytes, k414);
	// A pipelined request after it is never answered.
	EXPECT_EQ(Answer(Get(LongPath(kTargetMax + 1)) + GetClose("/health")), k414);
	EXPECT_EQ(LivenessProblem(daemon_.port()), "");
}

// An 8,000-byte target keeps a persistent connection like any other request.
TEST_F(LongTargetTest, KeepAliveAfterAnEightThousandByteTarget)
{
	REQUIRE_FEATURE("keepalive");
	Start();
	Client client(daemon_.port());
	ASSERT_TRUE(client.connected());
	ASSERT_TRUE(client.Send(Get(LongPath(kTargetMax)) + GetClose("/health")));
	Received r = client.TakeUntilClose();
	EXPECT_TRUE(r.eof);
	EXPECT_EQ(r.bytes, AsKeepAlive(k404) + kHealth);
}

// A head of exactly 16 KiB holding an 8,000-byte target is served; one byte more is 400.
TEST_F(LongTargetTest, HeadLimitWithAnEightThousandByteTarget)
{
	Start();
	std::string line = "GET " + LongPath(kTargetMax) + " HTTP/1.1\r\n";
	std::string fixed = "Connection: close\r\nX-Pad: \r\n\r\n";
	std::string pad(kHeadMax - line.size() - fixed.size(), 'p');
	std::string head = line + "Connection: close\r\nX-Pad: " + pad + "\r\n\r\n";
	ASSERT_EQ(head.size(), kHeadMax);
	EXPECT_EQ(Answer(head), k404);
	std::string over = line + "Connection: close\r\nX-Pad: " + pad + "p\r\n\r\n";
	EXPECT_EQ(ParseResponse(Answer(over)).status, 400);
}

// The counters: a 414 is an answered request (requests_total) of no method; nothing else.
TEST_F(LongTargetTest, CountedInResponses414)
{
	Start();
	std::map<std::string, uint64_t> before = FetchMetrics(daemon_.port());
	EXPECT_EQ(Answer(GetClose(LongPath(kTargetMax + 1))), k414);
	EXPECT_EQ(Answer(GetClose(LongQuery("/", kTargetMax + 1))), k414);
	std::map<std::string, uint64_t> after = FetchMetrics(daemon_.port());
	EXPECT_EQ(after["responses_414"] - before["responses_414"], 2u);
	EXPECT_EQ(after["requests_total"] - before["requests_total"], 3u); // and one /metrics
	EXPECT_EQ(after["requests_get"] - before["requests_get"], 1u);     // the /metrics
	EXPECT_EQ(after["responses_400"], before["responses_400"]);
	std::string prometheus = Answer(GetClose("/metrics?format=prometheus"));
	EXPECT_NE(prometheus.find("\napollod_responses_total{code=\"414\"} 2\n"), std::string::npos)
		<< prometheus;
}

// With --root: an 8,000-byte target names a file (its query ignored), misses (404) or
// names a directory (the 301 copies the whole target into its Location); 8,001 is 414.
TEST_F(LongTargetTest, WithRoot)
{
	REQUIRE_FEATURE("files");
	SmallSite site("long targets\n");
	ASSERT_NE(site.path(), "");
	Start(site.path());
	std::string file = LongQuery("/f.txt", kTargetMax);
	EXPECT_EQ(Answer(GetClose(file)),
		  FileHead("text/plain; charset=utf-8", 13, site.path() + "/f.txt", false) +
			  "long targets\n");
	EXPECT_EQ(Answer(GetClose(LongPath(kTargetMax))), k404);
	std::string dir = LongQuery("/sub", kTargetMax);
	std::string location = "/sub/" + dir.substr(4); // the query, '?' included
	EXPECT_EQ(Answer(GetClose(dir)),
		  "HTTP/1.1 301 Moved Permanently\r\nContent-Type: text/plain; charset=utf-8\r\n"
		  "Content-Length: 18\r\nLocation: " +
			  location + "\r\nConnection: close\r\n\r\nmoved permanently\n");
	EXPECT_EQ(Answer(GetClose(LongQuery("/f.txt", kTargetMax + 1))), k414);
	EXPECT_EQ(Answer(GetClose(LongPath(kTargetMax + 1))), k414);
}

} // namespace
} // namespace wire
