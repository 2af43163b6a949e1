// What a GET or HEAD of a cached file gets (common/answer/file_answer.h): tables of named cases
// for the If-None-Match list, the Range parser and the whole decision, every input ending
// against a PROT_NONE page so a read past it faults.
#include <stdint.h>
#include <string.h>

#include <string>

#include <gtest/gtest.h>

#include "common/answer/file_answer.h"
#include "common/http/http_parse.h"
#include "common/http/http_request.h"
#include "test/unit/guarded_buffer.h"

namespace {

constexpr char kEtag[] = "\"a-17-2c\"";
constexpr uint64_t kMtime = 784111777;  // Sun, 06 Nov 1994 08:49:37 GMT
constexpr uint64_t kNowS = 1796083200;  // the tests' wall clock: 2026-12-01
constexpr uint64_t kSize = 10000;

uint64_t FixedNow() { return kNowS; }

struct cached_file File(uint64_t size = kSize)
{
	struct cached_file f = {};
	f.size = size;
	f.mtime = kMtime;
	f.etag = kEtag;
	f.etag_len = sizeof(kEtag) - 1;
	f.kind = CACHED_FILE;
	return f;
}

// What etag_list_read makes of one If-None-Match line: "match", "none", "any" or
// "invalid".
std::string ListReads(const std::string &list)
{
	GuardedBuffer buf(list);
	struct text_span v = {buf.data(), (uint32_t)buf.size()};
	switch (etag_list_read(v, kEtag, sizeof(kEtag) - 1)) {
	case ETAG_LIST_MATCH:
		return "match";
	case ETAG_LIST_NO_MATCH:
		return "none";
	case ETAG_LIST_ANY:
		return "any";
	default:
		return "invalid";
	}
}

// RFC 9110 8.8.3 and 13.1.2: "*" alone, or entity-tags and commas; junk anywhere makes
// the line invalid (BEHAVIOUR 10.8), whatever matched before it.
TEST(FileAnswerTest, IfNoneMatchListIsReadStrictly)
{
	const struct {
		const char *label, *list, *reads;
	} cases[] = {
		{"exact", "\"a-17-2c\"", "match"},
		{"star", "*", "any"},
		{"weak prefix ignored", "W/\"a-17-2c\"", "match"},
		{"in a list", "\"x\", \"a-17-2c\"", "match"},
		{"list without spaces", "\"x\",\"y\",\"a-17-2c\"", "match"},
		{"empty members", " , ,\"a-17-2c\" ,", "match"},
		{"tabs around commas", "\"x\"\t,\t\"a-17-2c\"", "match"},
		{"another tag", "\"a-17-2d\"", "none"},
		{"a prefix of it", "\"a-17-2\"", "none"},
		{"empty", "", "none"},
		{"only commas", ",,", "none"},
		{"empty tag", "\"\"", "none"},
		{"star then junk", "*x", "invalid"},
		{"star in a list", "*, \"a-17-2c\"", "invalid"},
		{"a list then star", "\"x\", *", "invalid"},
		{"junk after the tag", "\"a-17-2c\"x", "invalid"},
		{"junk after a weak tag", "W/\"a-17-2c\"x", "invalid"},
		{"a parameter", "\"a-17-2c\";q=1", "invalid"},
		{"two tags without a comma", "\"a-17-2c\" \"a-17-2c\"", "invalid"},
		{"without quotes", "a-17-2c", "invalid"},
		{"lower-case w/ is no weak prefix", "w/\"a-17-2c\"", "invalid"},
		{"unterminated", "\"a-17-2c", "invalid"},
		{"a space inside the tag", "\"a 17\"", "invalid"},
		{"a malformed member before a match", "x, \"a-17-2c\"", "invalid"},
		{"junk after a match", "\"a-17-2c\", x", "invalid"},
		{"W/ alone", "W/", "invalid"},
	};
	for (const auto &c : cases)
		EXPECT_EQ(ListReads(c.list), c.reads) << c.label << ": " << c.list;
}

// BEHAVIOUR 10.12: whether Accept prefers text/html, what lets --fallback answer a name
// with an extension.
TEST(FileAnswerTest, AcceptPrefersHtml)
{
	const struct {
		const char *label, *fields;
		bool prefers;
	} cases[] = {
		{"a browser's navigation",
		 "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n", true},
		{"names in any case", "Accept: Text/HTML\r\n", true},
		{"a tie is enough", "Accept: application/json, text/html\r\n", true},
		{"over two lines", "Accept: image/png;q=0.5\r\nAccept: text/html;q=0.6\r\n", true},
		{"an image fetch", "Accept: image/avif,image/webp,image/*,*/*;q=0.8\r\n", false},
		{"anything", "Accept: */*\r\n", false},
		{"no Accept", "", false},
		{"html ranked lower", "Accept: text/html;q=0.5, application/json\r\n", false},
		{"html forbidden", "Accept: text/html;q=0\r\n", false},
		{"text/* is not text/html", "Accept: text/*\r\n", false},
		{"a malformed q skips the member", "Accept: text/html;q=2\r\n", false},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		std::string block = std::string(c.fields) + "\r\n";
		std::string head = "GET / HTTP/1.1\r\n" + block;
		struct http_request req;
		ASSERT_EQ(parse_request(head.data(), head.size(), &req), PARSE_COMPLETE);
		EXPECT_EQ(accept_prefers_html(&req.headers, head.data() + req.line.line_len) == 1,
			  c.prefers);
	}
}

// "first-last", "416" or "ignored": what range_parse makes of value for a file of size.
std::string Range(const std::string &value, uint64_t size = kSize)
{
	GuardedBuffer buf(value);
	struct text_span v = {buf.data(), (uint32_t)buf.size()};
	uint64_t first = 0, last = 0;
	switch (range_parse(v, size, &first, &last)) {
	case RANGE_SATISFIABLE:
		return std::to_string(first) + "-" + std::to_string(last);
	case RANGE_UNSATISFIABLE:
		return "416";
	default:
		return "ignored";
	}
}

TEST(FileAnswerTest, RangeParser)
{
	const struct {
		const char *label, *value, *want;
	} cases[] = {
		{"a-b", "bytes=0-9", "0-9"},
		{"one byte", "bytes=5-5", "5-5"},
		{"a-", "bytes=9990-", "9990-9999"},
		{"-n", "bytes=-10", "9990-9999"},
		{"b past the end is cut", "bytes=9000-20000", "9000-9999"},
		{"-n longer than the file is all of it", "bytes=-20000", "0-9999"},
		{"the unit folds case", "Bytes=0-0", "0-0"},
		{"empty members and OWS around commas", "bytes=, 0-9 ,", "0-9"},
		{"a huge b saturates", "bytes=1-99999999999999999999999", "1-9999"},
		{"a past the end", "bytes=10000-", "416"},
		{"a huge a", "bytes=99999999999999999999999-", "416"},
		{"-0", "bytes=-0", "416"},
		{"two ranges", "bytes=0-1,5-6", "ignored"},
		{"two ranges, one outside", "bytes=0-1, 20000-", "ignored"},
		{"b < a", "bytes=9-0", "ignored"},
		{"another unit", "items=0-9", "ignored"},
		{"no '='", "bytes 0-9", "ignored"},
		{"no numbers", "bytes=-", "ignored"},
		{"no '-'", "bytes=5", "ignored"},
		{"a sign", "bytes=+1-2", "ignored"},
		{"trailing garbage", "bytes=0-9x", "ignored"},
		{"space inside", "bytes=0 -9", "ignored"},
		{"empty", "", "ignored"},
		{"only the unit", "bytes=", "ignored"},
	};
	for (const auto &c : cases)
		EXPECT_EQ(Range(c.value), c.want) << c.label << ": " << c.value;
}

// The header block of the given field lines (each ending in CRLF), parsed as the daemon
// parses it, so the answer reads the fields the parser recorded.
struct ParsedFields {
	explicit ParsedFields(const std::string &fields) : buf(fields + "\r\n")
	{
		EXPECT_EQ(parse_headers(buf.data(), buf.size(), &block), PARSE_COMPLETE) << fields;
	}
	GuardedBuffer buf;
	struct header_block block;
};

// What file_status_of decides for a GET (or HEAD) with the given field lines.
std::string Status(const std::string &fields, bool head_only = false, uint64_t size = kSize)
{
	ParsedFields parsed(fields);
	struct cached_file f = File(size);
	uint64_t first = 0, last = 0;
	switch (file_status_of(&parsed.block, parsed.buf.data(), head_only, &f, FixedNow, &first,
			       &last)) {
	case FILE_STATUS_200:
		return "200";
	case FILE_STATUS_304:
		return "304";
	case FILE_STATUS_206:
		return "206 " + std::to_string(first) + "-" + std::to_string(last);
	default:
		return "416";
	}
}

TEST(FileAnswerTest, Decision)
{
	const std::string imf = "Sun, 06 Nov 1994 08:49:37 GMT";
	const struct {
		const char *label;
		std::string fields;
		bool head_only;
		const char *want;
	} cases[] = {
		{"no fields", "", false, "200"},
		{"unrelated fields", "Host: x\r\nAccept: */*\r\n", false, "200"},
		{"INM match", "If-None-Match: \"a-17-2c\"\r\n", false, "304"},
		{"INM match on a second line", "If-None-Match: \"x\"\r\nIf-None-Match: \"a-17-2c\"\r\n",
		 false, "304"},
		{"INM no match", "If-None-Match: \"x\"\r\n", false, "200"},
		{"IMS equal", "If-Modified-Since: " + imf + "\r\n", false, "304"},
		{"IMS later", "If-Modified-Since: Mon, 07 Nov 1994 00:00:00 GMT\r\n", false, "304"},
		{"IMS earlier", "If-Modified-Since: Sun, 06 Nov 1994 08:49:36 GMT\r\n", false, "200"},
		{"IMS in rfc850 form", "If-Modified-Since: Sunday, 06-Nov-94 08:49:37 GMT\r\n", false,
		 "304"},
		{"IMS in asctime form", "If-Modified-Since: Sun Nov  6 08:49:37 1994\r\n", false, "304"},
		{"IMS not a date is ignored", "If-Modified-Since: yesterday\r\n", false, "200"},
		{"IMS in the future is ignored", "If-Modified-Since: Fri, 31 Dec 9999 23:59:59 GMT\r\n",
		 false, "200"},
		{"INM without a match beats a matching IMS",
		 "If-None-Match: \"x\"\r\nIf-Modified-Since: " + imf + "\r\n", false, "200"},
		{"INM match with an IMS before the mtime",
		 "If-Modified-Since: Thu, 01 Jan 1970 00:00:00 GMT\r\nIf-None-Match: *\r\n", false,
		 "304"},
		{"HEAD with INM", "If-None-Match: \"a-17-2c\"\r\n", true, "304"},
		{"range", "Range: bytes=0-99\r\n", false, "206 0-99"},
		{"HEAD ignores Range", "Range: bytes=0-99\r\n", true, "200"},
		{"416", "Range: bytes=10000-\r\n", false, "416"},
		{"304 before Range", "Range: bytes=0-99\r\nIf-None-Match: \"a-17-2c\"\r\n", false,
		 "304"},
		{"If-Range ETag holds", "Range: bytes=0-99\r\nIf-Range: \"a-17-2c\"\r\n", false,
		 "206 0-99"},
		{"If-Range ETag differs", "Range: bytes=0-99\r\nIf-Range: \"x\"\r\n", false, "200"},
		{"If-Range weak ETag never holds", "Range: bytes=0-99\r\nIf-Range: W/\"a-17-2c\"\r\n",
		 false, "200"},
		{"If-Range date equal", "Range: bytes=0-99\r\nIf-Range: " + imf + "\r\n", false,
		 "206 0-99"},
		{"If-Range date later", "Range: bytes=0-99\r\nIf-Range: Mon, 07 Nov 1994 00:00:00 GMT\r\n",
		 false, "200"},
		{"If-Range without Range", "If-Range: \"a-17-2c\"\r\n", false, "200"},
		{"If-Range before a 416", "Range: bytes=10000-\r\nIf-Range: \"x\"\r\n", false, "200"},
		// A field on several lines: every If-None-Match line, the first of the others.
		{"a malformed line makes the field invalid: as if absent",
		 "If-None-Match: x\r\nIf-None-Match: \"y\"\r\nIf-None-Match: \"a-17-2c\"\r\n", false,
		 "200"},
		{"an invalid INM lets IMS decide", "If-None-Match: \"a-17-2c\"x\r\nIf-Modified-Since: " +
		 imf + "\r\n", false, "304"},
		{"an invalid INM with IMS in the past of the file", "If-None-Match: *x\r\n"
		 "If-Modified-Since: Thu, 01 Jan 1970 00:00:00 GMT\r\n", false, "200"},
		{"\"*\" on one line of two is invalid", "If-None-Match: *\r\nIf-None-Match: \"y\"\r\n",
		 false, "200"},
		{"a match on the second line", "If-None-Match: \"y\"\r\nIf-None-Match: W/\"a-17-2c\"\r\n",
		 false, "304"},
		{"an empty INM still outranks IMS", "If-None-Match:\r\nIf-Modified-Since: " + imf + "\r\n",
		 false, "200"},
		{"the first IMS counts", "If-Modified-Since: Sun, 06 Nov 1994 08:49:36 GMT\r\n"
		 "If-Modified-Since: " + imf + "\r\n", false, "200"},
		{"the first Range counts", "Range: bytes=0-9\r\nRange: bytes=5-\r\n", false, "206 0-9"},
		{"a bad first Range is not made up for", "Range: items=0-9\r\nRange: bytes=0-9\r\n",
		 false, "200"},
		{"the first If-Range counts",
		 "Range: bytes=0-99\r\nIf-Range: \"x\"\r\nIf-Range: \"a-17-2c\"\r\n", false, "200"},
		{"an empty If-Range never holds", "Range: bytes=0-99\r\nIf-Range:\r\n", false, "200"},
	};
	for (const auto &c : cases)
		EXPECT_EQ(Status(c.fields, c.head_only), c.want) << c.label;
	EXPECT_EQ(Status("Range: bytes=0-\r\n", false, 0), "200") << "an empty file has no range";
}

constexpr unsigned kBrGzip = (1u << FILE_ENCODING_BR) | (1u << FILE_ENCODING_GZIP);
constexpr unsigned kAll = kBrGzip | (1u << FILE_ENCODING_ZSTD);

// "br", "zstd", "gzip" or "identity": what coding_choice picks from one Accept-Encoding
// value when the br and gzip variants exist (or only those in available).
std::string Chosen(const std::string &value, unsigned available = kBrGzip)
{
	GuardedBuffer buf(value);
	struct coding_weights w = {{-1, -1, -1, -1}, -1};
	accept_encoding_weigh({buf.data(), (uint32_t)buf.size()}, &w);
	switch (coding_choice(&w, available)) {
	case FILE_ENCODING_BR:
		return "br";
	case FILE_ENCODING_ZSTD:
		return "zstd";
	case FILE_ENCODING_GZIP:
		return "gzip";
	default:
		return "identity";
	}
}

TEST(FileAnswerTest, AcceptEncoding)
{
	const struct {
		const char *label, *value, *want;
	} cases[] = {
		{"empty", "", "identity"},
		{"gzip", "gzip", "gzip"},
		{"br", "br", "br"},
		{"both: br preferred", "gzip, deflate, br", "br"},
		{"names fold case", "GZIP, Br", "br"},
		{"x-gzip is gzip", "x-gzip", "gzip"},
		{"q=0 forbids", "br;q=0, gzip", "gzip"},
		{"both forbidden", "br;q=0, gzip;q=0", "identity"},
		{"higher q wins", "br;q=0.5, gzip;q=0.8", "gzip"},
		{"equal q: br", "gzip;q=0.5, br;q=0.500", "br"},
		{"OWS around ';' and Q upper-case", "gzip ; Q=0.9 , br ;q=0.1", "gzip"},
		{"star", "*", "br"},
		{"star forbids all", "*;q=0", "identity"},
		{"named beats star", "*;q=0, gzip", "gzip"},
		{"star weighs the unnamed", "gzip;q=0.2, *;q=0.9", "br"},
		{"identity preferred by weight", "identity, br;q=0.5", "identity"},
		{"identity on a tie loses", "identity;q=0.5, br;q=0.5", "br"},
		{"only other codings", "deflate, compress", "identity"},
		{"malformed q skips the member", "br;q=2, gzip", "gzip"},
		{"q=1.5 is malformed", "br;q=1.5", "identity"},
		{"four decimals is malformed", "br;q=0.1234", "identity"},
		{"an unknown parameter skips the member", "br;level=1", "identity"},
		{"a second weight skips the member", "br;q=0.5;q=1, gzip;q=0.1", "gzip"},
		{"a weight after another parameter", "br;q=1;level=1", "identity"},
		{"empty members", ", ,br,", "br"},
		{"last weight of a coding kept", "br, br;q=0", "identity"},
	};
	for (const auto &c : cases)
		EXPECT_EQ(Chosen(c.value), c.want) << c.label << ": " << c.value;
	EXPECT_EQ(Chosen("br, gzip", 1u << FILE_ENCODING_GZIP), "gzip") << "only .gz exists";
	EXPECT_EQ(Chosen("br", 1u << FILE_ENCODING_GZIP), "identity") << "only .gz exists";
	EXPECT_EQ(Chosen("br, gzip", 0), "identity") << "no variant";
}

// X.zst beside X (BEHAVIOUR 10.10): zstd between br and gzip on a tie.
TEST(FileAnswerTest, AcceptEncodingZstd)
{
	const struct {
		const char *label, *value;
		unsigned available;
		const char *want;
	} cases[] = {
		{"zstd alone", "zstd", kAll, "zstd"},
		{"names fold case", "ZSTD", kAll, "zstd"},
		{"a browser's list: br first", "gzip, deflate, br, zstd", kAll, "br"},
		{"no .br: zstd before gzip", "gzip, deflate, br, zstd", kAll & ~(1u << FILE_ENCODING_BR), "zstd"},
		{"higher q wins", "zstd;q=0.4, gzip;q=0.6", kAll, "gzip"},
		{"zstd q=0", "zstd;q=0, gzip", kAll, "gzip"},
		{"star weighs zstd", "br;q=0, *", kAll, "zstd"},
		{"no .zst beside it", "zstd", kBrGzip, "identity"},
		{"x-zstd is not zstd", "x-zstd", kAll, "identity"},
	};
	for (const auto &c : cases)
		EXPECT_EQ(Chosen(c.value, c.available), c.want) << c.label << ": " << c.value;
}

TEST(FileAnswerTest, RepresentationReadsEveryAcceptEncodingLine)
{
	struct cached_file f = File(), br = File(), zst = File(), gz = File();
	f.variant[FILE_ENCODING_BR - 1] = &br;
	f.variant[FILE_ENCODING_ZSTD - 1] = &zst;
	f.variant[FILE_ENCODING_GZIP - 1] = &gz;
	auto pick = [&](const std::string &fields) {
		ParsedFields parsed(fields);
		return file_representation(&parsed.block, parsed.buf.data(), &f);
	};
	EXPECT_EQ(pick(""), &f) << "no Accept-Encoding: identity";
	EXPECT_EQ(pick("Accept-Encoding: gzip\r\n"), &gz);
	EXPECT_EQ(pick("Accept-Encoding: gzip\r\nHost: x\r\naccept-encoding: br\r\n"), &br);
	EXPECT_EQ(pick("Accept-Encoding: zstd, gzip\r\n"), &zst);
	f.variant[FILE_ENCODING_BR - 1] = nullptr;
	EXPECT_EQ(pick("Accept-Encoding: br\r\n"), &f) << "no .br: identity";
}

} // namespace
