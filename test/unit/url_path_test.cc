// Percent-decoding of request paths (common/http/url_path.h): one named row per case, each
// input ending against a guard page so any read past it crashes.
#include <ctype.h>

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
