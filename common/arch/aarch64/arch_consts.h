/* aarch64 kernel facts that differ between architectures. */
#ifndef APOLLOD_COMMON_ARCH_AARCH64_ARCH_CONSTS_H
#define APOLLOD_COMMON_ARCH_AARCH64_ARCH_CONSTS_H

/* The arm64 vDSO exports clock_gettime as __kernel_clock_gettime (LINUX_2.6.39,
 * arch/arm64/kernel/vdso/vdso.lds.S); x86_64's is __vdso_clock_gettime. */
#define ARCH_VDSO_CLOCK_GETTIME "__kernel_clock_gettime"

#endif /* APOLLOD_COMMON_ARCH_AARCH64_ARCH_CONSTS_H */
