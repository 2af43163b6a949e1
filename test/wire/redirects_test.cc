// --redirects FILE (BEHAVIOUR 10.20), feature `files`: the _redirects rules of a site,
// byte for byte on the wire for every code, GET and HEAD, first match in file order,
// before file lookup, kept alive, counted by status; a 200 rule serves its file, a 410
// rule the 410 (or its --error-page); a bad line ends the start with its line number;
// a reload reads the file again. The fixture follows the examples of Netlify's and
// Cloudflare Pages' documentation, in our own words.
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kExitUsage = 64;
constexpr int kRunTimeoutMs = 10000;
constexpr char kHtml[] = "text/html; charset=utf-8";

const std::vector<std::pair<std::string, std::string>> kSite = {
	{"index.html", "<h1>home</h1>\n"},  {"new-page.html", "<p>new</p>\n"},
	{"app.html", "<p>app shell</p>\n"}, {"old.html", "<p>still on disk</p>\n"},
	{"gone.html", "<p>this page is gone</p>\n"},
};

const char kRules[] = "# moved pages\n"
		      "/old.html            /new-page.html\n"
		      "/blog/*              /news/:splat        302\n"
		      "/shop/:kind/:id      /store/:id?k=:kind  303\n"
		      "/go                  https://example.net/landing 307\n"
		      "/perm                /permanent          308\n"
		      "/app/*               /app.html           200\n"
		      "/retired             /new-page.html      410\n";

// The exact redirect of a rule: status line, body, Location; the close form.
std::string Redirect(const std::string &status, const std::string &body,
		     const std::string &location, bool head, const std::string &form = "close")
{
	return "HTTP/1.1 " + status + "\r\nContent-Type: text/plain; charset=utf-8\r\n"
	       "Content-Length: " + std::to_string(body.size()) + "\r\nLocation: " + location +
	       "\r\nConnection: " + form + "\r\n\r\n" + (head ? "" : body);
}

std::string Request(const std::string &method, const std::string &target)
{
	return method + " " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
}

class RedirectsTest : public testing::Test {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("files");
		root_ = std::make_unique<FileRoot>(kSite);
		ASSERT_NE(root_->dir(), "");
		char name[] = "/tmp/apollod-redirects-XXXXXX";
		int fd = mkstemp(name);
		ASSERT_GE(fd, 0);
		close(fd);
		rules_ = name;
		Write(kRules);
	}
	void TearDown() override { unlink(rules_.c_str()); }
	void Write(const std::string &text) { std::ofstream(rules_) << text; }
	void Start(const std::vector<std::string> &more = {})
	{
		DaemonOptions options;
		options.extra_args = {"--root", root_->dir(), "--redirects", rules_};
		options.extra_args.insert(options.extra_args.end(), more.begin(), more.end());
		std::string error;
		ASSERT_TRUE(daemon_.Start(options, &error)) << error;
	}
	std::string Send(const std::string &request)
	{
		Received r = Roundtrip(daemon_.port(), request, true);
		EXPECT_TRUE(r.eof && !r.reset);
		return r.bytes;
	}
	CommandResult Refused(const std::vector<std::string> &flags)
	{
		return RunToRefusal(root_->dir(), flags, kRunTimeoutMs);
	}
	std::unique_ptr<FileRoot> root_;
	std::string rules_;
	Daemon daemon_;
};

// Every code on the wire, GET and HEAD; the request's query follows a TO without one;
// a rule wins over a file of the same name; counted by status.
TEST_F(RedirectsTest, EveryCodeOnTheWire)
{
	Start();
	std::map<std::string, uint64_t> before = FetchMetrics(daemon_.port());
	for (bool head : {false, true}) {
		const std::string m = head ? "HEAD" : "GET";
		EXPECT_EQ(Send(Request(m, "/old.html?ref=a")),
			  Redirect("301 Moved Permanently", "moved permanently\n",
				   "/new-page.html?ref=a", head));
		EXPECT_EQ(Send(Request(m, "/blog/2024/a%20post")),
			  Redirect("302 Found", "found\n", "/news/2024/a%20post", head));
		EXPECT_EQ(Send(Request(m, "/shop/shoes/42?x=1")),
			  Redirect("303 See Other", "see other\n", "/store/42?k=shoes", head));
		EXPECT_EQ(Send(Request(m, "/go")),
			  Redirect("307 Temporary Redirect", "temporary redirect\n",
				   "https://example.net/landing", head));
		EXPECT_EQ(Send(Request(m, "/perm")),
			  Redirect("308 Permanent Redirect", "permanent redirect\n", "/permanent", head));
		EXPECT_EQ(Send(Request(m, "/retired")),
			  std::string("HTTP/1.1 410 Gone\r\nContent-Type: text/plain; charset=utf-8\r\n"
				      "Content-Length: 5\r\nConnection: close\r\n\r\n") +
				  (head ? "" : "gone\n"));
		HttpResponse app = ParseResponse(Send(Request(m, "/app/settings/profile")));
		EXPECT_EQ(app.status, 200);
		EXPECT_EQ(app.Header("ETag"), ValidatorsOf(root_->dir() + "/app.html").etag);
		EXPECT_EQ(app.body, head ? "" : "<p>app shell</p>\n");
	}
	std::map<std::string, uint64_t> after = FetchMetrics(daemon_.port());
	for (const char *c : {"responses_301", "responses_302", "responses_303", "responses_307",
			      "responses_308", "responses_410"})
		EXPECT_EQ(after[c] - before[c], 2u) << c;
	EXPECT_EQ(after["cache_hits"] - before["cache_hits"], 2u) << "the two rewrites";
	// Kept alive, pipelined, in order: the keep-alive form, then the close form.
	EXPECT_EQ(Send(Get("/go") + Request("GET", "/perm")),
		  Redirect("307 Temporary Redirect", "temporary redirect\n",
			   "https://example.net/landing", false, "keep-alive") +
			  Redirect("308 Permanent Redirect", "permanent redirect\n", "/permanent",
				   false));
	// What no rule matches is looked up as before; other methods are still 405.
	EXPECT_EQ(ParseResponse(Send(Request("GET", "/new-page.html"))).status, 200);
	EXPECT_EQ(ParseResponse(Send(Request("GET", "/blogs"))).status, 404);
	EXPECT_EQ(ParseResponse(Send(Request("PUT", "/old.html"))).status, 405);
}

// A 410 rule takes the --error-page 410 when there is one.
TEST_F(RedirectsTest, GoneTakesItsErrorPage)
{
	Start({"--error-page", "410=/gone.html"});
	const std::string page = "<p>this page is gone</p>\n";
	EXPECT_EQ(Send(Request("GET", "/retired")),
		  std::string("HTTP/1.1 410 Gone\r\nContent-Type: ") + kHtml +
			  "\r\nContent-Length: " + std::to_string(page.size()) +
			  "\r\nConnection: close\r\n\r\n" + page);
}

// An unsupported line ends the start (exit 64) with the file, its line and why; the
// flag needs --root; a missing file is named.
TEST_F(RedirectsTest, BadLinesEndTheStart)
{
	const struct {
		std::string text, why;
		int line;
	} cases[] = {
		{"/a /b\n/c /d 404\n", "the code is none of 200, 301, 302, 303, 307, 308, 410", 2},
		{"# ok\n\n/store id=:id /blog/:id 301\n",
		 "more than FROM TO CODE (query matching and conditions are not supported)", 3},
		{"/a /a 301\n", "the rule redirects its own FROM to itself", 1},
		{"/x/:id /y/:slug\n", "TO names a placeholder FROM does not have", 1},
		{"/api/* https://api.example/:splat 200\n",
		 "a 200 rule's TO must be a file of the site, without placeholders", 1},
		{"https://a.example/* /b\n", "FROM must be a path starting with '/' (no host, no query)", 1},
	};
	for (const auto &c : cases) {
		Write(c.text);
		CommandResult r = Refused({"--redirects", rules_});
		EXPECT_EQ(r.exit_code, kExitUsage) << c.text;
		EXPECT_EQ(r.err, "apollod: --redirects " + rules_ + ":" + std::to_string(c.line) +
					 ": " + c.why + "\n");
	}
	CommandResult r = Refused({"--redirects", rules_ + ".missing"});
	EXPECT_EQ(r.exit_code, kExitUsage);
	EXPECT_EQ(r.err, "apollod: --redirects " + rules_ + ".missing: cannot open: no such file or directory\n");
	std::vector<std::string> argv = DaemonCommand();
	argv.insert(argv.end(), {"--listen", "127.0.0.1:0", "--redirects", rules_});
	r = RunCommand(argv, "", kRunTimeoutMs);
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, kExitUsage);
	EXPECT_EQ(r.err, "apollod: --redirects needs --root\n");
}

// A reload (SIGHUP) reads the rules again with the tree.
TEST_F(RedirectsTest, ReloadReadsTheRulesAgain)
{
	if (!HasFeature("stop") || !DaemonLauncher().empty())
		GTEST_SKIP() << "SIGHUP reload: the routed tiers, run natively";
	Start();
	EXPECT_EQ(ParseResponse(Send(Request("GET", "/perm"))).status, 308);
	pid_t old = ServingGeneration(daemon_.pid());
	Write("/perm /elsewhere 302\n");
	ASSERT_EQ(kill(daemon_.pid(), SIGHUP), 0);
	EXPECT_TRUE(WaitUntil([&] { return FetchMetrics(daemon_.port())["reloads"] == 1; },
			      kStateWaitMs, 100));
	// The old image accepts until it has gone: a uring run's request got its 308.
	EXPECT_TRUE(WaitUntilExited(old));
	EXPECT_EQ(Send(Request("GET", "/perm")),
		  Redirect("302 Found", "found\n", "/elsewhere", false));
	EXPECT_EQ(ParseResponse(Send(Request("GET", "/go"))).status, 404) << "the old rule went";
}

} // namespace
} // namespace wire
