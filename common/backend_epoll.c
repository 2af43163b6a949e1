/* The epoll event backend (see event_backend.h). */
#include "common/event_backend.h"

static int epoll_fd = -1;

long backend_open(void)
{
	long fd = sys_epoll_create1(EPOLL_CLOEXEC);
	if (sys_is_error(fd))
		return fd;
	epoll_fd = (int)fd;
	return 0;
}

long backend_watch_listener(int fd, uint64_t token, int on)
{
	struct epoll_event ev = {.events = EPOLLIN, .data = token};
	return sys_epoll_ctl(epoll_fd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, fd, &ev);
}

long backend_watch_conn(int fd, uint64_t token)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
		.data = token,
	};
	return sys_epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev);
}

long backend_wait(backend_event *events, int timeout_ms)
{
	return sys_epoll_wait(epoll_fd, events, BACKEND_EVENTS_MAX, timeout_ms);
}
