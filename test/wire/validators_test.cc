// --root's validators, 304, ranges and precompressed variants (feature `files`, BEHAVIOUR
// 10.8 to 10.10), byte for byte over the wire: Last-Modified, ETag and Accept-Ranges on
// every 200; If-None-Match (exact, list, "*", weak) before If-Modified-Since (before,
// equal, after, not a date); 206 for a-b, a-, -n and b past the end; 416; If-Range by
// ETag and by date; several ranges and bad syntax served whole; HEAD of each; the
// counters; one write per 304; X.br and X.gz chosen by Accept-Encoding (q-values, q=0,
// *), with Content-Encoding, Vary and distinct ETags, and their 304 and 206.
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

#include <map>
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kTimeoutMs = 10000;
constexpr char kText[] = "text/plain; charset=utf-8";
constexpr time_t kMtime = 784111777; // Sun, 06 Nov 1994 08:49:37 GMT
constexpr long kMtimeNs = 123456789;
constexpr char kLastModified[] = "Sun, 06 Nov 1994 08:49:37 GMT";

// The body of f.txt: 100 distinct-enough bytes, so every slice names its offsets.
std::string Body()
{
	std::string b;
	for (int i = 0; i < 10; i++)
		b += std::to_string(i) + "abcdefghi";
	return b;
}

// A request for /f.txt with extra field lines (each ending in CRLF), Connection: close.
std::string Ask(const std::string &method, const std::string &fields)
{
	return method + " /f.txt HTTP/1.1\r\nHost: 127.0.0.1\r\n" + fields +
	       "Connection: close\r\n\r\n";
}

// The counters of a /metrics response, by name (empty when it does not parse).
std::map<std::string, uint64_t> CountersIn(const std::string &response)
{
	Counters list;
	std::map<std::string, uint64_t> by_name;
	if (ParseMetricsBody(ParseResponse(response).body, &list, nullptr))
		by_name.insert(list.begin(), list.end());
	return by_name;
}

class ValidatorsTest : public testing::Test {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("files");
		ASSERT_NE(site_.path(), "");
		path_ = site_.path() + "/f.txt";
		// A known mtime, so that dates before and after it are fixed strings.
		struct timespec times[2] = {{kMtime, kMtimeNs}, {kMtime, kMtimeNs}};
		ASSERT_EQ(utimensat(AT_FDCWD, path_.c_str(), times, 0), 0);
		v_ = ValidatorsOf(path_);
		ASSERT_EQ(v_.last_modified, kLastModified);
		START_DAEMON(daemon_, DaemonOptions{{"--root", site_.path()}});
	}

	// The exact responses, Connection: close, without their Date line.
	std::string Full(bool head_only) const
	{
		return FileHead(kText, Body().size(), path_, false) + (head_only ? "" : Body());
	}
	std::string NotModified() const
	{
		return "HTTP/1.1 304 Not Modified\r\nLast-Modified: " + v_.last_modified +
		       "\r\nETag: " + v_.etag + "\r\nConnection: close\r\n\r\n";
	}
	std::string Partial(size_t first, size_t last) const
	{
		return "HTTP/1.1 206 Partial Content\r\nContent-Type: " + std::string(kText) +
		       "\r\nContent-Length: " + std::to_string(last - first + 1) +
		       "\r\nContent-Range: bytes " + std::to_string(first) + "-" +
		       std::to_string(last) + "/" + std::to_string(Body().size()) + "\r\n" +
		       FileFields(v_) + "Connection: close\r\n\r\n" +
		       Body().substr(first, last - first + 1);
	}
	std::string Unsatisfiable() const
	{
		return "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Type: " + std::string(kText) +
		       "\r\nContent-Length: 22\r\nContent-Range: bytes */" +
		       std::to_string(Body().size()) +
		       "\r\nConnection: close\r\n\r\nrange not satisfiable\n";
	}

	// Sends request on its own connection; every byte until EOF, exactly one Date line.
	void Expect(const std::string &label, const std::string &request, const std::string &want)
	{
		Received r = Roundtrip(daemon_.port(), request, false, kTimeoutMs);
		EXPECT_TRUE(r.eof && !r.reset && !r.timed_out) << label << ": no clean EOF";
		EXPECT_EQ(r.bytes, want) << label;
		EXPECT_EQ(r.dates, 1u) << label;
	}

	SmallSite site_{Body()};
	std::string path_;
	FileValidators v_;
	Daemon daemon_;
};

TEST_F(ValidatorsTest, EveryFileResponseCarriesValidators)
{
	Expect("GET", Ask("GET", ""), Full(false));
	Expect("HEAD", Ask("HEAD", ""), Full(true));
	HttpResponse r = ParseResponse(Roundtrip(daemon_.port(), Ask("GET", "")).bytes);
	EXPECT_EQ(r.Header("Last-Modified"), kLastModified);
	EXPECT_EQ(r.Header("ETag").front(), '"') << "a strong ETag";
	EXPECT_EQ(r.Header("Accept-Ranges"), "bytes");
}

TEST_F(ValidatorsTest, ConditionalRequests)
{
	const std::string e = v_.etag;
	const std::string other = "\"" + std::string(e.begin() + 1, e.end() - 1) + "0\"";
	const struct {
		const char *label;
		std::string fields;
		bool modified;
	} cases[] = {
		{"INM exact", "If-None-Match: " + e + "\r\n", false},
		{"INM in a list", "If-None-Match: \"x\", " + e + " , \"y\"\r\n", false},
		{"INM on a second line", "If-None-Match: \"x\"\r\nIf-None-Match: " + e + "\r\n", false},
		{"INM star", "If-None-Match: *\r\n", false},
		{"INM weak comparison", "If-None-Match: W/" + e + "\r\n", false},
		{"INM another tag", "If-None-Match: " + other + "\r\n", true},
		{"INM mismatch beats a matching IMS",
		 "If-None-Match: " + other + "\r\nIf-Modified-Since: " + kLastModified + "\r\n", true},
		{"INM match beats an older IMS",
		 "If-Modified-Since: Thu, 01 Jan 1970 00:00:00 GMT\r\nIf-None-Match: " + e + "\r\n",
		 false},
		{"IMS equal", std::string("If-Modified-Since: ") + kLastModified + "\r\n", false},
		{"IMS after", "If-Modified-Since: Mon, 07 Nov 1994 00:00:00 GMT\r\n", false},
		{"IMS rfc850", "If-Modified-Since: Sunday, 06-Nov-94 08:49:37 GMT\r\n", false},
		{"IMS asctime", "If-Modified-Since: Sun Nov  6 08:49:37 1994\r\n", false},
		{"IMS one second before", "If-Modified-Since: Sun, 06 Nov 1994 08:49:36 GMT\r\n", true},
		{"IMS not a date", "If-Modified-Since: yesterday\r\n", true},
		{"IMS with a trailing byte", std::string("If-Modified-Since: ") + kLastModified +
						     "x\r\n", true},
		{"IMS in the future", "If-Modified-Since: Fri, 31 Dec 9999 23:59:59 GMT\r\n", true},
	};
	for (const auto &c : cases) {
		for (const char *method : {"GET", "HEAD"}) {
			bool head = method[0] == 'H';
			Expect(std::string(c.label) + " " + method, Ask(method, c.fields),
			       c.modified ? Full(head) : NotModified());
		}
	}
}

TEST_F(ValidatorsTest, Ranges)
{
	const struct {
		const char *label;
		std::string range;
		long first, last; // -1: 416; -2: the whole file (200)
	} cases[] = {
		{"a-b", "bytes=0-9", 0, 9},
		{"one byte", "bytes=42-42", 42, 42},
		{"a-", "bytes=90-", 90, 99},
		{"-n", "bytes=-5", 95, 99},
		{"b past the end", "bytes=95-1000", 95, 99},
		{"-n past the start", "bytes=-1000", 0, 99},
		{"unit in capitals", "BYTES=1-2", 1, 2},
		{"a at the end", "bytes=100-", -1, -1},
		{"-0", "bytes=-0", -1, -1},
		{"several ranges", "bytes=0-1,5-6", -2, -2},
		{"b before a", "bytes=9-0", -2, -2},
		{"another unit", "lines=0-9", -2, -2},
		{"not a range", "bytes=x", -2, -2},
	};
	for (const auto &c : cases) {
		std::string want = c.first == -1   ? Unsatisfiable()
				   : c.first == -2 ? Full(false)
						   : Partial(c.first, c.last);
		Expect(c.label, Ask("GET", "Range: " + c.range + "\r\n"), want);
		// Range is GET's only (RFC 9110 14.2): HEAD gets the 200's head.
		Expect(std::string(c.label) + " HEAD", Ask("HEAD", "Range: " + c.range + "\r\n"),
		       Full(true));
	}
}

TEST_F(ValidatorsTest, IfRange)
{
	const std::string range = "Range: bytes=10-19\r\n";
	Expect("ETag holds", Ask("GET", range + "If-Range: " + v_.etag + "\r\n"), Partial(10, 19));
	Expect("date holds", Ask("GET", range + "If-Range: " + kLastModified + "\r\n"),
	       Partial(10, 19));
	Expect("another ETag", Ask("GET", range + "If-Range: \"x\"\r\n"), Full(false));
	Expect("a weak ETag never holds", Ask("GET", range + "If-Range: W/" + v_.etag + "\r\n"),
	       Full(false));
	Expect("another date",
	       Ask("GET", range + "If-Range: Mon, 07 Nov 1994 00:00:00 GMT\r\n"), Full(false));
	Expect("If-Range fails before a 416",
	       Ask("GET", "Range: bytes=500-\r\nIf-Range: \"x\"\r\n"), Full(false));
	Expect("a 304 comes before the range",
	       Ask("GET", range + "If-None-Match: " + v_.etag + "\r\n"), NotModified());
}

// A field sent on several lines (BEHAVIOUR 10.8-10.9): every If-None-Match line is read,
// and only the first If-Modified-Since, Range and If-Range line counts; an If-None-Match
// line, even empty, keeps If-Modified-Since from being read. Names in any case.
TEST_F(ValidatorsTest, RepeatedFields)
{
	const std::string e = v_.etag, ims = std::string("If-Modified-Since: ") + kLastModified;
	const std::string older = "If-Modified-Since: Sun, 06 Nov 1994 08:49:36 GMT";
	const struct {
		const char *label;
		std::string fields;
		std::string want;
	} cases[] = {
		{"INM: a malformed line makes the field invalid, a match on the third line too",
		 "If-None-Match: x\r\nif-none-match: \"y\"\r\nIF-NONE-MATCH: " + e + "\r\n",
		 Full(false)},
		{"INM: a match on the third line", "If-None-Match: \"x\"\r\nif-none-match: \"y\"\r\n"
		 "IF-NONE-MATCH: " + e + "\r\n", NotModified()},
		{"INM: an empty line still outranks IMS", "If-None-Match:\r\n" + ims + "\r\n", Full(false)},
		{"IMS: the first line counts, not a later match", older + "\r\n" + ims + "\r\n",
		 Full(false)},
		{"IMS: the first line counts", ims + "\r\n" + older + "\r\n", NotModified()},
		{"Range: the first line counts", "Range: bytes=0-9\r\nrange: bytes=20-29\r\n",
		 Partial(0, 9)},
		{"Range: a bad first line is not made up for", "Range: lines=0-9\r\nRange: bytes=0-9\r\n",
		 Full(false)},
		{"If-Range: the first line counts, not a later match",
		 "Range: bytes=0-9\r\nIf-Range: \"x\"\r\nIf-Range: " + e + "\r\n",
		 Full(false)},
		{"If-Range: the first line counts",
		 "Range: bytes=0-9\r\nIF-RANGE: " + e + "\r\nIf-Range: \"x\"\r\n",
		 Partial(0, 9)},
		{"If-Range: an empty line never holds", "Range: bytes=0-9\r\nIf-Range:\r\n", Full(false)},
	};
	for (const auto &c : cases)
		Expect(c.label, Ask("GET", c.fields), c.want);
}

// Pipelined on one connection: 206s, a 304 and a 416 render into the connection's scratch
// buffer, so each waits for the queue before it; all come back in order, byte-exact.
TEST_F(ValidatorsTest, PipelinedAnsweredInOrder)
{
	auto keep = [](const std::string &fields) {
		return "GET /f.txt HTTP/1.1\r\nHost: 127.0.0.1\r\n" + fields + "\r\n";
	};
	auto keep_alive = [](std::string close_form) {
		const std::string from = "Connection: close", to = "Connection: keep-alive";
		return close_form.replace(close_form.find(from), from.size(), to);
	};
	std::string requests = keep("Range: bytes=0-3\r\n") + keep("Range: bytes=-3\r\n") +
			       keep("If-None-Match: *\r\n") + keep("Range: bytes=200-\r\n") +
			       keep("") + Ask("GET", "Range: bytes=4-7\r\n");
	std::string want = keep_alive(Partial(0, 3)) + keep_alive(Partial(97, 99)) +
			   keep_alive(NotModified()) + keep_alive(Unsatisfiable()) +
			   keep_alive(Full(false)) + Partial(4, 7);
	Received r = Roundtrip(daemon_.port(), requests, false, kTimeoutMs);
	EXPECT_TRUE(r.eof && !r.reset && !r.timed_out) << "no clean EOF";
	EXPECT_EQ(r.bytes, want);
	EXPECT_EQ(r.dates, 6u);
}

// Each answer moves its own status counter and counts as a hit; requests_total follows.
TEST_F(ValidatorsTest, Counters)
{
	std::map<std::string, uint64_t> before = FetchMetrics(daemon_.port());
	Roundtrip(daemon_.port(), Ask("GET", "If-None-Match: *\r\n"));
	Roundtrip(daemon_.port(), Ask("HEAD", "If-None-Match: *\r\n"));
	Roundtrip(daemon_.port(), Ask("GET", "Range: bytes=0-0\r\n"));
	Roundtrip(daemon_.port(), Ask("GET", "Range: bytes=100-\r\n"));
	std::map<std::string, uint64_t> after = FetchMetrics(daemon_.port());
	EXPECT_EQ(after["responses_304"] - before["responses_304"], 2u);
	EXPECT_EQ(after["responses_206"] - before["responses_206"], 1u);
	EXPECT_EQ(after["responses_416"] - before["responses_416"], 1u);
	EXPECT_EQ(after["responses_200"] - before["responses_200"], 1u) << "the /metrics before";
	EXPECT_EQ(after["cache_hits"] - before["cache_hits"], 4u);
	EXPECT_EQ(after["requests_total"] - before["requests_total"], 5u);
}

// A 304 and a 206 each leave in one write: a client that reads each answer before its
// next request sees Δresponse_syscalls = the requests (plus the first /metrics, whose
// write lands inside the window: its body is rendered before its own write is counted).
TEST_F(ValidatorsTest, NotModifiedAndPartialLeaveInOneWrite)
{
	constexpr int kRequests = 8;
	Client c(daemon_.port());
	ASSERT_TRUE(c.connected());
	const std::string metrics = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	ASSERT_TRUE(c.Send(metrics));
	std::map<std::string, uint64_t> before = CountersIn(c.TakeResponse());
	ASSERT_FALSE(before.empty());
	std::string not_modified = NotModified();
	not_modified.replace(not_modified.find("close"), 5, "keep-alive");
	for (int i = 0; i < kRequests; i++) {
		ASSERT_TRUE(c.Send("GET /f.txt HTTP/1.1\r\nHost: x\r\nIf-None-Match: " + v_.etag +
				   "\r\n\r\n"));
		EXPECT_EQ(c.TakeResponse(true), not_modified) << "request " << i;
	}
	std::string partial = Partial(10, 59);
	partial.replace(partial.find("close"), 5, "keep-alive");
	for (int i = 0; i < kRequests; i++) {
		ASSERT_TRUE(c.Send("GET /f.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=10-59\r\n\r\n"));
		EXPECT_EQ(c.TakeResponse(), partial) << "range request " << i;
	}
	ASSERT_TRUE(c.Send(metrics));
	std::map<std::string, uint64_t> after = CountersIn(c.TakeResponse());
	ASSERT_FALSE(after.empty());
	EXPECT_EQ(after["responses_304"] - before["responses_304"], (uint64_t)kRequests);
	EXPECT_EQ(after["responses_206"] - before["responses_206"], (uint64_t)kRequests);
	EXPECT_EQ(after["response_syscalls"] - before["response_syscalls"],
		  2 * (uint64_t)kRequests + 1);
}

// An mtime in the future is served as the load time (RFC 9110 8.8.2.1): never after Date.
TEST(ValidatorsFutureTest, LastModifiedIsNeverAfterTheLoad)
{
	REQUIRE_FEATURE("files");
	SmallSite site("future\n");
	ASSERT_NE(site.path(), "");
	const std::string path = site.path() + "/f.txt";
	struct timespec times[2] = {{4102444800, 0}, {4102444800, 0}}; // 2100-01-01
	ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
	time_t before = time(nullptr);
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--root", site.path()}});
	time_t after = time(nullptr);
	HttpResponse r = ParseResponse(Roundtrip(daemon.port(), GetClose("/f.txt")).bytes);
	std::string lm = r.Header("Last-Modified");
	bool in_window = false;
	for (time_t t = before; t <= after; t++)
		in_window = in_window || lm == HttpDate(t);
	EXPECT_TRUE(in_window) << lm;
	EXPECT_EQ(r.Header("ETag"), ValidatorsOf(path).etag) << "the ETag keeps the real mtime";
}

constexpr char kCssType[] = "text/css; charset=utf-8";

// A site with precompressed variants: style.css with .br, .zst and .gz beside it, app.js
// with only .gz, data.json with .zst and .gz, plain.txt with none. Each body is distinct.
class VariantsTest : public testing::Test {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("files");
		ASSERT_NE(site_.path(), "");
		for (const auto &f : kFiles)
			ASSERT_TRUE(WriteFile(f.first, f.second)) << f.first;
		START_DAEMON(daemon_, DaemonOptions{{"--root", site_.path()}});
	}
	void TearDown() override
	{
		for (const auto &f : kFiles)
			unlink(Path(f.first).c_str());
	}
	std::string Path(const std::string &rel) const { return site_.path() + "/" + rel; }
	bool WriteFile(const std::string &rel, const std::string &body) const
	{
		FILE *out = fopen(Path(rel).c_str(), "wb");
		bool ok = out && fwrite(body.data(), 1, body.size(), out) == body.size();
		return out && fclose(out) == 0 && ok;
	}
	static const std::string &Body(const std::string &rel)
	{
		for (const auto &f : kFiles)
			if (f.first == rel)
				return f.second;
		static const std::string none;
		return none;
	}
	// The ETag of the representation of `rel` (a file beside its X) in coding, "" for X's
	// own: the file's own ETag, with "-br", "-zst" or "-gz" inside the quotes.
	std::string Etag(const std::string &rel, const std::string &suffix) const
	{
		std::string e = ValidatorsOf(Path(rel)).etag;
		return e.substr(0, e.size() - 1) + suffix + "\"";
	}
	// The exact 200 (or its head) of the representation stored in rel, as file of type
	// with coding ("" for none), Vary when vary; Connection: close.
	std::string Response(const std::string &rel, const std::string &type,
			     const std::string &coding, bool vary, bool head_only) const
	{
		FileValidators v = ValidatorsOf(Path(rel));
		if (!coding.empty())
			v.etag = Etag(rel, EtagSuffix(coding));
		return "HTTP/1.1 200 OK\r\nContent-Type: " + type +
		       "\r\nContent-Length: " + std::to_string(Body(rel).size()) + "\r\n" +
		       (coding.empty() ? "" : "Content-Encoding: " + coding + "\r\n") +
		       FileFields(v) + (vary ? "Vary: Accept-Encoding\r\n" : "") +
		       "Connection: close\r\n\r\n" + (head_only ? "" : Body(rel));
	}
	// The exact 206 of bytes first..last of the representation stored in rel (a CSS
	// file's, in coding); Connection: close.
	std::string Partial(const std::string &rel, const std::string &coding, size_t first,
			    size_t last) const
	{
		FileValidators v = ValidatorsOf(Path(rel));
		v.etag = Etag(rel, EtagSuffix(coding));
		const std::string &body = Body(rel);
		return "HTTP/1.1 206 Partial Content\r\nContent-Type: " + std::string(kCssType) +
		       "\r\nContent-Length: " + std::to_string(last - first + 1) +
		       "\r\nContent-Range: bytes " + std::to_string(first) + "-" +
		       std::to_string(last) + "/" + std::to_string(body.size()) +
		       "\r\nContent-Encoding: " + coding + "\r\n" + FileFields(v) +
		       "Vary: Accept-Encoding\r\nConnection: close\r\n\r\n" +
		       body.substr(first, last - first + 1);
	}
	// The exact 304 of the representation stored in rel whose ETag is etag.
	std::string NotModified(const std::string &rel, const std::string &etag) const
	{
		return "HTTP/1.1 304 Not Modified\r\nLast-Modified: " +
		       ValidatorsOf(Path(rel)).last_modified + "\r\nETag: " + etag +
		       "\r\nVary: Accept-Encoding\r\nConnection: close\r\n\r\n";
	}
	static std::string EtagSuffix(const std::string &coding)
	{
		return coding == "br" ? "-br" : coding == "zstd" ? "-zst" : "-gz";
	}
	void Expect(const std::string &label, const std::string &request, const std::string &want)
	{
		Received r = Roundtrip(daemon_.port(), request, false, kTimeoutMs);
		EXPECT_TRUE(r.eof && !r.reset && !r.timed_out) << label << ": no clean EOF";
		EXPECT_EQ(r.bytes, want) << label;
	}
	static std::string Get(const std::string &method, const std::string &target,
			       const std::string &fields)
	{
		return method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + fields +
		       "Connection: close\r\n\r\n";
	}

	inline static const std::vector<std::pair<std::string, std::string>> kFiles = {
		{"style.css", "body { color: red }\n"}, {"style.css.br", "brotli bytes"},
		{"style.css.gz", "gzip bytes, longer"}, {"app.js", "alert(1)\n"},
		{"app.js.gz", "gzipped js"},          {"plain.txt", "plain\n"},
		{"style.css.zst", "zstd bytes, mid"}, {"data.json", "{\"a\": 1}\n"},
		{"data.json.zst", "zstd json"},       {"data.json.gz", "gzip json, longer"},
	};
	SmallSite site_{"unused\n"};
	Daemon daemon_;
};

constexpr const char *kCss = kCssType;
constexpr char kJs[] = "text/javascript; charset=utf-8";
constexpr char kJson[] = "application/json";

TEST_F(VariantsTest, AcceptEncodingPicksTheRepresentation)
{
	const struct {
		const char *label, *target, *accept; // accept: nullptr for no field
		const char *rel, *type, *coding;
		bool vary;
	} cases[] = {
		{"no Accept-Encoding", "/style.css", nullptr, "style.css", kCss, "", true},
		{"br and gzip: br", "/style.css", "gzip, deflate, br", "style.css.br", kCss, "br", true},
		{"gzip", "/style.css", "gzip", "style.css.gz", kCss, "gzip", true},
		{"br q=0", "/style.css", "br;q=0, gzip", "style.css.gz", kCss, "gzip", true},
		{"q-values weigh", "/style.css", "br;q=0.2, gzip;q=0.9", "style.css.gz", kCss, "gzip",
		 true},
		{"star", "/style.css", "*", "style.css.br", kCss, "br", true},
		{"star q=0", "/style.css", "*;q=0", "style.css", kCss, "", true},
		{"identity only", "/style.css", "identity", "style.css", kCss, "", true},
		{"no .br beside it", "/app.js", "br", "app.js", kJs, "", true},
		{"its .gz", "/app.js", "br, gzip", "app.js.gz", kJs, "gzip", true},
		{"no variants: no Vary", "/plain.txt", "br, gzip", "plain.txt", kText, "", false},
		{"a variant named itself", "/style.css.br", "br", "style.css.br",
		 "application/octet-stream", "", false},
		{"zstd", "/style.css", "zstd", "style.css.zst", kCss, "zstd", true},
		{"a browser's list: br first", "/style.css", "gzip, deflate, br, zstd", "style.css.br",
		 kCss, "br", true},
		{"star without br: zstd", "/style.css", "br;q=0, *", "style.css.zst", kCss, "zstd", true},
		{"zstd before gzip on a tie", "/data.json", "gzip, deflate, br, zstd", "data.json.zst",
		 kJson, "zstd", true},
		{"zstd q=0", "/data.json", "zstd;q=0, gzip", "data.json.gz", kJson, "gzip", true},
		{"gzip weighed higher", "/data.json", "zstd;q=0.5, gzip", "data.json.gz", kJson, "gzip",
		 true},
		{"no .zst beside it", "/app.js", "zstd", "app.js", kJs, "", true},
		{".zst named itself", "/data.json.zst", "zstd", "data.json.zst",
		 "application/octet-stream", "", false},
	};
	for (const auto &c : cases) {
		std::string fields = c.accept ? std::string("Accept-Encoding: ") + c.accept + "\r\n" : "";
		for (const char *method : {"GET", "HEAD"})
			Expect(std::string(c.label) + " " + method, Get(method, c.target, fields),
			       Response(c.rel, c.type, c.coding, c.vary, method[0] == 'H'));
	}
}

// Accept-Encoding over several lines is one list: every line weighed in order, a coding
// named again keeping its last weight (BEHAVIOUR 10.10).
TEST_F(VariantsTest, AcceptEncodingOverSeveralLines)
{
	Expect("br on the second line", Get("GET", "/style.css", "Accept-Encoding: gzip\r\n"
							   "accept-encoding: br\r\n"),
	       Response("style.css.br", kCss, "br", true, false));
	Expect("br forbidden on the second line",
	       Get("GET", "/style.css", "Accept-Encoding: br\r\nAccept-Encoding: br;q=0, gzip\r\n"),
	       Response("style.css.gz", kCss, "gzip", true, false));
	Expect("an empty line between", Get("GET", "/style.css", "Accept-Encoding: gzip\r\n"
								  "Accept-Encoding:\r\nAccept-Encoding: identity;q=0.1\r\n"),
	       Response("style.css.gz", kCss, "gzip", true, false));
}

TEST_F(VariantsTest, EachRepresentationHasItsOwnValidatorsAndRanges)
{
	const std::string id = ValidatorsOf(Path("style.css")).etag;
	const std::string br = Etag("style.css.br", "-br"), gz = Etag("style.css.gz", "-gz");
	EXPECT_NE(id, br);
	EXPECT_NE(br, gz);
	EXPECT_NE(br, ValidatorsOf(Path("style.css.br")).etag) << "not the file's own ETag";
	Expect("304 of br", Get("GET", "/style.css", "Accept-Encoding: br\r\nIf-None-Match: " + br + "\r\n"),
	       NotModified("style.css.br", br));
	Expect("identity's ETag does not match br",
	       Get("GET", "/style.css", "Accept-Encoding: br\r\nIf-None-Match: " + id + "\r\n"),
	       Response("style.css.br", kCss, "br", true, false));
	Expect("a range of br", Get("GET", "/style.css", "Accept-Encoding: br\r\nRange: bytes=0-5\r\n"),
	       Partial("style.css.br", "br", 0, 5));
}

// X.zst is served as X.br and X.gz are: its own ETag and 304, HEAD, a range of its bytes.
TEST_F(VariantsTest, ZstdHasItsOwnValidatorsAndRanges)
{
	const std::string zst = Etag("style.css.zst", "-zst");
	EXPECT_NE(zst, Etag("style.css.br", "-br"));
	EXPECT_NE(zst, ValidatorsOf(Path("style.css.zst")).etag) << "not the file's own ETag";
	for (const char *method : {"GET", "HEAD"})
		Expect(std::string("304 of zstd ") + method,
		       Get(method, "/style.css", "Accept-Encoding: zstd\r\nIf-None-Match: " + zst + "\r\n"),
		       NotModified("style.css.zst", zst));
	Expect("br's ETag does not match zstd",
	       Get("GET", "/style.css",
		   "Accept-Encoding: zstd\r\nIf-None-Match: " + Etag("style.css.br", "-br") + "\r\n"),
	       Response("style.css.zst", kCss, "zstd", true, false));
	Expect("a range of zstd", Get("GET", "/style.css", "Accept-Encoding: zstd\r\nRange: bytes=5-\r\n"),
	       Partial("style.css.zst", "zstd", 5, 14));
}

} // namespace
} // namespace wire
