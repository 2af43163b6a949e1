// gzip representations made at load (BEHAVIOUR 10.10, --compress): a compressible file
// gets one that inflates (test/inflate.h) to exactly its bytes, with its own ETag, Vary, a
// 304 and byte-exact ranges over the gzip bytes; an X.gz beside the file wins; a small,
// incompressible or non-text file, and every file with --compress off, is sent as
// stored; DIR gains no file. responses_compressed and compressed_bytes_saved count a GET's
// 200 of a coded body, generated or beside (BEHAVIOUR 7), and the access log's last field
// is the response's Content-Encoding (BEHAVIOUR 14).
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test/inflate.h"
#include "test/wire/wire_harness.h"

namespace wire {
namespace {

std::string ReadAll(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	std::stringstream s;
	s << f.rdbuf();
	return s.str();
}

std::string Noise(size_t n)
{
	std::mt19937 rng(29);
	std::string s(n, '\0');
	for (auto &c : s)
		c = static_cast<char>(rng());
	return s;
}

// Real text the bootstrap installs (bazel-bootstrap, matplotlib).
const char kHtml[] = "/usr/share/doc/bazel-bootstrap/site/docs/build-ref.html";
const char kJs[] = "/usr/lib/python3/dist-packages/matplotlib/backends/web_backend/js/mpl.js";

// Names and sizes (and mtimes) of every entry under dir, recursively.
std::map<std::string, std::string> Listing(const std::string &dir)
{
	std::map<std::string, std::string> out;
	DIR *d = opendir(dir.c_str());
	for (struct dirent *e; d && (e = readdir(d));) {
		std::string name = e->d_name, path = dir + "/" + name;
		struct stat st;
		if (name == "." || name == ".." || lstat(path.c_str(), &st) != 0)
			continue;
		out[path] = std::to_string(st.st_size) + " " + std::to_string(st.st_mtime);
		if (S_ISDIR(st.st_mode))
			for (const auto &kv : Listing(path))
				out.insert(kv);
	}
	if (d)
		closedir(d);
	return out;
}

class CompressTest : public testing::Test {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("compress");
		html_ = ReadAll(kHtml);
		js_ = ReadAll(kJs);
		ASSERT_GT(html_.size(), 4096u) << kHtml << ": run scripts/bootstrap.sh";
		ASSERT_GT(js_.size(), 4096u) << kJs << ": run scripts/bootstrap.sh";
		root_.reset(new FileRoot({{"page.html", html_},
					  {"js/app.js", js_},
					  {"small.css", std::string(255, 'a')},
					  {"noise.txt", Noise(65536)},
					  {"image.png", html_},
					  {"style.css", html_},
					  {"style.css.gz", "the gzip beside it"},
					  {"short.txt", std::string(300, 's')},
					  {"short.txt.gz", std::string(400, 'z')}}));
		ASSERT_NE(root_->dir(), "");
		before_ = Listing(root_->dir());
	}
	void Start(const std::vector<std::string> &extra = {})
	{
		std::vector<std::string> args = {"--root", root_->dir()};
		args.insert(args.end(), extra.begin(), extra.end());
		START_DAEMON(daemon_, DaemonOptions{args});
	}
	HttpResponse Get(const std::string &target, const std::string &fields,
			 const std::string &method = "GET")
	{
		std::string request = method + " " + target + " HTTP/1.1\r\nHost: h\r\n" + fields +
				      "Connection: close\r\n\r\n";
		return ParseResponse(Roundtrip(daemon_.port(), request, false, kTimeoutMs).bytes);
	}
	// The ETag of rel's own bytes with "-gz7" inside the quotes.
	std::string GzipEtag(const std::string &rel) const
	{
		std::string e = ValidatorsOf(root_->dir() + "/" + rel).etag;
		return e.substr(0, e.size() - 1) + "-gz7\"";
	}
	// Checks r is rel's generated gzip, inflating to body; returns its bytes.
	std::string ExpectGzip(const HttpResponse &r, const std::string &rel, const std::string &body)
	{
		EXPECT_EQ(r.status, 200) << rel;
		EXPECT_EQ(r.Header("Content-Encoding"), "gzip") << rel;
		EXPECT_EQ(r.Header("Vary"), "Accept-Encoding") << rel;
		EXPECT_EQ(r.Header("ETag"), GzipEtag(rel)) << rel;
		EXPECT_EQ(r.Header("Content-Length"), std::to_string(r.body.size())) << rel;
		EXPECT_LE(r.body.size() * 20, body.size() * 19) << rel << ": saves 5% or more";
		std::string back;
		EXPECT_TRUE(InflateGzip(r.body.data(), r.body.size(), body.size(), &back)) << rel;
		EXPECT_TRUE(back == body) << rel << ": inflates to its bytes";
		return r.body;
	}
	static constexpr int kTimeoutMs = 5000;
	std::unique_ptr<FileRoot> root_;
	std::map<std::string, std::string> before_;
	std::string html_, js_;
	Daemon daemon_;
};

TEST_F(CompressTest, TextFilesGetAGzipThatInflatesToTheirBytes)
{
	Start();
	ExpectGzip(Get("/page.html", "Accept-Encoding: gzip, deflate, br\r\n"), "page.html", html_);
	ExpectGzip(Get("/js/app.js", "Accept-Encoding: gzip\r\n"), "js/app.js", js_);
	HttpResponse id = Get("/page.html", "");
	EXPECT_EQ(id.body, html_) << "no Accept-Encoding: identity";
	EXPECT_EQ(id.Header("Vary"), "Accept-Encoding") << "identity of a file with a variant";
	EXPECT_EQ(id.Header("Content-Encoding", nullptr), "");
	EXPECT_EQ(Get("/page.html", "Accept-Encoding: gzip;q=0, br\r\n").body, html_);
}

TEST_F(CompressTest, SmallIncompressibleAndOtherTypesAreSentAsStored)
{
	Start();
	for (const char *rel : {"small.css", "noise.txt", "image.png"}) {
		HttpResponse r = Get(std::string("/") + rel, "Accept-Encoding: gzip\r\n");
		int count = -1;
		EXPECT_EQ(r.status, 200) << rel;
		r.Header("Content-Encoding", &count);
		EXPECT_EQ(count, 0) << rel;
		r.Header("Vary", &count);
		EXPECT_EQ(count, 0) << rel << ": no variant, no Vary";
		EXPECT_EQ(r.body, ReadAll(root_->dir() + "/" + rel)) << rel;
	}
}

TEST_F(CompressTest, AGzipBesideTheFileWins)
{
	Start();
	HttpResponse r = Get("/style.css", "Accept-Encoding: gzip\r\n");
	EXPECT_EQ(r.Header("Content-Encoding"), "gzip");
	EXPECT_EQ(r.body, "the gzip beside it");
}

TEST_F(CompressTest, RangesHeadAnd304AreOverTheGzipBytes)
{
	Start();
	const std::string ae = "Accept-Encoding: gzip\r\n";
	std::string gz = ExpectGzip(Get("/page.html", ae), "page.html", html_);
	ASSERT_GT(gz.size(), 100u);
	HttpResponse part = Get("/page.html", ae + "Range: bytes=10-99\r\n");
	EXPECT_EQ(part.status, 206);
	EXPECT_EQ(part.Header("Content-Encoding"), "gzip");
	EXPECT_EQ(part.Header("Content-Range"),
		  "bytes 10-99/" + std::to_string(gz.size()));
	EXPECT_EQ(part.body, gz.substr(10, 90)) << "byte-exact against the gzip bytes";
	HttpResponse tail = Get("/page.html", ae + "Range: bytes=-7\r\n");
	EXPECT_EQ(tail.body, gz.substr(gz.size() - 7));
	HttpResponse head = Get("/page.html", ae, "HEAD");
	EXPECT_EQ(head.Header("Content-Length"), std::to_string(gz.size()));
	EXPECT_EQ(head.Header("ETag"), GzipEtag("page.html"));
	EXPECT_EQ(head.body, "");
	HttpResponse not_modified = Get("/page.html", ae + "If-None-Match: " + GzipEtag("page.html") + "\r\n");
	EXPECT_EQ(not_modified.status, 304);
	EXPECT_EQ(Get("/page.html", "If-None-Match: " + GzipEtag("page.html") + "\r\n").status, 200)
		<< "identity's ETag is another";
}

TEST_F(CompressTest, OffSendsEveryFileAsStored)
{
	Start({"--compress", "off"});
	HttpResponse r = Get("/page.html", "Accept-Encoding: gzip\r\n");
	int count = -1;
	r.Header("Content-Encoding", &count);
	EXPECT_EQ(count, 0);
	r.Header("Vary", &count);
	EXPECT_EQ(count, 0);
	EXPECT_EQ(r.body, html_);
}

TEST_F(CompressTest, ALevelNamesItsETag)
{
	Start({"--compress-level", "1"});
	HttpResponse r = Get("/page.html", "Accept-Encoding: gzip\r\n");
	std::string e = ValidatorsOf(root_->dir() + "/page.html").etag;
	EXPECT_EQ(r.Header("ETag"), e.substr(0, e.size() - 1) + "-gz1\"");
	std::string back;
	EXPECT_TRUE(InflateGzip(r.body.data(), r.body.size(), html_.size(), &back));
	EXPECT_TRUE(back == html_);
}

// Each request's effect on the two counters and its log line's last field: a GET's 200 of
// a coded body counts (a generated gzip, a gzip beside the file, one beside it that is no
// smaller: saves 0); a HEAD, a 206, a 304 and identity do not; the log names the
// Content-Encoding the response carries (206 and HEAD too) or "-".
TEST_F(CompressTest, CountersAndTheLogNameTheCoding)
{
	const char *tmp = getenv("TEST_TMPDIR");
	std::string log = std::string(tmp ? tmp : "/tmp") + "/compress_log.XXXXXX";
	ASSERT_NE(mkdtemp(log.data()), nullptr);
	log += "/access.log";
	Start({"--access-log", log});
	const std::string gz = ExpectGzip(Get("/page.html", "Accept-Encoding: gzip\r\n"),
					  "page.html", html_);
	const std::map<std::string, uint64_t> before = FetchMetrics(daemon_.port());
	const struct {
		std::string target, fields, method;
		int status;
		uint64_t compressed, saved; // the counters' steps
		const char *coding;         // the log line's last field
	} steps[] = {
		{"/page.html", "Accept-Encoding: gzip\r\n", "GET", 200, 1, html_.size() - gz.size(), "gzip"},
		{"/page.html", "Accept-Encoding: gzip\r\n", "HEAD", 200, 0, 0, "gzip"},
		{"/page.html", "Accept-Encoding: gzip\r\nRange: bytes=0-9\r\n", "GET", 206, 0, 0, "gzip"},
		{"/page.html", "Accept-Encoding: gzip\r\nIf-None-Match: " + GzipEtag("page.html") + "\r\n",
		 "GET", 304, 0, 0, "-"},
		{"/page.html", "", "GET", 200, 0, 0, "-"},
		{"/style.css", "Accept-Encoding: gzip\r\n", "GET", 200, 1,
		 html_.size() - (sizeof("the gzip beside it") - 1), "gzip"},
		{"/short.txt", "Accept-Encoding: gzip\r\n", "GET", 200, 1, 0, "gzip"},
	};
	uint64_t compressed = 0, saved = 0;
	for (const auto &s : steps) {
		EXPECT_EQ(Get(s.target, s.fields, s.method).status, s.status) << s.target << s.fields;
		compressed += s.compressed;
		saved += s.saved;
	}
	std::map<std::string, uint64_t> after = FetchMetrics(daemon_.port());
	EXPECT_EQ(after["responses_compressed"] - before.at("responses_compressed"), compressed);
	EXPECT_EQ(after["compressed_bytes_saved"] - before.at("compressed_bytes_saved"), saved);
	// The first GET's line, the scrape's, then one per step (and the last scrape's, maybe).
	const size_t want = 2 + std::size(steps);
	std::vector<std::string> lines;
	WaitUntil([&] {
		std::istringstream in(ReadAll(log));
		lines.clear();
		for (std::string line; std::getline(in, line);)
			lines.push_back(line);
		return lines.size() >= want;
	});
	ASSERT_GE(lines.size(), want);
	EXPECT_EQ(lines[0].substr(lines[0].rfind(' ')), " gzip") << lines[0];
	for (size_t i = 0; i < std::size(steps); i++) {
		const std::string &line = lines[2 + i];
		EXPECT_EQ(line.substr(line.rfind(' ') + 1), steps[i].coding) << line;
	}
}

// With --cache-bytes 0 every file is served from disk (BEHAVIOUR 10.18) and none is
// compressed at load; the X.gz beside X still counts as a compressed response, saving X's
// size less its own.
TEST_F(CompressTest, AGzipBesideServedFromDiskCounts)
{
	Start({"--cache-bytes", "0"});
	const std::map<std::string, uint64_t> before = FetchMetrics(daemon_.port());
	HttpResponse r = Get("/style.css", "Accept-Encoding: gzip\r\n");
	EXPECT_EQ(r.Header("Content-Encoding"), "gzip");
	EXPECT_EQ(r.body, "the gzip beside it");
	int count = -1;
	Get("/page.html", "Accept-Encoding: gzip\r\n").Header("Content-Encoding", &count);
	EXPECT_EQ(count, 0) << "nothing compressed without a snapshot";
	std::map<std::string, uint64_t> after = FetchMetrics(daemon_.port());
	EXPECT_EQ(after["responses_from_disk"] - before.at("responses_from_disk"), 2u);
	EXPECT_EQ(after["responses_compressed"] - before.at("responses_compressed"), 1u);
	EXPECT_EQ(after["compressed_bytes_saved"] - before.at("compressed_bytes_saved"),
		  html_.size() - (sizeof("the gzip beside it") - 1));
	EXPECT_EQ(after["gzip_representations"], 0u);
}

TEST_F(CompressTest, TheRootGainsNoFile)
{
	Start();
	ExpectGzip(Get("/page.html", "Accept-Encoding: gzip\r\n"), "page.html", html_);
	EXPECT_EQ(Listing(root_->dir()), before_);
}

} // namespace
} // namespace wire
