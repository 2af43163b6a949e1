// The pieces of a directory listing (common/answer/listing.h): HTML escaping, percent-
// encoded links, and one row, each against a table of named cases.
#include <string.h>

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
		  "<tr><td><a href=\"a%26b.txt\">a&amp;b.txt</a></td><td title=\"1234\">1.2 KiB</td>"
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
	for (unsigned order = 0; order < LISTING_ORDERS; order++) {
		size_t n = listing_start(&page[0], name.data(), name.size(), order);
		n += listing_end(&page[n]);
		EXPECT_LE(n, LISTING_PAGE_MAX(255)) << "order " << order;
	}
}

// Readable sizes (BEHAVIOUR 10.14): bytes under 1 KiB, else one decimal of the largest
// binary unit reached, rounded half up, a rounding to 1024.0 moving to the next unit.
TEST(ListingSizeTest, ReadableSizes)
{
	const struct {
		uint64_t size;
		const char *text;
	} cases[] = {
		{0, "0 B"},           {1023, "1023 B"},         {1024, "1.0 KiB"},
		{1229, "1.2 KiB"},    {1280, "1.3 KiB"},        {1075, "1.0 KiB"},
		{1076, "1.1 KiB"},    {1048524, "1023.9 KiB"},  {1048525, "1.0 MiB"},
		{1048575, "1.0 MiB"}, {1300000, "1.2 MiB"},     {1ull << 40, "1.0 TiB"},
		{UINT64_MAX, "16.0 EiB"},
	};
	char out[LISTING_SIZE_TEXT_MAX];
	for (const auto &c : cases)
		EXPECT_EQ(std::string(out, listing_size_text(out, c.size)), c.text) << c.size;
}

// The query's order (BEHAVIOUR 10.14): sort * 2 + desc; an unknown or missing sort the
// default whatever order says; an unknown order ascending; the first of each counts.
TEST(ListingSizeTest, OrderOfTheQuery)
{
	const struct {
		const char *query;
		unsigned order;
	} cases[] = {
		{"", 0},
		{"sort=name", 0},
		{"sort=name&order=desc", 1},
		{"sort=size", 2},
		{"order=desc&sort=size", 3},
		{"sort=date&order=asc", 4},
		{"a=b&sort=date&&order=desc", 5},
		{"sort=bogus&order=desc", 0},
		{"order=desc", 0},
		{"sort=size&order=up", 2},
		{"sort=Size", 0},
		{"sort=size&sort=date", 2},
		{"sort=sizes", 0},
		{"sort=date&order=desc&order=asc", 5},
	};
	for (const auto &c : cases)
		EXPECT_EQ(listing_order_of_query(c.query, strlen(c.query)), c.order) << c.query;
}

// issue 31: listing_sort, which orders the rows made at load and the rows made per request
// alike: in every order directories first; by name bytewise, by size (directories by name),
// by date; desc reverses the key but not the tie, which goes by name ascending.
TEST(ListingSortTest, EveryOrder)
{
	const listing_entry rows[] = {
		{"b.txt", 5, 30, 100, 0}, {"a.txt", 5, 30, 300, 0}, {"C.txt", 5, 10, 200, 0},
		{"z", 1, 0, 50, 1},        {"d", 1, 0, 400, 1},
	};
	const struct {
		unsigned order;
		const char *names;
	} cases[] = {
		{LISTING_BY_NAME * 2, "d z C.txt a.txt b.txt"},
		{LISTING_BY_NAME * 2 + 1, "z d b.txt a.txt C.txt"},
		{LISTING_BY_SIZE * 2, "d z C.txt a.txt b.txt"},
		{LISTING_BY_SIZE * 2 + 1, "d z a.txt b.txt C.txt"},
		{LISTING_BY_DATE * 2, "z d b.txt C.txt a.txt"},
		{LISTING_BY_DATE * 2 + 1, "d z a.txt C.txt b.txt"},
	};
	for (const auto &c : cases) {
		listing_entry e[5];
		memcpy(e, rows, sizeof(e));
		listing_sort(e, 5, c.order);
		std::string got;
		for (const auto &r : e)
			got += (got.empty() ? "" : " ") + std::string(r.name, r.name_len);
		EXPECT_EQ(got, c.names) << "order " << c.order;
	}
}

} // namespace
