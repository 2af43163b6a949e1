// The pieces of a directory listing (common/answer/listing.h): HTML escaping, percent-
// encoded links, and one row, each against a table of named cases.
#include <string>

#include <gtest/gtest.h>

#include "test/unit/label_name.h"

#include "common/answer/listing.h"

namespace {

struct EscapeCase {
	const char *label;
	std::string name, escaped, href;
};

const EscapeCase kEscapeCases[] = {
	{"plain", "index.txt", "index.txt", "index.txt"},
	{"unreserved kept", "A-z_0.9~", "A-z_0.9~", "A-z_0.9~"},
	{"markup", "a<&\">'b", "a&lt;&amp;&quot;&gt;&#39;b", "a%3C%26%22%3E%27b"},
	{"space, percent, query", "a b%?#", "a b%?#", "a%20b%25%3F%23"},
	{"colon cannot become a scheme", "javascript:x", "javascript:x", "javascript%3Ax"},
	{"utf-8 and high bytes", "caf\xc3\xa9\xff", "caf\xc3\xa9\xff", "caf%C3%A9%FF"},
	{"control bytes", std::string("\x01\x7f", 2), std::string("\x01\x7f", 2), "%01%7F"},
	{"empty", "", "", ""},
};

class ListingEscapeTest : public testing::TestWithParam<EscapeCase> {};

TEST_P(ListingEscapeTest, EscapesAndEncodes)
{
	const EscapeCase &c = GetParam();
	std::string out(LISTING_ESCAPE_MAX * c.name.size() + 1, '\0');
	out.resize(listing_escape(&out[0], c.name.data(), c.name.size()));
	EXPECT_EQ(out, c.escaped);
	std::string href(LISTING_HREF_MAX * c.name.size() + 1, '\0');
	href.resize(listing_href(&href[0], c.name.data(), c.name.size()));
	EXPECT_EQ(href, c.href);
}

INSTANTIATE_TEST_SUITE_P(Cases, ListingEscapeTest, testing::ValuesIn(kEscapeCases),
			 LabelName<EscapeCase>);

TEST(ListingRowTest, FileAndDirectoryRows)
{
	char out[LISTING_ROW_MAX(32)];
	struct listing_entry file = {"a&b.txt", 7, 1234, 1700000000, 0};
	EXPECT_EQ(std::string(out, listing_row(out, &file)),
		  "<tr><td><a href=\"a%26b.txt\">a&amp;b.txt</a></td><td>1234</td>"
		  "<td>2023-11-14 22:13:20</td></tr>\n");
	struct listing_entry dir = {"d", 1, 0, 0, 1};
	EXPECT_EQ(std::string(out, listing_row(out, &dir)),
		  "<tr><td><a href=\"d/\">d/</a></td><td>-</td><td>1970-01-01 00:00:00</td></tr>\n");
}

// The bounds the arena is sized by hold for the worst name: every byte a '"'.
TEST(ListingRowTest, WorstCaseFitsTheBounds)
{
	const std::string name(255, '"');
	std::string out(LISTING_ROW_MAX(255), '\0');
	struct listing_entry r = {name.data(), name.size(), UINT64_MAX, 253402300799ull, 1};
	EXPECT_LE(listing_row(&out[0], &r), LISTING_ROW_MAX(255));
	std::string page(LISTING_PAGE_MAX(255), '\0');
	size_t n = listing_start(&page[0], name.data(), name.size());
	n += listing_end(&page[n]);
	EXPECT_LE(n, LISTING_PAGE_MAX(255));
}

} // namespace
