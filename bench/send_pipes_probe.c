/* A probe (issue 34, send pipes): the sender's CPU per body for three ways of sending a
 * body that sits in a sealed memfd mapped read-only, over loopback TCP to a reader that
 * discards what it reads:
 *   copy      writev(head, body) from the mapping (apollod below FILE_BY_REFERENCE_MIN);
 *   sendfile  sendmsg(head, MSG_MORE) then sendfile from the memfd (apollod at 2 MiB+);
 *   file      the same sendfile from a regular file in the page cache (nginx's way, and
 *             apollod's for a file served from disk): the same bytes written to a file
 *             in $PROBE_DIR (default /var/tmp), read once, unlinked at exit;
 *   pipe      sendmsg(head, MSG_MORE) then vmsplice the mapping's pages into a pipe and
 *             splice the pipe to the socket (SPLICE_F_MOVE | SPLICE_F_NONBLOCK).
 * With COLLAPSE=1 in the environment the memfd's whole 2 MiB blocks are joined into huge
 * pages first (madvise MADV_COLLAPSE), as apollod does for its large bodies.
 * The sender runs connections sockets in one thread on epoll (edge triggered, like
 * apollod's epoll backend); the reader is a child process. Not a server, no HTTP: it
 * isolates the send path's kernel cost. Build and run:
 *   gcc -O2 -o /tmp/send_pipes_probe bench/send_pipes_probe.c
 *   /tmp/send_pipes_probe MODE SIZE_KIB SECONDS [CONNECTIONS] [SENDER_CPU READER_CPU]
 * Prints: mode, size, bodies sent, sender CPU (utime + stime, getrusage) in µs per body.
 * Libc is fine here: a measuring tool, not a daemon tier. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HEAD_LEN 240         /* about a file response's head */
#define CONNECTIONS_MAX 64   /* the probe's own bound on sockets */
#define PIPE_BYTES (1 << 20) /* F_SETPIPE_SZ: /proc/sys/fs/pipe-max-size's default */
#ifndef READ_CHUNK
#define READ_CHUNK (256 << 10) /* -DREAD_CHUNK=8192: like wrk, which reads 8 KiB at a time */
#endif

enum mode { COPY, SENDFILE, PIPE };

struct out {
	int fd;
	int pipe_r, pipe_w;
	uint64_t sent;     /* of head + body */
	uint64_t in_pipe;  /* body bytes in the pipe, not yet spliced out */
	uint64_t vmspliced; /* body bytes put in the pipe */
};

static char head[HEAD_LEN];

static void pin(int cpu)
{
	if (cpu < 0)
		return;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof set, &set);
}

static double cpu_us(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 + u.ru_utime.tv_usec +
	       u.ru_stime.tv_usec;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Pushes o's body onward until done (returns 1) or the socket is full (0), -1 on error. */
static int pump(struct out *o, enum mode m, const char *body, int memfd, uint64_t size)
{
	uint64_t total = HEAD_LEN + size;
	while (o->sent < total) {
		long n;
		if (m == COPY || o->sent < HEAD_LEN) {
			struct iovec v[2];
			int c = 0;
			if (o->sent < HEAD_LEN)
				v[c++] = (struct iovec){head + o->sent, HEAD_LEN - o->sent};
			if (m == COPY) {
				uint64_t at = o->sent > HEAD_LEN ? o->sent - HEAD_LEN : 0;
				v[c++] = (struct iovec){(char *)body + at, size - at};
				n = writev(o->fd, v, c);
			} else {
				struct msghdr h = {.msg_iov = v, .msg_iovlen = c};
				n = sendmsg(o->fd, &h, MSG_MORE);
			}
		} else if (m == SENDFILE) {
			off_t at = (off_t)(o->sent - HEAD_LEN);
			n = sendfile(o->fd, memfd, &at, size - (o->sent - HEAD_LEN));
		} else {
			if (o->vmspliced < size && o->in_pipe < PIPE_BYTES) {
				uint64_t room = PIPE_BYTES - o->in_pipe;
				uint64_t left = size - o->vmspliced;
				struct iovec v = {(char *)body + o->vmspliced, left < room ? left : room};
				long k = vmsplice(o->pipe_w, &v, 1, SPLICE_F_NONBLOCK);
				if (k > 0) {
					o->vmspliced += (uint64_t)k;
					o->in_pipe += (uint64_t)k;
				} else if (k < 0 && errno != EAGAIN) {
					return -1;
				}
			}
			n = splice(o->pipe_r, 0, o->fd, 0, o->in_pipe,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK |
					   (o->vmspliced < size ? SPLICE_F_MORE : 0));
			if (n > 0)
				o->in_pipe -= (uint64_t)n;
		}
		if (n < 0)
			return errno == EAGAIN ? 0 : -1;
		o->sent += (uint64_t)n;
	}
	o->sent = 0;
	o->vmspliced = 0;
	return 1;
}

static void reader(int n, int *fds, int cpu)
{
	pin(cpu);
	static char buf[READ_CHUNK];
	int ep = epoll_create1(0);
	for (int i = 0; i < n; i++) {
		struct epoll_event e = {.events = EPOLLIN, .data.fd = fds[i]};
		epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &e);
	}
	for (;;) {
		struct epoll_event ev[CONNECTIONS_MAX];
		int k = epoll_wait(ep, ev, CONNECTIONS_MAX, -1);
		for (int i = 0; i < k; i++)
			if (read(ev[i].data.fd, buf, sizeof buf) <= 0)
				_exit(0);
	}
}

#define HUGE_BLOCK (2u << 20) /* x86_64's PMD size */

/* The memfd mapped read-only; with collapse at a HUGE_BLOCK boundary, then joined into
 * huge pages by madvise(MADV_COLLAPSE) (Linux 6.1; 25 in mman-common.h), whose result
 * goes to stderr. */
static const char *map_body(int memfd, uint64_t size, int collapse)
{
	if (!collapse)
		return mmap(0, size, PROT_READ, MAP_SHARED | MAP_POPULATE, memfd, 0);
	char *r = mmap(0, size + HUGE_BLOCK, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *at = (char *)(((uintptr_t)r + HUGE_BLOCK - 1) & ~(uintptr_t)(HUGE_BLOCK - 1));
	char *m = mmap(at, size, PROT_READ, MAP_SHARED | MAP_FIXED | MAP_POPULATE, memfd, 0);
	int rc = madvise(m, size & ~(uint64_t)(HUGE_BLOCK - 1), 25 /* MADV_COLLAPSE */);
	fprintf(stderr, "collapse: %s\n", rc ? strerror(errno) : "joined");
	return m;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s copy|sendfile|file|pipe SIZE_KIB SECONDS [CONNS] [SCPU RCPU]\n",
			argv[0]);
		return 2;
	}
	int from_file = !strcmp(argv[1], "file");
	enum mode m = !strcmp(argv[1], "copy")			    ? COPY
		      : !strcmp(argv[1], "sendfile") || from_file ? SENDFILE
								    : PIPE;
	uint64_t size = strtoull(argv[2], 0, 10) << 10;
	double seconds = atof(argv[3]);
	int conns = argc > 4 ? atoi(argv[4]) : 8;
	int scpu = argc > 6 ? atoi(argv[5]) : -1, rcpu = argc > 6 ? atoi(argv[6]) : -1;
	if (conns < 1 || conns > CONNECTIONS_MAX)
		return 2;
	memset(head, 'h', sizeof head);
	/* The body as apollod holds it: a memfd, written, sealed, mapped read-only. */
	int memfd = memfd_create("probe", MFD_ALLOW_SEALING);
	char *w = malloc(size);
	for (uint64_t i = 0; i < size; i++)
		w[i] = (char)(i * 7);
	if (write(memfd, w, size) != (long)size)
		return 1;
	char path[4096];
	snprintf(path, sizeof path, "%s/send_pipes_probe.XXXXXX",
		 getenv("PROBE_DIR") ? getenv("PROBE_DIR") : "/var/tmp");
	int file = from_file ? mkstemp(path) : -1;
	if (from_file && (file < 0 || write(file, w, size) != (long)size))
		return 1;
	free(w);
	fcntl(memfd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK);
	/* COLLAPSE=1: mapped at a 2 MiB boundary and joined into huge pages first, as the
	 * daemon's large bodies are (huge_pages.h); a memfd under 2 MiB has no whole block. */
	const char *body = map_body(memfd, size, getenv("COLLAPSE") != NULL);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	bind(lfd, (struct sockaddr *)&a, sizeof a);
	listen(lfd, CONNECTIONS_MAX);
	getsockname(lfd, (struct sockaddr *)&a, &al);
	int cfds[CONNECTIONS_MAX];
	struct out o[CONNECTIONS_MAX] = {0};
	for (int i = 0; i < conns; i++) {
		cfds[i] = socket(AF_INET, SOCK_STREAM, 0);
		connect(cfds[i], (struct sockaddr *)&a, sizeof a);
		o[i].fd = accept4(lfd, 0, 0, SOCK_NONBLOCK);
		int p[2];
		pipe2(p, O_NONBLOCK);
		fcntl(p[1], F_SETPIPE_SZ, PIPE_BYTES);
		o[i].pipe_r = p[0];
		o[i].pipe_w = p[1];
	}
	pid_t child = fork();
	if (child == 0)
		reader(conns, cfds, rcpu);
	for (int i = 0; i < conns; i++)
		close(cfds[i]);
	pin(scpu);
	int ep = epoll_create1(0);
	for (int i = 0; i < conns; i++) {
		struct epoll_event e = {.events = EPOLLOUT | EPOLLET, .data.u32 = (uint32_t)i};
		epoll_ctl(ep, EPOLL_CTL_ADD, o[i].fd, &e);
	}
	uint64_t bodies = 0;
	int ready[CONNECTIONS_MAX] = {0}; /* an edge came and the socket has not filled */
	double c0 = cpu_us(), t_end = now_s() + seconds;
	while (now_s() < t_end) {
		int any = 0;
		for (int i = 0; i < conns; i++)
			any |= ready[i];
		struct epoll_event ev[CONNECTIONS_MAX];
		int k = epoll_wait(ep, ev, CONNECTIONS_MAX, any ? 0 : 100);
		for (int i = 0; i < k; i++)
			ready[ev[i].data.u32] = 1;
		for (int i = 0; i < conns; i++) { /* one body each, in turn, like a server's loop */
			if (!ready[i])
				continue;
			int r = pump(&o[i], m, body, from_file ? file : memfd, size);
			if (r < 0) {
				perror("send");
				return 1;
			}
			bodies += (uint64_t)r;
			ready[i] = r;
		}
	}
	double c1 = cpu_us();
	kill(child, SIGKILL);
	waitpid(child, 0, 0);
	if (from_file)
		unlink(path);
	printf("%s %llu KiB bodies %llu cpu_us_per_body %.1f\n", argv[1],
	       (unsigned long long)(size >> 10), (unsigned long long)bodies,
	       bodies ? (c1 - c0) / bodies : 0.0);
	return 0;
}
