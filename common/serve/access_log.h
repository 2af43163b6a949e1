/* The access log (--access-log PATH, or - for standard output; off by default): one line
 * per answered request, written once the response's last byte has left (or the
 * connection ended first), in one of three formats (--access-log-format): common (the
 * Common Log Format plus the service time in microseconds and the response's content
 * coding), combined (Referer and User-Agent after the bytes) or json (one object a line)
 * (BEHAVIOUR 14). A response's line is made when it is queued and held with its
 * connection (access_log_line.h's record) until its bytes have gone; then it joins the
 * lines that leave in one write per loop iteration (access_log_flush). The descriptor is
 * non-blocking, and lines it cannot take are dropped and counted in log_lines_dropped:
 * the log never holds up serving.
 * The hooks below are inline tests of one field (access_log.fd), so a daemon without the
 * log pays a compare and a branch per request and per send. */
#ifndef APOLLOD_COMMON_ACCESS_LOG_H
#define APOLLOD_COMMON_ACCESS_LOG_H

#include <stdint.h>

#include "common/base/limits.h"
#include "common/base/exit_codes.h"
#include "common/base/span.h"
#include "common/base/static_assert.h"
#include "common/serve/access_log_line.h"

APOLLOD_EXTERN_C_BEGIN

#define ACCESS_LOG_BUFFER (64u * 1024u) /* lines waiting for this iteration's write */
#define ACCESS_LOG_PIPE_WRITE_MAX 4096u /* PIPE_BUF: a pipe takes a write of up to this
					  * many bytes whole or not at all (pipe(7)) */
STATIC_ASSERT(ACCESS_LOG_LINE_MAX <= ACCESS_LOG_PIPE_WRITE_MAX,
	      "the longest line still goes to a pipe in one atomic write");
STATIC_ASSERT(ACCESS_LOG_LINE_MAX * 8 <= ACCESS_LOG_BUFFER,
	      "the buffer holds several worst-case lines");
/* Bytes of held records one connection keeps (its responses queued and not yet sent):
 * two of the longest kind, or about forty of a usual request's. A connection answers its
 * next pipelined request only when a record of the longest kind still fits (conn.c), as
 * it does only when its queue has room. */
#define ACCESS_LOG_HELD_SIZE 8192u
STATIC_ASSERT(ACCESS_LOG_HELD_SIZE >= 2 * ACCESS_LOG_RECORD_MAX, "two worst records fit");
STATIC_ASSERT(ACCESS_LOG_HELD_SIZE <= UINT16_MAX, "held_len fits 16 bits");

/* The log's state: its descriptor and format, and the lines waiting for this
 * iteration's write. The peers' addresses and held records are per slot
 * (access_log.c). */
struct access_log_state {
	int fd;             /* the log's descriptor, or -1 when it is off (access_log_open) */
	uint32_t write_max; /* bytes one write may carry (whole lines) */
	uint32_t len;       /* bytes of whole lines in buf */
	uint32_t vhost_on;  /* --site given: every line names the request's host */
	struct text_span vhost; /* that host (len 0: none), set per request (conn.c) */
	uint8_t format;     /* enum access_log_format */
	char buf[ACCESS_LOG_BUFFER];
};
extern struct access_log_state access_log;

/* Opens the log before the daemon serves (every process calls it, log or no log: it sets
 * access_log.fd, which the hooks read): path "-" is descriptor 1, made non-blocking
 * (the flag is on the open file description, so whatever shares it sees it too); another
 * path is opened write-only, created (0644) and appended to, non-blocking. NULL: the log
 * stays off. format is the line's form (enum access_log_format). Reads auxv to find the
 * vDSO clock (may be NULL). Returns EXIT_OK, or EXIT_ACCESS_LOG after one stderr line
 * naming the path and the reason. */
enum exit_code access_log_open(const char *path, enum access_log_format format,
			       const uint64_t *auxv);

/* The out-of-line halves of the hooks (access_log.c); call the hooks instead. */
void access_log_note_peer(int fd);
void access_log_note_arrival(int fd);
void access_log_hold(int fd, const struct access_log_request *req, uint64_t response_bytes);
void access_log_note_sent(int fd, uint64_t n);
void access_log_note_end(int fd);
int access_log_held_room(int fd);

/* A new connection on fd (< CONN_SLOTS): its peer's address, for the host field, and no
 * held lines. One getpeername(2), counted in syscalls_total, only with the log on. */
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

/* Returns 1 when fd may queue one more response (its held records have room for one of
 * the longest kind, or the log is off), else 0. */
static inline int access_log_room(int fd)
{
	return access_log.fd < 0 || access_log_held_room(fd);
}

/* The request on fd was answered: its response, response_bytes (> 0) bytes in all, is
 * queued behind the connection's earlier ones. Makes its line (access_log_line.h) and
 * holds it until those bytes have been sent (access_log_sent). The caller checked
 * access_log_room; without room the line is dropped (counted). */
static inline void access_log_request(int fd, const struct access_log_request *req,
				      uint64_t response_bytes)
{
	if (access_log.fd >= 0)
		access_log_hold(fd, req, response_bytes);
}

/* n (> 0) bytes of fd's queued responses left (any send: write, writev, sendmsg,
 * sendfile, either backend): every held line whose response's last byte was among them
 * is finished now (its service time ends) and appended to the buffer, or dropped
 * (counted) when the buffer has no room for a line of the longest kind. */
static inline void access_log_sent(int fd, uint64_t n)
{
	if (access_log.fd >= 0)
		access_log_note_sent(fd, n);
}

/* fd's connection ends (closed, reset, a deadline, a stop): every line still held is
 * finished now, as cut: its service time runs to now and its bytes field counts the body
 * bytes that left (0: none, "-"). */
static inline void access_log_end(int fd)
{
	if (access_log.fd >= 0)
		access_log_note_end(fd);
}

/* The process ends with connections open (a stop's drain ran out): finishes every held
 * line as access_log_end does, then leaves them to the last access_log_flush. */
void access_log_end_all(void);

/* Writes the buffered lines: once per loop iteration, and once when the loop ends. One
 * write(2) of whole lines (to a pipe or other non-file, at most ACCESS_LOG_PIPE_WRITE_MAX
 * bytes, so it lands whole or not at all; lines beyond wait for the next iteration).
 * When the write fails (EAGAIN: a full pipe) every buffered line is dropped; when it is
 * short (a full disk) every line it did not finish is dropped. Dropped lines are counted
 * in log_lines_dropped. No-op when the log is off or the buffer is empty. */
void access_log_flush(void);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_ACCESS_LOG_H */
