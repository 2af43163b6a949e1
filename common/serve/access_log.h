/* The access log (--access-log PATH, or - for standard output; off by default): one line
 * per answered request, the Common Log Format plus the service time in microseconds and
 * the response's content coding (BEHAVIOUR 14). Lines collect in a buffer and leave in one write per loop iteration
 * (access_log_flush); the descriptor is non-blocking, and lines it cannot take are
 * dropped and counted in log_lines_dropped: the log never holds up serving.
 * The hooks below are inline tests of one field (access_log.fd), so a daemon without the
 * log pays a compare and a branch per request. */
#ifndef APOLLOD_COMMON_ACCESS_LOG_H
#define APOLLOD_COMMON_ACCESS_LOG_H

#include <stdint.h>

#include "common/base/limits.h"
#include "common/base/exit_codes.h"
#include "common/http/http_parse.h"
#include "common/base/span.h"
#include "common/base/static_assert.h"
#include "common/serve/wallclock.h"

APOLLOD_EXTERN_C_BEGIN

#define ACCESS_LOG_BUFFER (64u * 1024u) /* lines waiting for this iteration's write */
#define ACCESS_LOG_PIPE_WRITE_MAX 4096u /* PIPE_BUF: a pipe takes a write of up to this
					  * many bytes whole or not at all (pipe(7)) */
#define ACCESS_LOG_HOST_MAX 39 /* an IPv6 address as eight groups of four hex digits */
/* A line keeps at most ACCESS_LOG_TARGET_MAX bytes of the target: a longer one (up to
 * HTTP_TARGET_MAX, 8,000) is logged as its first ACCESS_LOG_TARGET_MAX bytes and then
 * ACCESS_LOG_CUT_MARK, so that the longest line still fits one atomic pipe write
 * (BEHAVIOUR 14). A logged target of exactly 1,027 bytes ending in "..." was cut. */
#define ACCESS_LOG_TARGET_MAX 1024
#define ACCESS_LOG_CUT_MARK "..."
#define ACCESS_LOG_VERSION_LEN (sizeof(" HTTP/1.1") - 1) /* what ends a request line */
/* The last field: the response's content coding ("gzip", "br"; "-" for none), at most
 * this long (conn.c checks the file cache's codings fit). */
#define ACCESS_LOG_CODING_MAX 4
STATIC_ASSERT(ACCESS_LOG_TARGET_MAX <= HTTP_TARGET_MAX, "the cut keeps a prefix");
/* The request line as logged, each byte at worst escaped to two (\" or \\); the mark
 * is never escaped. */
#define ACCESS_LOG_REQUEST_MAX                                                           \
	(2 * (HTTP_METHOD_MAX + 1 + ACCESS_LOG_TARGET_MAX + ACCESS_LOG_VERSION_LEN) +     \
	 sizeof(ACCESS_LOG_CUT_MARK) - 1)
/* With --site, one more field: the request's host (BEHAVIOUR 14), cut to this many bytes. */
#define ACCESS_LOG_VHOST_MAX 255
#define ACCESS_LOG_LINE_MAX                                                          \
	(ACCESS_LOG_HOST_MAX + sizeof(" - - ") - 1 + WALLCLOCK_CLF_LEN + sizeof(" \"") - 1 + \
	 ACCESS_LOG_REQUEST_MAX + sizeof("\" 200 ") - 1 + U64_DEC_MAX + 1 + U64_DEC_MAX + 1 + \
	 ACCESS_LOG_CODING_MAX + 1 + ACCESS_LOG_VHOST_MAX + 1)
STATIC_ASSERT(ACCESS_LOG_LINE_MAX <= ACCESS_LOG_PIPE_WRITE_MAX,
	      "the longest line still goes to a pipe in one atomic write");
STATIC_ASSERT(ACCESS_LOG_LINE_MAX * 8 <= ACCESS_LOG_BUFFER,
	      "the buffer holds several worst-case lines");

/* The log's state: its descriptor, and the lines waiting for this iteration's write. The
 * peers' addresses and arrival times are per slot (access_log.c). */
struct access_log_state {
	int fd;             /* the log's descriptor, or -1 when it is off (access_log_open) */
	uint32_t write_max; /* bytes one write may carry (whole lines) */
	uint32_t len;       /* bytes of whole lines in buf */
	uint32_t vhost_on;  /* --site given: lines end with the request's host */
	struct text_span vhost; /* that host (len 0: none, logged "-"), set per request */
	char buf[ACCESS_LOG_BUFFER];
};
extern struct access_log_state access_log;

/* Opens the log before the daemon serves (every process calls it, log or no log: it sets
 * access_log.fd, which the hooks read): path "-" is descriptor 1, made non-blocking
 * (the flag is on the open file description, so whatever shares it sees it too); another
 * path is opened write-only, created (0644) and appended to, non-blocking. NULL: the log
 * stays off. Reads auxv to find the vDSO clock (may be NULL). Returns EXIT_OK, or
 * EXIT_ACCESS_LOG after one stderr line naming the path and the reason. */
enum exit_code access_log_open(const char *path, const uint64_t *auxv);

/* The out-of-line halves of the hooks (access_log.c); call the hooks instead. */
void access_log_note_peer(int fd);
void access_log_note_arrival(int fd);
void access_log_add_line(int fd, struct text_span request_line, uint8_t status_counter,
			 uint64_t body_bytes, struct text_span coding);

/* A new connection on fd (< CONN_SLOTS): its peer's address, for the host field. One
 * getpeername(2), counted in syscalls_total, only with the log on. */
static inline void access_log_connection(int fd)
{
	if (access_log.fd >= 0)
		access_log_note_peer(fd);
}

/* A read on fd returned bytes: a request whose head they complete arrived now (the start
 * of its service time). */
static inline void access_log_arrival(int fd)
{
	if (access_log.fd >= 0)
		access_log_note_arrival(fd);
}

/* The request on fd was answered: its response is queued. request_line is the request
 * line without CRLF (len 0: none could be parsed, logged as "-"), status_counter the
 * response's C_responses_NNN, body_bytes the body's length (0 for HEAD), coding its
 * Content-Encoding (at most ACCESS_LOG_CODING_MAX bytes; len 0: none, logged as "-").
 * Appends the line, or drops it (counted) when the buffer has no room for a line of the
 * longest kind. */
static inline void access_log_request(int fd, struct text_span request_line,
				      uint8_t status_counter, uint64_t body_bytes,
				      struct text_span coding)
{
	if (access_log.fd >= 0)
		access_log_add_line(fd, request_line, status_counter, body_bytes, coding);
}

/* Writes the buffered lines: once per loop iteration, and once when the loop ends. One
 * write(2) of whole lines (to a pipe or other non-file, at most ACCESS_LOG_PIPE_WRITE_MAX
 * bytes, so it lands whole or not at all; lines beyond wait for the next iteration).
 * When the write fails (EAGAIN: a full pipe) every buffered line is dropped; when it is
 * short (a full disk) every line it did not finish is dropped. Dropped lines are counted
 * in log_lines_dropped. No-op when the log is off or the buffer is empty. */
void access_log_flush(void);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_ACCESS_LOG_H */
