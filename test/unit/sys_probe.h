/* The syscall wrappers of common/base/sys.h as function pointers, so the test that compares
 * them with the host libc never includes the kernel UAPI headers that sys.h needs and
 * glibc's in one translation unit (<linux/eventpoll.h> pulls in <asm/fcntl.h>, whose
 * struct flock and O_* clash with <fcntl.h>). Only plain types cross this header. */
#ifndef APOLLOD_TEST_UNIT_SYS_PROBE_H
#define APOLLOD_TEST_UNIT_SYS_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/kernel_consts.h"

/* Each member is the common/base/sys.h wrapper of the same name (sys_<member>). */
struct sys_wrappers {
	int (*is_error)(long r);
	long (*write)(int fd, const void *buf, size_t count);
	long (*close)(int fd);
	long (*socket)(int domain, int type, int protocol);
	long (*getsockname)(int fd, union k_sockaddr *addr, uint32_t *addrlen);
	long (*accept4)(int fd, int flags);
	long (*send)(int fd, const void *buf, size_t len, int flags);
	long (*clock_gettime)(int clockid, struct k_timespec *tp);
	long (*prlimit64)(int pid, int resource, const struct k_rlimit *new_limit,
			  struct k_rlimit *old_limit);
	long (*inotify_init1)(int flags);
	long (*inotify_add_watch)(int fd, const char *path, uint32_t mask);
	long (*ppoll)(struct k_pollfd *fds, uint32_t nfds, const struct k_timespec *timeout);
};

extern const struct sys_wrappers sys_wrappers;

#endif /* APOLLOD_TEST_UNIT_SYS_PROBE_H */
