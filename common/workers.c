/* The worker supervisor (see workers.h). */
#include "common/workers.h"

#include <linux/mman.h> /* PROT_*, MAP_* */

#include "common/cli.h"
#include "common/console.h"
#include "common/counters.h"
#include "common/signals.h"
#include "common/sys.h"

#define AFFINITY_BYTES 128 /* a 1024-CPU mask, glibc's cpu_set_t */

/* A worker's slot: its pid, or 0 once it has exited for good. */
static int worker_pid[CLI_WORKERS_MAX];

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

long counters_share(void)
{
	static struct counters saved; /* the page's values while it is replaced */
	saved = apollod_counters;
	long m = sys_mmap(&apollod_counters, sizeof(apollod_counters), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (sys_is_error(m))
		return m;
	apollod_counters = saved;
	return 0;
}

/* Starts worker i. Returns its pid, or -errno; never returns in the child. */
static long spawn(int i, int signal_fd, worker_main_fn serve, void *ctx)
{
	long pid = sys_fork();
	if (pid == 0) {
		sys_close(signal_fd); /* the worker reads its own signals */
		sys_setpgid(0, 0);
		/* SIGHUP keeps its default action in a worker, as in a single process: the
		 * supervisor passes it on (there is no reload yet). */
		uint64_t hup = K_SIGBIT(K_SIGHUP);
		sys_rt_sigprocmask(K_SIG_UNBLOCK, &hup, 0);
		sys_exit_group(serve(ctx, (uint32_t)i));
	}
	if (pid > 0)
		worker_pid[i] = (int)pid;
	return pid;
}

/* Sends sig to every live worker. */
static void signal_all(uint32_t n, int sig)
{
	for (uint32_t i = 0; i < n; i++)
		if (worker_pid[i] > 0)
			sys_kill(worker_pid[i], sig);
}

/* Collects every worker that has exited. Replaces it unless stopping; else records the
 * first non-zero status in *status. Returns the number of workers still running. */
static uint32_t reap(uint32_t n, int stopping, int signal_fd, worker_main_fn serve, void *ctx,
		     enum exit_code *status)
{
	int wstatus;
	long pid;
	while ((pid = sys_wait4(-1, &wstatus, K_WNOHANG)) > 0) {
		for (uint32_t i = 0; i < n; i++) {
			if (worker_pid[i] != pid)
				continue;
			worker_pid[i] = 0;
			/* wait(2): exited normally when the low 7 bits are 0; code in bits 8-15 */
			int code = (wstatus & 0x7f) ? 128 + (wstatus & 0x7f) : (wstatus >> 8) & 0xff;
			if (stopping) {
				if (code && *status == EXIT_OK)
					*status = (enum exit_code)code;
			} else if (!sys_is_error(spawn((int)i, signal_fd, serve, ctx))) {
				counter_add(C_workers_restarted, 1);
			}
		}
	}
	uint32_t live = 0;
	for (uint32_t i = 0; i < n; i++)
		live += worker_pid[i] > 0;
	return live;
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
	int stops = 0; /* stop signals received */
	for (;;) {
		long sig = signals_next(signal_fd);
		if (sig == K_SIGHUP) { /* ends every worker, then the supervisor (status 129) */
			signal_all(n, K_SIGHUP);
			stops++;
		}
		if (sig == K_SIGTERM || sig == K_SIGINT) {
			for (uint32_t i = 0; i < listen_fds && !stops; i++)
				if (listen_fd[i] >= 0)
					sys_close(listen_fd[i]);
			stops++;
			signal_all(n, (int)sig); /* a second one stops the workers at once too */
		}
		uint32_t live = reap(n, stops > 0, signal_fd, serve, ctx, &status);
		if (live == 0)
			return stops ? status : EXIT_WORKERS; /* none could be restarted */
	}
}
