/* first_response: the program hyperfine times for "exec to first complete response".
 * It starts a server, waits until it can take a connection, sends one `GET /`, reads the
 * whole response (the server closes: Connection: close), then kills the server.
 *
 * Usage:
 *   first_response --announce -- DAEMON ARGS...   an apollod tier started on port 0: the
 *       port comes from its "... listening on ADDR:PORT" line on standard output
 *   first_response --port PORT -- SERVER ARGS...  a server that announces nothing
 *       (nginx): connect to 127.0.0.1:PORT, retrying while it is refused
 *
 * Exits 0 when the response begins "HTTP/1.1 200", 1 otherwise (also on the 5 s bound).
 * A tool, not daemon code: it uses libc. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BOUND_SECONDS 5 /* the whole run, whatever happens */
#define RETRY_NS 100000 /* 0.1 ms between refused connects */

static const char request[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
static const char ok_prefix[] = "HTTP/1.1 200";

static pid_t server_pid = -1;

/* Kills and reaps the server, if one was started. */
static void stop_server(void)
{
	if (server_pid > 0) {
		kill(server_pid, SIGKILL);
		waitpid(server_pid, NULL, 0);
		server_pid = -1;
	}
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "first_response: no response within the bound\n";
	if (write(2, msg, sizeof(msg) - 1) < 0) { /* nothing more to do */
	}
	if (server_pid > 0)
		kill(server_pid, SIGKILL);
	_exit(1);
}

/* Starts argv[0] with its standard output on a pipe if stdout_fd is non-NULL.
 * Returns the child's pid, or -1. */
static pid_t start_server(char **argv, int *stdout_fd)
{
	int fds[2];
	if (stdout_fd && pipe2(fds, O_CLOEXEC) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		if (stdout_fd && dup2(fds[1], 1) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	if (stdout_fd) {
		close(fds[1]);
		*stdout_fd = fds[0];
	}
	return pid;
}

/* Reads the server's standard output until a line containing "listening on A.B.C.D:PORT".
 * Returns the port, or -1 at end of file. */
static int read_announced_port(int fd)
{
	char line[256];
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, line + len, sizeof(line) - 1 - len);
		if (n <= 0)
			return -1;
		len += (size_t)n;
		line[len] = '\0';
		char *at = strstr(line, "listening on ");
		char *end = at ? strchr(at, '\n') : NULL;
		if (end) {
			char *colon = strrchr(at, ':');
			return colon ? atoi(colon + 1) : -1;
		}
		if (len == sizeof(line) - 1)
			return -1; /* no such line in the first 255 bytes */
	}
}

/* Connects to 127.0.0.1:port; with retry_refused, waits while the server is not yet
 * listening. Returns the socket, or -1. */
static int connect_loopback(int port, int retry_refused)
{
	struct sockaddr_in addr = {
		.sin_family = AF_INET,
		.sin_port = htons((uint16_t)port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	for (;;) {
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0)
			return -1;
		if (connect(s, (struct sockaddr *)&addr, sizeof(addr)) == 0)
			return s;
		int err = errno;
		close(s);
		if (!retry_refused || err != ECONNREFUSED)
			return -1;
		struct timespec pause = {0, RETRY_NS};
		nanosleep(&pause, NULL);
	}
}

/* Sends the request on s and reads until the server closes. Returns 1 on a 200. */
static int exchange(int s)
{
	if (write(s, request, sizeof(request) - 1) != (ssize_t)(sizeof(request) - 1))
		return 0;
	char head[sizeof(ok_prefix)];
	size_t got = 0;
	char buf[4096];
	ssize_t n;
	while ((n = read(s, buf, sizeof(buf))) > 0) {
		size_t take = (size_t)n;
		if (take > sizeof(head) - 1 - got)
			take = sizeof(head) - 1 - got;
		memcpy(head + got, buf, take);
		got += take;
	}
	return got == sizeof(ok_prefix) - 1 && memcmp(head, ok_prefix, got) == 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: first_response (--announce | --port PORT) -- SERVER ARGS...\n");
	return 64;
}

int main(int argc, char **argv)
{
	int announce = 0;
	int port = -1;
	int i = 1;
	if (i < argc && strcmp(argv[i], "--announce") == 0) {
		announce = 1;
		i++;
	} else if (i + 1 < argc && strcmp(argv[i], "--port") == 0) {
		port = atoi(argv[i + 1]);
		i += 2;
	}
	if ((!announce && port <= 0) || i + 1 >= argc || strcmp(argv[i], "--") != 0)
		return usage();
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);
	alarm(BOUND_SECONDS);

	int out = -1;
	server_pid = start_server(argv + i + 1, announce ? &out : NULL);
	if (server_pid < 0)
		return 1;
	if (announce)
		port = read_announced_port(out);
	int ok = 0;
	if (port > 0) {
		int s = connect_loopback(port, !announce);
		if (s >= 0) {
			ok = exchange(s);
			close(s);
		}
	}
	stop_server();
	if (!ok)
		fprintf(stderr, "first_response: no 200 from %s\n", argv[i + 1]);
	return ok ? 0 : 1;
}
