// `--listing` (feature `files`, BEHAVIOUR 10.14): a directory without index.html answers
// an HTML index rendered at load, byte for byte: names escaped and sorted (directories
// first, then bytewise), sizes and UTC times, links percent-encoded, hidden names left
// out (with --dotfiles too); its validators, 304 and 206; `/` with and without --listing;
// and the page as a real browser (headless chromium) builds it.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kTimeoutMs = 10000;
constexpr int kBrowserTimeoutMs = 60000;

// One entry of the tree: a file (content) or a directory (is_dir), and its mtime.
struct Entry {
	std::string rel;
	std::string content;
	time_t mtime;
	bool is_dir = false;
};

// Children before their directories, so that setting a directory's mtime comes after
// every write into it. The hidden names must change no page and no Last-Modified: their
// mtimes are later than everything listed.
const std::vector<Entry> kTree = {
	{"Beta.txt", "beta\n", 1600000100},
	{"a<&\">b.txt", "escaped\n", 1600000200},
	{"caf\xc3\xa9 \xc3\xbc.txt", "utf-8\n", 1600000300},
	{"zeta.txt", "zeta\n", 1700000000},
	{".env", "SECRET=1\n", 1750000000},
	{".git/config", "[core]\n", 1750000000},
	{".git", "", 1750000000, true},
	{"sub/in.json", "{}\n", 1600000400},
	{"sub/.htaccess", "deny\n", 1690000000},
	{"sub", "", 1650000000, true},
	{"empty", "", 1600000000, true},
	{"withindex/index.html", "<p>index</p>\n", 1600000200},
	{"withindex", "", 1600000100, true},
	{"", "", 1600000000, true}, // the root itself
};

const char kPageStart[] =
	"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	"<meta name=\"viewport\" content=\"width=device-width\"><title>Index of ";
const char kPageEnd[] = "</table>\n</body></html>\n";

// The header row of a page listed by sort ("name", "size", "date") in order desc: each
// heading links to its sort ascending, or descending on the page of that sort ascending.
std::string Headings(const std::string &sort = "name", bool desc = false)
{
	std::string row = "<tr>";
	for (auto [word, heading] : {std::pair<std::string, std::string>{"name", "Name"},
				     {"size", "Size"},
				     {"date", "Last modified (UTC)"}})
		row += "<th><a href=\"?sort=" + word + "&amp;order=" +
		       (word == sort && !desc ? "desc" : "asc") + "\">" + heading + "</a></th>";
	return row + "</tr>\n";
}

std::string Page(const std::string &title, const std::string &rows,
		 const std::string &headings = Headings())
{
	return kPageStart + title + "</title></head>\n<body><h1>Index of " + title +
	       "</h1>\n<table>\n" + headings + rows + kPageEnd;
}

// A row; size "-" (a directory's) or the decimal bytes, under 1 KiB here: shown as
// "N B" with the bytes in the cell's title.
std::string Row(const std::string &href, const std::string &name, const std::string &size,
		const std::string &time)
{
	std::string cell = size == "-" ? "<td>-</td>"
				       : "<td title=\"" + size + "\">" + size + " B</td>";
	return "<tr><td><a href=\"" + href + "\">" + name + "</a></td>" + cell + "<td>" +
	       time + "</td></tr>\n";
}

const std::string kNotFound = "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; "
			      "charset=utf-8\r\nContent-Length: 10\r\nConnection: close\r\n\r\n"
			      "not found\n";

const std::string kParentRow = "<tr><td><a href=\"../\">../</a></td><td></td><td></td></tr>\n";

// The root's rows (kTree).
const std::string kEmptyRow = Row("empty/", "empty/", "-", "2020-09-13 12:26:40");
const std::string kSubRow = Row("sub/", "sub/", "-", "2022-04-15 05:20:00");
const std::string kWithIndexRow = Row("withindex/", "withindex/", "-", "2020-09-13 12:28:20");
const std::string kBetaRow = Row("Beta.txt", "Beta.txt", "5", "2020-09-13 12:28:20");
const std::string kEscapedRow =
	Row("a%3C%26%22%3Eb.txt", "a&lt;&amp;&quot;&gt;b.txt", "8", "2020-09-13 12:30:00");
const std::string kCafeRow =
	Row("caf%C3%A9%20%C3%BC.txt", "caf\xc3\xa9 \xc3\xbc.txt", "6", "2020-09-13 12:31:40");
const std::string kZetaRow = Row("zeta.txt", "zeta.txt", "5", "2023-11-14 22:13:20");

// The root's page: directories first, then files, each bytewise ('B' < 'a' < 'c' < 'z');
// `<`, `&`, `"` escaped in the text and percent-encoded in the link, as every byte but
// A-Z a-z 0-9 - . _ ~ is; .env and .git absent.
const std::string kRootPage = Page("/", kEmptyRow + kSubRow + kWithIndexRow + kBetaRow +
						kEscapedRow + kCafeRow + kZetaRow);
const char kRootModified[] = "Tue, 14 Nov 2023 22:13:20 GMT"; // zeta.txt, the newest
// sub/: its own mtime is newer than in.json; .htaccess (newer still) is not listed.
const std::string kSubPage =
	Page("/sub/", kParentRow + Row("in.json", "in.json", "3", "2020-09-13 12:33:20"));
const char kSubModified[] = "Fri, 15 Apr 2022 05:20:00 GMT";
const std::string kEmptyPage = Page("/empty/", kParentRow);
const char kEmptyModified[] = "Sun, 13 Sep 2020 12:26:40 GMT";

// The listing's ETag (BEHAVIOUR 10.14): "l-<size>-<FNV-1a 64 of the bytes>", lower hex.
std::string ListingEtag(const std::string &page)
{
	uint64_t h = 14695981039346656037ull;
	for (unsigned char c : page)
		h = (h ^ c) * 1099511628211ull;
	char etag[64];
	snprintf(etag, sizeof(etag), "\"l-%zx-%llx\"", page.size(), (unsigned long long)h);
	return etag;
}

// The exact 200 of a listing, Connection: close; HEAD gets the head.
std::string ListingResponse(const std::string &page, const std::string &modified, bool head)
{
	return "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: " +
	       std::to_string(page.size()) + "\r\nLast-Modified: " + modified +
	       "\r\nETag: " + ListingEtag(page) + "\r\nAccept-Ranges: bytes\r\nConnection: close\r\n\r\n" +
	       (head ? "" : page);
}

std::string CloseRequest(const std::string &method, const std::string &target,
			 const std::string &fields = "")
{
	return method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + fields +
	       "Connection: close\r\n\r\n";
}

bool Write(const std::string &path, const std::string &content)
{
	int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	bool ok = fd >= 0 && write(fd, content.data(), content.size()) ==
				     static_cast<ssize_t>(content.size());
	if (fd >= 0)
		close(fd);
	return ok;
}

// Writes kTree under dir, each entry with its mtime: "" or what failed last.
std::string WriteTree(const std::string &dir)
{
	std::string error;
	for (const Entry &e : kTree) { // directories first: made before their files
		if (e.is_dir && !e.rel.empty())
			mkdir((dir + "/" + e.rel).c_str(), 0755);
	}
	for (const Entry &e : kTree) {
		std::string path = e.rel.empty() ? dir : dir + "/" + e.rel;
		if (!e.is_dir && !Write(path, e.content))
			error = "cannot write " + e.rel;
		struct timespec times[2] = {{e.mtime, 0}, {e.mtime, 0}};
		if (utimensat(AT_FDCWD, path.c_str(), times, 0) != 0)
			error = "cannot set the time of " + e.rel;
	}
	return error;
}

// kTree under a fresh /tmp directory, served with --root and flags; both go with it.
class ListingServer : public ServedTree {
public:
	explicit ListingServer(const std::vector<std::string> &flags)
		: ServedTree("listing", WriteTree, flags)
	{
	}
};

#define START_LISTING(server, ...)                                                   \
	REQUIRE_FEATURE("files");                                                    \
	ListingServer server(__VA_ARGS__);                                           \
	ASSERT_EQ(server.error(), "")

// GET and HEAD of target earn exactly expected(head), then EOF.
template <class Expected>
void ExpectGetAndHead(int port, const std::string &target, Expected expected)
{
	for (bool head : {false, true}) {
		Received r = Roundtrip(port, CloseRequest(head ? "HEAD" : "GET", target), false,
				       kTimeoutMs);
		EXPECT_TRUE(r.eof && !r.reset && !r.timed_out) << target;
		EXPECT_EQ(r.bytes, expected(head)) << (head ? "HEAD " : "GET ") << target;
	}
}

TEST(ListingTest, RootIsListedEscapedSortedWithSizesAndTimes)
{
	START_LISTING(server, {"--listing"});
	ExpectGetAndHead(server.port(), "/", [](bool head) {
		return ListingResponse(kRootPage, kRootModified, head);
	});
	ExpectGetAndHead(server.port(), "/?sort=x", [](bool head) {
		return ListingResponse(kRootPage, kRootModified, head);
	});
}

TEST(ListingTest, SubdirectoriesAndEmptyOnes)
{
	START_LISTING(server, {"--listing"});
	ExpectGetAndHead(server.port(), "/sub/", [](bool head) {
		return ListingResponse(kSubPage, kSubModified, head);
	});
	ExpectGetAndHead(server.port(), "/s%75b/", [](bool head) {
		return ListingResponse(kSubPage, kSubModified, head);
	});
	ExpectGetAndHead(server.port(), "/empty/", [](bool head) {
		return ListingResponse(kEmptyPage, kEmptyModified, head);
	});
}

// A directory with index.html serves it; one named without its '/' still redirects; a
// file path with '/' and hidden directories stay 404.
TEST(ListingTest, IndexPagesRedirectsAndHiddenNamesAreUnchanged)
{
	START_LISTING(server, {"--listing"});
	std::string index = Roundtrip(server.port(), CloseRequest("GET", "/withindex/"), false,
				      kTimeoutMs).bytes;
	EXPECT_EQ(index, FileHead("text/html; charset=utf-8", 13,
				  server.dir() + "/withindex/index.html", false) +
				 "<p>index</p>\n");
	EXPECT_EQ(Roundtrip(server.port(), CloseRequest("GET", "/sub?x=1"), false, kTimeoutMs).bytes,
		  "HTTP/1.1 301 Moved Permanently\r\nContent-Type: text/plain; charset=utf-8\r\n"
		  "Content-Length: 18\r\nLocation: /sub/?x=1\r\nConnection: close\r\n\r\n"
		  "moved permanently\n");
	for (const char *target : {"/.git/", "/zeta.txt/", "/nothing/", "/sub/in.json/"})
		EXPECT_EQ(Roundtrip(server.port(), CloseRequest("GET", target), false, kTimeoutMs)
				  .bytes,
			  kNotFound)
			<< target;
}

// With --dotfiles the hidden names are served when named, never listed; a directory
// whose path holds a hidden name has no listing.
TEST(ListingTest, DotfilesAreServedButNeverListed)
{
	START_LISTING(server, {"--listing", "--dotfiles"});
	ExpectGetAndHead(server.port(), "/", [](bool head) {
		return ListingResponse(kRootPage, kRootModified, head);
	});
	ExpectGetAndHead(server.port(), "/sub/", [](bool head) {
		return ListingResponse(kSubPage, kSubModified, head);
	});
	EXPECT_EQ(Roundtrip(server.port(), CloseRequest("GET", "/.env"), false, kTimeoutMs).bytes,
		  FileHead("application/octet-stream", 9, server.dir() + "/.env", false) +
			  "SECRET=1\n");
	EXPECT_EQ(Roundtrip(server.port(), CloseRequest("GET", "/.git/"), false, kTimeoutMs).bytes,
		  kNotFound);
}

// A listing is a file of the snapshot: If-None-Match with its ETag and If-Modified-Since
// its Last-Modified earn 304; a Range earns 206 of its bytes.
TEST(ListingTest, RevalidationAndRanges)
{
	START_LISTING(server, {"--listing"});
	const std::string not_modified = "HTTP/1.1 304 Not Modified\r\nLast-Modified: " +
					 std::string(kSubModified) + "\r\nETag: " +
					 ListingEtag(kSubPage) + "\r\nConnection: close\r\n\r\n";
	for (const std::string &field :
	     {"If-None-Match: " + ListingEtag(kSubPage) + "\r\n",
	      "If-None-Match: \"other\", W/" + ListingEtag(kSubPage) + "\r\n",
	      "If-Modified-Since: " + std::string(kSubModified) + "\r\n"})
		for (const char *method : {"GET", "HEAD"})
			EXPECT_EQ(Roundtrip(server.port(), CloseRequest(method, "/sub/", field), false,
					    kTimeoutMs)
					  .bytes,
				  not_modified)
				<< method << " " << field;
	EXPECT_EQ(Roundtrip(server.port(), CloseRequest("GET", "/sub/", "If-None-Match: \"x\"\r\n"),
			    false, kTimeoutMs)
			  .bytes,
		  ListingResponse(kSubPage, kSubModified, false));
	EXPECT_EQ(Roundtrip(server.port(), CloseRequest("GET", "/sub/", "Range: bytes=0-14\r\n"),
			    false, kTimeoutMs)
			  .bytes,
		  "HTTP/1.1 206 Partial Content\r\nContent-Type: text/html; charset=utf-8\r\n"
		  "Content-Length: 15\r\nContent-Range: bytes 0-14/" +
			  std::to_string(kSubPage.size()) + "\r\nLast-Modified: " + kSubModified +
			  "\r\nETag: " + ListingEtag(kSubPage) +
			  "\r\nAccept-Ranges: bytes\r\nConnection: close\r\n\r\n<!DOCTYPE html>");
}

// issue 31, BEHAVIOUR 10.14: each ?sort=&order= is a page of its own, byte for byte
// (directories first in every order; ties by name ascending; a directory has no size),
// with its own ETag and the directory's Last-Modified; parameters in any order, others
// passed over; an unknown sort (or none) is the default page whatever order says, an
// unknown order ascending; a page's 304 takes its own ETag, not another order's.
TEST(ListingTest, SortOrdersArePagesOfTheirOwn)
{
	START_LISTING(server, {"--listing"});
	const std::string dirs = kEmptyRow + kSubRow + kWithIndexRow;
	const struct {
		const char *query;
		std::string page;
	} cases[] = {
		{"?sort=name&order=desc",
		 Page("/", kWithIndexRow + kSubRow + kEmptyRow + kZetaRow + kCafeRow + kEscapedRow +
				   kBetaRow,
		      Headings("name", true))},
		{"?sort=size", Page("/", dirs + kBetaRow + kZetaRow + kCafeRow + kEscapedRow,
				    Headings("size"))},
		{"?order=desc&sort=size",
		 Page("/", dirs + kEscapedRow + kCafeRow + kBetaRow + kZetaRow, Headings("size", true))},
		{"?x=1&sort=date&order=asc",
		 Page("/", kEmptyRow + kWithIndexRow + kSubRow + kBetaRow + kEscapedRow + kCafeRow +
				   kZetaRow,
		      Headings("date"))},
		{"?sort=date&order=desc",
		 Page("/", kSubRow + kWithIndexRow + kEmptyRow + kZetaRow + kCafeRow + kEscapedRow +
				   kBetaRow,
		      Headings("date", true))},
		{"?sort=size&order=sideways",
		 Page("/", dirs + kBetaRow + kZetaRow + kCafeRow + kEscapedRow, Headings("size"))},
		{"?sort=bogus&order=desc", kRootPage},
		{"?order=desc", kRootPage},
		{"?sort=name&order=asc", kRootPage},
		{"?", kRootPage},
	};
	for (const auto &c : cases)
		ExpectGetAndHead(server.port(), std::string("/") + c.query, [&](bool head) {
			return ListingResponse(c.page, kRootModified, head);
		});
	const std::string &by_size = cases[1].page;
	EXPECT_NE(ListingEtag(by_size), ListingEtag(kRootPage));
	EXPECT_EQ(Roundtrip(server.port(),
			    CloseRequest("GET", "/?sort=size", "If-None-Match: " + ListingEtag(kRootPage) +
								   "\r\n"),
			    false, kTimeoutMs)
			  .bytes,
		  ListingResponse(by_size, kRootModified, false));
	EXPECT_EQ(Roundtrip(server.port(),
			    CloseRequest("GET", "/?sort=size", "If-None-Match: " + ListingEtag(by_size) +
								   "\r\n"),
			    false, kTimeoutMs)
			  .bytes,
		  "HTTP/1.1 304 Not Modified\r\nLast-Modified: " + std::string(kRootModified) +
			  "\r\nETag: " + ListingEtag(by_size) + "\r\nConnection: close\r\n\r\n");
	ExpectGetAndHead(server.port(), "/sub/?sort=date&order=desc", [](bool head) {
		return ListingResponse(
			Page("/sub/", kParentRow + Row("in.json", "in.json", "3", "2020-09-13 12:33:20"),
			     Headings("date", true)),
			kSubModified, head);
	});
}

// Without --listing nothing changes: `/` without index.html says hello, a directory
// without one is 404.
TEST(ListingTest, WithoutListingRootSaysHello)
{
	START_LISTING(server, {});
	ExpectGetAndHead(server.port(), "/", [](bool head) {
		return std::string("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"
				   "Content-Length: 17\r\nConnection: close\r\n\r\n") +
		       (head ? "" : "apollo says hello");
	});
	for (const char *target : {"/sub/", "/empty/"})
		EXPECT_EQ(Roundtrip(server.port(), CloseRequest("GET", target), false, kTimeoutMs)
				  .bytes,
			  kNotFound)
			<< target;
}

// "YYYY-MM-DD HH:MM:SS" of t in UTC, as a listing row shows it.
std::string RowTime(time_t t)
{
	struct tm tm = {};
	gmtime_r(&t, &tm);
	char out[32];
	strftime(out, sizeof(out), "%Y-%m-%d %H:%M:%S", &tm);
	return out;
}

// The count of listings made per request so far.
uint64_t ListingsRendered(int port)
{
	return FetchMetrics(port)["listings_rendered"];
}

// issue 31, BEHAVIOUR 10.14: a directory with a file served from disk is listed as it is
// at request time (as nginx's autoindex stats it): a file grown (and touched back in time)
// after the start shows its new size and time in every order, the orders by size and by
// date move it, the Last-Modified follows, and the ETag changes, so the old one earns a
// 200 with the new page, never a stale 304. Before the change the pages read byte for byte
// as the ones made at load; a tree wholly in memory is never made per request.
TEST(ListingTest, DiskFilesShowTheirCurrentSizeInEveryOrder)
{
	START_LISTING(server, {"--listing", "--cache-bytes", "0"});
	int port = server.port();
	uint64_t rendered = ListingsRendered(port);
	ExpectGetAndHead(port, "/", [](bool head) {
		return ListingResponse(kRootPage, kRootModified, head);
	});
	EXPECT_EQ(ListingsRendered(port), rendered + 2);
	const std::string old_etag = ListingEtag(kRootPage);
	const time_t then = 1500000000; // before every other entry's time
	ASSERT_TRUE(Write(server.dir() + "/zeta.txt", std::string(5000, 'z')));
	struct timespec times[2] = {{then, 0}, {then, 0}};
	ASSERT_EQ(utimensat(AT_FDCWD, (server.dir() + "/zeta.txt").c_str(), times, 0), 0);
	const std::string zeta = "<tr><td><a href=\"zeta.txt\">zeta.txt</a></td><td title=\"5000\">"
				 "4.9 KiB</td><td>" + RowTime(then) + "</td></tr>\n";
	const std::string dirs = kEmptyRow + kSubRow + kWithIndexRow;
	const struct {
		const char *query;
		std::string page;
	} cases[] = {
		{"", Page("/", dirs + kBetaRow + kEscapedRow + kCafeRow + zeta)},
		{"?sort=name&order=desc", Page("/", kWithIndexRow + kSubRow + kEmptyRow + zeta + kCafeRow +
							   kEscapedRow + kBetaRow,
					       Headings("name", true))},
		{"?sort=size", Page("/", dirs + kBetaRow + kCafeRow + kEscapedRow + zeta, Headings("size"))},
		{"?sort=size&order=desc",
		 Page("/", dirs + zeta + kEscapedRow + kCafeRow + kBetaRow, Headings("size", true))},
		{"?sort=date", Page("/", kEmptyRow + kWithIndexRow + kSubRow + zeta + kBetaRow +
						 kEscapedRow + kCafeRow,
				    Headings("date"))},
		{"?sort=date&order=desc", Page("/", kSubRow + kWithIndexRow + kEmptyRow + kCafeRow +
							    kEscapedRow + kBetaRow + zeta,
						Headings("date", true))},
	};
	for (const auto &c : cases) {
		ExpectGetAndHead(port, std::string("/") + c.query, [&](bool head) {
			return ListingResponse(c.page, kSubModified, head); // sub/ is the newest now
		});
		EXPECT_EQ(Roundtrip(port, CloseRequest("GET", std::string("/") + c.query,
						       "If-None-Match: " + old_etag + "\r\n"),
				    false, kTimeoutMs)
				  .bytes,
			  ListingResponse(c.page, kSubModified, false))
			<< "no stale 304: " << c.query;
	}
	EXPECT_EQ(Roundtrip(port, CloseRequest("GET", "/", "If-None-Match: " +
							       ListingEtag(cases[0].page) + "\r\n"),
			    false, kTimeoutMs)
			  .bytes,
		  "HTTP/1.1 304 Not Modified\r\nLast-Modified: " + std::string(kSubModified) +
			  "\r\nETag: " + ListingEtag(cases[0].page) + "\r\nConnection: close\r\n\r\n");
}

// A tree wholly in the snapshot keeps the pages made at load: none is made per request.
TEST(ListingTest, PagesOfATreeInMemoryAreMadeAtLoad)
{
	START_LISTING(server, {"--listing"});
	uint64_t rendered = ListingsRendered(server.port());
	ExpectGetAndHead(server.port(), "/?sort=size", [](bool head) {
		return ListingResponse(Page("/", kEmptyRow + kSubRow + kWithIndexRow + kBetaRow +
							 kZetaRow + kCafeRow + kEscapedRow,
					    Headings("size")),
				       kRootModified, head);
	});
	EXPECT_EQ(ListingsRendered(server.port()), rendered);
}

// The ecosystem replay for listings: curl follows /sub to the listing, and its own
// validator round trip gets a 304.
TEST(ListingTest, CurlReplaysTheListingCases)
{
	START_LISTING(server, {"--listing"});
	const std::string base = "http://127.0.0.1:" + std::to_string(server.port());
	struct {
		const char *label, *target, *want;
		std::string body;
	} cases[] = {
		{"root_listing", "/", "200 text/html; charset=utf-8", kRootPage},
		{"redirect_then_listing", "/sub", "200 text/html; charset=utf-8", kSubPage},
		{"escaped_link_followed", "/a%3C%26%22%3Eb.txt", "200 text/plain; charset=utf-8",
		 "escaped\n"},
		{"encoded_link_followed", "/caf%C3%A9%20%C3%BC.txt", "200 text/plain; charset=utf-8",
		 "utf-8\n"},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		CommandResult r = RunCommand({"curl", "-sS", "-L", "--max-time", "10", "-w",
					      "\n%{http_code} %{content_type}", base + c.target},
					     "", kTimeoutMs);
		ASSERT_TRUE(r.ran) << r.problem;
		ASSERT_EQ(r.exit_code, 0) << r.err;
		size_t nl = r.out.rfind('\n');
		ASSERT_NE(nl, std::string::npos);
		EXPECT_EQ(r.out.substr(nl + 1), c.want);
		EXPECT_EQ(r.out.substr(0, nl), c.body);
	}
	const std::string etag_file = server.dir() + "/curl-etag"; // after the load: not served
	std::vector<std::string> curl = {"curl", "-sS", "--max-time", "10", "-o", "/dev/null",
					 "-w", "%{http_code}"};
	std::vector<std::string> save = curl, compare = curl;
	save.insert(save.end(), {"--etag-save", etag_file, base + "/sub/"});
	compare.insert(compare.end(), {"--etag-compare", etag_file, base + "/sub/"});
	EXPECT_EQ(RunCommand(save, "", kTimeoutMs).out, "200");
	EXPECT_EQ(RunCommand(compare, "", kTimeoutMs).out, "304");
}

// A real browser builds the page: every listed name is a link with its text, the escaped
// name reads as the name itself, and the screenshot is a PNG (kept in the test's outputs
// for a look).
TEST(ListingTest, ChromiumRendersTheListing)
{
	REQUIRE_FEATURE("files");
	REQUIRE_FEATURE("slow_once"); // the page is common/'s; the byte-exact cases run everywhere
	if (RunCommand({"sh", "-c", "command -v chromium"}, "", kTimeoutMs).exit_code != 0)
		GTEST_SKIP() << "chromium is not installed (scripts/bootstrap.sh installs it)";
	START_LISTING(server, {"--listing"});
	char profile[] = "/tmp/apollod-chromium-XXXXXX";
	ASSERT_NE(mkdtemp(profile), nullptr);
	const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/";
	CommandResult dom = RunCommand(Chromium(profile, "--dump-dom", url), "", kBrowserTimeoutMs);
	ASSERT_TRUE(dom.ran) << dom.problem;
	ASSERT_EQ(dom.exit_code, 0) << dom.err;
	// The DOM as chromium serialises it: '"' needs no reference in text, '<' '&' '>' do.
	for (const char *link :
	     {"<a href=\"empty/\">empty/</a>", "<a href=\"sub/\">sub/</a>",
	      "<a href=\"withindex/\">withindex/</a>", "<a href=\"Beta.txt\">Beta.txt</a>",
	      "<a href=\"a%3C%26%22%3Eb.txt\">a&lt;&amp;\"&gt;b.txt</a>",
	      "<a href=\"caf%C3%A9%20%C3%BC.txt\">caf\xc3\xa9 \xc3\xbc.txt</a>",
	      "<a href=\"zeta.txt\">zeta.txt</a>", "<h1>Index of /</h1>"})
		EXPECT_NE(dom.out.find(link), std::string::npos) << link << "\n" << dom.out;
	for (const char *hidden : {".env", ".git"})
		EXPECT_EQ(dom.out.find(hidden), std::string::npos) << hidden;
	const char *outputs = getenv("TEST_UNDECLARED_OUTPUTS_DIR");
	const std::string png = std::string(outputs ? outputs : profile) + "/listing.png";
	CommandResult shot =
		RunCommand(Chromium(profile, "--screenshot=" + png, url), "", kBrowserTimeoutMs);
	ASSERT_TRUE(shot.ran) << shot.problem;
	EXPECT_EQ(shot.exit_code, 0) << shot.err;
	FILE *f = fopen(png.c_str(), "rb");
	ASSERT_NE(f, nullptr) << png;
	unsigned char magic[8] = {0};
	size_t got = fread(magic, 1, sizeof(magic), f);
	fclose(f);
	EXPECT_EQ(got, sizeof(magic));
	EXPECT_EQ(memcmp(magic, "\x89PNG\r\n\x1a\n", 8), 0) << "not a PNG: " << png;
	RunCommand({"rm", "-rf", profile}, "", kTimeoutMs);
}

} // namespace
} // namespace wire
