/* The epoll event backend, its out-of-line half (see event_backend.h and backend_epoll.h):
 * creation, the listener, the wait, and the one-time registration of a connection. */
#include "common/serve/event_backend.h"

#include "common/base/console.h"

struct backend_epoll backend_epoll = {.fd = -1, .listener_events = EPOLLIN};

enum exit_code backend_open(void)
{
	long fd = sys_epoll_create1(EPOLL_CLOEXEC);
	if (sys_is_error(fd)) {
		console_fail("epoll_create1", 0, 0, fd);
		return EXIT_EPOLL_CREATE;
	}
	backend_epoll.fd = (int)fd;
	return EXIT_OK;
}

int backend_accepts_settled(void)
{
	return 1; /* accept4 is called by the loop: nothing is accepted behind its back */
}

void backend_cancel_all(void)
{
	/* epoll has no operation in flight: the exit's close of each descriptor is all */
}

void backend_share_listeners(void)
{
	backend_epoll.listener_events = EPOLLIN | EPOLLEXCLUSIVE;
}

long backend_watch_listener(uint32_t index, int fd, int on)
{
	struct epoll_event ev = {.events = backend_epoll.listener_events,
				 .data = LISTENER_TOKEN_OF(index)};
	return COUNTED(sys_epoll_ctl(backend_epoll.fd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, fd, &ev));
}

long backend_watch_signals(int fd)
{
	struct epoll_event ev = {.events = EPOLLIN, .data = SIGNAL_TOKEN};
	return COUNTED(sys_epoll_ctl(backend_epoll.fd, EPOLL_CTL_ADD, fd, &ev));
}

long backend_wait(backend_event *events, int timeout_ms)
{
	return COUNTED(sys_epoll_wait(backend_epoll.fd, events, BACKEND_EVENTS_MAX, timeout_ms));
}

/* Contract in backend_epoll.h. Registration is out of line: at most once a connection. */
long backend_epoll_wait_edge(struct conn_io *io)
{
	if (!io->watched) {
		struct epoll_event ev = {
			.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
			.data = io->token,
		};
		long r = COUNTED(sys_epoll_ctl(backend_epoll.fd, EPOLL_CTL_ADD, io->fd, &ev));
		if (sys_is_error(r))
			return r == IO_PENDING ? -ENOMEM : r; /* never mistaken for waiting */
		io->watched = 1;
	}
	return IO_PENDING;
}

