/* The access log (see access_log.h).
 *
 * A line: `host - - [date] "request line" status bytes µs coding` LF. host is the peer's
 * address; bytes is the body's length ("-" when 0, as in CLF); µs is the service time:
 * from the return of the read(2) that brought the request head's last byte to the moment
 * its response was queued for the write; coding the response's Content-Encoding ("-"
 * when it has none); with --site, then ` vhost`: the request's Host (or absolute-form
 * authority) as sent, "-" without one (BEHAVIOUR 14). */
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
 * needs besides the request, in one 48-byte record, so a line reads one place per slot. */
struct log_peer {
	uint64_t arrived_us;             /* the last read that brought bytes (clock_now_us) */
	uint8_t host_len;                /* bytes of host */
	char host[ACCESS_LOG_HOST_MAX];  /* the peer's address as text */
};
#define LOG_PEER_SIZE 48
STATIC_ASSERT(sizeof(struct log_peer) == LOG_PEER_SIZE, "no padding beyond the record");
STATIC_ASSERT(ACCESS_LOG_HOST_MAX <= UINT8_MAX, "host_len fits its byte");
static struct log_peer log_peer[CONN_SLOTS];

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

enum exit_code access_log_open(const char *path, const uint64_t *auxv)
{
	access_log.fd = -1;
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
}

void access_log_note_arrival(int fd)
{
	log_peer[fd].arrived_us = clock_now_us();
}

/* The three digits of a status counter's code. */
static const char *status_digits(uint8_t status_counter)
{
	switch (status_counter) {
	case C_responses_206: return "206";
	case C_responses_301: return "301";
	case C_responses_304: return "304";
	case C_responses_400: return "400";
	case C_responses_404: return "404";
	case C_responses_405: return "405";
	case C_responses_408: return "408";
	case C_responses_414: return "414";
	case C_responses_204: return "204";
	case C_responses_416: return "416";
	case C_responses_503: return "503";
	case C_responses_302: return "302";
	case C_responses_303: return "303";
	case C_responses_307: return "307";
	case C_responses_308: return "308";
	case C_responses_410: return "410";
	case C_responses_421: return "421";
	default: return "200";
	}
}

/* Copies the request line with '"' and '\' escaped as \" and \\ (the line's other
 * bytes are 0x21-0x7e and spaces: parse_request_line allows nothing else). */
static char *put_escaped(char *p, struct text_span s)
{
	for (uint32_t i = 0; i < s.len; i++) {
		if (s.text[i] == '"' || s.text[i] == '\\')
			*p++ = '\\';
		*p++ = s.text[i];
	}
	return p;
}

/* Copies the request line s ("METHOD SP target SP HTTP/1.x", as parse_request_line
 * accepted it) escaped, its target cut to ACCESS_LOG_TARGET_MAX bytes and marked when
 * longer (access_log.h). Writes at most ACCESS_LOG_REQUEST_MAX bytes. */
static char *put_request_line(char *p, struct text_span s)
{
	uint32_t target_at = 0;
	while (s.text[target_at] != ' ') /* the method is A-Z only */
		target_at++;
	target_at++;
	uint32_t version_at = s.len - (uint32_t)ACCESS_LOG_VERSION_LEN;
	if (version_at - target_at <= ACCESS_LOG_TARGET_MAX)
		return put_escaped(p, s);
	p = put_escaped(p, (struct text_span){s.text, target_at + ACCESS_LOG_TARGET_MAX});
	p = copy_span(p, LITERAL(ACCESS_LOG_CUT_MARK));
	return copy_span(p, s.text + version_at, ACCESS_LOG_VERSION_LEN); /* nothing to escape */
}

/* Writes " HOST" at p: the request's host as sent (a valid Host has no byte that needs
 * escaping: http_host.h), cut to ACCESS_LOG_VHOST_MAX bytes, or " -" when it had none.
 * Returns the byte after it. */
static char *put_vhost(char *p, struct text_span host)
{
	*p++ = ' ';
	if (!host.len)
		return copy_span(p, LITERAL("-"));
	return copy_span(p, host.text,
			 host.len < ACCESS_LOG_VHOST_MAX ? host.len : ACCESS_LOG_VHOST_MAX);
}

void access_log_add_line(int fd, struct text_span request_line, uint8_t status_counter,
			 uint64_t body_bytes, struct text_span coding)
{
	if (ACCESS_LOG_BUFFER - access_log.len < ACCESS_LOG_LINE_MAX) {
		counter_add(C_log_lines_dropped, 1);
		return;
	}
	uint64_t now_us = clock_now_us();
	const struct log_peer *peer = &log_peer[fd];
	char *p = copy_span(access_log.buf + access_log.len, peer->host, peer->host_len);
	p = copy_span(p, LITERAL(" - - "));
	p = copy_span(p, wallclock_clf_now(), WALLCLOCK_CLF_LEN);
	p = copy_span(p, LITERAL(" \""));
	p = request_line.len ? put_request_line(p, request_line) : copy_span(p, LITERAL("-"));
	p = copy_span(p, LITERAL("\" "));
	p = copy_span(p, status_digits(status_counter), 3);
	*p++ = ' ';
	if (body_bytes)
		p += u64_to_dec(body_bytes, p);
	else
		*p++ = '-';
	*p++ = ' ';
	p += u64_to_dec(now_us > peer->arrived_us ? now_us - peer->arrived_us : 0, p);
	*p++ = ' ';
	if (coding.len && coding.len <= ACCESS_LOG_CODING_MAX)
		p = copy_span(p, coding.text, coding.len);
	else
		*p++ = '-';
	if (access_log.vhost_on)
		p = put_vhost(p, access_log.vhost);
	*p++ = '\n';
	access_log.len = (uint32_t)(p - access_log.buf);
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
