/* Messages for the operator: the only writes to standard error. */
#ifndef APOLLOD_COMMON_CONSOLE_H
#define APOLLOD_COMMON_CONSOLE_H

#include <stddef.h>

#include "common/static_assert.h"
#include "common/sys.h"

APOLLOD_EXTERN_C_BEGIN

/* Writes a NUL-free message of len bytes to stderr. A closed or full stderr must not stop
 * the daemon, so the result is ignored. Inline: one syscall, used only at start-up. */
static inline void write_stderr(const char *msg, size_t len)
{
	sys_write(K_STDERR, msg, len);
}

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_CONSOLE_H */
