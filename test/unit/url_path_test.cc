// Percent-decoding of request paths and percent-encoding (common/http/url_path.h): one named row per case, each
// input ending against a guard page so any read past it crashes.
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <string>

#include <gtest/gtest.h>

#include "common/http/url_path.h"
#include "test/unit/guarded_buffer.h"

namespace {

struct DecodeRow {
	const char *label;
	std::string in;
	size_t cap;
	url_path_outcome outcome;
	std::string out; // URL_PATH_OK only
};

const DecodeRow kRows[] = {
	{"plain bytes pass", "a/b.txt", 64, URL_PATH_OK, "a/b.txt"},
	{"empty", "", 64, URL_PATH_OK, ""},
	{"space", "a%20b", 64, URL_PATH_OK, "a b"},
	{"upper and lower hex", "%C3%a9", 64, URL_PATH_OK, "\xc3\xa9"},
	{"encoded percent is not decoded twice", "%2541", 64, URL_PATH_OK, "%41"},
	{"encoded dot", "%2e%2E", 64, URL_PATH_OK, ".."},
	{"0xff", "%ff", 64, URL_PATH_OK, "\xff"},
	{"encoded slash lower", "a%2fb", 64, URL_PATH_BAD, ""},
	{"encoded slash upper", "a%2Fb", 64, URL_PATH_BAD, ""},
	{"encoded NUL", "a%00", 64, URL_PATH_BAD, ""},
	{"percent at the end", "a%", 64, URL_PATH_BAD, ""},
	{"one digit at the end", "a%4", 64, URL_PATH_BAD, ""},
	{"not hex", "%g0", 64, URL_PATH_BAD, ""},
	{"second digit not hex", "%0g", 64, URL_PATH_BAD, ""},
	{"letter past f", "%4z", 64, URL_PATH_BAD, ""},
	{"exactly cap", "abcd", 4, URL_PATH_OK, "abcd"},
	{"escape filling cap", "abc%41", 4, URL_PATH_OK, "abcA"},
	{"one past cap", "abcde", 4, URL_PATH_TOO_LONG, ""},
	{"bad escape past cap is still bad", "abcdef%2f", 4, URL_PATH_BAD, ""},
	{"cut escape past cap is still bad", "abcdef%", 4, URL_PATH_BAD, ""},
};

TEST(UrlPathTest, Decode)
{
	for (const DecodeRow &row : kRows) {
		SCOPED_TRACE(row.label);
		GuardedBuffer in(row.in);
		GuardedBuffer out(row.cap);
		size_t len = 12345;
		url_path_outcome got = url_path_decode(in.data(), row.in.size(),
						       out.mutable_data(), row.cap, &len);
		EXPECT_EQ(got, row.outcome);
		if (row.outcome == URL_PATH_OK) {
			EXPECT_EQ(std::string(out.data(), len), row.out);
		}
	}
}

// Dot segments (RFC 3986 5.2.4, BEHAVIOUR 10.4), on decoded paths; a climb above the root
// is refused rather than stopped at the root.
TEST(UrlPathTest, RemoveDots)
{
	struct Row {
		const char *label;
		std::string in;
		std::string out; // "" for URL_PATH_ABOVE_ROOT
	};
	const Row rows[] = {
		{"root", "/", "/"},
		{"no dots", "/a/b.txt", "/a/b.txt"},
		{"dot segment", "/./a.txt", "/a.txt"},
		{"dot-dot after a segment", "/sub/../a.txt", "/a.txt"},
		{"two levels", "/a/b/../../c", "/c"},
		{"final dot: the directory", "/sub/.", "/sub/"},
		{"final dot-dot: the parent", "/sub/..", "/"},
		{"dot-dot then slash", "/a/b/../", "/a/"},
		{"empty segment popped", "/a//../b", "/a/b"},
		{"dots inside names stay", "/a..b/.c/c./...", "/a..b/.c/c./..."},
		{"trailing slash kept", "/a/./", "/a/"},
		{"double slash kept", "//f.txt", "//f.txt"},
		{"above the root", "/..", ""},
		{"above the root later", "/a/../../x", ""},
		{"above the root at the end", "/a/../..", ""},
	};
	for (const Row &r : rows) {
		SCOPED_TRACE(r.label);
		GuardedBuffer buf(r.in); // ends against a guard page: no read or write past it
		size_t n = url_path_remove_dots(buf.mutable_data(), r.in.size());
		if (r.out.empty()) {
			EXPECT_EQ(n, URL_PATH_ABOVE_ROOT);
			continue;
		}
		ASSERT_NE(n, URL_PATH_ABOVE_ROOT);
		EXPECT_EQ(std::string(buf.data(), n), r.out);
	}
}

// Every byte value but '/' and NUL survives its own escape, in either hex case.
TEST(UrlPathTest, EveryByteRoundTrips)
{
	static const char hex[] = "0123456789abcdef";
	for (int b = 1; b < 256; b++) {
		for (int upper = 0; upper < 2; upper++) {
			std::string in = "%";
			in += upper ? (char)toupper(hex[b >> 4]) : hex[b >> 4];
			in += upper ? (char)toupper(hex[b & 15]) : hex[b & 15];
			char out[1];
			size_t len = 0;
			url_path_outcome got = url_path_decode(in.data(), in.size(), out, 1, &len);
			if (b == '/') {
				EXPECT_EQ(got, URL_PATH_BAD) << in;
				continue;
			}
			ASSERT_EQ(got, URL_PATH_OK) << in;
			EXPECT_EQ(len, 1u);
			EXPECT_EQ((unsigned char)out[0], b) << in;
		}
	}
}

} // namespace

namespace {

struct EncodeRow {
	const char *label;
	std::string in;
	url_keep keep;
	std::string out;
};

const EncodeRow kEncodeRows[] = {
	{"unreserved pass everywhere", "Az09-._~", URL_KEEP_UNRESERVED, "Az09-._~"},
	{"a link encodes sub-delims and '/'", "a b/!", URL_KEEP_UNRESERVED, "a%20b%2F%21"},
	{"backslash", "/\\evil.com", URL_KEEP_PATH, "/%5Cevil.com"},
	{"sub-delims, ':' and '@' pass", "!$&'()*+,;=:@", URL_KEEP_PATH, "!$&'()*+,;=:@"},
	{"slash passes in a path", "/a/b/", URL_KEEP_PATH, "/a/b/"},
	{"the rest of 0x21-0x7e", "\"#<>[]^`{|}", URL_KEEP_PATH, "%22%23%3C%3E%5B%5D%5E%60%7B%7C%7D"},
	{"'?' in a path", "a?b", URL_KEEP_PATH, "a%3Fb"},
	{"'?' in a query", "?a?b", URL_KEEP_QUERY, "?a?b"},
	{"'#' in a query", "?a#b", URL_KEEP_QUERY, "?a%23b"},
	{"pct-encoded stays", "%5c%2F%41", URL_KEEP_PATH, "%5c%2F%41"},
	{"lone percent", "a%", URL_KEEP_PATH, "a%25"},
	{"percent and one digit", "a%4", URL_KEEP_PATH, "a%254"},
	{"percent and not hex", "%zz", URL_KEEP_QUERY, "%25zz"},
	{"control and high bytes", std::string("\x00\x1f\x7f\x80\xff", 5), URL_KEEP_PATH,
	 "%00%1F%7F%80%FF"},
	{"space", "a b", URL_KEEP_QUERY, "a%20b"},
	{"empty", "", URL_KEEP_PATH, ""},
};

// Every byte outside the kept set becomes %HH; the length alone (out NULL) is the same.
TEST(UrlPathTest, Encode)
{
	for (const EncodeRow &row : kEncodeRows) {
		SCOPED_TRACE(row.label);
		GuardedBuffer in(row.in);
		GuardedBuffer out(URL_ENCODED_MAX * row.in.size());
		size_t n = url_encode(out.mutable_data(), in.data(), row.in.size(), row.keep);
		EXPECT_EQ(std::string(out.data(), n), row.out);
		EXPECT_EQ(url_encode(nullptr, in.data(), row.in.size(), row.keep), n);
	}
}

// No byte value is left out: each one alone is kept, or encoded as its own %HH.
TEST(UrlPathTest, EncodeEveryByte)
{
	for (int c = 0; c < 256; c++) {
		std::string one(1, static_cast<char>(c));
		char out[URL_ENCODED_MAX];
		size_t n = url_encode(out, one.data(), 1, URL_KEEP_PATH);
		if (n == 1) {
			EXPECT_TRUE(c != 0 && (isalnum(c) || strchr("-._~!$&'()*+,;=:@/", c))) << c;
			EXPECT_EQ(out[0], static_cast<char>(c));
			continue;
		}
		char want[4];
		snprintf(want, sizeof want, "%%%02X", c);
		EXPECT_EQ(std::string(out, n), want) << c;
	}
}

} // namespace
