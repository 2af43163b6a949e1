// --header checking and rendering (common/answer/extra_fields.h): one row per outcome.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/answer/extra_fields.h"

namespace {

TEST(ExtraFieldsTest, RendersOrRefusesOneWord)
{
	const struct {
		const char *label;
		std::string arg;
		enum extra_field_problem want;
		const char *rendered; // when EXTRA_OK
	} cases[] = {
		{"plain", "Cache-Control: max-age=60", EXTRA_OK, "Cache-Control: max-age=60\r\n"},
		{"no space", "X-A:b", EXTRA_OK, "X-A: b\r\n"},
		{"spaces trimmed", "X-A: \t b c \t", EXTRA_OK, "X-A: b c\r\n"},
		{"empty value", "X-Empty:", EXTRA_OK, "X-Empty: \r\n"},
		{"token bytes", "!#$%&'*+-.^_`|~09az: v", EXTRA_OK, "!#$%&'*+-.^_`|~09az: v\r\n"},
		{"no colon", "Cache-Control max-age=60", EXTRA_NO_COLON, nullptr},
		{"empty", "", EXTRA_NO_COLON, nullptr},
		{"empty name", ": v", EXTRA_BAD_NAME, nullptr},
		{"space in name", "X A: v", EXTRA_BAD_NAME, nullptr},
		{"space before colon", "X-A : v", EXTRA_BAD_NAME, nullptr},
		{"CR in value", "X-A: a\rb", EXTRA_BAD_VALUE, nullptr},
		{"LF in value", "X-A: a\nSet-Cookie: x", EXTRA_BAD_VALUE, nullptr},
		{"NUL in value", std::string("X-A: a\0b", 8), EXTRA_BAD_VALUE, nullptr},
		{"obs-text in value", "X-A: caf\xc3\xa9", EXTRA_BAD_VALUE, nullptr},
		{"DEL in value", "X-A: \x7f", EXTRA_BAD_VALUE, nullptr},
		{"Content-Length", "Content-Length: 5", EXTRA_RESERVED, nullptr},
		{"connection any case", "cONNECTION: close", EXTRA_RESERVED, nullptr},
		{"Date", "Date: x", EXTRA_RESERVED, nullptr},
		{"Content-Type", "Content-Type: text/html", EXTRA_RESERVED, nullptr},
		{"ETag (a file's validator)", "etag: \"x\"", EXTRA_RESERVED, nullptr},
		{"Last-Modified", "Last-Modified: x", EXTRA_RESERVED, nullptr},
		{"Content-Range", "Content-Range: x", EXTRA_RESERVED, nullptr},
		{"Vary (precompressed variants)", "Vary: Accept-Encoding", EXTRA_RESERVED, nullptr},
		{"longer than a reserved name", "Dates: x", EXTRA_OK, "Dates: x\r\n"},
		{"shorter than a reserved name", "Dat: x", EXTRA_OK, "Dat: x\r\n"},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		char out[64];
		size_t written = 0;
		EXPECT_EQ(extra_field_render(c.arg.data(), c.arg.size(), out, sizeof(out), &written),
			  c.want);
		if (c.want == EXTRA_OK) {
			EXPECT_EQ(std::string(out, written), c.rendered);
		}
	}
	char small[8];
	size_t written = 0;
	EXPECT_EQ(extra_field_render("X-A: bcdef", 10, small, sizeof(small), &written),
		  EXTRA_TOO_LONG);
}

TEST(ExtraFieldsTest, SetupRendersTheBlockInOrder)
{
	const char *good[] = {"A: 1", "B:2"};
	uint32_t bad = 99;
	ASSERT_EQ(extra_fields_setup(good, 2, &bad), EXTRA_OK);
	EXPECT_EQ(std::string(extra_fields.block, extra_fields.len), "A: 1\r\nB: 2\r\n\r\n");
	ASSERT_EQ(extra_fields_setup(good, 0, &bad), EXTRA_OK);
	EXPECT_EQ(extra_fields.len, 0u);
	const char *second_bad[] = {"A: 1", "B 2"};
	EXPECT_EQ(extra_fields_setup(second_bad, 2, &bad), EXTRA_NO_COLON);
	EXPECT_EQ(bad, 1u);
	std::string big = "X: " + std::string(EXTRA_FIELDS_BLOCK_MAX / 2, 'v');
	const char *too_much[] = {big.c_str(), big.c_str()};
	EXPECT_EQ(extra_fields_setup(too_much, 2, &bad), EXTRA_TOO_LONG);
	EXPECT_EQ(bad, 1u);
	for (int p = 0; p < EXTRA_PROBLEM_COUNT; p++)
		EXPECT_NE(extra_field_reasons[p], nullptr) << p;
}

} // namespace
