// Routes over the wire (feature `routes`, BEHAVIOUR 2-7): every route's status, headers, body
// and Content-Length exactly; HEAD's head byte-identical to GET's; CRLF framing; the
// daemon closing after a response when the request asks for it (`Connection: close`,
// HTTP/1.0) and, with feature `keepalive`, the same bytes but `Connection: keep-alive` on
// a connection that stays open; split requests; and, on every tier, 100 sequential
// requests.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

// One request and the exact response it earns. A null body means "not fixed by BEHAVIOUR":
// only its Content-Length is checked.
struct RouteCase {
	const char *label;
	const char *method;
	const char *target;
	const char *status_line;
	const char *body;
};

void PrintTo(const RouteCase &c, std::ostream *os) { *os << c.label; }

constexpr char kHello[] = "apollo says hello";

const RouteCase kRouteCases[] = {
	{"root", "GET", "/", "HTTP/1.1 200 OK", kHello},
	{"root_with_query", "GET", "/?a=b", "HTTP/1.1 200 OK", kHello},
	{"health", "GET", "/health", "HTTP/1.1 200 OK", "ok"},
	{"health_query_is_health", "GET", "/health?x=1", "HTTP/1.1 200 OK", "ok"},
	{"health_empty_query", "GET", "/health?", "HTTP/1.1 200 OK", "ok"},
	{"health_slash_is_404", "GET", "/health/", "HTTP/1.1 404 Not Found", nullptr},
	{"health_encoded_is_404", "GET", "/h%65alth", "HTTP/1.1 404 Not Found", nullptr},
	{"health_uppercase_is_404", "GET", "/HEALTH", "HTTP/1.1 404 Not Found", nullptr},
	{"unknown_path_404", "GET", "/nope", "HTTP/1.1 404 Not Found", nullptr},
	{"metrics_slash_is_404", "GET", "/metrics/", "HTTP/1.1 404 Not Found", nullptr},
	{"double_slash_is_404", "GET", "//", "HTTP/1.1 404 Not Found", nullptr},
	{"put_root_405", "PUT", "/", "HTTP/1.1 405 Method Not Allowed", nullptr},
	{"post_health_405", "POST", "/health", "HTTP/1.1 405 Method Not Allowed", nullptr},
	{"delete_unknown_405", "DELETE", "/nope", "HTTP/1.1 405 Method Not Allowed", nullptr},
	{"patch_405", "PATCH", "/", "HTTP/1.1 405 Method Not Allowed", nullptr},
	{"sixteen_letter_method_405", "ABCDEFGHIJKLMNOP", "/", "HTTP/1.1 405 Method Not Allowed",
	 nullptr},
};

// Header names every routed response carries, plus Allow on a 405.
std::vector<std::string> ExpectedHeaderNames(int status)
{
	std::vector<std::string> names = {"content-length", "content-type", "connection"};
	if (status == 405)
		names.push_back("allow");
	std::sort(names.begin(), names.end());
	return names;
}

std::vector<std::string> LowercaseHeaderNames(const HttpResponse &resp)
{
	std::vector<std::string> names;
	for (const auto &h : resp.headers) {
		std::string n = h.first;
		std::transform(n.begin(), n.end(), n.begin(), ::tolower);
		names.push_back(n);
	}
	std::sort(names.begin(), names.end());
	return names;
}

class RouteTest : public SharedDaemonFixture<testing::TestWithParam<RouteCase>> {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("routes");
		SharedDaemonFixture::SetUp();
	}
};

// Sends request, which asks the daemon to close (Connection: close, or HTTP/1.0 without
// keep-alive), without shutting the write side: the EOF then proves the daemon closed the
// connection by itself after answering, as its `Connection: close` said.
HttpResponse RequestAndExpectClose(int port, const std::string &request)
{
	Received r = Roundtrip(port, request);
	EXPECT_TRUE(r.eof) << "daemon did not close after the response (timed_out="
			   << r.timed_out << ", reset=" << r.reset << ")";
	HttpResponse resp = ParseResponse(r.bytes);
	EXPECT_TRUE(resp.parsed) << resp.error << " in '" << r.bytes << "'";
	EXPECT_EQ(resp.Header("Connection"), "close") << resp.head;
	return resp;
}

TEST_P(RouteTest, StatusHeadersBodyExact)
{
	const RouteCase &c = GetParam();
	HttpResponse resp = RequestAndExpectClose(port_, GetClose(c.target, c.method));
	ASSERT_TRUE(resp.parsed);
	EXPECT_EQ(resp.status_line, c.status_line);
	EXPECT_EQ(LowercaseHeaderNames(resp), ExpectedHeaderNames(resp.status))
		<< "head: " << resp.head;
	EXPECT_EQ(resp.Header("Content-Type").rfind("text/plain", 0), 0u)
		<< resp.Header("Content-Type");
	EXPECT_EQ(resp.Header("Content-Length"), std::to_string(resp.body.size()));
	if (c.body) {
		EXPECT_EQ(resp.body, c.body);
	} else {
		EXPECT_FALSE(resp.body.empty());
	}
	if (resp.status == 405) {
		EXPECT_EQ(resp.Header("Allow"), "GET, HEAD, OPTIONS");
	}
}

TEST_P(RouteTest, Http10RequestGetsHttp11Answer)
{
	const RouteCase &c = GetParam();
	std::string request = std::string(c.method) + " " + c.target + " HTTP/1.0\r\n\r\n";
	HttpResponse resp = RequestAndExpectClose(port_, request);
	EXPECT_EQ(resp.status_line, c.status_line);
}

// Feature keepalive: without `Connection: close` the same request earns the same bytes,
// but `Connection: keep-alive`, and the connection serves it again (a 405 without a body
// persists too); HEAD on it gets the keep-alive head. The connection ends with a request
// that asks to close.
TEST_P(RouteTest, SameBytesOnPersistentConnection)
{
	REQUIRE_FEATURE("keepalive");
	const RouteCase &c = GetParam();
	Received reference = Roundtrip(port_, GetClose(c.target, c.method));
	ASSERT_TRUE(reference.eof && ParseResponse(reference.bytes).parsed) << reference.bytes;
	std::string expected = AsKeepAlive(reference.bytes);
	Client client(port_);
	ASSERT_TRUE(client.connected());
	for (int round = 1; round <= 2; round++) {
		ASSERT_TRUE(client.Send(Get(c.target, c.method)));
		EXPECT_EQ(client.Take(expected.size()), expected) << "round " << round;
	}
	if (strcmp(c.method, "GET") == 0) {
		ASSERT_TRUE(client.Send(Get(c.target, "HEAD")));
		EXPECT_EQ(client.Take(ParseResponse(expected).head.size()), ParseResponse(expected).head);
	}
	EXPECT_TRUE(client.Quiet(50)) << "more than one answer per request";
	ASSERT_TRUE(client.Send(GetClose(c.target, c.method)));
	Received rest = client.TakeUntilClose();
	EXPECT_EQ(rest.bytes, reference.bytes);
	EXPECT_TRUE(rest.eof) << "not closed after Connection: close";
}

std::string RouteCaseName(const testing::TestParamInfo<RouteCase> &param_info)
{
	return param_info.param.label;
}

INSTANTIATE_TEST_SUITE_P(Routes, RouteTest, testing::ValuesIn(kRouteCases), RouteCaseName);

// HEAD pairs with every GET case.
class HeadRouteTest : public RouteTest {};

std::vector<RouteCase> GetCases()
{
	std::vector<RouteCase> cases;
	for (const RouteCase &c : kRouteCases)
		if (strcmp(c.method, "GET") == 0)
			cases.push_back(c);
	return cases;
}

TEST_P(HeadRouteTest, HeadIsGetsHeadWithoutBody)
{
	const RouteCase &c = GetParam();
	HttpResponse get = RequestAndExpectClose(port_, GetClose(c.target, "GET"));
	Received r = Roundtrip(port_, GetClose(c.target, "HEAD"));
	EXPECT_TRUE(r.eof) << "daemon did not close after HEAD";
	// Byte-identical: the HEAD reply is exactly GET's head and nothing more.
	EXPECT_EQ(r.bytes, get.head);
}

INSTANTIATE_TEST_SUITE_P(Routes, HeadRouteTest, testing::ValuesIn(GetCases()), RouteCaseName);

class RouteBehaviourTest : public SharedDaemonFixture<testing::Test> {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("routes");
		SharedDaemonFixture::SetUp();
	}
};

TEST_F(RouteBehaviourTest, MetricsRouteShape)
{
	HttpResponse resp = RequestAndExpectClose(port_, GetClose("/metrics"));
	ASSERT_TRUE(resp.parsed);
	EXPECT_EQ(resp.status_line, "HTTP/1.1 200 OK");
	EXPECT_EQ(LowercaseHeaderNames(resp), ExpectedHeaderNames(200)) << resp.head;
	EXPECT_EQ(resp.Header("Content-Type").rfind("text/plain", 0), 0u);
	EXPECT_EQ(resp.Header("Content-Length"), std::to_string(resp.body.size()));
	Counters counters;
	std::string error;
	ASSERT_TRUE(ParseMetricsBody(resp.body, &counters, &error)) << error;
	std::vector<std::string> names;
	for (const auto &c : counters)
		names.push_back(c.first);
	EXPECT_EQ(names, ExpectedCounterNames()) << "BEHAVIOUR 7 order, then the appended ones";
}

TEST_F(RouteBehaviourTest, HeadMetricsHasHeadOnly)
{
	Received r = Roundtrip(port_, GetClose("/metrics", "HEAD"));
	EXPECT_TRUE(r.eof);
	HttpResponse resp = ParseResponse(r.bytes);
	ASSERT_TRUE(resp.parsed) << resp.error;
	EXPECT_EQ(resp.status_line, "HTTP/1.1 200 OK");
	EXPECT_EQ(LowercaseHeaderNames(resp), ExpectedHeaderNames(200));
	EXPECT_EQ(resp.body, "");
	EXPECT_EQ(resp.Header("Connection"), "close");
	// The length GET would have sent: a decimal number large enough for ten lines.
	EXPECT_GT(atoi(resp.Header("Content-Length").c_str()), 100) << resp.head;
}

// BEHAVIOUR 6: every head line ends in CRLF. Checked byte by byte against the exact bytes.
TEST_F(RouteBehaviourTest, CrlfFramingByteByByte)
{
	Received r = Roundtrip(port_, GetClose("/health"));
	const std::string &b = r.bytes;
	size_t head_end = b.find("\r\n\r\n");
	ASSERT_NE(head_end, std::string::npos) << b;
	int lines = 0;
	for (size_t i = 0; i < head_end + 4; i++) {
		if (b[i] == '\n') {
			ASSERT_GT(i, 0u);
			EXPECT_EQ(b[i - 1], '\r') << "LF without CR at byte " << i;
			lines++;
		}
		if (b[i] == '\r') {
			EXPECT_EQ(b[i + 1], '\n') << "CR without LF at byte " << i;
		}
	}
	EXPECT_EQ(lines, 5) << "status line, three headers, empty line";
	EXPECT_EQ(b.substr(head_end + 4), "ok");
}

TEST_F(RouteBehaviourTest, RequestSplitAcrossTwoWritesWithPause)
{
	// Each request asks to close, so the daemon's close ends the exchange.
	const std::vector<std::pair<std::string, std::string>> splits = {
		{"GET /health HT", "TP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"},
		{"GET /health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r", "\n"},
		{"GET /health HTTP/1.1\r\nConnection: close\r\n", "\r\n"},
	};
	for (const auto &s : splits) {
		SCOPED_TRACE("split after '" + s.first + "'");
		int fd = ConnectLoopback(port_);
		ASSERT_GE(fd, 0);
		ASSERT_TRUE(SendAll(fd, s.first));
		// The witness: the daemon has read the first part and waits again, so any answer
		// to it would be here already.
		ASSERT_TRUE(WaitUntilDaemonRead(daemon().ServingPid(), fd)) << "never read";
		EXPECT_FALSE(PeerSpokeOrClosed(fd, 0)) << "answered an incomplete head";
		Received r = Exchange(fd, s.second, false);
		EXPECT_EQ(OutcomeProblem(r, Outcome::kStatus2xx, s.first + s.second), "");
		EXPECT_EQ(ParseResponse(r.bytes).body, "ok");
	}
}

TEST_F(RouteBehaviourTest, RequestSentOneByteAtATime)
{
	std::string request = GetClose("/health");
	int fd = ConnectLoopback(port_);
	ASSERT_GE(fd, 0);
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (size_t i = 0; i + 1 < request.size(); i++) {
		ASSERT_TRUE(SendAll(fd, request.substr(i, 1)));
		SleepMs(2);
	}
	Received r = Exchange(fd, request.substr(request.size() - 1), false);
	EXPECT_EQ(OutcomeProblem(r, Outcome::kStatus2xx, request), "");
}

// Every tier, min included: the liveness request (GET /health, min: GET /) 100 times.
class SequentialTest : public SharedDaemonFixture<testing::Test> {};

TEST_F(SequentialTest, HundredSequentialRequests)
{
	constexpr int kRequests = 100;
	int good = 0;
	for (int i = 0; i < kRequests; i++) {
		std::string problem = LivenessProblem(port_);
		if (problem.empty())
			good++;
		else
			ADD_FAILURE() << "request " << i << ": " << problem;
	}
	EXPECT_EQ(good, kRequests);
}

} // namespace
} // namespace wire
