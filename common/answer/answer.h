/* The answer: a pure function from one parsed request (or a parse failure) to what the
 * connection does about it: which response, keep the connection or close it, body bytes
 * to skip, linger before closing or not, and which counters the request moves. No
 * syscalls, no globals, no counting: the connection code acts on the decision
 * (conn.c), and test/unit/answer_test.cc checks one row for every outcome class of the
 * behaviour contract (docs/BEHAVIOUR.md sections 6, 7, 9 and 10). */
#ifndef APOLLOD_COMMON_ANSWER_H
#define APOLLOD_COMMON_ANSWER_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/counters.h"
#include "common/answer/disk_file.h"
#include "common/answer/file_answer.h"
#include "common/answer/site.h"
#include "common/answer/listing.h"
#include "common/answer/redirects.h"
#include "common/http/http_request.h"
#include "common/answer/responses.h"
#include "common/answer/routes.h"
#include "common/base/span.h"
#include "common/http/url_path.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* A GET or HEAD body is skipped on a persistent connection up to this size; a larger one
 * ends the connection after the response instead of being read for nothing. */
#define ANSWER_BODY_SKIP_MAX (1024u * 1024u)

/* The name a path ending in '/' serves (BEHAVIOUR 10.4: index pages). */
#define ANSWER_INDEX_NAME FILE_INDEX_NAME

/* Looks a path up in the file cache: site_find's contract. */
typedef const struct cached_file *(*file_lookup_fn)(const char *path, size_t len);

/* Matches a name against the --redirects rules: redirect_match's contract. */
typedef const struct redirect_rule *(*rule_match_fn)(const char *name, size_t len,
						     struct redirect_captures *c);

/* What the connection knows when it asks. */
struct answer_input {
	const struct http_request *request; /* the parsed head when outcome is COMPLETE */
	const char *fields;       /* its header block (request->headers.block_len bytes), where
				   * request->headers.field[] values lie */
	const char *input;        /* the request's first byte (buffered bytes from it on): read
				   * for the method of a BAD or TARGET_TOO_LONG head */
	file_lookup_fn find_file; /* NULL without --root: unrouted paths are 404 */
	const struct site_pages *pages; /* --error-page, --fallback; NULL: none */
	rule_match_fn match_rule; /* --redirects' rules (with find_file only); NULL: none */
	wall_second_fn now;       /* the wall clock, asked only to read a date (files only) */
	uint32_t buffered;        /* input bytes from the request's first byte on */
	uint8_t outcome;          /* enum parse_outcome: COMPLETE, BAD or TARGET_TOO_LONG */
	uint8_t buffer_full;      /* the input buffer is full: more may wait in the kernel */
	uint8_t peer_eof;         /* the peer has ended its side: nothing more will arrive */
	uint8_t queue_busy;       /* earlier responses are queued and not yet sent */
	uint8_t stopping;         /* the daemon is stopping, or draining after a reload: this is
				   * the last answer, and /health says 503 */
	uint8_t routes;           /* enum route_set: what the connection's listener answers */
	uint8_t misdirected;      /* no site serves the request's host (SITE_NONE: BEHAVIOUR
				   * 10.21): what a site would answer is a 421 */
};

enum answer_kind {
	ANSWER_STATIC = 0,  /* static_responses[form][response] */
	ANSWER_METRICS = 1, /* /metrics, rendered now */
	ANSWER_FILE = 2,    /* a cached file: its head, then (GET) its body (the --fallback
			     * file's too) */
	ANSWER_LATER = 3,   /* an ANSWER_USES_SCRATCH kind behind queued responses: send those first,
			     * then ask again (the one scratch buffer may still be queued);
			     * nothing consumed, nothing counted */
	ANSWER_REDIRECT = 4, /* 301 to the target's path with '/' appended, query kept:
			      * rendered now from target (render_redirect) */
	ANSWER_NOT_MODIFIED = 5, /* a cached file's 304 head, rendered now (file_head_304), no
				  * body */
	ANSWER_PARTIAL = 6,  /* 206: bytes first..last of file, its head rendered now */
	ANSWER_UNSATISFIABLE = 7, /* 416 for file, rendered now (render_416; with the 416
				   * page, render_page_416 and the page's body) */
	ANSWER_ERROR_PAGE = 8, /* an --error-page (page): file's stored head of its status,
				* then (GET) its body; never a 304 or 206 */
	ANSWER_DISK = 9,     /* file is served from disk (BEHAVIOUR 10.18): the connection
			      * opens and stats it, then answer_disk decides as answer_file
			      * does (or answer_disk_missing when it cannot be opened) */
	ANSWER_DISK_PAGE = 10, /* an --error-page whose file is on disk: the same */
	ANSWER_OPTIONS = 11, /* the 204 of an OPTIONS of target's path: rendered now with the
			      * path's --header-for fields (render_options) */
	ANSWER_RULE = 12,    /* a --redirects rule's 3xx (rule), its Location made from
			      * target's path matched again: rendered now (redirect_render) */
	ANSWER_LIVE_LISTING = 13, /* file is a listing made per request (FILE_LISTED_LIVE,
				   * BEHAVIOUR 10.14): the connection renders it as the
				   * directory is now, then answer_view decides as answer_file
				   * does (or answer_disk_refused when no buffer is free) */
};
/* The kinds rendered into the connection's one scratch buffer: behind queued responses
 * they are ANSWER_LATER. */
#define ANSWER_USES_SCRATCH(kind)                                                      \
	((kind) == ANSWER_METRICS || (kind) == ANSWER_REDIRECT || (kind) == ANSWER_PARTIAL || \
	 (kind) == ANSWER_UNSATISFIABLE || (kind) == ANSWER_NOT_MODIFIED ||                  \
	 (kind) == ANSWER_DISK || (kind) == ANSWER_DISK_PAGE || (kind) == ANSWER_OPTIONS ||  \
	 (kind) == ANSWER_RULE || (kind) == ANSWER_LIVE_LISTING)

#define ANSWER_NO_COUNTER 0xff /* a counter field that names no counter */
STATIC_ASSERT(COUNTER_COUNT < ANSWER_NO_COUNTER, "counter ids fit a byte");

/* The decision. */
struct answer {
	const struct cached_file *file; /* ANSWER_FILE, _NOT_MODIFIED, _PARTIAL, _UNSATISFIABLE */
	uint64_t first, last;     /* ANSWER_PARTIAL: the slice, inclusive */
	uint64_t identity_size;   /* a hit: the size of the file asked for (its identity), which
				   * file may be a coded representation of (BEHAVIOUR 7:
				   * compressed_bytes_saved); 0 otherwise */
	const struct redirect_rule *rule; /* ANSWER_RULE: the rule that matched */
	const char *target;       /* ANSWER_REDIRECT, _OPTIONS, _RULE: the request's target (its
				   * origin-form part), in its input */
	uint32_t target_len;      /* ANSWER_REDIRECT, _OPTIONS, _RULE: the whole target, query
				   * included */
	uint32_t path_len;        /* ANSWER_REDIRECT, _OPTIONS, _RULE: the target up to its '?' */
	uint64_t skip;            /* body bytes to discard before the next head (keep only) */
	uint32_t consumed;        /* input bytes this request used: its head, or all for 400 */
	uint8_t kind;             /* enum answer_kind */
	uint8_t response;         /* enum static_response_id, for ANSWER_STATIC */
	uint8_t form;             /* enum conn_form: the connection persists, or closes */
	uint8_t linger;           /* on close, input may still be unread: linger first */
	uint8_t head_only;        /* HEAD: the head of the GET response, no body */
	uint8_t method_counter;   /* C_requests_get, C_requests_head or ANSWER_NO_COUNTER */
	uint8_t cache_counter;    /* C_cache_hits, C_cache_misses or ANSWER_NO_COUNTER */
	uint8_t status_counter;   /* C_responses_NNN of the response */
	uint8_t page;             /* enum error_page_id: ANSWER_ERROR_PAGE, _DISK_PAGE, and an
				   * _UNSATISFIABLE with the 416 page; else ERROR_PAGE_NONE */
};

/* The function is defined here, inline: it runs once per request and the connection reads
 * its decision field by field, so inlined the struct lives in registers; called out of line
 * it cost about 120 more user-space instructions per request (callgrind: //bench:counts,
 * bench/counts.py). */

/* The kind of answer each file_status gets. */
static const uint8_t file_status_kind[] = {
	[FILE_STATUS_200] = ANSWER_FILE,
	[FILE_STATUS_304] = ANSWER_NOT_MODIFIED,
	[FILE_STATUS_206] = ANSWER_PARTIAL,
	[FILE_STATUS_416] = ANSWER_UNSATISFIABLE,
};

/* Sets a to serve the cached file f (a hit): the representation Accept-Encoding picks
 * (f or a precompressed variant), as 200, 304, 206 or 416 by the request's validators
 * and Range (file_status_of); a 304, 206 or 416 behind queued responses waits
 * (ANSWER_LATER). Reads the fields the parser recorded: the block is not walked again. */
static inline void answer_file(const struct answer_input *in, struct answer *a,
			       const struct cached_file *f)
{
	const struct header_block *h = &in->request->headers;
	a->identity_size = f->size;
	if (file_has_variants(f)) /* the representation Accept-Encoding picks */
		f = file_representation(h, in->fields, f);
	a->file = f;
	a->cache_counter = C_cache_hits;
	if (f->place != FILE_IN_MEMORY) /* decided once open or made: answer_view */
		a->kind = f->place == FILE_ON_DISK ? ANSWER_DISK : ANSWER_LIVE_LISTING;
	else
		a->kind = file_status_kind[file_status_of(h, in->fields, a->head_only, f, in->now,
							  &a->first, &a->last)];
	if (a->kind == ANSWER_UNSATISFIABLE && in->pages && in->pages->error[ERROR_PAGE_416] &&
	    in->pages->error[ERROR_PAGE_416]->place == FILE_IN_MEMORY)
		a->page = ERROR_PAGE_416; /* its body under the 416 (a page on disk: none) */
	if (ANSWER_USES_SCRATCH(a->kind) && in->queue_busy)
		a->kind = ANSWER_LATER;
}

/* 1 when the --fallback may answer a miss of name[0..len) (BEHAVIOUR 10.12): its last
 * segment has no extension (an app's route, or a directory's index: a name ending in
 * ANSWER_INDEX_NAME is asked as "dir/"), or the request's Accept prefers text/html (a
 * browser's navigation). So a missing /favicon.ico or /app.js stays a 404. */
static inline int answer_fallback_applies(const struct answer_input *in, const char *name,
					  size_t len, int index)
{
	size_t at;
	return index || !name_extension(name, len, &at) ||
	       accept_prefers_html(&in->request->headers, in->fields);
}

/* A GET or HEAD whose path found no file nor directory to redirect (BEHAVIOUR 10.12):
 * the --fallback file when fallback_ok, answered as a request for it would be (a hit);
 * else leaves a as it is (404, which answer_error_page may give its page, or hello for
 * "/"). */
static inline void answer_no_file(const struct answer_input *in, struct answer *a,
				  int fallback_ok)
{
	if (in->pages && in->pages->fallback && fallback_ok)
		answer_file(in, a, in->pages->fallback);
}

/* The error page (enum error_page_id) that may replace static response `response`, or
 * ERROR_PAGE_NONE (a 200, or a response that has no page). */
static inline unsigned answer_page_of(uint8_t response)
{
	STATIC_ASSERT(ERROR_PAGE_NONE == ERROR_PAGE_COUNT, "no page is the count");
	switch (response) {
	case RESP_BAD_REQUEST:
		return ERROR_PAGE_400;
	case RESP_NOT_FOUND:
		return ERROR_PAGE_404;
	case RESP_NOT_ALLOWED:
		return ERROR_PAGE_405;
	case RESP_TIMEOUT:
		return ERROR_PAGE_408;
	case RESP_URI_TOO_LONG:
		return ERROR_PAGE_414;
	case RESP_GONE:
		return ERROR_PAGE_410;
	default:
		return ERROR_PAGE_NONE;
	}
}

/* A decided static answer whose status has an --error-page (BEHAVIOUR 10.12): that page
 * under its stored head instead (ANSWER_ERROR_PAGE; on disk ANSWER_DISK_PAGE, behind
 * queued responses ANSWER_LATER), the response, its counters and the connection's fate
 * unchanged. Anything else is left as it is. */
static inline void answer_error_page(const struct answer_input *in, struct answer *a)
{
	unsigned id = ERROR_PAGE_COUNT;
	if (a->kind == ANSWER_STATIC)
		id = answer_page_of(a->response);
	const struct cached_file *page = in->pages && id < ERROR_PAGE_COUNT ? in->pages->error[id]
									 : 0;
	if (!page)
		return;
	a->page = (uint8_t)id;
	a->file = page;
	a->kind = page->place == FILE_ON_DISK ? ANSWER_DISK_PAGE : ANSWER_ERROR_PAGE;
	if (ANSWER_USES_SCRATCH(a->kind) && in->queue_busy)
		a->kind = ANSWER_LATER;
}

/* Room for a lookup name: the longest decoded path (never longer than the target) and
 * ANSWER_INDEX_NAME after it. */
#define ANSWER_NAME_MAX (HTTP_TARGET_MAX + sizeof(ANSWER_INDEX_NAME))

/* The name path[0..path_len) (a request's path, starting with '/') names in the file
 * cache (BEHAVIOUR 10.4): percent-decoded
 * (url_path.h), dot segments removed (RFC 3986 5.2.4), the leading '/' dropped, and
 * ANSWER_INDEX_NAME appended when the result ends in '/' (*index set). Writes the name
 * at out (ANSWER_NAME_MAX bytes) and its length at *len. Returns URL_PATH_OK, or
 * URL_PATH_BAD for a bad escape or a path that climbs above the root (400). */
static inline enum url_path_outcome answer_lookup_name(const char *path, uint32_t path_len,
						       char *out, size_t *len, int *index)
{
	size_t n = 0;
	enum url_path_outcome d = url_path_decode(path, path_len, out, HTTP_TARGET_MAX, &n);
	if (d != URL_PATH_OK)
		return URL_PATH_BAD; /* never TOO_LONG: decoding does not lengthen */
	n = url_path_remove_dots(out, n);
	if (n == URL_PATH_ABOVE_ROOT)
		return URL_PATH_BAD;
	*index = out[n - 1] == '/';
	__builtin_memmove(out, out + 1, --n); /* "/a/b" is cached as "a/b" */
	if (*index)
		n = (size_t)(copy_span(out + n, LITERAL(ANSWER_INDEX_NAME)) - out);
	*len = n;
	return URL_PATH_OK;
}

/* The --redirects rule that name[0..len) (answer_lookup_name's, without the index name)
 * matches, if any (BEHAVIOUR 10.20): sets a to its answer and returns 1: a 200 serves its
 * file (a hit), a 410 the 410 (a miss), a 3xx ANSWER_RULE (a miss; behind queued
 * responses ANSWER_LATER; a 414 when its Location would be longer than a 301's may be).
 * Returns 0 when no rule matches (a untouched). */
static inline int answer_rule(const struct answer_input *in, const struct request_line *line,
			      struct answer *a, const char *name, size_t len)
{
	struct redirect_captures c;
	const struct redirect_rule *r = in->match_rule ? in->match_rule(name, len, &c) : 0;
	if (!r)
		return 0;
	if (r->code == REDIRECT_REWRITE) {
		answer_file(in, a, r->file);
		return 1;
	}
	a->cache_counter = C_cache_misses;
	if (r->code == REDIRECT_GONE) {
		a->response = RESP_GONE;
	} else if (redirect_location_of(r, &c, line->target + line->path_len,
					line->target_len - line->path_len) > REDIRECT_LOCATION_MAX) {
		a->response = RESP_URI_TOO_LONG;
	} else {
		a->kind = in->queue_busy ? ANSWER_LATER : ANSWER_RULE;
		a->rule = r;
		a->target = line->target;
		a->target_len = line->target_len;
		a->path_len = line->path_len;
	}
	return 1;
}

/* The listing of the directory whose page name "dir/" (or "" for the root) is
 * name[0..len) (ANSWER_NAME_MAX bytes of room), in the order line's query asks for
 * (listing_order_of_query; BEHAVIOUR 10.14): that order's page, named with
 * LISTING_ORDER_MARK and its digit after it; NULL when the directory has no listing. */
static inline const struct cached_file *answer_listing(const struct request_line *line,
							char *name, size_t len,
							const struct answer_input *in)
{
	const struct cached_file *f = in->find_file(name, len);
	uint32_t q = line->path_len + 1; /* past the '?' */
	unsigned k = q < line->target_len
			     ? listing_order_of_query(line->target + q, line->target_len - q)
			     : LISTING_ORDER_DEFAULT;
	if (!f || k == LISTING_ORDER_DEFAULT)
		return f;
	name[len] = LISTING_ORDER_MARK;
	name[len + 1] = (char)('0' + k);
	return in->find_file(name, len + 2);
}

/* Looks line's path up in the file cache (in->find_file is set) by the name
 * answer_lookup_name makes. Sets a to serve the file, to a 301 for a directory named
 * without its '/', or to a 400 for a bad escape or a climb above the root; otherwise
 * answers as answer_no_file says. Counts a hit for a file (or the fallback), a miss for
 * anything else when miss is set. */
static inline void answer_cached(const struct answer_input *in, const struct request_line *line,
				 struct answer *a, int miss)
{
	char name[ANSWER_NAME_MAX];
	size_t len = 0;
	int index = 0;
	enum url_path_outcome d = answer_lookup_name(line->target, line->path_len, name, &len,
						     &index);
	if (d == URL_PATH_OK &&
	    answer_rule(in, line, a, name, len - (index ? sizeof(ANSWER_INDEX_NAME) - 1 : 0)))
		return;
	const struct cached_file *f = d == URL_PATH_OK ? in->find_file(name, len) : 0;
	if (d == URL_PATH_BAD)
		a->response = RESP_BAD_REQUEST;
	if (f && f->kind == CACHED_FILE) {
		answer_file(in, a, f);
		return;
	}
	if (!f && index && d == URL_PATH_OK) { /* no index page: the listing, if any (10.14) */
		f = answer_listing(line, name, len - (sizeof(ANSWER_INDEX_NAME) - 1), in);
		if (f) { /* only a listing is named "dir/" or "": a file */
			answer_file(in, a, f);
			return;
		}
	}
	a->cache_counter = miss ? C_cache_misses : ANSWER_NO_COUNTER;
	if (f && !index && redirect_location_len(line->target, line->path_len,
						 line->target_len) > REDIRECT_LOCATION_MAX) {
		a->response = RESP_URI_TOO_LONG; /* the 301's target could not be asked for */
	} else if (f && !index) { /* a directory: its index is one '/' away */
		a->kind = in->queue_busy ? ANSWER_LATER : ANSWER_REDIRECT;
		a->target = line->target;
		a->target_len = line->target_len;
		a->path_len = line->path_len;
	} else if (d != URL_PATH_BAD) {
		answer_no_file(in, a, answer_fallback_applies(in, name, len, index));
	}
}

/* The route line's path takes on in->routes' listener (BEHAVIOUR 6.5): with
 * --admin-listen, /health and /metrics are the admin listener's, and only they. */
static inline enum route answer_route_of(const struct answer_input *in,
					 const struct request_line *line)
{
	enum route r = route_match(line->target, line->path_len);
	int built_in = r == ROUTE_HEALTH || r == ROUTE_METRICS;
	if (in->routes == ROUTES_SITE && built_in)
		return ROUTE_NONE; /* the site's own health or metrics file, if any */
	if (in->routes == ROUTES_ADMIN && !built_in)
		return ROUTE_ADMIN_MISS;
	return r;
}

/* Picks the response for a GET or HEAD of line's path: /health and /metrics first, then
 * (a 421 when no site serves the host) a cached file (or directory), then "/" says hello;
 * else 404. */
static inline void answer_route(const struct answer_input *in, const struct request_line *line,
			  struct answer *a)
{
	a->head_only = line->method == HTTP_METHOD_HEAD;
	a->method_counter = a->head_only ? C_requests_head : C_requests_get;
	enum route route = answer_route_of(in, line);
	if (in->misdirected && (route == ROUTE_ROOT || route == ROUTE_NONE)) {
		a->response = RESP_MISDIRECTED; /* a site's path, and no site for the host */
		return;
	}
	switch (route) {
	case ROUTE_ROOT: /* DIR's index.html when there is one */
		a->response = RESP_HELLO;
		if (in->find_file)
			answer_cached(in, line, a, 0);
		return;
	case ROUTE_HEALTH: /* a process going away says so: BEHAVIOUR 11 */
		a->response = in->stopping ? RESP_HEALTH_DRAINING : RESP_HEALTH;
		return;
	case ROUTE_METRICS:
		a->kind = in->queue_busy ? ANSWER_LATER : ANSWER_METRICS;
		return;
	case ROUTE_ADMIN_MISS:
		a->response = RESP_NOT_FOUND;
		return;
	case ROUTE_NONE:
		break;
	}
	a->response = RESP_NOT_FOUND;
	if (in->find_file)
		answer_cached(in, line, a, 1);
}

/* An OPTIONS (BEHAVIOUR 6.2): "*" gets the static 200 with Allow; a path the 204 with
 * Allow and its --header-for fields, rendered by the connection (ANSWER_OPTIONS; behind
 * queued responses ANSWER_LATER); with --root, a path whose name GET would refuse (a bad
 * escape, a climb above DIR) the 400 it would get. Counts no method. */
static inline void answer_options(const struct answer_input *in, const struct request_line *line,
				  struct answer *a)
{
	char name[ANSWER_NAME_MAX];
	size_t len;
	int index;
	if (in->request->target_form == TARGET_ASTERISK) {
		a->response = RESP_OPTIONS_ANY;
	} else if (in->misdirected) {
		a->response = RESP_MISDIRECTED;
	} else if (in->find_file && answer_lookup_name(line->target, line->path_len, name, &len,
						       &index) != URL_PATH_OK) {
		a->response = RESP_BAD_REQUEST;
	} else {
		a->kind = in->queue_busy ? ANSWER_LATER : ANSWER_OPTIONS;
		a->target = line->target;
		a->target_len = line->target_len;
		a->path_len = line->path_len;
	}
}

/* Fills a for a complete head and returns 1 when the connection may persist after it
 * (BEHAVIOUR 9: HTTP/1.1 unless "close", HTTP/1.0 only with "keep-alive"; a 405 or an
 * OPTIONS with a body, a body beyond the skip limit, or a stopping daemon closes). *body is the
 * announced body length. */
static inline int answer_complete(const struct answer_input *in, struct answer *a, uint64_t *body)
{
	const struct request_line *line = &in->request->line;
	const struct header_block *h = &in->request->headers;
	int keep = line->version_minor ? h->connection != HTTP_CONNECTION_CLOSE
				       : h->connection == HTTP_CONNECTION_KEEP_ALIVE;
	*body = h->has_content_length ? h->content_length : 0;
	a->consumed = in->request->head_len;
	if (line->method == HTTP_METHOD_OTHER || line->method == HTTP_METHOD_OPTIONS) {
		if (line->method == HTTP_METHOD_OPTIONS)
			answer_options(in, line, a);
		else
			a->response = RESP_NOT_ALLOWED;
		return keep && *body == 0 && !in->stopping;
	}
	answer_route(in, line, a);
	return keep && *body <= ANSWER_BODY_SKIP_MAX && !in->stopping;
}

/* The status counter of a decided answer (every kind but ANSWER_LATER). */
static inline uint8_t answer_status_counter(const struct answer *a)
{
	switch (a->kind) {
	case ANSWER_STATIC:
		return (uint8_t)static_responses[a->form][a->response].counter;
	case ANSWER_REDIRECT:
		return C_responses_301;
	case ANSWER_NOT_MODIFIED:
		return C_responses_304;
	case ANSWER_PARTIAL:
		return C_responses_206;
	case ANSWER_UNSATISFIABLE:
		return C_responses_416;
	case ANSWER_ERROR_PAGE: /* the page keeps the static response's status */
	case ANSWER_DISK_PAGE:
		return (uint8_t)static_responses[a->form][a->response].counter;
	case ANSWER_OPTIONS:
		return C_responses_204;
	case ANSWER_RULE:
		return redirect_counter(a->rule);
	default: /* a file or /metrics */
		return C_responses_200;
	}
}

/* Sets a to serve view, a file as it is now (a disk-served file's open, a live
 * listing just made): 200, 304, 206 or 416 by the request's validators and Range
 * (file_status_of), as answer_file decides for a loaded one, and its status counter. */
static inline void answer_view(const struct answer_input *in, struct answer *a,
			       const struct cached_file *view)
{
	a->file = view;
	a->kind = file_status_kind[file_status_of(&in->request->headers, in->fields, a->head_only,
						  view, in->now, &a->first, &a->last)];
	a->status_counter = answer_status_counter(a);
}

/* The connection opened a->file (ANSWER_DISK or ANSWER_DISK_PAGE) beneath DIR and st is
 * the fstat of that open: renders the view of the file as it is now at out (DISK_VIEW_MAX
 * bytes of the scratch, disk_file_view) into *view and points a->file at it, then
 * decides as for a loaded file: the page's 404 (ANSWER_ERROR_PAGE), or 200, 304, 206 or
 * 416 by the request's validators and Range against the view (file_status_of). Sets the
 * status counter. Pure but for in->now(). */
static inline void answer_disk(const struct answer_input *in, struct answer *a,
			       const struct disk_stat *st, char *out, struct cached_file *view)
{
	int page = a->kind == ANSWER_DISK_PAGE;
	unsigned id = page ? a->page : (unsigned)ERROR_PAGE_NONE;
	disk_file_view(a->file, st, in->now(), id, out, view);
	if (page) {
		a->file = view;
		a->kind = ANSWER_ERROR_PAGE;
		a->status_counter = answer_status_counter(a);
	} else {
		answer_view(in, a, view);
	}
}

/* The file of an ANSWER_DISK or ANSWER_DISK_PAGE could not be opened as a regular file
 * beneath DIR without following a symbolic link (gone, replaced by a link or a
 * directory, unreadable). A file: the request gets the 404 a path that finds no file
 * gets, the 404 page when that page is in memory (never the --fallback: BEHAVIOUR
 * 10.18), and counts a miss. A page: the static response it stood for. */
static inline void answer_disk_missing(const struct answer_input *in, struct answer *a)
{
	const struct cached_file *page = in->pages ? in->pages->error[ERROR_PAGE_404] : 0;
	int was_page = a->kind == ANSWER_DISK_PAGE;
	a->kind = ANSWER_STATIC;
	a->file = 0;
	a->page = ERROR_PAGE_NONE;
	if (!was_page) {
		a->response = RESP_NOT_FOUND;
		a->cache_counter = C_cache_misses;
		if (page && page->place == FILE_IN_MEMORY) {
			a->kind = ANSWER_ERROR_PAGE;
			a->file = page;
			a->page = ERROR_PAGE_404;
		}
	}
	a->status_counter = answer_status_counter(a);
}

/* The open of a's file (ANSWER_DISK or ANSWER_DISK_PAGE) failed with EMFILE or ENFILE:
 * every descriptor the process (or the system) may hold is in use, and one may be free
 * in a moment. The request gets the static 503 with Retry-After (BEHAVIOUR 10.18; never a
 * page: a page's stored head carries no Retry-After), a status counter of its own kind
 * (responses_503), the connection kept or closed as the request's form says. */
static inline void answer_disk_refused(struct answer *a)
{
	a->kind = ANSWER_STATIC;
	a->file = 0;
	a->page = ERROR_PAGE_NONE;
	a->response = RESP_DISK_BUSY;
	a->status_counter = answer_status_counter(a);
}

/* The method that begins a head the parser refused (400) or cut (414): HEAD when the
 * input starts "HEAD ", so that answer too carries no body (RFC 9110 9.3.2, BEHAVIOUR
 * 6.7). */
#define ANSWER_HEAD_METHOD "HEAD "
static inline int answer_bad_head_is_head(const struct answer_input *in)
{
	return in->input && in->buffered >= sizeof(ANSWER_HEAD_METHOD) - 1 &&
	       span_eq(in->input, LITERAL(ANSWER_HEAD_METHOD));
}

/* Decides the answer to the request at the front of the connection's input and writes
 * it to *a (every field; file only for ANSWER_FILE). `in` must describe a COMPLETE head
 * (in->request filled), BAD input (400) or a TARGET_TOO_LONG one (414: BEHAVIOUR 6.8). Pure: reads only *in, the request it points to and
 * what find_file returns; writes only *a. */
static inline void answer_request(const struct answer_input *in, struct answer *a)
{
	a->file = 0;
	a->rule = 0;
	a->first = a->last = 0;
	a->identity_size = 0;
	a->target = 0;
	a->target_len = a->path_len = 0;
	a->skip = 0;
	a->consumed = in->buffered; /* a malformed head's 400 (or a 414) ends the input */
	a->kind = ANSWER_STATIC;
	a->response = RESP_BAD_REQUEST;
	a->linger = 0;
	a->head_only = 0;
	a->method_counter = ANSWER_NO_COUNTER;
	a->cache_counter = ANSWER_NO_COUNTER;
	a->page = ERROR_PAGE_NONE;
	uint64_t body = 0;
	int keep = 0;
	if (in->outcome == PARSE_COMPLETE) {
		keep = answer_complete(in, a, &body);
	} else {
		if (in->outcome == PARSE_TARGET_TOO_LONG)
			a->response = RESP_URI_TOO_LONG; /* ends the input and the connection as a 400 */
		a->head_only = (uint8_t)answer_bad_head_is_head(in);
	}
	answer_error_page(in, a);
	if (a->kind == ANSWER_LATER) { /* nothing consumed, nothing counted */
		a->consumed = 0;
		a->method_counter = ANSWER_NO_COUNTER;
		a->cache_counter = ANSWER_NO_COUNTER;
		a->status_counter = ANSWER_NO_COUNTER;
		return;
	}
	uint32_t left = in->buffered - a->consumed; /* input after this request's head */
	if (keep) {
		a->form = CONN_FORM_KEEP_ALIVE;
		a->skip = body; /* discarded before the next head is parsed */
	} else {
		a->form = CONN_FORM_CLOSE;
		/* Bytes may still be on their way: linger rather than reset them (RFC 9112 9.6). */
		a->linger = !in->peer_eof && (in->outcome != PARSE_COMPLETE || in->buffer_full ||
					      body > left || left > 0);
	}
	a->status_counter = answer_status_counter(a);
}


APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_ANSWER_H */
