// The answer (common/answer/answer.h): one table row for every outcome class of the behaviour
// contract (docs/BEHAVIOUR.md 6, 7, 9 and 10). Requests are parsed by the real parser,
// so each row reads as the bytes a client sends.
#include <stdint.h>
#include <string.h>

#include <string>

#include <gtest/gtest.h>

#include "common/answer/answer.h"
#include "common/base/counters.h"
#include "common/http/http_request.h"
#include "common/answer/responses.h"
#include "test/unit/site_pages.h"

namespace {

constexpr uint8_t kNone = ANSWER_NO_COUNTER;

// The cache of the rows that serve --root: the files "index.html" and "sub/index.html"
// (both kIndex: ten bytes, its validators below) and the directories "sub" and "empty".
constexpr char kEtag[] = "\"a-1-2\"";
constexpr uint64_t kMtime = 784111777; // Sun, 06 Nov 1994 08:49:37 GMT
constexpr uint64_t kNowS = 1796083200; // the rows' wall clock: 2026-12-01

struct cached_file MakeFile(enum cached_kind kind)
{
	struct cached_file f = {};
	f.kind = (uint8_t)kind;
	if (kind == CACHED_FILE) {
		f.body = "0123456789";
		f.size = 10;
		f.mtime = kMtime;
		f.etag = kEtag;
		f.etag_len = sizeof(kEtag) - 1;
	}
	return f;
}
const struct cached_file kIndex = MakeFile(CACHED_FILE);
const struct cached_file kDirectory = MakeFile(CACHED_DIRECTORY);

uint64_t FixedNow() { return kNowS; }

const struct cached_file *FindIndex(const char *path, size_t len)
{
	std::string name(path, len);
	if (name == "index.html" || name == "sub/index.html")
		return &kIndex;
	return name == "sub" || name == "empty" ? &kDirectory : nullptr;
}

// A --root DIR with no file at all.
const struct cached_file *FindNothing(const char *, size_t) { return nullptr; }

constexpr int kSite = 1;      // Row.root: FindIndex
constexpr int kEmptyRoot = 2; // Row.root: FindNothing

enum Outcome { kComplete, kBad, kTooLong };

// Heads at the target limit (BEHAVIOUR 6.1): 8,000 bytes is routed, 8,001 is a 414.
const std::string kGet8000 = "GET /" + std::string(HTTP_TARGET_MAX - 1, 'a') + " HTTP/1.1\r\n\r\n";
const std::string kGet8001 = "GET /" + std::string(HTTP_TARGET_MAX, 'a') + " HTTP/1.1\r\n\r\n";
const std::string kHead8001 = "HEAD /" + std::string(HTTP_TARGET_MAX, 'a') + " HTTP/1.1\r\n\r\n";
const std::string kSub8000 =
	"GET /sub?" + std::string(HTTP_TARGET_MAX - 5, 'q') + " HTTP/1.1\r\n\r\n";

struct Row {
	const char *label;
	// The input: the request's bytes (for kBad, any bytes the parser rejected) and what
	// follows them in the buffer (a body, a pipelined request).
	Outcome outcome;
	const char *head;
	const char *after;
	int root;         // --root given (kSite, kEmptyRoot; true is kSite): unrouted paths
			  // go to the file cache
	bool queue_busy;  // earlier responses still queued
	bool peer_eof;
	bool buffer_full;
	// The decision.
	answer_kind kind;
	static_response_id response; // ANSWER_STATIC only
	conn_form form;
	bool linger;
	bool head_only;
	uint8_t method_counter;
	uint8_t cache_counter;
	uint8_t status_counter;
	uint64_t skip;
};

constexpr conn_form kKeep = CONN_FORM_KEEP_ALIVE;
constexpr conn_form kClose = CONN_FORM_CLOSE;

const Row kRows[] = {
	// 6.5 routes
	{"GET / is hello, HTTP/1.1 persists", kComplete, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "",
	 false, false, false, false, ANSWER_STATIC, RESP_HELLO, kKeep, false, false,
	 C_requests_get, kNone, C_responses_200, 0},
	{"HEAD / is hello's head", kComplete, "HEAD / HTTP/1.1\r\n\r\n", "", false, false, false,
	 false, ANSWER_STATIC, RESP_HELLO, kKeep, false, true, C_requests_head, kNone,
	 C_responses_200, 0},
	{"GET /health", kComplete, "GET /health HTTP/1.1\r\n\r\n", "", false, false, false, false,
	 ANSWER_STATIC, RESP_HEALTH, kKeep, false, false, C_requests_get, kNone, C_responses_200,
	 0},
	{"the query is not part of the route", kComplete, "GET /health?x=1 HTTP/1.1\r\n\r\n", "",
	 false, false, false, false, ANSWER_STATIC, RESP_HEALTH, kKeep, false, false,
	 C_requests_get, kNone, C_responses_200, 0},
	{"no decoding: /health/ is another path", kComplete, "GET /health/ HTTP/1.1\r\n\r\n", "",
	 false, false, false, false, ANSWER_STATIC, RESP_NOT_FOUND, kKeep, false, false,
	 C_requests_get, kNone, C_responses_404, 0},
	{"an unknown path without --root is 404, no cache counter", kComplete,
	 "GET /nope HTTP/1.1\r\n\r\n", "", false, false, false, false, ANSWER_STATIC,
	 RESP_NOT_FOUND, kKeep, false, false, C_requests_get, kNone, C_responses_404, 0},
	// 7 /metrics
	{"/metrics with an empty queue renders now", kComplete, "GET /metrics HTTP/1.1\r\n\r\n",
	 "", false, false, false, false, ANSWER_METRICS, RESP_HELLO, kKeep, false, false,
	 C_requests_get, kNone, C_responses_200, 0},
	{"HEAD /metrics", kComplete, "HEAD /metrics HTTP/1.1\r\n\r\n", "", false, false, false,
	 false, ANSWER_METRICS, RESP_HELLO, kKeep, false, true, C_requests_head, kNone,
	 C_responses_200, 0},
	// 9.6
	{"/metrics behind queued responses waits, counts nothing", kComplete,
	 "GET /metrics HTTP/1.1\r\n\r\n", "", false, true, false, false, ANSWER_LATER, RESP_HELLO,
	 kClose, false, false, kNone, kNone, kNone, 0},
	{"a 405 for /metrics does not wait", kComplete, "POST /metrics HTTP/1.1\r\n\r\n", "",
	 false, true, false, false, ANSWER_STATIC, RESP_NOT_ALLOWED, kKeep, false, false, kNone,
	 kNone, C_responses_405, 0},
	// 6.2 and 9.1: 405 closes only with a body
	{"405 without a body persists", kComplete, "DELETE / HTTP/1.1\r\n\r\n", "", false, false,
	 false, false, ANSWER_STATIC, RESP_NOT_ALLOWED, kKeep, false, false, kNone, kNone,
	 C_responses_405, 0},
	{"405 with a body not yet arrived closes and lingers", kComplete,
	 "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n", "", false, false, false, false,
	 ANSWER_STATIC, RESP_NOT_ALLOWED, kClose, true, false, kNone, kNone, C_responses_405, 0},
	{"405 whose body came with the peer's end closes without lingering", kComplete,
	 "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n", "hello", false, false, true, false,
	 ANSWER_STATIC, RESP_NOT_ALLOWED, kClose, false, false, kNone, kNone, C_responses_405, 0},
	{"405 with Content-Length: 0 persists", kComplete,
	 "PUT / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", "", false, false, false, false,
	 ANSWER_STATIC, RESP_NOT_ALLOWED, kKeep, false, false, kNone, kNone, C_responses_405, 0},
	// 6 and 9.4: 400 ends the input
	{"400 closes and lingers: more may be on its way", kBad, "get / HTTP/1.1\r\n\r\n", "",
	 false, false, false, false, ANSWER_STATIC, RESP_BAD_REQUEST, kClose, true, false, kNone,
	 kNone, C_responses_400, 0},
	// 6.7: no HEAD response carries a body, the 400 and the 414 included
	{"HEAD with a bad header: the 400's head only", kBad,
	 "HEAD / HTTP/1.1\r\nHost : x\r\n\r\n", "", false, false, true, false, ANSWER_STATIC,
	 RESP_BAD_REQUEST, kClose, false, true, kNone, kNone, C_responses_400, 0},
	{"HEAD with an 8,001-byte target: the 414's head only", kTooLong,
	 kHead8001.c_str(), "", false, false, true, false,
	 ANSWER_STATIC, RESP_URI_TOO_LONG, kClose, false, true, kNone, kNone, C_responses_414, 0},
	{"HEADER is no HEAD: the 400 keeps its body", kBad, "HEADER / HTTP/1.1\r\nHost : x\r\n\r\n",
	 "", false, false, true, false, ANSWER_STATIC, RESP_BAD_REQUEST, kClose, false, false,
	 kNone, kNone, C_responses_400, 0},
	{"400 after the peer's end closes at once", kBad, "GET / HTTP/2.0\r\n\r\n", "", false,
	 false, true, false, ANSWER_STATIC, RESP_BAD_REQUEST, kClose, false, false, kNone, kNone,
	 C_responses_400, 0},
	// 6.1 and 6.8: an 8,000-byte target is routed; one byte more is a 414 that, like a
	// 400, ends the input and closes
	{"8,000-byte target is routed", kComplete, kGet8000.c_str(), "", false, false, false,
	 false, ANSWER_STATIC, RESP_NOT_FOUND, kKeep, false, false, C_requests_get, kNone,
	 C_responses_404, 0},
	{"8,000-byte target to a directory: its 301", kComplete, kSub8000.c_str(), "", kSite,
	 false, false, false, ANSWER_REDIRECT, RESP_NOT_FOUND, kKeep, false, false,
	 C_requests_get, C_cache_misses, C_responses_301, 0},
	{"8,001-byte target is 414, closes and lingers", kTooLong, kGet8001.c_str(),
	 "GET / HTTP/1.1\r\n\r\n", kSite, false, false, false, ANSWER_STATIC, RESP_URI_TOO_LONG,
	 kClose, true, false, kNone, kNone, C_responses_414, 0},
	{"414 after the peer's end closes at once", kTooLong, kGet8001.c_str(), "", false, false,
	 true, false, ANSWER_STATIC, RESP_URI_TOO_LONG, kClose, false, false, kNone, kNone,
	 C_responses_414, 0},
	// 9.1 keep or close
	{"HTTP/1.0 closes by default", kComplete, "GET / HTTP/1.0\r\n\r\n", "", false, false,
	 false, false, ANSWER_STATIC, RESP_HELLO, kClose, false, false, C_requests_get, kNone,
	 C_responses_200, 0},
	{"HTTP/1.0 persists with keep-alive", kComplete,
	 "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", "", false, false, false, false,
	 ANSWER_STATIC, RESP_HELLO, kKeep, false, false, C_requests_get, kNone, C_responses_200,
	 0},
	{"HTTP/1.1 with close closes", kComplete, "GET / HTTP/1.1\r\nConnection: close\r\n\r\n",
	 "", false, false, false, false, ANSWER_STATIC, RESP_HELLO, kClose, false, false,
	 C_requests_get, kNone, C_responses_200, 0},
	{"close with a pipelined request after it lingers", kComplete,
	 "GET / HTTP/1.1\r\nConnection: close\r\n\r\n", "GET / HTTP/1.1\r\n\r\n", false, false,
	 false, false, ANSWER_STATIC, RESP_HELLO, kClose, true, false, C_requests_get, kNone,
	 C_responses_200, 0},
	{"close with a full buffer lingers", kComplete,
	 "GET / HTTP/1.1\r\nConnection: close\r\n\r\n", "", false, false, false, true,
	 ANSWER_STATIC, RESP_HELLO, kClose, true, false, C_requests_get, kNone, C_responses_200,
	 0},
	// 9.3 bodies
	{"a GET body is skipped on a persistent connection", kComplete,
	 "GET / HTTP/1.1\r\nContent-Length: 10\r\n\r\n", "0123456789", false, false, false, false,
	 ANSWER_STATIC, RESP_HELLO, kKeep, false, false, C_requests_get, kNone, C_responses_200,
	 10},
	{"a GET body over 1 MiB closes and lingers", kComplete,
	 "GET / HTTP/1.1\r\nContent-Length: 1048577\r\n\r\n", "", false, false, false, false,
	 ANSWER_STATIC, RESP_HELLO, kClose, true, false, C_requests_get, kNone, C_responses_200,
	 0},
	{"a GET body of exactly 1 MiB is skipped", kComplete,
	 "GET / HTTP/1.1\r\nContent-Length: 1048576\r\n\r\n", "", false, false, false, false,
	 ANSWER_STATIC, RESP_HELLO, kKeep, false, false, C_requests_get, kNone, C_responses_200,
	 1048576},
	// 10 the file cache
	{"a cached file is a hit", kComplete, "GET /index.html HTTP/1.1\r\n\r\n", "", true, false,
	 false, false, ANSWER_FILE, RESP_NOT_FOUND, kKeep, false, false, C_requests_get,
	 C_cache_hits, C_responses_200, 0},
	{"HEAD of a cached file", kComplete, "HEAD /index.html HTTP/1.1\r\n\r\n", "", true, false,
	 false, false, ANSWER_FILE, RESP_NOT_FOUND, kKeep, false, true, C_requests_head,
	 C_cache_hits, C_responses_200, 0},
	{"a file's query is ignored", kComplete, "GET /index.html?v=2 HTTP/1.1\r\n\r\n", "", true,
	 false, false, false, ANSWER_FILE, RESP_NOT_FOUND, kKeep, false, false, C_requests_get,
	 C_cache_hits, C_responses_200, 0},
	{"a path that is no file is a miss and 404", kComplete, "GET /other HTTP/1.1\r\n\r\n", "",
	 true, false, false, false, ANSWER_STATIC, RESP_NOT_FOUND, kKeep, false, false,
	 C_requests_get, C_cache_misses, C_responses_404, 0},
	{"/ serves DIR's index.html: a hit", kComplete, "GET /?x HTTP/1.1\r\n\r\n", "", kSite,
	 false, false, false, ANSWER_FILE, RESP_NOT_FOUND, kKeep, false, false, C_requests_get,
	 C_cache_hits, C_responses_200, 0},
	{"/ without an index says hello and counts no cache lookup", kComplete,
	 "GET / HTTP/1.1\r\n\r\n", "", kEmptyRoot, false, false, false, ANSWER_STATIC,
	 RESP_HELLO, kKeep, false, false, C_requests_get, kNone, C_responses_200, 0},
	{"/health wins over files", kComplete, "GET /health HTTP/1.1\r\n\r\n", "", kSite, false,
	 false, false, ANSWER_STATIC, RESP_HEALTH, kKeep, false, false, C_requests_get, kNone,
	 C_responses_200, 0},
	{"/dir/ serves its index.html", kComplete, "HEAD /sub/ HTTP/1.1\r\n\r\n", "", kSite,
	 false, false, false, ANSWER_FILE, RESP_NOT_FOUND, kKeep, false, true, C_requests_head,
	 C_cache_hits, C_responses_200, 0},
	{"a percent-encoded name is decoded", kComplete, "GET /s%75b/%69ndex.html HTTP/1.1\r\n\r\n",
	 "", kSite, false, false, false, ANSWER_FILE, RESP_NOT_FOUND, kKeep, false, false,
	 C_requests_get, C_cache_hits, C_responses_200, 0},
	{"/dir redirects: a miss and a 301", kComplete, "GET /sub?q HTTP/1.1\r\n\r\n", "", kSite,
	 false, false, false, ANSWER_REDIRECT, RESP_NOT_FOUND, kKeep, false, false,
	 C_requests_get, C_cache_misses, C_responses_301, 0},
	{"/dir behind queued responses waits", kComplete, "GET /sub HTTP/1.1\r\n\r\n", "", kSite,
	 true, false, false, ANSWER_LATER, RESP_NOT_FOUND, kKeep, false, false, kNone,
	 kNone, kNone, 0},
	{"a directory without index.html is 404", kComplete, "GET /empty/ HTTP/1.1\r\n\r\n", "",
	 kSite, false, false, false, ANSWER_STATIC, RESP_NOT_FOUND, kKeep, false, false,
	 C_requests_get, C_cache_misses, C_responses_404, 0},
	{"an encoded '/' is 400 and keeps the connection", kComplete,
	 "GET /sub%2Findex.html HTTP/1.1\r\n\r\n", "", kSite, false, false, false, ANSWER_STATIC,
	 RESP_BAD_REQUEST, kKeep, false, false, C_requests_get, C_cache_misses, C_responses_400, 0},
	{"a malformed escape is 400", kComplete, "GET /index.html%4 HTTP/1.1\r\n\r\n", "", kSite,
	 false, false, false, ANSWER_STATIC, RESP_BAD_REQUEST, kKeep, false, false,
	 C_requests_get, C_cache_misses, C_responses_400, 0},
	// 10.4 dot segments, removed after decoding; a climb above DIR is a 400
	{"/sub/../index.html is index.html", kComplete, "GET /sub/../index.html HTTP/1.1\r\n\r\n",
	 "", kSite, false, false, false, ANSWER_FILE, RESP_NOT_FOUND, kKeep, false, false,
	 C_requests_get, C_cache_hits, C_responses_200, 0},
	{"encoded dots count", kComplete, "GET /sub/%2e%2E/./index.html HTTP/1.1\r\n\r\n", "",
	 kSite, false, false, false, ANSWER_FILE, RESP_NOT_FOUND, kKeep, false, false,
	 C_requests_get, C_cache_hits, C_responses_200, 0},
	{"a final /. names the directory's index", kComplete, "GET /sub/. HTTP/1.1\r\n\r\n", "",
	 kSite, false, false, false, ANSWER_FILE, RESP_NOT_FOUND, kKeep, false, false,
	 C_requests_get, C_cache_hits, C_responses_200, 0},
	{"above the root is 400 and keeps the connection", kComplete,
	 "GET /%2e%2e/x HTTP/1.1\r\n\r\n", "", kSite, false, false, false, ANSWER_STATIC,
	 RESP_BAD_REQUEST, kKeep, false, false, C_requests_get, C_cache_misses, C_responses_400, 0},
	{"without --root dots are not looked at", kComplete, "GET /a/../.. HTTP/1.1\r\n\r\n", "",
	 false, false, false, false, ANSWER_STATIC, RESP_NOT_FOUND, kKeep, false, false,
	 C_requests_get, kNone, C_responses_404, 0},
	// 6.1 absolute-form: routed by its path
	{"absolute-form is routed by its path", kComplete,
	 "GET http://h.example/health HTTP/1.1\r\n\r\n", "", false, false, false, false,
	 ANSWER_STATIC, RESP_HEALTH, kKeep, false, false, C_requests_get, kNone, C_responses_200,
	 0},
	{"absolute-form without a path is /", kComplete,
	 "HEAD http://h.example:8080 HTTP/1.1\r\n\r\n", "", kSite, false, false, false,
	 ANSWER_FILE, RESP_HELLO, kKeep, false, true, C_requests_head, C_cache_hits,
	 C_responses_200, 0},
	{"absolute-form with userinfo is a malformed 400", kBad,
	 "GET http://u@h/ HTTP/1.1\r\n\r\n", "", false, false, false, false, ANSWER_STATIC,
	 RESP_BAD_REQUEST, kClose, true, false, kNone, kNone, C_responses_400, 0},
	{"without --root an escape is not looked at", kComplete, "GET /%zz HTTP/1.1\r\n\r\n", "",
	 false, false, false, false, ANSWER_STATIC, RESP_NOT_FOUND, kKeep, false, false,
	 C_requests_get, kNone, C_responses_404, 0},
	// 6.2 OPTIONS
	{"OPTIONS * is the static 200 with Allow", kComplete, "OPTIONS * HTTP/1.1\r\n\r\n", "",
	 kSite, false, false, false, ANSWER_STATIC, RESP_OPTIONS_ANY, kKeep, false, false, kNone,
	 kNone, C_responses_200, 0},
	{"OPTIONS of a path is the 204, rendered now", kComplete,
	 "OPTIONS /index.html HTTP/1.1\r\n\r\n", "", kSite, false, false, false, ANSWER_OPTIONS,
	 RESP_NOT_FOUND, kKeep, false, false, kNone, kNone, C_responses_204, 0},
	{"OPTIONS of a missing path too", kComplete, "OPTIONS /nope HTTP/1.1\r\n\r\n", "", false,
	 false, false, false, ANSWER_OPTIONS, RESP_NOT_FOUND, kKeep, false, false, kNone, kNone,
	 C_responses_204, 0},
	{"OPTIONS behind queued responses waits", kComplete, "OPTIONS /a HTTP/1.1\r\n\r\n", "",
	 kSite, true, false, false, ANSWER_LATER, RESP_NOT_FOUND, kKeep, false, false, kNone,
	 kNone, kNone, 0},
	{"OPTIONS of a path above the root is the 400 GET gets", kComplete,
	 "OPTIONS /%2e%2e/a HTTP/1.1\r\n\r\n", "", kSite, false, false, false, ANSWER_STATIC,
	 RESP_BAD_REQUEST, kKeep, false, false, kNone, kNone, C_responses_400, 0},
	{"OPTIONS with a body closes as a 405 does", kComplete,
	 "OPTIONS * HTTP/1.1\r\nContent-Length: 2\r\n\r\n", "{}", false, false, false, false,
	 ANSWER_STATIC, RESP_OPTIONS_ANY, kClose, true, false, kNone, kNone, C_responses_200, 0},
	{"* for another method is a malformed 400", kBad, "GET * HTTP/1.1\r\n\r\n", "", false,
	 false, false, false, ANSWER_STATIC, RESP_BAD_REQUEST, kClose, true, false, kNone, kNone,
	 C_responses_400, 0},
	{"a 405 looks nothing up", kComplete, "POST /index.html HTTP/1.1\r\n\r\n", "", true,
	 false, false, false, ANSWER_STATIC, RESP_NOT_ALLOWED, kKeep, false, false, kNone, kNone,
	 C_responses_405, 0},
	// 10.8 validators
	{"If-None-Match with the ETag is 304", kComplete,
	 "GET /index.html HTTP/1.1\r\nIf-None-Match: \"a-1-2\"\r\n\r\n", "", kSite, false, false,
	 false, ANSWER_NOT_MODIFIED, RESP_NOT_FOUND, kKeep, false, false, C_requests_get,
	 C_cache_hits, C_responses_304, 0},
	{"HEAD with If-None-Match is 304's head", kComplete,
	 "HEAD /index.html HTTP/1.1\r\nIf-None-Match: *\r\n\r\n", "", kSite, false, false,
	 false, ANSWER_NOT_MODIFIED, RESP_NOT_FOUND, kKeep, false, true, C_requests_head,
	 C_cache_hits, C_responses_304, 0},
	{"a 304 behind queued responses waits: its head renders into the scratch", kComplete,
	 "GET /index.html HTTP/1.1\r\nIf-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n",
	 "", kSite, true, false, false, ANSWER_LATER, RESP_NOT_FOUND, kKeep, false, false, kNone,
	 kNone, kNone, 0},
	{"a 304 on an empty queue is answered", kComplete,
	 "GET /index.html HTTP/1.1\r\nIf-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n",
	 "", kSite, false, false, false, ANSWER_NOT_MODIFIED, RESP_NOT_FOUND, kKeep, false, false,
	 C_requests_get, C_cache_hits, C_responses_304, 0},
	{"If-None-Match without a match is 200", kComplete,
	 "GET /index.html HTTP/1.1\r\nIf-None-Match: \"b\"\r\n\r\n", "", kSite, false, false,
	 false, ANSWER_FILE, RESP_NOT_FOUND, kKeep, false, false, C_requests_get, C_cache_hits,
	 C_responses_200, 0},
	// 10.9 ranges
	{"a range is 206", kComplete, "GET /index.html HTTP/1.1\r\nRange: bytes=2-4\r\n\r\n", "",
	 kSite, false, false, false, ANSWER_PARTIAL, RESP_NOT_FOUND, kKeep, false, false,
	 C_requests_get, C_cache_hits, C_responses_206, 0},
	{"a range outside the file is 416", kComplete,
	 "GET /index.html HTTP/1.1\r\nRange: bytes=10-\r\n\r\n", "", kSite, false, false, false,
	 ANSWER_UNSATISFIABLE, RESP_NOT_FOUND, kKeep, false, false, C_requests_get, C_cache_hits,
	 C_responses_416, 0},
	{"a 206 behind queued responses waits", kComplete,
	 "GET /index.html HTTP/1.1\r\nRange: bytes=2-4\r\n\r\n", "", kSite, true, false, false,
	 ANSWER_LATER, RESP_NOT_FOUND, kKeep, false, false, kNone, kNone, kNone, 0},
	{"a 416 behind queued responses waits", kComplete,
	 "GET /index.html HTTP/1.1\r\nRange: bytes=-0\r\n\r\n", "", kSite, true, false, false,
	 ANSWER_LATER, RESP_NOT_FOUND, kKeep, false, false, kNone, kNone, kNone, 0},
	{"HEAD ignores Range (RFC 9110 14.2: GET only)", kComplete,
	 "HEAD /index.html HTTP/1.1\r\nRange: bytes=2-4\r\n\r\n", "", kSite, false, false, false,
	 ANSWER_FILE, RESP_NOT_FOUND, kKeep, false, true, C_requests_head, C_cache_hits,
	 C_responses_200, 0},
};

TEST(AnswerTest, Table)
{
	for (const Row &row : kRows) {
		SCOPED_TRACE(row.label);
		std::string input = std::string(row.head) + row.after;
		struct http_request req;
		enum parse_outcome parsed = parse_request(input.data(), input.size(), &req);
		ASSERT_EQ(parsed, row.outcome == kComplete ? PARSE_COMPLETE
				  : row.outcome == kBad    ? PARSE_BAD
							   : PARSE_TARGET_TOO_LONG)
			<< "the row's bytes must parse as the row says";
		struct answer_input in = {};
		in.request = &req;
		in.fields = input.data() + req.line.line_len;
		in.input = input.data();
		in.now = FixedNow;
		in.find_file = row.root == kSite ? FindIndex
			       : row.root == kEmptyRoot ? FindNothing
							: nullptr;
		in.buffered = (uint32_t)input.size();
		in.outcome = (uint8_t)parsed;
		in.buffer_full = row.buffer_full;
		in.peer_eof = row.peer_eof;
		in.queue_busy = row.queue_busy;

		struct answer a;
		answer_request(&in, &a);

		EXPECT_EQ(a.kind, row.kind);
		EXPECT_EQ(a.method_counter, row.method_counter);
		EXPECT_EQ(a.cache_counter, row.cache_counter);
		EXPECT_EQ(a.status_counter, row.status_counter);
		if (row.kind == ANSWER_LATER) {
			EXPECT_EQ(a.consumed, 0u) << "a waiting /metrics consumes nothing";
			continue;
		}
		EXPECT_EQ(a.form, row.form);
		EXPECT_EQ(a.linger, row.linger);
		EXPECT_EQ(a.head_only, row.head_only);
		EXPECT_EQ(a.skip, row.skip);
		if (row.kind == ANSWER_STATIC) {
			EXPECT_EQ(a.response, row.response);
		}
		if (row.kind == ANSWER_FILE || row.kind == ANSWER_NOT_MODIFIED ||
		    row.kind == ANSWER_PARTIAL || row.kind == ANSWER_UNSATISFIABLE) {
			EXPECT_EQ(a.file, &kIndex);
		}
		if (row.kind == ANSWER_PARTIAL) { /* every 206 row asks for bytes 2-4 */
			EXPECT_EQ(a.first, 2u);
			EXPECT_EQ(a.last, 4u);
		}
		if (row.kind == ANSWER_REDIRECT) { /* the Location is built from the target */
			EXPECT_EQ(a.target, req.line.target);
			EXPECT_EQ(a.target_len, req.line.target_len);
			EXPECT_EQ(a.path_len, req.line.path_len);
		}
		// A 400 or a 414 ends the input; anything else consumes exactly its head.
		EXPECT_EQ(a.consumed, row.outcome != kComplete ? input.size() : strlen(row.head));
		EXPECT_EQ(a.linger && row.peer_eof, false) << "nothing to linger for after EOF";
		EXPECT_TRUE(a.form == kClose || !a.linger) << "only a closing answer lingers";
	}
}

// BEHAVIOUR 10.12: what a GET or HEAD that finds no file gets with --error-page 404 and
// with --fallback (kIndex stands for the fallback file, kPage for the 404 page), and
// what still wins over them.
TEST(AnswerTest, ErrorPageAndFallback)
{
	const struct cached_file page = MakeFile(CACHED_FILE);
	const struct site_pages error_page = PagesWith(&page, nullptr);
	const struct site_pages fallback = PagesWith(&page, &kIndex); // the fallback shadows the page
	const struct {
		const char *label;
		const char *head;
		const struct site_pages *pages;
		answer_kind kind;
		const struct cached_file *file; // nullptr: a static or redirect answer
		uint8_t cache_counter;
		uint8_t status_counter;
	} rows[] = {
		{"a missing file gets the page as a 404", "GET /nope HTTP/1.1\r\n\r\n", &error_page,
		 ANSWER_ERROR_PAGE, &page, C_cache_misses, C_responses_404},
		{"so does its HEAD", "HEAD /nope HTTP/1.1\r\n\r\n", &error_page, ANSWER_ERROR_PAGE,
		 &page, C_cache_misses, C_responses_404},
		{"a directory's missing index", "GET /empty/ HTTP/1.1\r\n\r\n", &error_page,
		 ANSWER_ERROR_PAGE, &page, C_cache_misses, C_responses_404},
		{"never a 304", "GET /nope HTTP/1.1\r\nIf-None-Match: *\r\n\r\n", &error_page,
		 ANSWER_ERROR_PAGE, &page, C_cache_misses, C_responses_404},
		{"a real file wins over the page", "GET /index.html HTTP/1.1\r\n\r\n", &error_page,
		 ANSWER_FILE, &kIndex, C_cache_hits, C_responses_200},
		{"the 301 wins over the page", "GET /sub HTTP/1.1\r\n\r\n", &error_page,
		 ANSWER_REDIRECT, nullptr, C_cache_misses, C_responses_301},
		{"a bad escape stays 400", "GET /a%2fb HTTP/1.1\r\n\r\n", &error_page, ANSWER_STATIC,
		 nullptr, C_cache_misses, C_responses_400},
		{"/health wins over the page", "GET /health HTTP/1.1\r\n\r\n", &error_page,
		 ANSWER_STATIC, nullptr, kNone, C_responses_200},
		{"a missing file gets the fallback, a hit", "GET /app/x HTTP/1.1\r\n\r\n", &fallback,
		 ANSWER_FILE, &kIndex, C_cache_hits, C_responses_200},
		// The fallback answers an extensionless last segment or a browser's navigation
		// only: a missing asset stays a miss, with the 404 page when there is one.
		{"a missing asset is no fallback but the 404 page", "GET /favicon.ico HTTP/1.1\r\n\r\n",
		 &fallback, ANSWER_ERROR_PAGE, &page, C_cache_misses, C_responses_404},
		{"a script asked for as */* is no fallback", "GET /app.js HTTP/1.1\r\nAccept: */*\r\n\r\n",
		 &fallback, ANSWER_ERROR_PAGE, &page, C_cache_misses, C_responses_404},
		{"a navigation to a name with a dot gets the fallback",
		 "GET /user/jane.doe HTTP/1.1\r\nAccept: text/html,application/xhtml+xml,*/*;q=0.8\r\n\r\n",
		 &fallback, ANSWER_FILE, &kIndex, C_cache_hits, C_responses_200},
		{"an encoded dot is a dot", "GET /a%2ejs HTTP/1.1\r\n\r\n", &fallback,
		 ANSWER_ERROR_PAGE, &page, C_cache_misses, C_responses_404},
		{"a dot in a directory's name does not count", "GET /v1.0/route HTTP/1.1\r\n\r\n",
		 &fallback, ANSWER_FILE, &kIndex, C_cache_hits, C_responses_200},
		{"the fallback revalidates", "GET /app/x HTTP/1.1\r\nIf-None-Match: \"a-1-2\"\r\n\r\n",
		 &fallback, ANSWER_NOT_MODIFIED, &kIndex, C_cache_hits, C_responses_304},
		{"the fallback takes ranges", "GET /app/x HTTP/1.1\r\nRange: bytes=2-4\r\n\r\n",
		 &fallback, ANSWER_PARTIAL, &kIndex, C_cache_hits, C_responses_206},
		{"the 301 wins over the fallback", "GET /sub HTTP/1.1\r\n\r\n", &fallback,
		 ANSWER_REDIRECT, nullptr, C_cache_misses, C_responses_301},
		{"/metrics wins over the fallback", "GET /metrics HTTP/1.1\r\n\r\n", &fallback,
		 ANSWER_METRICS, nullptr, kNone, C_responses_200},
		{"a bad escape is no fallback", "GET /%zz HTTP/1.1\r\n\r\n", &fallback, ANSWER_STATIC,
		 nullptr, C_cache_misses, C_responses_400},
		{"other methods still 405", "PUT /app/x HTTP/1.1\r\n\r\n", &fallback, ANSWER_STATIC,
		 nullptr, kNone, C_responses_405},
	};
	for (const auto &row : rows) {
		SCOPED_TRACE(row.label);
		std::string input = row.head;
		struct http_request req;
		ASSERT_EQ(parse_request(input.data(), input.size(), &req), PARSE_COMPLETE);
		struct answer_input in = {};
		in.request = &req;
		in.fields = input.data() + req.line.line_len;
		in.now = FixedNow;
		in.find_file = FindIndex;
		in.pages = row.pages;
		in.buffered = (uint32_t)input.size();
		in.outcome = PARSE_COMPLETE;
		struct answer a;
		answer_request(&in, &a);
		EXPECT_EQ(a.kind, row.kind);
		if (row.file) {
			EXPECT_EQ(a.file, row.file);
		}
		EXPECT_EQ(a.cache_counter, row.cache_counter);
		EXPECT_EQ(a.status_counter, row.status_counter);
	}
	// "/" without an index.html: the fallback takes the place of the hello.
	std::string root = "GET / HTTP/1.1\r\n\r\n";
	struct http_request req;
	ASSERT_EQ(parse_request(root.data(), root.size(), &req), PARSE_COMPLETE);
	struct answer_input in = {};
	in.request = &req;
	in.fields = root.data() + req.line.line_len;
	in.now = FixedNow;
	in.find_file = FindNothing;
	in.pages = &fallback;
	in.buffered = (uint32_t)root.size();
	in.outcome = PARSE_COMPLETE;
	struct answer a;
	answer_request(&in, &a);
	EXPECT_EQ(a.kind, ANSWER_FILE);
	EXPECT_EQ(a.file, &kIndex);
	in.pages = &error_page; // the page is for 404s: "/" still says hello
	answer_request(&in, &a);
	EXPECT_EQ(a.kind, ANSWER_STATIC);
	EXPECT_EQ(a.response, RESP_HELLO);
}

// BEHAVIOUR 10.12: with a page for every status, each answer with a body takes the page
// of its own status (the static response, its counters and the connection's fate
// unchanged); a 416 keeps its kind and names the page; a page on disk behind queued
// responses waits; what is no error keeps its answer.
TEST(AnswerTest, EveryStatusGetsItsPage)
{
	struct cached_file page[ERROR_PAGE_COUNT];
	struct site_pages all = {};
	for (unsigned id = 0; id < ERROR_PAGE_COUNT; id++) {
		page[id] = MakeFile(CACHED_FILE);
		page[id].place = FILE_IN_MEMORY;
		all.error[id] = &page[id];
	}
	const struct {
		const char *label;
		Outcome outcome;
		std::string input;
		answer_kind kind;
		unsigned page;
		uint8_t status_counter;
		uint8_t head_only;
		uint8_t form;
	} rows[] = {
		{"a malformed head: the 400 page, closing", kBad, "GET / HTTP/1.1\r\nbad\r\n\r\n",
		 ANSWER_ERROR_PAGE, ERROR_PAGE_400, C_responses_400, 0, kClose},
		{"its HEAD: no body", kBad, "HEAD / HTTP/1.1\r\nbad\r\n\r\n", ANSWER_ERROR_PAGE,
		 ERROR_PAGE_400, C_responses_400, 1, kClose},
		{"a bad escape: the 400 page, kept alive", kComplete, "GET /%zz HTTP/1.1\r\n\r\n",
		 ANSWER_ERROR_PAGE, ERROR_PAGE_400, C_responses_400, 0, kKeep},
		{"a miss: the 404 page", kComplete, "GET /nope HTTP/1.1\r\n\r\n", ANSWER_ERROR_PAGE,
		 ERROR_PAGE_404, C_responses_404, 0, kKeep},
		{"another method: the 405 page", kComplete, "PUT /nope HTTP/1.1\r\n\r\n",
		 ANSWER_ERROR_PAGE, ERROR_PAGE_405, C_responses_405, 0, kKeep},
		{"a target too long: the 414 page", kTooLong, kHead8001, ANSWER_ERROR_PAGE,
		 ERROR_PAGE_414, C_responses_414, 1, kClose},
		{"a range outside the file: the 416 with its page", kComplete,
		 "GET /index.html HTTP/1.1\r\nRange: bytes=99-\r\n\r\n", ANSWER_UNSATISFIABLE,
		 ERROR_PAGE_416, C_responses_416, 0, kKeep},
		{"a file is no error", kComplete, "GET /index.html HTTP/1.1\r\n\r\n", ANSWER_FILE,
		 ERROR_PAGE_NONE, C_responses_200, 0, kKeep},
		{"nor is /health", kComplete, "GET /health HTTP/1.1\r\n\r\n", ANSWER_STATIC,
		 ERROR_PAGE_NONE, C_responses_200, 0, kKeep},
		{"nor an OPTIONS *", kComplete, "OPTIONS * HTTP/1.1\r\n\r\n", ANSWER_STATIC,
		 ERROR_PAGE_NONE, C_responses_200, 0, kKeep},
	};
	for (const auto &row : rows) {
		SCOPED_TRACE(row.label);
		struct http_request req;
		enum parse_outcome r = parse_request(row.input.data(), row.input.size(), &req);
		ASSERT_EQ(r, row.outcome == kComplete ? PARSE_COMPLETE
			     : row.outcome == kBad    ? PARSE_BAD
						      : PARSE_TARGET_TOO_LONG);
		struct answer_input in = {};
		in.request = &req;
		in.fields = r == PARSE_COMPLETE ? row.input.data() + req.line.line_len : nullptr;
		in.input = row.input.data();
		in.now = FixedNow;
		in.find_file = FindIndex;
		in.pages = &all;
		in.buffered = (uint32_t)row.input.size();
		in.outcome = (uint8_t)r;
		in.peer_eof = 1;
		struct answer a;
		answer_request(&in, &a);
		EXPECT_EQ(a.kind, row.kind);
		EXPECT_EQ(a.page, row.page);
		if (row.kind == ANSWER_ERROR_PAGE) {
			EXPECT_EQ(a.file, &page[row.page]);
		}
		EXPECT_EQ(a.status_counter, row.status_counter);
		EXPECT_EQ(a.head_only, row.head_only);
		EXPECT_EQ(a.form, row.form);
	}
	// A page on disk renders into the scratch: behind queued responses it waits.
	page[ERROR_PAGE_404].place = FILE_ON_DISK;
	std::string miss = "GET /nope HTTP/1.1\r\n\r\n";
	struct http_request req;
	ASSERT_EQ(parse_request(miss.data(), miss.size(), &req), PARSE_COMPLETE);
	struct answer_input in = {};
	in.request = &req;
	in.fields = miss.data() + req.line.line_len;
	in.now = FixedNow;
	in.find_file = FindIndex;
	in.pages = &all;
	in.buffered = (uint32_t)miss.size();
	in.outcome = PARSE_COMPLETE;
	struct answer a;
	answer_request(&in, &a);
	EXPECT_EQ(a.kind, ANSWER_DISK_PAGE);
	in.queue_busy = 1;
	answer_request(&in, &a);
	EXPECT_EQ(a.kind, ANSWER_LATER);
	EXPECT_EQ(a.consumed, 0u);
	EXPECT_EQ(a.status_counter, kNone);
}

// The status counter always names the response actually chosen, in both forms.
TEST(AnswerTest, StatusCounterMatchesTheStaticResponse)
{
	for (const Row &row : kRows) {
		if (row.kind != ANSWER_STATIC)
			continue;
		SCOPED_TRACE(row.label);
		EXPECT_EQ(row.status_counter, static_responses[row.form][row.response].counter);
	}
}

} // namespace
