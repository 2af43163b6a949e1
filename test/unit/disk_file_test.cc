// A file served from disk (common/answer/disk_file.h, answer.h's answer_disk and
// answer_disk_missing; BEHAVIOUR 10.18): the view made from an fstat reads exactly like a
// loaded file's heads, and the pure decision gives 200, 304, 206, 416, HEAD and the
// --error-page's 404 from the file as it is now, not as it was at start-up.
#include <inttypes.h>
#include <stdio.h>

#include <string>

#include <gtest/gtest.h>

#include "common/answer/answer.h"
#include "common/answer/disk_file.h"
#include "common/answer/site.h"
#include "common/http/http_request.h"
#include "test/unit/site_pages.h"

namespace {

constexpr uint64_t kNowS = 1796083200;   // the rows' wall clock: 2026-12-01
constexpr int64_t kMtimeS = 784111777;   // Sun, 06 Nov 1994 08:49:37 GMT
constexpr uint32_t kMtimeNs = 5;
constexpr uint64_t kInode = 0x2a;
constexpr char kType[] = "text/plain; charset=utf-8";
constexpr char kField[] = "\r\nX-Shelf: far"; // one --header-for line

uint64_t FixedNow() { return kNowS; }

// What the snapshot records of a file on disk: its type then its --header-for lines
// (struct cached_file's head), size and mtime at start-up (here: stale on purpose).
struct cached_file DiskEntry(const char *name, const std::string *type_and_fields,
			     size_t fields_len, enum file_encoding encoding)
{
	struct cached_file f = {};
	f.name = name;
	f.name_len = (uint16_t)strlen(name);
	f.disk_name = name;
	f.kind = CACHED_FILE;
	f.place = FILE_ON_DISK;
	f.arena = FILE_ARENA_NONE;
	f.encoding = (uint8_t)encoding;
	f.size = 999;                      // start-up's: never served
	f.mtime = 1;
	f.head = type_and_fields->data();
	f.head_len = (uint16_t)type_and_fields->size();
	f.type_len = (uint8_t)(type_and_fields->size() - fields_len);
	f.fields_len = (uint16_t)fields_len;
	return f;
}

struct disk_stat Stat(uint64_t size, int64_t mtime_s)
{
	struct disk_stat st = {};
	st.size = size;
	st.mtime_s = mtime_s;
	st.mtime_ns = kMtimeNs;
	st.inode = kInode;
	return st;
}

std::string Hex(uint64_t v)
{
	char out[32];
	snprintf(out, sizeof(out), "%" PRIx64, v);
	return out;
}

std::string ETagOf(uint64_t size, int64_t mtime_s, const std::string &suffix = "")
{
	return "\"" + Hex(size) + "-" + Hex((uint64_t)mtime_s * 1000000000ull + kMtimeNs) + "-" +
	       Hex(kInode) + suffix + "\"";
}

TEST(DiskFileTest, ViewReadsLikeALoadedFile)
{
	std::string stored = std::string(kType) + kField;
	struct cached_file f = DiskEntry("a.txt", &stored, sizeof(kField) - 1, FILE_ENCODING_IDENTITY);
	struct disk_stat st = Stat(10, kMtimeS);
	char out[DISK_VIEW_MAX];
	struct cached_file v;
	disk_file_view(&f, &st, kNowS, ERROR_PAGE_NONE, out, &v);
	EXPECT_EQ(v.size, 10u) << "the size of the open, not start-up's";
	EXPECT_EQ(v.mtime, (uint64_t)kMtimeS);
	EXPECT_EQ(v.body, nullptr);
	EXPECT_EQ(std::string(v.etag, v.etag_len), ETagOf(10, kMtimeS));
	EXPECT_EQ(std::string(v.head, v.head_len),
		  "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 10"
		  "\r\nLast-Modified: Sun, 06 Nov 1994 08:49:37 GMT\r\nETag: " +
			  ETagOf(10, kMtimeS) +
			  "\r\nAccept-Ranges: bytes\r\nX-Shelf: far\r\nConnection: keep-alive\r\n\r\n");
	EXPECT_EQ(std::string(v.head + HEAD_200_TYPE_AT, v.type_len), kType);
	EXPECT_GE(v.head, out);
	EXPECT_LE(v.head + v.head_len, out + sizeof(out));
}

TEST(DiskFileTest, LastModifiedNeverAfterNowNorBefore1970)
{
	std::string stored = kType;
	struct cached_file f = DiskEntry("a.txt", &stored, 0, FILE_ENCODING_IDENTITY);
	char out[DISK_VIEW_MAX];
	struct cached_file v;
	struct disk_stat future = Stat(1, (int64_t)kNowS + 3600);
	disk_file_view(&f, &future, kNowS, ERROR_PAGE_NONE, out, &v);
	EXPECT_EQ(v.mtime, kNowS);
	struct disk_stat past = Stat(1, -5);
	disk_file_view(&f, &past, kNowS, ERROR_PAGE_NONE, out, &v);
	EXPECT_EQ(v.mtime, 0u);
}

TEST(DiskFileTest, RepresentationHasItsCodingAndETagSuffix)
{
	std::string stored = kType;
	struct cached_file f = DiskEntry("a.txt", &stored, 0, FILE_ENCODING_GZIP);
	EXPECT_EQ(file_disk_name_len(&f), strlen("a.txt.gz")) << "the name opened is X.gz";
	struct disk_stat st = Stat(7, kMtimeS);
	char out[DISK_VIEW_MAX];
	struct cached_file v;
	disk_file_view(&f, &st, kNowS, ERROR_PAGE_NONE, out, &v);
	EXPECT_EQ(std::string(v.head, v.head_len),
		  "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 7"
		  "\r\nContent-Encoding: gzip\r\nLast-Modified: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
		  "ETag: " +
			  ETagOf(7, kMtimeS, "-gz") +
			  "\r\nAccept-Ranges: bytes\r\nVary: Accept-Encoding\r\nConnection: "
			  "keep-alive\r\n\r\n");
}

TEST(DiskFileTest, ErrorPageGetsA404HeadWithoutValidators)
{
	std::string stored = std::string("text/html; charset=utf-8") + kField;
	struct cached_file f = DiskEntry("404.html", &stored, sizeof(kField) - 1,
					 FILE_ENCODING_IDENTITY);
	struct disk_stat st = Stat(12, kMtimeS);
	char out[DISK_VIEW_MAX];
	struct cached_file v;
	disk_file_view(&f, &st, kNowS, ERROR_PAGE_404, out, &v);
	EXPECT_EQ(v.etag, nullptr);
	EXPECT_EQ(std::string(v.head, v.head_len),
		  "HTTP/1.1 404 Not Found\r\nContent-Type: text/html; charset=utf-8\r\n"
		  "Content-Length: 12\r\nX-Shelf: far\r\nConnection: keep-alive\r\n\r\n");
	// Another status: its own line; the 405's Allow before the page's fields.
	disk_file_view(&f, &st, kNowS, ERROR_PAGE_405, out, &v);
	EXPECT_EQ(std::string(v.head, v.head_len),
		  "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/html; charset=utf-8\r\n"
		  "Content-Length: 12\r\nAllow: GET, HEAD, OPTIONS\r\nX-Shelf: far\r\n"
		  "Connection: keep-alive\r\n\r\n");
}

// One request against a disk file of 10 bytes (kMtimeS), decided by answer_disk.
struct DecisionRow {
	const char *label;
	std::string request;
	answer_kind kind;
	uint8_t status_counter;
	uint64_t first, last; // ANSWER_PARTIAL
};

const std::string kLiveTag = ETagOf(10, kMtimeS);
const std::string kStartUpTag = ETagOf(999, 1); // what start-up saw: never matches now

const DecisionRow kDecisions[] = {
	{"GET is the whole file as it is now", "GET /a.txt HTTP/1.1\r\n\r\n", ANSWER_FILE,
	 C_responses_200, 0, 0},
	{"HEAD is its head", "HEAD /a.txt HTTP/1.1\r\n\r\n", ANSWER_FILE, C_responses_200, 0, 0},
	{"If-None-Match with the live ETag is 304",
	 "GET /a.txt HTTP/1.1\r\nIf-None-Match: " + kLiveTag + "\r\n\r\n", ANSWER_NOT_MODIFIED,
	 C_responses_304, 0, 0},
	{"an ETag of another size is 200",
	 "GET /a.txt HTTP/1.1\r\nIf-None-Match: " + kStartUpTag + "\r\n\r\n", ANSWER_FILE,
	 C_responses_200, 0, 0},
	{"If-Modified-Since the mtime is 304",
	 "GET /a.txt HTTP/1.1\r\nIf-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n",
	 ANSWER_NOT_MODIFIED, C_responses_304, 0, 0},
	{"a range of the live length is 206", "GET /a.txt HTTP/1.1\r\nRange: bytes=5-\r\n\r\n",
	 ANSWER_PARTIAL, C_responses_206, 5, 9},
	{"a range past the live length is 416 (start-up's 999 bytes do not count)",
	 "GET /a.txt HTTP/1.1\r\nRange: bytes=10-20\r\n\r\n", ANSWER_UNSATISFIABLE,
	 C_responses_416, 0, 0},
	{"If-Range with the live ETag keeps the range",
	 "GET /a.txt HTTP/1.1\r\nRange: bytes=0-0\r\nIf-Range: " + kLiveTag + "\r\n\r\n",
	 ANSWER_PARTIAL, C_responses_206, 0, 0},
	{"If-Range with start-up's ETag is the whole file",
	 "GET /a.txt HTTP/1.1\r\nRange: bytes=0-0\r\nIf-Range: " + kStartUpTag + "\r\n\r\n",
	 ANSWER_FILE, C_responses_200, 0, 0},
};

std::string gStored = kType;
struct cached_file gDisk = DiskEntry("a.txt", &gStored, 0, FILE_ENCODING_IDENTITY);

const struct cached_file *FindDisk(const char *path, size_t len)
{
	return std::string(path, len) == "a.txt" ? &gDisk : nullptr;
}

// Parses request and answers it against FindDisk; in and its request stay in *input.
struct Parsed {
	std::string bytes;
	struct http_request req;
	struct answer_input in;
};
void Answer(Parsed *p, const std::string &request, const struct site_pages *pages,
	    bool queue_busy, struct answer *a)
{
	p->bytes = request;
	ASSERT_EQ(parse_request(p->bytes.data(), p->bytes.size(), &p->req), PARSE_COMPLETE);
	p->in = {};
	p->in.request = &p->req;
	p->in.fields = p->bytes.data() + p->req.line.line_len;
	p->in.now = FixedNow;
	p->in.find_file = FindDisk;
	p->in.pages = pages;
	p->in.buffered = (uint32_t)p->bytes.size();
	p->in.outcome = PARSE_COMPLETE;
	p->in.queue_busy = queue_busy;
	answer_request(&p->in, a);
}

TEST(DiskAnswerTest, DecidedFromTheOpenAsForALoadedFile)
{
	for (const DecisionRow &row : kDecisions) {
		SCOPED_TRACE(row.label);
		Parsed p;
		struct answer a;
		Answer(&p, row.request, nullptr, false, &a);
		ASSERT_EQ(a.kind, ANSWER_DISK) << "decided only once the file is open";
		EXPECT_EQ(a.cache_counter, C_cache_hits);
		struct disk_stat st = Stat(10, kMtimeS);
		char out[DISK_VIEW_MAX];
		struct cached_file view;
		answer_disk(&p.in, &a, &st, out, &view);
		EXPECT_EQ(a.kind, row.kind);
		EXPECT_EQ(a.status_counter, row.status_counter);
		EXPECT_EQ(a.file, &view);
		if (row.kind == ANSWER_PARTIAL) {
			EXPECT_EQ(a.first, row.first);
			EXPECT_EQ(a.last, row.last);
		}
	}
}

TEST(DiskAnswerTest, WaitsBehindQueuedResponsesLikeA304)
{
	Parsed p;
	struct answer a;
	Answer(&p, "GET /a.txt HTTP/1.1\r\n\r\n", nullptr, true, &a);
	EXPECT_EQ(a.kind, ANSWER_LATER);
	EXPECT_EQ(a.consumed, 0u);
}

TEST(DiskAnswerTest, ErrorPageOnDiskAndFilesThatCannotBeOpened)
{
	std::string page_stored = "text/html; charset=utf-8";
	struct cached_file disk_page =
		DiskEntry("404.html", &page_stored, 0, FILE_ENCODING_IDENTITY);
	struct site_pages on_disk = PagesWith(&disk_page, nullptr);
	Parsed p;
	struct answer a;
	Answer(&p, "GET /nowhere HTTP/1.1\r\n\r\n", &on_disk, false, &a);
	ASSERT_EQ(a.kind, ANSWER_DISK_PAGE);
	EXPECT_EQ(a.status_counter, C_responses_404);
	struct disk_stat st = Stat(12, kMtimeS);
	char out[DISK_VIEW_MAX];
	struct cached_file view;
	answer_disk(&p.in, &a, &st, out, &view);
	EXPECT_EQ(a.kind, ANSWER_ERROR_PAGE);
	EXPECT_EQ(a.status_counter, C_responses_404);
	EXPECT_EQ(view.size, 12u);

	// The page itself cannot be opened: the static 404.
	Answer(&p, "GET /nowhere HTTP/1.1\r\n\r\n", &on_disk, false, &a);
	answer_disk_missing(&p.in, &a);
	EXPECT_EQ(a.kind, ANSWER_STATIC);
	EXPECT_EQ(a.response, RESP_NOT_FOUND);
	EXPECT_EQ(a.status_counter, C_responses_404);

	// A disk file gone, the page in memory: the page, a miss.
	struct cached_file memory_page = {};
	memory_page.kind = CACHED_FILE;
	memory_page.place = FILE_IN_MEMORY;
	struct site_pages in_memory = PagesWith(&memory_page, nullptr);
	Answer(&p, "GET /a.txt HTTP/1.1\r\n\r\n", &in_memory, false, &a);
	ASSERT_EQ(a.kind, ANSWER_DISK);
	answer_disk_missing(&p.in, &a);
	EXPECT_EQ(a.kind, ANSWER_ERROR_PAGE);
	EXPECT_EQ(a.file, &memory_page);
	EXPECT_EQ(a.cache_counter, C_cache_misses);
	EXPECT_EQ(a.status_counter, C_responses_404);

	// A 400 page on disk that cannot be opened: the static 400, its counters unchanged.
	struct site_pages bad_page = PagesWith(&disk_page, nullptr, ERROR_PAGE_400);
	Answer(&p, "GET /a%zz HTTP/1.1\r\n\r\n", &bad_page, false, &a);
	ASSERT_EQ(a.kind, ANSWER_DISK_PAGE);
	EXPECT_EQ(a.page, ERROR_PAGE_400);
	answer_disk_missing(&p.in, &a);
	EXPECT_EQ(a.kind, ANSWER_STATIC);
	EXPECT_EQ(a.response, RESP_BAD_REQUEST);
	EXPECT_EQ(a.status_counter, C_responses_400);

	// No page: the static 404, never the fallback.
	struct site_pages fallback = PagesWith(nullptr, &memory_page);
	Answer(&p, "GET /a.txt HTTP/1.1\r\n\r\n", &fallback, false, &a);
	answer_disk_missing(&p.in, &a);
	EXPECT_EQ(a.kind, ANSWER_STATIC);
	EXPECT_EQ(a.response, RESP_NOT_FOUND);
}

} // namespace
