// One access-log line (common/serve/access_log_line.h, BEHAVIOUR 14): the three formats
// byte for byte from one record, the escapes of every byte value against a model of
// each format's rule, the 512-byte cut, and the bytes field of a response cut short.
#include <stdint.h>
#include <string.h>

#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "common/base/counters.h"
#include "common/serve/access_log_line.h"

namespace {

const char kDate[] = "[01/Dec/2026:05:04:43 +0000]";

// The record of req (response_bytes long, arrived at 1000 µs) in format, then its line
// finished at now_us with left bytes not sent.
std::string LineOf(const struct access_log_request &req, uint64_t response_bytes,
		   enum access_log_format format, uint64_t left = 0, uint64_t now_us = 1041)
{
	alignas(8) char record[ACCESS_LOG_RECORD_MAX];
	size_t size = access_log_record_make(record, &req, 1000, response_bytes, format);
	EXPECT_EQ(size % 8, 0u);
	EXPECT_LE(size, (size_t)ACCESS_LOG_RECORD_MAX);
	auto *r = reinterpret_cast<struct access_log_record *>(record);
	EXPECT_EQ(r->size, size);
	r->left = left;
	struct access_log_moment m = {"127.0.0.1", 9, kDate, now_us};
	char line[ACCESS_LOG_LINE_MAX];
	size_t n = access_log_line_render(line, r, &m, format);
	EXPECT_LE(n, (size_t)ACCESS_LOG_LINE_MAX);
	return std::string(line, n);
}

// The request whose line and fields are line and fields: views, so that the request
// points at a literal or at the caller's string, never at a temporary copy.
struct access_log_request Request(std::string_view line, std::string_view fields,
				  uint64_t body, const char *coding = "")
{
	struct access_log_request req = {};
	req.line = {line.data(), (uint32_t)line.size()};
	req.fields = {fields.data(), (uint32_t)fields.size()};
	req.coding = {coding, (uint32_t)strlen(coding)};
	req.body_bytes = body;
	req.status_counter = C_responses_200;
	return req;
}

TEST(AccessLogLineTest, EachFormatByteForByte)
{
	const std::string line = "GET /guide.html HTTP/1.1";
	const std::string fields = "Host: x\r\nReferer: https://example.org/\r\n"
				   "User-Agent: Mozilla/5.0 (X11; Linux x86_64)\r\n\r\n";
	struct access_log_request req = Request(line, fields, 24269, "gzip");
	EXPECT_EQ(LineOf(req, 24500, ACCESS_LOG_COMMON),
		  "127.0.0.1 - - [01/Dec/2026:05:04:43 +0000] \"GET /guide.html HTTP/1.1\" 200 "
		  "24269 41 gzip\n");
	EXPECT_EQ(LineOf(req, 24500, ACCESS_LOG_COMBINED),
		  "127.0.0.1 - - [01/Dec/2026:05:04:43 +0000] \"GET /guide.html HTTP/1.1\" 200 "
		  "24269 \"https://example.org/\" \"Mozilla/5.0 (X11; Linux x86_64)\" 41 gzip\n");
	EXPECT_EQ(LineOf(req, 24500, ACCESS_LOG_JSON),
		  "{\"remote_addr\":\"127.0.0.1\",\"time_local\":\"01/Dec/2026:05:04:43 +0000\","
		  "\"request\":\"GET /guide.html HTTP/1.1\",\"status\":200,\"body_bytes_sent\":24269,"
		  "\"http_referer\":\"https://example.org/\",\"http_user_agent\":\"Mozilla/5.0 (X11; "
		  "Linux x86_64)\",\"service_us\":41,\"content_encoding\":\"gzip\"}\n");
}

// With --site every format ends with the request's host: " host" ("-" when none) in
// common and combined, a last "host" key (null when none) in json; a long host is kept to
// ACCESS_LOG_VHOST_MAX bytes; a 421 shows its code.
TEST(AccessLogLineTest, SiteHostEndsEveryFormat)
{
	const std::string line = "GET / HTTP/1.1";
	struct access_log_request req = Request(line, "", 3);
	req.vhost_on = 1;
	req.vhost = {"a.test", 6};
	const std::string head = "127.0.0.1 - - [01/Dec/2026:05:04:43 +0000] \"GET / HTTP/1.1\" 200 3 ";
	EXPECT_EQ(LineOf(req, 100, ACCESS_LOG_COMMON), head + "41 - a.test\n");
	EXPECT_EQ(LineOf(req, 100, ACCESS_LOG_COMBINED), head + "\"-\" \"-\" 41 - a.test\n");
	std::string json = LineOf(req, 100, ACCESS_LOG_JSON);
	EXPECT_EQ(json.substr(json.size() - 41),
		  "\"content_encoding\":null,\"host\":\"a.test\"}\n");
	req.vhost = {"", 0};
	req.status_counter = C_responses_421;
	EXPECT_EQ(LineOf(req, 100, ACCESS_LOG_COMMON),
		  "127.0.0.1 - - [01/Dec/2026:05:04:43 +0000] \"GET / HTTP/1.1\" 421 3 41 - -\n");
	json = LineOf(req, 100, ACCESS_LOG_JSON);
	EXPECT_EQ(json.substr(json.size() - 37), "\"content_encoding\":null,\"host\":null}\n");
	const std::string longest(ACCESS_LOG_VHOST_MAX + 40, 'h');
	req.vhost = {longest.data(), (uint32_t)longest.size()};
	EXPECT_EQ(LineOf(req, 100, ACCESS_LOG_COMMON),
		  "127.0.0.1 - - [01/Dec/2026:05:04:43 +0000] \"GET / HTTP/1.1\" 421 3 41 - " +
			  longest.substr(0, ACCESS_LOG_VHOST_MAX) + "\n");
}

TEST(AccessLogLineTest, NothingParsedIsDashOrNull)
{
	struct access_log_request req = Request("", "", 12);
	req.status_counter = C_responses_400;
	EXPECT_EQ(LineOf(req, 100, ACCESS_LOG_COMBINED),
		  "127.0.0.1 - - [01/Dec/2026:05:04:43 +0000] \"-\" 400 12 \"-\" \"-\" 41 -\n");
	EXPECT_EQ(LineOf(req, 100, ACCESS_LOG_JSON),
		  "{\"remote_addr\":\"127.0.0.1\",\"time_local\":\"01/Dec/2026:05:04:43 +0000\","
		  "\"request\":null,\"status\":400,\"body_bytes_sent\":12,\"http_referer\":null,"
		  "\"http_user_agent\":null,\"service_us\":41,\"content_encoding\":null}\n");
}

// A response cut short: its bytes field counts only the body bytes that left.
TEST(AccessLogLineTest, CutResponseCountsTheBodyBytesThatLeft)
{
	struct access_log_request req = Request("GET /big HTTP/1.1", "\r\n", 1000);
	// 1,200 bytes in all: a 200-byte head, a 1,000-byte body.
	EXPECT_NE(LineOf(req, 1200, ACCESS_LOG_COMMON, 1200).find("\" 200 - 41 -\n"),
		  std::string::npos) << "nothing left";
	EXPECT_NE(LineOf(req, 1200, ACCESS_LOG_COMMON, 1100).find("\" 200 - 41 -\n"),
		  std::string::npos) << "part of the head";
	EXPECT_NE(LineOf(req, 1200, ACCESS_LOG_COMMON, 700).find("\" 200 300 41 -\n"),
		  std::string::npos);
	EXPECT_NE(LineOf(req, 1200, ACCESS_LOG_JSON, 1200).find("\"body_bytes_sent\":0,"),
		  std::string::npos);
	EXPECT_NE(LineOf(req, 1200, ACCESS_LOG_COMMON, 0, 900).find("\" 200 1000 0 -\n"),
		  std::string::npos) << "a clock before the arrival gives 0, never a wrap";
}

// The model: BEHAVIOUR 14's rule for each format.
std::string Escaped(unsigned char c, enum access_log_format format)
{
	static const char upper[] = "0123456789ABCDEF", lower[] = "0123456789abcdef";
	bool plain = c >= 0x20 && c < 0x7f;
	if (plain && c != '"' && c != '\\')
		return std::string(1, (char)c);
	if (format == ACCESS_LOG_JSON)
		return plain ? std::string("\\") + (char)c
			     : std::string("\\u00") + lower[c >> 4] + lower[c & 15];
	return std::string("\\x") + upper[c >> 4] + upper[c & 15];
}

// The User-Agent text of a combined or json line (between its quotes).
std::string AgentOf(const std::string &line, enum access_log_format format)
{
	std::string key = format == ACCESS_LOG_JSON ? "\"http_user_agent\":\"" : "\" \"";
	size_t at = line.find(key); /* combined: the quotes between Referer and User-Agent */
	size_t end = line.find(format == ACCESS_LOG_JSON ? "\",\"service_us\"" : "\" 41 ");
	return at == std::string::npos || end == std::string::npos
		       ? "<not found>"
		       : line.substr(at + key.size(), end - at - key.size());
}

// Every byte but CR and LF (which end a line), between two letters so that no byte is
// OWS at an edge, 64 at a time (at most 384 escaped bytes: under the cut).
TEST(AccessLogLineTest, EveryByteEscapedAsTheFormatSays)
{
	for (enum access_log_format format : {ACCESS_LOG_COMBINED, ACCESS_LOG_JSON}) {
		for (int first = 0; first < 256; first += 64) {
			std::string value = "a", want = "a";
			for (int c = first; c < first + 64; c++) {
				if (c == '\r' || c == '\n')
					continue;
				value += (char)c;
				want += Escaped((unsigned char)c, format);
			}
			value += "z";
			want += "z";
			std::string fields = "User-Agent:" + value + "\r\n\r\n";
			std::string line =
				LineOf(Request("GET / HTTP/1.1", fields, 1), 100, format);
			EXPECT_EQ(AgentOf(line, format), want) << "format " << format << " from " << first;
		}
	}
}

// Over 512 escaped bytes: cut before the escape that would pass them, then "...": 200
// plain bytes, then as many escaped tabs as fit in the 312 bytes left.
TEST(AccessLogLineTest, LongValuesAreCutAtAWholeEscape)
{
	std::string fields = "User-Agent: " + std::string(200, 'b') + std::string(200, '\t') +
			     "c\r\n\r\n";
	const struct {
		enum access_log_format format;
		const char *tab;
		int fit;
	} cases[] = {{ACCESS_LOG_COMBINED, "\\x09", 78}, {ACCESS_LOG_JSON, "\\u0009", 52}};
	for (const auto &c : cases) {
		std::string want = std::string(200, 'b');
		for (int i = 0; i < c.fit; i++)
			want += c.tab;
		EXPECT_EQ(AgentOf(LineOf(Request("GET / HTTP/1.1", fields, 1), 100, c.format),
				  c.format),
			  want + "...");
	}
}

} // namespace
