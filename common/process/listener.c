/* Listening socket and process set-up (see listener.h). */
#include "common/process/listener.h"

#include "common/base/console.h"
#include "common/base/text_out.h"
#include "common/base/version.h"
#include "common/base/sys.h"

/* Writes the usage line for accept to fd. */
static void write_usage(int fd, const char *name, unsigned accept)
{
	char line[CLI_USAGE_MAX];
	sys_write(fd, line, cli_format_usage(line, sizeof(line), name, accept));
}

/* --help on stdout: the usage line, then one row per flag with its default. */
static void write_help(const char *name, unsigned accept)
{
	char row[CLI_LINE_MAX];
	write_usage(K_STDOUT, name, accept);
	for (unsigned i = 0; i < cli_flag_rows(); i++) {
		size_t n = cli_format_help_row(row, sizeof(row), i, accept);
		if (n)
			sys_write(K_STDOUT, row, n);
	}
}

int startup_options(int argc, char **argv, const struct program *prog,
		    struct cli_options *opts)
{
	char line[CLI_LINE_MAX];
	if (!cli_parse(argc, argv, prog->accept, opts)) {
		write_stderr(line, cli_format_problem(line, sizeof(line), opts));
		write_usage(K_STDERR, prog->name, prog->accept);
		return EXIT_USAGE;
	}
	if (opts->help) {
		write_help(prog->name, prog->accept);
		return EXIT_OK;
	}
	if (opts->version) {
		struct text_out o = {line, line + sizeof(line)};
		put_cstr(&o, prog->name);
		put_cstr(&o, " " APOLLOD_VERSION " (tier ");
		put_cstr(&o, prog->tier);
		put_cstr(&o, ")\n");
		sys_write(K_STDOUT, line, (size_t)(o.p - line));
		return EXIT_OK;
	}
	return STARTUP_CONTINUE;
}

/* Reports the failed step on addr (console_fail) and returns code. */
static enum exit_code listener_failed(const char *step, const union k_sockaddr *addr,
				      long err, enum exit_code code)
{
	char text[CLI_ADDR_MAX];
	console_fail(step, text, cli_format_addr(text, addr), err);
	return code;
}

enum exit_code console_fail_fd(const char *step, int fd, long err, enum exit_code code)
{
	union k_sockaddr addr;
	uint32_t addr_len = sizeof addr;
	if (fd >= 0 && !sys_is_error(sys_getsockname(fd, &addr, &addr_len)))
		return listener_failed(step, &addr, err, code);
	console_fail(step, 0, 0, err);
	return code;
}

enum exit_code listener_open(union k_sockaddr *addr, int sock_flags, int *fd)
{
	long s = sys_socket(addr->family, K_SOCK_STREAM | K_SOCK_CLOEXEC | sock_flags, 0);
	if (sys_is_error(s))
		return listener_failed("socket", addr, s, EXIT_SOCKET);
	int one = 1;
	long r = sys_setsockopt((int)s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (sys_is_error(r))
		return listener_failed("setsockopt SO_REUSEADDR", addr, r, EXIT_SETSOCKOPT);
	/* [::] means IPv6 only, whatever net.ipv6.bindv6only says (BEHAVIOUR 13.4). */
	if (addr->family == K_AF_INET6 &&
	    sys_is_error(r = sys_setsockopt((int)s, K_IPPROTO_IPV6, K_IPV6_V6ONLY, &one,
					    sizeof(one))))
		return listener_failed("setsockopt IPV6_V6ONLY", addr, r, EXIT_SETSOCKOPT);
	if (sys_is_error(r = sys_bind((int)s, addr)))
		return listener_failed("bind", addr, r, EXIT_BIND);
	if (sys_is_error(r = sys_listen((int)s, LISTEN_BACKLOG)))
		return listener_failed("listen", addr, r, EXIT_LISTEN);
	uint32_t len = k_sockaddr_len(addr);
	if (sys_is_error(r = sys_getsockname((int)s, addr, &len)))
		return listener_failed("getsockname", addr, r, EXIT_LISTEN);
	*fd = (int)s;
	return EXIT_OK;
}

void listener_announce(const char *name, size_t name_len, const union k_sockaddr *addr)
{
	char line[CLI_ANNOUNCE_MAX];
	size_t n = cli_format_announce(line, name, name_len, addr);
	sys_write(K_STDOUT, line, n);
}

long ignore_sigpipe(void)
{
	/* SIG_IGN needs no handler trampoline, so no SA_RESTORER either. */
	struct k_sigaction act = {.handler = K_SIG_IGN};
	return sys_rt_sigaction(K_SIGPIPE, &act, 0);
}
