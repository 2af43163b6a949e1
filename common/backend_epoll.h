/* The epoll event backend's inline half (see event_backend.h): the calls every request
 * makes, each a syscall and a few flag tests. Included by event_backend.h only. */
#ifndef APOLLOD_COMMON_BACKEND_EPOLL_H
#define APOLLOD_COMMON_BACKEND_EPOLL_H

#include "common/counters.h"

/* Every syscall of the serving path is counted, so syscalls per request can be read from
 * /metrics alone. Evaluates to the call's result. */
#define COUNTED(call) (counter_add(C_syscalls_total, 1), (call))

/* The epoll instance (backend_open). */
extern int backend_epoll_fd;

/* An operation must wait for an edge: registers io's descriptor the first time, for both
 * directions, so interest never has to change. Returns IO_PENDING, or the -errno of a
 * failed registration (the connection cannot be served). */
long backend_epoll_wait_edge(struct conn_io *io);

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

static inline long io_send(struct conn_io *io, const struct k_iovec *iov, uint32_t count)
{
	long n = count == 1 ? COUNTED(sys_write(io->fd, iov->iov_base, iov->iov_len))
			    : COUNTED(sys_writev(io->fd, iov, (int)count));
	return n == -EAGAIN ? backend_epoll_wait_edge(io) : n;
}

static inline long io_shutdown_write(struct conn_io *io)
{
	return COUNTED(sys_shutdown(io->fd, K_SHUT_WR));
}

static inline void io_close(struct conn_io *io)
{
	COUNTED(sys_close(io->fd)); /* also removes it from the epoll set */
}

#endif /* APOLLOD_COMMON_BACKEND_EPOLL_H */
