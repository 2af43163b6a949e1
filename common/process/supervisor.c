/* The resident supervisor (see supervisor.h). */
#include "common/process/supervisor.h"

#include <linux/fcntl.h> /* AT_FDCWD */
#include <linux/prctl.h> /* PR_SET_PDEATHSIG */

#include "common/base/clock.h"
#include "common/base/console.h"
#include "common/base/counters.h"
#include "common/base/exit_codes.h"
#include "common/base/span.h"
#include "common/base/sys.h"
#include "common/base/text_out.h"
#include "common/process/activation.h"
#include "common/process/backoff.h"
#include "common/process/counter_page.h"
#include "common/process/reload.h"
#include "common/process/signals.h"
#include "common/process/watch.h"

#define SUPERVISOR_ENV_MAX 256 /* environment words passed on, ours included */
#define SUPERVISOR_ENV_OURS 6  /* LISTEN_PID, LISTEN_FDS, three RELOAD_ENV_*, the page's */
#define SUPERVISOR_WORD_MAX 48 /* one of ours: a name and a decimal number */
#define SUPERVISOR_EXE "/proc/self/exe" /* this binary, even if its path was replaced */
#define SUPERVISOR_PATH_MAX 4096 /* PATH_MAX: the binary's path, its NUL included */
#define RETIRED_MAX 16 /* generations draining at once; a HUP beyond waits for one to end */
/* What a generation gets: listeners, readiness, handed over, the counter page. */
#define PASSED_MAX (RELOAD_FDS_MAX + 1 + RELOAD_HANDOVER_MAX + 1)
#define WAIT_SIGNAL_MASK 0x7f /* wait(2): the killing signal, 0 for a normal exit */
#define WAIT_CODE_SHIFT 8
#define WAIT_CODE_MASK 0xff
#define KILLED_BASE 128 /* a shell's status for a process a signal killed: 128 + N */

STATIC_ASSERT(SUPERVISOR_ENV_OURS < SUPERVISOR_ENV_MAX, "room for the inherited words");
/* What the supervisor reads besides the stop signals: a reload (HUP), a log reopen (USR1,
 * a reload too), an upgrade (USR2), its children (CHLD) and a retired one's re-arm (IO). */
#define SIGNALS_SUPERVISOR                                                              \
	(K_SIGBIT(K_SIGHUP) | K_SIGBIT(K_SIGUSR1) | K_SIGBIT(K_SIGUSR2) |               \
	 K_SIGBIT(K_SIGCHLD) | K_SIGBIT(K_SIGIO))
STATIC_ASSERT(K_PR_SET_PDEATHSIG == PR_SET_PDEATHSIG, "prctl option from the UAPI header");

/* Everything the supervisor keeps: in .bss (zero) until supervisor_run fills it. */
struct supervisor_state {
	char **argv; /* the program's own, passed to every generation */
	char **envp;
	int listeners[RELOAD_FDS_MAX]; /* held for the service's life (-1 after a stop) */
	uint32_t listener_count;
	uint32_t groups;     /* LISTEN_FDS comes in this many equal groups */
	int signal_fd;       /* SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGIO */
	int serving;         /* the generation that serves, 0 when none */
	int pending;         /* the generation starting, 0 when none */
	int pending_ready;   /* its readiness socket, -1 once read or when none */
	int pending_first;   /* it is the first: if it fails, the supervisor ends */
	int retired[RETIRED_MAX]; /* replaced generations still draining */
	uint32_t retired_count;
	int handed[RELOAD_HANDOVER_MAX]; /* what the serving generation handed over */
	uint32_t handed_count;
	int counters_fd; /* the counter page, passed to every generation (counter_page.h) */
	struct backoff restart; /* restarts after a death (backoff.h): healthy since ready */
	int stops;  /* stop signals received */
	int status; /* the exit code to end with */
	int exe_fd;      /* the image a reload runs (O_PATH): this one, or the last upgrade's */
	int upgrade_fd;  /* the pending generation's image when it is an upgrade, else -1 */
	int reopen_again; /* a SIGUSR1 came during a reload: one more once it has ended */
	char exe_path[SUPERVISOR_PATH_MAX]; /* where this binary was started from */
	int (*may_reload)(void); /* supervisor_check_reloads's, or NULL: every reload may */
	/* BEHAVIOUR 10.10: supervisor_compress_later's */
	int (*compress)(void);  /* run in the compressing generation; NULL: none to start */
	void (*release)(void);  /* supervisor_run's, run once no generation is still to fork */
	int compressing;        /* the pending generation is the compressing one */
	long kept_signal;       /* a reload, reopen or upgrade asked for meanwhile, or 0 */
	int in_child;           /* this is the compressing generation: return to start up */
	/* Built for a child (static: kept off the stack): */
	int passed[PASSED_MAX]; /* what it gets from descriptor 3 */
	int moved[PASSED_MAX];  /* the same, copied above the targets (child_exec) */
	char *env[SUPERVISOR_ENV_MAX + 1];
	char words[SUPERVISOR_ENV_OURS][SUPERVISOR_WORD_MAX];
};
static struct supervisor_state sup;

void supervisor_follow_parent(long parent_pid)
{
	/* prctl(2): the setting is cleared by fork, kept across execve (not set-uid); a
	 * parent that ended before this call sends nothing, which getppid shows. */
	sys_prctl(K_PR_SET_PDEATHSIG, SUPERVISOR_PARENT_DEATH_SIGNAL, 0);
	if (sys_getppid() != parent_pid)
		sys_exit_group(KILLED_BASE + SUPERVISOR_PARENT_DEATH_SIGNAL);
}

/* Writes "apollod: <a><number><b>[<number2><c>]" on stderr, one write; the second number
 * only when c is not NULL. */
static void say(const char *a, uint64_t number, const char *b, uint64_t number2, const char *c)
{
	char line[CONSOLE_LINE_MAX];
	struct text_out o = {line, line + sizeof(line)};
	char digits[U64_DEC_MAX];
	put_cstr(&o, "apollod: ");
	put_cstr(&o, a);
	put(&o, digits, u64_to_dec(number, digits));
	put_cstr(&o, b);
	if (c) {
		put(&o, digits, u64_to_dec(number2, digits));
		put_cstr(&o, c);
	}
	write_stderr(line, (size_t)(o.p - line));
}

/* A wait status as an exit code: the code, or KILLED_BASE + the signal. */
static int exit_code_of(int wstatus)
{
	if (wstatus & WAIT_SIGNAL_MASK)
		return KILLED_BASE + (wstatus & WAIT_SIGNAL_MASK);
	return (wstatus >> WAIT_CODE_SHIFT) & WAIT_CODE_MASK;
}

/* "exited with status N" or "was killed by signal N", after `what` and before `rest`. */
static void say_ended(const char *what, int wstatus, const char *rest)
{
	char text[CONSOLE_LINE_MAX];
	struct text_out o = {text, text + sizeof(text) - 1};
	put_cstr(&o, what);
	put_cstr(&o, wstatus & WAIT_SIGNAL_MASK ? "was killed by signal " : "exited with status ");
	*o.p = 0;
	int n = wstatus & WAIT_SIGNAL_MASK ? wstatus & WAIT_SIGNAL_MASK
					    : (wstatus >> WAIT_CODE_SHIFT) & WAIT_CODE_MASK;
	say(text, (uint64_t)n, rest, 0, 0);
}

/* Whether word (of the inherited environment) is one the child sets itself. */
static int env_is_ours(const char *word)
{
	static const char *const ours[] = {"LISTEN_PID=",       "LISTEN_FDS=",
					   "LISTEN_FDNAMES=",   RELOAD_ENV_READY_FD,
					   RELOAD_ENV_GROUPS,   RELOAD_ENV_HANDED,
					   COUNTER_PAGE_ENV};
	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		if (span_eq(word, ours[i], cstr_len(ours[i])) &&
		    cstr_len(word) >= cstr_len(ours[i]))
			return 1;
	return 0;
}

/* Writes "<name><value>" into word (SUPERVISOR_WORD_MAX bytes, NUL-terminated). */
static char *env_word(char *word, const char *name, uint64_t value)
{
	struct text_out o = {word, word + SUPERVISOR_WORD_MAX - 1};
	put_cstr(&o, name);
	char digits[U64_DEC_MAX];
	put(&o, digits, u64_to_dec(value, digits));
	*o.p = 0;
	return word;
}

/* The child's environment: the inherited words but ours, then ours, for `fds` listeners
 * and `handed` descriptors after the readiness socket, then the counter page. Returns
 * it, or NULL when it does not fit SUPERVISOR_ENV_MAX. */
static char **child_env(uint32_t fds, uint32_t handed)
{
	char **env = sup.env;
	char(*words)[SUPERVISOR_WORD_MAX] = sup.words;
	uint32_t n = 0;
	for (char **e = sup.envp; e && *e; e++) {
		if (env_is_ours(*e))
			continue;
		if (n == SUPERVISOR_ENV_MAX - SUPERVISOR_ENV_OURS)
			return 0;
		env[n++] = *e;
	}
	env[n++] = env_word(words[0], "LISTEN_PID=", (uint64_t)sys_getpid());
	env[n++] = env_word(words[1], "LISTEN_FDS=", fds);
	env[n++] = env_word(words[2], RELOAD_ENV_GROUPS, sup.groups);
	env[n++] = env_word(words[3], RELOAD_ENV_READY_FD, (uint64_t)ACTIVATION_FIRST_FD + fds);
	env[n++] = env_word(words[4], RELOAD_ENV_HANDED, handed);
	env[n++] = env_word(words[5], COUNTER_PAGE_ENV,
			    (uint64_t)ACTIVATION_FIRST_FD + fds + 1 + handed);
	env[n] = 0;
	return env;
}

/* In the forked child: sup.passed[0..n) to 3..3+n-1, everything else left close-on-exec,
 * then execve. First every source is copied above the targets (F_DUPFD_CLOEXEC), so no
 * dup3 overwrites a source not yet moved. Never returns. */
static void child_exec(uint32_t n, uint32_t listeners)
{
	int above = ACTIVATION_FIRST_FD + (int)n;
	for (uint32_t i = 0; i < n; i++) {
		long m = sys_fcntl(sup.passed[i], K_F_DUPFD_CLOEXEC, above);
		if (sys_is_error(m))
			sys_exit_group(SUPERVISOR_EXIT_SETUP);
		sup.moved[i] = (int)m;
	}
	/* The image, copied above the targets too (a dup3 may take its number). */
	long exe = sys_fcntl(sup.upgrade_fd >= 0 ? sup.upgrade_fd : sup.exe_fd,
			     K_F_DUPFD_CLOEXEC, above);
	if (sys_is_error(exe))
		sys_exit_group(SUPERVISOR_EXIT_SETUP);
	for (uint32_t i = 0; i < n; i++) /* dup3 with flags 0: open across the exec */
		if (sys_is_error(sys_dup3(sup.moved[i], ACTIVATION_FIRST_FD + (int)i, 0)))
			sys_exit_group(SUPERVISOR_EXIT_SETUP);
	char **env = child_env(listeners, n - listeners - 2); /* readiness, page */
	if (!env)
		sys_exit_group(SUPERVISOR_EXIT_SETUP);
	sys_execveat((int)exe, "", sup.argv, env, K_AT_EMPTY_PATH_EXEC);
	sys_exit_group(SUPERVISOR_EXIT_EXEC);
}

/* A generation's readiness socket pair (close-on-exec both). Returns 0 or -errno. */
static long ready_pair(int pair[2])
{
	return sys_socketpair(K_AF_UNIX, K_SOCK_SEQPACKET | K_SOCK_CLOEXEC, 0, pair);
}

/* Starts a generation by exec, as pending: a reload (one serves) or a restart (none
 * does). On failure writes one line and starts nothing. */
static void start_generation(void)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < sup.listener_count; i++)
		if (sup.listeners[i] >= 0)
			sup.passed[n++] = sup.listeners[i];
	uint32_t listeners = n;
	int pair[2];
	long r = ready_pair(pair);
	if (sys_is_error(r)) {
		console_fail("reload: socketpair", 0, 0, r);
		return;
	}
	sup.passed[n++] = pair[1];
	for (uint32_t i = 0; i < sup.handed_count; i++)
		sup.passed[n++] = sup.handed[i];
	sup.passed[n++] = sup.counters_fd;
	long parent = sys_getpid();
	/* CLONE_VFORK: the supervisor waits (microseconds) until the child has exec'd, so
	 * no descriptor it closes meanwhile lives on in the child's copy. */
	long pid = sys_fork_until_exec();
	if (pid == 0) {
		sys_setpgid(0, 0); /* a terminal's Ctrl-C reaches the supervisor only */
		supervisor_follow_parent(parent);
		child_exec(n, listeners);
	}
	sys_close(pair[1]); /* the child's copy alone: its exit ends the input */
	if (sys_is_error(pid)) {
		sys_close(pair[0]);
		console_fail("reload: fork", 0, 0, pid);
		return;
	}
	sup.pending = (int)pid;
	sup.pending_ready = pair[0];
}

/* Sends sig to every generation: the serving one, those draining, and the one starting
 * (which reads it once it runs: inherited blocked, it waits for its signalfd). */
static void signal_generations(int sig)
{
	if (sup.serving)
		sys_kill(sup.serving, sig);
	if (sup.pending)
		sys_kill(sup.pending, sig);
	for (uint32_t i = 0; i < sup.retired_count; i++)
		sys_kill(sup.retired[i], sig);
}

/* Closes the listeners (at the first stop: no connection waits on a listener nobody
 * will accept from) and the descriptors kept for the next generation. */
static void close_held(void)
{
	for (uint32_t i = 0; i < sup.listener_count; i++)
		if (sup.listeners[i] >= 0)
			sys_close(sup.listeners[i]);
	for (uint32_t i = 0; i < sup.listener_count; i++)
		sup.listeners[i] = -1;
	for (uint32_t i = 0; i < sup.handed_count; i++)
		sys_close(sup.handed[i]);
	sup.handed_count = 0;
}

/* Forgets a failed upgrade's image (the pending generation ended without serving). */
static void upgrade_dropped(void)
{
	if (sup.upgrade_fd >= 0)
		sys_close(sup.upgrade_fd);
	sup.upgrade_fd = -1;
}

/* Whether the settings allow the reload that may start (supervisor_check_reloads; a
 * refusal wrote its line). */
static int settings_allow(void)
{
	return !sup.may_reload || sup.may_reload();
}

/* A reload has ended (ready or failed): a SIGUSR1 that came meanwhile starts the next,
 * so the log it asked to reopen is opened after the rename that preceded it. */
static void reload_again(void)
{
	if (!sup.reopen_again || sup.stops || !sup.serving || sup.pending)
		return;
	sup.reopen_again = 0;
	if (settings_allow())
		start_generation();
}

static int become_first_generation(long parent, const int pair[2]);

/* In the compressing generation, just forked: the supervisor's descriptors closed (as
 * become_first_generation does, and what the first generation handed back: this one
 * hands on its own), then the compressing step. Exits with its code when it fails. */
static void become_compressing(long parent, const int pair[2])
{
	for (uint32_t i = 0; i < sup.handed_count; i++)
		sys_close(sup.handed[i]);
	sup.handed_count = 0;
	become_first_generation(parent, pair);
	int r = sup.compress();
	if (r)
		sys_exit_group(r);
	sup.in_child = 1;
}

/* BEHAVIOUR 10.10: forks the compressing generation from the supervisor's own table and
 * arenas (no exec: it works under qemu-user too), as pending. On failure one line, and
 * the first generation serves on as stored. */
static void start_compressing(void)
{
	int pair[2];
	long r = ready_pair(pair);
	long parent = sys_getpid();
	long pid = sys_is_error(r) ? r : sys_fork();
	if (pid == 0) {
		become_compressing(parent, pair);
		return;
	}
	if (!sys_is_error(r))
		sys_close(pair[1]);
	if (sys_is_error(pid)) {
		if (!sys_is_error(r))
			sys_close(pair[0]);
		console_fail("compressing: fork", 0, 0, pid);
		counter_set(C_gzip_pending, 0);
		return;
	}
	sup.pending = (int)pid;
	sup.pending_ready = pair[0];
	sup.compressing = 1;
}

/* Frees what only a generation needs, once no generation is still to be forked from the
 * supervisor's copy (the first, and the compressing one): the hand-over it registered
 * and the snapshot (release: the table and the arenas), and --watch's descriptor. */
static void release_tree(void)
{
	reload_release_hand_over(); /* loaded here, the generations hand them back */
	watch_close();              /* the generations watch, and ask for reloads */
	if (sup.release)
		sup.release();
	sup.release = 0;
}

/* A signal kept while no generation served or the compressing one started (act), acted
 * on now that one serves (or the compressing one failed). */
static void act(long sig);
static void act_on_kept(void)
{
	long sig = sup.kept_signal;
	sup.kept_signal = 0;
	counter_set(C_gzip_pending, 0);
	if (sig && !sup.stops)
		act(sig);
}

/* Generation old, replaced, drains: the retire signal (unless stopping: then it has its
 * stop signal already), and it is noted until it exits. */
static void retire(int old)
{
	if (!sup.stops)
		sys_kill(old, RELOAD_RETIRE_SIGNAL);
	sup.retired[sup.retired_count++] = old;
}

/* The first generation is ready: the compressing one is forked from the supervisor's
 * copy of the snapshot (when there is gzip to make), then that copy is released (not in
 * the child, which goes on with it). */
static void first_ready(void)
{
	sup.pending_first = 0;
	if (sup.compress && !sup.stops)
		start_compressing();
	if (sup.in_child)
		return;
	release_tree();
	if (!sup.compressing && sup.kept_signal) /* else done after the handover */
		act_on_kept();
}

/* The compressing generation is ready: it serves, the first (old, if still alive)
 * drains, as after a reload but not counted as one (BEHAVIOUR 10.10). */
static void compressed(int old)
{
	sup.compressing = 0;
	if (old) {
		retire(old);
		say("compressed: process ", (uint64_t)sup.serving,
		    " serves the gzip forms; process ", (uint64_t)old, " drains\n");
	}
	act_on_kept();
}

static void reloaded(int old);

/* The pending generation answered on its readiness socket: if ready it serves now (and
 * the one it replaces drains), its descriptors kept for the next; the end of input
 * means it failed, which its reaping reports. */
static void take_ready(void)
{
	int fds[RELOAD_HANDOVER_MAX];
	uint32_t n = 0;
	long r = reload_receive_ready(sup.pending_ready, fds, &n);
	if (r == -EAGAIN || r == -EINTR)
		return;
	sys_close(sup.pending_ready);
	sup.pending_ready = -1;
	if (r != 1) {
		for (uint32_t i = 0; i < n; i++)
			sys_close(fds[i]);
		return;
	}
	for (uint32_t i = 0; i < sup.handed_count; i++)
		sys_close(sup.handed[i]);
	for (uint32_t i = 0; i < n; i++)
		sup.handed[i] = fds[i];
	sup.handed_count = n;
	int old = sup.serving;
	sup.serving = sup.pending;
	sup.pending = 0;
	backoff_started(&sup.restart, clock_now_ms());
	if (sup.pending_first) {
		first_ready();
		return;
	}
	if (sup.compressing) {
		compressed(old);
		return;
	}
	if (!old) {
		say("restarted: process ", (uint64_t)sup.serving, " serves\n", 0, 0);
		if (!sup.compressing && sup.kept_signal)
			act_on_kept();
		return;
	}
	retire(old);
	reloaded(old);
}

/* A reload's (or an upgrade's) new generation serves, old drains: counted, said. */
static void reloaded(int old)
{
	counter_add(C_reloads, 1);
	if (sup.upgrade_fd >= 0) { /* from now on reloads run the new image */
		sys_close(sup.exe_fd);
		sup.exe_fd = sup.upgrade_fd;
		sup.upgrade_fd = -1;
		say("upgraded: process ", (uint64_t)sup.serving, " runs the new binary; process ",
		    (uint64_t)old, " drains\n");
	} else {
		say("reloaded: process ", (uint64_t)sup.serving, " serves the new snapshot; process ",
		    (uint64_t)old, " drains\n");
	}
	reload_again();
}

/* A stop signal: the first closes the listeners and passes a graceful stop on; a second
 * passes on the stop at once. */
static void stop(long sig)
{
	sup.restart.due_ms = 0; /* nothing starts during a stop */
	if (sup.stops++ == 0)
		close_held();
	signal_generations(sig == K_SIGINT ? K_SIGINT : K_SIGTERM);
}

/* "<what>was killed by signal N; starting a new one in <ms> ms" on stderr. */
static void say_restart(const char *what, int wstatus, uint64_t ms)
{
	char text[CONSOLE_LINE_MAX];
	struct text_out o = {text, text + sizeof(text) - 1};
	put_cstr(&o, "; starting a new one in ");
	char digits[U64_DEC_MAX];
	put(&o, digits, u64_to_dec(ms, digits));
	put_cstr(&o, " ms\n");
	*o.p = 0;
	say_ended(what, wstatus, text);
}

/* Nothing serves: the serving generation was killed, or its replacement before it was
 * ready. Schedules a restart after the backoff and says so after `what` and how it
 * ended (no line when what is NULL: a fork that failed said why). */
static void schedule_restart(const char *what, int wstatus)
{
	uint64_t wait = backoff_schedule(&sup.restart, clock_now_ms());
	if (what)
		say_restart(what, wstatus, wait);
}

/* A scheduled restart whose time has come: starts it (counted), or, if it cannot be
 * forked, schedules the next. */
static void restart_if_due(void)
{
	if (!backoff_due(&sup.restart, clock_now_ms()))
		return;
	if (sup.stops || sup.pending || sup.serving)
		return;
	start_generation();
	if (sup.pending)
		counter_add(C_restarts_backed_off, 1);
	else
		schedule_restart(0, 0);
}

/* Ends the daemon with status: a stop with nothing left to serve. */
static void give_up(int status)
{
	sup.status = status;
	if (!sup.stops)
		stop(K_SIGTERM);
}

/* The pending generation (the compressing one when compressing) ended with wstatus
 * before it was ready, while another serves on: one line, and what waited for it goes
 * on (a kept signal, a SIGUSR1's reload, an upgrade forgotten). */
static void failed_beside(int compressing, int wstatus)
{
	if (compressing) {
		say_ended("compressing failed: the new process ", wstatus,
			  "; serving on as stored\n");
		act_on_kept();
		return;
	}
	say_ended(sup.upgrade_fd >= 0 ? "upgrade failed: the new binary's process "
				       : "reload failed: the new process ",
		  wstatus, "; serving on\n");
	upgrade_dropped();
	reload_again();
}

/* Generation pid has exited with wstatus: forgets it, and restarts a serving one that
 * died unless stopping, and a pending one killed by a signal before it was ready (the
 * first one too); a pending one that exited by itself is reported (the first ends the
 * supervisor with its status, as the start-up failure it is). */
static void generation_exited(int pid, int wstatus)
{
	if (pid == sup.pending) {
		int compressing = sup.compressing;
		sup.compressing = 0;
		sup.pending = 0;
		if (sup.pending_ready >= 0)
			sys_close(sup.pending_ready);
		sup.pending_ready = -1;
		if (sup.serving && sup.stops)
			return; /* called off by the stop: the serving one's status counts */
		if (!sup.serving && !sup.stops && (wstatus & WAIT_SIGNAL_MASK)) {
			sup.pending_first = 0; /* a kill is no verdict on the start */
			schedule_restart("the new process ", wstatus);
			return;
		}
		if (!sup.serving) { /* the first, or a restart that reported an error: end */
			if (!sup.pending_first && !sup.stops)
				say_ended("giving up: the new process ", wstatus,
					  " before it was ready; no generation can start\n");
			give_up(exit_code_of(wstatus)); /* the first wrote its own line */
			return;
		}
		failed_beside(compressing, wstatus);
		return;
	}
	if (pid == sup.serving) {
		sup.serving = 0;
		if (sup.stops || !(wstatus & WAIT_SIGNAL_MASK)) {
			/* An exit is the generation's own verdict (a fatal error, BEHAVIOUR 3,
			 * written on stderr): the daemon ends with it. */
			give_up(exit_code_of(wstatus));
			return;
		}
		sup.status = exit_code_of(wstatus); /* if a stop comes before a restart serves */
		if (!sup.pending) /* a reload under way replaces it anyway */
			schedule_restart("serving process ", wstatus);
		return;
	}
	for (uint32_t i = 0; i < sup.retired_count; i++) {
		if (sup.retired[i] != pid)
			continue;
		sup.retired[i] = sup.retired[--sup.retired_count];
		/* Its accept, cancelled when it stopped, may have taken the wakeup for a
		 * connection still queued: the serving one re-arms (reload.h). */
		if (sup.serving)
			sys_kill(sup.serving, K_SIGIO);
		return;
	}
}

/* Reaps every child that has exited. */
static void reap(void)
{
	int wstatus;
	long pid;
	while ((pid = sys_wait4(-1, &wstatus, K_WNOHANG)) > 0)
		generation_exited((int)pid, wstatus);
}

/* SIGUSR2: a generation of the binary now at sup.exe_path, as a reload. On failure to
 * open it, one line and the old one serves on. */
static void upgrade(void)
{
	long fd = sys_openat(AT_FDCWD, sup.exe_path, K_O_PATH | K_O_CLOEXEC);
	if (sys_is_error(fd)) {
		console_fail("upgrade failed: cannot open the binary", sup.exe_path,
			     cstr_len(sup.exe_path), fd);
		return;
	}
	sup.upgrade_fd = (int)fd;
	start_generation();
	if (!sup.pending) /* it could not start: start_generation said why */
		upgrade_dropped();
}

/* Whether a reload (or an upgrade) may start now: not stopping, none under way, one
 * serving, and room for it to drain. */
static int reload_may_start(void)
{
	return !sup.stops && !sup.pending && sup.serving && sup.retired_count < RETIRED_MAX;
}

void supervisor_check_reloads(int (*may_reload)(void))
{
	sup.may_reload = may_reload;
}

void supervisor_compress_later(int (*compress)(void))
{
	sup.compress = compress;
}

/* One signal read from the signalfd. */
static void act(long sig)
{
	if (sig == K_SIGTERM || sig == K_SIGINT)
		stop(sig);
	else if ((sup.compressing || !sup.serving) &&
		 (sig == K_SIGHUP || sig == K_SIGUSR1 || sig == K_SIGUSR2)) {
		if (sup.kept_signal != K_SIGUSR2) /* an upgrade is a reload and more */
			sup.kept_signal = sig; /* done once the first, a restarted or the
						* compressing one serves, or this one failed */
	}
	else if (sig == K_SIGIO && sup.serving && !sup.stops)
		sys_kill(sup.serving, K_SIGIO); /* a retired one stopped accepting: re-arm */
	else if ((sig == K_SIGHUP || sig == K_SIGUSR1) && reload_may_start()) {
		if (settings_allow())
			start_generation(); /* ignored during a stop or a reload under way */
	}
	else if (sig == K_SIGUSR1 && sup.pending && !sup.stops)
		sup.reopen_again = 1; /* the log is reopened once this reload has ended */
	else if (sig == K_SIGUSR2 && reload_may_start()) {
		if (settings_allow())
			upgrade();
	}
	else if (sig == K_SIGUSR2)
		write_stderr(LITERAL("apollod: upgrade ignored: a stop or a reload is under way\n"));
}

/* Opens this image for reloads (sup.exe_fd) and notes the path it was started from for
 * upgrades (sup.exe_path). Returns 0, or -errno after one line. */
static long find_image(void)
{
	sup.upgrade_fd = -1;
	long fd = sys_openat(AT_FDCWD, SUPERVISOR_EXE, K_O_PATH | K_O_CLOEXEC);
	long n = sys_is_error(fd) ? fd
				  : sys_readlinkat(AT_FDCWD, SUPERVISOR_EXE, sup.exe_path,
						   sizeof(sup.exe_path) - 1);
	if (sys_is_error(n) || n >= (long)sizeof(sup.exe_path) - 1) {
		console_fail("cannot open its own binary", LITERAL(SUPERVISOR_EXE),
			     sys_is_error(n) ? n : -ENAMETOOLONG);
		return sys_is_error(n) ? n : -ENAMETOOLONG;
	}
	sup.exe_path[n] = 0;
	sup.exe_fd = (int)fd;
	return 0;
}

/* Supervises until no generation is left. Returns sup.status. */
static int supervise_generations(void)
{
	while (sup.serving || sup.pending || sup.retired_count || sup.restart.due_ms) {
		struct k_pollfd p[2] = {{sup.signal_fd, K_POLLIN, 0}, {sup.pending_ready, K_POLLIN, 0}};
		struct k_timespec t;
		long r = sys_ppoll(p, sup.pending_ready >= 0 ? 2 : 1,
				   backoff_timeout(&sup.restart, clock_now_ms(), &t));
		if (r > 0 && sup.pending_ready >= 0 && p[1].revents)
			take_ready();
		if (sup.in_child)
			return SUPERVISOR_IN_GENERATION; /* the compressing generation */
		if (r > 0 && p[0].revents) {
			long sig = signals_next(sup.signal_fd);
			if (sig > 0)
				act(sig);
		}
		reap();
		restart_if_due();
	}
	close_held();
	return sup.status;
}

/* In the first generation, right after the fork (start-up goes on as a server): the
 * supervisor's descriptors closed (its signalfd, the image reloads start from, the counter
 * page, mapped already and shared by the fork, its end of the ready pair), its own
 * process group, death with the supervisor, and --watch's owner. Returns
 * SUPERVISOR_IN_GENERATION. */
static int become_first_generation(long parent, const int pair[2])
{
	sys_close(sup.signal_fd);
	sys_close(sup.exe_fd);
	sys_close(sup.counters_fd);
	sys_close(pair[0]);
	sys_setpgid(0, 0);
	supervisor_follow_parent(parent);
	reload_become_generation(pair[1]);
	long owned = watch_own(); /* --watch: the generation hears of changes */
	if (sys_is_error(owned))
		console_fail("--watch: fcntl F_SETOWN", 0, 0, owned);
	return SUPERVISOR_IN_GENERATION;
}

void supervisor_hold_signals(void)
{
	uint64_t mask = SIGNALS_STOP | SIGNALS_SUPERVISOR;
	sys_rt_sigprocmask(K_SIG_BLOCK, &mask, 0);
}

int supervisor_run(const int *fds, uint32_t count, uint32_t groups, char **argv, char **envp,
		   void (*release)(void))
{
	sup.argv = argv;
	sup.envp = envp;
	sup.groups = groups;
	sup.pending_ready = -1;
	for (uint32_t i = 0; i < count && sup.listener_count < RELOAD_FDS_MAX; i++)
		if (fds[i] >= 0)
			sup.listeners[sup.listener_count++] = fds[i];
	long signal_fd = signals_watch(SIGNALS_STOP | SIGNALS_SUPERVISOR, 0);
	int pair[2];
	long r = sys_is_error(signal_fd) ? signal_fd : ready_pair(pair);
	if (sys_is_error(r)) {
		console_fail(sys_is_error(signal_fd) ? "signalfd" : "socketpair", 0, 0, r);
		return EXIT_WORKERS;
	}
	r = find_image();
	if (sys_is_error(r))
		return EXIT_WORKERS;
	r = counter_page_create();
	if (sys_is_error(r)) {
		console_fail("counters: memfd page", 0, 0, r);
		return EXIT_WORKERS;
	}
	sup.counters_fd = (int)r;
	sup.signal_fd = (int)signal_fd;
	long parent = sys_getpid();
	long pid = sys_fork();
	if (pid == 0)
		return become_first_generation(parent, pair);
	sys_close(pair[1]);
	if (sys_is_error(pid)) {
		sys_close(pair[0]);
		console_fail("fork", 0, 0, pid);
		return EXIT_WORKERS;
	}
	sup.release = release;
	if (!sup.compress) /* else the compressing generation forks from them first */
		release_tree();
	sup.pending = (int)pid;
	sup.pending_ready = pair[0];
	sup.pending_first = 1;
	return supervise_generations();
}
