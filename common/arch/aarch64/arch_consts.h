/* aarch64 kernel facts that differ between architectures. */
#ifndef APOLLOD_COMMON_ARCH_AARCH64_ARCH_CONSTS_H
#define APOLLOD_COMMON_ARCH_AARCH64_ARCH_CONSTS_H

/* The arm64 vDSO exports clock_gettime as __kernel_clock_gettime (LINUX_2.6.39,
 * arch/arm64/kernel/vdso/vdso.lds.S); x86_64's is __vdso_clock_gettime. */
#define ARCH_VDSO_CLOCK_GETTIME "__kernel_clock_gettime"

/* The largest page the kernel may run with: arm64 kernels are built with 4, 16 or
 * 64 KiB pages (CONFIG_ARM64_{4K,16K,64K}_PAGES), and one binary must run on each. */
#define ARCH_PAGE_MAX 65536

#include <linux/audit.h> /* AUDIT_ARCH_* */

/* seccomp_data.arch for this architecture's calls (<linux/audit.h>): the sandbox's
 * filter refuses every other (common/process/sandbox.c). */
#define ARCH_AUDIT AUDIT_ARCH_AARCH64

/* open(2) flags whose values differ between architectures (asm/fcntl.h). */
#define ARCH_O_DIRECTORY 040000
#define ARCH_O_NOFOLLOW 0100000

/* The stack-protector guard of code built with -fstack-protector (Debian's libdeflate.a):
 * GCC on aarch64 reads the global __stack_chk_guard (renamed stack_guard_value,
 * third_party/libdeflate), not a thread-pointer slot; no thread pointer is set. */
#define ARCH_GUARD_IN_TLS 0

#endif /* APOLLOD_COMMON_ARCH_AARCH64_ARCH_CONSTS_H */
