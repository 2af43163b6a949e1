// The request-head parsers (common/http/http_parse.h) against tables of labelled cases, run for
// every hot-path implementation, with every input ending against a PROT_NONE page.
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/http/http_host.h"
#include "common/http/http_parse.h"
#include "common/http/http_request.h"
#include "test/unit/guarded_buffer.h"
#include "test/unit/hotpath_test.h"

using namespace std::string_literals; // "\0"s keeps embedded NUL bytes

namespace {

const std::string kMethod16 = "ABCDEFGHIJKLMNOP";
const std::string kMethod17 = "ABCDEFGHIJKLMNOPQ";
// Targets at the limit (8,000 bytes: RFC 9112 3) and one byte past it; a query as long.
const std::string kTarget8000 = "/" + std::string(HTTP_TARGET_MAX - 1, 'a');
const std::string kTarget8001 = "/" + std::string(HTTP_TARGET_MAX, 'a');
const std::string kQuery8000 = "/q?" + std::string(HTTP_TARGET_MAX - 3, 'x');
const std::string kQuery8001 = "/q?" + std::string(HTTP_TARGET_MAX - 2, 'x');
const std::string kName64 = std::string(HTTP_HEADER_NAME_MAX, 'n');
const std::string kName65 = std::string(HTTP_HEADER_NAME_MAX + 1, 'n');

// ---------------------------------------------------------------- request line

struct RequestLineCase {
	const char *label;
	std::string line;  // the request line; when COMPLETE, line_len must equal its size
	std::string after; // bytes that follow it in the buffer (headers), not consumed
	parse_outcome outcome;
	uint8_t method;        // the rest only when COMPLETE
	uint8_t version_minor;
	std::string target;
	uint32_t path_len;
};

RequestLineCase LineOk(const char *label, std::string line, uint8_t method, uint8_t minor,
		       std::string target, uint32_t path_len, std::string after = "")
{
	return {label, line, after, PARSE_COMPLETE, method, minor, target, path_len};
}

RequestLineCase LineBad(const char *label, std::string line)
{
	return {label, line, "", PARSE_BAD, 0, 0, "", 0};
}

RequestLineCase LineTooLong(const char *label, std::string line)
{
	return {label, line, "", PARSE_TARGET_TOO_LONG, 0, 0, "", 0};
}

RequestLineCase LinePartial(const char *label, std::string line)
{
	return {label, line, "", PARSE_PARTIAL, 0, 0, "", 0};
}

const std::vector<RequestLineCase> &RequestLineCases()
{
	static const std::vector<RequestLineCase> cases = {
		LineOk("GET / HTTP/1.1", "GET / HTTP/1.1\r\n", HTTP_METHOD_GET, 1, "/", 1),
		LineOk("HEAD on HTTP/1.0", "HEAD /health HTTP/1.0\r\n", HTTP_METHOD_HEAD, 0,
		       "/health", 7),
		LineOk("POST is another method", "POST /x HTTP/1.1\r\n", HTTP_METHOD_OTHER, 1,
		       "/x", 2),
		LineOk("GETS is not GET", "GETS / HTTP/1.1\r\n", HTTP_METHOD_OTHER, 1, "/", 1),
		LineOk("HEA is not HEAD", "HEA / HTTP/1.1\r\n", HTTP_METHOD_OTHER, 1, "/", 1),
		LineOk("query stripped from path", "GET /health?x=1 HTTP/1.1\r\n",
		       HTTP_METHOD_GET, 1, "/health?x=1", 7),
		LineOk("path ends at the first '?'", "GET /a?b?c HTTP/1.1\r\n", HTTP_METHOD_GET,
		       1, "/a?b?c", 2),
		LineOk("empty path query", "GET /? HTTP/1.1\r\n", HTTP_METHOD_GET, 1, "/?", 1),
		LineOk("every visible byte in target", "GET /!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ HTTP/1.1\r\n",
		       HTTP_METHOD_GET, 1, "/!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", 21),
		LineOk("method of 16 A-Z", kMethod16 + " / HTTP/1.1\r\n", HTTP_METHOD_OTHER, 1,
		       "/", 1),
		LineOk("target of exactly 8,000 bytes", "GET " + kTarget8000 + " HTTP/1.1\r\n",
		       HTTP_METHOD_GET, 1, kTarget8000, HTTP_TARGET_MAX),
		LineOk("query making the target exactly 8,000 bytes",
		       "HEAD " + kQuery8000 + " HTTP/1.0\r\n", HTTP_METHOD_HEAD, 0, kQuery8000, 2),
		LineOk("8,000-byte target, other method", "POST " + kTarget8000 + " HTTP/1.1\r\n",
		       HTTP_METHOD_OTHER, 1, kTarget8000, HTTP_TARGET_MAX),
		LineOk("headers after the line are not consumed", "GET / HTTP/1.1\r\n",
		       HTTP_METHOD_GET, 1, "/", 1, "Host: a\r\n\r\n"),
		LineBad("method of 17 A-Z", kMethod17 + " / HTTP/1.1\r\n"),
		LineTooLong("target of 8,001 bytes", "GET " + kTarget8001 + " HTTP/1.1\r\n"),
		LineTooLong("query making the target 8,001 bytes", "GET " + kQuery8001 + " HTTP/1.1\r\n"),
		LineTooLong("8,001 target bytes decide it: nothing after them is needed",
			    "GET " + kTarget8001),
		LineTooLong("8,001 target bytes then a bad version", "GET " + kTarget8001 + " HTTP/9\r\n"),
		LineTooLong("8,001 target bytes, other method", "PUT " + kTarget8001 + " HTTP/1.1\r\n"),
		LineBad("8,000 target bytes then a bad byte", "GET " + kTarget8000 + "\x7f HTTP/1.1\r\n"),
		LineBad("8,000-byte target, bad version", "GET " + kTarget8000 + " HTTP/1.2\r\n"),
		LineBad("lowercase method before an 8,001-byte target", "get " + kTarget8001 + " HTTP/1.1\r\n"),
		LineBad("lowercase method", "get / HTTP/1.1\r\n"),
		LineBad("mixed-case method", "Get / HTTP/1.1\r\n"),
		LineBad("empty method", " / HTTP/1.1\r\n"),
		LineBad("'@' in method", "G@T / HTTP/1.1\r\n"),
		LineBad("NUL in method", "G\0T / HTTP/1.1\r\n"s),
		LineBad("empty line before the request line", "\r\nGET / HTTP/1.1\r\n"),
		// The line takes any target whose first byte is no '?'; its form is
		// parse_request's business (ParseRequestTest.TargetForms).
		LineOk("target not starting with '/'", "GET x HTTP/1.1\r\n", HTTP_METHOD_GET, 1,
		       "x", 1),
		LineOk("asterisk target", "OPTIONS * HTTP/1.1\r\n", HTTP_METHOD_OTHER, 1, "*", 1),
		LineOk("absolute-form target", "GET http://a/b?q HTTP/1.1\r\n", HTTP_METHOD_GET, 1,
		       "http://a/b?q", 10),
		LineBad("target starting with '?'", "GET ?x HTTP/1.1\r\n"),
		LineBad("two spaces after method", "GET  / HTTP/1.1\r\n"),
		LineBad("HTAB as separator", "GET\t/ HTTP/1.1\r\n"),
		LineBad("NUL in target", "GET /a\0b HTTP/1.1\r\n"s),
		LineBad("DEL in target", "GET /a\x7f HTTP/1.1\r\n"),
		LineBad("0x80 byte in target", "GET /\x80 HTTP/1.1\r\n"),
		LineBad("HTAB in target", "GET /a\tb HTTP/1.1\r\n"),
		LineBad("HTTP/0.9: no version", "GET /\r\n"),
		LineBad("HTTP/1.2", "GET / HTTP/1.2\r\n"),
		LineBad("HTTP/2.0", "GET / HTTP/2.0\r\n"),
		LineBad("lowercase version", "GET / http/1.1\r\n"),
		LineBad("space after version", "GET / HTTP/1.1 \r\n"),
		LineBad("bare LF after version", "GET / HTTP/1.1\n"),
		LineBad("bare CR after version", "GET / HTTP/1.1\rX"),
		LinePartial("empty buffer", ""),
		LinePartial("inside the target", "GET /inde"),
		LinePartial("8,000 target bytes, nothing after them yet", "GET " + kTarget8000),
		LinePartial("CR without its LF yet", "GET / HTTP/1.1\r"),
	};
	return cases;
}

// Checks one request-line case, input ending against a guard page.
void ExpectRequestLine(const hotpath_impl &impl, const RequestLineCase &c)
{
	SCOPED_TRACE(c.label);
	std::string input = c.line + c.after;
	GuardedBuffer buf(input);
	struct request_line out;
	memset(&out, 0xa5, sizeof(out));
	ASSERT_EQ(impl.parse_request_line(buf.data(), buf.size(), &out), c.outcome);
	if (c.outcome != PARSE_COMPLETE)
		return;
	EXPECT_EQ(out.method, c.method);
	EXPECT_EQ(out.version_minor, c.version_minor);
	EXPECT_EQ(out.target, buf.data() + c.line.find(' ') + 1) << "target points into buf";
	EXPECT_EQ(std::string(out.target, out.target_len), c.target);
	EXPECT_EQ(out.path_len, c.path_len);
	EXPECT_EQ(out.line_len, c.line.size());
}

// ---------------------------------------------------------------- header block

// One line the parser must record: its field and its value.
struct Recorded {
	recorded_field id;
	std::string value;
	bool operator==(const Recorded &o) const { return id == o.id && value == o.value; }
};

inline void PrintTo(const Recorded &r, std::ostream *os)
{
	*os << "{" << (int)r.id << ", \"" << r.value << "\"}";
}

// The recorded fields' names, lowercase, by enum recorded_field.
const std::vector<std::string> &RecordedNames()
{
#define RECORDED_NAME(id, name) name,
	static const std::vector<std::string> names = {FOR_EACH_RECORDED_FIELD(RECORDED_NAME)};
#undef RECORDED_NAME
	return names;
}

// The test's own reading of a complete block: for every line whose name is a recorded
// field's (ignoring case), in order, the offset of its value's first byte (past the colon
// and any spaces and tabs). field_line.at is checked against it.
std::vector<size_t> RecordedValueOffsets(const std::string &block)
{
	std::vector<size_t> at;
	for (size_t line = 0, eol; (eol = block.find("\r\n", line)) != line; line = eol + 2) {
		size_t colon = block.find(':', line);
		std::string name = block.substr(line, colon - line);
		for (char &ch : name)
			ch = (char)tolower((unsigned char)ch);
		const std::vector<std::string> &names = RecordedNames();
		if (std::find(names.begin(), names.end(), name) == names.end())
			continue;
		size_t v = colon + 1;
		while (block[v] == ' ' || block[v] == '\t')
			v++;
		at.push_back(v);
	}
	return at;
}

struct HeaderCase {
	const char *label = "";
	std::string block; // when COMPLETE, block_len must equal its size
	parse_outcome outcome = PARSE_BAD;
	// Expected fields when COMPLETE; set with the builder calls below.
	uint8_t host_count = 0;
	uint8_t connection = HTTP_CONNECTION_NONE;
	bool has_content_length = false;
	uint64_t content_length = 0;
	std::vector<Recorded> recorded; // every line of a recorded field, in order
	std::string after; // bytes after the block (a body, the next request): not consumed

	HeaderCase &Hosts(uint8_t n) { host_count = n; return *this; }
	HeaderCase &Records(recorded_field id, std::string value)
	{
		recorded.push_back({id, value});
		return *this;
	}
	HeaderCase &Connection(http_connection c) { connection = (uint8_t)c; return *this; }
	HeaderCase &Length(uint64_t n) { has_content_length = true; content_length = n; return *this; }
	HeaderCase &FollowedBy(std::string bytes) { after = bytes; return *this; }
};

HeaderCase Headers(const char *label, std::string block, parse_outcome outcome)
{
	HeaderCase c;
	c.label = label;
	c.block = block;
	c.outcome = outcome;
	return c;
}

HeaderCase HeadersOk(const char *label, std::string block)
{
	return Headers(label, block, PARSE_COMPLETE);
}

HeaderCase HeadersBad(const char *label, std::string block)
{
	return Headers(label, block, PARSE_BAD);
}

HeaderCase HeadersPartial(const char *label, std::string block)
{
	return Headers(label, block, PARSE_PARTIAL);
}

// A block of n "Range:" lines with empty values.
HeaderCase RepeatedRange(const char *label, size_t n, parse_outcome outcome)
{
	std::string line = "Range:\r\n";
	STATIC_ASSERT(sizeof("Range:\r\n") - 1 == FIELD_LINE_MIN, "the shortest recorded line");
	HeaderCase c = Headers(label, "", outcome);
	for (size_t i = 0; i < n; i++) {
		c.block += line;
		c.Records(FIELD_RANGE, "");
	}
	c.block += "\r\n";
	return c;
}

// A block whose Range value "r" ends at offset end, after one long unrecorded line.
HeaderCase RangeEndingAt(const char *label, size_t end, parse_outcome outcome)
{
	const std::string head = "X: ", tail = "\r\nRange: ";
	std::string filler(end - 1 - head.size() - tail.size(), 'a');
	HeaderCase c = Headers(label, head + filler + tail + "r\r\n\r\n", outcome);
	return c.Records(FIELD_RANGE, "r");
}

const std::vector<HeaderCase> &HeaderCases()
{
	static const std::vector<HeaderCase> cases = {
		HeadersOk("no headers", "\r\n"),
		HeadersOk("Host", "Host: example.com\r\n\r\n").Hosts(1),
		HeadersOk("HOST folded", "HOST: a\r\n\r\n").Hosts(1),
		HeadersOk("hOsT folded", "hOsT: a\r\n\r\n").Hosts(1),
		HeadersOk("Host with port", "Host: example.com:80\r\n\r\n").Hosts(1),
		HeadersOk("Host IPv6 literal and port", "Host: [::1]:8080\r\n\r\n").Hosts(1),
		HeadersOk("Host IPv4", "Host: 1.2.3.4\r\n\r\n").Hosts(1),
		HeadersOk("Host empty", "Host:\r\n\r\n").Hosts(1),
		HeadersOk("Host empty but OWS", "Host:  \t \r\n\r\n").Hosts(1),
		HeadersOk("Host OWS around value", "Host:\t example.com \t\r\n\r\n").Hosts(1),
		HeadersOk("connection: close folded", "connection: CLOSE\r\n\r\n")
			.Connection(HTTP_CONNECTION_CLOSE),
		HeadersOk("CONNECTION: Keep-Alive folded", "CONNECTION: Keep-Alive\r\n\r\n")
			.Connection(HTTP_CONNECTION_KEEP_ALIVE),
		HeadersOk("Connection list: keep-alive, close", "Connection: keep-alive, close\r\n\r\n")
			.Connection(HTTP_CONNECTION_CLOSE),
		HeadersOk("Connection list: close,keep-alive", "Connection: close,keep-alive\r\n\r\n")
			.Connection(HTTP_CONNECTION_CLOSE),
		HeadersOk("Connection list with other tokens", "Connection: Upgrade, keep-alive\r\n\r\n")
			.Connection(HTTP_CONNECTION_KEEP_ALIVE),
		HeadersOk("Connection: upgrade only", "Connection: upgrade\r\n\r\n"),
		HeadersOk("Connection: closed is not close", "Connection: closed\r\n\r\n"),
		HeadersOk("two Connection lines, close second",
			  "Connection: keep-alive\r\nConnection: close\r\n\r\n")
			.Connection(HTTP_CONNECTION_CLOSE),
		HeadersOk("two Connection lines, close first",
			  "Connection: close\r\nConnection: keep-alive\r\n\r\n")
			.Connection(HTTP_CONNECTION_CLOSE),
		HeadersOk("content-length folded", "content-length: 5\r\n\r\n").Length(5),
		HeadersOk("CONTENT-LENGTH with OWS", "CONTENT-LENGTH:\t 42 \t\r\n\r\n").Length(42),
		HeadersOk("Content-Length 0", "Content-Length: 0\r\n\r\n").Length(0),
		HeadersOk("Content-Length of 19 digits", "Content-Length: 9999999999999999999\r\n\r\n")
			.Length(9999999999999999999ull),
		HeadersOk("duplicate equal Content-Length",
			  "Content-Length: 7\r\nContent-Length: 7\r\n\r\n")
			.Length(7),
		HeadersOk("body after the block is not consumed", "Content-Length: 3\r\n\r\n")
			.Length(3)
			.FollowedBy("abc"),
		HeadersOk("name of 64 bytes", kName64 + ": v\r\n\r\n"),
		HeadersOk("value with colons", "X-Time: 12:30:45\r\n\r\n"),
		HeadersOk("value with HTAB and delimiters", "X-A: a\tb {}[]\"\\/\r\n\r\n"),
		HeadersOk("name of every tchar punctuation", "X!#$%&'*+-.^_`|~: v\r\n\r\n"),
		HeadersOk("Expect is ignored", "Expect: 100-continue\r\n\r\n"),
		HeadersOk("unknown headers are ignored", "Hostx: !!\r\nContent-Lengthy: z\r\n\r\n"),
		// The fields recorded for the answer: each present, in odd case, empty, with OWS.
		HeadersOk("If-None-Match", "If-None-Match: \"a\", W/\"b\"\r\n\r\n")
			.Records(FIELD_IF_NONE_MATCH, "\"a\", W/\"b\""),
		HeadersOk("If-Modified-Since", "If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n")
			.Records(FIELD_IF_MODIFIED_SINCE, "Sun, 06 Nov 1994 08:49:37 GMT"),
		HeadersOk("If-Range", "If-Range: \"a-1\"\r\n\r\n").Records(FIELD_IF_RANGE, "\"a-1\""),
		HeadersOk("Range", "Range: bytes=0-99\r\n\r\n").Records(FIELD_RANGE, "bytes=0-99"),
		HeadersOk("Accept-Encoding", "Accept-Encoding: gzip, deflate, br\r\n\r\n")
			.Records(FIELD_ACCEPT_ENCODING, "gzip, deflate, br"),
		HeadersOk("Accept", "Accept: text/plain;version=0.0.4\r\n\r\n")
			.Records(FIELD_ACCEPT, "text/plain;version=0.0.4"),
		HeadersOk("IF-NONE-MATCH folded", "IF-NONE-MATCH: *\r\n\r\n").Records(FIELD_IF_NONE_MATCH, "*"),
		HeadersOk("if-modified-since folded", "if-modified-since: x\r\n\r\n")
			.Records(FIELD_IF_MODIFIED_SINCE, "x"),
		HeadersOk("iF-rAnGe folded", "iF-rAnGe: x\r\n\r\n").Records(FIELD_IF_RANGE, "x"),
		HeadersOk("RANGE folded", "RANGE: bytes=1-\r\n\r\n").Records(FIELD_RANGE, "bytes=1-"),
		HeadersOk("accept-ENCODING folded", "accept-ENCODING: br\r\n\r\n")
			.Records(FIELD_ACCEPT_ENCODING, "br"),
		HeadersOk("aCCEPT folded", "aCCEPT: */*\r\n\r\n").Records(FIELD_ACCEPT, "*/*"),
		HeadersOk("recorded values empty", "Range:\r\nIf-None-Match:\r\nAccept:\r\n\r\n")
			.Records(FIELD_RANGE, "")
			.Records(FIELD_IF_NONE_MATCH, "")
			.Records(FIELD_ACCEPT, ""),
		HeadersOk("recorded values only OWS", "If-Range: \t \r\nAccept-Encoding:\t\r\n\r\n")
			.Records(FIELD_IF_RANGE, "")
			.Records(FIELD_ACCEPT_ENCODING, ""),
		HeadersOk("OWS around recorded values",
			  "Range:\t bytes=0-1 \t\r\nIf-Modified-Since:  a  b  \r\n\r\n")
			.Records(FIELD_RANGE, "bytes=0-1")
			.Records(FIELD_IF_MODIFIED_SINCE, "a  b"),
		HeadersOk("colons and quotes kept in a value", "If-Range: Mon, 01 Jan 2024 00:00:00 GMT\r\n\r\n")
			.Records(FIELD_IF_RANGE, "Mon, 01 Jan 2024 00:00:00 GMT"),
		// Repeats: every line is recorded, in order; which count is the answer's choice.
		HeadersOk("two Range lines", "Range: bytes=0-1\r\nrange: bytes=5-\r\n\r\n")
			.Records(FIELD_RANGE, "bytes=0-1")
			.Records(FIELD_RANGE, "bytes=5-"),
		HeadersOk("If-None-Match list split over lines",
			  "If-None-Match: \"x\"\r\nHost: a\r\nIf-None-Match: \"y\", \"z\"\r\n\r\n")
			.Hosts(1)
			.Records(FIELD_IF_NONE_MATCH, "\"x\"")
			.Records(FIELD_IF_NONE_MATCH, "\"y\", \"z\""),
		HeadersOk("every recorded field among the others, in block order",
			  "Accept: */*\r\nHost: a\r\nAccept-Encoding: gzip\r\nConnection: close\r\n"
			  "If-None-Match: \"e\"\r\nContent-Length: 0\r\nIf-Modified-Since: d\r\n"
			  "Range: bytes=-5\r\nUser-Agent: u\r\nIf-Range: \"e\"\r\nAccept: text/html\r\n\r\n")
			.Hosts(1)
			.Connection(HTTP_CONNECTION_CLOSE)
			.Length(0)
			.Records(FIELD_ACCEPT, "*/*")
			.Records(FIELD_ACCEPT_ENCODING, "gzip")
			.Records(FIELD_IF_NONE_MATCH, "\"e\"")
			.Records(FIELD_IF_MODIFIED_SINCE, "d")
			.Records(FIELD_RANGE, "bytes=-5")
			.Records(FIELD_IF_RANGE, "\"e\"")
			.Records(FIELD_ACCEPT, "text/html"),
		// Names that only start or end like a recorded one are not recorded.
		HeadersOk("near misses are not recorded",
			  "Rang: a\r\nRanges: a\r\nX-Range: a\r\nAccepts: a\r\nAccept-Encodings: a\r\n"
			  "Accept-Encodin: a\r\nAccept-Language: a\r\nIf-Range-: a\r\nIf-None-Matc: a\r\n"
			  "If-Modified-Sinc: a\r\nIf-Match: a\r\nIf-Unmodified-Since: a\r\nAcc: a\r\n"
			  "If_Range: a\r\nIf-M: a\r\n\r\n"),
		HeadersOk("a recorded name in a value is not a line", "X: Range: bytes=0-1\r\n\r\n"),
		HeadersOk("a 64-byte name, then a recorded field", kName64 + ": Range\r\nRange: r\r\n\r\n")
			.Records(FIELD_RANGE, "r"),
		HeadersBad("missing colon", "Host example.com\r\n\r\n"),
		HeadersBad("empty name", ": value\r\n\r\n"),
		HeadersBad("space before colon", "Host : a\r\n\r\n"),
		HeadersBad("name of 65 bytes", kName65 + ": v\r\n\r\n"),
		HeadersBad("'[' in name", "X[: v\r\n\r\n"),
		HeadersBad("'{' in name", "X{: v\r\n\r\n"),
		HeadersBad("'\"' in name", "X\": v\r\n\r\n"),
		HeadersBad("'/' in name", "X/: v\r\n\r\n"),
		HeadersBad("obs-fold with SP", "X-A: 1\r\n b\r\n\r\n"),
		HeadersBad("obs-fold with HTAB", "X-A: 1\r\n\tb\r\n\r\n"),
		HeadersBad("first line starts with SP", " Host: a\r\n\r\n"),
		HeadersBad("NUL in value", "X-A: a\0b\r\n\r\n"s),
		HeadersBad("NUL in name", "X\0A: b\r\n\r\n"s),
		HeadersBad("DEL in value", "X-A: a\x7f\r\n\r\n"),
		HeadersBad("bare CR in value", "X-A: a\rb\r\n\r\n"),
		HeadersBad("0x80 byte in value", "X-A: caf\x80\r\n\r\n"),
		HeadersBad("0xff byte in value", "X-A: \xff\r\n\r\n"),
		HeadersBad("bare LF ends a header line", "Host: a\n\r\n"),
		HeadersBad("bare LF ends the block", "Host: a\r\n\n"),
		HeadersBad("bare LF as the only line", "\n"),
		HeadersBad("bare CR ends the block", "Host: a\r\n\rX"),
		HeadersBad("Content-Length of 20 digits", "Content-Length: 10000000000000000000\r\n\r\n"),
		HeadersBad("Content-Length of 20 digits, small value",
			   "Content-Length: 00000000000000000001\r\n\r\n"),
		HeadersBad("Content-Length empty", "Content-Length:\r\n\r\n"),
		HeadersBad("Content-Length not a number", "Content-Length: 1a\r\n\r\n"),
		HeadersBad("Content-Length negative", "Content-Length: -1\r\n\r\n"),
		HeadersBad("Content-Length with plus", "Content-Length: +1\r\n\r\n"),
		HeadersBad("Content-Length list", "Content-Length: 1, 1\r\n\r\n"),
		HeadersBad("differing Content-Length", "Content-Length: 7\r\nContent-Length: 8\r\n\r\n"),
		HeadersBad("Transfer-Encoding chunked", "Transfer-Encoding: chunked\r\n\r\n"),
		HeadersBad("transfer-encoding identity", "transfer-encoding: identity\r\n\r\n"),
		HeadersBad("Transfer-Encoding empty", "Transfer-Encoding:\r\n\r\n"),
		HeadersBad("Content-Length with Transfer-Encoding",
			   "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"),
		HeadersBad("duplicate Host", "Host: a\r\nHost: a\r\n\r\n"),
		HeadersBad("duplicate Host, other case", "Host: a\r\nhost: b\r\n\r\n"),
		HeadersBad("Host with space inside", "Host: exa mple.com\r\n\r\n"),
		HeadersBad("Host with userinfo", "Host: user@example.com\r\n\r\n"),
		HeadersBad("Host with path", "Host: example.com/x\r\n\r\n"),
		HeadersBad("Host with non-numeric port", "Host: example.com:http\r\n\r\n"),
		HeadersBad("Host with two ports", "Host: 1.2.3.4:80:80\r\n\r\n"),
		HeadersBad("Host IPv6 unclosed", "Host: [::1\r\n\r\n"),
		HeadersBad("Host IPv6 empty", "Host: []\r\n\r\n"),
		HeadersBad("Host IPv6 junk after ]", "Host: [::1]x\r\n\r\n"),
		HeadersBad("Host with quote", "Host: \"a\"\r\n\r\n"),
		HeadersBad("a bad line after recorded ones", "Range: bytes=0-1\r\nX : y\r\n\r\n"),
		HeadersBad("a recorded field with a control byte", "Range: bytes=0-1\x01\r\n\r\n"),
		HeadersBad("a recorded field folded over lines", "If-None-Match: \"a\",\r\n \"b\"\r\n\r\n"),
		// The table's bounds: a 16 KiB buffer holds at most HEADER_FIELD_LINES_MAX recorded
		// lines, each ending before FIELD_LINE_END_MAX; past either is BAD.
		RepeatedRange("as many recorded lines as 16 KiB can hold", HEADER_FIELD_LINES_MAX,
			      PARSE_COMPLETE),
		RepeatedRange("one recorded line more", HEADER_FIELD_LINES_MAX + 1, PARSE_BAD),
		RangeEndingAt("a recorded value ending at the last 16-bit offset", FIELD_LINE_END_MAX,
			      PARSE_COMPLETE),
		RangeEndingAt("a recorded value ending one byte later", FIELD_LINE_END_MAX + 1,
			      PARSE_BAD),
		HeadersPartial("line without its CRLF", "Host: a"),
		HeadersPartial("inside a recorded value", "Range: bytes=0-1\r\nAccept: te"),
		HeadersPartial("block without the final CRLF", "Host: a\r\n"),
		HeadersPartial("final CR without LF", "Host: a\r\n\r"),
	};
	return cases;
}

// Checks one header-block case, input ending against a guard page.
void ExpectHeaders(const hotpath_impl &impl, const HeaderCase &c)
{
	SCOPED_TRACE(c.label);
	GuardedBuffer buf(c.block + c.after);
	struct header_block out;
	memset(&out, 0xa5, sizeof(out));
	ASSERT_EQ(impl.parse_headers(buf.data(), buf.size(), &out), c.outcome);
	if (c.outcome != PARSE_COMPLETE)
		return;
	EXPECT_EQ(out.block_len, c.block.size());
	EXPECT_EQ(out.host_count, c.host_count);
	EXPECT_EQ(out.connection, c.connection);
	EXPECT_EQ(out.has_content_length, c.has_content_length ? 1 : 0);
	if (c.has_content_length) {
		EXPECT_EQ(out.content_length, c.content_length);
	}
	std::vector<Recorded> recorded;
	std::vector<size_t> at;
	unsigned seen = 0;
	for (uint32_t i = 0; i < out.field_count && i < HEADER_FIELD_LINES_MAX; i++) {
		const struct field_line &l = out.field[i];
		recorded.push_back({(recorded_field)l.id, std::string(buf.data() + l.at, l.len)});
		at.push_back(l.at);
		seen |= 1u << l.id;
	}
	EXPECT_EQ(recorded, c.recorded);
	EXPECT_EQ(at, RecordedValueOffsets(c.block)) << "each value where its line has it";
	EXPECT_EQ(out.fields_seen, seen);
}

// ---------------------------------------------------------------- whole heads

// Valid heads, split into their request line and header block, for the prefix tests.
struct ValidHead {
	const char *label;
	std::string line;
	std::string headers;
};

const std::vector<ValidHead> &ValidHeads()
{
	static const std::vector<ValidHead> heads = {
		{"minimal GET", "GET / HTTP/1.1\r\n", "\r\n"},
		{"HEAD with Host, Connection and Content-Length",
		 "HEAD /health?x=1 HTTP/1.0\r\n",
		 "Host: [::1]:8080\r\nConnection: keep-alive, close\r\nContent-Length: 0\r\n\r\n"},
		{"16-byte method with OWS in values", kMethod16 + " /metrics HTTP/1.1\r\n",
		 "User-Agent: curl/8.0\r\nX-A:\t a\tb \r\n\r\n"},
		{"8,000-byte target", "GET " + kTarget8000 + " HTTP/1.1\r\n", "Host: a\r\n\r\n"},
		{"every recorded field, one repeated", "GET /f HTTP/1.1\r\n",
		 "Host: a\r\nIf-None-Match: \"x\"\r\nif-modified-since:\t d \r\nIf-Range: \"x\"\r\n"
		 "Range: bytes=0-1\r\nAccept-Encoding: gzip\r\nAccept: */*\r\n"
		 "If-None-Match: \"y\"\r\n\r\n"},
	};
	return heads;
}

// Expects PARTIAL for every proper prefix of whole (each ending against a guard page) and
// COMPLETE for whole itself; parse is called as parse(buf, len).
template <typename Parse>
void ExpectEveryPrefixPartial(const std::string &whole, Parse parse)
{
	for (size_t len = 0; len < whole.size(); len++) {
		GuardedBuffer buf(whole.substr(0, len));
		ASSERT_EQ(parse(buf.data(), len), PARSE_PARTIAL) << "prefix of " << len << " bytes";
	}
	GuardedBuffer buf(whole);
	EXPECT_EQ(parse(buf.data(), whole.size()), PARSE_COMPLETE);
}

class ParserTest : public HotpathTest {};
INSTANTIATE_FOR_EVERY_HOTPATH(ParserTest);

TEST_P(ParserTest, RequestLineTable)
{
	for (const RequestLineCase &c : RequestLineCases())
		ExpectRequestLine(impl(), c);
}

TEST_P(ParserTest, HeaderTable)
{
	for (const HeaderCase &c : HeaderCases())
		ExpectHeaders(impl(), c);
}

// Each byte of a recorded name counts, whatever its case: the name with any one byte
// flipped to the other case is still recorded, with any one byte replaced by another
// tchar it is not (the assembly compares names in overlapping words).
TEST_P(ParserTest, EveryByteOfARecordedNameCounts)
{
	for (size_t id = 0; id < RecordedNames().size(); id++) {
		const std::string &name = RecordedNames()[id];
		for (size_t k = 0; k < name.size(); k++) {
			std::string flipped = name, other = name;
			flipped[k] = (char)toupper((unsigned char)name[k]);
			other[k] = name[k] == 'x' ? 'y' : 'x';
			HeaderCase recorded = HeadersOk("one byte in upper case", flipped + ": v\r\n\r\n")
						      .Records((recorded_field)id, "v");
			ExpectHeaders(impl(), recorded);
			ExpectHeaders(impl(), HeadersOk("one byte replaced", other + ": v\r\n\r\n"));
		}
	}
}

TEST_P(ParserTest, EveryPrefixOfARequestLineIsPartial)
{
	for (const ValidHead &head : ValidHeads()) {
		SCOPED_TRACE(head.label);
		ExpectEveryPrefixPartial(head.line, [&](const char *buf, size_t len) {
			struct request_line out;
			return impl().parse_request_line(buf, len, &out);
		});
	}
}

TEST_P(ParserTest, EveryPrefixOfAHeaderBlockIsPartial)
{
	for (const ValidHead &head : ValidHeads()) {
		SCOPED_TRACE(head.label);
		ExpectEveryPrefixPartial(head.headers, [&](const char *buf, size_t len) {
			struct header_block out;
			return impl().parse_headers(buf, len, &out);
		});
	}
}

// parse_request is the daemon's entry point; it calls the linked parsers by name, so it
// is tested once, not per implementation.
TEST(ParseRequestTest, EveryPrefixOfAHeadIsPartial)
{
	for (const ValidHead &head : ValidHeads()) {
		SCOPED_TRACE(head.label);
		ExpectEveryPrefixPartial(head.line + head.headers, [](const char *buf, size_t len) {
			struct http_request out;
			return parse_request(buf, len, &out);
		});
	}
}

struct RequestCase {
	const char *label;
	std::string head; // when COMPLETE, head_len must equal its size
	std::string after;
	parse_outcome outcome;
	uint8_t method = 0; // the rest only when COMPLETE
	std::string path = "";
	uint8_t connection = HTTP_CONNECTION_NONE;
	bool has_content_length = false;
	uint64_t content_length = 0;
};

TEST(ParseRequestTest, Table)
{
	const RequestCase cases[] = {
		{"GET with no headers", "GET / HTTP/1.1\r\n\r\n", "", PARSE_COMPLETE,
		 HTTP_METHOD_GET, "/", HTTP_CONNECTION_NONE, false, 0},
		{"HEAD with query, Host and keep-alive",
		 "HEAD /health?x=1 HTTP/1.0\r\nHost: a\r\nConnection: keep-alive\r\n\r\n", "",
		 PARSE_COMPLETE, HTTP_METHOD_HEAD, "/health", HTTP_CONNECTION_KEEP_ALIVE, false, 0},
		{"POST with a body: head_len stops before it",
		 "POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\n", "hello", PARSE_COMPLETE,
		 HTTP_METHOD_OTHER, "/x", HTTP_CONNECTION_NONE, true, 5},
		{"pipelined: only the first head", "GET /metrics HTTP/1.1\r\n\r\n",
		 "GET / HTTP/1.1\r\n\r\n", PARSE_COMPLETE, HTTP_METHOD_GET, "/metrics",
		 HTTP_CONNECTION_NONE, false, 0},
		{"good line, bad header", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", "", PARSE_BAD},
		{"405 method with a bad header is BAD", "PUT / HTTP/1.1\r\nX\0: a\r\n\r\n"s, "",
		 PARSE_BAD},
		{"lowercase method with good headers", "get / HTTP/1.1\r\nHost: a\r\n\r\n", "",
		 PARSE_BAD},
		{"line only", "GET / HTTP/1.1\r\n", "", PARSE_PARTIAL},
		{"8,001-byte target: 414 before any header is read",
		 "GET " + kTarget8001 + " HTTP/1.1\r\nHost : a\r\n\r\n", "", PARSE_TARGET_TOO_LONG},
		{"8,000-byte target, bad header", "GET " + kTarget8000 + " HTTP/1.1\r\nHost : a\r\n\r\n",
		 "", PARSE_BAD},
		{"inside a header", "GET / HTTP/1.1\r\nHost: a", "", PARSE_PARTIAL},
	};
	for (const RequestCase &c : cases) {
		SCOPED_TRACE(c.label);
		GuardedBuffer buf(c.head + c.after);
		struct http_request out;
		memset(&out, 0xa5, sizeof(out));
		ASSERT_EQ(parse_request(buf.data(), buf.size(), &out), c.outcome);
		if (c.outcome != PARSE_COMPLETE)
			continue;
		EXPECT_EQ(out.head_len, c.head.size());
		EXPECT_EQ(out.head_len, out.line.line_len + out.headers.block_len);
		EXPECT_EQ(out.line.method, c.method);
		EXPECT_EQ(std::string(out.line.target, out.line.path_len), c.path);
		EXPECT_EQ(out.headers.connection, c.connection);
		EXPECT_EQ(out.headers.has_content_length, c.has_content_length ? 1 : 0);
		if (c.has_content_length) {
			EXPECT_EQ(out.headers.content_length, c.content_length);
		}
	}
}

// The target's forms (RFC 9112 3.2, BEHAVIOUR 6.1): origin-form as it is, absolute-form
// (http only, a non-empty host, no userinfo) resolved to its path and authority, anything
// else BAD.
TEST(ParseRequestTest, TargetForms)
{
	struct Row {
		const char *label;
		std::string target;
		parse_outcome outcome;
		uint8_t form;          // the rest only when COMPLETE
		std::string authority;
		std::string path;      // line.target up to path_len
		std::string whole;     // line.target up to target_len
	};
	const Row rows[] = {
		{"origin-form", "/a?q", PARSE_COMPLETE, TARGET_ORIGIN, "", "/a", "/a?q"},
		{"asterisk for OPTIONS", "*", PARSE_COMPLETE, TARGET_ASTERISK, "", "*", "*"},
		{"absolute with path and query", "http://h.example:8080/a/b?x=1", PARSE_COMPLETE,
		 TARGET_ABSOLUTE, "h.example:8080", "/a/b", "/a/b?x=1"},
		{"scheme in upper case", "HTTP://h/", PARSE_COMPLETE, TARGET_ABSOLUTE, "h", "/", "/"},
		{"no path: '/'", "http://h:1234", PARSE_COMPLETE, TARGET_ABSOLUTE, "h:1234", "/", "/"},
		{"query without path: '/', query dropped", "http://h?hail=all", PARSE_COMPLETE,
		 TARGET_ABSOLUTE, "h", "/", "/"},
		{"IP literal", "http://[::1]:80/x", PARSE_COMPLETE, TARGET_ABSOLUTE, "[::1]:80", "/x",
		 "/x"},
		{"userinfo", "http://a:b@h/toto", PARSE_BAD},
		{"encoded userinfo", "http://a%12:b!&*$@h:1234/toto", PARSE_BAD},
		{"empty host", "http:///a", PARSE_BAD},
		{"port without host", "http://:80/a", PARSE_BAD},
		{"https", "https://h/a", PARSE_BAD},
		{"other scheme", "ftp://h/a", PARSE_BAD},
		{"scheme only", "http:", PARSE_BAD},
		{"relative name", "health", PARSE_BAD},
		{"authority-form", "h.example:443", PARSE_BAD},
		{"asterisk for GET", "*", PARSE_BAD},
	};
	for (const Row &r : rows) {
		SCOPED_TRACE(r.label);
		std::string head = "GET " + r.target + " HTTP/1.1\r\nHost: other\r\n\r\n";
		if (r.form == TARGET_ASTERISK)
			head = "OPTIONS" + head.substr(3);
		GuardedBuffer buf(head);
		struct http_request out;
		memset(&out, 0xa5, sizeof(out));
		ASSERT_EQ(parse_request(buf.data(), buf.size(), &out), r.outcome);
		if (r.outcome != PARSE_COMPLETE)
			continue;
		EXPECT_EQ(out.target_form, r.form);
		EXPECT_EQ(std::string(out.authority ? out.authority : "", out.authority_len),
			  r.authority);
		EXPECT_EQ(std::string(out.line.target, out.line.path_len), r.path);
		EXPECT_EQ(std::string(out.line.target, out.line.target_len), r.whole);
		EXPECT_EQ(out.head_len, head.size());
		EXPECT_EQ(out.line.method,
			  r.form == TARGET_ASTERISK ? HTTP_METHOD_OPTIONS : HTTP_METHOD_GET);
	}
}

// OPTIONS is told apart after the line is parsed; every other method stays OTHER.
TEST(ParseRequestTest, OptionsIsToldApart)
{
	const struct {
		const char *head;
		uint8_t method;
	} rows[] = {
		{"OPTIONS / HTTP/1.1\r\n\r\n", HTTP_METHOD_OPTIONS},
		{"OPTIONSX / HTTP/1.1\r\n\r\n", HTTP_METHOD_OTHER},
		{"OPTION / HTTP/1.1\r\n\r\n", HTTP_METHOD_OTHER},
		{"PUT / HTTP/1.1\r\n\r\n", HTTP_METHOD_OTHER},
	};
	for (const auto &r : rows) {
		SCOPED_TRACE(r.head);
		GuardedBuffer buf(r.head);
		struct http_request out;
		ASSERT_EQ(parse_request(buf.data(), buf.size(), &out), PARSE_COMPLETE);
		EXPECT_EQ(out.line.method, r.method);
	}
}

// The head limit (HTTP_HEAD_MAX, the slot's buffer): a head of exactly that many bytes with
// an 8,000-byte target is COMPLETE, its recorded line's offset fitting the table; the
// daemon answers 400 to a head it cannot find the end of within it (BEHAVIOUR 6.8, wire).
TEST(ParseRequestTest, AHeadOfExactlyTheLimitWithAnEightThousandByteTarget)
{
	const std::string line = "GET " + kTarget8000 + " HTTP/1.1\r\n";
	const std::string fixed = "Host: a\r\nRange: bytes=0-1\r\nX: \r\n\r\n";
	ASSERT_LT(line.size() + fixed.size(), (size_t)HTTP_HEAD_MAX);
	std::string head = line + fixed;
	head.insert(head.size() - 4, std::string(HTTP_HEAD_MAX - head.size(), 'v')); // X's value
	ASSERT_EQ(head.size(), (size_t)HTTP_HEAD_MAX);
	GuardedBuffer buf(head);
	struct http_request out;
	ASSERT_EQ(parse_request(buf.data(), buf.size(), &out), PARSE_COMPLETE);
	EXPECT_EQ(out.head_len, (uint32_t)HTTP_HEAD_MAX);
	EXPECT_EQ(out.line.target_len, (uint32_t)HTTP_TARGET_MAX);
	ASSERT_EQ(out.headers.field_count, 1u);
	EXPECT_EQ(out.headers.field[0].id, FIELD_RANGE);
	EXPECT_EQ(std::string(buf.data() + line.size() + out.headers.field[0].at,
			      out.headers.field[0].len),
		  "bytes=0-1");
}

// The recorded lines of a whole head: offsets count from the header block's first byte
// (the request line's end), where the answer reads them (answer_input.fields).
TEST(ParseRequestTest, RecordedOffsetsAreFromTheHeaderBlock)
{
	const std::string line = "GET /f.txt HTTP/1.1\r\n";
	const std::string block = "Host: a\r\nRange: bytes=0-1\r\n\r\n";
	GuardedBuffer buf(line + block);
	struct http_request out;
	ASSERT_EQ(parse_request(buf.data(), buf.size(), &out), PARSE_COMPLETE);
	ASSERT_EQ(out.headers.field_count, 1u);
	EXPECT_EQ(out.headers.field[0].id, FIELD_RANGE);
	EXPECT_EQ(out.headers.field[0].at, block.find("bytes"));
	EXPECT_EQ(out.headers.field[0].len, sizeof("bytes=0-1") - 1);
}

} // namespace
