// What a deployer expects of --root beyond the files (feature `files`): .well-known/
// served while other dot names stay hidden (BEHAVIOUR 10.11), --error-page 404 and
// --fallback (10.12), and --header-for fields on every response of the files they name
// (10.13). Every response is checked byte for byte (the harness takes Date out), GET and
// HEAD; the start-up refusals by exit code and their one stderr line.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kExitUsage = 64;
constexpr int kExitRootRead = 10;
constexpr int kRunTimeoutMs = 10000;
constexpr char kHtml[] = "text/html; charset=utf-8";
constexpr char kText[] = "text/plain; charset=utf-8";
constexpr char kOctets[] = "application/octet-stream";
constexpr char kJs[] = "text/javascript; charset=utf-8";
constexpr char kZip[] = "application/zip";

// The tree every test here serves: relative path -> content, each body distinct.
const std::vector<std::pair<std::string, std::string>> kTree = {
	{"index.html", "<h1>app shell</h1>\n"},
	{"404.html", "<h1>no such page</h1>\n"},
	{"sub/page.txt", "a real page\n"},
	{".well-known/security.txt", "Contact: mailto:security@example.org\n"},
	{".well-known/acme-challenge/Xy-9_token", "Xy-9_token.thumbprint"},
	{".well-known/.hidden", "a dot name inside .well-known\n"},
	{".env", "SECRET=1\n"},
	{".git/config", "[core]\n"},
	{"sub/.well-known/x.txt", "not directly under DIR\n"},
	{"assets/app.js", "console.log(1)\n"},
	{"assets/img/logo.png", "PNG"},
	{"dl/report.zip", "PK zip bytes"},
	{"dl/UPPER.ZIP", "PK upper"},
};

std::string BodyOf(const std::string &rel)
{
	for (const auto &f : kTree)
		if (f.first == rel)
			return f.second;
	ADD_FAILURE() << "no file " << rel;
	return "";
}

// The exact 200 of the tree's file rel in the close form, `fields` (each line with its
// CRLF) after Accept-Ranges; HEAD: the head alone.
std::string FileResponse(const FileRoot &root, const std::string &type, const std::string &rel,
			 const std::string &fields, bool head)
{
	std::string body = BodyOf(rel);
	return "HTTP/1.1 200 OK\r\nContent-Type: " + std::string(type) +
	       "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" +
	       FileFields(ValidatorsOf(root.dir() + "/" + rel)) + fields +
	       "Connection: close\r\n\r\n" + (head ? "" : body);
}

// The static 404, close form.
std::string NotFound(bool head)
{
	return std::string("HTTP/1.1 404 Not Found\r\nContent-Type: ") + kText +
	       "\r\nContent-Length: 10\r\nConnection: close\r\n\r\n" + (head ? "" : "not found\n");
}

// The --error-page 404 of the tree's 404.html: its type, its length, `fields`, no
// validators; in the close or the keep-alive form.
std::string ErrorPage(const std::string &fields, bool head, bool keep_alive = false)
{
	std::string body = BodyOf("404.html");
	return std::string("HTTP/1.1 404 Not Found\r\nContent-Type: ") + kHtml +
	       "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" + fields +
	       "Connection: " + (keep_alive ? "keep-alive" : "close") + "\r\n\r\n" +
	       (head ? "" : body);
}

// A request that closes, with extra header lines (each ending in CRLF).
std::string Request(const std::string &method, const std::string &target,
		    const std::string &lines = "")
{
	return method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + lines +
	       "Connection: close\r\n\r\n";
}

class SitePagesTest : public testing::Test {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("files");
		root_ = std::make_unique<FileRoot>(kTree);
		ASSERT_NE(root_->dir(), "");
	}
	// Starts the daemon on the tree with flags after --root.
	void Start(const std::vector<std::string> &flags)
	{
		DaemonOptions options;
		options.extra_args = {"--root", root_->dir()};
		options.extra_args.insert(options.extra_args.end(), flags.begin(), flags.end());
		std::string error;
		ASSERT_TRUE(daemon_.Start(options, &error)) << error;
	}
	// GET and HEAD of target each earn exactly want(head), then EOF.
	template <typename Want>
	void Expect(const std::string &target, Want want, const std::string &lines = "")
	{
		for (bool head : {false, true}) {
			Received r = Roundtrip(daemon_.port(), Request(head ? "HEAD" : "GET", target,
								       lines));
			EXPECT_TRUE(r.eof && !r.reset) << target;
			EXPECT_EQ(r.bytes, want(head)) << (head ? "HEAD " : "GET ") << target;
		}
	}
	// Runs the daemon on the tree with flags to its refusal: its exit code and stderr.
	CommandResult Refused(const std::vector<std::string> &flags)
	{
		return RunToRefusal(root_->dir(), flags, kRunTimeoutMs);
	}
	std::unique_ptr<FileRoot> root_;
	Daemon daemon_;
};

// BEHAVIOUR 10.11: DIR/.well-known/ is loaded and served; the names inside it follow the
// rule for dot names; every other dot name, and a .well-known below DIR, stays 404.
TEST_F(SitePagesTest, WellKnownServedOtherDotNamesHidden)
{
	Start({});
	const FileRoot &root = *root_;
	Expect("/.well-known/security.txt", [&](bool h) {
		return FileResponse(root, kText, ".well-known/security.txt", "", h);
	});
	Expect("/.well-known/acme-challenge/Xy-9_token", [&](bool h) {
		return FileResponse(root, kOctets, ".well-known/acme-challenge/Xy-9_token", "", h);
	});
	for (const char *hidden : {"/.env", "/.git/config", "/.well-known/.hidden",
				   "/sub/.well-known/x.txt", "/.well-known/", "/%2ewell-known/x"})
		Expect(hidden, NotFound);
	Received moved = Roundtrip(daemon_.port(), Request("GET", "/.well-known"));
	EXPECT_EQ(ParseResponse(moved.bytes).Header("Location"), "/.well-known/");
}

// With --dotfiles every dot name is served, inside .well-known too.
TEST_F(SitePagesTest, DotfilesServesEveryDotName)
{
	Start({"--dotfiles"});
	const FileRoot &root = *root_;
	Expect("/.env", [&](bool h) { return FileResponse(root, kOctets, ".env", "", h); });
	Expect("/.well-known/.hidden", [&](bool h) {
		return FileResponse(root, kOctets, ".well-known/.hidden", "", h);
	});
	Expect("/sub/.well-known/x.txt", [&](bool h) {
		return FileResponse(root, kText, "sub/.well-known/x.txt", "", h);
	});
}

// BEHAVIOUR 10.12: a 404 serves the page's bytes with its own type, no validators, and
// its file's --header-for fields; never a 304 or 206; both forms; built-in routes, real
// files, the 301 and the 400 are unchanged. It still counts as a 404 and a miss.
TEST_F(SitePagesTest, ErrorPageServesTheFileAs404)
{
	Start({"--error-page", "404=/404.html", "--header-for", "*.html", "X-Page: html"});
	const FileRoot &root = *root_;
	const std::string fields = "X-Page: html\r\n";
	std::map<std::string, uint64_t> before = FetchMetrics(daemon_.port());
	for (const char *missing : {"/nope", "/.env", "/sub/", "/sub/page.txt/", "/a%20b"})
		Expect(missing, [&](bool h) { return ErrorPage(fields, h); });
	std::map<std::string, uint64_t> after = FetchMetrics(daemon_.port());
	EXPECT_EQ(after["responses_404"] - before["responses_404"], 10u);
	EXPECT_EQ(after["cache_misses"] - before["cache_misses"], 10u);
	EXPECT_EQ(after["cache_hits"] - before["cache_hits"], 0u);
	// Conditionals and ranges do not apply to it.
	Expect("/nope", [&](bool h) { return ErrorPage(fields, h); }, "If-None-Match: *\r\n");
	Expect("/nope", [&](bool h) { return ErrorPage(fields, h); }, "Range: bytes=0-0\r\n");
	Expect("/nope", [&](bool h) { return ErrorPage(fields, h); },
	       "If-Modified-Since: Fri, 01 Jan 2100 00:00:00 GMT\r\n");
	// Pipelined: the keep-alive form, then the close form spliced from it.
	Received two = Roundtrip(daemon_.port(), Get("/nope") + Request("GET", "/gone"));
	EXPECT_EQ(two.bytes, ErrorPage(fields, false, true) + ErrorPage(fields, false));
	// What finds something is unchanged.
	Expect("/404.html",
	       [&](bool h) { return FileResponse(root, kHtml, "404.html", fields, h); });
	Expect("/sub/page.txt",
	       [&](bool h) { return FileResponse(root, kText, "sub/page.txt", "", h); });
	EXPECT_EQ(Roundtrip(daemon_.port(), Request("GET", "/health")).bytes,
		  std::string("HTTP/1.1 200 OK\r\nContent-Type: ") + kText +
			  "\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
	EXPECT_EQ(ParseResponse(Roundtrip(daemon_.port(), Request("GET", "/sub")).bytes).status,
		  301);
	EXPECT_EQ(ParseResponse(Roundtrip(daemon_.port(), Request("GET", "/a%2Fb")).bytes).status,
		  400);
	EXPECT_EQ(ParseResponse(Roundtrip(daemon_.port(), Request("PUT", "/nope")).bytes).status,
		  405);
}

// BEHAVIOUR 10.12: a GET or HEAD that finds no file gets the fallback file as a request
// for it would: 200 with its validators, 304 and 206 too; a hit. Built-in routes, real
// files and the 301 still win; a bad escape is still 400.
TEST_F(SitePagesTest, FallbackServesTheFileAs200)
{
	Start({"--fallback", "/index.html", "--error-page", "404=/404.html"});
	const FileRoot &root = *root_;
	auto shell = [&](bool h) { return FileResponse(root, kHtml, "index.html", "", h); };
	std::map<std::string, uint64_t> before = FetchMetrics(daemon_.port());
	for (const char *route : {"/app/settings", "/app/settings?tab=2", "/app", "/sub/"})
		Expect(route, shell);
	std::map<std::string, uint64_t> after = FetchMetrics(daemon_.port());
	EXPECT_EQ(after["cache_hits"] - before["cache_hits"], 8u);
	EXPECT_EQ(after["cache_misses"] - before["cache_misses"], 0u);
	EXPECT_EQ(after["responses_404"] - before["responses_404"], 0u);
	EXPECT_EQ(after["responses_200"] - before["responses_200"], 9u) << "and /metrics";
	FileValidators v = ValidatorsOf(root.dir() + "/index.html");
	Expect("/app/x",
	       [&](bool) {
		       return "HTTP/1.1 304 Not Modified\r\nLast-Modified: " + v.last_modified +
			      "\r\nETag: " + v.etag + "\r\nConnection: close\r\n\r\n";
	       },
	       "If-None-Match: " + v.etag + "\r\n");
	std::string body = BodyOf("index.html");
	EXPECT_EQ(Roundtrip(daemon_.port(), Request("GET", "/app/x", "Range: bytes=1-3\r\n")).bytes,
		  std::string("HTTP/1.1 206 Partial Content\r\nContent-Type: ") + kHtml +
			  "\r\nContent-Length: 3\r\nContent-Range: bytes 1-3/" +
			  std::to_string(body.size()) + "\r\n" + FileFields(v) +
			  "Connection: close\r\n\r\n" + body.substr(1, 3));
	Expect("/sub/page.txt",
	       [&](bool h) { return FileResponse(root, kText, "sub/page.txt", "", h); });
	EXPECT_EQ(Roundtrip(daemon_.port(), Request("HEAD", "/health")).bytes,
		  std::string("HTTP/1.1 200 OK\r\nContent-Type: ") + kText +
			  "\r\nContent-Length: 2\r\nConnection: close\r\n\r\n");
	EXPECT_EQ(ParseResponse(Roundtrip(daemon_.port(), Request("GET", "/metrics")).bytes).status,
		  200);
	EXPECT_EQ(ParseResponse(Roundtrip(daemon_.port(), Request("GET", "/sub")).bytes).status,
		  301);
	EXPECT_EQ(ParseResponse(Roundtrip(daemon_.port(), Request("GET", "/a%2Fb")).bytes).status,
		  400);
}

// Issue 31: the fallback answers a miss whose last segment has no extension, or a
// browser's navigation (Accept prefers text/html); a missing asset (/favicon.ico,
// /app.js, a dotfile) gets the 404 page, or the static 404 without one.
TEST_F(SitePagesTest, FallbackOnlyForRoutesAndNavigations)
{
	Start({"--fallback", "/index.html", "--error-page", "404=/404.html"});
	const FileRoot &root = *root_;
	auto shell = [&](bool h) { return FileResponse(root, kHtml, "index.html", "", h); };
	const std::string html = "Accept: text/html,application/xhtml+xml,*/*;q=0.8\r\n";
	for (const char *asset : {"/favicon.ico", "/app.js", "/app/main.css", "/.env", "/a%2ejs"}) {
		Expect(asset, [&](bool h) { return ErrorPage("", h); });
		Expect(asset, [&](bool h) { return ErrorPage("", h); }, "Accept: */*\r\n");
		Expect(asset, shell, html);
	}
	Expect("/user/jane.doe", shell, html);
	Expect("/v1.0/route", shell);
	Expect("/images/logo.png", [&](bool h) { return ErrorPage("", h); },
	       "Accept: image/avif,image/webp,*/*;q=0.8\r\n");
}

// Without an error page the miss of an asset is the static 404.
TEST_F(SitePagesTest, FallbackLeavesAssetsTheStatic404)
{
	Start({"--fallback", "/index.html"});
	Received r = Roundtrip(daemon_.port(), Request("GET", "/favicon.ico"));
	EXPECT_EQ(r.bytes, "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\n"
			   "Content-Length: 10\r\nConnection: close\r\n\r\nnot found\n");
}

// "/" without an index.html: the fallback takes the place of the built-in hello.
TEST_F(SitePagesTest, FallbackAnswersRootWithoutIndex)
{
	REQUIRE_FEATURE("files");
	FileRoot app(std::vector<std::pair<std::string, std::string>>{{"app.html", "<app/>"}});
	ASSERT_NE(app.dir(), "");
	DaemonOptions options;
	options.extra_args = {"--root", app.dir(), "--fallback", "/app.html"};
	std::string error;
	ASSERT_TRUE(daemon_.Start(options, &error)) << error;
	EXPECT_EQ(Roundtrip(daemon_.port(), Request("GET", "/")).bytes,
		  std::string("HTTP/1.1 200 OK\r\nContent-Type: ") + kHtml +
			  "\r\nContent-Length: 6\r\n" + FileFields(ValidatorsOf(app.dir() + "/app.html")) +
			  "Connection: close\r\n\r\n<app/>");
}

// A target that is no loaded file (missing, a directory, a hidden name) ends the start:
// exit 10 and the --root line naming it; a bad value or a target without --root: 64.
TEST_F(SitePagesTest, TargetsAreCheckedAtStartUp)
{
	const std::string dir = root_->dir();
	const struct {
		std::vector<std::string> flags;
		std::string line;
	} missing[] = {
		{{"--fallback", "/missing.html"}, "--fallback names no loaded file: missing.html"},
		{{"--error-page", "404=/sub"}, "--error-page 404 names no loaded file: sub"},
		{{"--error-page", "404=/.env"}, "--error-page 404 names no loaded file: .env"},
		{{"--fallback", "/sub/page.txt/"}, "--fallback names no loaded file: sub/page.txt/"},
		{{"--error-page", "404=/404.html", "--error-page", "410=/gone.html"},
		 "--error-page 410 names no loaded file: gone.html"},
		{{"--error-page", "503=/sub/"}, "--error-page 503 names no loaded file: sub/"},
	};
	for (const auto &c : missing) {
		CommandResult r = Refused(c.flags);
		EXPECT_EQ(r.exit_code, kExitRootRead) << c.line;
		EXPECT_EQ(r.err, "apollod: --root " + dir + ": " + c.line + "\n");
	}
	for (const char *bad : {"500=/404.html", "401=/404.html", "4040=/404.html", "404=404.html",
				"404"}) {
		CommandResult r = Refused({"--error-page", bad});
		EXPECT_EQ(r.exit_code, kExitUsage) << bad;
		EXPECT_EQ(UsageErrorProblem(r.err, "apollod: --error-page: bad value '" +
							   std::string(bad) + "'\n"),
			  "");
	}
	CommandResult r = Refused({"--fallback", "index.html"});
	EXPECT_EQ(r.exit_code, kExitUsage);
	EXPECT_EQ(UsageErrorProblem(r.err, "apollod: --fallback: bad value 'index.html'\n"), "");
	std::vector<std::string> argv = DaemonCommand();
	argv.insert(argv.end(), {"--listen", "127.0.0.1:0", "--fallback", "/index.html"});
	r = RunCommand(argv, "", kRunTimeoutMs);
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, kExitUsage);
	EXPECT_EQ(r.err, "apollod: --fallback needs --root\n");
}

// BEHAVIOUR 10.13: a prefix and an extension (case ignored), both on one file in command-
// line order, on its 200, HEAD, 206 and 304; a file neither names has none; --header's
// own fields still come last.
TEST_F(SitePagesTest, HeaderForPrefixAndExtension)
{
	Start({"--header-for", "/assets/", "Cache-Control: max-age=31536000, immutable",
	       "--header-for", "*.zip", "Content-Disposition: attachment", "--header-for=*.js",
	       "X-Script:  yes ", "--header", "X-Everywhere: 1"});
	const FileRoot &root = *root_;
	const std::string immutable = "Cache-Control: max-age=31536000, immutable\r\n";
	const std::string attachment = "Content-Disposition: attachment\r\n";
	const std::string tail = "X-Everywhere: 1\r\n\r\n";
	// Every expected response ends "Connection: close\r\n\r\n": --header's line goes after.
	auto with_header = [&](std::string r) {
		size_t end = r.find("\r\n\r\n");
		return r.substr(0, end + 2) + tail + r.substr(end + 4);
	};
	Expect("/assets/app.js", [&](bool h) {
		return with_header(FileResponse(root, kJs, "assets/app.js", immutable + "X-Script: yes\r\n", h));
	});
	Expect("/assets/img/logo.png", [&](bool h) {
		return with_header(FileResponse(root, "image/png", "assets/img/logo.png", immutable, h));
	});
	Expect("/dl/report.zip", [&](bool h) {
		return with_header(FileResponse(root, kZip, "dl/report.zip", attachment, h));
	});
	Expect("/dl/UPPER.ZIP", [&](bool h) {
		return with_header(FileResponse(root, kZip, "dl/UPPER.ZIP", attachment, h));
	});
	Expect("/index.html", [&](bool h) {
		return with_header(FileResponse(root, kHtml, "index.html", "", h));
	});
	FileValidators v = ValidatorsOf(root.dir() + "/assets/app.js");
	Expect("/assets/app.js",
	       [&](bool) {
		       return "HTTP/1.1 304 Not Modified\r\nLast-Modified: " + v.last_modified +
			      "\r\nETag: " + v.etag + "\r\n" + immutable +
			      "X-Script: yes\r\nConnection: close\r\n" + tail;
	       },
	       "If-None-Match: " + v.etag + "\r\n");
	std::string body = BodyOf("assets/app.js");
	EXPECT_EQ(Roundtrip(daemon_.port(), Request("GET", "/assets/app.js", "Range: bytes=0-6\r\n"))
			  .bytes,
		  std::string("HTTP/1.1 206 Partial Content\r\nContent-Type: ") + kJs +
			  "\r\nContent-Length: 7\r\nContent-Range: bytes 0-6/" +
			  std::to_string(body.size()) + "\r\n" + FileFields(v) + immutable +
			  "X-Script: yes\r\nConnection: close\r\n" + tail + body.substr(0, 7));
}

// curl sees the --header-for fields of the file it fetched, and only those.
TEST_F(SitePagesTest, CurlSeesHeaderForFields)
{
	Start({"--header-for", "/assets/", "Cache-Control: max-age=31536000, immutable",
	       "--header-for", "*.zip", "Content-Disposition: attachment"});
	const struct {
		std::string target, want; // want: "<status>|<Cache-Control>|<Content-Disposition>"
	} cases[] = {
		{"/assets/img/logo.png", "200|max-age=31536000, immutable|"},
		{"/dl/report.zip", "200||attachment"},
		{"/index.html", "200||"},
	};
	for (const auto &c : cases) {
		CommandResult r = RunCommand(
			{"curl", "-sS", "--max-time", "10", "-o", "/dev/null", "-w",
			 "%{http_code}|%header{cache-control}|%header{content-disposition}",
			 "http://127.0.0.1:" + std::to_string(daemon_.port()) + c.target},
			"", kRunTimeoutMs);
		ASSERT_TRUE(r.ran) << r.problem;
		EXPECT_EQ(r.out, c.want) << c.target << r.err;
	}
}

// A field the daemon owns, a bad pattern or a missing word: exit 64 and one line, as
// --header refuses (a missing word is the usage error of any flag without its value).
TEST_F(SitePagesTest, HeaderForRefusals)
{
	const struct {
		std::string pattern, field, why;
	} cases[] = {
		{"/assets/", "ETag: \"x\"", "the daemon writes that field itself"},
		{"*.zip", "Content-Type: application/x-zip", "the daemon writes that field itself"},
		{"/", "content-length: 1", "the daemon writes that field itself"},
		{"/a/", "X A: v", "the name must be a token (RFC 9110 5.6.2)"},
		{"assets/", "X-A: 1", "a pattern is a prefix '/dir/' or '*.ext'"},
		{"*.tar.gz", "X-A: 1", "a pattern is a prefix '/dir/' or '*.ext'"},
	};
	for (const auto &c : cases) {
		CommandResult r = Refused({"--header-for", c.pattern, c.field});
		EXPECT_EQ(r.exit_code, kExitUsage) << c.field;
		EXPECT_EQ(r.err,
			  "apollod: --header-for '" + c.pattern + "' '" + c.field + "': " + c.why + "\n");
	}
	CommandResult r = Refused({"--header-for", "/assets/"});
	EXPECT_EQ(r.exit_code, kExitUsage);
	EXPECT_EQ(UsageErrorProblem(r.err, "apollod: --header-for needs a value\n"), "");
}

// Writes text to a new temporary file and returns its path ("" on failure).
std::string TempFile(const std::string &text)
{
	char name[] = "/tmp/apollod-headers-XXXXXX";
	int fd = mkstemp(name);
	if (fd < 0)
		return "";
	bool ok = write(fd, text.data(), text.size()) == (ssize_t)text.size();
	close(fd);
	return ok ? name : "";
}

// BEHAVIOUR 10.13: --headers FILE in the _headers format is --header-for spelled in a
// file: its pairs come after the command line's, on every response of the files they
// name (200, HEAD, OPTIONS).
TEST_F(SitePagesTest, HeadersFileIsHeaderForSpelledInAFile)
{
	const std::string file = TempFile("# fields for every response, then by folder and type\n"
					  "/*\n"
					  "  X-Frame-Options: DENY\n"
					  "/assets/*\n"
					  "  Cache-Control: public, max-age=31536000, immutable\n"
					  "/*.zip\n"
					  "  Content-Disposition: attachment\n");
	ASSERT_NE(file, "");
	Start({"--headers", file, "--header-for", "/assets/", "X-Cli: 1"});
	const FileRoot &root = *root_;
	const std::string deny = "X-Frame-Options: DENY\r\n";
	Expect("/assets/app.js", [&](bool h) {
		return FileResponse(root, kJs, "assets/app.js",
				    "X-Cli: 1\r\n" + deny +
					    "Cache-Control: public, max-age=31536000, immutable\r\n",
				    h);
	});
	Expect("/dl/report.zip", [&](bool h) {
		return FileResponse(root, kZip, "dl/report.zip",
				    deny + "Content-Disposition: attachment\r\n", h);
	});
	Expect("/index.html",
	       [&](bool h) { return FileResponse(root, kHtml, "index.html", deny, h); });
	EXPECT_EQ(Roundtrip(daemon_.port(), Request("OPTIONS", "/dl/report.zip")).bytes,
		  "HTTP/1.1 204 No Content\r\nAllow: GET, HEAD, OPTIONS\r\n" + deny +
			  "Content-Disposition: attachment\r\nConnection: close\r\n\r\n");
	unlink(file.c_str());
}

// A line outside the subset, or a field --header-for would refuse, ends the start with
// exit 64 and the file's line.
TEST_F(SitePagesTest, HeadersFileRefusals)
{
	const struct {
		std::string text, why;
		int line;
	} cases[] = {
		{"/*\n  X-A: 1\n/index.html\n  X-B: 2\n",
		 "a path is /*, /dir/* or /*.ext here (the --header-for forms); exact paths, "
		 "placeholders and URLs are not supported",
		 3},
		{"/*\n  X-A: 1\n  ETag: \"x\"\n", "the daemon writes that field itself", 3},
		{"  X-A: 1\n", "a field line before any path line", 1},
		{"/*\n  ! X-A\n", "detaching a field ('! Name') is not supported", 2},
	};
	for (const auto &c : cases) {
		const std::string file = TempFile(c.text);
		ASSERT_NE(file, "");
		CommandResult r = Refused({"--headers", file});
		EXPECT_EQ(r.exit_code, kExitUsage) << c.text;
		EXPECT_EQ(r.err, "apollod: --headers " + file + ":" + std::to_string(c.line) + ": " +
					 c.why + "\n");
		unlink(file.c_str());
	}
	CommandResult r = Refused({"--headers", "/nonexistent/_headers"});
	EXPECT_EQ(r.exit_code, kExitUsage);
	EXPECT_EQ(r.err, "apollod: --headers /nonexistent/_headers: cannot open: no such file or "
			 "directory\n");
}

// The pages of every status (BEHAVIOUR 10.12), each body distinct, under e/ so that one
// --header-for names them all.
const std::vector<std::pair<std::string, std::string>> kPages = {
	{"index.html", "<h1>home</h1>\n"},          {"f.txt", "twelve bytes"},
	{"e/400.html", "<p>a request we could not read</p>\n"},
	{"e/404.html", "<p>nothing here</p>\n"},  {"e/405.html", "<p>not that method</p>\n"},
	{"e/408.html", "<p>too slow</p>\n"},      {"e/414.html", "<p>too long an address</p>\n"},
	{"e/416.html", "<p>no such range</p>\n"},
};
const char *const kPageFlags[] = {"--error-page", "400=/e/400.html", "--error-page",
				  "404=/e/404.html", "--error-page",    "405=/e/405.html",
				  "--error-page", "408=/e/408.html", "--error-page",
				  "414=/e/414.html", "--error-page",    "416=/e/416.html",
				  "--header-for", "/e/",             "X-Error: page"};

// The response of page `code` (a file of kPages) under status line `status`, `between`
// (lines ending in CRLF) after Content-Length and its --header-for field, the form
// `connection`; HEAD: no body.
std::string PageResponse(const std::string &status, const std::string &code, bool head,
			 const std::string &connection = "close", const std::string &between = "",
			 const std::string &after = "")
{
	std::string body;
	for (const auto &f : kPages)
		if (f.first == "e/" + code + ".html")
			body = f.second;
	return "HTTP/1.1 " + status + "\r\nContent-Type: " + kHtml +
	       "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" + between +
	       "X-Error: page\r\n" + after + "Connection: " + connection + "\r\n\r\n" +
	       (head ? "" : body);
}

class ErrorPagesTest : public testing::Test {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("files");
		root_ = std::make_unique<FileRoot>(kPages);
		ASSERT_NE(root_->dir(), "");
	}
	void Start(const std::vector<std::string> &more)
	{
		DaemonOptions options;
		options.extra_args = {"--root", root_->dir()};
		options.extra_args.insert(options.extra_args.end(), std::begin(kPageFlags),
					  std::end(kPageFlags));
		options.extra_args.insert(options.extra_args.end(), more.begin(), more.end());
		std::string error;
		ASSERT_TRUE(daemon_.Start(options, &error)) << error;
	}
	// Sends request alone on a connection and returns what came back before EOF.
	std::string Send(const std::string &request)
	{
		Received r = Roundtrip(daemon_.port(), request, true);
		EXPECT_TRUE(r.eof && !r.reset) << request.substr(0, 60);
		return r.bytes;
	}
	std::unique_ptr<FileRoot> root_;
	Daemon daemon_;
};

// Every answer with a body takes the page of its status, GET and HEAD (HEAD never carries
// it), the 405's keeps Allow, the 416's its Content-Range; each counts as the status it
// answers; the connection's fate is the built-in answer's.
TEST_F(ErrorPagesTest, EveryStatusServesItsOwnPage)
{
	Start({});
	std::map<std::string, uint64_t> before = FetchMetrics(daemon_.port());
	for (bool head : {false, true}) {
		const std::string m = head ? "HEAD" : "GET";
		EXPECT_EQ(Send(Request(m, "/a%zz")), PageResponse("400 Bad Request", "400", head));
		EXPECT_EQ(Send(m + " / HTTP/1.1\r\nno colon here\r\n\r\n"),
			  PageResponse("400 Bad Request", "400", head));
		EXPECT_EQ(Send(Request(m, "/missing")), PageResponse("404 Not Found", "404", head));
		EXPECT_EQ(Send(Request(m, "/" + std::string(8000, 'a'))),
			  PageResponse("414 URI Too Long", "414", head));
	}
	EXPECT_EQ(Send(Request("DELETE", "/f.txt")),
		  PageResponse("405 Method Not Allowed", "405", false, "close",
			       "Allow: GET, HEAD, OPTIONS\r\n"));
	EXPECT_EQ(Send(Request("GET", "/f.txt", "Range: bytes=50-\r\n")),
		  PageResponse("416 Range Not Satisfiable", "416", false, "close", "",
			       "Content-Range: bytes */12\r\n"));
	std::map<std::string, uint64_t> after = FetchMetrics(daemon_.port());
	EXPECT_EQ(after["responses_400"] - before["responses_400"], 4u);
	EXPECT_EQ(after["responses_404"] - before["responses_404"], 2u);
	EXPECT_EQ(after["responses_414"] - before["responses_414"], 2u);
	EXPECT_EQ(after["responses_405"] - before["responses_405"], 1u);
	EXPECT_EQ(after["responses_416"] - before["responses_416"], 1u);
	// Kept alive as the built-in 400 and 404 are: the keep-alive form, then the close form.
	EXPECT_EQ(Send(Get("/a%zz") + Get("/nope") + Request("GET", "/f.txt", "Range: bytes=99-\r\n")),
		  PageResponse("400 Bad Request", "400", false, "keep-alive") +
			  PageResponse("404 Not Found", "404", false, "keep-alive") +
			  PageResponse("416 Range Not Satisfiable", "416", false, "close", "",
				       "Content-Range: bytes */12\r\n"));
	// What is no error is unchanged, and the pages are files of their own.
	EXPECT_EQ(ParseResponse(Send(Request("GET", "/f.txt"))).status, 200);
	EXPECT_EQ(ParseResponse(Send(Request("GET", "/e/405.html"))).status, 200);
	EXPECT_EQ(ParseResponse(Send(Request("OPTIONS", "/f.txt"))).status, 204);
}

// A head that stalls gets the 408 page, then the close.
TEST_F(ErrorPagesTest, HeadDeadlineServesThe408Page)
{
	REQUIRE_FEATURE("deadlines");
	Start({"--header-timeout", "1"});
	Received r = Roundtrip(daemon_.port(), "GET / HTTP/1.1\r\nHost: x\r\n", false, 20000);
	EXPECT_TRUE(r.eof);
	EXPECT_EQ(r.bytes, PageResponse("408 Request Timeout", "408", false));
	EXPECT_EQ(FetchMetrics(daemon_.port())["responses_408"], 1u);
}

// Pages served from disk (--cache-bytes 0) take their status and length per request; the
// 416 and 408 pages are served from memory only, so on disk the built-in answers stay.
TEST_F(ErrorPagesTest, PagesOnDisk)
{
	Start({"--cache-bytes", "0"});
	std::map<std::string, uint64_t> before = FetchMetrics(daemon_.port());
	for (bool head : {false, true}) {
		const std::string m = head ? "HEAD" : "GET";
		EXPECT_EQ(Send(Request(m, "/a%zz")), PageResponse("400 Bad Request", "400", head));
		EXPECT_EQ(Send(Request(m, "/nope")), PageResponse("404 Not Found", "404", head));
	}
	EXPECT_EQ(Send(Request("PUT", "/")), PageResponse("405 Method Not Allowed", "405", false,
							    "close", "Allow: GET, HEAD, OPTIONS\r\n"));
	EXPECT_EQ(Send(Request("GET", "/f.txt", "Range: bytes=50-\r\n")),
		  std::string("HTTP/1.1 416 Range Not Satisfiable\r\nContent-Type: ") + kText +
			  "\r\nContent-Length: 22\r\nContent-Range: bytes */12\r\n"
			  "Connection: close\r\n\r\nrange not satisfiable\n");
	std::map<std::string, uint64_t> after = FetchMetrics(daemon_.port());
	EXPECT_EQ(after["responses_from_disk"] - before["responses_from_disk"], 6u)
		<< "five pages and the 416's file";
	// A page that was removed since: the built-in answer of its status.
	ASSERT_EQ(unlink((root_->dir() + "/e/400.html").c_str()), 0);
	EXPECT_EQ(Send(Request("GET", "/a%zz")),
		  std::string("HTTP/1.1 400 Bad Request\r\nContent-Type: ") + kText +
			  "\r\nContent-Length: 12\r\nConnection: close\r\n\r\nbad request\n");
}

} // namespace
} // namespace wire
