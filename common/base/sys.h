/* Typed system-call wrappers over the arch layer. Each returns the kernel's result
 * unchanged: a non-negative value on success, -errno (in [-4095, -1]) on failure.
 * sys_is_error() is the one place that decides which is which. There is no errno.
 * Every wrapper is static inline, so the ones a tier does not call cost nothing. */
#ifndef APOLLOD_COMMON_SYS_H
#define APOLLOD_COMMON_SYS_H

#include <stddef.h>
#include <stdint.h>

#include <linux/errno.h>      /* E* numbers */
#include <linux/eventpoll.h>  /* struct epoll_event, EPOLL* */
#include <asm/socket.h>       /* SOL_SOCKET, SO_* */

#include "common/arch/arch.h"
#include "common/base/kernel_consts.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* True when a raw syscall result encodes -errno (musl's rule: r > -4096UL). */
static inline int sys_is_error(long r)
{
	return (unsigned long)r > -4096UL;
}

/* ssize_t read(int fd, void *buf, size_t count); */
static inline long sys_read(int fd, void *buf, size_t count)
{
	return syscall3(__NR_read, fd, (long)buf, (long)count);
}

/* ssize_t write(int fd, const void *buf, size_t count); */
static inline long sys_write(int fd, const void *buf, size_t count)
{
	return syscall3(__NR_write, fd, (long)buf, (long)count);
}

/* ssize_t writev(int fd, const struct iovec *iov, int iovcnt); */
static inline long sys_writev(int fd, const struct k_iovec *iov, int iovcnt)
{
	return syscall3(__NR_writev, fd, (long)iov, iovcnt);
}

/* int close(int fd); */
static inline long sys_close(int fd)
{
	return syscall1(__NR_close, fd);
}

/* int socket(int domain, int type, int protocol); */
static inline long sys_socket(int domain, int type, int protocol)
{
	return syscall3(__NR_socket, domain, type, protocol);
}

/* int setsockopt(int fd, int level, int optname, const void *optval, socklen_t optlen); */
static inline long sys_setsockopt(int fd, int level, int optname, const void *optval,
				  uint32_t optlen)
{
	return syscall5(__NR_setsockopt, fd, level, optname, (long)optval, optlen);
}

/* int bind(int fd, const struct sockaddr *addr, socklen_t addrlen); */
static inline long sys_bind(int fd, const union k_sockaddr *addr)
{
	return syscall3(__NR_bind, fd, (long)addr, k_sockaddr_len(addr));
}

/* int listen(int fd, int backlog); */
static inline long sys_listen(int fd, int backlog)
{
	return syscall2(__NR_listen, fd, backlog);
}

/* int getsockname(int fd, struct sockaddr *addr, socklen_t *addrlen); */
static inline long sys_getsockname(int fd, union k_sockaddr *addr, uint32_t *addrlen)
{
	return syscall3(__NR_getsockname, fd, (long)addr, (long)addrlen);
}

/* int accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags);
 * The peer address is not wanted, so both pointers are NULL. */
static inline long sys_accept4(int fd, int flags)
{
	return syscall4(__NR_accept4, fd, 0, 0, flags);
}

/* ssize_t sendto(int fd, const void *buf, size_t len, int flags, NULL, 0) == send(2). */
static inline long sys_send(int fd, const void *buf, size_t len, int flags)
{
	return syscall6(__NR_sendto, fd, (long)buf, (long)len, flags, 0, 0);
}

/* ssize_t sendmsg(int fd, const struct msghdr *msg, int flags); */
static inline long sys_sendmsg(int fd, const struct k_msghdr *msg, int flags)
{
	return syscall3(__NR_sendmsg, fd, (long)msg, flags);
}

/* ssize_t sendfile(int out_fd, int in_fd, off_t *offset, size_t count); 64-bit offsets
 * on both architectures (x86_64's sendfile is sendfile64, aarch64 has only that). */
static inline long sys_sendfile(int out_fd, int in_fd, int64_t *offset, size_t count)
{
	return syscall4(__NR_sendfile, out_fd, in_fd, (long)offset, (long)count);
}

/* int memfd_create(const char *name, unsigned int flags); (Linux 3.17) */
static inline long sys_memfd_create(const char *name, unsigned flags)
{
	return syscall2(__NR_memfd_create, (long)name, flags);
}

/* int ftruncate(int fd, off_t length); */
static inline long sys_ftruncate(int fd, uint64_t length)
{
	return syscall2(__NR_ftruncate, fd, (long)length);
}

/* int shutdown(int fd, int how); */
static inline long sys_shutdown(int fd, int how)
{
	return syscall2(__NR_shutdown, fd, how);
}

/* int epoll_create1(int flags); */
static inline long sys_epoll_create1(int flags)
{
	return syscall1(__NR_epoll_create1, flags);
}

/* int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event); */
static inline long sys_epoll_ctl(int epfd, int op, int fd, struct epoll_event *event)
{
	return syscall4(__NR_epoll_ctl, epfd, op, fd, (long)event);
}

/* int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout);
 * An arch without the syscall defines arch_epoll_wait (common/arch/arch.h). */
static inline long sys_epoll_wait(int epfd, struct epoll_event *events, int maxevents,
				  int timeout_ms)
{
#ifdef arch_epoll_wait
	return arch_epoll_wait(epfd, events, maxevents, timeout_ms);
#else
	return syscall4(__NR_epoll_wait, epfd, (long)events, maxevents, timeout_ms);
#endif
}

/* int clock_gettime(clockid_t clockid, struct timespec *tp); */
static inline long sys_clock_gettime(int clockid, struct k_timespec *tp)
{
	return syscall2(__NR_clock_gettime, clockid, (long)tp);
}

/* int rt_sigaction(int sig, const struct sigaction *act, struct sigaction *oact,
 *                  size_t sigsetsize); */
static inline long sys_rt_sigaction(int sig, const struct k_sigaction *act,
				    struct k_sigaction *oact)
{
	return syscall4(__NR_rt_sigaction, sig, (long)act, (long)oact, K_SIGSET_SIZE);
}

/* int prlimit64(pid_t pid, int resource, const struct rlimit64 *new, struct rlimit64 *old); */
static inline long sys_prlimit64(int pid, int resource, const struct k_rlimit *new_limit,
				 struct k_rlimit *old_limit)
{
	return syscall4(__NR_prlimit64, pid, resource, (long)new_limit, (long)old_limit);
}

/* int openat(int dirfd, const char *pathname, int flags, mode_t mode); */
static inline long sys_openat(int dirfd, const char *path, int flags)
{
	return syscall4(__NR_openat, dirfd, (long)path, flags, 0);
}

/* int openat(int dirfd, const char *pathname, int flags, mode_t mode); with O_CREAT. */
static inline long sys_openat_mode(int dirfd, const char *path, int flags, unsigned mode)
{
	return syscall4(__NR_openat, dirfd, (long)path, flags, mode);
}

/* long openat2(int dirfd, const char *pathname, struct open_how *how, size_t size);
 * (Linux 5.6; how is struct open_how of <linux/openat2.h>.) -ENOSYS on older kernels
 * and under emulators that lack it (qemu-user before 9.1). */
static inline long sys_openat2(int dirfd, const char *path, const void *how, size_t size)
{
	return syscall4(__NR_openat2, dirfd, (long)path, (long)how, (long)size);
}

/* int fcntl(int fd, int cmd, long arg): the F_GETFL/F_SETFL/F_SETFD forms. */
static inline long sys_fcntl(int fd, int cmd, long arg)
{
	return syscall3(__NR_fcntl, fd, cmd, arg);
}

/* int getpeername(int fd, struct sockaddr *addr, socklen_t *addrlen); */
static inline long sys_getpeername(int fd, void *addr, uint32_t *addrlen)
{
	return syscall3(__NR_getpeername, fd, (long)addr, (long)addrlen);
}

/* ssize_t getdents64(int fd, void *dirp, size_t count); */
static inline long sys_getdents64(int fd, void *dirp, size_t count)
{
	return syscall3(__NR_getdents64, fd, (long)dirp, (long)count);
}

/* int statx(int dirfd, const char *pathname, int flags, unsigned int mask,
 *           struct statx *statxbuf);  -- the same layout on every architecture */
static inline long sys_statx(int dirfd, const char *path, int flags, unsigned mask, void *buf)
{
	return syscall5(__NR_statx, dirfd, (long)path, flags, mask, (long)buf);
}

/* void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset);
 * Returns the address, or -errno (addresses never fall in [-4095, -1]). */
static inline long sys_mmap(void *addr, size_t length, int prot, int flags, int fd, long off)
{
	return syscall6(__NR_mmap, (long)addr, (long)length, prot, flags, fd, off);
}

/* int munmap(void *addr, size_t length);
 * Returns 0, or -errno. */
static inline long sys_munmap(void *addr, size_t length)
{
	return syscall2(__NR_munmap, (long)addr, (long)length);
}

/* pid_t fork(void), as clone(SIGCHLD, 0, ...): the generic form every architecture has
 * (aarch64 has no fork(2)). With every other argument 0, the architectures' different
 * orders of clone's tid and tls arguments do not matter. Returns 0 in the child, the
 * child's pid in the parent, or -errno. */
static inline long sys_fork(void)
{
	return syscall5(__NR_clone, K_SIGCHLD, 0, 0, 0, 0);
}

/* fork with CLONE_VFORK: the child gets its own copy of memory as with fork, and the
 * caller is suspended until the child calls execve or exits (clone(2)). Returns as
 * sys_fork. */
static inline long sys_fork_until_exec(void)
{
	return syscall5(__NR_clone, K_CLONE_VFORK | K_SIGCHLD, 0, 0, 0, 0);
}

/* int pipe2(int pipefd[2], int flags); */
static inline long sys_pipe2(int fds[2], int flags)
{
	return syscall2(__NR_pipe2, (long)fds, flags);
}

/* int dup3(int oldfd, int newfd, int flags); (aarch64 has no dup2; old == new is EINVAL) */
static inline long sys_dup3(int oldfd, int newfd, int flags)
{
	return syscall3(__NR_dup3, oldfd, newfd, flags);
}

/* int execve(const char *path, char *const argv[], char *const envp[]); returns only on
 * failure (-errno). */
static inline long sys_execve(const char *path, char *const *argv, char *const *envp)
{
	return syscall3(__NR_execve, (long)path, (long)argv, (long)envp);
}

/* pid_t wait4(pid_t pid, int *wstatus, int options, struct rusage *rusage); */
static inline long sys_wait4(int pid, int *status, int options)
{
	return syscall4(__NR_wait4, pid, (long)status, options, 0);
}

/* int setpgid(pid_t pid, pid_t pgid); */
static inline long sys_setpgid(int pid, int pgid)
{
	return syscall2(__NR_setpgid, pid, pgid);
}

/* pid_t getppid(void); cannot fail. */
static inline long sys_getppid(void)
{
	return syscall0(__NR_getppid);
}

/* int prctl(int option, unsigned long arg2, ...); the two-argument options only. */
static inline long sys_prctl(int option, unsigned long arg2)
{
	return syscall5(__NR_prctl, option, (long)arg2, 0, 0, 0);
}

/* int socketpair(int domain, int type, int protocol, int sv[2]); */
static inline long sys_socketpair(int domain, int type, int protocol, int fds[2])
{
	return syscall4(__NR_socketpair, domain, type, protocol, (long)fds);
}

/* ssize_t recvmsg(int sockfd, struct msghdr *msg, int flags); */
static inline long sys_recvmsg(int fd, struct k_msghdr *msg, int flags)
{
	return syscall3(__NR_recvmsg, fd, (long)msg, flags);
}

/* pid_t getpid(void); cannot fail. */
static inline long sys_getpid(void)
{
	return syscall0(__NR_getpid);
}


/* int getsockopt(int fd, int level, int optname, void *optval, socklen_t *optlen); */
static inline long sys_getsockopt(int fd, int level, int optname, void *optval,
				  uint32_t *optlen)
{
	return syscall5(__NR_getsockopt, fd, level, optname, (long)optval, (long)optlen);
}

/* int kill(pid_t pid, int sig); */
static inline long sys_kill(int pid, int sig)
{
	return syscall2(__NR_kill, pid, sig);
}

/* int rt_sigprocmask(int how, const sigset_t *set, sigset_t *oldset, size_t sigsetsize); */
static inline long sys_rt_sigprocmask(int how, const uint64_t *set, uint64_t *old)
{
	return syscall4(__NR_rt_sigprocmask, how, (long)set, (long)old, K_SIGSET_SIZE);
}

/* int signalfd4(int fd, const sigset_t *mask, size_t sizemask, int flags); */
static inline long sys_signalfd4(int fd, const uint64_t *mask, int flags)
{
	return syscall4(__NR_signalfd4, fd, (long)mask, K_SIGSET_SIZE, flags);
}

/* int sched_getaffinity(pid_t pid, size_t cpusetsize, cpu_set_t *mask);
 * The raw call returns the bytes of mask it wrote, or -errno. */
static inline long sys_sched_getaffinity(int pid, size_t size, void *mask)
{
	return syscall3(__NR_sched_getaffinity, pid, (long)size, (long)mask);
}

/* int io_uring_setup(u32 entries, struct io_uring_params *p); (Linux 5.1) */
static inline long sys_io_uring_setup(uint32_t entries, void *params)
{
	return syscall2(__NR_io_uring_setup, entries, (long)params);
}

/* int io_uring_enter2(unsigned int fd, unsigned int to_submit, unsigned int min_complete,
 *                     unsigned int flags, void *arg, size_t argsz); (Linux 5.1; arg and
 * argsz with IORING_ENTER_EXT_ARG, 5.11) */
static inline long sys_io_uring_enter(unsigned fd, unsigned to_submit, unsigned min_complete,
				      unsigned flags, const void *arg, size_t argsz)
{
	return syscall6(__NR_io_uring_enter, fd, to_submit, min_complete, flags, (long)arg,
			(long)argsz);
}

/* int io_uring_register(unsigned int fd, unsigned int opcode, void *arg,
 *                       unsigned int nr_args); (Linux 5.1) */
static inline long sys_io_uring_register(unsigned fd, unsigned opcode, void *arg, unsigned nr_args)
{
	return syscall4(__NR_io_uring_register, fd, opcode, (long)arg, nr_args);
}

/* int inotify_init1(int flags); */
static inline long sys_inotify_init1(int flags)
{
	return syscall1(__NR_inotify_init1, flags);
}

/* int inotify_add_watch(int fd, const char *pathname, uint32_t mask); */
static inline long sys_inotify_add_watch(int fd, const char *path, uint32_t mask)
{
	return syscall3(__NR_inotify_add_watch, fd, (long)path, (long)mask);
}

/* int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *tmo_p,
 *           const sigset_t *sigmask); with no mask: the blocked set stays as it is. */
static inline long sys_ppoll(struct k_pollfd *fds, uint32_t nfds, const struct k_timespec *timeout)
{
	return syscall5(__NR_ppoll, (long)fds, nfds, (long)timeout, 0, K_SIGSET_SIZE);
}

/* Not a syscall of its own: read(2) on fd into buf until size bytes came or end of file,
 * a signal's EINTR retried. Returns the bytes read (fewer than size only at end of file),
 * or the first other -errno. The file cache and --mime-types read whole files with it. */
static inline long sys_read_full(int fd, char *buf, uint64_t size)
{
	uint64_t got = 0;
	while (got < size) {
		long n = sys_read(fd, buf + got, size - got);
		if (n == -EINTR)
			continue;
		if (sys_is_error(n))
			return n;
		if (n == 0)
			break;
		got += (uint64_t)n;
	}
	return (long)got;
}

/* void exit_group(int status); -- never returns. */
static inline __attribute__((noreturn)) void sys_exit_group(int status)
{
	for (;;)
		syscall1(__NR_exit_group, status);
}

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_SYS_H */
