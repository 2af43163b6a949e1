/* The kernel constants and structure layouts of common/base/kernel_consts.h paired with the
 * host libc's names for the same thing: X(apollod's expression, libc's expression).
 * kernel_consts_probe.cc evaluates the first column with only common/ headers included,
 * kernel_consts_test.cc the second with only libc headers, and compares. */
#ifndef APOLLOD_TEST_UNIT_KERNEL_FACTS_H
#define APOLLOD_TEST_UNIT_KERNEL_FACTS_H

#include <stddef.h>

#define FOR_EACH_KERNEL_FACT(X)                                                         \
	X(K_AF_INET, AF_INET)                                                           \
	X(K_SOCK_STREAM, SOCK_STREAM)                                                   \
	X(K_SOCK_NONBLOCK, SOCK_NONBLOCK)                                               \
	X(K_SOCK_CLOEXEC, SOCK_CLOEXEC)                                                 \
	X(K_MSG_DONTWAIT, MSG_DONTWAIT)                                                 \
	X(K_MSG_NOSIGNAL, MSG_NOSIGNAL)                                                 \
	X(K_MSG_MORE, MSG_MORE)                                                         \
	X(K_SHUT_WR, SHUT_WR)                                                           \
	X(K_SIGHUP, SIGHUP)                                                             \
	X(K_SIGINT, SIGINT)                                                             \
	X(K_SIGPIPE, SIGPIPE)                                                           \
	X(K_SIGTERM, SIGTERM)                                                           \
	X(K_SIGCHLD, SIGCHLD)                                                           \
	X(K_CLONE_VFORK, CLONE_VFORK)                                                   \
	X(K_SIGIO, SIGIO)                                                               \
	X(K_SIGUSR2, SIGUSR2)                                                           \
	X(K_SIGQUIT, SIGQUIT)                                                           \
	X(K_SIGILL, SIGILL)                                                             \
	X(K_SIGTRAP, SIGTRAP)                                                           \
	X(K_SIGABRT, SIGABRT)                                                           \
	X(K_SIGBUS, SIGBUS)                                                             \
	X(K_SIGFPE, SIGFPE)                                                             \
	X(K_SIGUSR1, SIGUSR1)                                                           \
	X(K_SIGSEGV, SIGSEGV)                                                           \
	X(K_SIGALRM, SIGALRM)                                                           \
	X(K_SIGSTKFLT, SIGSTKFLT)                                                       \
	X(K_SIGXCPU, SIGXCPU)                                                           \
	X(K_SIGXFSZ, SIGXFSZ)                                                           \
	X(K_SIGVTALRM, SIGVTALRM)                                                       \
	X(K_SIGPROF, SIGPROF)                                                           \
	X(K_SIGPWR, SIGPWR)                                                             \
	X(K_SIGSYS, SIGSYS)                                                             \
	X(K_SIGRTMIN, __SIGRTMIN)                                                       \
	X(K_SIGNAL_MAX, __SIGRTMAX)                                                     \
	X(K_PR_SET_NAME, PR_SET_NAME)                                                   \
	X(K_AT_EMPTY_PATH_EXEC, AT_EMPTY_PATH)                                          \
	X(K_AF_UNIX, AF_UNIX)                                                           \
	X(K_SOCK_SEQPACKET, SOCK_SEQPACKET)                                             \
	X(K_SCM_RIGHTS, SCM_RIGHTS)                                                     \
	X(K_MSG_CMSG_CLOEXEC, MSG_CMSG_CLOEXEC)                                         \
	X(K_CMSGHDR_SIZE, sizeof(struct cmsghdr))                                       \
	X(K_CMSG_SPACE(sizeof(int) * 8), CMSG_SPACE(sizeof(int) * 8))                   \
	X(K_PR_SET_PDEATHSIG, PR_SET_PDEATHSIG)                                         \
	X(K_SIGURG, SIGURG)                                                             \
	X(K_SIG_BLOCK, SIG_BLOCK)                                                       \
	X(K_SIG_UNBLOCK, SIG_UNBLOCK)                                                   \
	X(K_WNOHANG, WNOHANG)                                                           \
	X(K_SIG_IGN, SIG_IGN)                                                           \
	X(K_CLOCK_REALTIME, CLOCK_REALTIME)                                             \
	X(K_CLOCK_MONOTONIC, CLOCK_MONOTONIC)                                           \
	X(K_RLIMIT_NOFILE, RLIMIT_NOFILE)                                               \
	X(K_STDOUT, STDOUT_FILENO)                                                      \
	X(K_STDERR, STDERR_FILENO)                                                      \
	X(K_SOCKADDR_IN_SIZE, sizeof(struct sockaddr_in))                               \
	X(sizeof(struct k_sockaddr_in), sizeof(struct sockaddr_in))                     \
	X(offsetof(struct k_sockaddr_in, sin_family), offsetof(struct sockaddr_in, sin_family)) \
	X(offsetof(struct k_sockaddr_in, sin_port), offsetof(struct sockaddr_in, sin_port)) \
	X(offsetof(struct k_sockaddr_in, sin_addr), offsetof(struct sockaddr_in, sin_addr)) \
	X(offsetof(struct k_sockaddr_in, sin_zero), offsetof(struct sockaddr_in, sin_zero)) \
	X(sizeof(((struct k_sockaddr_in *)0)->sin_port), sizeof(in_port_t))             \
	X(sizeof(((struct k_sockaddr_in *)0)->sin_addr), sizeof(struct in_addr))        \
	X(K_F_SETFD, F_SETFD)                                                           \
	X(K_FD_CLOEXEC, FD_CLOEXEC)                                                     \
	X(K_F_GETFL, F_GETFL)                                                           \
	X(K_F_SETFL, F_SETFL)                                                           \
	X(K_O_NONBLOCK, O_NONBLOCK)                                                     \
	X(K_F_SETOWN, F_SETOWN)                                                         \
	X(K_F_DUPFD_CLOEXEC, F_DUPFD_CLOEXEC)                                           \
	X(K_O_ASYNC, O_ASYNC)                                                           \
	X(K_O_CLOEXEC, O_CLOEXEC)                                                       \
	X(K_O_PATH, O_PATH)                                                             \
	X(K_O_DIRECTORY, O_DIRECTORY)                                                   \
	X(K_O_NOFOLLOW, O_NOFOLLOW)                                                     \
	X(K_AT_EMPTY_PATH, AT_EMPTY_PATH)                                               \
	X(K_F_SETSIG, F_SETSIG)                                                         \
	X(K_F_ADD_SEALS, F_ADD_SEALS)                                                   \
	X(K_F_GET_SEALS, F_GET_SEALS)                                                   \
	X(K_F_SEAL_SEAL, F_SEAL_SEAL)                                                   \
	X(K_F_SEAL_SHRINK, F_SEAL_SHRINK)                                               \
	X(K_F_SEAL_GROW, F_SEAL_GROW)                                                   \
	X(K_F_SEAL_WRITE, F_SEAL_WRITE)                                                 \
	X(K_MFD_CLOEXEC, MFD_CLOEXEC)                                                   \
	X(K_MFD_ALLOW_SEALING, MFD_ALLOW_SEALING)                                       \
	X(K_MADV_HUGEPAGE, MADV_HUGEPAGE)                                               \
	X(K_MADV_POPULATE_WRITE, MADV_POPULATE_WRITE)                                   \
	X(K_IN_NONBLOCK, IN_NONBLOCK)                                                   \
	X(K_IN_CLOEXEC, IN_CLOEXEC)                                                     \
	X(K_IN_MODIFY, IN_MODIFY)                                                       \
	X(K_IN_ATTRIB, IN_ATTRIB)                                                       \
	X(K_IN_CLOSE_WRITE, IN_CLOSE_WRITE)                                             \
	X(K_IN_MOVED_FROM, IN_MOVED_FROM)                                               \
	X(K_IN_MOVED_TO, IN_MOVED_TO)                                                   \
	X(K_IN_CREATE, IN_CREATE)                                                       \
	X(K_IN_DELETE, IN_DELETE)                                                       \
	X(K_IN_DELETE_SELF, IN_DELETE_SELF)                                             \
	X(K_IN_MOVE_SELF, IN_MOVE_SELF)                                                 \
	X(K_IN_ONLYDIR, IN_ONLYDIR)                                                     \
	X(K_INOTIFY_EVENT_SIZE, sizeof(struct inotify_event))                           \
	X(offsetof(struct k_inotify_event, mask), offsetof(struct inotify_event, mask)) \
	X(offsetof(struct k_inotify_event, cookie), offsetof(struct inotify_event, cookie)) \
	X(offsetof(struct k_inotify_event, len), offsetof(struct inotify_event, len))   \
	X(K_NAME_MAX, NAME_MAX)                                                         \
	X(K_POLLIN, POLLIN)                                                             \
	X(K_POLLOUT, POLLOUT)                                                           \
	X(K_POLLNVAL, POLLNVAL)                                                         \
	X(K_POLLFD_SIZE, sizeof(struct pollfd))                                         \
	X(offsetof(struct k_pollfd, events), offsetof(struct pollfd, events))           \
	X(offsetof(struct k_pollfd, revents), offsetof(struct pollfd, revents))         \
	X(K_AF_INET6, AF_INET6)                                                         \
	X(K_IPPROTO_IPV6, IPPROTO_IPV6)                                                 \
	X(K_IPV6_V6ONLY, IPV6_V6ONLY)                                                   \
	X(K_SOCKADDR_IN6_SIZE, sizeof(struct sockaddr_in6))                             \
	X(offsetof(struct k_sockaddr_in6, sin6_port), offsetof(struct sockaddr_in6, sin6_port)) \
	X(offsetof(struct k_sockaddr_in6, sin6_flowinfo), offsetof(struct sockaddr_in6, sin6_flowinfo)) \
	X(offsetof(struct k_sockaddr_in6, sin6_addr), offsetof(struct sockaddr_in6, sin6_addr)) \
	X(offsetof(struct k_sockaddr_in6, sin6_scope_id), offsetof(struct sockaddr_in6, sin6_scope_id)) \
	X(sizeof(struct k_timespec), sizeof(struct timespec))                           \
	X(offsetof(struct k_timespec, tv_nsec), offsetof(struct timespec, tv_nsec))     \
	X(sizeof(struct k_iovec), sizeof(struct iovec))                                 \
	X(offsetof(struct k_iovec, iov_len), offsetof(struct iovec, iov_len))           \
	X(sizeof(struct k_rlimit), sizeof(struct rlimit))                               \
	X(offsetof(struct k_rlimit, rlim_max), offsetof(struct rlimit, rlim_max))       \
	X(K_MSGHDR_SIZE, sizeof(struct msghdr))                                         \
	X(K_MSGHDR_IOV_OFFSET, offsetof(struct msghdr, msg_iov))                        \
	X(K_MSGHDR_IOVLEN_OFFSET, offsetof(struct msghdr, msg_iovlen))                  \
	X(offsetof(struct k_msghdr, msg_control), offsetof(struct msghdr, msg_control)) \
	X(offsetof(struct k_msghdr, msg_flags), offsetof(struct msghdr, msg_flags))

/* One evaluated fact, labelled with libc's spelling. */
struct kernel_fact {
	const char *label;
	long value;
};

/* apollod's values, in FOR_EACH_KERNEL_FACT order (kernel_consts_probe.cc). */
extern const struct kernel_fact apollod_kernel_facts[];
extern const size_t apollod_kernel_fact_count;

#endif /* APOLLOD_TEST_UNIT_KERNEL_FACTS_H */
