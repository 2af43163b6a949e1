// Virtual hosts' tables (common/answer/sites.c, BEHAVIOUR 10.21): which site an authority
// names, one labelled case a row; and the names sites_setup refuses.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/answer/sites.h"

namespace {

// Sets up the sites named, site i + 1 each.
enum sites_problem MakeSites(const std::vector<std::string> &names, bool has_default,
			 uint32_t *bad = nullptr)
{
	static std::vector<std::string> kept; // the tables point into the names
	kept = names;
	std::vector<const char *> host;
	std::vector<uint32_t> len;
	for (const std::string &n : kept) {
		host.push_back(n.data());
		len.push_back((uint32_t)n.size());
	}
	uint32_t unused = 0;
	return sites_setup(host.data(), len.data(), (uint32_t)kept.size(), has_default,
			   bad ? bad : &unused);
}

uint32_t Match(const std::string &authority)
{
	return sites_match(authority.data(), authority.size());
}

TEST(SitesTest, ExactBeforeTheLongestWildcardThenTheDefault)
{
	ASSERT_EQ(MakeSites({"a.example", "*.example", "*.b.example", "b.example"}, true), SITES_OK);
	EXPECT_EQ(sites_named(), 4u);
	const struct {
		const char *label, *authority;
		uint32_t site;
	} cases[] = {
		{"exact", "a.example", 1},
		{"exact, upper case", "A.EXAMPLE", 1},
		{"exact with a port", "a.example:8080", 1},
		{"exact with a trailing dot", "a.example.", 1},
		{"exact over a wildcard", "b.example", 4},
		{"wildcard", "c.example", 2},
		{"the longer suffix wins", "x.b.example", 3},
		{"the longer suffix, deeper", "y.x.b.example", 3},
		{"a wildcard needs a byte before its dot", ".example", SITE_DEFAULT},
		{"the suffix alone is no match", "example", SITE_DEFAULT},
		{"another name", "example.org", SITE_DEFAULT},
		{"a name ending like one", "aa.example.org", SITE_DEFAULT},
		{"an address", "127.0.0.1:80", SITE_DEFAULT},
		{"an IPv6 literal", "[::1]:80", SITE_DEFAULT},
		{"none", "", SITE_DEFAULT},
	};
	for (const auto &c : cases)
		EXPECT_EQ(Match(c.authority), c.site) << c.label;
}

TEST(SitesTest, WithoutADefaultAnUnknownHostIsNone)
{
	ASSERT_EQ(MakeSites({"a.example"}, false), SITES_OK);
	EXPECT_EQ(Match("a.example"), 1u);
	EXPECT_EQ(Match("b.example"), SITE_NONE);
	EXPECT_EQ(Match(""), SITE_NONE);
}

TEST(SitesTest, ANameTwiceIsRefused)
{
	uint32_t bad = 0;
	EXPECT_EQ(MakeSites({"a.example", "b.example", "A.Example"}, true, &bad), SITES_TWICE);
	EXPECT_EQ(bad, 2u);
	EXPECT_EQ(MakeSites({"*.example", "*.EXAMPLE"}, true, &bad), SITES_TWICE);
	EXPECT_EQ(bad, 1u);
	EXPECT_EQ(MakeSites({"example", "*.example"}, true), SITES_OK) << "a name and a wildcard";
}

TEST(SitesTest, FifteenSitesFitTheTables)
{
	std::vector<std::string> names;
	for (int i = 0; i < SITES_NAMED_MAX; i++)
		names.push_back((i % 2 ? "*.s" : "s") + std::to_string(i) + ".example");
	ASSERT_EQ(MakeSites(names, false), SITES_OK);
	for (int i = 0; i < SITES_NAMED_MAX; i++)
		EXPECT_EQ(Match((i % 2 ? "w.s" : "s") + std::to_string(i) + ".example"),
			  (uint32_t)i + 1)
			<< names[i];
	EXPECT_EQ(Match("s99.example"), SITE_NONE);
	MakeSites({}, true); // leave no sites for the next suite
}

} // namespace
