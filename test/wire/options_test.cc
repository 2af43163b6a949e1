// OPTIONS (issue 31; BEHAVIOUR 6.2): `OPTIONS *` is 200 with Allow, `OPTIONS /path` is 204
// with Allow and the path's --header-for fields, so a CORS preflight succeeds when the
// site configures Access-Control-Allow-*; other methods keep their 405, whose Allow now
// names OPTIONS. Byte for byte, both Connection forms, counted in responses_204; and a
// real cross-origin fetch with a custom header from headless chromium.
#include <stdlib.h>

#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kTimeoutMs = 10000;
constexpr int kBrowserTimeoutMs = 60000;
constexpr char kAllow[] = "Allow: GET, HEAD, OPTIONS\r\n";
constexpr char kAllowOrigin[] = "Access-Control-Allow-Origin: *";
constexpr char kAllowHeaders[] = "Access-Control-Allow-Headers: X-Apollo";

// The site's --header-for: the CORS fields on /api/, a cache field on *.json.
std::vector<std::string> CorsFlags()
{
	return {"--header-for", "/api/", kAllowOrigin, "--header-for", "/api/", kAllowHeaders,
		"--header-for", "*.json", "Cache-Control: no-cache"};
}

// The exact 204 with fields (each "Name: value\r\n"), close form.
std::string NoContent(const std::string &fields)
{
	return std::string("HTTP/1.1 204 No Content\r\n") + kAllow + fields + "Connection: close\r\n\r\n";
}

class OptionsTest : public TreeSuite<OptionsTest> {
public:
	static constexpr char kTreeName[] = "options";
	static std::string WriteTree(const std::string &dir)
	{
		bool ok = Put(dir, "api/data.json", "{\"from\":\"api\"}\n") &&
			  Put(dir, "other.json", "{\"from\":\"other\"}\n") &&
			  Put(dir, "index.html", "<p>home</p>\n");
		return ok ? "" : "cannot write the tree";
	}
	static std::vector<std::string> TreeFlags() { return CorsFlags(); }

protected:
	Received Ask(const std::string &target)
	{
		return Roundtrip(tree().port(), GetClose(target, "OPTIONS"), false, kTimeoutMs);
	}
};

TEST_F(OptionsTest, AsteriskIsOkWithAllow)
{
	Received r = Ask("*");
	EXPECT_EQ(r.bytes, std::string("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"
				       "Content-Length: 0\r\n") +
				   kAllow + "Connection: close\r\n\r\n");
	EXPECT_TRUE(r.eof && !r.timed_out);
}

// The fields are those --header-for gives the name GET would look up, whether or not a
// file has it: a preflight precedes the request it asks about.
TEST_F(OptionsTest, PathGetsNoContentWithItsFields)
{
	const std::string cors = std::string(kAllowOrigin) + "\r\n" + kAllowHeaders + "\r\n";
	EXPECT_EQ(Ask("/api/data.json").bytes, NoContent(cors + "Cache-Control: no-cache\r\n"));
	EXPECT_EQ(Ask("/api/missing.txt").bytes, NoContent(cors));
	EXPECT_EQ(Ask("/x/../api/data.json?q=1").bytes,
		  NoContent(cors + "Cache-Control: no-cache\r\n"));
	EXPECT_EQ(Ask("/other.json").bytes, NoContent("Cache-Control: no-cache\r\n"));
	EXPECT_EQ(Ask("/").bytes, NoContent(""));
	EXPECT_EQ(Ask("/health").bytes, NoContent(""));
	EXPECT_EQ(Ask("http://example.org/api/data.json").bytes,
		  NoContent(cors + "Cache-Control: no-cache\r\n"));
	EXPECT_EQ(ParseResponse(Ask("/%2e%2e/x").bytes).status, 400) << "as GET would get";
}

// Keep-alive form, pipelined after a GET (the 204 is rendered per request and waits for
// the queue), counted in responses_204 and in no method counter.
TEST_F(OptionsTest, KeepAliveAndCounted)
{
	std::map<std::string, uint64_t> before = FetchMetrics(tree().port());
	Client client(tree().port());
	ASSERT_TRUE(client.connected());
	ASSERT_TRUE(client.Send(Get("/index.html") + Get("/other.json", "OPTIONS") +
				Get("*", "OPTIONS")));
	EXPECT_EQ(ParseResponse(client.TakeResponse()).status, 200);
	EXPECT_EQ(client.TakeResponse(), AsKeepAlive(NoContent("Cache-Control: no-cache\r\n")));
	EXPECT_EQ(ParseResponse(client.TakeResponse()).status, 200);
	EXPECT_TRUE(client.Quiet(200));
	std::map<std::string, uint64_t> after = FetchMetrics(tree().port());
	EXPECT_EQ(after["responses_204"] - before["responses_204"], 1u);
	EXPECT_EQ(after["requests_get"] - before["requests_get"], 2u) << "the GET and /metrics";
	EXPECT_EQ(after["requests_head"] - before["requests_head"], 0u);
}

// Other methods still get 405, whose Allow now lists OPTIONS too (RFC 9110 15.5.6).
TEST(OptionsRoutesTest, OtherMethodsStill405)
{
	REQUIRE_FEATURE("routes");
	Daemon daemon;
	std::string error;
	ASSERT_TRUE(daemon.Start({}, &error)) << error;
	for (const char *method : {"PUT", "POST", "DELETE", "PATCH", "OPTIONSX", "CONNECT"}) {
		Received r = Roundtrip(daemon.port(), GetClose("/", method), false, kTimeoutMs);
		EXPECT_EQ(r.bytes, std::string("HTTP/1.1 405 Method Not Allowed\r\n"
					       "Content-Type: text/plain; charset=utf-8\r\n"
					       "Content-Length: 19\r\n") +
					   kAllow + "Connection: close\r\n\r\nmethod not allowed\n")
			<< method;
	}
	EXPECT_EQ(Roundtrip(daemon.port(), GetClose("/nope", "OPTIONS"), false, kTimeoutMs).bytes,
		  NoContent(""));
}

// A page on one port fetches from the daemon on another with a custom header: chromium
// sends the preflight, accepts the 204 and its CORS fields, then reads the file; the
// same fetch of a path without the fields is blocked (the test can fail).
TEST(OptionsBrowserTest, ChromiumPreflightSucceeds)
{
	REQUIRE_FEATURE("files");
	REQUIRE_FEATURE("slow_once"); // the 204 and its fields are common/'s; OptionsTest runs everywhere
	if (RunCommand({"sh", "-c", "command -v chromium"}, "", kTimeoutMs).exit_code != 0)
		GTEST_SKIP() << "chromium is not installed (scripts/bootstrap.sh installs it)";
	ServedTree api("options-api", OptionsTest::WriteTree, CorsFlags());
	ASSERT_EQ(api.error(), "");
	const std::string base = "http://127.0.0.1:" + std::to_string(api.port());
	const std::string page =
		"<!DOCTYPE html><html><body><pre id=\"out\">pending</pre><script>\n"
		"async function go(url) {\n"
		"  try { const r = await fetch(url, {headers: {'X-Apollo': '1'}});\n"
		"        return 'ok ' + r.status + ' ' + (await r.text()).trim(); }\n"
		"  catch (e) { return 'blocked'; } }\n"
		"(async () => { const a = await go('" + base + "/api/data.json');\n"
		"  const b = await go('" + base + "/other.json');\n"
		"  document.getElementById('out').textContent = 'cors[' + a + '] plain[' + b + ']';\n"
		"})();\n</script></body></html>\n";
	ServedTree site("options-page",
			[&](const std::string &dir) {
				return Put(dir, "page.html", page) ? "" : "cannot write page.html";
			},
			{});
	ASSERT_EQ(site.error(), "");
	std::map<std::string, uint64_t> before = FetchMetrics(api.port());
	char profile[] = "/tmp/apollod-chromium-XXXXXX";
	ASSERT_NE(mkdtemp(profile), nullptr);
	const std::string url = "http://127.0.0.1:" + std::to_string(site.port()) + "/page.html";
	// The budget lets the page's fetches finish before the DOM is dumped.
	std::vector<std::string> argv = Chromium(profile, "--dump-dom", url);
	argv.insert(argv.end() - 2, "--virtual-time-budget=20000");
	CommandResult dom = RunCommand(argv, "", kBrowserTimeoutMs);
	RunCommand({"rm", "-rf", profile}, "", kTimeoutMs);
	ASSERT_TRUE(dom.ran) << dom.problem;
	ASSERT_EQ(dom.exit_code, 0) << dom.err;
	EXPECT_NE(dom.out.find("cors[ok 200 {\"from\":\"api\"}] plain[blocked]"), std::string::npos)
		<< dom.out;
	std::map<std::string, uint64_t> after = FetchMetrics(api.port());
	EXPECT_GE(after["responses_204"] - before["responses_204"], 1u) << "a preflight reached it";
}

} // namespace
} // namespace wire
