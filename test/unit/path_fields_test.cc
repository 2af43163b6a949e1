// --header-for's patterns, matching and rendering (common/answer/path_fields.h,
// BEHAVIOUR 10.13): one row per rule.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/answer/path_fields.h"
#include "common/base/span.h"

namespace {

TEST(PathFieldsTest, PatternSyntax)
{
	const struct {
		const char *pattern;
		int ok;
	} cases[] = {
		{"/", 1},        {"/assets/", 1},  {"/a/b/", 1},   {"*.zip", 1}, {"*.Z", 1},
		{"", 0},         {"/assets", 0},   {"assets/", 0}, {"*.", 0},    {"*", 0},
		{"*.tar.gz", 0}, {"*.a/b", 0},     {"*.*", 0},     {"zip", 0},   {".zip", 0},
		{"**.zip", 0},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.pattern);
		EXPECT_EQ(path_pattern_check(c.pattern, strlen(c.pattern)), c.ok);
	}
	std::string longest = "/" + std::string(PATH_PATTERN_MAX - 2, 'a') + "/";
	EXPECT_EQ(path_pattern_check(longest.data(), longest.size()), 1);
	longest.insert(1, "a");
	EXPECT_EQ(path_pattern_check(longest.data(), longest.size()), 0);
}

// A prefix against "/" + the name, byte for byte; an extension against the text after
// the last '.' of the last component, ignoring ASCII case.
TEST(PathFieldsTest, Matching)
{
	const struct {
		const char *pattern;
		const char *name;
		int match;
	} cases[] = {
		{"/", "index.html", 1},
		{"/assets/", "assets/app.js", 1},
		{"/assets/", "assets/img/a.png", 1},
		{"/assets/", "assets", 0},        // the directory's own path: no file has it
		{"/assets/", "Assets/app.js", 0}, // case-sensitive, like lookup
		{"/assets/", "assetsx/app.js", 0},
		{"/assets/", "x/assets/app.js", 0},
		{"*.zip", "a.zip", 1},
		{"*.zip", "dir/A.ZIP", 1},
		{"*.ZIP", "a.zip", 1},
		{"*.zip", "a.zip.gz", 0},
		{"*.zip", "zip", 0},
		{"*.zip", "a.zip/readme", 0},
		{"*.zip", "azip", 0},
		{"*.gz", "a.tar.gz", 1},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(std::string(c.pattern) + " " + c.name);
		EXPECT_EQ(path_pattern_matches(c.pattern, strlen(c.pattern), c.name, strlen(c.name)),
			  c.match);
	}
}

// Every matching field, in command-line order, as "\r\nName: value"; the same fields are
// refused as --header refuses them (extra_fields.h's checker).
TEST(PathFieldsTest, RendersInOrderAndRefuses)
{
	const char *patterns[] = {"/assets/", "*.js", "/"};
	const char *fields[] = {"Cache-Control: max-age=31536000, immutable", "X-Js:  yes ",
				"X-All: 1"};
	uint32_t bad = 99;
	ASSERT_EQ(path_fields_setup(patterns, fields, 3, &bad), nullptr);
	std::vector<char> out(path_fields_max());
	size_t n = path_fields_render(LITERAL("assets/app.js"), out.data());
	EXPECT_EQ(std::string(out.data(), n),
		  "\r\nCache-Control: max-age=31536000, immutable\r\nX-Js: yes\r\nX-All: 1");
	EXPECT_EQ(n, path_fields_max()) << "a name matching all takes the whole bound";
	n = path_fields_render(LITERAL("index.html"), out.data());
	EXPECT_EQ(std::string(out.data(), n), "\r\nX-All: 1");

	const struct {
		const char *pattern;
		const char *field;
		const char *why;
	} refused[] = {
		{"assets", "X: 1", "a pattern is a prefix '/dir/' or '*.ext'"},
		{"/a/", "ETag: x", "the daemon writes that field itself"},
		{"*.zip", "content-type: application/zip", "the daemon writes that field itself"},
		{"/a/", "X A: v", "the name must be a token (RFC 9110 5.6.2)"},
		{"/a/", "no colon", "expected 'Name: value'"},
	};
	for (const auto &r : refused) {
		SCOPED_TRACE(r.field);
		const char *p[] = {"/", r.pattern};
		const char *f[] = {"X-Ok: 1", r.field};
		const char *why = path_fields_setup(p, f, 2, &bad);
		ASSERT_NE(why, nullptr);
		EXPECT_STREQ(why, r.why);
		EXPECT_EQ(bad, 1u);
		EXPECT_EQ(path_fields_max(), 0u) << "nothing kept after a refusal";
	}
	std::string big = "X-Big: " + std::string(PATH_FIELDS_BLOCK_MAX / 2, 'v');
	const char *p[] = {"/", "/"};
	const char *f[] = {big.c_str(), big.c_str()};
	EXPECT_STREQ(path_fields_setup(p, f, 2, &bad),
		     "the --header-for fields are too long together (2 KiB)");
	EXPECT_EQ(path_fields_setup(p, f, 1, &bad), nullptr);
	EXPECT_EQ(path_fields_setup(p, f, 0, &bad), nullptr);
	EXPECT_EQ(path_fields_max(), 0u);
}

} // namespace
