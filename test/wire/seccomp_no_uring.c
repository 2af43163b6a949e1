/* Runs a program with io_uring refused, as a kernel without io_uring (ENOSYS) or with
 * kernel.io_uring_disabled=2 (EPERM) would refuse it, without changing the machine: a
 * seccomp-bpf filter (seccomp(2), SECCOMP_RET_ERRNO) makes io_uring_setup fail with the
 * errno named, then the program is exec'ed under it (the filter survives execve).
 *
 * Usage: seccomp_no_uring ENOSYS|EPERM PROGRAM [ARG...]
 * Exits 2 on a usage error, 126 if the filter cannot be installed, 127 if exec fails. */
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

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "ENOSYS") != 0 && strcmp(argv[1], "EPERM") != 0)) {
		fprintf(stderr, "usage: seccomp_no_uring ENOSYS|EPERM PROGRAM [ARG...]\n");
		return 2;
	}
	unsigned err = strcmp(argv[1], "EPERM") == 0 ? EPERM : ENOSYS;
	struct sock_filter filter[] = {
		/* Another architecture's syscall numbers mean other calls: allow them. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
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
		perror("seccomp_no_uring: installing the filter");
		return 126;
	}
	execv(argv[2], argv + 2);
	perror("seccomp_no_uring: exec");
	return 127;
}
