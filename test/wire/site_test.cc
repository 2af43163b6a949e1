// `--root` as a website (feature `files`, BEHAVIOUR 10.4-10.5): index pages, the 301 from
// /dir to /dir/ (query kept), percent-decoded names (400 for an encoded '/', %00 and a
// malformed escape), names that need encoding, dotfiles hidden unless --dotfiles, and the
// web Content-Types. Every response is checked byte for byte, for GET and for HEAD.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kTimeoutMs = 10000;

// A request on HTTP/1.1 that closes after its response.
std::string CloseRequest(const std::string &method, const std::string &target)
{
	return method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
}

const std::string &Body(const std::string &rel);

// The directory the suite running now serves (SiteFixture::SetUp sets it): the files'
// validators are stat'ed there.
std::string site_dir;

// The exact response to the site's file rel: 200, its type, length and validators, then
// (GET) its body.
std::string FileResponse(const std::string &type, const std::string &rel, bool keep_alive,
			 bool head_only)
{
	const std::string &body = Body(rel);
	return FileHead(type, body.size(), site_dir + "/" + rel, keep_alive) +
	       (head_only ? "" : body);
}

// The exact 301 to location.
std::string RedirectResponse(const std::string &location, bool keep_alive, bool head_only)
{
	return "HTTP/1.1 301 Moved Permanently\r\nContent-Type: text/plain; charset=utf-8\r\n"
	       "Content-Length: 18\r\nLocation: " +
	       location + "\r\nConnection: " + (keep_alive ? "keep-alive" : "close") +
	       "\r\n\r\n" + (head_only ? "" : "moved permanently\n");
}

// The exact static 400 or 404 (status line and body), Connection: close.
std::string TextResponse(const std::string &status, const std::string &body, bool head_only)
{
	return "HTTP/1.1 " + status + "\r\nContent-Type: text/plain; charset=utf-8\r\n" +
	       "Content-Length: " + std::to_string(body.size()) +
	       "\r\nConnection: close\r\n\r\n" + (head_only ? "" : body);
}

// The site every test here serves: relative path -> content. Each body is distinct, so a
// response can only match the file it names.
const std::vector<std::pair<std::string, std::string>> kSite = {
	{"index.html", "<h1>root index</h1>\n"},
	{"sub/index.html", "<h1>sub index</h1>\n"},
	{"sub/page.html", "<p>page</p>\n"},
	{"sub/deeper/note.txt", "deeper note\n"},
	{"a b.txt", "space in the name\n"},
	{"caf\xc3\xa9.txt", "utf-8 name\n"},
	{"100%.txt", "percent in the name\n"},
	{"q?.txt", "question mark in the name\n"},
	{".env", "SECRET=1\n"},
	{".git/config", "[core]\n"},
	{"sub/.htaccess", "deny\n"},
	{".well-known/security.txt", "Contact: mailto:security@example.org\n"}, // 10.11
	{".well-known/.hidden", "a dot name inside .well-known\n"},
	{"t/f.woff", "woff"}, {"t/f.woff2", "woff2"}, {"t/f.ttf", "ttf"}, {"t/f.otf", "otf"},
	{"t/v.mp4", "mp4"}, {"t/v.webm", "webm"}, {"t/a.mp3", "mp3"}, {"t/a.ogg", "ogg"},
	{"t/m.mjs", "mjs"}, {"t/i.avif", "avif"}, {"t/s.webmanifest", "{}"},
	{"t/d.csv", "a,b\n"}, {"t/app.js.map", "{}"}, {"t/z.zip", "PK"},
	{"t/c.vtt", "WEBVTT\n"}, {"t/m.glb", "glTF"}, {"t/a.flac", "fLaC"}, {"t/c.yaml", "a: 1\n"},
	{"t/s.svg", "<svg/>"}, {"t/x.xml", "<x/>"}, {"t/r.md", "# r\n"},
	// A stylesheet and its precompressed gzip (gzip -9n of it: a real client decodes it).
	{"t/g.css", "body { color: teal }\n"},
	{"t/g.css.gz", std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\x4b\xca\x4f\xa9"
				   "\x54\xa8\x56\x48\xce\xcf\xc9\x2f\xb2\x52\x28\x49\x4d\xcc"
				   "\x51\xa8\xe5\x02\x00\xdb\xec\x0d\x55\x15\x00\x00\x00",
				   41)},
};

const std::string &Body(const std::string &rel)
{
	for (const auto &f : kSite)
		if (f.first == rel)
			return f.second;
	static const std::string none;
	ADD_FAILURE() << "no file " << rel << " in the site";
	return none;
}

// Writes the site (kSite, and an empty directory) under dir: "" or what failed.
std::string WriteSite(const std::string &dir)
{
	for (const auto &f : kSite)
		if (!Put(dir, f.first, f.second))
			return "cannot write " + f.first;
	mkdir((dir + "/empty").c_str(), 0755);
	return "";
}

// The site under a fresh /tmp directory, served with extra flags, for the suite; both go
// when the suite ends.
class SiteServer : public ServedTree {
public:
	explicit SiteServer(const std::vector<std::string> &flags)
		: ServedTree("site", WriteSite, flags)
	{
	}
};

// One request target and the response it must earn (for GET; HEAD gets its head).
struct SiteCase {
	std::string label;
	std::string target;
	std::string (*expected)(bool head_only); // the Connection: close response
};

void PrintTo(const SiteCase &c, std::ostream *os) { *os << c.label; }

template <bool kDotfiles>
class SiteFixture : public testing::TestWithParam<SiteCase> {
protected:
	static void SetUpTestSuite()
	{
		if (HasFeature("files"))
			server_ = new SiteServer(kDotfiles ? std::vector<std::string>{"--dotfiles"}
							   : std::vector<std::string>{});
	}
	static void TearDownTestSuite()
	{
		delete server_;
		server_ = nullptr;
	}
	void SetUp() override
	{
		REQUIRE_FEATURE("files");
		ASSERT_TRUE(server_ != nullptr && server_->error().empty())
			<< (server_ ? server_->error() : "no server");
		site_dir = server_->dir();
	}
	// GET and HEAD of the case's target each earn exactly the expected bytes, then EOF.
	void CheckCase()
	{
		const SiteCase &c = GetParam();
		for (bool head : {false, true}) {
			Received r = Roundtrip(server_->port(),
					       CloseRequest(head ? "HEAD" : "GET", c.target), false,
					       kTimeoutMs);
			EXPECT_TRUE(r.eof && !r.reset && !r.timed_out) << "no clean EOF";
			EXPECT_EQ(r.bytes, c.expected(head)) << (head ? "HEAD " : "GET ") << c.target;
		}
	}
	int port() const { return server_->port(); }

private:
	inline static SiteServer *server_ = nullptr;
};

std::string SiteCaseName(const testing::TestParamInfo<SiteCase> &info)
{
	return info.param.label;
}

#define FILE_CASE(label, target, rel, type)                                          \
	SiteCase                                                                     \
	{                                                                            \
		label, target, [](bool head) { return FileResponse(type, rel, false, head); } \
	}
#define REDIRECT_CASE(label, target, location)                                       \
	SiteCase                                                                     \
	{                                                                            \
		label, target, [](bool head) { return RedirectResponse(location, false, head); } \
	}
#define NOT_FOUND_CASE(label, target)                                                \
	SiteCase                                                                     \
	{                                                                            \
		label, target,                                                       \
			[](bool head) { return TextResponse("404 Not Found", "not found\n", head); } \
	}
#define BAD_CASE(label, target)                                                      \
	SiteCase                                                                     \
	{                                                                            \
		label, target, [](bool head) {                                       \
			return TextResponse("400 Bad Request", "bad request\n", head); \
		}                                                            \
	}

constexpr char kHtml[] = "text/html; charset=utf-8";
constexpr char kText[] = "text/plain; charset=utf-8";

using SiteTest = SiteFixture<false>;
TEST_P(SiteTest, GetAndHeadByteExact) { CheckCase(); }

class SiteExchangeTest : public SiteFixture<false> {};

const SiteCase kSiteCases[] = {
	// Index pages and the redirect.
	FILE_CASE("root_index", "/", "index.html", kHtml),
	FILE_CASE("root_index_with_query", "/?v=1", "index.html", kHtml),
	FILE_CASE("root_index_by_name", "/index.html", "index.html", kHtml),
	FILE_CASE("sub_index", "/sub/", "sub/index.html", kHtml),
	FILE_CASE("sub_index_with_query", "/sub/?a=b", "sub/index.html", kHtml),
	FILE_CASE("sub_page", "/sub/page.html", "sub/page.html", kHtml),
	REDIRECT_CASE("sub_redirects", "/sub", "/sub/"),
	REDIRECT_CASE("redirect_keeps_query", "/sub?x=1&y=%20", "/sub/?x=1&y=%20"),
	REDIRECT_CASE("redirect_keeps_empty_query", "/sub?", "/sub/?"),
	REDIRECT_CASE("directory_without_index_redirects", "/sub/deeper", "/sub/deeper/"),
	REDIRECT_CASE("encoded_directory_keeps_its_spelling", "/s%75b", "/s%75b/"),
	REDIRECT_CASE("empty_directory_redirects", "/empty", "/empty/"),
	NOT_FOUND_CASE("directory_without_index", "/sub/deeper/"),
	NOT_FOUND_CASE("empty_directory", "/empty/"),
	NOT_FOUND_CASE("file_with_slash", "/sub/page.html/"),
	NOT_FOUND_CASE("index_of_a_file", "/index.html/"),
	// Decoded names.
	FILE_CASE("encoded_letter", "/%69ndex.html", "index.html", kHtml),
	FILE_CASE("encoded_space", "/a%20b.txt", "a b.txt", kText),
	FILE_CASE("encoded_utf8_upper_hex", "/caf%C3%A9.txt", "caf\xc3\xa9.txt", kText),
	FILE_CASE("encoded_utf8_lower_hex", "/caf%c3%a9.txt", "caf\xc3\xa9.txt", kText),
	FILE_CASE("encoded_percent", "/100%25.txt", "100%.txt", kText),
	FILE_CASE("encoded_question_mark", "/q%3F.txt", "q?.txt", kText),
	FILE_CASE("encoded_query_after_encoded_name", "/a%20b.txt?x=%2F", "a b.txt", kText),
	NOT_FOUND_CASE("plus_is_literal", "/a+b.txt"),
	BAD_CASE("encoded_dotdot_above_the_root", "/%2e%2e/index.html"), // paths_test.cc
	FILE_CASE("encoded_dot_segment", "/sub/%2e/page.html", "sub/page.html", kHtml),
	BAD_CASE("encoded_slash_upper", "/sub%2Fpage.html"),
	BAD_CASE("encoded_slash_lower", "/sub%2fpage.html"),
	BAD_CASE("encoded_nul", "/index.html%00"),
	BAD_CASE("escape_cut_at_end", "/index.html%2"),
	BAD_CASE("lone_percent", "/100%.txt"),
	BAD_CASE("escape_not_hex", "/%zzindex.html"),
	BAD_CASE("escape_half_hex", "/%6gindex.html"),
	BAD_CASE("bad_escape_in_a_directory_name", "/s%u5b"),
	// Dotfiles, without --dotfiles.
	NOT_FOUND_CASE("dotfile", "/.env"),
	NOT_FOUND_CASE("dotfile_encoded_dot", "/%2eenv"),
	NOT_FOUND_CASE("dot_directory", "/.git/config"),
	NOT_FOUND_CASE("dot_directory_itself", "/.git"),
	NOT_FOUND_CASE("dotfile_in_subdirectory", "/sub/.htaccess"),
	// Types.
	FILE_CASE("woff", "/t/f.woff", "t/f.woff", "font/woff"),
	FILE_CASE("woff2", "/t/f.woff2", "t/f.woff2", "font/woff2"),
	FILE_CASE("ttf", "/t/f.ttf", "t/f.ttf", "font/ttf"),
	FILE_CASE("otf", "/t/f.otf", "t/f.otf", "font/otf"),
	FILE_CASE("mp4", "/t/v.mp4", "t/v.mp4", "video/mp4"),
	FILE_CASE("webm", "/t/v.webm", "t/v.webm", "video/webm"),
	FILE_CASE("mp3", "/t/a.mp3", "t/a.mp3", "audio/mpeg"),
	FILE_CASE("ogg", "/t/a.ogg", "t/a.ogg", "audio/ogg"),
	FILE_CASE("mjs", "/t/m.mjs", "t/m.mjs", "text/javascript; charset=utf-8"),
	FILE_CASE("avif", "/t/i.avif", "t/i.avif", "image/avif"),
	FILE_CASE("webmanifest", "/t/s.webmanifest", "t/s.webmanifest",
		  "application/manifest+json"),
	FILE_CASE("csv", "/t/d.csv", "t/d.csv", "text/csv; charset=utf-8"),
	FILE_CASE("source_map", "/t/app.js.map", "t/app.js.map", "application/json"),
	FILE_CASE("zip", "/t/z.zip", "t/z.zip", "application/zip"),
	FILE_CASE("svg", "/t/s.svg", "t/s.svg", "image/svg+xml"),
	FILE_CASE("xml", "/t/x.xml", "t/x.xml", "text/xml; charset=utf-8"),
	FILE_CASE("markdown", "/t/r.md", "t/r.md", "text/markdown; charset=utf-8"),
};

INSTANTIATE_TEST_SUITE_P(Site, SiteTest, testing::ValuesIn(kSiteCases), SiteCaseName);

using SiteDotfilesTest = SiteFixture<true>;
TEST_P(SiteDotfilesTest, GetAndHeadByteExact) { CheckCase(); }

const SiteCase kDotfilesCases[] = {
	FILE_CASE("dotfile", "/.env", ".env", "application/octet-stream"),
	FILE_CASE("dot_directory", "/.git/config", ".git/config", "application/octet-stream"),
	FILE_CASE("dotfile_in_subdirectory", "/sub/.htaccess", "sub/.htaccess",
		  "application/octet-stream"),
	REDIRECT_CASE("dot_directory_itself", "/.git", "/.git/"),
	FILE_CASE("other_files_unchanged", "/sub/", "sub/index.html", kHtml),
};

INSTANTIATE_TEST_SUITE_P(Site, SiteDotfilesTest, testing::ValuesIn(kDotfilesCases),
			 SiteCaseName);

// Pipelined on one connection: a file, a 301 (whose rendering waits for the queue, since
// it shares the connection's one scratch buffer), a HEAD 301, the index it points to, and
// a 400 that keeps the connection; each byte-exact and in order.
TEST_F(SiteExchangeTest, PipelinedRedirectsAnsweredInOrder)
{
	auto keep = [](const std::string &method, const std::string &target) {
		return method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
	};
	std::string requests = keep("GET", "/sub/page.html") + keep("GET", "/sub?p=1") +
			       keep("HEAD", "/sub/deeper") + keep("GET", "/sub%2f") +
			       keep("GET", "/sub/") + CloseRequest("GET", "/empty");
	std::string expected =
		FileResponse(kHtml, "sub/page.html", true, false) +
		RedirectResponse("/sub/?p=1", true, false) +
		RedirectResponse("/sub/deeper/", true, true) +
		"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
		"Content-Length: 12\r\nConnection: keep-alive\r\n\r\nbad request\n" +
		FileResponse(kHtml, "sub/index.html", true, false) +
		RedirectResponse("/empty/", false, false);
	Received r = Roundtrip(port(), requests, false, kTimeoutMs);
	EXPECT_TRUE(r.eof && !r.reset && !r.timed_out) << "no clean EOF";
	EXPECT_EQ(r.bytes, expected);
}

// A 301 moves responses_301 (and no other status counter) and counts a cache miss.
TEST_F(SiteExchangeTest, RedirectCounted)
{
	std::map<std::string, uint64_t> before = FetchMetrics(port());
	Received r = Roundtrip(port(), CloseRequest("GET", "/sub"), false, kTimeoutMs);
	EXPECT_EQ(r.bytes, RedirectResponse("/sub/", false, false));
	std::map<std::string, uint64_t> after = FetchMetrics(port());
	EXPECT_EQ(after["responses_301"] - before["responses_301"], 1u);
	EXPECT_EQ(after["responses_200"] - before["responses_200"], 1u) << "the first /metrics";
	EXPECT_EQ(after["cache_misses"] - before["cache_misses"], 1u);
	EXPECT_EQ(after["requests_total"] - before["requests_total"], 2u);
}

// The ecosystem cases replayed with a real client: curl fetches each URL (following
// redirects where a browser would) and reports status, type, final URL and body.
struct CurlCase {
	std::string label;
	std::string target;
	bool follow;            // curl -L
	std::string want;       // "<status> <Content-Type> <final path>"
	std::string body;       // the body curl must end with (decoded, with --compressed)
	std::vector<std::string> args = {}; // more curl arguments
	std::string encoding = "";          // the Content-Encoding curl must see
	int port = 0;                       // the daemon asked; 0: the site server
};

// Long targets: a file's with a long query, a directory's (its 301 keeps the query).
const std::string kLongQuery8000 = "/t/g.css?q=" + std::string(8000 - 11, 'x');
// The directory's target is 7,999 bytes: its Location, one '/' longer, is 8,000 (an
// 8,000-byte one would lead to 8,001 bytes: 414).
const std::string kLongSub7999 = "/sub?q=" + std::string(7999 - 7, 'y');

TEST_F(SiteExchangeTest, CurlReplaysTheEcosystemCases)
{
	const std::string base = "http://127.0.0.1:" + std::to_string(port());
	// The same tree with an error page, and with a fallback (BEHAVIOUR 10.12).
	Daemon error_page, fallback;
	DaemonOptions options;
	options.extra_args = {"--root", site_dir, "--error-page", "404=/sub/page.html"};
	START_DAEMON(error_page, options);
	options.extra_args = {"--root", site_dir, "--fallback", "/index.html"};
	START_DAEMON(fallback, options);
	const CurlCase cases[] = {
		{"index", "/", false, "200 text/html; charset=utf-8 /", Body("index.html")},
		{"redirect_seen", "/sub", false, "301 text/plain; charset=utf-8 /sub",
		 "moved permanently\n"},
		{"redirect_followed", "/sub?x=1", true, "200 text/html; charset=utf-8 /sub/?x=1",
		 Body("sub/index.html")},
		{"decoded_name", "/caf%C3%A9.txt", false, "200 text/plain; charset=utf-8 /caf%C3%A9.txt",
		 Body("caf\xc3\xa9.txt")},
		{"font_type", "/t/f.woff2", false, "200 font/woff2 /t/f.woff2", Body("t/f.woff2")},
		{"video_type", "/t/v.mp4", false, "200 video/mp4 /t/v.mp4", Body("t/v.mp4")},
		{"dotfile_hidden", "/.env", false, "404 text/plain; charset=utf-8 /.env", "not found\n"},
		{"encoded_slash_refused", "/sub%2Fpage.html", false,
		 "400 text/plain; charset=utf-8 /sub%2Fpage.html", "bad request\n"},
		{"not_modified_any", "/t/g.css", false, "304  /t/g.css", "", {"-H", "If-None-Match: *"}},
		{"not_modified_since_now", "/t/g.css", false, "304  /t/g.css", "",
		 {"-z", HttpDate(time(nullptr))}},
		{"range", "/t/g.css", false, "206 text/css; charset=utf-8 /t/g.css", "dy {",
		 {"-r", "2-5"}},
		{"range_outside", "/t/g.css", false, "416 text/plain; charset=utf-8 /t/g.css",
		 "range not satisfiable\n", {"-r", "100-"}},
		{"gzip_variant_decoded", "/t/g.css", false, "200 text/css; charset=utf-8 /t/g.css",
		 Body("t/g.css"), {"--compressed"}, "gzip"},
		{"gzip_refused", "/t/g.css", false, "200 text/css; charset=utf-8 /t/g.css",
		 Body("t/g.css"), {"-H", "Accept-Encoding: gzip;q=0, br"}},
		// Long targets (BEHAVIOUR 6.1): 8,000 bytes served, followed; 8,001 is 414.
		{"target_8000_query", kLongQuery8000, false,
		 "200 text/css; charset=utf-8 " + kLongQuery8000, Body("t/g.css")},
		{"target_7999_redirect_followed_to_8000", kLongSub7999, true,
		 "200 text/html; charset=utf-8 /sub/" + kLongSub7999.substr(4), Body("sub/index.html")},
		{"target_8001_uri_too_long", kLongQuery8000 + "x", false,
		 "414 text/plain; charset=utf-8 " + kLongQuery8000 + "x", "uri too long\n"},
		{"well_known", "/.well-known/security.txt", false,
		 "200 text/plain; charset=utf-8 /.well-known/security.txt",
		 Body(".well-known/security.txt")},
		{"well_known_dot_name_hidden", "/.well-known/.hidden", false,
		 "404 text/plain; charset=utf-8 /.well-known/.hidden", "not found\n"},
		{"error_page", "/no/such/page", false, "404 text/html; charset=utf-8 /no/such/page",
		 Body("sub/page.html"), {}, "", error_page.port()},
		{"error_page_for_a_dotfile", "/.env", false, "404 text/html; charset=utf-8 /.env",
		 Body("sub/page.html"), {}, "", error_page.port()},
		{"fallback", "/app/settings?tab=2", false,
		 "200 text/html; charset=utf-8 /app/settings?tab=2", Body("index.html"), {}, "",
		 fallback.port()},
		{"fallback_real_file_wins", "/sub/page.html", false,
		 "200 text/html; charset=utf-8 /sub/page.html", Body("sub/page.html"), {}, "",
		 fallback.port()},
		{"fallback_revalidated", "/app/x", false, "304  /app/x", "",
		 {"-H", "If-None-Match: *"}, "", fallback.port()},
		{"vtt_type", "/t/c.vtt", false, "200 text/vtt; charset=utf-8 /t/c.vtt", Body("t/c.vtt")},
		{"glb_type", "/t/m.glb", false, "200 model/gltf-binary /t/m.glb", Body("t/m.glb")},
		{"flac_type", "/t/a.flac", false, "200 audio/flac /t/a.flac", Body("t/a.flac")},
		{"yaml_type", "/t/c.yaml", false, "200 application/yaml /t/c.yaml", Body("t/c.yaml")},
	};
	for (const CurlCase &c : cases) {
		SCOPED_TRACE(c.label);
		const std::string here = c.port ? "http://127.0.0.1:" + std::to_string(c.port) : base;
		std::vector<std::string> argv = {
			"curl", "-sS", "--max-time", "10", "--path-as-is", "-w",
			"\n%{http_code} %{content_type} %{url_effective} %header{content-encoding}"};
		if (c.follow)
			argv.push_back("-L");
		argv.insert(argv.end(), c.args.begin(), c.args.end());
		argv.push_back(here + c.target);
		CommandResult r = RunCommand(argv, "", kTimeoutMs);
		ASSERT_TRUE(r.ran) << r.problem;
		ASSERT_EQ(r.exit_code, 0) << r.err;
		size_t nl = r.out.rfind('\n');
		ASSERT_NE(nl, std::string::npos) << r.out;
		std::string summary = r.out.substr(nl + 1);
		size_t at = summary.find(here); // the final URL, shown as its path
		ASSERT_NE(at, std::string::npos) << summary;
		summary.erase(at, here.size());
		EXPECT_EQ(summary, c.want + " " + c.encoding);
		EXPECT_EQ(r.out.substr(0, nl), c.body);
	}
}

// curl's own validator round trip: --etag-save keeps the ETag of a 200, --etag-compare
// sends it back as If-None-Match and gets a 304 with no body.
TEST_F(SiteExchangeTest, CurlEtagRoundTrip)
{
	const std::string url = "http://127.0.0.1:" + std::to_string(port()) + "/t/g.css";
	const std::string etag_file = site_dir + "/curl-etag"; // written after the load: not served
	std::vector<std::string> curl = {"curl", "-sS", "--max-time", "10", "-o", "/dev/null",
					 "-w", "%{http_code}"};
	std::vector<std::string> save = curl, compare = curl;
	save.insert(save.end(), {"--etag-save", etag_file, url});
	compare.insert(compare.end(), {"--etag-compare", etag_file, url});
	CommandResult first = RunCommand(save, "", kTimeoutMs);
	CommandResult second = RunCommand(compare, "", kTimeoutMs);
	unlink(etag_file.c_str());
	EXPECT_EQ(first.out, "200") << first.err;
	EXPECT_EQ(second.out, "304") << second.err;
}

} // namespace
} // namespace wire
