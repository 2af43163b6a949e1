/* --watch (see watch.h). */
#include "common/process/watch.h"

#include "common/base/console.h"
#include "common/base/errno_text.h"
#include "common/base/span.h"
#include "common/base/sys.h"
#include "common/base/text_out.h"

/* Every change a snapshot would show: names added, removed or renamed, bytes written,
 * attributes (the mtime of Last-Modified), the directory itself gone. */
#define WATCH_MASK                                                                       \
	(K_IN_MODIFY | K_IN_ATTRIB | K_IN_CLOSE_WRITE | K_IN_MOVED_FROM | K_IN_MOVED_TO |  \
	 K_IN_CREATE | K_IN_DELETE | K_IN_DELETE_SELF | K_IN_MOVE_SELF | K_IN_ONLYDIR)
/* inotify_add_watch takes a path: the directory's own descriptor through /proc names the
 * very directory the loader is about to list, whatever was renamed meanwhile (the reload
 * needs /proc too: /proc/self/exe). */
#define WATCH_FD_PREFIX "/proc/self/fd/"
#define WATCH_FD_PATH_MAX (sizeof(WATCH_FD_PREFIX) + U64_DEC_MAX)
#define NS_PER_MS 1000000u
#define MS_PER_S 1000u

/* The watch unit's state. In .bss (fd 0 is stdin, never ours: watch_open sets it). */
struct watch_unit {
	int on;              /* --watch, and this process holds the descriptor */
	int fd;              /* the inotify descriptor */
	uint32_t dirs;       /* directories watched */
	uint64_t first_ms;   /* the pending burst's first change (CLOCK_MONOTONIC), 0: none */
	uint64_t last_ms;    /* its latest change */
	char events[WATCH_READ_SIZE] __attribute__((aligned(8))); /* drained, never parsed */
};
static struct watch_unit watch;

/* Writes "apollod: --watch: <what>[<path>]: <err's text>\n" (no reason when err is 0).
 * Returns code. */
static enum exit_code watch_fail(enum exit_code code, const char *what, const char *path,
				 long err)
{
	char line[CONSOLE_LINE_MAX];
	struct text_out o = {line, line + sizeof(line)};
	char reason[ERRNO_TEXT_MAX];
	put_cstr(&o, "apollod: --watch: ");
	put_cstr(&o, what);
	if (path)
		put_cstr(&o, path[0] ? path : ".");
	if (err) {
		put_cstr(&o, ": ");
		put(&o, reason, errno_text(err, reason));
	}
	put_cstr(&o, "\n");
	write_stderr(line, (size_t)(o.p - line));
	return code;
}

enum exit_code watch_open(void)
{
	long fd = sys_inotify_init1(K_IN_NONBLOCK | K_IN_CLOEXEC);
	if (sys_is_error(fd))
		return watch_fail(EXIT_ROOT_READ, "inotify_init1", 0, fd);
	/* fcntl(2): F_SETOWN and F_SETSIG name who gets which signal; O_ASYNC turns it on. */
	long r = sys_fcntl((int)fd, K_F_SETOWN, sys_getpid());
	if (!sys_is_error(r))
		r = sys_fcntl((int)fd, K_F_SETSIG, WATCH_SIGNAL);
	if (!sys_is_error(r))
		r = sys_fcntl((int)fd, K_F_SETFL, K_O_NONBLOCK | K_O_ASYNC);
	if (sys_is_error(r)) {
		sys_close((int)fd);
		return watch_fail(EXIT_ROOT_READ, "fcntl on the inotify descriptor", 0, r);
	}
	watch.fd = (int)fd;
	watch.on = 1;
	return EXIT_OK;
}

enum exit_code watch_directory(int dirfd, const char *path)
{
	if (watch.dirs == WATCH_DIRS_MAX)
		return watch_fail(EXIT_ROOT_LIMIT, "more than 4096 directories", 0, 0);
	char fd_path[WATCH_FD_PATH_MAX];
	struct text_out o = {fd_path, fd_path + sizeof(fd_path) - 1};
	char digits[U64_DEC_MAX];
	put_cstr(&o, WATCH_FD_PREFIX);
	put(&o, digits, u64_to_dec((uint64_t)dirfd, digits));
	*o.p = 0;
	long wd = sys_inotify_add_watch(watch.fd, fd_path, WATCH_MASK);
	if (sys_is_error(wd))
		return watch_fail(EXIT_ROOT_READ, "cannot watch ", path, wd);
	watch.dirs++;
	return EXIT_OK;
}

long watch_own(void)
{
	return watch.on ? sys_fcntl(watch.fd, K_F_SETOWN, sys_getpid()) : 0;
}

void watch_close(void)
{
	if (!watch.on)
		return;
	sys_close(watch.fd);
	watch.on = 0;
	watch.first_ms = 0;
}

/* CLOCK_MONOTONIC in ms, by the raw syscall (the supervisor has no vDSO clock set up). */
static uint64_t watch_clock_ms(void)
{
	struct k_timespec t = {0, 0};
	sys_clock_gettime(K_CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * MS_PER_S + (uint64_t)t.tv_nsec / NS_PER_MS;
}

void watch_recheck(void)
{
	if (watch.on)
		watch.first_ms = watch.last_ms = watch_clock_ms() | 1; /* never 0: no burst */
}

/* Reads the queued events (up to WATCH_READS_MAX reads). Returns 1 when there was any. */
static int drain_events(void)
{
	int any = 0;
	for (int i = 0; i < WATCH_READS_MAX; i++) {
		long n = sys_read(watch.fd, watch.events, sizeof(watch.events));
		if (n == -EINTR)
			continue;
		if (sys_is_error(n) || n == 0)
			break; /* EAGAIN: all read; anything else: the next signal tries again */
		any = 1;
	}
	return any;
}

/* When the pending burst is due (watch.first_ms != 0). */
static uint64_t due_ms(void)
{
	uint64_t quiet = watch.last_ms + WATCH_QUIET_MS, cap = watch.first_ms + WATCH_CAP_MS;
	return quiet < cap ? quiet : cap;
}

long watch_filter(long sig)
{
	/* Another signal passes untouched: a due burst waits for the next wait, which is
	 * given no time (watch_wait_ms), so it is never taken for a stop or a HUP. */
	if (!watch.on || (sig != 0 && sig != WATCH_SIGNAL) || (sig == 0 && !watch.first_ms))
		return sig;
	uint64_t now = watch_clock_ms() | 1; /* never 0: 0 is "no burst" */
	if (sig == WATCH_SIGNAL && drain_events()) {
		watch.first_ms = watch.first_ms ? watch.first_ms : now;
		watch.last_ms = now;
	}
	if (!watch.first_ms || now < due_ms())
		return 0;
	watch.first_ms = 0; /* the burst is over: reload */
	return K_SIGHUP;
}

int watch_wait_ms(void)
{
	if (!watch.on || !watch.first_ms)
		return -1;
	uint64_t now = watch_clock_ms(), due = due_ms();
	return now >= due ? 0 : (int)(due - now);
}
