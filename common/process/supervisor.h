/* The resident supervisor (BEHAVIOUR 11, 17; docs/ARCHITECTURE.md): the process the user
 * started stays the daemon for the service's life. Once the listeners are bound (or
 * taken from socket activation) and the first snapshot loaded, it forks the first
 * serving generation and from then on serves nothing and loads nothing:
 *   - SIGHUP (or SIGUSR1, the access log's reopen) starts the next generation: fork,
 *     then execveat of the image it runs (opened on /proc/self/exe at start) with the
 *     same argv, the listeners from descriptor 3 (as in socket activation), a readiness
 *     socket and the descriptors the serving generation handed over (reload.h). Once the
 *     new one is ready the old one is sent RELOAD_RETIRE_SIGNAL and drains; if the new
 *     one exits first the old one serves on.
 *   - SIGUSR2 upgrades: the same, from the binary now at the path this one was started
 *     from; once it is ready, later reloads run it too.
 *   - A serving generation killed by a signal (a crash), or its replacement killed before
 *     it is ready, is started again the same way after a backoff (backoff.h), counted in
 *     restarts_backed_off;
 *     one that exits by itself (a fatal error it reported) ends the daemon with its
 *     status.
 *   - SIGTERM and SIGINT are passed to every generation (its listeners closed first);
 *     the supervisor exits after the last, with the serving generation's status.
 * It keeps every listener open throughout, so no connection queued on a listener is lost
 * while generations change. Every generation (and worker) has PR_SET_PDEATHSIG set to
 * SIGTERM: a supervisor killed outright takes its generations with it. */
#ifndef APOLLOD_COMMON_SUPERVISOR_H
#define APOLLOD_COMMON_SUPERVISOR_H

#include <stdint.h>

#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* supervisor_run's return in the first generation: go on starting up as a server. */
#define SUPERVISOR_IN_GENERATION (-1)

/* The signal a generation or worker gets when its parent ends (PR_SET_PDEATHSIG): a
 * graceful stop, so responses in flight finish while the listeners close at once. */
#define SUPERVISOR_PARENT_DEATH_SIGNAL K_SIGTERM

/* Status of a forked child that fails before its new image runs. */
#define SUPERVISOR_EXIT_SETUP 125 /* moving a descriptor, or the environment did not fit */
#define SUPERVISOR_EXIT_EXEC 126  /* execveat(2) failed */

/* In a child just forked from parent_pid: asks for SUPERVISOR_PARENT_DEATH_SIGNAL when
 * the parent ends, and exits at once if it has ended already (getppid differs: the
 * parent died before the request was made, so no signal would come). */
void supervisor_follow_parent(long parent_pid);

/* Blocks the signals the supervisor reads (a stop, a reload, an upgrade, a log reopen),
 * so that one sent as soon as `listening on` is printed stays pending for the signalfd
 * supervisor_run makes, instead of being lost (USR1, USR2: ignored until then) or ending
 * the process (SIGHUP's default action). Call before announcing, in the process started
 * only; supervisor_run blocks the same set, so the generation it forks inherits nothing
 * new. Errors are ignored: rt_sigprocmask(2) fails only for a bad `how`. */
void supervisor_hold_signals(void);

/* Becomes the supervisor of the listeners fds[0..count) (negative entries skipped;
 * `groups` equal groups, one per worker, or 1) for the program started with argv and
 * envp. Forks the first generation, in which it returns SUPERVISOR_IN_GENERATION at once;
 * in the supervisor it returns, once every generation has exited after a stop, the
 * serving generation's exit code (128 + N when a signal N killed it), or the status of
 * a generation that could not start when none serves. release (may be NULL) runs in the
 * supervisor once the first generation is forked: it frees what only a generation needs
 * (the snapshot loaded before the fork). */
/* Before supervisor_run: may_reload runs in the supervisor before each reload or upgrade
 * would start (a --config file read again, BEHAVIOUR 17); 0 refuses it (may_reload wrote
 * why) and the serving generation goes on. */
void supervisor_check_reloads(int (*may_reload)(void));

/* Before supervisor_run (BEHAVIOUR 10.10): once the first generation is ready, the
 * supervisor forks a compressing generation from its own memory (no exec), in which
 * compress runs (0: go on starting up as a generation; else the exit code it fails
 * with, after its line); when that one is ready it serves and the first drains, with the
 * line "apollod: compressed: process N serves the gzip forms; process M drains". A
 * reload, reopen or upgrade asked for meanwhile is kept and done after it (or after it
 * failed: "apollod: compressing failed: ...; serving on as stored"). The snapshot is
 * released (supervisor_run's release) only once it is forked. */
void supervisor_compress_later(int (*compress)(void));

int supervisor_run(const int *fds, uint32_t count, uint32_t groups, char **argv, char **envp,
		   void (*release)(void));

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_SUPERVISOR_H */
