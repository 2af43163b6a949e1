/* The daemon's own sandbox (BEHAVIOUR 19): once a serving process has bound its sockets and
 * loaded its snapshot it sets no_new_privs, narrows the file system to reading --root
 * (Landlock, where the kernel has it) and installs a seccomp filter built from the one
 * syscall table (common/base/sys_table.h) that kills the process on any call outside it.
 * --user drops root before that. */
#ifndef APOLLOD_COMMON_PROCESS_SANDBOX_H
#define APOLLOD_COMMON_PROCESS_SANDBOX_H

#include <stdint.h>

#include <linux/filter.h> /* struct sock_filter, BPF_* */

#include "common/base/exit_codes.h"
#include "common/base/static_assert.h"
#include "common/base/sys_table.h"

APOLLOD_EXTERN_C_BEGIN

/* The filter's length at most: 4 instructions before the rows (the arch check and the
 * number's load), a row's at most (its number's test, the argument's load, one test per
 * value, a kill and an allow) and the final kill. */
#define SANDBOX_PROLOGUE 4
#define SANDBOX_ROW_MAX (SYS_ARG_VALUES_MAX + 4)
#define SANDBOX_FILTER_MAX (SANDBOX_PROLOGUE + SYS_TABLE_ROWS * SANDBOX_ROW_MAX + 1)
STATIC_ASSERT(SANDBOX_FILTER_MAX <= 4096, "BPF_MAXINSNS (include/uapi/linux/bpf_common.h)");
STATIC_ASSERT(SANDBOX_ROW_MAX < 256, "a row's block fits an 8-bit jump");

/* Builds into out (SANDBOX_FILTER_MAX entries) the seccomp-bpf program that allows the
 * rows of sys_rows whose `when` has a bit of `allow` (SYS_SERVE), with their
 * argument checks, for this architecture's audit arch only, and returns
 * SECCOMP_RET_KILL_PROCESS for anything else. Returns the instructions written. Pure. */
uint32_t sandbox_filter(uint32_t allow, struct sock_filter *out);

/* What sandbox_enter did. */
enum sandbox_outcome {
	SANDBOX_ON,        /* the filter is installed */
	SANDBOX_ABSENT,    /* the system has no seccomp (prctl(PR_GET_SECCOMP) refused): a
			    * kernel without CONFIG_SECCOMP, or qemu-user, which refuses it to
			    * its guest so no guest filter can reach the emulator */
};

/* Sets no_new_privs and installs sandbox_filter(allow). Called once per serving process:
 * no serving process starts an image (the resident supervisor, unfiltered, does), so no
 * filter is ever found already in place. Returns an outcome (>= 0) or the failed prctl's
 * -errno. */
long sandbox_enter(uint32_t allow);

/* Landlock: from here on the file system is read-only beneath each of the n dirs (none:
 * no access at all), files and directories; nothing else may be opened, written, made or
 * executed.
 * Descriptors already open are unaffected. Sets no_new_privs (landlock_restrict_self
 * needs it). Returns the kernel's Landlock ABI version (>= 1) when in force, 0 when the
 * kernel has no Landlock (ENOSYS, EOPNOTSUPP: skipped), or -errno. */
long sandbox_landlock(const char *const *dirs, uint32_t n);

/* --user USER[:GROUP] (BEHAVIOUR 19.3): resolves the names (/etc/passwd, /etc/group; numbers
 * need no file), then as root sets the supplementary groups to GROUP alone, then the gid,
 * then the uid. Already running as exactly that uid and gid (a reload's new image) is
 * success. Returns EXIT_OK, or EXIT_USER after one line "apollod: --user 'SPEC': WHY". */
enum exit_code sandbox_user(const char *spec);

/* What sandbox_user would refuse, checked without changing anything: called before the
 * announcement (BEHAVIOUR 3), so a bad --user never prints `listening on`. Returns
 * EXIT_OK, or EXIT_USER after the same line sandbox_user would write. */
enum exit_code sandbox_user_check(const char *spec);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_PROCESS_SANDBOX_H */
