// --redirects (common/answer/redirects.h, BEHAVIOUR 10.20): the _redirects subset read line
// by line, every refusal with its line number, first-match-wins matching through the
// tables, placeholders and the splat, and the rendered redirects. The fixture follows the
// examples of Netlify's and Cloudflare Pages' documentation, written in our own words.
#include <string>

#include <gtest/gtest.h>

#include "common/answer/redirects.h"

namespace {

// The snapshot a 200 rule may name: "app.html", and the index page of the folder "docs".
struct cached_file MakeFile()
{
	struct cached_file f = {};
	f.kind = CACHED_FILE;
	return f;
}
const struct cached_file kApp = MakeFile();
const struct cached_file kDocs = MakeFile();
const struct cached_file *Find(const char *path, size_t len)
{
	std::string name(path, len);
	return name == "app.html" ? &kApp : name == "docs/index.html" ? &kDocs : nullptr;
}

// A site that moved its blog, renamed a page, sends a short link away, keeps one old path
// as gone, and routes an app's paths to its shell.
const std::string kRules = "# a comment line, then a blank one\n"
			   "\n"
			   "/old-page.html      /new-page.html\n"
			   "/blog/*             /news/:splat            301\n"
			   "/blog/2020/*        /archive/:splat         302\n"
			   "/shop/:kind/:id     /store/:id?kind=:kind   303\r\n"
			   "/short              https://example.net/long 307\n"
			   "\t/perm  /permanent 308!\n"
			   "/retired            /new-page.html          410\n"
			   "/app/*              /app.html               200\n"
			   "/manual/            /docs/                  200\n"
			   "/*                  /fallback-never-reached-by-earlier 302\n";

class RedirectsTest : public testing::Test {
protected:
	void SetUp() override
	{
		uint32_t line = 0;
		ASSERT_EQ(redirects_parse(kRules.data(), kRules.size(), Find, &line), REDIRECTS_OK);
		EXPECT_EQ(line, 12u);
	}
	// The Location the first matching rule gives name (no leading '/') and query, or
	// "code N" for a 200 or 410, or "none".
	std::string Outcome(const std::string &name, const std::string &query = "")
	{
		struct redirect_captures c;
		const struct redirect_rule *r = redirect_match(name.data(), name.size(), &c);
		if (!r)
			return "none";
		if (r->code == REDIRECT_REWRITE)
			return r->file == &kApp ? "200 app.html" : r->file == &kDocs ? "200 docs" : "200 ?";
		if (r->code == REDIRECT_GONE)
			return "410";
		std::string out(redirect_location_of(r, &c, query.data(), query.size()), '\0');
		char buf[REDIRECT_RULE_MAX(1024)];
		uint32_t head_len;
		size_t n = redirect_render(buf, r, &c, query.data(), query.size(), CONN_FORM_CLOSE,
					   &head_len);
		std::string response(buf, n);
		size_t at = response.find("Location: ");
		EXPECT_NE(at, std::string::npos);
		std::string location = response.substr(at + 10, response.find("\r\n", at) - at - 10);
		EXPECT_EQ(location.size(), out.size()) << "redirect_location_of counts what it writes";
		return response.substr(9, 3) + " " + location;
	}
};

TEST_F(RedirectsTest, FirstMatchInFileOrder)
{
	const struct {
		const char *name, *query, *want;
	} cases[] = {
		{"old-page.html", "", "301 /new-page.html"}, // no code: 301
		{"old-page.html", "?utm=x", "301 /new-page.html?utm=x"}, // the query follows
		{"blog/how-to/part-2", "", "301 /news/how-to/part-2"},
		{"blog/2020/x", "", "301 /news/2020/x"}, // the earlier /blog/* wins
		{"blog", "", "301 /news/"},              // a splat may be empty
		{"blog/", "", "301 /news/"},
		{"shop/shoes/42", "", "303 /store/42?kind=shoes"}, // TO's own query: none added
		{"shop/shoes/42", "?a=1", "303 /store/42?kind=shoes"},
		{"shop/shoes", "", "302 /fallback-never-reached-by-earlier"}, // too few segments
		{"short", "", "307 https://example.net/long"},
		{"perm", "", "308 /permanent"},
		{"retired", "", "410"},
		{"app/settings/x", "", "200 app.html"},
		{"manual/", "", "200 docs"},
		{"a b", "", "302 /fallback-never-reached-by-earlier"},
		{"", "", "302 /fallback-never-reached-by-earlier"},
	};
	for (const auto &c : cases)
		EXPECT_EQ(Outcome(c.name, c.query), c.want) << c.name << c.query;
}

// Captures are percent-encoded into the Location (a space, a quote), the rest kept.
TEST_F(RedirectsTest, CapturesAreEncoded)
{
	EXPECT_EQ(Outcome("blog/a b\"c"), "301 /news/a%20b%22c");
	EXPECT_EQ(Outcome("shop/x y/1"), "303 /store/1?kind=x%20y");
}

// Every refusal names its line: the first bad line stops the parse, and no rule is kept.
TEST(RedirectsParseTest, RefusalsNameTheirLine)
{
	const struct {
		const char *label, *text;
		enum redirects_problem problem;
		uint32_t line;
	} cases[] = {
		{"TO missing", "/a /b\n/lonely\n", REDIRECTS_TOO_FEW, 2},
		{"a query condition", "/store id=:id /blog/:id 301\n", REDIRECTS_TOO_MANY_FIELDS, 1},
		{"a country condition", "/ /fr 302 Country=fr\n", REDIRECTS_TOO_MANY_FIELDS, 1},
		{"an unknown code", "# x\n/a /b 304\n", REDIRECTS_BAD_CODE, 2},
		{"a 404 rule", "/a /b 404\n", REDIRECTS_BAD_CODE, 1},
		{"a word for a code", "/a /b moved\n", REDIRECTS_BAD_CODE, 1},
		{"a host in FROM", "https://a.example/* https://b.example/:splat 301\n",
		 REDIRECTS_BAD_FROM, 1},
		{"a query in FROM", "/a?x=1 /b\n", REDIRECTS_BAD_FROM, 1},
		{"a splat inside a segment", "/blog* /news\n", REDIRECTS_BAD_SPLAT, 1},
		{"a splat not last", "/*/x /y\n", REDIRECTS_BAD_SPLAT, 1},
		{"a placeholder in a segment", "/a:b/:c /x\n", REDIRECTS_OK, 0},
		{"an empty placeholder", "/a/: /x\n", REDIRECTS_BAD_PLACEHOLDER, 1},
		{"a placeholder with a dash", "/a/:my-id /x/:my\n", REDIRECTS_BAD_PLACEHOLDER, 1},
		{"nine placeholders", "/:a/:b/:c/:d/:e/:f/:g/:h/:i /x\n", REDIRECTS_TOO_MANY_CAPTURES, 1},
		{"a relative TO", "/a b\n", REDIRECTS_BAD_TO, 1},
		{"an ftp TO", "/a ftp://x/y\n", REDIRECTS_BAD_TO, 1},
		{"TO names what FROM lacks", "/a/:id /b/:slug\n", REDIRECTS_UNKNOWN_PLACEHOLDER, 1},
		{":splat without a splat", "/a /b/:splat\n", REDIRECTS_UNKNOWN_PLACEHOLDER, 1},
		{"a proxy", "/api/* https://api.example/:splat 200\n", REDIRECTS_BAD_REWRITE, 1},
		{"a rewrite to a missing file", "/a /missing.html 200\n", REDIRECTS_BAD_REWRITE, 1},
		{"a rewrite with a placeholder", "/a/:x /app.html?:x 200\n", REDIRECTS_BAD_REWRITE, 1},
		{"a rule to itself", "/a /b\n/loop /loop 302\n", REDIRECTS_LOOP, 2},
		{"a pattern to itself", "/p/:x /p/:x\n", REDIRECTS_LOOP, 1},
		{"a field too long", nullptr, REDIRECTS_TOO_LONG, 1},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		std::string text = c.text ? c.text : "/" + std::string(REDIRECT_FIELD_MAX, 'a') + " /b\n";
		uint32_t line = 0;
		EXPECT_EQ(redirects_parse(text.data(), text.size(), Find, &line), c.problem);
		if (c.problem != REDIRECTS_OK) {
			EXPECT_EQ(line, c.line);
			EXPECT_EQ(redirects_rules(), nullptr) << "a refused file keeps no rule";
		}
	}
	std::string many;
	for (uint32_t i = 0; i <= REDIRECTS_MAX; i++)
		many += "/r" + std::to_string(i) + " /t\n";
	uint32_t line = 0;
	EXPECT_EQ(redirects_parse(many.data(), many.size(), Find, &line), REDIRECTS_TOO_MANY);
	EXPECT_EQ(line, REDIRECTS_MAX + 1);
}

// The tables find the first rule of a FROM given twice, and a pattern that starts with a
// placeholder still loses to an earlier literal one and beats a later exact one.
TEST(RedirectsParseTest, TablesKeepFileOrder)
{
	const std::string text = "/:lang/about /about-:lang 302\n"
				 "/en/about /english 301\n"
				 "/x /first 301\n"
				 "/x /second 302\n";
	uint32_t line;
	ASSERT_EQ(redirects_parse(text.data(), text.size(), Find, &line), REDIRECTS_OK);
	struct redirect_captures c;
	const struct redirect_rule *r = redirect_match(LITERAL("en/about"), &c);
	ASSERT_NE(r, nullptr);
	EXPECT_EQ(std::string(r->to, r->to_len), "/about-:lang");
	r = redirect_match(LITERAL("x"), &c);
	ASSERT_NE(r, nullptr);
	EXPECT_EQ(std::string(r->to, r->to_len), "/first");
	EXPECT_EQ(redirect_counter(r), C_responses_301);
	EXPECT_EQ(redirect_match(LITERAL("y"), &c), nullptr);
	// No file: no rules.
	ASSERT_EQ(redirects_parse("", 0, Find, &line), REDIRECTS_OK);
	EXPECT_EQ(redirects_rules(), nullptr);
	EXPECT_EQ(redirect_match(LITERAL("x"), &c), nullptr);
}

} // namespace
