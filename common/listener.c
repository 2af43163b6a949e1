/* Listening socket and process set-up (see listener.h). */
#include "common/listener.h"

#include "common/console.h"
#include "common/sys.h"

int startup_options(int argc, char **argv, unsigned accept, const char *usage,
		    size_t usage_len, struct cli_options *opts)
{
	if (!cli_parse(argc, argv, accept, opts)) {
		write_stderr(usage, usage_len);
		return EXIT_USAGE;
	}
	if (opts->help) {
		sys_write(K_STDOUT, usage, usage_len);
		return EXIT_OK;
	}
	return STARTUP_CONTINUE;
}

/* listener_open, with SO_REUSEPORT too when reuseport is 1. */
static enum exit_code open_listener(struct k_sockaddr_in *addr, int sock_flags, int reuseport,
				    int *fd)
{
	long s = sys_socket(K_AF_INET, K_SOCK_STREAM | K_SOCK_CLOEXEC | sock_flags, 0);
	if (sys_is_error(s))
		return EXIT_SOCKET;
	int one = 1;
	if (sys_is_error(sys_setsockopt((int)s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one))))
		return EXIT_SETSOCKOPT;
	if (reuseport &&
	    sys_is_error(sys_setsockopt((int)s, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one))))
		return EXIT_SETSOCKOPT;
	if (sys_is_error(sys_bind((int)s, addr)))
		return EXIT_BIND;
	if (sys_is_error(sys_listen((int)s, LISTEN_BACKLOG)))
		return EXIT_LISTEN;
	uint32_t len = K_SOCKADDR_IN_SIZE;
	if (sys_is_error(sys_getsockname((int)s, addr, &len)))
		return EXIT_LISTEN;
	*fd = (int)s;
	return EXIT_OK;
}

enum exit_code listener_open(struct k_sockaddr_in *addr, int sock_flags, int *fd)
{
	return open_listener(addr, sock_flags, 0, fd);
}

enum exit_code listener_open_group(struct k_sockaddr_in *addr, int sock_flags, uint32_t n,
				   int *fds)
{
	for (uint32_t i = 0; i < n; i++) {
		/* The first bind picks the port (port 0: the kernel's choice, written back to
		 * *addr); the others join it. */
		enum exit_code r = open_listener(addr, sock_flags, 1, &fds[i]);
		if (r != EXIT_OK)
			return r;
	}
	return EXIT_OK;
}

void listener_announce(const char *name, size_t name_len, const struct k_sockaddr_in *addr)
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
