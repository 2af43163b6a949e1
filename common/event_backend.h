/* The event backend: how the loop waits for readiness. The loop (server.c) sees only
 * these calls, so another backend (io_uring) can replace epoll without touching it.
 *
 * Connections are registered once, edge-triggered, for both directions: the loop always
 * reads and writes until EAGAIN, so it never needs to switch interest with another
 * syscall. Every registration carries a 64-bit token that comes back with its events. */
#ifndef APOLLOD_COMMON_EVENT_BACKEND_H
#define APOLLOD_COMMON_EVENT_BACKEND_H

#include <stdint.h>

#include "common/sys.h"

/* One readiness report; in the epoll backend it is the kernel's own struct. */
typedef struct epoll_event backend_event;

#define BACKEND_EVENTS_MAX 64 /* events taken per wait */

/* Creates the backend. Returns 0 or -errno. */
long backend_open(void);

/* Starts (on = 1) or stops (on = 0) watching the listener for incoming connections,
 * reported with `token`. Level-triggered: the loop may leave connections in the backlog.
 * Returns 0 or -errno. */
long backend_watch_listener(int fd, uint64_t token, int on);

/* Watches a connection for readability, writability and hang-up until it is closed
 * (close(2) removes it). Returns 0 or -errno. */
long backend_watch_conn(int fd, uint64_t token);

/* Waits up to timeout_ms (-1: forever) and stores up to BACKEND_EVENTS_MAX events.
 * Returns the count (0 on timeout) or -errno (-EINTR included). */
long backend_wait(backend_event *events, int timeout_ms);

static inline uint64_t backend_event_token(const backend_event *e)
{
	return e->data;
}

/* Readable, or the peer hung up / an error is pending: a read will tell which. */
static inline int backend_event_readable(const backend_event *e)
{
	return (e->events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0;
}

/* The peer shut down its side, or the connection failed. Reported once, edge-triggered:
 * after it no new edge announces the end of input, so the reader must read to EOF. */
static inline int backend_event_hangup(const backend_event *e)
{
	return (e->events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0;
}

/* Writable, or an error is pending: a write will tell which. */
static inline int backend_event_writable(const backend_event *e)
{
	return (e->events & (EPOLLOUT | EPOLLHUP | EPOLLERR)) != 0;
}

#endif /* APOLLOD_COMMON_EVENT_BACKEND_H */
