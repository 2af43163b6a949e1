/* --workers N: N serving processes on one listener, one set of counters, and a parent
 * that supervises them and serves nothing. */
#ifndef APOLLOD_COMMON_WORKERS_H
#define APOLLOD_COMMON_WORKERS_H

#include <stdint.h>

#include "common/base/exit_codes.h"

/* What worker `index` (0..n-1) runs: serves until stopped and returns its exit code. */
typedef enum exit_code (*worker_main_fn)(void *ctx, uint32_t index);

/* The CPUs this process may run on (sched_getaffinity), at least 1: --workers auto. */
uint32_t workers_auto(void);

/* Forks n workers, each running serve(ctx) in a process group of its own (a terminal's
 * Ctrl-C reaches the resident supervisor only) and ending with this process
 * (PR_SET_PDEATHSIG), and supervises them: a worker that dies is replaced after a backoff
 * (backoff.h) and counted in workers_restarted and restarts_backed_off; SIGTERM, SIGINT and RELOAD_RETIRE_SIGNAL are passed to every worker
 * (a graceful stop, or a reload's drain; a second stop signal stops them at once).
 * SIGHUP is passed to the resident supervisor (reload.h, BEHAVIOUR 17), its SIGIO to every
 * worker. A worker ignores a SIGHUP sent to it directly. With --watch this process
 * watches (watch.h): a burst of changes that has gone quiet is a SIGHUP.
 * signal_fd reports SIGTERM, SIGINT, SIGCHLD and RELOAD_SIGNALS (signals.h, blocking).
 * listen_fd[0..listen_fds) are the workers' listeners, -1 for an unused entry: this
 * process keeps them for replacements, and closes them at the first stop.
 * Returns, once every worker has exited after a stop, EXIT_OK if all exited 0, else the
 * first other status; EXIT_WORKERS when a worker cannot be forked at start. */
enum exit_code workers_run(uint32_t n, int signal_fd, const int *listen_fd,
			   uint32_t listen_fds, worker_main_fn serve, void *ctx);

#endif /* APOLLOD_COMMON_WORKERS_H */
