/* One access-log line (BEHAVIOUR 14), in two steps, both pure: when a response is queued,
 * what the request says is copied, escaped for the format, into a held record
 * (access_log_record_make), since the request's bytes are gone by the time the response
 * has been sent; when its last byte has left (or the connection ended first), the record
 * and the time give the line (access_log_line_render). */
#ifndef APOLLOD_COMMON_ACCESS_LOG_LINE_H
#define APOLLOD_COMMON_ACCESS_LOG_LINE_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/span.h"
#include "common/base/static_assert.h"
#include "common/http/http_parse.h"
#include "common/serve/wallclock.h"

APOLLOD_EXTERN_C_BEGIN

/* --access-log-format (BEHAVIOUR 14): common is the default. */
enum access_log_format {
	ACCESS_LOG_COMMON = 0,   /* host - - [date] "request" status bytes µs coding */
	ACCESS_LOG_COMBINED = 1, /* ... status bytes "referer" "user-agent" µs coding */
	ACCESS_LOG_JSON = 2,     /* one JSON object a line, the same fields named */
};
/* With --site every form ends with the request's host (common and combined: " HOST",
 * "-" when it had none; json: a last "host" key, null when none) (BEHAVIOUR 14). */

#define ACCESS_LOG_HOST_MAX 39 /* an IPv6 address as eight groups of four hex digits */
/* A line keeps at most ACCESS_LOG_TARGET_MAX bytes of the target: a longer one (up to
 * HTTP_TARGET_MAX, 8,000) is logged as its first ACCESS_LOG_TARGET_MAX bytes and then
 * ACCESS_LOG_CUT_MARK, so that the longest line still fits one atomic pipe write
 * (BEHAVIOUR 14). A logged target of exactly 1,027 bytes ending in "..." was cut. */
#define ACCESS_LOG_TARGET_MAX 1024
#define ACCESS_LOG_CUT_MARK "..."
#define ACCESS_LOG_CUT_LEN (sizeof(ACCESS_LOG_CUT_MARK) - 1)
#define ACCESS_LOG_VERSION_LEN (sizeof(" HTTP/1.1") - 1) /* what ends a request line */
/* The content coding ("gzip", "br"; none: "-" or null), at most this long (conn.c checks
 * the file cache's codings fit). */
#define ACCESS_LOG_CODING_MAX 4
STATIC_ASSERT(ACCESS_LOG_TARGET_MAX <= HTTP_TARGET_MAX, "the cut keeps a prefix");
/* The request line as logged, each byte at worst escaped to two (\" or \\: its bytes are
 * 0x20-0x7e, so the common and the JSON escapes agree); the mark is never escaped. */
#define ACCESS_LOG_REQUEST_MAX                                                       \
	(2 * (HTTP_METHOD_MAX + 1 + ACCESS_LOG_TARGET_MAX + ACCESS_LOG_VERSION_LEN) + \
	 ACCESS_LOG_CUT_LEN)
/* Referer and User-Agent (combined, json): each kept to this many bytes of its escaped
 * form, cut before an escape that would pass it and then marked with
 * ACCESS_LOG_CUT_MARK. */
#define ACCESS_LOG_VALUE_MAX 512
#define ACCESS_LOG_ABSENT 0xffffu /* a value's length when the request had no such field */
STATIC_ASSERT(ACCESS_LOG_VALUE_MAX + ACCESS_LOG_CUT_LEN < ACCESS_LOG_ABSENT, "lengths fit");
/* The JSON form's fixed text, the longest of the three forms' (checked below). */
#define ACCESS_LOG_JSON_SKELETON                                                        \
	"{\"remote_addr\":\"\",\"time_local\":\"\",\"request\":\"\",\"status\":,"       \
	"\"body_bytes_sent\":,\"http_referer\":\"\",\"http_user_agent\":\"\","          \
	"\"service_us\":,\"content_encoding\":\"\"}\n"
#define ACCESS_LOG_COMBINED_SKELETON " - - [] \"\"   \"\" \"\"  \n"
STATIC_ASSERT(sizeof(ACCESS_LOG_COMBINED_SKELETON) < sizeof(ACCESS_LOG_JSON_SKELETON),
	      "the JSON form has the most fixed text");
/* The request's host (--site), escaped as a value of its format (a valid Host needs no
 * escape: http_host.h) and kept to this many bytes; the JSON form's key for it, longer
 * than the common forms' " " and "-". */
#define ACCESS_LOG_VHOST_MAX 255
#define ACCESS_LOG_JSON_VHOST_KEY ",\"host\":\"\""
STATIC_ASSERT(sizeof(ACCESS_LOG_JSON_VHOST_KEY) - 1 >= sizeof(" -") - 1, "the key is longest");
#define ACCESS_LOG_LINE_MAX                                                            \
	(sizeof(ACCESS_LOG_JSON_SKELETON) - 1 + ACCESS_LOG_HOST_MAX + WALLCLOCK_CLF_LEN + \
	 ACCESS_LOG_REQUEST_MAX + 3 + 2 * U64_DEC_MAX +                                  \
	 2 * (ACCESS_LOG_VALUE_MAX + ACCESS_LOG_CUT_LEN) + ACCESS_LOG_CODING_MAX +        \
	 sizeof(ACCESS_LOG_JSON_VHOST_KEY) - 1 + ACCESS_LOG_VHOST_MAX)

/* What a line says of one answered request, as the connection code knows it when the
 * response is queued. */
struct access_log_request {
	struct text_span line;   /* the request line without CRLF, as parse_request_line
				  * accepted it (len 0: none could be parsed, a 400 or 414) */
	struct text_span fields; /* the header block after it, as parse_headers accepted it
				  * (len 0: none) */
	struct text_span coding; /* the Content-Encoding (len 0: none) */
	struct text_span vhost;  /* with vhost_on: the request's host (len 0: none) */
	uint8_t vhost_on;        /* --site given: the line names the host */
	uint64_t body_bytes;     /* the body's length (0 for HEAD, a 304, ...) */
	uint8_t status_counter;  /* the response's C_responses_NNN */
};

/* A held line: this header, then request_len, referer_len, agent_len and vhost_len bytes
 * of escaped text (a length of ACCESS_LOG_ABSENT: no such field, no bytes), then padding
 * to a multiple of 8. */
struct access_log_record {
	uint64_t arrived_us;    /* the service's start: the read that completed the head */
	uint64_t total;         /* the response's bytes, head and body */
	uint64_t left;          /* of those, not sent yet */
	uint64_t body_bytes;    /* the body's bytes, the last of total */
	uint16_t size;          /* the record's bytes, text and padding included */
	uint16_t request_len;   /* escaped request line (0: none parsed) */
	uint16_t referer_len;   /* escaped Referer value, or ACCESS_LOG_ABSENT */
	uint16_t agent_len;     /* escaped User-Agent value, or ACCESS_LOG_ABSENT */
	uint8_t status_counter; /* C_responses_NNN */
	uint8_t coding_len;     /* bytes of coding (0: none) */
	char coding[ACCESS_LOG_CODING_MAX];
	uint16_t vhost_len;     /* escaped host (0: none), or ACCESS_LOG_ABSENT without --site */
};
#define ACCESS_LOG_RECORD_SIZE 48
#define ACCESS_LOG_ALIGN 8
STATIC_ASSERT(sizeof(struct access_log_record) == ACCESS_LOG_RECORD_SIZE, "no hidden padding");
STATIC_ASSERT(ACCESS_LOG_RECORD_SIZE % ACCESS_LOG_ALIGN == 0, "records stay aligned");
#define ACCESS_LOG_RECORD_MAX                                                           \
	((ACCESS_LOG_RECORD_SIZE + ACCESS_LOG_REQUEST_MAX +                             \
	  2 * (ACCESS_LOG_VALUE_MAX + ACCESS_LOG_CUT_LEN) + ACCESS_LOG_VHOST_MAX +        \
	  ACCESS_LOG_ALIGN - 1) &                                                         \
	 ~(size_t)(ACCESS_LOG_ALIGN - 1))

/* Writes at out (8-byte aligned, ACCESS_LOG_RECORD_MAX bytes) the record of req, whose
 * response is response_bytes long and whose head arrived at arrived_us: the request line
 * escaped and cut (common and JSON escape it alike), and for combined and json the first
 * Referer and User-Agent lines' values (OWS trimmed) escaped for that format (combined:
 * \xHH for a byte outside 0x20-0x7e and for " and \; json: \" and \\, and \u00XX for a
 * byte below 0x20 or from 0x7f) and cut to ACCESS_LOG_VALUE_MAX, and with vhost_on the
 * host, escaped alike and kept to ACCESS_LOG_VHOST_MAX bytes. Returns the record's
 * size (a multiple of 8, at most ACCESS_LOG_RECORD_MAX). */
size_t access_log_record_make(char *out, const struct access_log_request *req,
			      uint64_t arrived_us, uint64_t response_bytes,
			      enum access_log_format format);

/* Where a line is finished: the peer's address, the date (WALLCLOCK_CLF_LEN bytes,
 * brackets included) and the clock (clock_now_us) now. */
struct access_log_moment {
	const char *host;
	uint32_t host_len; /* at most ACCESS_LOG_HOST_MAX */
	const char *date;
	uint64_t now_us;
};

/* Renders the line of record r at out (ACCESS_LOG_LINE_MAX bytes), LF-terminated, in the
 * format r was made for: the service time is now less r's arrival, and the bytes field
 * the body bytes that left (all of them once r->left is 0; when the connection ended
 * first, what was sent beyond the head). Returns its length. */
size_t access_log_line_render(char *out, const struct access_log_record *r,
			      const struct access_log_moment *m, enum access_log_format format);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_ACCESS_LOG_LINE_H */
