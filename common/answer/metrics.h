/* /metrics: the counters as text, rendered with its head into one buffer so head and body
 * leave in a single write. Two forms (BEHAVIOUR 7): the original one, "name value" per
 * counter, for a plain request; and the Prometheus text exposition format 0.0.4 (apollod_
 * names, _total counters, labels, HELP and TYPE lines) for a scrape that asks for it. */
#ifndef APOLLOD_COMMON_METRICS_H
#define APOLLOD_COMMON_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/build_info.h"
#include "common/base/counters.h"
#include "common/http/http_parse.h"
#include "common/answer/responses.h"
#include "common/base/span.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* Which body a /metrics request gets. */
enum metrics_format {
	METRICS_PLAIN = 0,      /* the original "name value" lines, byte for byte */
	METRICS_PROMETHEUS = 1, /* the Prometheus text exposition format 0.0.4 */
};

/* Values the exposition reports that are not stored counters (metrics.c). */
enum metrics_derived {
	M_requests_other = COUNTER_COUNT, /* answered, neither GET nor HEAD */
	M_open_connections,               /* accepted and not yet closed */
	M_build_info,                     /* apollod_build_info: its tier label, then 1 */
	METRICS_VALUE_COUNT,
};
#define METRICS_NO_VALUE 0xff /* a line with no value after it (HELP and TYPE) */
STATIC_ASSERT(METRICS_VALUE_COUNT < METRICS_NO_VALUE, "value ids fit a byte");

/* The exposition, in order. F(name, type, help) starts a family with its HELP and TYPE
 * lines; S(series, value) is one sample of it: the series (name and labels) and a
 * counter_id or metrics_derived. promtool check metrics lints the result (test/wire). */
#define METRICS_Q(s) "\"" s "\""
#define FOR_EACH_PROMETHEUS_LINE(F, S)                                                        \
	F("apollod_requests_total", "counter",                                                \
	  "Requests answered, by method (other: any other method, or none could be parsed).") \
	S("apollod_requests_total{method=" METRICS_Q("GET") "}", C_requests_get)              \
	S("apollod_requests_total{method=" METRICS_Q("HEAD") "}", C_requests_head)            \
	S("apollod_requests_total{method=" METRICS_Q("other") "}", M_requests_other)          \
	F("apollod_responses_total", "counter", "Responses sent, by status code.")            \
	S("apollod_responses_total{code=" METRICS_Q("200") "}", C_responses_200)              \
	S("apollod_responses_total{code=" METRICS_Q("204") "}", C_responses_204)              \
	S("apollod_responses_total{code=" METRICS_Q("206") "}", C_responses_206)              \
	S("apollod_responses_total{code=" METRICS_Q("301") "}", C_responses_301)              \
	S("apollod_responses_total{code=" METRICS_Q("302") "}", C_responses_302)              \
	S("apollod_responses_total{code=" METRICS_Q("303") "}", C_responses_303)              \
	S("apollod_responses_total{code=" METRICS_Q("304") "}", C_responses_304)              \
	S("apollod_responses_total{code=" METRICS_Q("307") "}", C_responses_307)              \
	S("apollod_responses_total{code=" METRICS_Q("308") "}", C_responses_308)              \
	S("apollod_responses_total{code=" METRICS_Q("400") "}", C_responses_400)              \
	S("apollod_responses_total{code=" METRICS_Q("404") "}", C_responses_404)              \
	S("apollod_responses_total{code=" METRICS_Q("405") "}", C_responses_405)              \
	S("apollod_responses_total{code=" METRICS_Q("408") "}", C_responses_408)              \
	S("apollod_responses_total{code=" METRICS_Q("410") "}", C_responses_410)              \
	S("apollod_responses_total{code=" METRICS_Q("414") "}", C_responses_414)              \
	S("apollod_responses_total{code=" METRICS_Q("416") "}", C_responses_416)              \
	S("apollod_responses_total{code=" METRICS_Q("421") "}", C_responses_421)              \
	S("apollod_responses_total{code=" METRICS_Q("503") "}", C_responses_503)              \
	F("apollod_read_bytes_total", "counter", "Bytes read from clients.")                  \
	S("apollod_read_bytes_total", C_bytes_read)                                           \
	F("apollod_written_bytes_total", "counter", "Bytes written to clients.")              \
	S("apollod_written_bytes_total", C_bytes_written)                                     \
	F("apollod_timeouts_total", "counter", "Deadlines that expired, by kind.")            \
	S("apollod_timeouts_total{kind=" METRICS_Q("head") "}", C_timeouts_head)              \
	S("apollod_timeouts_total{kind=" METRICS_Q("idle") "}", C_timeouts_idle)              \
	S("apollod_timeouts_total{kind=" METRICS_Q("send") "}", C_timeouts_send)              \
	F("apollod_connections_accepted_total", "counter", "Connections accepted.")           \
	S("apollod_connections_accepted_total", C_connections_accepted)                       \
	F("apollod_connections_closed_total", "counter", "Connections closed.")               \
	S("apollod_connections_closed_total", C_connections_closed)                           \
	F("apollod_connections_evicted_total", "counter",                                     \
	  "Connections waiting between requests closed to make room for a new one.")          \
	S("apollod_connections_evicted_total", C_connections_evicted)                         \
	F("apollod_connections_refused_total", "counter",                                     \
	  "Connections answered 503 and closed at once: the table was full, nothing to evict.") \
	S("apollod_connections_refused_total", C_connections_refused)                         \
	F("apollod_open_connections", "gauge",                                                \
	  "Connections open now (this scrape's included), over every worker.")                \
	S("apollod_open_connections", M_open_connections)                                     \
	F("apollod_syscalls_total", "counter", "Syscalls the serving loop made.")             \
	S("apollod_syscalls_total", C_syscalls_total)                                         \
	F("apollod_response_syscalls_total", "counter", "write and writev calls that sent responses.") \
	S("apollod_response_syscalls_total", C_response_syscalls)                             \
	F("apollod_write_eagains_total", "counter", "Response writes that returned EAGAIN.")  \
	S("apollod_write_eagains_total", C_write_eagains)                                     \
	F("apollod_cache_hits_total", "counter", "GET or HEAD of a cached file.")             \
	S("apollod_cache_hits_total", C_cache_hits)                                           \
	F("apollod_cache_misses_total", "counter", "GET or HEAD of a path neither routed nor cached.") \
	S("apollod_cache_misses_total", C_cache_misses)                                       \
	F("apollod_cached_files", "gauge", "Files --root loaded at start-up.")                \
	S("apollod_cached_files", C_files_cached)                                             \
	F("apollod_cached_bytes", "gauge", "Bytes of the files --root loaded at start-up.")   \
	S("apollod_cached_bytes", C_bytes_cached)                                             \
	F("apollod_workers_restarted_total", "counter",                                       \
	  "Serving processes the supervisor replaced after they died.")                       \
	S("apollod_workers_restarted_total", C_workers_restarted)                             \
	F("apollod_log_lines_dropped_total", "counter",                                       \
	  "Access-log lines dropped because the log could not take them.")                    \
	S("apollod_log_lines_dropped_total", C_log_lines_dropped)                             \
	F("apollod_reloads_total", "counter", "Reloads that succeeded: SIGHUP or --watch.")   \
	S("apollod_reloads_total", C_reloads)                                                 \
	F("apollod_responses_by_reference_total", "counter",                                  \
	  "Responses whose body left by sendfile from the snapshot.")                         \
	S("apollod_responses_by_reference_total", C_responses_by_reference)                   \
	F("apollod_bytes_by_reference_total", "counter",                                      \
	  "Body bytes sent by sendfile.")                                                     \
	S("apollod_bytes_by_reference_total", C_bytes_by_reference)                           \
	F("apollod_responses_from_disk_total", "counter",                                     \
	  "Responses made from a file beyond --cache-bytes, opened at request time.")         \
	S("apollod_responses_from_disk_total", C_responses_from_disk)                         \
	F("apollod_bodies_cut_short_total", "counter",                                        \
	  "Disk-served bodies whose file shrank while sent; the connection closed.")          \
	S("apollod_bodies_cut_short_total", C_bodies_cut_short)                               \
	F("apollod_skipped_entries", "gauge",                                                 \
	  "Files and directories under --root the load passed over: unreadable or too deep.") \
	S("apollod_skipped_entries", C_entries_skipped)                                       \
	F("apollod_start_time_seconds", "gauge",                                              \
	  "When the service started, in seconds since the Unix epoch; reloads keep it.")      \
	S("apollod_start_time_seconds", C_start_time_seconds)                                 \
	F("apollod_restarts_backed_off_total", "counter",                                     \
	  "Generations and workers restarted after they died, each after its backoff.")       \
	S("apollod_restarts_backed_off_total", C_restarts_backed_off)                         \
	F("apollod_responses_compressed_total", "counter",                                    \
	  "200 responses to a GET whose body is a gzip or br representation of a file.")      \
	S("apollod_responses_compressed_total", C_responses_compressed)                       \
	F("apollod_compressed_bytes_saved_total", "counter",                                  \
	  "Bytes of those files less the bytes their compressed bodies took.")                \
	S("apollod_compressed_bytes_saved_total", C_compressed_bytes_saved)                   \
	F("apollod_compressions_at_load_total", "counter",                                    \
	  "Files the loads compressed; a reload compresses only what changed.")               \
	S("apollod_compressions_at_load_total", C_compressions_at_load)                       \
	F("apollod_gzip_representations", "gauge",                                            \
	  "gzip representations made at load that the serving snapshot holds.")               \
	S("apollod_gzip_representations", C_gzip_representations)                             \
	F("apollod_disk_opens_refused_total", "counter",                                      \
	  "Opens of files beyond --cache-bytes refused by a full descriptor table: 503.")     \
	S("apollod_disk_opens_refused_total", C_disk_opens_refused)                           \
	F("apollod_gzip_pending", "gauge",                                                    \
	  "Files the first start left to compress; 0 once their gzip forms are served.")      \
	S("apollod_gzip_pending", C_gzip_pending)                                             \
	F("apollod_listings_rendered_total", "counter",                                       \
	  "Listings made per request: their directory holds a file served from disk.")        \
	S("apollod_listings_rendered_total", C_listings_rendered)                             \
	F("apollod_listings_refused_total", "counter",                                        \
	  "Listings made per request refused for want of a free buffer: 503.")                \
	S("apollod_listings_refused_total", C_listings_refused)                               \
	F("apollod_build_info", "gauge", "The build: version and tier; always 1.")            \
	S("apollod_build_info{version=" METRICS_Q(APOLLOD_VERSION) ",tier=\"", M_build_info)

/* apollod_build_info's sample is its text up to the tier label's opening quote, then the
 * tier's name (apollod_tier_name: the daemon's tier, which this layer is compiled
 * without) and `"} 1`, in the room a sample's value has. */
#define METRICS_TIER_MAX 16
STATIC_ASSERT(METRICS_TIER_MAX + sizeof("\"} 1") - 1 <= U64_DEC_MAX + 1,
	      "the tier label fits a value's room");

/* The tier apollod_build_info reports (at most METRICS_TIER_MAX bytes of it): defined by
 * the daemon's entry (common/main/daemon_main.c), "none" without one (metrics.c). */
extern const char apollod_tier_name[];

/* The longest line each kind of entry gives, summed over both lists. */
#define METRICS_FAMILY_TEXT(name, type, help) \
	"# HELP " name " " help "\n# TYPE " name " " type "\n"
#define METRICS_FAMILY_MAX(name, type, help) (sizeof(METRICS_FAMILY_TEXT(name, type, help)) - 1) +
#define METRICS_SAMPLE_MAX(series, value) (sizeof(series " ") - 1 + U64_DEC_MAX + 1) +
#define METRICS_PLAIN_LINE_MAX(name) METRICS_SAMPLE_MAX(#name, 0)
#define METRICS_PLAIN_BODY_MAX (FOR_EACH_COUNTER(METRICS_PLAIN_LINE_MAX) 0)
#define METRICS_PROMETHEUS_BODY_MAX \
	(FOR_EACH_PROMETHEUS_LINE(METRICS_FAMILY_MAX, METRICS_SAMPLE_MAX) 0)
#define METRICS_BODY_MAX                                                  \
	(METRICS_PLAIN_BODY_MAX > METRICS_PROMETHEUS_BODY_MAX ? METRICS_PLAIN_BODY_MAX \
							      : METRICS_PROMETHEUS_BODY_MAX)

/* Both forms are version 0.0.4 of the text format as far as the type says; only the
 * Prometheus form is also valid in it (promtool). */
#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
/* Room for the head in front of the body. */
#define METRICS_HEAD_RESERVE HEAD_200_MAX(sizeof(METRICS_CONTENT_TYPE) - 1)
/* The connection's scratch buffer, one per slot (conn.c): every response rendered per
 * request is written there (/metrics, a 301, a file's 304 or 206 head, a 416; conn.c
 * checks the others fit). A 301 with the longest Location (REDIRECT_MAX(REDIRECT_LOCATION_MAX),
 * 8,150 bytes) is the largest, rounded to 512; /metrics
 * needs under 4 KiB of it. Only touched pages are resident. */
#define CONN_SCRATCH_SIZE 8192
STATIC_ASSERT(METRICS_HEAD_RESERVE + METRICS_BODY_MAX <= CONN_SCRATCH_SIZE,
	      "the largest /metrics response of either form fits the scratch buffer");
STATIC_ASSERT(CONN_SCRATCH_SIZE % 512 == 0, "slot buffers stay 512-byte multiples");

/* Where build_metrics put the response. */
struct rendered_response {
	const char *bytes;  /* first byte of the head, inside the caller's buffer */
	uint32_t head_len;
	uint32_t total_len; /* head + body */
};

/* Which form a GET or HEAD of /metrics asks for: METRICS_PROMETHEUS when the query has a
 * `format=prometheus` parameter, or an Accept field names the Prometheus text format
 * (text/plain with a version=0.0.4 parameter) or OpenMetrics (application/openmetrics-text,
 * which gets the 0.0.4 form: Prometheus takes either); else METRICS_PLAIN. line is the
 * parsed request line; h the header_block parse_headers filled from block (its Accept
 * lines, every one). Pure; reads only the target, h and the recorded values in block. */
enum metrics_format metrics_format_wanted(const struct request_line *line,
					  const struct header_block *h, const char *block);

/* Renders the full /metrics response (head and body) of `format` into out, which must
 * hold CONN_SCRATCH_SIZE bytes, with the Connection header of `form`. The body is
 * written first, after METRICS_HEAD_RESERVE bytes, then the head so that it ends exactly
 * where the body starts: nothing moves.
 * Returns where the response starts and its lengths; the bytes lie in out. */
struct rendered_response build_metrics(char *out, enum conn_form form,
				       enum metrics_format format);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_METRICS_H */
