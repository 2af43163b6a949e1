/* The one table of every system call the daemon makes (BEHAVIOUR 19): its number, when it
 * may be made, and what its arguments may be. sys.h's wrappers take their numbers from it
 * (SYS_NR(name)), so a wrapper for a call not in the table does not compile, and the
 * sandbox's seccomp filter (common/process/sandbox.c) is built from it, so the allowlist
 * cannot drift from the calls. //test:sys_table_check refuses a __NR_ anywhere else in
 * common/ (arch/ and the min tier's assembly excepted) and a row no wrapper uses.
 *
 * Adding a syscall is one row: X(name, number, when, args), then the wrapper in sys.h
 * calling syscallN(SYS_NR(name), ...).
 *   name    the kernel's name (the row's SYS_NR_<name>)
 *   number  __NR_<name>, or an arch header's ARCH_NR_* where the architectures differ
 *   when    SYS_START: only before the sandbox (start-up, the resident supervisor, a
 *           generation's supervisor of --workers: none of them is filtered);
 *           SYS_SERVE: also after it, in every serving process (a generation without
 *           --workers, each worker). No serving process starts an image (the resident
 *           supervisor does, unfiltered), so no filter outlives an execve into a start-up.
 *   args    SYS_ARGS_ANY, SYS_ARG_IN(i, v, ...) (argument i is one of the values, at most
 *           SYS_ARG_VALUES_MAX) or SYS_ARG_CLEAR(i, mask) (argument i has none of mask's
 *           bits). Only the low 32 bits are compared: every argument checked is an int
 *           or flags the kernel truncates to 32 bits. The checks bind only SYS_SERVE rows
 *           (the filter has no other): they admit what the serving process passes.
 * The serving loop's calls come first: the filter tests rows in table order. */
#ifndef APOLLOD_COMMON_BASE_SYS_TABLE_H
#define APOLLOD_COMMON_BASE_SYS_TABLE_H

#include <stdint.h>

#include "common/arch/arch.h"
#include "common/base/kernel_consts.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define SYS_START 0x0u /* every row may be called before the sandbox */
#define SYS_SERVE 0x1u

/* An argument check: argument `arg` is one of values[0..count) (SYS_ARG_KIND_IN) or has
 * none of values[0]'s bits (SYS_ARG_KIND_CLEAR). */
#define SYS_ARG_VALUES_MAX 8
#define SYS_ARG_KIND_ANY 0
#define SYS_ARG_KIND_IN 1
#define SYS_ARG_KIND_CLEAR 2
struct sys_arg_rule {
	uint8_t kind;  /* SYS_ARG_KIND_* */
	uint8_t arg;   /* 0..5: which argument */
	uint8_t count; /* values used */
	uint32_t values[SYS_ARG_VALUES_MAX];
};
#define SYS_ARGS_ANY {SYS_ARG_KIND_ANY, 0, 0, {0}}
#define SYS_ARG_COUNT(...) (sizeof((uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t))
/* More than SYS_ARG_VALUES_MAX values: a negative array size, so the build fails. */
#define SYS_ARG_COUNT_CHECKED(...)                                                        \
	(SYS_ARG_COUNT(__VA_ARGS__) +                                                     \
	 0 * sizeof(char[SYS_ARG_COUNT(__VA_ARGS__) <= SYS_ARG_VALUES_MAX ? 1 : -1]))
#define SYS_ARG_IN(i, ...) {SYS_ARG_KIND_IN, (i), SYS_ARG_COUNT_CHECKED(__VA_ARGS__), {__VA_ARGS__}}
#define SYS_ARG_CLEAR(i, mask) {SYS_ARG_KIND_CLEAR, (i), 1, {(mask)}}

/* The values the checked arguments take (the kernel's, include/uapi). */
#define SYS_PR_SET_NO_NEW_PRIVS 38
#define SYS_PR_GET_SECCOMP 21
#define SYS_PR_SET_SECCOMP 22
/* fcntl while serving: conn_renumber's F_DUPFD_CLOEXEC. */
/* sendmsg while serving: a head before a body by reference; the readiness message. */
#define SYS_MSG_SERVE K_MSG_NOSIGNAL | K_MSG_MORE, K_MSG_NOSIGNAL
/* fcntl while serving: also a send pipe's capacity when it is recreated (send_pipes.c). */
#define SYS_FCNTL_SERVE K_F_DUPFD_CLOEXEC, K_F_SETPIPE_SZ
/* A send pipe's calls (send_pipes.c): its ends made non-blocking and close-on-exec; the
 * body's pages put in without a gift; the pipe spliced to the socket. */
#define SYS_PIPE_SERVE (K_O_NONBLOCK | K_O_CLOEXEC)
#define SYS_VMSPLICE_SERVE K_SPLICE_F_NONBLOCK
#define SYS_SPLICE_SERVE                                                    \
	K_SPLICE_F_MOVE | K_SPLICE_F_NONBLOCK,                                  \
		K_SPLICE_F_MOVE | K_SPLICE_F_NONBLOCK | K_SPLICE_F_MORE
/* recvfrom while serving: an eviction's look at a candidate (conn_idle_victim). */
#define SYS_PEEK_SERVE (K_MSG_PEEK | K_MSG_DONTWAIT)
/* A disk-served file's opens (disk_open.c, which checks its flags are these): the file,
 * and with the per-component fallback each directory on the way. */
#define SYS_OPEN_DISK_FILE (K_O_NOFOLLOW | K_O_NONBLOCK | K_O_CLOEXEC) /* O_RDONLY: 0 */
#define SYS_OPEN_DISK_DIR (K_O_PATH | K_O_DIRECTORY | K_O_NOFOLLOW | K_O_CLOEXEC)
#define SYS_OPEN_HOW_SIZE 24 /* openat2's struct open_how, its first version */

/* X(name, number, when, args) for each call; see the top of the file. */
#define SYS_TABLE(X)                                                                                    \
	/* the serving loop, epoll and io_uring */                                                      \
	X(epoll_wait, ARCH_NR_EPOLL_WAIT, SYS_SERVE, SYS_ARGS_ANY)                                      \
	X(io_uring_enter, __NR_io_uring_enter, SYS_SERVE, SYS_ARGS_ANY)                                 \
	X(read, __NR_read, SYS_SERVE, SYS_ARGS_ANY)                                                     \
	X(writev, __NR_writev, SYS_SERVE, SYS_ARGS_ANY)                                                 \
	X(write, __NR_write, SYS_SERVE, SYS_ARGS_ANY)                                                   \
	X(accept4, __NR_accept4, SYS_SERVE, SYS_ARGS_ANY)                                               \
	X(close, __NR_close, SYS_SERVE, SYS_ARGS_ANY)                                                   \
	X(epoll_ctl, __NR_epoll_ctl, SYS_SERVE, SYS_ARGS_ANY)                                           \
	X(shutdown, __NR_shutdown, SYS_SERVE, SYS_ARGS_ANY)                                             \
	X(sendto, __NR_sendto, SYS_SERVE, SYS_ARGS_ANY)                                                 \
	/* a head before a body by reference (MSG_MORE), and the readiness message */                   \
	X(sendmsg, __NR_sendmsg, SYS_SERVE, SYS_ARG_IN(2, SYS_MSG_SERVE)) \
	X(sendfile, __NR_sendfile, SYS_SERVE, SYS_ARGS_ANY)                                          \
	/* a body by reference through a send pipe (send_pipes.h), and a pipe recreated */              \
	X(vmsplice, __NR_vmsplice, SYS_SERVE, SYS_ARG_IN(3, SYS_VMSPLICE_SERVE))                        \
	X(splice, __NR_splice, SYS_SERVE, SYS_ARG_IN(5, SYS_SPLICE_SERVE))                              \
	X(pipe2, __NR_pipe2, SYS_SERVE, SYS_ARG_IN(1, SYS_PIPE_SERVE))                                  \
	X(clock_gettime, __NR_clock_gettime, SYS_SERVE, SYS_ARGS_ANY)                                   \
	X(getpeername, __NR_getpeername, SYS_SERVE, SYS_ARGS_ANY)                                       \
	/* disk-served files (--cache-bytes): opened beneath DIR per request, read-only */              \
	X(openat2, __NR_openat2, SYS_SERVE, SYS_ARG_IN(3, SYS_OPEN_HOW_SIZE))                           \
	X(openat, __NR_openat, SYS_SERVE, SYS_ARG_IN(2, SYS_OPEN_DISK_FILE, SYS_OPEN_DISK_DIR))         \
	X(statx, __NR_statx, SYS_SERVE, SYS_ARG_IN(2, K_AT_EMPTY_PATH))                                 \
	/* a full table: counting descriptors, moving one below CONN_SLOTS */                           \
	X(ppoll, __NR_ppoll, SYS_SERVE, SYS_ARGS_ANY)                                                   \
	X(fcntl, __NR_fcntl, SYS_SERVE, SYS_ARG_IN(1, SYS_FCNTL_SERVE))                                 \
	X(dup3, __NR_dup3, SYS_SERVE, SYS_ARG_IN(2, K_O_CLOEXEC))                                       \
	X(recvfrom, __NR_recvfrom, SYS_SERVE, SYS_ARG_IN(3, SYS_PEEK_SERVE))                             \
	/* to the supervisor: a reload or a log reopen asked for (SIGHUP, --watch, SIGUSR1),     \
	 * accepts released (SIGIO) */                                                            \
	X(kill, __NR_kill, SYS_SERVE, SYS_ARG_IN(1, K_SIGHUP, K_SIGUSR1, K_SIGIO))                      \
	/* a real-time signal counts only from the parent (signals.h) */                                \
	X(getppid, __NR_getppid, SYS_SERVE, SYS_ARGS_ANY)                                               \
	/* a fatal accept4 names its listener on the way out (console_fail_fd) */                       \
	X(getsockname, __NR_getsockname, SYS_SERVE, SYS_ARGS_ANY)                                       \
	X(exit_group, __NR_exit_group, SYS_SERVE, SYS_ARGS_ANY)                                         \
	/* not ours: the kernel's own restart of an interrupted call (after SIGSTOP) */                 \
	X(restart_syscall, __NR_restart_syscall, SYS_SERVE, SYS_ARGS_ANY)                               \
	/* start-up only: loading, binding, the supervisors, dropping root, the sandbox */              \
	X(clone, __NR_clone, SYS_START, SYS_ARGS_ANY)                                                   \
	X(execve, __NR_execve, SYS_START, SYS_ARGS_ANY)                                                 \
	X(execveat, __NR_execveat, SYS_START, SYS_ARGS_ANY)                                             \
	X(readlinkat, __NR_readlinkat, SYS_START, SYS_ARGS_ANY)                                         \
	X(wait4, __NR_wait4, SYS_START, SYS_ARGS_ANY)                                                   \
	X(getpid, __NR_getpid, SYS_START, SYS_ARGS_ANY)                                                 \
	X(setpgid, __NR_setpgid, SYS_START, SYS_ARGS_ANY)                                               \
	X(socketpair, __NR_socketpair, SYS_START, SYS_ARGS_ANY)                                         \
	X(recvmsg, __NR_recvmsg, SYS_START, SYS_ARGS_ANY)                                               \
	X(getdents64, __NR_getdents64, SYS_START, SYS_ARGS_ANY)                                         \
	X(memfd_create, __NR_memfd_create, SYS_START, SYS_ARGS_ANY)                                  \
	X(ftruncate, __NR_ftruncate, SYS_START, SYS_ARGS_ANY)                                        \
	X(fallocate, __NR_fallocate, SYS_START, SYS_ARGS_ANY)                                        \
	X(lseek, __NR_lseek, SYS_START, SYS_ARGS_ANY)                                                \
	X(close_range, __NR_close_range, SYS_START, SYS_ARGS_ANY)                                    \
	X(mmap, __NR_mmap, SYS_START, SYS_ARGS_ANY)                                                     \
	X(munmap, __NR_munmap, SYS_START, SYS_ARGS_ANY)                                                 \
	X(madvise, __NR_madvise, SYS_START, SYS_ARGS_ANY)                                               \
	X(prlimit64, __NR_prlimit64, SYS_START, SYS_ARGS_ANY)                                           \
	X(rt_sigaction, __NR_rt_sigaction, SYS_START, SYS_ARGS_ANY)                                     \
	X(rt_sigprocmask, __NR_rt_sigprocmask, SYS_START, SYS_ARGS_ANY)                                 \
	X(signalfd4, __NR_signalfd4, SYS_START, SYS_ARGS_ANY)                                           \
	X(epoll_create1, __NR_epoll_create1, SYS_START, SYS_ARGS_ANY)                                   \
	X(io_uring_setup, __NR_io_uring_setup, SYS_START, SYS_ARGS_ANY)                                 \
	X(io_uring_register, __NR_io_uring_register, SYS_START, SYS_ARGS_ANY)                           \
	X(getsockopt, __NR_getsockopt, SYS_START, SYS_ARGS_ANY)                                         \
	X(inotify_init1, __NR_inotify_init1, SYS_START, SYS_ARGS_ANY)                                   \
	X(inotify_add_watch, __NR_inotify_add_watch, SYS_START, SYS_ARGS_ANY)                           \
	X(sched_getaffinity, __NR_sched_getaffinity, SYS_START, SYS_ARGS_ANY)                           \
	X(getuid, __NR_getuid, SYS_START, SYS_ARGS_ANY)                                                 \
	X(getgid, __NR_getgid, SYS_START, SYS_ARGS_ANY)                                                 \
	X(prctl, __NR_prctl, SYS_START, SYS_ARGS_ANY)                                                   \
	/* x86_64: the thread pointer for libdeflate's stack-protector guard, at process start */   \
	X(arch_prctl, ARCH_NR_ARCH_PRCTL, SYS_START, SYS_ARGS_ANY)                                      \
	X(socket, __NR_socket, SYS_START, SYS_ARGS_ANY)                                                 \
	X(setsockopt, __NR_setsockopt, SYS_START, SYS_ARGS_ANY)                                         \
	X(bind, __NR_bind, SYS_START, SYS_ARGS_ANY)                                                     \
	X(listen, __NR_listen, SYS_START, SYS_ARGS_ANY)                                                 \
	X(setgroups, __NR_setgroups, SYS_START, SYS_ARGS_ANY)                                           \
	X(setgid, __NR_setgid, SYS_START, SYS_ARGS_ANY)                                                 \
	X(setuid, __NR_setuid, SYS_START, SYS_ARGS_ANY)                                                 \
	X(landlock_create_ruleset, __NR_landlock_create_ruleset, SYS_START, SYS_ARGS_ANY)               \
	X(landlock_add_rule, __NR_landlock_add_rule, SYS_START, SYS_ARGS_ANY)                           \
	X(landlock_restrict_self, __NR_landlock_restrict_self, SYS_START, SYS_ARGS_ANY)

/* SYS_NR_<name>: each row's number. A wrapper names its call with SYS_NR(name). */
#define SYS_TABLE_NR(name, nr, when, args) SYS_NR_##name = (nr),
enum sys_nr { SYS_TABLE(SYS_TABLE_NR) };
#undef SYS_TABLE_NR
#define SYS_NR(name) SYS_NR_##name

/* The table as data, for the filter builder (defined in common/process/sandbox.c) and its
 * tests. */
struct sys_row {
	const char *name;
	uint32_t nr;
	uint32_t when; /* SYS_START or SYS_SERVE */
	struct sys_arg_rule args;
};
#define SYS_TABLE_ROW(name, nr, when, args) +1
#define SYS_TABLE_ROWS (0 SYS_TABLE(SYS_TABLE_ROW))
extern const struct sys_row sys_rows[SYS_TABLE_ROWS];

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_BASE_SYS_TABLE_H */
