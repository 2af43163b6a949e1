// On-demand header field lookup (common/http/http_fields.h), over blocks that end against a
// PROT_NONE page so a read past the block's final CRLF faults.
#include <string.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/http/http_fields.h"
#include "test/unit/guarded_buffer.h"

namespace {

// Every value of the field `name` in block, in order, as strings.
std::vector<std::string> AllValues(const std::string &block, const char *name)
{
	GuardedBuffer buf(block);
	struct field_cursor c = field_cursor_start(buf.data(), (uint32_t)buf.size());
	std::vector<std::string> values;
	struct text_span v;
	while (field_next(&c, name, strlen(name), &v))
		values.emplace_back(v.text, v.len);
	return values;
}

TEST(HttpFieldsTest, FindsEveryOccurrenceTrimmedAndCaseInsensitive)
{
	const struct {
		const char *label;
		const char *block;
		const char *name;
		std::vector<std::string> values;
	} cases[] = {
		{"empty block", "\r\n", "Range", {}},
		{"absent", "Host: x\r\n\r\n", "Range", {}},
		{"one", "Range: bytes=0-9\r\n\r\n", "Range", {"bytes=0-9"}},
		{"name case folds", "rAnGe: bytes=1-\r\n\r\n", "Range", {"bytes=1-"}},
		{"ows trimmed both sides", "Accept:  \t text/plain \t\r\n\r\n", "Accept",
		 {"text/plain"}},
		{"empty value", "If-None-Match:\r\n\r\n", "If-None-Match", {""}},
		{"only ows", "If-None-Match: \t \r\n\r\n", "If-None-Match", {""}},
		{"two lines, in order", "Accept-Encoding: gzip\r\nHost: x\r\nAccept-Encoding: br\r\n\r\n",
		 "Accept-Encoding", {"gzip", "br"}},
		{"prefix of a longer name is not a match", "Accept-Encoding: br\r\n\r\n", "Accept", {}},
		{"longer than the field is not a match", "Accept: */*\r\n\r\n", "Accept-Encoding", {}},
		{"name in a value is not a match", "X: Range: no\r\n\r\n", "Range", {}},
		{"colon inside the value kept", "If-Range: Mon, 01 Jan 2024 00:00:00 GMT\r\n\r\n",
		 "If-Range", {"Mon, 01 Jan 2024 00:00:00 GMT"}},
	};
	for (const auto &tc : cases) {
		SCOPED_TRACE(tc.label);
		EXPECT_EQ(AllValues(tc.block, tc.name), tc.values);
	}
}

TEST(HttpFieldsTest, FieldFindReturnsTheFirst)
{
	const std::string block = "Accept: a\r\nAccept: b\r\n\r\n";
	GuardedBuffer buf(block);
	struct text_span v;
	ASSERT_EQ(field_find(buf.data(), (uint32_t)buf.size(), LITERAL("accept"), &v), 1);
	EXPECT_EQ(std::string(v.text, v.len), "a");
	EXPECT_EQ(field_find(buf.data(), (uint32_t)buf.size(), LITERAL("Range"), &v), 0);
}

TEST(HttpFieldsTest, FieldScanFindsTheFirstOfEachNameInOneWalk)
{
	const std::string block =
		"range: bytes=0-1\r\nHost: x\r\nIf-None-Match: \"a\"\r\nRange: bytes=5-\r\n\r\n";
	GuardedBuffer buf(block);
	const struct text_span names[] = {{LITERAL("Range")}, {LITERAL("If-Modified-Since")},
					  {LITERAL("If-None-Match")}};
	struct text_span values[3] = {};
	uint32_t found = field_scan(buf.data(), (uint32_t)buf.size(), names, 3, values);
	EXPECT_EQ(found, 0x5u);
	EXPECT_EQ(std::string(values[0].text, values[0].len), "bytes=0-1");
	EXPECT_EQ(values[1].text, nullptr) << "left alone when absent";
	EXPECT_EQ(std::string(values[2].text, values[2].len), "\"a\"");
	GuardedBuffer empty(std::string("\r\n"));
	EXPECT_EQ(field_scan(empty.data(), (uint32_t)empty.size(), names, 3, values), 0u);
}

} // namespace
