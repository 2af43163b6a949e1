// Real clients over the wire: curl for each route (curl -I for HEAD) and netcat-openbsd
// for raw bytes, each run with a time limit. A missing client fails the test: the
// project's bootstrap installs curl and netcat-openbsd.
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kClientTimeoutMs = 15000;
constexpr char kClientLimitSeconds[] = "10";

class RealClientTest : public SharedDaemonFixture<testing::Test> {
protected:
	std::string Url(const std::string &target) const
	{
		return "http://127.0.0.1:" + std::to_string(port_) + target;
	}

	// Runs curl with args then the URL of target; returns its stdout (the raw response
	// with -i or -I), failing the test if curl did not exit 0.
	std::string Curl(const std::vector<std::string> &args, const std::string &target)
	{
		std::vector<std::string> argv = {"curl", "-sS", "--max-time", kClientLimitSeconds};
		argv.insert(argv.end(), args.begin(), args.end());
		argv.push_back(Url(target));
		CommandResult r = RunCommand(argv, "", kClientTimeoutMs);
		EXPECT_TRUE(r.ran) << r.problem;
		EXPECT_EQ(r.exit_code, 0) << "curl " << target << ": " << r.err;
		return r.out;
	}

	// Sends raw through `nc -N` (shut the socket's write side at end of input); returns
	// what nc printed.
	std::string Netcat(const std::string &raw)
	{
		CommandResult r = RunCommand({"nc", "-N", "-w", kClientLimitSeconds, "127.0.0.1",
					      std::to_string(port_)},
					     raw, kClientTimeoutMs);
		EXPECT_TRUE(r.ran) << r.problem;
		EXPECT_EQ(r.exit_code, 0) << "nc: " << r.err;
		return r.out;
	}
};

struct CurlCase {
	const char *target;
	const char *method; // for -X
	int status;
	const char *body; // null: not fixed by BEHAVIOUR
};

TEST_F(RealClientTest, CurlEveryRoute)
{
	REQUIRE_FEATURE("routes");
	const CurlCase cases[] = {
		{"/", "GET", 200, "apollo says hello"},
		{"/health", "GET", 200, "ok"},
		{"/health?x=1", "GET", 200, "ok"},
		{"/metrics", "GET", 200, nullptr},
		{"/health/", "GET", 404, nullptr},
		{"/nope", "GET", 404, nullptr},
		{"/", "PUT", 405, nullptr},
	};
	for (const CurlCase &c : cases) {
		SCOPED_TRACE(std::string(c.method) + " " + c.target);
		HttpResponse resp = ParseResponse(Curl({"-i", "-X", c.method}, c.target));
		ASSERT_TRUE(resp.parsed) << resp.error;
		EXPECT_EQ(resp.status, c.status);
		EXPECT_EQ(resp.Header("Content-Length"), std::to_string(resp.body.size()));
		// curl speaks HTTP/1.1 without `Connection: close`: a keepalive tier keeps
		// the connection and says so.
		EXPECT_EQ(resp.Header("Connection"), HasFeature("keepalive") ? "keep-alive" : "close");
		if (c.body) {
			EXPECT_EQ(resp.body, c.body);
		}
		if (c.status == 405) {
			EXPECT_EQ(resp.Header("Allow"), "GET, HEAD, OPTIONS");
		}
	}
	std::string metrics = ParseResponse(Curl({"-i"}, "/metrics")).body;
	EXPECT_EQ(metrics.rfind("requests_total ", 0), 0u) << metrics;
}

TEST_F(RealClientTest, CurlHeadMatchesGetHead)
{
	REQUIRE_FEATURE("routes");
	for (const char *target : {"/", "/health", "/nope"}) {
		SCOPED_TRACE(target);
		// curl's output is not filtered: the two Dates may be a second apart
		std::string head = WithoutDates(Curl({"-I"}, target));
		HttpResponse get = ParseResponse(WithoutDates(Curl({"-i"}, target)));
		ASSERT_TRUE(get.parsed) << get.error;
		EXPECT_EQ(head, get.head);
	}
}

TEST_F(RealClientTest, NetcatRawBytes)
{
	if (HasFeature("min")) {
		EXPECT_EQ(Netcat("GET / HTTP/1.0\r\n\r\n"),
			  "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nOK");
		return;
	}
	REQUIRE_FEATURE("routes");
	HttpResponse ok = ParseResponse(Netcat("GET /health HTTP/1.0\r\n\r\n"));
	EXPECT_EQ(ok.status, 200);
	EXPECT_EQ(ok.body, "ok");
	HttpResponse bad = ParseResponse(Netcat(Bytes("GET /\0 HTTP/1.1\r\n\r\n")));
	EXPECT_EQ(bad.status, 400);
	HttpResponse truncated = ParseResponse(Netcat("GET /health HTTP/1.1\r\nHost: a"));
	EXPECT_EQ(truncated.status, 400) << "a head cut by EOF";
	EXPECT_EQ(LivenessProblem(port_), "");
}

TEST_F(RealClientTest, CurlMin)
{
	REQUIRE_FEATURE("min");
	HttpResponse resp = ParseResponse(Curl({"-i"}, "/anything"));
	ASSERT_TRUE(resp.parsed) << resp.error;
	EXPECT_EQ(resp.status, 200);
	EXPECT_EQ(resp.body, "OK");
}

} // namespace
} // namespace wire
