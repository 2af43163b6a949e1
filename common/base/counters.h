/* The daemon's counters: one list (FOR_EACH_COUNTER) gives the enum, the /metrics names
 * and their order, so they cannot drift apart. All counters live in one 64-byte aligned
 * struct that could sit on a page shared by several workers. Writers use relaxed atomic
 * adds (x86_64: one `lock add`; aarch64 with LSE: one `stadd`); readers use plain aligned
 * 8-byte loads, which both architectures make single-copy atomic. */
#ifndef APOLLOD_COMMON_COUNTERS_H
#define APOLLOD_COMMON_COUNTERS_H

#include <stdint.h>

#include "common/arch/arch.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* BEHAVIOUR 7: the first ten, in this order, never reordered; later ones are appended.
 * connections_accepted / connections_closed: every descriptor accept4 returned / closed.
 * syscalls_total: every syscall the serving loop makes (epoll, accept4, read, write,
 * writev, shutdown, close; the vDSO clock is not one), so syscalls per request is
 * Δsyscalls_total / Δrequests_total from /metrics alone.
 * The file cache (--root): cache_hits / cache_misses: GET or HEAD of a path that is / is
 * not a cached file (built-in routes are neither); response_syscalls: write and writev
 * calls that sent responses; write_eagains: those that returned EAGAIN; files_cached,
 * bytes_cached: what --root loaded at start-up.
 * timeouts_head / timeouts_idle / timeouts_send: each kind of deadline's expiries
 * (timeouts is their sum); connections_evicted: connections waiting between requests
 * closed to make room for a new one; responses_408: head deadlines answered.
 * workers_restarted: serving processes the supervisor replaced after they died
 * (--workers N > 1). responses_301: /dir redirected to /dir/ (--root, BEHAVIOUR 10.4).
 * log_lines_dropped: access-log lines the log could not take (access_log.h).
 * responses_304 / responses_206 / responses_416: a cached file not modified (If-None-Match,
 * If-Modified-Since), one range of it, a range outside it (--root, BEHAVIOUR 10.8, 10.9).
 * responses_414: a request target longer than 8,000 bytes (BEHAVIOUR 6.1, 6.8).
 * responses_204: an OPTIONS of a path answered (BEHAVIOUR 6.2).
 * reloads: reloads that succeeded (SIGHUP or --watch, BEHAVIOUR 17, 10.16); the one
 * counter a new image carries over (reload.h).
 * responses_by_reference / bytes_by_reference: responses whose body left by sendfile
 * (BEHAVIOUR 10.17: a body of FILE_BY_REFERENCE_MIN bytes or more) and their body bytes;
 * response_syscalls counts each sendfile as it counts each write or writev.
 * responses_from_disk: responses made from a file served from disk (BEHAVIOUR 10.18: beyond
 * --cache-bytes), every status (200, 304, 206, 416, the --error-page's 404) and HEAD;
 * bodies_cut_short: those whose file came up short while its body was sent (the
 * connection closed).
 * entries_skipped: files and directories under --root the load passed over, each with one
 * line: unreadable, or a path longer than 255 bytes (BEHAVIOUR 10.3).
 * start_time_seconds: not a count but the service's start (CLOCK_REALTIME seconds, set
 * once by the resident supervisor: counter_page.h); the Prometheus form types it gauge.
 * restarts_backed_off: generations and workers restarted after a death, each after its
 * backoff (BEHAVIOUR 17).
 * responses_compressed / compressed_bytes_saved: 200 responses to a GET whose body is a
 * coded representation of a cached file (BEHAVIOUR 10.10: a gzip made at load, or an X.gz
 * or X.br beside X), and for each the bytes of X less the bytes of that body (0 when the
 * variant beside X is no smaller).
 * compressions_at_load: files the loads ran the compressor over (BEHAVIOUR 10.10), every
 * load since the start added (a reload carries what did not change: it adds 0 when
 * nothing did); gzip_representations: the gzip representations made at load that the
 * serving snapshot holds (compressed or carried), set like files_cached.

 * connections_refused: connections answered the static 503 and closed at once because the
 * table was full with nothing to evict (BEHAVIOUR 4); like a 408 it answers no request
 * (none was read).
 * responses_503: /health answered 503 once a stop or a reload's drain has begun
 * (BEHAVIOUR 11); a status counter.

 * responses_302 / _303 / _307 / _308 / _410: the answers of --redirects rules with those
 * codes (BEHAVIOUR 10.20).
 * disk_opens_refused: opens of a file served from disk that failed with EMFILE or ENFILE
 * (the descriptor table, the process's or the system's, is full), answered 503 with
 * Retry-After (BEHAVIOUR 10.18); each such 503 also counts in responses_503.
 * gzip_pending: the files the first start left to the compressing generation (BEHAVIOUR
 * 10.10), set at load; 0 once that generation serves or failed (or with none to make).
 * responses_421: requests for a host no --site names when there is no --root to serve
 * it (BEHAVIOUR 10.21); a status counter.
 * listings_rendered: listings made per request because their directory holds a file
 * served from disk (BEHAVIOUR 10.14), whatever their status; listings_refused: those
 * that found every live-listing buffer in use and were answered 503 with Retry-After
 * (each also counted in responses_503).
 * bytes_by_pipe: the body bytes by reference that left through a send pipe (BEHAVIOUR
 * 10.17, send_pipes.h: vmsplice from the snapshot's mapping, then splice to the socket),
 * a share of bytes_by_reference; send_pipe_misses: sends of such a body that found every
 * send pipe held and went by sendfile instead; send_pipes_recreated: send pipes closed
 * with bytes still in them (their connection ended first) and made anew; send_pipes_lost:
 * those that could not be made anew (the pool is that much smaller until the process
 * ends).
 * huge_pages_joined: huge pages (2 MiB on x86_64) the loads made of the snapshot's large
 * bodies (BEHAVIOUR 10.17, huge_pages.h: MADV_COLLAPSE of each whole block inside a body
 * of 2 MiB or more, HUGE_JOIN_MIN); huge_pages_refused: blocks the kernel would not join (one before
 * 6.1, shmem_enabled "deny", no huge page free): they stay in 4 KiB pages. */
#define FOR_EACH_COUNTER(X) \
	X(requests_total)   \
	X(requests_get)     \
	X(requests_head)    \
	X(responses_200)    \
	X(responses_400)    \
	X(responses_404)    \
	X(responses_405)    \
	X(bytes_read)       \
	X(bytes_written)    \
	X(timeouts)         \
	X(connections_accepted) \
	X(connections_closed)   \
	X(syscalls_total)       \
	X(cache_hits)           \
	X(cache_misses)         \
	X(response_syscalls)    \
	X(write_eagains)        \
	X(files_cached)         \
	X(bytes_cached)         \
	X(timeouts_head)        \
	X(timeouts_idle)        \
	X(timeouts_send)        \
	X(connections_evicted)  \
	X(responses_408)        \
	X(workers_restarted)    \
	X(responses_301)        \
	X(log_lines_dropped)    \
	X(responses_304)        \
	X(responses_206)        \
	X(responses_416)        \
	X(responses_414)        \
	X(reloads)              \
	X(responses_by_reference) \
	X(bytes_by_reference)     \
	X(responses_from_disk)    \
	X(bodies_cut_short)       \
	X(entries_skipped)        \
	X(start_time_seconds)     \
	X(restarts_backed_off)    \
	X(responses_204)          \
	X(responses_compressed)   \
	X(compressed_bytes_saved) \
	X(compressions_at_load)   \
	X(gzip_representations)   \
	X(connections_refused)    \
	X(responses_503)          \
	X(responses_302)          \
	X(responses_303)          \
	X(responses_307)          \
	X(responses_308)          \
	X(responses_410)          \
	X(disk_opens_refused)     \
	X(gzip_pending)           \
	X(responses_421)          \
	X(listings_rendered)      \
	X(listings_refused)       \
	X(bytes_by_pipe)          \
	X(send_pipe_misses)       \
	X(send_pipes_recreated)   \
	X(send_pipes_lost)        \
	X(huge_pages_joined)      \
	X(huge_pages_refused)

/* The status counters: every answered request moves exactly one of them (a 408 answers
 * no request: it is not one of them). With several
 * workers adding at once, a scrape could see a request's requests_total before its status,
 * so /metrics renders requests_total as their sum instead of storing it: always
 * consistent, and one atomic add per request fewer. */
#define FOR_EACH_STATUS_COUNTER(X) \
	X(responses_200)           \
	X(responses_400)           \
	X(responses_404)           \
	X(responses_405)           \
	X(responses_301)           \
	X(responses_304)           \
	X(responses_206)           \
	X(responses_416)           \
	X(responses_414)           \
	X(responses_204)           \
	X(responses_503)           \
	X(responses_302)           \
	X(responses_303)           \
	X(responses_307)           \
	X(responses_308)           \
	X(responses_410)           \
	X(responses_421)

enum counter_id {
#define COUNTER_ENUM(name) C_##name,
	FOR_EACH_COUNTER(COUNTER_ENUM)
#undef COUNTER_ENUM
	COUNTER_COUNT
};

/* The block fills one page of its own, so that with --workers it can be replaced in place
 * by a shared mapping (counters_share) and every worker's adds land on the same words,
 * with no pointer to follow on the hot path. "Page" is the largest the arch's kernels
 * use (ARCH_PAGE_MAX: 4 KiB on x86_64, 64 KiB on aarch64), so that MAP_FIXED gets an
 * aligned address and replaces nothing but the block whatever the kernel's page size. */
#define COUNTERS_PAGE ARCH_PAGE_MAX
/* The page's last two words say what it holds, so that a new binary handed the page by
 * the resident supervisor (an upgrade, counter_page.h) keeps its counters only when it
 * reads them the same way: layout is COUNTERS_LAYOUT once the page is the supervisor's
 * (0 in the .bss block before), count the most counters any binary has used it with.
 * Counters are only ever appended, so an index never changes meaning: COUNTERS_LAYOUT
 * changes only if that rule, the word size or the header is ever broken. */
#define COUNTERS_WORDS (COUNTERS_PAGE / 8)
#define COUNTERS_HEADER_WORDS 2
#define COUNTERS_LAYOUT 0x61706f6c6c6f6431ull /* "apollod1": layout version 1 */
struct counters {
	uint64_t value[COUNTERS_WORDS - COUNTERS_HEADER_WORDS];
	uint64_t layout; /* COUNTERS_LAYOUT once the page is shared, else 0 */
	uint64_t count;  /* counters in use (the largest COUNTER_COUNT that used it) */
} __attribute__((aligned(COUNTERS_PAGE)));
STATIC_ASSERT(sizeof(uint64_t) == 8, "counters are 8-byte words");
STATIC_ASSERT(sizeof(struct counters) == COUNTERS_PAGE, "the block is exactly one page");
STATIC_ASSERT(COUNTER_COUNT <= COUNTERS_WORDS - COUNTERS_HEADER_WORDS, "room for the header");

/* The daemon's one counter block. */
extern struct counters apollod_counters;

/* Adds n to counter id with a relaxed atomic read-modify-write: no increment is lost
 * even if another thread or process shares the block; no ordering is implied. */
static inline void counter_add(enum counter_id id, uint64_t n)
{
#ifdef arch_atomic_add_u64
	arch_atomic_add_u64(&apollod_counters.value[id], n);
#else
	__atomic_fetch_add(&apollod_counters.value[id], n, __ATOMIC_RELAXED);
#endif
}

/* Sets counter id to v (a gauge: files_cached, bytes_cached, start_time_seconds) with
 * one relaxed atomic store. */
static inline void counter_set(enum counter_id id, uint64_t v)
{
	__atomic_store_n(&apollod_counters.value[id], v, __ATOMIC_RELAXED);
}

/* Reads counter id with one aligned 8-byte load. */
static inline uint64_t counter_read(enum counter_id id)
{
	return __atomic_load_n(&apollod_counters.value[id], __ATOMIC_RELAXED);
}

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_COUNTERS_H */
