// Request paths and target forms (issue 31; BEHAVIOUR 6.1, 6.8, 10.4): dot segments removed
// after percent-decoding (plain and encoded), a climb above DIR answered 400 on a
// connection that stays open, and absolute-form targets (http only, routed by their path,
// userinfo and other schemes a malformed 400). Every answer is checked byte for byte, GET
// and HEAD.
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kTimeoutMs = 10000;
constexpr char kHtml[] = "text/html; charset=utf-8";
constexpr char kText[] = "text/plain; charset=utf-8";

// The tree every test here serves: relative path -> content, each body distinct.
const std::vector<std::pair<std::string, std::string>> kTree = {
	{"index.html", "<h1>paths root</h1>\n"},
	{"a.txt", "file a\n"},
	{"sub/b.txt", "file b in sub\n"},
	{"sub/index.html", "<h1>sub index</h1>\n"},
	{".env", "SECRET=1\n"},
};

const std::string &Content(const std::string &rel)
{
	for (const auto &f : kTree)
		if (f.first == rel)
			return f.second;
	static const std::string none;
	ADD_FAILURE() << "no file " << rel;
	return none;
}

// The static text response of status (close form), its body unless head.
std::string Text(const std::string &status, const std::string &body, bool head)
{
	return "HTTP/1.1 " + status + "\r\nContent-Type: text/plain; charset=utf-8\r\n" +
	       "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
	       (head ? "" : body);
}

class PathsTest : public TreeSuite<PathsTest> {
public:
	static constexpr char kTreeName[] = "paths";
	static std::string WriteTree(const std::string &dir)
	{
		for (const auto &f : kTree)
			if (!Put(dir, f.first, f.second))
				return "cannot write " + f.first;
		return "";
	}

protected:
	// The exact close-form answer for the file rel (GET, or HEAD's head).
	std::string File(const std::string &rel, const std::string &type, bool head)
	{
		const std::string &body = Content(rel);
		return FileHead(type, body.size(), tree().dir() + "/" + rel, false) +
		       (head ? "" : body);
	}
	// GET and HEAD of target (Connection: close) each earn want(head), then a clean EOF.
	template <typename Want>
	void Expect(const std::string &target, Want want)
	{
		for (bool head : {false, true}) {
			std::string request = GetClose(target, head ? "HEAD" : "GET");
			Received r = Roundtrip(tree().port(), request, false, kTimeoutMs);
			EXPECT_TRUE(r.eof && !r.reset && !r.timed_out) << request;
			EXPECT_EQ(r.bytes, want(head)) << request;
		}
	}
	void ExpectFile(const std::string &target, const std::string &rel, const char *type)
	{
		Expect(target, [&](bool head) { return File(rel, type, head); });
	}
	void ExpectText(const std::string &target, const std::string &status,
			const std::string &body)
	{
		Expect(target, [&](bool head) { return Text(status, body, head); });
	}
	int port() const { return tree().port(); }
};

// RFC 3986 5.2.4, after percent-decoding: what every peer serves.
TEST_F(PathsTest, DotSegmentsAreRemoved)
{
	ExpectFile("/sub/../a.txt", "a.txt", kText);
	ExpectFile("/./a.txt", "a.txt", kText);
	ExpectFile("/sub/./b.txt", "sub/b.txt", kText);
	ExpectFile("/sub/x/../b.txt?q=1", "sub/b.txt", kText);
	ExpectFile("/sub/%2e%2e/a.txt", "a.txt", kText);
	ExpectFile("/sub/%2E%2e/a.txt", "a.txt", kText);
	ExpectFile("/%2e/sub/%2e/b.txt", "sub/b.txt", kText);
	ExpectFile("/sub/.", "sub/index.html", kHtml);  // a final dot: the directory's index
	ExpectFile("/sub/..", "index.html", kHtml);     // a final dot-dot: the parent's
	ExpectFile("/sub/%2e%2e/", "index.html", kHtml);
}

// What removing dots must never do: reach above DIR (400), or a name that is not loaded.
TEST_F(PathsTest, ClimbingAboveTheRootIs400)
{
	for (const char *target : {"/..", "/../a.txt", "/%2e%2e/a.txt", "/%2E%2E", "/sub/../../a.txt",
				   "/sub/%2e%2e/%2e%2e/a.txt", "/./../a.txt"})
		ExpectText(target, "400 Bad Request", "bad request\n");
	ExpectText("/sub/../.env", "404 Not Found", "not found\n"); // still hidden
	ExpectText("/sub/../nope.txt", "404 Not Found", "not found\n");
	ExpectText("//a.txt", "404 Not Found", "not found\n"); // an empty segment stays one
}

// The 400 of a climb is an answer to a well-formed request: the connection persists.
TEST_F(PathsTest, ClimbKeepsTheConnection)
{
	Client client(port());
	ASSERT_TRUE(client.connected());
	ASSERT_TRUE(client.Send(Get("/%2e%2e/a.txt") + Get("/sub/../a.txt")));
	EXPECT_EQ(client.TakeResponse(), AsKeepAlive(Text("400 Bad Request", "bad request\n", false)));
	EXPECT_EQ(client.TakeResponse(), AsKeepAlive(File("a.txt", kText, false)));
	EXPECT_TRUE(client.Quiet(200)) << "the connection stays open";
}

// RFC 9112 3.2.2: a server MUST accept the absolute form; its path is routed as the
// origin form would be, and its authority stands in for Host.
TEST_F(PathsTest, AbsoluteFormIsServedByItsPath)
{
	ExpectFile("http://127.0.0.1/a.txt", "a.txt", kText);
	ExpectFile("http://example.org:8080/sub/b.txt?x=1", "sub/b.txt", kText);
	ExpectFile("HTTP://Example.ORG/a.txt", "a.txt", kText);
	ExpectFile("http://example.org", "index.html", kHtml);
	ExpectFile("http://example.org?q=1", "index.html", kHtml);
	ExpectFile("http://example.org/sub/../a.txt", "a.txt", kText);
	ExpectFile("http://[::1]:80/a.txt", "a.txt", kText);
	Expect("http://example.org/sub?x=1", [](bool head) {
		return "HTTP/1.1 301 Moved Permanently\r\nContent-Type: text/plain; charset=utf-8\r\n"
		       "Content-Length: 18\r\nLocation: /sub/?x=1\r\nConnection: close\r\n\r\n" +
		       std::string(head ? "" : "moved permanently\n");
	});
}

// Userinfo (RFC 9110 4.2.4), an empty host, https and other schemes, relative and
// authority forms: a malformed request's 400, which closes even when the request asked
// to keep the connection.
TEST_F(PathsTest, OtherTargetFormsAreMalformed)
{
	for (const char *target :
	     {"http://user@example.org/a.txt", "http://a%12:b!&*$@example.org:1234/toto",
	      "http:///a.txt", "http://:80/a.txt", "https://example.org/a.txt", "ftp://h/a.txt",
	      "a.txt", "example.org:443", "*"}) {
		for (const char *method : {"GET", "HEAD"}) {
			std::string request = Get(target, method);
			Received r = Roundtrip(port(), request, false, kTimeoutMs);
			HttpResponse response = ParseResponse(r.bytes);
			EXPECT_EQ(response.status, 400) << request;
			EXPECT_EQ(response.Header("Connection"), "close") << request;
			EXPECT_TRUE(r.eof && !r.timed_out) << request;
		}
	}
}

// Without --root the absolute form reaches the built-in routes.
TEST(AbsoluteFormRoutesTest, BuiltInRoutes)
{
	REQUIRE_FEATURE("routes");
	Daemon daemon;
	std::string error;
	ASSERT_TRUE(daemon.Start({}, &error)) << error;
	Received r = Roundtrip(daemon.port(), GetClose("http://a/health"), false, kTimeoutMs);
	EXPECT_EQ(r.bytes, "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"
			   "Content-Length: 2\r\nConnection: close\r\n\r\nok");
	r = Roundtrip(daemon.port(), GetClose("http://a:1234?hail=all"), false, kTimeoutMs);
	EXPECT_EQ(r.bytes, "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"
			   "Content-Length: 17\r\nConnection: close\r\n\r\napollo says hello");
	r = Roundtrip(daemon.port(), GetClose("http://a/nope"), false, kTimeoutMs);
	EXPECT_EQ(ParseResponse(r.bytes).status, 404);
}

} // namespace
} // namespace wire
