/* The stack-protector guard (see stack_guard.h). */
#include "common/base/stack_guard.h"

#include <linux/auxvec.h> /* AT_RANDOM, AT_NULL */
#include <stddef.h>

#include "common/base/console.h"
#include "common/base/exit_codes.h"
#include "common/base/sys.h"

/* Used when auxv has no AT_RANDOM; its low byte is 0 as every guard's is (below). */
#define STACK_GUARD_FALLBACK ((uintptr_t)0x5a17c0dedbadf00ull << 8)
/* The low byte stays 0, as glibc's: an overflow by a string copy stops at it. */
#define STACK_GUARD_LOW_BYTE 0xffu

uintptr_t stack_guard_value = STACK_GUARD_FALLBACK;

#if ARCH_GUARD_IN_TLS
/* The x86_64 thread control block as GCC's guard reads see it: its first word points to
 * itself (the TLS ABI's tcbhead_t.tcb), the guard at ARCH_TLS_GUARD_OFFSET. */
struct tls_block {
	void *self;
	uintptr_t unused[4];
	uintptr_t guard;
};
STATIC_ASSERT(offsetof(struct tls_block, guard) == ARCH_TLS_GUARD_OFFSET,
	      "the guard where -fstack-protector reads it");
static struct tls_block tls_block __attribute__((aligned(64)));
#endif

/* The kernel's random word at AT_RANDOM, or STACK_GUARD_FALLBACK. */
static uintptr_t random_word(const uint64_t *auxv)
{
	for (; auxv && auxv[0] != AT_NULL; auxv += 2) {
		if (auxv[0] == AT_RANDOM) {
			const unsigned char *r = (const unsigned char *)auxv[1];
			uintptr_t w = 0;
			for (size_t i = 0; i < sizeof(w); i++)
				w = (w << 8) | r[i];
			return w;
		}
	}
	return STACK_GUARD_FALLBACK;
}

long stack_guard_init(const uint64_t *auxv)
{
	stack_guard_value = random_word(auxv) & ~(uintptr_t)STACK_GUARD_LOW_BYTE;
#if ARCH_GUARD_IN_TLS
	tls_block.self = &tls_block;
	tls_block.guard = stack_guard_value;
	return sys_arch_prctl(ARCH_SET_FS, &tls_block);
#else
	return 0;
#endif
}

void stack_guard_fail(void)
{
	write_stderr(STACK_GUARD_LINE, sizeof(STACK_GUARD_LINE) - 1);
	for (;;)
		sys_exit_group(EXIT_STACK_GUARD);
}
