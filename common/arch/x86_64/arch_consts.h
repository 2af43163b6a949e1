/* x86_64 kernel facts that differ between architectures. */
#ifndef APOLLOD_COMMON_ARCH_X86_64_ARCH_CONSTS_H
#define APOLLOD_COMMON_ARCH_X86_64_ARCH_CONSTS_H

/* The vDSO exports clock_gettime under this name and version on x86_64
 * (Documentation/ABI/stable/vdso); aarch64 uses __kernel_clock_gettime. */
#define ARCH_VDSO_CLOCK_GETTIME "__vdso_clock_gettime"

/* The largest page the kernel may run with: x86_64 pages are 4 KiB. */
#define ARCH_PAGE_MAX 4096

#include <linux/audit.h> /* AUDIT_ARCH_* */

/* seccomp_data.arch for this architecture's calls (<linux/audit.h>): the sandbox's
 * filter refuses every other (common/process/sandbox.c). */
#define ARCH_AUDIT AUDIT_ARCH_X86_64

/* open(2) flags whose values differ between architectures (asm/fcntl.h). */
#define ARCH_O_DIRECTORY 0200000
#define ARCH_O_NOFOLLOW 0400000

/* The stack-protector guard of code built with -fstack-protector (Debian's libdeflate.a):
 * GCC on x86_64 reads it at %fs:0x28, a word of the thread control block, whose first
 * word points to itself (the x86_64 TLS ABI). common/base/stack_guard.c sets %fs with
 * arch_prctl(ARCH_SET_FS) (asm/prctl.h). */
#define ARCH_GUARD_IN_TLS 1
#define ARCH_TLS_GUARD_OFFSET 0x28
#define ARCH_SET_FS 0x1002

#endif /* APOLLOD_COMMON_ARCH_X86_64_ARCH_CONSTS_H */
