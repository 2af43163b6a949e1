/* SIGHUP reload (see reload.h). */
#include "common/process/reload.h"

#include "common/process/activation.h"
#include "common/base/console.h"
#include "common/base/counters.h"
#include "common/base/span.h"
#include "common/base/sys.h"
#include "common/base/text_out.h"

#define RELOAD_ENV_MAX 256  /* environment words passed on, ours included */
#define RELOAD_ENV_OURS 6   /* LISTEN_PID, LISTEN_FDS, and the four RELOAD_ENV_* */
#define RELOAD_WORD_MAX 48  /* one of ours: a name and a decimal number */
#define RELOAD_EXE "/proc/self/exe" /* this binary, even if its path was replaced */
#define WAIT_SIGNAL_MASK 0x7f /* wait(2): the killing signal, 0 for a normal exit */
#define WAIT_CODE_SHIFT 8
#define WAIT_CODE_MASK 0xff
STATIC_ASSERT(RELOAD_ENV_OURS < RELOAD_ENV_MAX, "room for the inherited words");

/* The reload unit's state: how this process started (to start it again), the reload under
 * way, and what the child is given. In .bss (zero) until reload_setup, which runs first. */
struct reload_unit {
	char **argv;       /* this process's own, passed to the new image */
	char **envp;
	int ready_fd;      /* started by a reload: the pipe to answer on, else -1 */
	int pending_pid;   /* the reload's child, 0 when none is under way */
	int pending_read;  /* its readiness pipe's read end, -1 when none */
	int reaped_status; /* the child's wait status, once a wait4(-1) took it, else -1 */
	int handed_to;     /* the new image that took over, once ready */
	uint64_t reloads;  /* started by a reload: `reloads` once ready (RELOAD_ENV_RELOADS) */
	uint32_t hand_count;   /* descriptors registered with reload_hand_over */
	uint32_t handed_count; /* descriptors the previous image handed over */
	int hand[RELOAD_HANDOVER_MAX];   /* registered: the next image gets them */
	int handed[RELOAD_HANDOVER_MAX]; /* handed over to this image (reload_handed_over) */
	/* Built for the child (static: 6 KiB together, kept off the stack): */
	int passed[RELOAD_FDS_MAX];     /* the listeners it gets (reload_begin) */
	int moved[RELOAD_FDS_MAX + 1 + RELOAD_HANDOVER_MAX]; /* them, the pipe's write end and
					 * the registered ones, copied above the targets
					 * (child_exec) */
	char *env[RELOAD_ENV_MAX + 1];  /* its environment (child_env) */
	char words[RELOAD_ENV_OURS][RELOAD_WORD_MAX]; /* the words of ours in it */
};
static struct reload_unit reload;

void reload_setup(char **argv, char **envp)
{
	reload.argv = argv;
	reload.envp = envp;
	const char *v = env_value(envp, LITERAL(RELOAD_ENV_READY_FD));
	long fd = v ? env_decimal(v) : -1;
	reload.ready_fd = fd > K_STDERR ? (int)fd : -1;
	const char *count = env_value(envp, LITERAL(RELOAD_ENV_RELOADS));
	long reloads = count ? env_decimal(count) : -1;
	reload.reloads = reloads > 0 ? (uint64_t)reloads : 1; /* 1: from an older binary */
	reload.pending_read = -1;
	reload.reaped_status = -1;
	const char *handed = env_value(envp, LITERAL(RELOAD_ENV_HANDED));
	long h = handed && reload.ready_fd >= 0 ? env_decimal(handed) : 0;
	if (h < 0 || h > RELOAD_HANDOVER_MAX)
		h = 0; /* not ours to trust: the descriptors after READY_FD are left alone */
	for (long i = 0; i < h; i++) { /* close-on-exec from here on, like every other one */
		int at = reload.ready_fd + 1 + (int)i;
		if (sys_is_error(sys_fcntl(at, K_F_SETFD, K_FD_CLOEXEC))) {
			while (reload.handed_count) /* a gap: the order is lost, take none */
				sys_close(reload.handed[--reload.handed_count]);
			return;
		}
		reload.handed[reload.handed_count++] = at;
	}
}

void reload_hand_over(const int *fds, uint32_t n)
{
	reload.hand_count = n < RELOAD_HANDOVER_MAX ? n : RELOAD_HANDOVER_MAX;
	for (uint32_t i = 0; i < reload.hand_count; i++)
		reload.hand[i] = fds[i];
}

uint32_t reload_handed_over(const int **fds)
{
	*fds = reload.handed;
	return reload.handed_count;
}

int reload_listen_groups(uint32_t max)
{
	const char *v = env_value(reload.envp, LITERAL(RELOAD_ENV_GROUPS));
	if (!v)
		return 1;
	long n = env_decimal(v);
	return n >= 1 && n <= (long)max ? (int)n : -1;
}

void reload_ready(void)
{
	if (reload.ready_fd < 0)
		return;
	counter_add(C_reloads, reload.reloads);
	sys_write(reload.ready_fd, "R", 1);
	sys_close(reload.ready_fd);
	reload.ready_fd = -1;
}

/* Whether word (of the inherited environment) is one the child sets itself. */
static int env_is_ours(const char *word)
{
	static const char *const ours[] = {"LISTEN_PID=", "LISTEN_FDS=", "LISTEN_FDNAMES=",
					   RELOAD_ENV_READY_FD, RELOAD_ENV_GROUPS,
					   RELOAD_ENV_RELOADS, RELOAD_ENV_HANDED};
	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		if (span_eq(word, ours[i], cstr_len(ours[i])) &&
		    cstr_len(word) >= cstr_len(ours[i]))
			return 1;
	return 0;
}

/* Writes "<name><value>" into word (RELOAD_WORD_MAX bytes, NUL-terminated). Returns word. */
static char *env_word(char *word, const char *name, uint64_t value)
{
	struct text_out o = {word, word + RELOAD_WORD_MAX - 1};
	put_cstr(&o, name);
	char digits[U64_DEC_MAX];
	put(&o, digits, u64_to_dec(value, digits));
	*o.p = 0;
	return word;
}

/* The child's environment: the inherited words but ours, then ours. Returns it, or NULL
 * when it does not fit RELOAD_ENV_MAX. */
static char **child_env(uint32_t fds, uint32_t groups)
{
	char **env = reload.env;
	char(*words)[RELOAD_WORD_MAX] = reload.words;
	uint32_t n = 0;
	for (char **e = reload.envp; e && *e; e++) {
		if (env_is_ours(*e))
			continue;
		if (n == RELOAD_ENV_MAX - RELOAD_ENV_OURS)
			return 0;
		env[n++] = *e;
	}
	env[n++] = env_word(words[0], "LISTEN_PID=", (uint64_t)sys_getpid());
	env[n++] = env_word(words[1], "LISTEN_FDS=", fds);
	env[n++] = env_word(words[2], RELOAD_ENV_GROUPS, groups);
	env[n++] = env_word(words[3], RELOAD_ENV_READY_FD, (uint64_t)ACTIVATION_FIRST_FD + fds);
	env[n++] = env_word(words[4], RELOAD_ENV_RELOADS, counter_read(C_reloads) + 1);
	env[n++] = env_word(words[5], RELOAD_ENV_HANDED, reload.hand_count);
	env[n] = 0;
	return env;
}

/* In the forked child: the n sockets to 3..3+n-1, ready_write to 3+n, the registered
 * descriptors (reload_hand_over) after it, everything else left close-on-exec, then
 * execve. First every source is copied above the targets (F_DUPFD_CLOEXEC), so no dup3
 * overwrites a source not yet moved. Never returns. */
static void child_exec(const int *fds, uint32_t n, uint32_t groups, int ready_write)
{
	int *moved = reload.moved;
	uint32_t last = n + reload.hand_count; /* moved[0..last] */
	int above = ACTIVATION_FIRST_FD + (int)last + 1;
	for (uint32_t i = 0; i <= last; i++) {
		int from = i < n ? fds[i] : i == n ? ready_write : reload.hand[i - n - 1];
		long m = sys_fcntl(from, K_F_DUPFD_CLOEXEC, above);
		if (sys_is_error(m))
			sys_exit_group(RELOAD_EXIT_SETUP);
		moved[i] = (int)m;
	}
	for (uint32_t i = 0; i <= last; i++) /* dup3 with flags 0: open across the exec */
		if (sys_is_error(sys_dup3(moved[i], ACTIVATION_FIRST_FD + (int)i, 0)))
			sys_exit_group(RELOAD_EXIT_SETUP);
	char **env = child_env(n, groups);
	if (!env)
		sys_exit_group(RELOAD_EXIT_SETUP);
	sys_execve(RELOAD_EXE, reload.argv, env);
	sys_exit_group(RELOAD_EXIT_EXEC);
}

/* A pipe whose read end (*read_end) is non-blocking and raises SIGIO for this process
 * when it becomes readable; both ends close-on-exec. Returns 0 or -errno. */
static long readiness_pipe(int pipe_fds[2])
{
	long r = sys_pipe2(pipe_fds, K_O_CLOEXEC);
	if (sys_is_error(r))
		return r;
	r = sys_fcntl(pipe_fds[0], K_F_SETOWN, sys_getpid());
	if (!sys_is_error(r))
		r = sys_fcntl(pipe_fds[0], K_F_SETFL, K_O_NONBLOCK | K_O_ASYNC);
	if (sys_is_error(r)) {
		sys_close(pipe_fds[0]);
		sys_close(pipe_fds[1]);
	}
	return r;
}

enum reload_state reload_begin(const int *fds, uint32_t count, uint32_t groups)
{
	int *passed = reload.passed;
	if (reload.pending_pid)
		return RELOAD_PENDING; /* the HUP before this one is still being answered */
	uint32_t n = 0;
	for (uint32_t i = 0; i < count && n < RELOAD_FDS_MAX; i++)
		if (fds[i] >= 0)
			passed[n++] = fds[i];
	int pipe_fds[2];
	long r = readiness_pipe(pipe_fds);
	if (sys_is_error(r)) {
		console_fail("reload: pipe", 0, 0, r);
		return RELOAD_IDLE;
	}
	/* CLONE_VFORK: this process waits (microseconds) until the child has exec'd, so it
	 * closes no connection while the child still holds a copy of its descriptor: a
	 * socket closed in that window would really close, input and all, only at the
	 * child's execve, and a client could read a reset instead of its answer. */
	long pid = sys_fork_until_exec();
	if (pid == 0)
		child_exec(passed, n, groups, pipe_fds[1]);
	sys_close(pipe_fds[1]); /* the child's copy alone: its exit ends the input */
	if (sys_is_error(pid)) {
		sys_close(pipe_fds[0]);
		console_fail("reload: fork", 0, 0, pid);
		return RELOAD_IDLE;
	}
	reload.pending_pid = (int)pid;
	reload.pending_read = pipe_fds[0];
	reload.reaped_status = -1;
	return RELOAD_PENDING;
}

void reload_abandon(void)
{
	if (!reload.pending_pid)
		return;
	sys_kill(reload.pending_pid, K_SIGTERM);
	sys_close(reload.pending_read);
	reload.pending_read = -1;
	reload.pending_pid = 0;
}

void reload_accepts_released(void)
{
	if (reload.handed_to)
		sys_kill(reload.handed_to, K_SIGIO);
}

int reload_reaped(long pid, int wstatus)
{
	if (!reload.pending_pid || pid != reload.pending_pid)
		return 0;
	reload.reaped_status = wstatus;
	return 1;
}

/* Writes "apollod: <what> <number><rest>" on stderr, one write. */
static void say_number(const char *what, uint64_t number, const char *rest)
{
	char line[CONSOLE_LINE_MAX];
	struct text_out o = {line, line + sizeof(line)};
	char digits[U64_DEC_MAX];
	put_cstr(&o, "apollod: ");
	put_cstr(&o, what);
	put(&o, digits, u64_to_dec(number, digits));
	put_cstr(&o, rest);
	write_stderr(line, (size_t)(o.p - line));
}

/* The failed child's status, reaped here unless a supervisor's wait4(-1) took it. */
static void say_failed(void)
{
	int wstatus = reload.reaped_status;
	if (wstatus < 0 && sys_is_error(sys_wait4(reload.pending_pid, &wstatus, 0)))
		wstatus = 0; /* cannot happen: it is our child and nobody else waits for it */
	if (wstatus & WAIT_SIGNAL_MASK)
		say_number("reload failed: the new process was killed by signal ",
			   (uint64_t)(wstatus & WAIT_SIGNAL_MASK), "; serving on\n");
	else
		say_number("reload failed: the new process exited with status ",
			   (uint64_t)((wstatus >> WAIT_CODE_SHIFT) & WAIT_CODE_MASK),
			   "; serving on\n");
}

enum reload_state reload_poll(void)
{
	if (!reload.pending_pid)
		return RELOAD_IDLE;
	char byte;
	long r = sys_read(reload.pending_read, &byte, 1);
	if (r == -EAGAIN || r == -EINTR)
		return RELOAD_PENDING;
	sys_close(reload.pending_read);
	reload.pending_read = -1;
	if (r == 1) {
		reload.handed_to = reload.pending_pid;
		counter_add(C_reloads, 1);
		say_number("reloaded: process ", (uint64_t)reload.pending_pid,
			   " serves the new snapshot; this one drains\n");
	} else {
		say_failed();
	}
	reload.pending_pid = 0;
	return r == 1 ? RELOAD_READY : RELOAD_FAILED;
}
