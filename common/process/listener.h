/* Start-up shared by every tier: the listening socket, the start-up line, SIGPIPE. */
#ifndef APOLLOD_COMMON_LISTENER_H
#define APOLLOD_COMMON_LISTENER_H

#include <stddef.h>
#include <stdint.h>

#include "common/process/cli.h"
#include "common/base/exit_codes.h"
#include "common/base/kernel_consts.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* listen(2)'s backlog, which the kernel caps at net.core.somaxconn (4096 since Linux 5.4).
 * As deep as the table: under an idle flood the connections the table cannot hold wait
 * here, and a fresh client's SYN finds room behind them (the loop evicts one per accept)
 * instead of being dropped and retried a second later (BEHAVIOUR 4). */
#define LISTEN_BACKLOG 4096

/* startup_options() result when the process should go on and serve. */
#define STARTUP_CONTINUE (-1)

/* Who is starting: the name its messages and usage line use, its tier, and the flags it
 * accepts (CLI_ACCEPT_*). */
struct program {
	const char *name; /* "apollod", "apollod-min" */
	const char *tier; /* the tier's name in bazel/tiers.bzl (APOLLOD_TIER_NAME) */
	unsigned accept;
};

/* Parses the command line into *opts with cli_parse(prog->accept). On a bad flag or
 * value writes a line naming the word at fault, then the usage line, to stderr and
 * returns EXIT_USAGE; on --help writes the usage line and one row per flag with its
 * default to stdout and returns EXIT_OK; on --version writes "<name> <version> (tier
 * <tier>)" to stdout and returns EXIT_OK; otherwise returns STARTUP_CONTINUE. */
int startup_options(int argc, char **argv, const struct program *prog,
		    struct cli_options *opts);

/* socket(addr's family, SOCK_STREAM | SOCK_CLOEXEC | sock_flags), SO_REUSEADDR (and for
 * IPv6 IPV6_V6ONLY), bind(*addr),
 * listen(LISTEN_BACKLOG), then getsockname into *addr so a port 0 request comes back
 * with the kernel's choice. sock_flags is 0 or K_SOCK_NONBLOCK.
 * Returns EXIT_OK and stores the descriptor in *fd, or the exit code of the step that
 * failed (EXIT_SOCKET, EXIT_SETSOCKOPT, EXIT_BIND, EXIT_LISTEN) after writing the line
 * that names it, the address and the reason (console_fail). */
enum exit_code listener_open(union k_sockaddr *addr, int sock_flags, int *fd);

/* Writes the console line of a fatal error of `step` (a call) with err (-errno) on
 * listener fd: console_fail with fd's bound address as the subject, "apollod: <step>
 * <address>: <reason>", or without the address when fd is -1 or has none. Here, not in
 * console.c, because the address is formatted as --listen takes it (cli.h). Returns code.
 * Used on the way out, so its getsockname is not counted among the serving path's
 * syscalls. */
enum exit_code console_fail_fd(const char *step, int fd, long err, enum exit_code code);

/* Writes "<name> listening on <address>\n" (cli_format_announce) to stdout. A closed or failing stdout is
 * not an error (BEHAVIOUR 2), so the result is ignored. */
void listener_announce(const char *name, size_t name_len, const union k_sockaddr *addr);

/* Ignores SIGPIPE for the whole process, so a write to a peer that has gone returns
 * -EPIPE instead of killing the daemon (every write path: write, writev).
 * Returns 0 or -errno from rt_sigaction(2). */
long ignore_sigpipe(void);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_LISTENER_H */
