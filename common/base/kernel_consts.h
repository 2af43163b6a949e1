/* Kernel constants and structures that the UAPI headers do not export to user space
 * (the socket-family and socket-type numbers live in glibc's <bits/socket.h>, not in
 * the linux/ UAPI headers). Values are from include/linux/socket.h and include/linux/net.h in the
 * kernel tree; test/unit/kernel_consts_test.cc checks every one against the host libc. */
#ifndef APOLLOD_COMMON_KERNEL_CONSTS_H
#define APOLLOD_COMMON_KERNEL_CONSTS_H

#include <stdint.h>

#include "common/arch/arch.h" /* ARCH_O_*: the open flags that differ */
#include "common/base/static_assert.h"

#define K_AF_INET 2
#define K_SOCK_STREAM 1
#define K_SOCK_NONBLOCK 00004000 /* == O_NONBLOCK */
#define K_SOCK_CLOEXEC 02000000  /* == O_CLOEXEC */
#define K_MSG_PEEK 0x2 /* recvfrom: look at the queue, leave the bytes there */
#define K_MSG_DONTWAIT 0x40
#define K_MSG_NOSIGNAL 0x4000
#define K_MSG_MORE 0x8000 /* more follows: hold a partial segment back (the head before a sendfile) */
#define K_SHUT_WR 1
#define K_SIGHUP 1
#define K_SIGINT 2
#define K_SIGPIPE 13
#define K_SIGTERM 15
#define K_SIGCHLD 17
#define K_SIGUSR2 12 /* asm-generic/signal.h: the same on x86_64 and aarch64 */
/* The rest of the signals whose default action ends a process (signal(7)); the numbers
 * are asm-generic's, the same on x86_64 and aarch64. */
#define K_SIGQUIT 3
#define K_SIGILL 4
#define K_SIGTRAP 5
#define K_SIGABRT 6
#define K_SIGBUS 7
#define K_SIGFPE 8
#define K_SIGUSR1 10
#define K_SIGSEGV 11
#define K_SIGALRM 14
#define K_SIGSTKFLT 16
#define K_SIGXCPU 24
#define K_SIGXFSZ 25
#define K_SIGVTALRM 26
#define K_SIGPROF 27
#define K_SIGPWR 30
#define K_SIGSYS 31
#define K_SIGRTMIN 32 /* the kernel's first real-time signal (a libc reserves some above) */
#define K_SIGNAL_MAX 64 /* _NSIG: the last real-time signal */
#define K_CLONE_VFORK 0x4000 /* clone: the caller waits for the child's execve or exit */
#define K_SIGIO 29 /* SIGPOLL: an O_ASYNC descriptor became readable */
#define K_SIGURG 23 /* raised only for a descriptor whose owner asked for it (F_SETSIG) */
#define K_SIG_BLOCK 0
#define K_SIG_UNBLOCK 1
#define K_WNOHANG 1
/* The bit of signal sig in a kernel sigset_t (signals count from 1). */
#define K_SIGBIT(sig) (1ull << ((sig) - 1))
#define K_SIG_IGN 1
#define K_SIG_DFL 0
#define K_CLOCK_REALTIME 0
#define K_CLOCK_MONOTONIC 1
#define K_RLIMIT_NOFILE 7
#define K_STDOUT 1
#define K_STDERR 2

/* struct sockaddr_in (include/uapi/linux/in.h), declared here so headers of the host libc
 * and of the kernel never meet in one test translation unit. Port and address are in
 * network byte order. */
struct k_sockaddr_in {
	uint16_t sin_family; /* K_AF_INET */
	uint16_t sin_port;   /* big-endian */
	uint32_t sin_addr;   /* big-endian */
	uint8_t sin_zero[8]; /* must be zero */
};
#define K_SOCKADDR_IN_SIZE 16
STATIC_ASSERT(sizeof(struct k_sockaddr_in) == K_SOCKADDR_IN_SIZE, "sockaddr_in is 16 bytes");

/* fcntl(2) (include/uapi/asm-generic/fcntl.h: the same on x86_64 and aarch64). */
#define K_F_SETFD 2
#define K_FD_CLOEXEC 1
#define K_F_GETFL 3
#define K_F_SETFL 4
#define K_O_NONBLOCK 04000
#define K_F_SETOWN 8
#define K_F_DUPFD_CLOEXEC 1030
#define K_F_SETPIPE_SZ 1031 /* a send pipe's capacity (send_pipes.c) */
/* splice(2) and vmsplice(2) flags (include/linux/splice.h) */
#define K_SPLICE_F_MOVE 0x01     /* move pages instead of copying (a hint) */
#define K_SPLICE_F_NONBLOCK 0x02 /* do not block on the pipe */
#define K_SPLICE_F_MORE 0x04     /* more of the body follows: like MSG_MORE */
#define K_O_ASYNC 020000 /* FASYNC */
#define K_O_CLOEXEC 02000000
#define K_O_PATH 010000000
#define K_O_DIRECTORY ARCH_O_DIRECTORY /* these two differ (arch_consts.h) */
#define K_O_NOFOLLOW ARCH_O_NOFOLLOW
#define K_AT_EMPTY_PATH 0x1000 /* statx, fstatat: the descriptor itself */
#define K_F_SETSIG 10 /* the signal an O_ASYNC descriptor raises instead of SIGIO */
/* File seals (fcntl(2), include/uapi/linux/fcntl.h) and memfd_create(2)'s flags
 * (include/uapi/linux/memfd.h): the snapshot's sealed arenas (file_arenas.c). */
#define K_F_ADD_SEALS 1033
#define K_F_GET_SEALS 1034
#define K_F_SEAL_SEAL 0x0001   /* no more seals can be added */
#define K_F_SEAL_SHRINK 0x0002 /* the size cannot go down */
#define K_F_SEAL_GROW 0x0004   /* the size cannot go up */
#define K_F_SEAL_WRITE 0x0008  /* the bytes cannot change */
#define K_MFD_CLOEXEC 0x0001U
#define K_MFD_ALLOW_SEALING 0x0002U
/* madvise(2)'s advice (include/uapi/asm-generic/mman-common.h, the same on both
 * architectures): transparent huge pages for a range, here the snapshot's memfd. */
#define K_MADV_HUGEPAGE 14
/* ... and the join of a range's pages into huge pages now (Linux 6.1), whatever the
 * host's THP setting but "deny" (huge_pages.h). */
#define K_MADV_COLLAPSE 25
/* Faults a range in, writable, in one call (Linux 5.14): the loader's tables, whose
 * pages would otherwise each cost a fault when first written (site_prefault). */
#define K_MADV_POPULATE_WRITE 23
#define K_SEEK_SET 0 /* linux/fs.h: lseek's whence, from the start of the file */

/* inotify(7) (include/uapi/linux/inotify.h; its flags are the O_* ones of fcntl.h). */
#define K_IN_NONBLOCK K_O_NONBLOCK
#define K_IN_CLOEXEC K_O_CLOEXEC
#define K_IN_MODIFY 0x00000002      /* a file was written */
#define K_IN_ATTRIB 0x00000004      /* metadata changed: the mtime a Last-Modified shows */
#define K_IN_CLOSE_WRITE 0x00000008 /* a file open for writing was closed */
#define K_IN_MOVED_FROM 0x00000040  /* a name moved out of the directory */
#define K_IN_MOVED_TO 0x00000080    /* a name moved in (an atomic deploy's rename) */
#define K_IN_CREATE 0x00000100      /* a name created */
#define K_IN_DELETE 0x00000200      /* a name removed */
#define K_IN_DELETE_SELF 0x00000400 /* the watched directory itself removed */
#define K_IN_MOVE_SELF 0x00000800   /* the watched directory itself moved */
#define K_IN_ONLYDIR 0x01000000     /* refuse (ENOTDIR) anything but a directory */
/* struct inotify_event: a header, then len bytes of name (NUL-padded). */
struct k_inotify_event {
	int32_t wd;      /* the watch it came from */
	uint32_t mask;   /* K_IN_* */
	uint32_t cookie; /* pairs a MOVED_FROM with its MOVED_TO */
	uint32_t len;    /* bytes of name after the header */
};
#define K_INOTIFY_EVENT_SIZE 16
#define K_NAME_MAX 255 /* include/uapi/linux/limits.h: one name's bytes, NUL excluded */
STATIC_ASSERT(sizeof(struct k_inotify_event) == K_INOTIFY_EVENT_SIZE, "inotify_event header");

/* struct pollfd for ppoll(2) (include/uapi/asm-generic/poll.h). */
struct k_pollfd {
	int32_t fd;
	int16_t events;  /* K_POLL* asked for */
	int16_t revents; /* K_POLL* that happened */
};
#define K_POLLIN 0x0001
#define K_POLLOUT 0x0004
#define K_POLLNVAL 0x0020 /* fd is not open */
#define K_POLLFD_SIZE 8
STATIC_ASSERT(sizeof(struct k_pollfd) == K_POLLFD_SIZE, "pollfd is 8 bytes");

/* IPv6 (include/uapi/linux/in6.h, linux/socket.h, linux/in.h). */
#define K_AF_INET6 10
#define K_IPPROTO_IPV6 41
#define K_IPV6_V6ONLY 26
#define K_IN6_ADDR_SIZE 16

/* struct sockaddr_in6: port and address in network byte order. */
struct k_sockaddr_in6 {
	uint16_t sin6_family;   /* K_AF_INET6 */
	uint16_t sin6_port;     /* big-endian */
	uint32_t sin6_flowinfo; /* 0 */
	uint8_t sin6_addr[K_IN6_ADDR_SIZE];
	uint32_t sin6_scope_id; /* 0: no link-local scope */
};
#define K_SOCKADDR_IN6_SIZE 28
STATIC_ASSERT(sizeof(struct k_sockaddr_in6) == K_SOCKADDR_IN6_SIZE, "sockaddr_in6 is 28 bytes");

/* Either family, as bind(2) and getsockname(2) take it: the family field comes first in
 * both, so `family` says which member is meant. */
union k_sockaddr {
	uint16_t family;
	struct k_sockaddr_in in;
	struct k_sockaddr_in6 in6;
};

/* The length bind(2) is given for addr: its family's structure size. */
static inline uint32_t k_sockaddr_len(const union k_sockaddr *addr)
{
	return addr->family == K_AF_INET6 ? K_SOCKADDR_IN6_SIZE : K_SOCKADDR_IN_SIZE;
}

/* struct timespec as the 64-bit kernel and the vDSO write it. */
struct k_timespec {
	int64_t tv_sec;
	int64_t tv_nsec;
};
STATIC_ASSERT(sizeof(struct k_timespec) == 16, "timespec is two 64-bit words");

/* struct iovec (include/uapi/linux/uio.h). */
struct k_iovec {
	const void *iov_base;
	uint64_t iov_len;
};
STATIC_ASSERT(sizeof(struct k_iovec) == 16, "iovec is pointer + length");

/* struct user_msghdr (include/linux/socket.h, kept out of UAPI) for sendmsg(2) and
 * IORING_OP_SENDMSG: no address, no control data, only the gathered iovecs. */
struct k_msghdr {
	void *msg_name;
	int32_t msg_namelen;
	const struct k_iovec *msg_iov;
	uint64_t msg_iovlen;
	void *msg_control;
	uint64_t msg_controllen;
	uint32_t msg_flags;
};
#define K_MSGHDR_SIZE 56
#define K_MSGHDR_IOV_OFFSET 16
#define K_MSGHDR_IOVLEN_OFFSET 24
STATIC_ASSERT(sizeof(struct k_msghdr) == K_MSGHDR_SIZE, "user_msghdr is 56 bytes");
STATIC_ASSERT(__builtin_offsetof(struct k_msghdr, msg_iov) == K_MSGHDR_IOV_OFFSET,
	      "user_msghdr: msg_iov after the name and its padded length");
STATIC_ASSERT(__builtin_offsetof(struct k_msghdr, msg_iovlen) == K_MSGHDR_IOVLEN_OFFSET,
	      "user_msghdr: msg_iovlen follows msg_iov");

/* The kernel's struct sigaction for rt_sigaction(2) on x86_64 and the generic ABI:
 * handler, flags, restorer, then the kernel's 64-bit signal mask. The fields are not
 * named sa_* because glibc's <signal.h> defines sa_handler as a macro. */
struct k_sigaction {
	uint64_t handler;
	uint64_t flags;
	uint64_t restorer;
	uint64_t mask;
};
#define K_SIGSET_SIZE 8

/* struct linux_dirent64 as getdents64(2) writes it (the kernel keeps it out of UAPI). */
struct k_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	uint16_t d_reclen; /* bytes to the next entry */
	uint8_t d_type;    /* K_DT_* */
	char d_name[];     /* NUL-terminated */
};
#define K_DIRENT64_NAME_OFFSET 19
STATIC_ASSERT(__builtin_offsetof(struct k_dirent64, d_name) == K_DIRENT64_NAME_OFFSET,
	      "linux_dirent64 layout");
#define K_DT_UNKNOWN 0
#define K_DT_DIR 4
#define K_DT_REG 8

/* Passing descriptors over a unix socket (include/linux/socket.h, kept out of UAPI; unix(7)). */
#define K_AF_UNIX 1
#define K_SOCK_SEQPACKET 5
#define K_SCM_RIGHTS 1
#define K_MSG_CMSG_CLOEXEC 0x40000000 /* recvmsg: the descriptors received are close-on-exec */
/* struct cmsghdr: the length (header included), level and type, then the data, aligned to 8. */
struct k_cmsghdr {
	uint64_t cmsg_len;
	int32_t cmsg_level;
	int32_t cmsg_type;
};
#define K_CMSGHDR_SIZE 16
STATIC_ASSERT(sizeof(struct k_cmsghdr) == K_CMSGHDR_SIZE, "cmsghdr is 16 bytes");
/* CMSG_SPACE(bytes): a header and its data, rounded up to 8 bytes. */
#define K_CMSG_SPACE(bytes) (K_CMSGHDR_SIZE + (((bytes) + 7u) & ~7ull))

/* prctl(2) (include/uapi/linux/prctl.h). */
#define K_PR_SET_PDEATHSIG 1 /* the signal this process gets when its parent thread ends */
#define K_PR_SET_NAME 15      /* the thread's name (comm: ps, top, /proc/PID/comm) */
#define K_TASK_COMM_LEN 16    /* comm's bytes, its NUL included */
#define K_AT_EMPTY_PATH_EXEC 0x1000 /* execveat: run the descriptor itself (AT_EMPTY_PATH) */

/* struct rlimit64 for prlimit64(2). */
struct k_rlimit {
	uint64_t rlim_cur;
	uint64_t rlim_max;
};

#endif /* APOLLOD_COMMON_KERNEL_CONSTS_H */
