/* Socket activation (see activation.h). */
#include "common/process/activation.h"

#include "common/base/console.h"
#include "common/base/span.h"
#include "common/base/sys.h"

STATIC_ASSERT(K_SOCK_NONBLOCK == K_O_NONBLOCK, "socket(2) and fcntl(2) agree on the flag");

const char *env_value(char *const *envp, const char *name, size_t name_len)
{
	for (; envp && *envp; envp++)
		if (cstr_len(*envp) >= name_len && span_eq(*envp, name, name_len))
			return *envp + name_len;
	return 0;
}

long env_decimal(const char *s)
{
	long v = 0;
	int n = 0;
	for (; *s >= '0' && *s <= '9'; s++, n++)
		if (n < ENV_DECIMAL_DIGITS_MAX)
			v = v * 10 + (*s - '0');
	return n == 0 || n > ENV_DECIMAL_DIGITS_MAX || *s ? -1 : v;
}

int activation_count(char *const *envp, long pid, uint32_t max)
{
	const char *listen_pid = env_value(envp, LITERAL("LISTEN_PID="));
	const char *listen_fds = env_value(envp, LITERAL("LISTEN_FDS="));
	if (!listen_pid || env_decimal(listen_pid) != pid || !listen_fds)
		return 0;
	long n = env_decimal(listen_fds);
	return n >= 1 && n <= (long)max ? (int)n : -1;
}

/* Reports passed socket fd's failure err; returns EXIT_LISTEN. */
static enum exit_code passed_socket_failed(int fd, long err)
{
	char digits[U64_DEC_MAX];
	console_fail("LISTEN_FDS socket", digits, u64_to_dec((uint64_t)fd, digits), err);
	return EXIT_LISTEN;
}

/* Makes passed socket fd ready to serve as activation_take says. Returns 0 or -errno. */
static long take_one(int fd, int sock_flags, union k_sockaddr *addr)
{
	int listening = 0;
	uint32_t len = sizeof(listening);
	long r = sys_getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len);
	if (sys_is_error(r))
		return r;
	if (!listening)
		return -EINVAL; /* a socket, but not listening (or not a stream socket) */
	len = sizeof(*addr);
	if (sys_is_error(r = sys_getsockname(fd, addr, &len)))
		return r;
	if (addr->family != K_AF_INET && addr->family != K_AF_INET6)
		return -EAFNOSUPPORT; /* a Unix socket: the daemon speaks TCP only */
	if (sys_is_error(r = sys_fcntl(fd, K_F_SETFD, K_FD_CLOEXEC)))
		return r;
	long flags = sys_fcntl(fd, K_F_GETFL, 0);
	if (sys_is_error(flags))
		return flags;
	flags = sock_flags & K_SOCK_NONBLOCK ? flags | K_O_NONBLOCK : flags & ~K_O_NONBLOCK;
	return sys_fcntl(fd, K_F_SETFL, flags);
}

enum exit_code activation_take(uint32_t n, int sock_flags, union k_sockaddr *addrs, int *fds)
{
	for (uint32_t i = 0; i < n; i++) {
		int fd = ACTIVATION_FIRST_FD + (int)i;
		long r = take_one(fd, sock_flags, &addrs[i]);
		if (sys_is_error(r))
			return passed_socket_failed(fd, r);
		fds[i] = fd;
	}
	return EXIT_OK;
}
