/* x86_64 Linux raw system calls.
 *
 * ABI (x86_64 psABI A.2.1, Linux entry_64.S): syscall number in rax; arguments in rdi,
 * rsi, rdx, r10, r8, r9 (r10 replaces rcx, which `syscall` overwrites with the return
 * address); result in rax; rcx and r11 (saved rflags) are clobbered; every other register
 * is preserved. A result in [-4095, -1] is -errno. The "memory" clobber is there because
 * the kernel reads and writes the buffers we pass by pointer. */
#ifndef APOLLOD_COMMON_ARCH_X86_64_SYSCALL_ARCH_H
#define APOLLOD_COMMON_ARCH_X86_64_SYSCALL_ARCH_H

#include <asm/unistd.h> /* __NR_* from the kernel UAPI: no libc involved */

static inline long syscall0(long n)
{
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(n) : "rcx", "r11", "memory");
	return ret;
}

static inline long syscall1(long n, long a1)
{
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a1) : "rcx", "r11", "memory");
	return ret;
}

static inline long syscall2(long n, long a1, long a2)
{
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a1), "S"(a2)
			 : "rcx", "r11", "memory");
	return ret;
}

static inline long syscall3(long n, long a1, long a2, long a3)
{
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a1), "S"(a2), "d"(a3)
			 : "rcx", "r11", "memory");
	return ret;
}

static inline long syscall4(long n, long a1, long a2, long a3, long a4)
{
	long ret;
	register long r10 __asm__("r10") = a4;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a1), "S"(a2), "d"(a3), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

static inline long syscall5(long n, long a1, long a2, long a3, long a4, long a5)
{
	long ret;
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return ret;
}

static inline long syscall6(long n, long a1, long a2, long a3, long a4, long a5, long a6)
{
	long ret;
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* epoll_wait itself (aarch64 numbers its epoll_pwait instead; sys_table.h). */
#define ARCH_NR_EPOLL_WAIT __NR_epoll_wait

/* arch_prctl: the thread pointer for the stack-protector guard (arch_consts.h). */
#define ARCH_NR_ARCH_PRCTL __NR_arch_prctl

#endif /* APOLLOD_COMMON_ARCH_X86_64_SYSCALL_ARCH_H */
