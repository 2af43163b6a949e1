/* aarch64 Linux raw system calls.
 *
 * ABI (arch/arm64/kernel/syscall.c, entry.S; musl arch/aarch64/syscall_arch.h): syscall
 * number in x8; arguments in x0 to x5; `svc #0`; result in x0. The kernel preserves
 * every other general register (x1 to x5 keep their argument values), so only x0 is
 * written. A result in [-4095, -1] is -errno. The "memory" clobber is there because the
 * kernel reads and writes the buffers we pass by pointer.
 *
 * Numbers come from the kernel UAPI <asm/unistd.h>, which on arm64 is asm-generic's table:
 * no open, no epoll_wait, accept4 is 242. */
#ifndef APOLLOD_COMMON_ARCH_AARCH64_SYSCALL_ARCH_H
#define APOLLOD_COMMON_ARCH_AARCH64_SYSCALL_ARCH_H

#include <asm/unistd.h> /* __NR_* from the kernel UAPI: no libc involved */

/* x0 is both the first argument and the result, hence "+r" where it is an argument. */
#define ARCH_SVC(...) __asm__ volatile("svc #0" : "+r"(x0) : __VA_ARGS__ : "memory")

static inline long syscall0(long n)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0");
	__asm__ volatile("svc #0" : "=r"(x0) : "r"(x8) : "memory");
	return x0;
}

static inline long syscall1(long n, long a1)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a1;
	ARCH_SVC("r"(x8));
	return x0;
}

static inline long syscall2(long n, long a1, long a2)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a1;
	register long x1 __asm__("x1") = a2;
	ARCH_SVC("r"(x8), "r"(x1));
	return x0;
}

static inline long syscall3(long n, long a1, long a2, long a3)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a1;
	register long x1 __asm__("x1") = a2;
	register long x2 __asm__("x2") = a3;
	ARCH_SVC("r"(x8), "r"(x1), "r"(x2));
	return x0;
}

static inline long syscall4(long n, long a1, long a2, long a3, long a4)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a1;
	register long x1 __asm__("x1") = a2;
	register long x2 __asm__("x2") = a3;
	register long x3 __asm__("x3") = a4;
	ARCH_SVC("r"(x8), "r"(x1), "r"(x2), "r"(x3));
	return x0;
}

static inline long syscall5(long n, long a1, long a2, long a3, long a4, long a5)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a1;
	register long x1 __asm__("x1") = a2;
	register long x2 __asm__("x2") = a3;
	register long x3 __asm__("x3") = a4;
	register long x4 __asm__("x4") = a5;
	ARCH_SVC("r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4));
	return x0;
}

static inline long syscall6(long n, long a1, long a2, long a3, long a4, long a5, long a6)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a1;
	register long x1 __asm__("x1") = a2;
	register long x2 __asm__("x2") = a3;
	register long x3 __asm__("x3") = a4;
	register long x4 __asm__("x4") = a5;
	register long x5 __asm__("x5") = a6;
	ARCH_SVC("r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5));
	return x0;
}

#undef ARCH_SVC

/* The asm-generic table has no epoll_wait; epoll_pwait with a NULL signal mask is the
 * same call (fs/eventpoll.c: a NULL mask is never read, nor is its size checked).
 * common/base/sys_table.h numbers sys_epoll_wait with this. */
#define ARCH_NR_EPOLL_WAIT __NR_epoll_pwait

/* arm64 has no arch_prctl and needs none (ARCH_GUARD_IN_TLS is 0): a number no call has,
 * so the table's row stays unique; nothing makes the call on this arch. */
#define ARCH_NR_ARCH_PRCTL 0xffffffffu

#endif /* APOLLOD_COMMON_ARCH_AARCH64_SYSCALL_ARCH_H */
