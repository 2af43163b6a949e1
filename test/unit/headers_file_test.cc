// --headers FILE (common/process/headers_file.h, BEHAVIOUR 10.13): the _headers subset as
// --header-for pairs, in file order, after those already given; every refusal with its
// line. The fixture follows the examples of Netlify's and Cloudflare Pages'
// documentation, in our own words.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/process/headers_file.h"

namespace {

struct Parsed {
	const char *pattern[4] = {"/given/", nullptr, nullptr, nullptr};
	const char *field[4] = {"X-Given: 1", nullptr, nullptr, nullptr};
	uint32_t line[4] = {};
	uint32_t n = 1; // one pair from the command line already
	std::string text;
	enum headers_problem problem = HEADERS_OK;
	uint32_t at = 0;
};

void Parse(const std::string &text, Parsed *p, uint32_t max = 4)
{
	p->text = text + '\0'; // one writable byte after the text
	struct headers_out out = {p->pattern, p->field, p->line, &p->n, max};
	p->problem = headers_file_parse(&p->text[0], text.size(), &out, &p->at);
}

TEST(HeadersFileTest, PathsBecomeHeaderForPatterns)
{
	Parsed p;
	Parse("# security fields for every page\n"
	      "/*\n"
	      "  X-Frame-Options: DENY  \n"
	      "\n"
	      "/assets/*\r\n"
	      "\tCache-Control: public, max-age=31536000, immutable\r\n"
	      "  # a comment among fields\n"
	      "/*.pdf\n"
	      "  Content-Disposition: attachment",
	      &p);
	ASSERT_EQ(p.problem, HEADERS_OK);
	ASSERT_EQ(p.n, 4u);
	const struct {
		const char *pattern, *field;
		uint32_t line;
	} want[] = {{"/given/", "X-Given: 1", 0},
		    {"/", "X-Frame-Options: DENY", 3},
		    {"/assets/", "Cache-Control: public, max-age=31536000, immutable", 6},
		    {"*.pdf", "Content-Disposition: attachment", 9}};
	for (uint32_t i = 0; i < 4; i++) {
		EXPECT_STREQ(p.pattern[i], want[i].pattern) << i;
		EXPECT_STREQ(p.field[i], want[i].field) << i;
		EXPECT_EQ(p.line[i], want[i].line) << i;
	}
}

TEST(HeadersFileTest, RefusalsNameTheirLine)
{
	const struct {
		const char *label, *text;
		enum headers_problem problem;
		uint32_t line;
	} cases[] = {
		{"an exact path", "/index.html\n  X-A: 1\n", HEADERS_BAD_PATTERN, 1},
		{"a placeholder", "/*\n  X-A: 1\n/blog/:slug\n", HEADERS_BAD_PATTERN, 3},
		{"a star inside", "/a*/b\n", HEADERS_BAD_PATTERN, 1},
		{"an extension below a folder", "/img/*.png\n", HEADERS_BAD_PATTERN, 1},
		{"a URL", "https://example.org/*\n", HEADERS_BAD_PATTERN, 1},
		{"a field first", "  X-A: 1\n/*\n", HEADERS_FIELD_FIRST, 1},
		{"no colon", "/*\n  X-A 1\n", HEADERS_NOT_A_FIELD, 2},
		{"no name", "/*\n  : 1\n", HEADERS_NOT_A_FIELD, 2},
		{"a detach", "/*\n  X-A: 1\n/assets/*\n  ! X-A\n", HEADERS_DETACH, 4},
		{"too many", "/*\n  A: 1\n  B: 2\n  C: 3\n  D: 4\n", HEADERS_TOO_MANY, 5},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		Parsed p;
		Parse(c.text, &p);
		EXPECT_EQ(p.problem, c.problem);
		EXPECT_EQ(p.at, c.line);
	}
}

} // namespace
