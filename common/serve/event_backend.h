/* The event backend: everything the serving path asks of the kernel, behind two narrow
 * interfaces, so that a readiness backend (epoll, backend_epoll.c) and a completion
 * backend (io_uring, backend_uring.c) can both sit under the same loop and connection
 * code.
 *
 * For the loop (loop.c): open the backend, watch or unwatch the listener, wait for
 * reports, accept. For one connection (conn.c): read, send, shut down, close, and absorb
 * a report. Every syscall the backend makes is counted in syscalls_total.
 *
 * The I/O contract is "call, and call again": an io_* operation either finishes now and
 * returns its result, or returns IO_PENDING, after which the connection code stops and
 * waits; when a report for the connection arrives (conn_event), it calls the same
 * operation again with the same arguments, and this time may get the result.
 *   - readiness (epoll): the call tries the syscall at once; on EAGAIN it registers the
 *     descriptor (once, edge-triggered, both directions) and returns IO_PENDING; the next
 *     edge lets the call be tried again. A short read proves the socket empty, so the
 *     next read waits for an edge without a syscall.
 *   - completion (io_uring): the call submits the operation (the buffer and iovecs must
 *     stay put until it completes, which the connection code guarantees: the input buffer
 *     and the response queue are per-slot static arrays) and returns IO_PENDING; the
 *     completion's report stores the result in the slot's conn_io, and the repeated call
 *     returns it.
 * Either way the connection code never sees readiness or completions, only results.
 *
 * The backend is chosen when a tier is built (APOLLOD_HAVE_URING, config.h). The calls
 * made once or more per request (accept, the io_* family) are static inline, defined by
 * the backend's header included below, which also defines backend_event and struct
 * conn_io; out of line they cost about 60 user-space instructions per request
 * (callgrind: //bench:counts, bench/counts.py). The rest is in the backend's .c. The
 * declarations below are the contract; the backend's header defines each. */
#ifndef APOLLOD_COMMON_EVENT_BACKEND_H
#define APOLLOD_COMMON_EVENT_BACKEND_H

#include <stdint.h>

#include "common/base/limits.h"
#include "common/base/config.h"
#include "common/base/exit_codes.h"
#include "common/base/static_assert.h"
#include "common/base/sys.h"

#define BACKEND_EVENTS_MAX 64 /* reports taken per wait */

/* Every registration carries a 64-bit token that comes back with its reports. The
 * connection code makes connection tokens (conn.c: a descriptor below 4096 in the low
 * half, so never in the listeners' range); listener i (0..LISTENERS_MAX-1, one per
 * --listen address) reports with LISTENER_TOKEN_OF(i). */
#define SIGNAL_TOKEN 0xfffffffffffffffeull /* the signalfd (signals.h) */
#define LISTENER_TOKEN_BASE 0xffffffffffffff00ull
#define LISTENER_TOKEN_OF(i) (LISTENER_TOKEN_BASE + (uint64_t)(i))
/* The listener index of token, or -1 when it is no listener's. */
static inline int listener_of_token(uint64_t token)
{
	return token - LISTENER_TOKEN_BASE < LISTENERS_MAX ? (int)(token - LISTENER_TOKEN_BASE)
							    : -1;
}

/* An operation will finish later: stop, and call it again after the next report. */
#define IO_PENDING (-EAGAIN)

/* The bytes the count buffers of iov hold (a send that took fewer came up short). */
static inline uint64_t iov_bytes(const struct k_iovec *iov, uint32_t count)
{
	uint64_t total = 0;
	for (uint32_t i = 0; i < count; i++)
		total += iov[i].iov_len;
	return total;
}

/* The backend's half: backend_event (one report), struct conn_io (a connection's
 * transport handle, CONN_IO_SIZE bytes), BACKEND_LISTENER_FLAGS and the inline calls. */
/* splice's flags from a send pipe (io_send_pipe): SPLICE_F_MORE while more of the body
 * follows, as sendfile sets MSG_MORE on all but its last bytes. */
#define IO_SPLICE_FLAGS(more) \
	(K_SPLICE_F_MOVE | K_SPLICE_F_NONBLOCK | ((more) ? K_SPLICE_F_MORE : 0u))

#if APOLLOD_HAVE_URING
#include "common/serve/backend_uring.h"
#else
#include "common/serve/backend_epoll.h"
#endif

/* ---- The loop's interface ---- */

/* Creates the backend. Returns EXIT_OK, or the exit code of BEHAVIOUR 3 after saying why
 * on stderr where the backend has a line for it. */
enum exit_code backend_open(void);

/* The listeners are shared with other processes that accept on them (--workers, one
 * socket per address for every worker: BEHAVIOUR 12): a connection must go to a process
 * that is waiting for one, never to one that is stopped or busy. epoll: every listener is
 * watched with EPOLLEXCLUSIVE, which wakes one of the processes waiting in epoll_wait (a
 * stopped one is not waiting: epoll(7)). io_uring: no accept is armed in the ring, which
 * would hold a connection for a process that may not run again soon; each listener has
 * its multishot poll, which wakes every worker's ring, and the loop accepts with accept4.
 * Call once, after backend_open and before the first backend_watch_listener. */
void backend_share_listeners(void);

/* Starts (on = 1) or stops (on = 0) watching listener `index` (< LISTENERS_MAX), on
 * descriptor fd, for incoming connections, reported with LISTENER_TOKEN_OF(index).
 * Level-triggered: the loop may leave connections in the backlog. Returns 0 or -errno. */
long backend_watch_listener(uint32_t index, int fd, int on);

/* After every listener was unwatched: whether nothing accepted can still turn up (a
 * backend that accepted ahead of the loop would wait for its last accept; both backends
 * here accept with accept4 in the loop: always 1). A stop waits for this before it ends,
 * so that no accepted connection is closed unanswered at exit. */
int backend_accepts_settled(void);

/* A stop is over with work still in flight (--drain-timeout passed, or a second stop
 * signal: BEHAVIOUR 11): cancels every operation the backend still has in flight and
 * returns without waiting for their completions; the process exits next, and its exit
 * releases the descriptors. Readiness backend: nothing is in flight, nothing to do. */
void backend_cancel_all(void);

/* Watches the signal descriptor (signals.h), reported with SIGNAL_TOKEN until it is
 * closed. Returns 0 or -errno. */
long backend_watch_signals(int fd);

/* Hands the kernel whatever operations are queued (a completion backend), then waits up
 * to timeout_ms (-1: forever) and stores up to BACKEND_EVENTS_MAX reports. Returns the
 * count (0 on timeout) or -errno (-EINTR included). */
long backend_wait(backend_event *events, int timeout_ms);

/* The token a report carries. */
static inline uint64_t backend_event_token(const backend_event *e);

/* Takes one connection from listen_fd, close-on-exec. Returns its descriptor, -EAGAIN
 * when none is waiting (or, for a completion backend, none was delivered by the last
 * wait), or another -errno from accept4(2) or the accept completion. */
static inline long backend_accept(int listen_fd);

/* ---- One connection's interface ---- */

/* struct conn_io, a connection's transport handle, is kept in its slot and owned by the
 * backend: the connection code sets it up with io_open and otherwise only passes it. */
STATIC_ASSERT(sizeof(struct conn_io) == CONN_IO_SIZE, "the backend states its handle's size");

/* Sets up io for a connection just accepted on fd, reported with token. No syscall. */
static inline void io_open(struct conn_io *io, int fd, uint64_t token);

/* Takes in a report e that carries io->token. */
static inline void io_event(struct conn_io *io, const backend_event *e);

/* Reads up to len (> 0) bytes into buf. Returns the count, 0 at end of input,
 * IO_PENDING, or another -errno (the connection has failed; -EINTR: call again). */
static inline long io_read(struct conn_io *io, char *buf, uint32_t len);

/* Sends the count (>= 1) buffers of iov, gathered: one operation for all of them (epoll:
 * write(2) or writev(2), sendmsg(2) with more; io_uring: one send or sendmsg). more: a
 * body by reference follows (io_send_file), so the bytes go with MSG_MORE and the kernel
 * holds a partial segment back for it. Counts response_syscalls for each operation and
 * write_eagains each time it finds the socket full. Returns the bytes sent (possibly
 * fewer than queued), IO_PENDING, or another -errno (-EPIPE or -ECONNRESET: the peer is
 * gone; -EINTR: call again). */
static inline long io_send(struct conn_io *io, const struct k_iovec *iov, uint32_t count,
			   int more);

/* Sends up to len (> 0) bytes of file in_fd from *offset, by reference: sendfile(2), the
 * kernel hands the file's pages to the socket without a copy through user space (both
 * backends call it directly; io_uring waits for a full socket with a poll operation).
 * Moves *offset past what was sent. Counts response_syscalls for each sendfile and
 * write_eagains each time it finds the socket full. Returns the bytes sent (possibly fewer
 * than len), 0 when in_fd ended before *offset + len, IO_PENDING, or another -errno. */
static inline long io_send_file(struct conn_io *io, int in_fd, int64_t *offset, uint64_t len);

/* Sends up to len (> 0) bytes from send pipe pipe_out (send_pipes.h) by splice(2): the
 * pages in the pipe go to the socket by reference (both backends call it directly, as
 * io_send_file). more: more of the body follows these bytes (SPLICE_F_MORE). Counts
 * response_syscalls and write_eagains as io_send_file does. Returns the bytes sent
 * (possibly fewer than len), IO_PENDING, or another -errno. */
static inline long io_send_pipe(struct conn_io *io, int pipe_out, uint32_t len, int more);

/* Ends the sending side: the peer reads end of input after what was sent. Returns 0 or
 * -errno (the peer is gone: nothing to act on). */
static inline long io_shutdown_write(struct conn_io *io);

/* Abandons the operation in flight on io, if any: its result will never be asked for
 * (a deadline answered the connection while it waited for input). Readiness: nothing is
 * in flight, nothing to do. Completion: the operation is cancelled and its completion
 * dropped. */
static inline void io_abandon(struct conn_io *io);

/* Closes the connection like io_close, with its descriptor free when this returns:
 * eviction makes room for a connection accept4 just refused with EMFILE. */
static inline void io_close_now(struct conn_io *io);

/* Closes the connection; its descriptor and registration are released even if the
 * kernel reports an error, so nothing is returned. */
static inline void io_close(struct conn_io *io);

#endif /* APOLLOD_COMMON_EVENT_BACKEND_H */
