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
#include "common/base/sys_table.h"

APOLLOD_EXTERN_C_BEGIN

/* True when a raw syscall result encodes -errno (musl's rule: r > -4096UL). */
static inline int sys_is_error(long r)
{
	return (unsigned long)r > -4096UL;
}

/* ssize_t read(int fd, void *buf, size_t count); */
static inline long sys_read(int fd, void *buf, size_t count)
{
	return syscall3(SYS_NR(read), fd, (long)buf, (long)count);
}

/* ssize_t write(int fd, const void *buf, size_t count); */
static inline long sys_write(int fd, const void *buf, size_t count)
{
	return syscall3(SYS_NR(write), fd, (long)buf, (long)count);
}

/* ssize_t writev(int fd, const struct iovec *iov, int iovcnt); */
static inline long sys_writev(int fd, const struct k_iovec *iov, int iovcnt)
{
	return syscall3(SYS_NR(writev), fd, (long)iov, iovcnt);
}

/* int close(int fd); */
static inline long sys_close(int fd)
{
	return syscall1(SYS_NR(close), fd);
}

/* int socket(int domain, int type, int protocol); */
static inline long sys_socket(int domain, int type, int protocol)
{
	return syscall3(SYS_NR(socket), domain, type, protocol);
}

/* int setsockopt(int fd, int level, int optname, const void *optval, socklen_t optlen); */
static inline long sys_setsockopt(int fd, int level, int optname, const void *optval,
				  uint32_t optlen)
{
	return syscall5(SYS_NR(setsockopt), fd, level, optname, (long)optval, optlen);
}

/* int bind(int fd, const struct sockaddr *addr, socklen_t addrlen); */
static inline long sys_bind(int fd, const union k_sockaddr *addr)
{
	return syscall3(SYS_NR(bind), fd, (long)addr, k_sockaddr_len(addr));
}

/* int listen(int fd, int backlog); */
static inline long sys_listen(int fd, int backlog)
{
	return syscall2(SYS_NR(listen), fd, backlog);
}

/* int getsockname(int fd, struct sockaddr *addr, socklen_t *addrlen); */
static inline long sys_getsockname(int fd, union k_sockaddr *addr, uint32_t *addrlen)
{
	return syscall3(SYS_NR(getsockname), fd, (long)addr, (long)addrlen);
}

/* int accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags);
 * The peer address is not wanted, so both pointers are NULL. */
static inline long sys_accept4(int fd, int flags)
{
	return syscall4(SYS_NR(accept4), fd, 0, 0, flags);
}

/* ssize_t sendto(int fd, const void *buf, size_t len, int flags, NULL, 0) == send(2). */
static inline long sys_send(int fd, const void *buf, size_t len, int flags)
{
	return syscall6(SYS_NR(sendto), fd, (long)buf, (long)len, flags, 0, 0);
}

/* ssize_t recvfrom(int fd, void *buf, size_t len, int flags, NULL, NULL) == recv(2). */
static inline long sys_recv(int fd, void *buf, size_t len, int flags)
{
	return syscall6(SYS_NR(recvfrom), fd, (long)buf, (long)len, flags, 0, 0);
}

/* ssize_t sendmsg(int fd, const struct msghdr *msg, int flags); */
static inline long sys_sendmsg(int fd, const struct k_msghdr *msg, int flags)
{
	return syscall3(SYS_NR(sendmsg), fd, (long)msg, flags);
}

/* ssize_t sendfile(int out_fd, int in_fd, off_t *offset, size_t count); 64-bit offsets
 * on both architectures (x86_64's sendfile is sendfile64, aarch64 has only that). */
static inline long sys_sendfile(int out_fd, int in_fd, int64_t *offset, size_t count)
{
	return syscall4(SYS_NR(sendfile), out_fd, in_fd, (long)offset, (long)count);
}

/* ssize_t vmsplice(int fd, const struct iovec *iov, size_t nr_segs, unsigned flags); */
static inline long sys_vmsplice(int fd, const struct k_iovec *iov, size_t count, unsigned flags)
{
	return syscall4(SYS_NR(vmsplice), fd, (long)iov, (long)count, (long)flags);
}

/* ssize_t splice(int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len,
 * unsigned flags); */
static inline long sys_splice(int in_fd, int64_t *in_off, int out_fd, int64_t *out_off,
			      size_t len, unsigned flags)
{
	return syscall6(SYS_NR(splice), in_fd, (long)in_off, out_fd, (long)out_off, (long)len,
			(long)flags);
}

/* int pipe2(int fds[2], int flags); */
static inline long sys_pipe2(int fds[2], int flags)
{
	return syscall2(SYS_NR(pipe2), (long)fds, flags);
}

/* off_t lseek(int fd, off_t offset, int whence); 64-bit on both architectures. */
static inline long sys_lseek(int fd, int64_t offset, int whence)
{
	return syscall3(SYS_NR(lseek), fd, (long)offset, whence);
}

/* int memfd_create(const char *name, unsigned int flags); (Linux 3.17) */
static inline long sys_memfd_create(const char *name, unsigned flags)
{
	return syscall2(SYS_NR(memfd_create), (long)name, flags);
}

/* int ftruncate(int fd, off_t length); */
static inline long sys_ftruncate(int fd, uint64_t length)
{
	return syscall2(SYS_NR(ftruncate), fd, (long)length);
}

/* int close_range(unsigned first, unsigned last, unsigned flags); (Linux 5.9) */
static inline long sys_close_range(unsigned first, unsigned last, unsigned flags)
{
	return syscall3(SYS_NR(close_range), first, last, flags);
}

/* int fallocate(int fd, int mode, off_t offset, off_t len); 64-bit offsets on both
 * architectures. */
static inline long sys_fallocate(int fd, int mode, uint64_t offset, uint64_t len)
{
	return syscall4(SYS_NR(fallocate), fd, mode, (long)offset, (long)len);
}

/* int shutdown(int fd, int how); */
static inline long sys_shutdown(int fd, int how)
{
	return syscall2(SYS_NR(shutdown), fd, how);
}

/* int epoll_create1(int flags); */
static inline long sys_epoll_create1(int flags)
{
	return syscall1(SYS_NR(epoll_create1), flags);
}

/* int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event); */
static inline long sys_epoll_ctl(int epfd, int op, int fd, struct epoll_event *event)
{
	return syscall4(SYS_NR(epoll_ctl), epfd, op, fd, (long)event);
}

/* int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout);
 * On an arch without it, epoll_pwait with no signal mask (ARCH_NR_EPOLL_WAIT): the two
 * trailing zeros are that mask and its size, which epoll_wait ignores. */
static inline long sys_epoll_wait(int epfd, struct epoll_event *events, int maxevents,
				  int timeout_ms)
{
	return syscall6(SYS_NR(epoll_wait), epfd, (long)events, maxevents, timeout_ms, 0, 0);
}

/* int clock_gettime(clockid_t clockid, struct timespec *tp); */
static inline long sys_clock_gettime(int clockid, struct k_timespec *tp)
{
	return syscall2(SYS_NR(clock_gettime), clockid, (long)tp);
}

/* int rt_sigaction(int sig, const struct sigaction *act, struct sigaction *oact,
 *                  size_t sigsetsize); */
static inline long sys_rt_sigaction(int sig, const struct k_sigaction *act,
				    struct k_sigaction *oact)
{
	return syscall4(SYS_NR(rt_sigaction), sig, (long)act, (long)oact, K_SIGSET_SIZE);
}

/* int prlimit64(pid_t pid, int resource, const struct rlimit64 *new, struct rlimit64 *old); */
static inline long sys_prlimit64(int pid, int resource, const struct k_rlimit *new_limit,
				 struct k_rlimit *old_limit)
{
	return syscall4(SYS_NR(prlimit64), pid, resource, (long)new_limit, (long)old_limit);
}

/* int openat(int dirfd, const char *pathname, int flags, mode_t mode); */
static inline long sys_openat(int dirfd, const char *path, int flags)
{
	return syscall4(SYS_NR(openat), dirfd, (long)path, flags, 0);
}

/* int openat(int dirfd, const char *pathname, int flags, mode_t mode); with O_CREAT. */
static inline long sys_openat_mode(int dirfd, const char *path, int flags, unsigned mode)
{
	return syscall4(SYS_NR(openat), dirfd, (long)path, flags, mode);
}

/* long openat2(int dirfd, const char *pathname, struct open_how *how, size_t size);
 * (Linux 5.6; how is struct open_how of <linux/openat2.h>.) -ENOSYS on older kernels
 * and under emulators that lack it (qemu-user before 9.1). */
static inline long sys_openat2(int dirfd, const char *path, const void *how, size_t size)
{
	return syscall4(SYS_NR(openat2), dirfd, (long)path, (long)how, (long)size);
}

/* int fcntl(int fd, int cmd, long arg): the F_GETFL/F_SETFL/F_SETFD forms. */
static inline long sys_fcntl(int fd, int cmd, long arg)
{
	return syscall3(SYS_NR(fcntl), fd, cmd, arg);
}

/* int getpeername(int fd, struct sockaddr *addr, socklen_t *addrlen); */
static inline long sys_getpeername(int fd, void *addr, uint32_t *addrlen)
{
	return syscall3(SYS_NR(getpeername), fd, (long)addr, (long)addrlen);
}

/* ssize_t getdents64(int fd, void *dirp, size_t count); */
static inline long sys_getdents64(int fd, void *dirp, size_t count)
{
	return syscall3(SYS_NR(getdents64), fd, (long)dirp, (long)count);
}

/* int statx(int dirfd, const char *pathname, int flags, unsigned int mask,
 *           struct statx *statxbuf);  -- the same layout on every architecture */
static inline long sys_statx(int dirfd, const char *path, int flags, unsigned mask, void *buf)
{
	return syscall5(SYS_NR(statx), dirfd, (long)path, flags, mask, (long)buf);
}

/* void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset);
 * Returns the address, or -errno (addresses never fall in [-4095, -1]). */
static inline long sys_mmap(void *addr, size_t length, int prot, int flags, int fd, long off)
{
	return syscall6(SYS_NR(mmap), (long)addr, (long)length, prot, flags, fd, off);
}

/* int munmap(void *addr, size_t length);
 * Returns 0, or -errno. */
static inline long sys_munmap(void *addr, size_t length)
{
	return syscall2(SYS_NR(munmap), (long)addr, (long)length);
}

/* int madvise(void *addr, size_t length, int advice);
 * Returns 0, or -errno. */
static inline long sys_madvise(void *addr, size_t length, int advice)
{
	return syscall3(SYS_NR(madvise), (long)addr, (long)length, advice);
}

/* pid_t fork(void), as clone(SIGCHLD, 0, ...): the generic form every architecture has
 * (aarch64 has no fork(2)). With every other argument 0, the architectures' different
 * orders of clone's tid and tls arguments do not matter. Returns 0 in the child, the
 * child's pid in the parent, or -errno. */
static inline long sys_fork(void)
{
	return syscall5(SYS_NR(clone), K_SIGCHLD, 0, 0, 0, 0);
}

/* fork with CLONE_VFORK: the child gets its own copy of memory as with fork, and the
 * caller is suspended until the child calls execve or exits (clone(2)). Returns as
 * sys_fork. */
static inline long sys_fork_until_exec(void)
{
	return syscall5(SYS_NR(clone), K_CLONE_VFORK | K_SIGCHLD, 0, 0, 0, 0);
}

/* int dup3(int oldfd, int newfd, int flags); (aarch64 has no dup2; old == new is EINVAL) */
static inline long sys_dup3(int oldfd, int newfd, int flags)
{
	return syscall3(SYS_NR(dup3), oldfd, newfd, flags);
}

/* int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
 *              int flags); (Linux 3.19) returns only on failure, -errno */
static inline long sys_execveat(int dirfd, const char *path, char *const *argv,
				char *const *envp, int flags)
{
	return syscall5(SYS_NR(execveat), dirfd, (long)path, (long)argv, (long)envp, flags);
}

/* ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t size); the link's
 * bytes, not NUL-terminated; cut to size when longer */
static inline long sys_readlinkat(int dirfd, const char *path, char *buf, size_t size)
{
	return syscall4(SYS_NR(readlinkat), dirfd, (long)path, (long)buf, (long)size);
}

/* int execve(const char *path, char *const argv[], char *const envp[]); returns only on
 * failure (-errno). */
static inline long sys_execve(const char *path, char *const *argv, char *const *envp)
{
	return syscall3(SYS_NR(execve), (long)path, (long)argv, (long)envp);
}

/* pid_t wait4(pid_t pid, int *wstatus, int options, struct rusage *rusage); */
static inline long sys_wait4(int pid, int *status, int options)
{
	return syscall4(SYS_NR(wait4), pid, (long)status, options, 0);
}

/* int setpgid(pid_t pid, pid_t pgid); */
static inline long sys_setpgid(int pid, int pgid)
{
	return syscall2(SYS_NR(setpgid), pid, pgid);
}

/* pid_t getppid(void); cannot fail. */
static inline long sys_getppid(void)
{
	return syscall0(SYS_NR(getppid));
}

/* int socketpair(int domain, int type, int protocol, int sv[2]); */
static inline long sys_socketpair(int domain, int type, int protocol, int fds[2])
{
	return syscall4(SYS_NR(socketpair), domain, type, protocol, (long)fds);
}

/* ssize_t recvmsg(int sockfd, struct msghdr *msg, int flags); */
static inline long sys_recvmsg(int fd, struct k_msghdr *msg, int flags)
{
	return syscall3(SYS_NR(recvmsg), fd, (long)msg, flags);
}

/* pid_t getpid(void); cannot fail. */
static inline long sys_getpid(void)
{
	return syscall0(SYS_NR(getpid));
}


/* int getsockopt(int fd, int level, int optname, void *optval, socklen_t *optlen); */
static inline long sys_getsockopt(int fd, int level, int optname, void *optval,
				  uint32_t *optlen)
{
	return syscall5(SYS_NR(getsockopt), fd, level, optname, (long)optval, (long)optlen);
}

/* int kill(pid_t pid, int sig); */
static inline long sys_kill(int pid, int sig)
{
	return syscall2(SYS_NR(kill), pid, sig);
}

/* int rt_sigprocmask(int how, const sigset_t *set, sigset_t *oldset, size_t sigsetsize); */
static inline long sys_rt_sigprocmask(int how, const uint64_t *set, uint64_t *old)
{
	return syscall4(SYS_NR(rt_sigprocmask), how, (long)set, (long)old, K_SIGSET_SIZE);
}

/* int signalfd4(int fd, const sigset_t *mask, size_t sizemask, int flags); */
static inline long sys_signalfd4(int fd, const uint64_t *mask, int flags)
{
	return syscall4(SYS_NR(signalfd4), fd, (long)mask, K_SIGSET_SIZE, flags);
}

/* int sched_getaffinity(pid_t pid, size_t cpusetsize, cpu_set_t *mask);
 * The raw call returns the bytes of mask it wrote, or -errno. */
static inline long sys_sched_getaffinity(int pid, size_t size, void *mask)
{
	return syscall3(SYS_NR(sched_getaffinity), pid, (long)size, (long)mask);
}

/* int io_uring_setup(u32 entries, struct io_uring_params *p); (Linux 5.1) */
static inline long sys_io_uring_setup(uint32_t entries, void *params)
{
	return syscall2(SYS_NR(io_uring_setup), entries, (long)params);
}

/* int io_uring_enter2(unsigned int fd, unsigned int to_submit, unsigned int min_complete,
 *                     unsigned int flags, void *arg, size_t argsz); (Linux 5.1; arg and
 * argsz with IORING_ENTER_EXT_ARG, 5.11) */
static inline long sys_io_uring_enter(unsigned fd, unsigned to_submit, unsigned min_complete,
				      unsigned flags, const void *arg, size_t argsz)
{
	return syscall6(SYS_NR(io_uring_enter), fd, to_submit, min_complete, flags, (long)arg,
			(long)argsz);
}

/* int io_uring_register(unsigned int fd, unsigned int opcode, void *arg,
 *                       unsigned int nr_args); (Linux 5.1) */
static inline long sys_io_uring_register(unsigned fd, unsigned opcode, void *arg, unsigned nr_args)
{
	return syscall4(SYS_NR(io_uring_register), fd, opcode, (long)arg, nr_args);
}

/* int inotify_init1(int flags); */
static inline long sys_inotify_init1(int flags)
{
	return syscall1(SYS_NR(inotify_init1), flags);
}

/* int inotify_add_watch(int fd, const char *pathname, uint32_t mask); */
static inline long sys_inotify_add_watch(int fd, const char *path, uint32_t mask)
{
	return syscall3(SYS_NR(inotify_add_watch), fd, (long)path, (long)mask);
}

/* int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *tmo_p,
 *           const sigset_t *sigmask); with no mask: the blocked set stays as it is. */
static inline long sys_ppoll(struct k_pollfd *fds, uint32_t nfds, const struct k_timespec *timeout)
{
	return syscall5(SYS_NR(ppoll), (long)fds, nfds, (long)timeout, 0, K_SIGSET_SIZE);
}

/* uid_t getuid(void); gid_t getgid(void); cannot fail. */
static inline long sys_getuid(void)
{
	return syscall0(SYS_NR(getuid));
}

static inline long sys_getgid(void)
{
	return syscall0(SYS_NR(getgid));
}

/* int setgroups(size_t size, const gid_t *list); the raw call (glibc's wrapper sets
 * every thread's; we have one). */
static inline long sys_setgroups(size_t size, const uint32_t *list)
{
	return syscall2(SYS_NR(setgroups), (long)size, (long)list);
}

/* int setgid(gid_t gid); as root sets the real, effective and saved gid. */
static inline long sys_setgid(uint32_t gid)
{
	return syscall1(SYS_NR(setgid), gid);
}

/* int setuid(uid_t uid); as root sets the real, effective and saved uid. */
static inline long sys_setuid(uint32_t uid)
{
	return syscall1(SYS_NR(setuid), uid);
}

/* int arch_prctl(int code, unsigned long addr); x86_64 only (ARCH_GUARD_IN_TLS). */
static inline long sys_arch_prctl(int code, const void *addr)
{
	return syscall2(SYS_NR(arch_prctl), code, (long)addr);
}

/* int prctl(int option, unsigned long arg2, arg3, arg4, arg5); */
static inline long sys_prctl(int option, unsigned long arg2, unsigned long arg3)
{
	return syscall5(SYS_NR(prctl), option, (long)arg2, (long)arg3, 0, 0);
}

/* int landlock_create_ruleset(const struct landlock_ruleset_attr *attr, size_t size,
 *                             uint32_t flags); (Linux 5.13) */
static inline long sys_landlock_create_ruleset(const void *attr, size_t size, uint32_t flags)
{
	return syscall3(SYS_NR(landlock_create_ruleset), (long)attr, (long)size, (long)flags);
}

/* int landlock_add_rule(int ruleset_fd, enum landlock_rule_type rule_type,
 *                       const void *rule_attr, uint32_t flags); */
static inline long sys_landlock_add_rule(int ruleset_fd, int rule_type, const void *rule_attr)
{
	return syscall4(SYS_NR(landlock_add_rule), ruleset_fd, rule_type, (long)rule_attr, 0);
}

/* int landlock_restrict_self(int ruleset_fd, uint32_t flags); */
static inline long sys_landlock_restrict_self(int ruleset_fd)
{
	return syscall2(SYS_NR(landlock_restrict_self), ruleset_fd, 0);
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
		syscall1(SYS_NR(exit_group), status);
}

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_SYS_H */
