/* aarch64 counter increment: one LSE `stadd` (FEAT_LSE, ARMv8.1-A).
 *
 * GCC 12 compiles a relaxed __atomic_fetch_add whose result is unused to `ldadd` with a
 * scratch destination register; that is the same atomic, but the original daemon and the
 * comparison count `stadd` (LDADD with Rt = xzr, "result discarded"), which also spares a
 * register. The tree builds with -march=armv8.1-a (bazel/aarch64), so no LL/SC fallback
 * (ldxr/stxr loop) exists. Relaxed: no ordering toward other data is implied. */
#ifndef APOLLOD_COMMON_ARCH_AARCH64_ATOMIC_ARCH_H
#define APOLLOD_COMMON_ARCH_AARCH64_ATOMIC_ARCH_H

#include <stdint.h>

/* Adds n to the 8-byte word *word atomically; expects word 8-byte aligned. */
static inline void arch_atomic_add_u64(uint64_t *word, uint64_t n)
{
	__asm__ volatile("stadd %x1, %0" : "+Q"(*word) : "r"(n));
}
#define arch_atomic_add_u64 arch_atomic_add_u64

#endif /* APOLLOD_COMMON_ARCH_AARCH64_ATOMIC_ARCH_H */
