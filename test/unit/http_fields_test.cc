// Reading the recorded header fields (common/http/http_fields.h) of blocks parse_headers
// accepted, each ending against a PROT_NONE page so a value read past its block faults.
#include <stdint.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/http/http_fields.h"
#include "common/http/http_parse.h"
#include "test/unit/guarded_buffer.h"

namespace {

// Every value header_field_next gives for field id of block, in order, after checking
// that header_field_first gives the first and header_field_seen agrees.
std::vector<std::string> AllValues(const std::string &block, recorded_field id)
{
	GuardedBuffer buf(block);
	struct header_block h;
	EXPECT_EQ(parse_headers(buf.data(), buf.size(), &h), PARSE_COMPLETE);
	std::vector<std::string> values;
	struct text_span v;
	for (uint32_t i = 0; header_field_next(&h, buf.data(), id, &i, &v);) {
		EXPECT_TRUE(v.text >= buf.data() && v.text + v.len <= buf.data() + h.block_len);
		values.emplace_back(v.text, v.len);
	}
	EXPECT_EQ(header_field_seen(&h, id), !values.empty());
	struct text_span first;
	EXPECT_EQ(header_field_first(&h, buf.data(), id, &first), !values.empty() ? 1 : 0);
	if (!values.empty()) {
		EXPECT_EQ(std::string(first.text, first.len), values.front());
	}
	return values;
}

TEST(HttpFieldsTest, ReadsEveryRecordedLineOfAFieldInOrder)
{
	const struct {
		const char *label;
		const char *block;
		recorded_field id;
		std::vector<std::string> values;
	} cases[] = {
		{"empty block", "\r\n", FIELD_RANGE, {}},
		{"absent", "Host: x\r\nAccept: */*\r\n\r\n", FIELD_RANGE, {}},
		{"one", "Range: bytes=0-9\r\n\r\n", FIELD_RANGE, {"bytes=0-9"}},
		{"name case folds", "rAnGe: bytes=1-\r\n\r\n", FIELD_RANGE, {"bytes=1-"}},
		{"ows trimmed both sides", "Accept:  \t text/plain \t\r\n\r\n", FIELD_ACCEPT,
		 {"text/plain"}},
		{"empty value", "If-None-Match:\r\n\r\n", FIELD_IF_NONE_MATCH, {""}},
		{"only ows", "If-None-Match: \t \r\n\r\n", FIELD_IF_NONE_MATCH, {""}},
		{"two lines, in order, others between",
		 "Accept-Encoding: gzip\r\nAccept: a\r\nHost: x\r\nAccept-Encoding: br\r\n\r\n",
		 FIELD_ACCEPT_ENCODING, {"gzip", "br"}},
		{"the other field's lines are skipped",
		 "Accept-Encoding: gzip\r\nAccept: a\r\nHost: x\r\nAccept: b\r\n\r\n", FIELD_ACCEPT,
		 {"a", "b"}},
		{"a longer name is another field", "Accept-Encoding: br\r\n\r\n", FIELD_ACCEPT, {}},
		{"the name in a value is no line", "X: Range: no\r\n\r\n", FIELD_RANGE, {}},
		{"colons inside the value kept", "If-Range: Mon, 01 Jan 2024 00:00:00 GMT\r\n\r\n",
		 FIELD_IF_RANGE, {"Mon, 01 Jan 2024 00:00:00 GMT"}},
		{"three lines", "If-Modified-Since: a\r\nIf-Modified-Since: b\r\nIf-Modified-Since: c\r\n\r\n",
		 FIELD_IF_MODIFIED_SINCE, {"a", "b", "c"}},
	};
	for (const auto &tc : cases) {
		SCOPED_TRACE(tc.label);
		EXPECT_EQ(AllValues(tc.block, tc.id), tc.values);
	}
}

} // namespace
