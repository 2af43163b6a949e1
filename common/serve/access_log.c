/* The access log (see access_log.h): the descriptor, the per-slot peers and held
 * records, and the buffer of finished lines.
 *
 * A response's line is made into a record (access_log_line.h) when it is queued: the
 * request's bytes are gone by the time it has been sent. The record waits in its
 * connection's held area, in queue order, with the count of its response's bytes not yet
 * sent; each send takes its bytes off the records in order, and a record whose count
 * reaches 0 becomes a line in the buffer then: its service time runs from the return of
 * the read(2) that brought the request head's last byte to the send that took the
 * response's last byte (BEHAVIOUR 14). A connection that ends with records held writes
 * them then, as cut. With --site, each line also names the request's host (Host, or an
 * absolute-form target's authority, as sent; access_log_line.h). */
#include "common/serve/access_log.h"

#include <linux/fcntl.h> /* O_*, F_GETFL, F_SETFL, AT_FDCWD, AT_EMPTY_PATH */
#include <linux/stat.h>  /* struct statx, STATX_TYPE, S_IFMT, S_IFREG */

#include "common/base/clock.h"
#include "common/base/console.h"
#include "common/base/counters.h"
#include "common/base/sys.h"

#define LOG_FILE_MODE 0644
#define AF_INET6_FAMILY 10 /* AF_INET6 (linux/socket.h) */
#define PEER_ADDR_MAX 28   /* sizeof(struct sockaddr_in6) */
#define V6_GROUPS 8

/* In .bss, not .data: an initializer would put the 64 KiB buffer in the file. fd is set
 * by access_log_open, before anything else reads it. */
struct access_log_state access_log;

/* What the log keeps of one connection, by descriptor (a per-slot array): what a line
 * needs besides the request, in one 64-byte record, so a line reads one place per slot. */
struct log_peer {
	uint64_t arrived_us;             /* the last read that brought bytes (clock_now_us) */
	uint16_t held_len;               /* bytes of records in log_held[fd] */
	uint8_t host_len;                /* bytes of host */
	char host[ACCESS_LOG_HOST_MAX];  /* the peer's address as text */
	uint8_t reserved[14];
};
#define LOG_PEER_SIZE 64
STATIC_ASSERT(sizeof(struct log_peer) == LOG_PEER_SIZE, "no padding beyond the record");
STATIC_ASSERT(ACCESS_LOG_HOST_MAX <= UINT8_MAX, "host_len fits its byte");
static struct log_peer log_peer[CONN_SLOTS];
/* Each slot's held records (access_log_line.h), in the order of its queue; only the
 * pages of slots whose responses wait with the log on are ever touched. */
static char log_held[CONN_SLOTS][ACCESS_LOG_HELD_SIZE] __attribute__((aligned(ACCESS_LOG_ALIGN)));

/* "apollod: --access-log PATH: what (errno N)" on stderr. Returns EXIT_ACCESS_LOG. */
static enum exit_code open_failed(const char *path, const char *what, long err)
{
	char num[U64_DEC_MAX];
	write_stderr(LITERAL("apollod: --access-log "));
	write_stderr(path, cstr_len(path));
	write_stderr(LITERAL(": "));
	write_stderr(what, cstr_len(what));
	write_stderr(LITERAL(" (errno "));
	write_stderr(num, u64_to_dec((uint64_t)-err, num));
	write_stderr(LITERAL(")\n"));
	return EXIT_ACCESS_LOG;
}

enum exit_code access_log_open(const char *path, enum access_log_format format,
			       const uint64_t *auxv)
{
	access_log.fd = -1;
	access_log.format = (uint8_t)format;
	if (!path)
		return EXIT_OK;
	long fd = K_STDOUT;
	if (path[0] == '-' && path[1] == '\0') {
		long fl = sys_fcntl(K_STDOUT, F_GETFL, 0);
		if (sys_is_error(fl) || sys_is_error(fl = sys_fcntl(K_STDOUT, F_SETFL, fl | O_NONBLOCK)))
			return open_failed(path, "cannot make standard output non-blocking", fl);
	} else {
		fd = sys_openat_mode(AT_FDCWD, path,
				     O_WRONLY | O_CREAT | O_APPEND | O_NONBLOCK | O_CLOEXEC,
				     LOG_FILE_MODE);
		if (sys_is_error(fd))
			return open_failed(path, "cannot open for appending", fd);
	}
	/* A regular file takes any write whole (O_APPEND: each one lands at the end, never
	 * inside another process's); a pipe only up to PIPE_BUF. */
	struct statx st;
	int regular = !sys_is_error(sys_statx((int)fd, "", AT_EMPTY_PATH, STATX_TYPE, &st)) &&
		      (st.stx_mode & S_IFMT) == S_IFREG;
	access_log.write_max = regular ? ACCESS_LOG_BUFFER : ACCESS_LOG_PIPE_WRITE_MAX;
	clock_init(auxv);
	access_log.fd = (int)fd;
	return EXIT_OK;
}

/* Writes v as four lower-case hex digits without leading zeros (at least one). */
static char *put_hex16(char *p, uint32_t v)
{
	static const char hex[] = "0123456789abcdef";
	int shift = 12;
	while (shift > 0 && !(v >> shift))
		shift -= 4;
	for (; shift >= 0; shift -= 4)
		*p++ = hex[(v >> shift) & 0xf];
	return p;
}

/* Renders a sockaddr_in or sockaddr_in6 (bytes as getpeername filled them) as text at
 * out (ACCESS_LOG_HOST_MAX bytes). IPv6 is the eight groups, uncompressed. Returns the
 * length; 1 ("-") for any other family. */
static uint32_t render_peer(const unsigned char *sa, char *out)
{
	uint16_t family = (uint16_t)(sa[0] | sa[1] << 8); /* sa_family: host byte order */
	char *p = out;
	if (family == K_AF_INET) {
		for (int i = 0; i < 4; i++) {
			p += u64_to_dec(sa[4 + i], p);
			if (i < 3)
				*p++ = '.';
		}
	} else if (family == AF_INET6_FAMILY) {
		for (int g = 0; g < V6_GROUPS; g++) {
			p = put_hex16(p, (uint32_t)(sa[8 + 2 * g] << 8 | sa[9 + 2 * g]));
			if (g < V6_GROUPS - 1)
				*p++ = ':';
		}
	} else {
		*p++ = '-';
	}
	return (uint32_t)(p - out);
}

void access_log_note_peer(int fd)
{
	unsigned char sa[PEER_ADDR_MAX] = {0};
	uint32_t len = sizeof(sa);
	counter_add(C_syscalls_total, 1);
	if (sys_is_error(sys_getpeername(fd, sa, &len)))
		sa[0] = sa[1] = 0; /* gone already: "-" */
	log_peer[fd].host_len = (uint8_t)render_peer(sa, log_peer[fd].host);
	log_peer[fd].held_len = 0;
}

void access_log_note_arrival(int fd)
{
	log_peer[fd].arrived_us = clock_now_us();
}

/* Room for one more record of the longest kind in fd's held lines. */
int access_log_held_room(int fd)
{
	return ACCESS_LOG_HELD_SIZE - log_peer[fd].held_len >= ACCESS_LOG_RECORD_MAX;
}

void access_log_hold(int fd, const struct access_log_request *req, uint64_t response_bytes)
{
	struct log_peer *peer = &log_peer[fd];
	if (!access_log_held_room(fd)) { /* conn.c checks first: never expected */
		counter_add(C_log_lines_dropped, 1);
		return;
	}
	peer->held_len = (uint16_t)(peer->held_len +
				    access_log_record_make(log_held[fd] + peer->held_len, req,
							   peer->arrived_us, response_bytes,
							   (enum access_log_format)access_log.format));
}

/* Appends the line of record r, finished now, to the buffer, or drops it (counted) when
 * the buffer has no room for a line of the longest kind. */
static void finish_line(const struct log_peer *peer, const struct access_log_record *r)
{
	if (ACCESS_LOG_BUFFER - access_log.len < ACCESS_LOG_LINE_MAX) {
		counter_add(C_log_lines_dropped, 1);
		return;
	}
	struct access_log_moment m = {peer->host, peer->host_len, wallclock_clf_now(),
				      clock_now_us()};
	access_log.len += (uint32_t)access_log_line_render(access_log.buf + access_log.len, r, &m,
							    (enum access_log_format)access_log.format);
}

/* Drops the first `done` bytes of fd's held records (whole records, finished). */
static void drop_held(int fd, uint32_t done)
{
	struct log_peer *peer = &log_peer[fd];
	if (!done)
		return;
	peer->held_len = (uint16_t)(peer->held_len - done);
	__builtin_memmove(log_held[fd], log_held[fd] + done, peer->held_len);
}

void access_log_note_sent(int fd, uint64_t n)
{
	struct log_peer *peer = &log_peer[fd];
	uint32_t at = 0;
	while (n && at < peer->held_len) {
		struct access_log_record *r = (struct access_log_record *)(void *)(log_held[fd] + at);
		uint64_t take = n < r->left ? n : r->left;
		r->left -= take;
		n -= take;
		if (r->left)
			break; /* this response is still under way */
		finish_line(peer, r);
		at += r->size;
	}
	drop_held(fd, at);
}

void access_log_note_end(int fd)
{
	struct log_peer *peer = &log_peer[fd];
	uint32_t at = 0;
	while (at < peer->held_len) {
		const struct access_log_record *r =
			(const struct access_log_record *)(const void *)(log_held[fd] + at);
		finish_line(peer, r); /* cut: its bytes are those that left */
		at += r->size;
	}
	peer->held_len = 0;
}

void access_log_end_all(void)
{
	if (access_log.fd < 0)
		return;
	for (int fd = 0; fd < CONN_SLOTS; fd++)
		if (log_peer[fd].held_len)
			access_log_note_end(fd);
}

/* Line ends in [from, to) of the buffer: the lines a drop of that range loses. */
static uint64_t lines_in(uint32_t from, uint32_t to)
{
	uint64_t n = 0;
	for (uint32_t i = from; i < to; i++)
		n += access_log.buf[i] == '\n';
	return n;
}

void access_log_flush(void)
{
	struct access_log_state *log = &access_log;
	if (log->fd < 0 || log->len == 0)
		return;
	uint32_t want = log->len;
	if (want > log->write_max) { /* whole lines only: back up to the last LF that fits */
		want = log->write_max;
		while (log->buf[want - 1] != '\n')
			want--;
	}
	counter_add(C_syscalls_total, 1);
	long n = sys_write(log->fd, log->buf, want);
	if (n == (long)want) {
		log->len -= want;
		__builtin_memmove(log->buf, log->buf + want, log->len);
		return;
	}
	uint32_t kept = sys_is_error(n) ? 0 : (uint32_t)n; /* a cut line is lost too */
	counter_add(C_log_lines_dropped, lines_in(kept, log->len));
	log->len = 0;
}
