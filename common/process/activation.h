/* Socket activation (sd_listen_fds(3)'s protocol): a service manager that opened the
 * listening sockets itself passes them from descriptor 3 on, with LISTEN_FDS=N and
 * LISTEN_PID=<the pid that should take them> in the environment. The daemon then serves
 * those and binds nothing (BEHAVIOUR 13.5). */
#ifndef APOLLOD_COMMON_ACTIVATION_H
#define APOLLOD_COMMON_ACTIVATION_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/exit_codes.h"
#include "common/base/kernel_consts.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define ACTIVATION_FIRST_FD 3 /* SD_LISTEN_FDS_START */

#define ENV_DECIMAL_DIGITS_MAX 10 /* a pid or a descriptor count: below 2^32 */

/* The value of variable `name` (with its '=', name_len bytes) in envp (NULL-terminated
 * "NAME=value" words), or NULL. Pure. */
const char *env_value(char *const *envp, const char *name, size_t name_len);

/* s as a decimal number of 1..ENV_DECIMAL_DIGITS_MAX digits and nothing else, or -1. */
long env_decimal(const char *s);

/* How many sockets envp (NULL-terminated "NAME=value" words) passes to process pid: N
 * (1..max) when LISTEN_PID is pid in decimal and LISTEN_FDS is N; 0 when there is no
 * LISTEN_PID, it names another process, or LISTEN_FDS is absent (nothing passed to us:
 * bind as usual); -1 when LISTEN_PID is ours and LISTEN_FDS is 0, not a number, or more
 * than max. Pure. */
int activation_count(char *const *envp, long pid, uint32_t max);

/* Takes the n passed sockets, descriptors ACTIVATION_FIRST_FD + i: each must be a
 * listening stream socket (SO_ACCEPTCONN); each becomes close-on-exec, and non-blocking
 * exactly when sock_flags has K_SOCK_NONBLOCK (the backend's choice, as for a socket it
 * opens); addrs[i] receives its address. Returns EXIT_OK with fds[i] stored, or EXIT_LISTEN
 * after the line "apollod: LISTEN_FDS socket <fd>: <reason>". */
enum exit_code activation_take(uint32_t n, int sock_flags, union k_sockaddr *addrs, int *fds);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_ACTIVATION_H */
