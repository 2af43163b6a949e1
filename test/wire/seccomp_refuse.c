/* Runs a program with one syscall refused, without changing the machine: a seccomp-bpf
 * filter (seccomp(2), SECCOMP_RET_ERRNO) makes the named syscall fail with the errno
 * named, then the program is exec'ed under it (the filter survives execve). The wire
 * suite uses it for failures a healthy kernel never gives: io_uring refused as a kernel
 * without it (ENOSYS) or with kernel.io_uring_disabled=2 (EPERM) refuses it, the
 * serving loop's fatal accept4 / epoll_wait / io_uring_enter errors (exits 5 and 8),
 * each of the min tier's fatal start-up steps (exits 1 to 4), the loader's sendfile
 * into the snapshot's memfd refused (it reads instead: snapshot_test.cc) and its
 * close_range refused as a kernel before 5.9 (it closes each instead).
 *
 * Usage: seccomp_refuse SYSCALL ERRNO PROGRAM [ARG...]
 *   SYSCALL: io_uring_setup | io_uring_enter | accept4 | epoll_wait | socket |
 *            setsockopt | bind | listen | sendfile | close_range
 *   ERRNO:   ENOSYS | EPERM | EINVAL
 * x86_64 only (the filter compares x86_64 syscall numbers). Exits 2 on a usage error, 126
 * if the filter cannot be installed, 127 if exec fails. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

struct named {
	const char *name;
	unsigned value;
};

static const struct named syscalls[] = {
	{"io_uring_setup", __NR_io_uring_setup},
	{"io_uring_enter", __NR_io_uring_enter},
	{"accept4", __NR_accept4},
#ifdef __NR_epoll_wait /* aarch64 has only epoll_pwait (the filter is x86_64's anyway) */
	{"epoll_wait", __NR_epoll_wait},
#endif
	{"socket", __NR_socket},
	{"setsockopt", __NR_setsockopt},
	{"bind", __NR_bind},
	{"listen", __NR_listen},
	{"sendfile", __NR_sendfile},
	{"close_range", __NR_close_range},
};

static const struct named errnos[] = {
	{"ENOSYS", ENOSYS},
	{"EPERM", EPERM},
	{"EINVAL", EINVAL},
};

/* Returns 1 and stores the value of the entry called name, or 0 when there is none. */
static int lookup(const struct named *table, size_t n, const char *name, unsigned *value)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(table[i].name, name) == 0) {
			*value = table[i].value;
			return 1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned nr, err;
	if (argc < 4 || !lookup(syscalls, sizeof syscalls / sizeof syscalls[0], argv[1], &nr) ||
	    !lookup(errnos, sizeof errnos / sizeof errnos[0], argv[2], &err)) {
		fprintf(stderr, "usage: seccomp_refuse io_uring_setup|io_uring_enter|accept4|epoll_wait|"
				"socket|setsockopt|bind|listen|sendfile|close_range ENOSYS|EPERM|EINVAL PROGRAM [ARG...]\n");
		return 2;
	}
	struct sock_filter filter[] = {
		/* Another architecture's syscall numbers mean other calls: allow them. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = (unsigned short)(sizeof(filter) / sizeof(filter[0])),
		.filter = filter,
	};
	/* Without privileges a filter needs no_new_privs (seccomp(2)). */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		perror("seccomp_refuse: installing the filter");
		return 126;
	}
	execv(argv[3], argv + 3);
	perror("seccomp_refuse: exec");
	return 127;
}
