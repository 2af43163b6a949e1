// What the daemon sends: the static responses, the /metrics rendering, and the routes.
#include <stdint.h>
#include <string.h>

#include <string>

#include <gtest/gtest.h>

#include "common/base/counters.h"
#include "common/http/http_request.h"
#include "common/answer/metrics.h"
#include "common/answer/responses.h"
#include "common/answer/routes.h"
#include "test/unit/guarded_buffer.h"
#include "test/unit/spec_counters.h"

namespace {

const std::string kCrlf = "\r\n";

// Returns the value of header `name` (exact case, "Name: value" form) in head, or
// "<absent>" when no such line exists.
std::string HeaderValue(const std::string &head, const std::string &name)
{
	std::string key = kCrlf + name + ": ";
	size_t at = head.find(key);
	if (at == std::string::npos)
		return "<absent>";
	size_t start = at + key.size();
	return head.substr(start, head.find(kCrlf, start) - start);
}

bool EndsWith(const std::string &s, const std::string &suffix)
{
	return s.size() >= suffix.size() &&
	       s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The two connection forms and what their Connection header must say.
const struct {
	enum conn_form form;
	const char *connection;
} kForms[] = {
	{CONN_FORM_CLOSE, "close"},
	{CONN_FORM_KEEP_ALIVE, "keep-alive"},
};
static_assert(sizeof(kForms) / sizeof(kForms[0]) == CONN_FORM_COUNT, "every form listed");

// Checks what every response head must carry (BEHAVIOUR 6): HTTP/1.1 status line, CRLF line
// ends up to CRLFCRLF, Content-Type, the Connection value of its form, and a
// Content-Length equal to the body's length.
void ExpectWellFormed(const std::string &head, size_t body_len, const char *connection)
{
	EXPECT_EQ(head.rfind("HTTP/1.1 ", 0), 0u) << head;
	EXPECT_TRUE(EndsWith(head, "\r\n\r\n")) << head;
	EXPECT_EQ(head.find("\r\n\r\n"), head.size() - 4) << "one empty line, at the end";
	for (size_t lf = head.find('\n'); lf != std::string::npos; lf = head.find('\n', lf + 1))
		EXPECT_TRUE(lf > 0 && head[lf - 1] == '\r') << "bare LF at " << lf;
	EXPECT_NE(HeaderValue(head, "Content-Type"), "<absent>");
	EXPECT_EQ(HeaderValue(head, "Connection"), connection);
	EXPECT_EQ(HeaderValue(head, "Content-Length"), std::to_string(body_len));
}

TEST(StaticResponsesTest, EveryEntryIsWellFormed)
{
	const struct {
		const char *label;
		enum static_response_id id;
		const char *status_line;
		enum counter_id counter;
	} cases[] = {
		{"hello", RESP_HELLO, "HTTP/1.1 200 OK\r\n", C_responses_200},
		{"health", RESP_HEALTH, "HTTP/1.1 200 OK\r\n", C_responses_200},
		{"400", RESP_BAD_REQUEST, "HTTP/1.1 400 Bad Request\r\n", C_responses_400},
		{"404", RESP_NOT_FOUND, "HTTP/1.1 404 Not Found\r\n", C_responses_404},
		{"405", RESP_NOT_ALLOWED, "HTTP/1.1 405 Method Not Allowed\r\n", C_responses_405},
		{"408", RESP_TIMEOUT, "HTTP/1.1 408 Request Timeout\r\n", C_responses_408},
		{"414", RESP_URI_TOO_LONG, "HTTP/1.1 414 URI Too Long\r\n", C_responses_414},
		{"410", RESP_GONE, "HTTP/1.1 410 Gone\r\n", C_responses_410},
		{"OPTIONS *", RESP_OPTIONS_ANY, "HTTP/1.1 200 OK\r\n", C_responses_200},
		{"503 full", RESP_UNAVAILABLE, "HTTP/1.1 503 Service Unavailable\r\n",
		 C_connections_refused},
		{"503 draining", RESP_HEALTH_DRAINING, "HTTP/1.1 503 Service Unavailable\r\n",
		 C_responses_503},
		{"503 disk busy", RESP_DISK_BUSY, "HTTP/1.1 503 Service Unavailable\r\n",
		 C_responses_503},
		{"421", RESP_MISDIRECTED, "HTTP/1.1 421 Misdirected Request\r\n", C_responses_421},
	};
	ASSERT_EQ(sizeof(cases) / sizeof(cases[0]), (size_t)STATIC_RESPONSE_COUNT);
	for (const auto &f : kForms) {
		for (const auto &c : cases) {
			SCOPED_TRACE(std::string(c.label) + ", Connection: " + f.connection);
			const struct static_response &r = static_responses[f.form][c.id];
			ASSERT_NE(r.bytes, nullptr);
			ASSERT_LE(r.head_len, r.total_len);
			std::string head(r.bytes, r.head_len);
			EXPECT_EQ(head.rfind(c.status_line, 0), 0u);
			ExpectWellFormed(head, r.total_len - r.head_len, f.connection);
			EXPECT_EQ(strlen(r.bytes), r.total_len) << "the block ends where total_len says";
			EXPECT_EQ(r.counter, (uint32_t)c.counter);
		}
	}
}

TEST(StaticResponsesTest, BodiesAreTheSameInBothForms)
{
	auto body = [](enum conn_form form, enum static_response_id id) {
		const struct static_response &r = static_responses[form][id];
		return std::string(r.bytes + r.head_len, r.total_len - r.head_len);
	};
	EXPECT_EQ(body(CONN_FORM_CLOSE, RESP_HELLO), "apollo says hello");
	EXPECT_EQ(body(CONN_FORM_CLOSE, RESP_HEALTH), "ok");
	for (int id = 0; id < STATIC_RESPONSE_COUNT; id++)
		EXPECT_EQ(body(CONN_FORM_CLOSE, (enum static_response_id)id),
			  body(CONN_FORM_KEEP_ALIVE, (enum static_response_id)id));
}

// The 204 of an OPTIONS of a path (BEHAVIOUR 6.2): Allow, the fields, Connection; no
// Content-Type, no Content-Length, no body.
TEST(StaticResponsesTest, OptionsOfAPath)
{
	const std::string fields = "\r\nAccess-Control-Allow-Origin: *";
	for (const auto &f : kForms) {
		char out[OPTIONS_HEAD_MAX(64)];
		struct text_span span = {fields.data(), (uint32_t)fields.size()};
		size_t n = render_options(out, span, f.form);
		EXPECT_EQ(std::string(out, n),
			  "HTTP/1.1 204 No Content\r\nAllow: GET, HEAD, OPTIONS" + fields +
				  "\r\nConnection: " + f.connection + "\r\n\r\n");
		ASSERT_LE(n, sizeof(out));
	}
}

TEST(StaticResponsesTest, OnlyThe405AndOptionsCarryAllow)
{
	for (const auto &f : kForms) {
		for (int id = 0; id < STATIC_RESPONSE_COUNT; id++) {
			const struct static_response &r = static_responses[f.form][id];
			std::string head(r.bytes, r.head_len);
			SCOPED_TRACE(head.substr(0, head.find(kCrlf)));
			EXPECT_EQ(HeaderValue(head, "Allow"),
				  id == RESP_NOT_ALLOWED || id == RESP_OPTIONS_ANY ? "GET, HEAD, OPTIONS"
										  : "<absent>");
		}
	}
}

void ExpectMetricsResponseInForm(const std::string &expected_body, enum conn_form form,
				 const char *connection)
{
	GuardedBuffer out(CONN_SCRATCH_SIZE);
	struct rendered_response r = build_metrics(out.mutable_data(), form, METRICS_PLAIN);
	ASSERT_GE(r.bytes, out.data());
	ASSERT_LE(r.head_len, r.total_len);
	ASSERT_LE(r.bytes + r.total_len, out.data() + out.size());
	EXPECT_EQ(r.bytes + r.head_len, out.data() + METRICS_HEAD_RESERVE)
		<< "the body starts right after the reserve";
	std::string head(r.bytes, r.head_len);
	std::string body(r.bytes + r.head_len, r.total_len - r.head_len);
	EXPECT_EQ(head.rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
	ExpectWellFormed(head, body.size(), connection);
	EXPECT_EQ(body, expected_body);
}

// Renders /metrics in every connection form into a buffer of exactly CONN_SCRATCH_SIZE
// bytes that ends at a guard page and checks head, body and placement. expected_body is
// what the counters hold.
void ExpectMetricsResponse(const std::string &expected_body)
{
	for (const auto &f : kForms) {
		SCOPED_TRACE(f.connection);
		ExpectMetricsResponseInForm(expected_body, f.form, f.connection);
	}
}

// Sets every counter to value_of(index) and returns the /metrics body they must produce,
// written from BEHAVIOUR 7's list (appended counters follow it in enum order).
template <typename ValueOf>
std::string SetCountersAndExpectBody(ValueOf value_of)
{
	std::vector<std::string> names = counter_names();
	std::string body;
	// requests_total is rendered as the sum of the status counters (counters.h).
	const enum counter_id statuses[] = {C_responses_200, C_responses_400, C_responses_404,
					    C_responses_405, C_responses_301, C_responses_304,
					    C_responses_206, C_responses_416, C_responses_414,
					    C_responses_204, C_responses_302, C_responses_303,
					    C_responses_307, C_responses_308, C_responses_410, C_responses_503,
					    C_responses_421};
	uint64_t answered = 0;
	for (enum counter_id s : statuses)
		answered += value_of(s);
	for (int id = 0; id < COUNTER_COUNT; id++) {
		uint64_t v = id == C_requests_total ? answered : value_of(id);
		apollod_counters.value[id] = value_of(id);
		const std::string &name = (size_t)id < spec_counter_names.size()
						  ? spec_counter_names[id]
						  : names[id];
		body += name + " " + std::to_string(v) + "\n";
	}
	return body;
}

// The 301 of --root's /dir: Location is the path, '/', then the query, each byte outside
// pchar and '/' (and '?' in the query) percent-encoded; HEAD is its head.
TEST(RedirectTest, LocationKeepsTheQuery)
{
	const struct {
		const char *target;
		uint32_t path_len;
		const char *location;
	} cases[] = {
		{"/sub", 4, "/sub/"},
		{"/sub?x=1&y", 4, "/sub/?x=1&y"},
		{"/a%20b?", 6, "/a%20b/?"},
		{"/\\evil.com", 10, "/%5Cevil.com/"},
		{"/\\evil.com?\\x", 10, "/%5Cevil.com/?%5Cx"},
		{"/a\"<>^`{|}[]b", 13, "/a%22%3C%3E%5E%60%7B%7C%7D%5B%5Db/"},
		{"/a%zz%4", 7, "/a%25zz%254/"},
		{"/!$&'()*+,;=:@-._~/x", 20, "/!$&'()*+,;=:@-._~/x/"},
		{"/d?a=1?b=/#", 2, "/d/?a=1?b=/%23"},
	};
	for (const auto &f : kForms) {
		for (const auto &c : cases) {
			SCOPED_TRACE(c.target);
			std::string target = c.target;
			size_t location_len = redirect_location_len(target.data(), c.path_len,
								    (uint32_t)target.size());
			EXPECT_EQ(location_len, strlen(c.location));
			GuardedBuffer out(REDIRECT_MAX(location_len));
			uint32_t head_len = 0;
			size_t n = render_redirect(out.mutable_data(), target.data(), c.path_len,
						   (uint32_t)target.size(), f.form, &head_len);
			std::string want_head = std::string("HTTP/1.1 301 Moved Permanently\r\n"
							    "Content-Type: text/plain; charset=utf-8\r\n"
							    "Content-Length: 18\r\nLocation: ") +
						c.location + "\r\nConnection: " + f.connection +
						"\r\n\r\n";
			EXPECT_EQ(std::string(out.data(), n), want_head + "moved permanently\n");
			EXPECT_EQ(head_len, want_head.size());
		}
	}
}

// A file's 304 (rendered per request into the connection's scratch): status line, the
// validators as given, Vary only when asked, the form's Connection; the longest (a
// FILE_VALIDATORS_MAX validator block with Vary, keep-alive) is exactly FILE_HEAD_304_MAX.
TEST(NotModifiedTest, ValidatorsVaryAndConnection)
{
	const std::string date = "Sun, 06 Nov 1994 08:49:37 GMT";
	const std::string etags[] = {"\"a-1-2\"", "\"" + std::string(16, 'f') + "-" +
							 std::string(16, 'f') + "-" +
							 std::string(16, 'f') + "-gz12\""}; // a level-12 gzip made at load
	for (const auto &f : kForms) {
		for (const std::string &etag : etags) {
			for (int vary = 0; vary < 2; vary++) {
				SCOPED_TRACE(etag + (vary ? " vary" : ""));
				std::string validators = "\r\nLast-Modified: " + date +
							 "\r\nETag: " + etag;
				ASSERT_LE(validators.size(), FILE_VALIDATORS_MAX);
				struct text_span v = {validators.data(), (uint32_t)validators.size()};
				/* with vary, a --header-for line too (BEHAVIOUR 10.13) */
				std::string extra = vary ? "\r\nCache-Control: no-cache" : "";
				struct text_span e = {extra.data(), (uint32_t)extra.size()};
				GuardedBuffer out(FILE_HEAD_304_MAX + extra.size());
				size_t n = render_head_304(out.mutable_data(), v, vary, e, f.form);
				std::string want = "HTTP/1.1 304 Not Modified" + validators +
						   (vary ? "\r\nVary: Accept-Encoding" : "") + extra +
						   "\r\nConnection: " + f.connection + "\r\n\r\n";
				EXPECT_EQ(std::string(out.data(), n), want);
				if (&etag != &etags[1])
					continue;
				EXPECT_EQ(validators.size(), FILE_VALIDATORS_MAX) << "the longest";
				if (vary && f.form == CONN_FORM_KEEP_ALIVE) {
					EXPECT_EQ(n, FILE_HEAD_304_MAX + extra.size())
						<< "the bound is exact, the fields beyond it";
				}
			}
		}
	}
}

TEST(MetricsTest, BodyListsTheCountersInOrder)
{
	ExpectMetricsResponse(SetCountersAndExpectBody([](int id) { return (uint64_t)(id + 1) * 1001; }));
}

// BEHAVIOUR 10.12: an error page's head carries its own status line, Allow for the 405,
// and no validators; a 416 page's head adds Content-Range naming only the file's size.
TEST(ResponsesTest, ErrorPageHeads)
{
	char out[HEAD_200_MAX(24) + HEAD_PAGE_EXTRA_MAX + 32];
	struct text_span type = {LITERAL("text/html; charset=utf-8")};
	struct text_span fields = {LITERAL("\r\nX-Page: 1")};
	struct text_span none = {"", 0};
	size_t n = render_page_head(out, ERROR_PAGE_410, type, 7, fields, CONN_FORM_CLOSE);
	EXPECT_EQ(std::string(out, n), "HTTP/1.1 410 Gone\r\nContent-Type: text/html; charset=utf-8"
				       "\r\nContent-Length: 7\r\nX-Page: 1\r\nConnection: close\r\n\r\n");
	n = render_page_head(out, ERROR_PAGE_405, type, 7, none, CONN_FORM_KEEP_ALIVE);
	EXPECT_EQ(std::string(out, n),
		  "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/html; charset=utf-8"
		  "\r\nContent-Length: 7\r\nAllow: GET, HEAD, OPTIONS\r\nConnection: keep-alive\r\n\r\n");
	n = render_page_head(out, ERROR_PAGE_416, type, 7, fields, CONN_FORM_KEEP_ALIVE);
	struct text_span stored = {out, (uint32_t)(n - head_tail[CONN_FORM_KEEP_ALIVE].len)};
	char range[sizeof(out) + CONTENT_RANGE_MAX];
	n = render_page_416(range, stored, 12345, CONN_FORM_CLOSE);
	EXPECT_EQ(std::string(range, n),
		  "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Type: text/html; charset=utf-8"
		  "\r\nContent-Length: 7\r\nX-Page: 1\r\nContent-Range: bytes */12345\r\n"
		  "Connection: close\r\n\r\n");
}

TEST(MetricsTest, AllZero)
{
	ExpectMetricsResponse(SetCountersAndExpectBody([](int) { return (uint64_t)0; }));
}

TEST(MetricsTest, FitsItsBufferWithEveryCounterAtMax)
{
	ExpectMetricsResponse(SetCountersAndExpectBody([](int) { return UINT64_MAX; }));
}

// The Prometheus form with every counter at its largest still fits its buffer (which ends
// at a guard page), and every sample line of it carries the value it names.
TEST(MetricsTest, PrometheusFormFitsItsBufferWithEveryCounterAtMax)
{
	for (int id = 0; id < COUNTER_COUNT; id++)
		apollod_counters.value[id] = UINT64_MAX;
	apollod_counters.value[C_connections_closed] = 0; // open connections: UINT64_MAX too
	for (const auto &f : kForms) {
		SCOPED_TRACE(f.connection);
		GuardedBuffer out(CONN_SCRATCH_SIZE);
		struct rendered_response r =
			build_metrics(out.mutable_data(), f.form, METRICS_PROMETHEUS);
		ASSERT_LE(r.bytes + r.total_len, out.data() + out.size());
		std::string head(r.bytes, r.head_len);
		std::string body(r.bytes + r.head_len, r.total_len - r.head_len);
		ExpectWellFormed(head, body.size(), f.connection);
		EXPECT_NE(body.find("apollod_open_connections 18446744073709551615\n"),
			  std::string::npos) << body;
		EXPECT_NE(body.find("# TYPE apollod_responses_total counter\n"), std::string::npos);
		EXPECT_EQ(body.back(), '\n');
	}
}

// Which /metrics requests get the Prometheus form: one row per rule of BEHAVIOUR 7.
TEST(MetricsTest, FormWantedByQueryOrAccept)
{
	const struct {
		const char *label;
		const char *head;
		enum metrics_format want;
	} cases[] = {
		{"no Accept", "GET /metrics HTTP/1.1\r\n\r\n", METRICS_PLAIN},
		{"*/*", "GET /metrics HTTP/1.1\r\nAccept: */*\r\n\r\n", METRICS_PLAIN},
		{"text/plain without version", "GET /metrics HTTP/1.1\r\nAccept: text/plain\r\n\r\n",
		 METRICS_PLAIN},
		{"text/plain, other version",
		 "GET /metrics HTTP/1.1\r\nAccept: text/plain;version=1.0.0\r\n\r\n", METRICS_PLAIN},
		{"0.0.4", "GET /metrics HTTP/1.1\r\nAccept: text/plain;version=0.0.4\r\n\r\n",
		 METRICS_PROMETHEUS},
		{"0.0.4 with spaces, case and q",
		 "GET /metrics HTTP/1.1\r\naccept: Text/Plain ; q=0.5 ; Version=0.0.4\r\n\r\n",
		 METRICS_PROMETHEUS},
		{"openmetrics",
		 "GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;version=1.0.0\r\n\r\n",
		 METRICS_PROMETHEUS},
		{"Prometheus 2.42's own Accept",
		 "GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;version=1.0.0,"
		 "application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,"
		 "*/*;q=0.1\r\n\r\n",
		 METRICS_PROMETHEUS},
		{"second Accept line", "GET /metrics HTTP/1.1\r\nAccept: text/html\r\n"
		 "Accept: text/plain; version=0.0.4\r\n\r\n", METRICS_PROMETHEUS},
		{"a longer type", "GET /metrics HTTP/1.1\r\nAccept: text/plainx;version=0.0.4\r\n\r\n",
		 METRICS_PLAIN},
		{"query", "GET /metrics?format=prometheus HTTP/1.1\r\n\r\n", METRICS_PROMETHEUS},
		{"query, second parameter", "GET /metrics?a=1&format=prometheus HTTP/1.1\r\n\r\n",
		 METRICS_PROMETHEUS},
		{"query, other value", "GET /metrics?format=prometheusx HTTP/1.1\r\n\r\n", METRICS_PLAIN},
		{"query, other name", "GET /metrics?xformat=prometheus HTTP/1.1\r\n\r\n", METRICS_PLAIN},
		{"empty query", "GET /metrics? HTTP/1.1\r\n\r\n", METRICS_PLAIN},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		GuardedBuffer in{std::string(c.head)};
		struct http_request req;
		ASSERT_EQ(parse_request(in.data(), in.size(), &req), PARSE_COMPLETE);
		EXPECT_EQ(metrics_format_wanted(&req.line, &req.headers, in.data() + req.line.line_len),
			  c.want);
	}
}

TEST(RoutesTest, MatchIsExactOnThePath)
{
	const struct {
		const char *label;
		const char *path;
		enum route route;
	} cases[] = {
		{"root", "/", ROUTE_ROOT},
		{"health", "/health", ROUTE_HEALTH},
		{"metrics", "/metrics", ROUTE_METRICS},
		{"trailing slash is another route", "/health/", ROUTE_NONE},
		{"longer name", "/healthz", ROUTE_NONE},
		{"prefix of a route", "/healt", ROUTE_NONE},
		{"other case", "/Health", ROUTE_NONE},
		{"double slash", "//", ROUTE_NONE},
		{"empty path", "", ROUTE_NONE},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		GuardedBuffer path{std::string(c.path)};
		EXPECT_EQ(route_match(path.data(), path.size()), c.route);
	}
}

} // namespace
