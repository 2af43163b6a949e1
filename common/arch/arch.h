/* Architecture dispatch: the only place that tests the target CPU.
 *
 * Each supported CPU provides the same three files under common/arch/<cpu>/:
 *   syscall_arch.h  raw syscallN() primitives and the kernel's syscall numbers, and
 *                   ARCH_NR_* for a call the architectures number differently (sys_table.h)
 *   arch_consts.h   per-architecture kernel facts (vDSO symbol names, ...)
 *   mem_arch.h      block copy and fill for memcpy and memset, where the cpu has a
 *                   better one than a word loop (common/base/mem_words.h)
 *   start.S         _start: hands the initial stack pointer to apollod_start()
 *   min_tier.S      the min tier's apollod_start, its whole program (min_tier.h)
 * An arch may also override a generic routine by defining its name as a macro, as musl's
 * arch files do: arch_atomic_add_u64 (common/base/counters.h, in atomic_arch.h) where the compiler's atomic
 * builtin is not the instruction we want, arch_copy_block and arch_fill_block (mem_arch.h).
 * Generic code includes this header and never tests __x86_64__ itself. */
#ifndef APOLLOD_COMMON_ARCH_ARCH_H
#define APOLLOD_COMMON_ARCH_ARCH_H

#if defined(__x86_64__)
#include "common/arch/x86_64/syscall_arch.h"
#include "common/arch/x86_64/arch_consts.h"
#include "common/arch/x86_64/mem_arch.h"
#elif defined(__aarch64__)
#include "common/arch/aarch64/syscall_arch.h"
#include "common/arch/aarch64/arch_consts.h"
#include "common/arch/aarch64/atomic_arch.h"
#include "common/arch/aarch64/mem_arch.h"
#else
#error "unsupported architecture"
#endif

#endif /* APOLLOD_COMMON_ARCH_ARCH_H */
