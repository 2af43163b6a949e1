/* The worker supervisor (see workers.h). */
#include "common/process/workers.h"

#include "common/process/backoff.h"
#include "common/process/cli.h"
#include "common/base/clock.h"
#include "common/base/console.h"
#include "common/base/counters.h"
#include "common/process/reload.h"
#include "common/process/signals.h"
#include "common/process/supervisor.h"
#include "common/process/watch.h"
#include "common/base/sys.h"

#define AFFINITY_BYTES 128 /* a 1024-CPU mask, glibc's cpu_set_t */

#define WORKER_DUE (-1) /* a slot whose worker died: restarted once the backoff is over */

/* The worker supervisor's state. */
static struct {
	int pid[CLI_WORKERS_MAX]; /* each worker's pid; WORKER_DUE; 0 once exited for good */
	struct backoff restart;   /* restarts after a death (backoff.h) */
} workers;

uint32_t workers_auto(void)
{
	uint8_t mask[AFFINITY_BYTES];
	long n = sys_sched_getaffinity(0, sizeof(mask), mask);
	uint32_t cpus = 0;
	for (long i = 0; i < n; i++) /* count the set bits; no libgcc popcount helper */
		for (uint8_t b = mask[i]; b; b &= (uint8_t)(b - 1))
			cpus++;
	if (cpus > CLI_WORKERS_MAX)
		cpus = CLI_WORKERS_MAX;
	return cpus ? cpus : 1;
}

/* Starts worker i. Returns its pid, or -errno; never returns in the child. */
static long spawn(int i, int signal_fd, worker_main_fn serve, void *ctx)
{
	long parent = sys_getpid();
	long pid = sys_fork();
	if (pid == 0) {
		sys_close(signal_fd); /* the worker reads its own signals */
		sys_setpgid(0, 0);
		supervisor_follow_parent(parent); /* it ends with its generation */
		/* A reload is the supervisor's (BEHAVIOUR 17): a HUP or USR1 sent to a worker
		 * directly is ignored. Ignoring cannot fail for them with a valid struct. */
		struct k_sigaction ignore = {.handler = K_SIG_IGN};
		sys_rt_sigaction(K_SIGHUP, &ignore, 0);
		sys_rt_sigaction(K_SIGUSR1, &ignore, 0);
		uint64_t passed_on = K_SIGBIT(K_SIGHUP) | K_SIGBIT(K_SIGUSR1);
		sys_rt_sigprocmask(K_SIG_UNBLOCK, &passed_on, 0);
		sys_exit_group(serve(ctx, (uint32_t)i));
	}
	if (pid > 0)
		workers.pid[i] = (int)pid;
	return pid;
}

/* Sends sig to every live worker. */
static void signal_all(uint32_t n, int sig)
{
	for (uint32_t i = 0; i < n; i++)
		if (workers.pid[i] > 0)
			sys_kill(workers.pid[i], sig);
}

/* Starts every WORKER_DUE slot once the backoff is over (counted in workers_restarted
 * and restarts_backed_off); one that cannot be forked waits for the next backoff. */
static void respawn_due(uint32_t n, int signal_fd, worker_main_fn serve, void *ctx)
{
	uint64_t now = clock_now_ms();
	if (!backoff_due(&workers.restart, now))
		return;
	backoff_started(&workers.restart, now);
	for (uint32_t i = 0; i < n; i++) {
		if (workers.pid[i] != WORKER_DUE)
			continue;
		if (sys_is_error(spawn((int)i, signal_fd, serve, ctx))) {
			backoff_schedule(&workers.restart, now);
			continue;
		}
		counter_add(C_workers_restarted, 1);
		counter_add(C_restarts_backed_off, 1);
	}
}

/* Collects every worker that has exited. Marks it WORKER_DUE (a restart after the
 * backoff) unless stopping; else records the first non-zero status in *status. Returns
 * the number of workers still running or due. */
static uint32_t reap(uint32_t n, int stopping, enum exit_code *status)
{
	int wstatus;
	long pid;
	while ((pid = sys_wait4(-1, &wstatus, K_WNOHANG)) > 0) {
		for (uint32_t i = 0; i < n; i++) {
			if (workers.pid[i] != pid)
				continue;
			workers.pid[i] = 0;
			/* wait(2): exited normally when the low 7 bits are 0; code in bits 8-15 */
			int code = (wstatus & 0x7f) ? 128 + (wstatus & 0x7f) : (wstatus >> 8) & 0xff;
			if (stopping) {
				if (code && *status == EXIT_OK)
					*status = (enum exit_code)code;
			} else {
				workers.pid[i] = WORKER_DUE;
				backoff_schedule(&workers.restart, clock_now_ms());
			}
		}
	}
	uint32_t live = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (stopping && workers.pid[i] == WORKER_DUE)
			workers.pid[i] = 0; /* a stop: no restart */
		live += workers.pid[i] != 0;
	}
	return live;
}

/* Closes the supervisor's copies of the listeners (at the first stop). */
static void close_listeners(const int *listen_fd, uint32_t listen_fds)
{
	for (uint32_t i = 0; i < listen_fds; i++)
		if (listen_fd[i] >= 0)
			sys_close(listen_fd[i]);
}

/* What sig asks of the generation's supervisor: 1 for a graceful stop (SIGTERM, SIGINT,
 * or the resident supervisor's RELOAD_RETIRE_SIGNAL), 0 for nothing more. A HUP is
 * passed to the resident supervisor; its SIGIO to every worker, to re-arm (reload.h). */
static int supervisor_signal(long sig, uint32_t n)
{
	if (sig == K_SIGHUP || sig == K_SIGUSR1)
		reload_request((int)sig);
	if (sig == K_SIGIO)
		signal_all(n, K_SIGIO);
	return sig == K_SIGTERM || sig == K_SIGINT || sig == RELOAD_RETIRE_SIGNAL;
}

#define NS_PER_MS 1000000
#define MS_PER_S 1000

/* The supervisor's next signal through watch_filter (so --watch's quiet time ending is a
 * K_SIGHUP): a blocking read of signal_fd, bounded by ppoll while a burst of changes is
 * pending or a restart is due (0 when it timed out: watch_filter then decides). */
static long supervisor_next(int signal_fd)
{
	int wait_ms = watch_wait_ms();
	struct k_timespec t;
	struct k_timespec *bound = backoff_timeout(&workers.restart, clock_now_ms(), &t);
	int64_t backoff_ms = bound ? t.tv_sec * MS_PER_S + t.tv_nsec / NS_PER_MS : -1;
	if (wait_ms >= 0 && (backoff_ms < 0 || wait_ms < backoff_ms))
		t = (struct k_timespec){wait_ms / MS_PER_S, (int64_t)(wait_ms % MS_PER_S) * NS_PER_MS};
	if (wait_ms >= 0 || bound) {
		struct k_pollfd p = {signal_fd, K_POLLIN, 0};
		if (sys_ppoll(&p, 1, &t) <= 0) /* timed out, or failed: no read that blocks */
			return watch_filter(0);
	}
	return watch_filter(signals_next(signal_fd));
}

enum exit_code workers_run(uint32_t n, int signal_fd, const int *listen_fd,
			   uint32_t listen_fds, worker_main_fn serve, void *ctx)
{
	for (uint32_t i = 0; i < n; i++) {
		long pid = spawn((int)i, signal_fd, serve, ctx);
		if (sys_is_error(pid)) {
			console_fail("fork worker", 0, 0, pid);
			signal_all(i, K_SIGTERM);
			return EXIT_WORKERS;
		}
	}
	enum exit_code status = EXIT_OK;
	int stops = 0; /* stop signals received (a ready reload counts as one) */
	watch_filter(WATCH_SIGNAL); /* changes before the signal was blocked (loop.c) */
	for (;;) {
		long sig = supervisor_next(signal_fd);
		if ((sig == K_SIGHUP || sig == K_SIGUSR1 || sig == RELOAD_RETIRE_SIGNAL) && stops)
			sig = 0; /* stopping: no reload, and no drain of another kind */
		if (supervisor_signal(sig, n)) {
			if (!stops)
				close_listeners(listen_fd, listen_fds);
			stops++;
			/* the same to every worker: after a retire, a stop is a stop's first
			 * signal there; a second one stops the workers at once too */
			signal_all(n, sig == K_SIGTERM ? K_SIGTERM : (int)sig);
		}
		uint32_t live = reap(n, stops > 0, &status);
		if (live == 0)
			return stops ? status : EXIT_WORKERS; /* none could be restarted */
		if (!stops)
			respawn_due(n, signal_fd, serve, ctx);
	}
}
