/* The epoll event backend's inline half (see event_backend.h): the calls every request
 * makes, each a syscall and a few flag tests. Included by event_backend.h only. */
#ifndef APOLLOD_COMMON_BACKEND_EPOLL_H
#define APOLLOD_COMMON_BACKEND_EPOLL_H

#include "common/base/counters.h"

/* One report: the kernel's own struct. */
typedef struct epoll_event backend_event;

/* The listener is non-blocking: the loop accepts until EAGAIN. */
#define BACKEND_LISTENER_FLAGS K_SOCK_NONBLOCK

/* The calls a fatal serving-loop error names on stderr (loop.c, BEHAVIOUR 13.1). */
#define BACKEND_WAIT_STEP "epoll_wait"
#define BACKEND_WATCH_STEP "epoll_ctl"
#define BACKEND_ACCEPT_STEP "accept4"
#define BACKEND_ACCEPT_KNOWS_LISTENER 1 /* accept4 names the listener it failed on */

/* A connection's transport handle (event_backend.h). */
struct conn_io {
	uint64_t token;  /* reported with this connection's events */
	int32_t fd;
	uint8_t watched; /* registered with epoll (lazily, at the first IO_PENDING) */
	uint8_t flags;   /* IO_F_* */
	uint8_t reserved[2];
};
#define CONN_IO_SIZE 16

/* conn_io.flags */
#define IO_F_INPUT_EMPTY 0x01 /* the last read came up short (or EAGAIN): the socket is
			       * empty until the next readable edge */
#define IO_F_HUP 0x02         /* the peer hung up (or an error is pending): read until 0
			       * or EAGAIN, a short read proves nothing */
#define IO_F_OUTPUT_FULL 0x04 /* the last send came up short: the socket buffer is full
			       * until the next writable edge (a short TCP send set
			       * SOCK_NOSPACE, so freed space brings that edge) */

/* Every syscall of the serving path is counted, so syscalls per request can be read from
 * /metrics alone. Evaluates to the call's result. */
#define COUNTED(call) (counter_add(C_syscalls_total, 1), (call))

/* The epoll backend's state. */
struct backend_epoll {
	int fd;                   /* the epoll instance (backend_open) */
	uint32_t listener_events; /* EPOLLIN, with EPOLLEXCLUSIVE once shared
				   * (backend_share_listeners); EPOLLEXCLUSIVE is allowed
				   * with EPOLL_CTL_ADD only: a listener is added and
				   * deleted, never modified */
};
extern struct backend_epoll backend_epoll;

/* An operation must wait for an edge: registers io's descriptor the first time, for both
 * directions, so interest never has to change. Returns IO_PENDING, or the -errno of a
 * failed registration (the connection cannot be served). */
long backend_epoll_wait_edge(struct conn_io *io);

static inline uint64_t backend_event_token(const backend_event *e)
{
	return e->data;
}

static inline long backend_accept(int listen_fd)
{
	return COUNTED(sys_accept4(listen_fd, K_SOCK_NONBLOCK | K_SOCK_CLOEXEC));
}

static inline void io_open(struct conn_io *io, int fd, uint64_t token)
{
	io->token = token;
	io->fd = fd;
	io->watched = 0;
	io->flags = 0;
}

static inline void io_event(struct conn_io *io, const backend_event *e)
{
	if (e->events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		io->flags &= (uint8_t)~IO_F_INPUT_EMPTY; /* a new edge: input may be there */
	if (e->events & (EPOLLOUT | EPOLLHUP | EPOLLERR))
		io->flags &= (uint8_t)~IO_F_OUTPUT_FULL; /* room, or an error a send reports */
	/* Hang-up is reported once, edge-triggered: no later edge announces the end of
	 * input, so from now on only a read of 0 or EAGAIN proves the socket empty. */
	if (e->events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		io->flags |= IO_F_HUP;
}

static inline long io_read(struct conn_io *io, char *buf, uint32_t len)
{
	if (io->flags & IO_F_INPUT_EMPTY)
		return backend_epoll_wait_edge(io);
	long n = COUNTED(sys_read(io->fd, buf, len));
	if (n == -EAGAIN) {
		io->flags |= IO_F_INPUT_EMPTY;
		return backend_epoll_wait_edge(io);
	}
	/* Short: the socket is empty, wait for the next edge. Not after a hang-up: data and
	 * FIN can come in one edge, and the FIN needs a read of its own. */
	if (n > 0 && (uint32_t)n < len && !(io->flags & IO_F_HUP))
		io->flags |= IO_F_INPUT_EMPTY;
	return n;
}

/* sendmsg with MSG_MORE for the bytes before a body by reference; SIGPIPE is ignored
 * (BEHAVIOUR 13), MSG_NOSIGNAL only says so again. */
static inline long io_send_more(struct conn_io *io, const struct k_iovec *iov, uint32_t count)
{
	struct k_msghdr m = {.msg_iov = iov, .msg_iovlen = count};
	return COUNTED(sys_sendmsg(io->fd, &m, K_MSG_MORE | K_MSG_NOSIGNAL));
}

/* What a send of asked bytes returned, n: a short count marks the socket full, so the
 * next send waits for the writable edge instead of spending a call (and, for sendfile,
 * a pipe of page lookups) on a certain EAGAIN, as nginx does after a partial send; it
 * counts in write_eagains as that EAGAIN would have. EAGAIN counts and waits. Returns
 * n, or IO_PENDING. */
static inline long io_sent(struct conn_io *io, long n, uint64_t asked)
{
	if (n > 0 && (uint64_t)n < asked) {
		io->flags |= IO_F_OUTPUT_FULL;
		counter_add(C_write_eagains, 1);
	}
	if (n != -EAGAIN)
		return n;
	counter_add(C_write_eagains, 1); /* the socket is full */
	return backend_epoll_wait_edge(io);
}

static inline long io_send(struct conn_io *io, const struct k_iovec *iov, uint32_t count,
			   int more)
{
	if (io->flags & IO_F_OUTPUT_FULL)
		return backend_epoll_wait_edge(io);
	counter_add(C_response_syscalls, 1);
	long n = more         ? io_send_more(io, iov, count)
		 : count == 1 ? COUNTED(sys_write(io->fd, iov->iov_base, iov->iov_len))
			      : COUNTED(sys_writev(io->fd, iov, (int)count));
	return io_sent(io, n, iov_bytes(iov, count));
}

/* sendfile's count is at most this per call (Linux caps a transfer at MAX_RW_COUNT). */
#define IO_SEND_FILE_MAX 0x7ffff000ull

static inline long io_send_file(struct conn_io *io, int in_fd, int64_t *offset, uint64_t len)
{
	if (io->flags & IO_F_OUTPUT_FULL)
		return backend_epoll_wait_edge(io);
	uint64_t asked = len < IO_SEND_FILE_MAX ? len : IO_SEND_FILE_MAX;
	counter_add(C_response_syscalls, 1);
	return io_sent(io, COUNTED(sys_sendfile(io->fd, in_fd, offset, asked)), asked);
}

static inline long io_send_pipe(struct conn_io *io, int pipe_out, uint32_t len, int more)
{
	if (io->flags & IO_F_OUTPUT_FULL)
		return backend_epoll_wait_edge(io);
	counter_add(C_response_syscalls, 1);
	return io_sent(io, COUNTED(sys_splice(pipe_out, 0, io->fd, 0, len, IO_SPLICE_FLAGS(more))),
		       len);
}

static inline long io_shutdown_write(struct conn_io *io)
{
	return COUNTED(sys_shutdown(io->fd, K_SHUT_WR));
}

static inline void io_close(struct conn_io *io);

static inline void io_close_now(struct conn_io *io)
{
	io_close(io); /* close(2) frees the descriptor before it returns */
}

static inline void io_abandon(struct conn_io *io)
{
	(void)io; /* a readiness backend has nothing in flight */
}

static inline void io_close(struct conn_io *io)
{
	COUNTED(sys_close(io->fd)); /* also removes it from the epoll set */
}

#endif /* APOLLOD_COMMON_BACKEND_EPOLL_H */
