/* Messages for the operator: the only writes to standard error. */
#ifndef APOLLOD_COMMON_CONSOLE_H
#define APOLLOD_COMMON_CONSOLE_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/static_assert.h"
#include "common/base/sys.h"

APOLLOD_EXTERN_C_BEGIN

/* Writes a NUL-free message of len bytes to stderr. A closed or full stderr must not stop
 * the daemon, so the result is ignored. Inline: one syscall, used only at start-up. */
static inline void write_stderr(const char *msg, size_t len)
{
	sys_write(K_STDERR, msg, len);
}

/* The longest line console_fail writes. */
#define CONSOLE_LINE_MAX 512

/* Writes the one line a fatal start-up failure ends with (BEHAVIOUR 3):
 * "apollod: <step> <subject>: <reason>\n", e.g. "apollod: bind 127.0.0.1:80: permission
 * denied", or "apollod: <step>: <reason>\n" when subject_len is 0. err is the failed
 * call's result (-errno); the reason is errno_text's. One write, so lines from several
 * processes do not interleave; a long subject is cut to fit CONSOLE_LINE_MAX. */
void console_fail(const char *step, const char *subject, size_t subject_len, long err);

/* Writes the line a refused file of the configuration ends the start with:
 * "apollod: <flag> <path>[:<line>]: <why>[: <errno text>]\n" (no line when line is 0, no
 * errno text when err is 0): --mime-types, --redirects and --headers. */
void console_file_problem(const char *flag, const char *path, uint32_t line, const char *why,
			  long err);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_CONSOLE_H */
