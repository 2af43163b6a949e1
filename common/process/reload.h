/* A serving generation's side of a reload (BEHAVIOUR 17; the resident supervisor that
 * starts generations is supervisor.h). A generation is today's daemon: it loads --root,
 * serves (or runs --workers), and never starts another image itself:
 *   - SIGHUP (or --watch's burst) sent to it is passed to the supervisor (reload_request);
 *   - once loaded and about to serve it answers on the readiness channel (reload_ready):
 *     one byte on a unix SOCK_SEQPACKET socket, carrying with SCM_RIGHTS the descriptors
 *     it registered with reload_hand_over, which the supervisor keeps for the next
 *     generation;
 *   - RELOAD_RETIRE_SIGNAL from the supervisor, once the next generation is ready, is a
 *     drain that keeps idle keep-alive connections for one more request (loop.c);
 *   - SIGIO from the supervisor, once a retired generation has stopped accepting
 *     (reload_accepts_released) and again when it has exited, re-arms the listeners (a
 *     completion backend's exclusive accept wait, loop.c).
 *
 * A generation started by exec finds, from descriptor 3: the LISTEN_FDS listeners, the
 * readiness socket (RELOAD_ENV_READY_FD = 3 + LISTEN_FDS), then RELOAD_ENV_HANDED
 * descriptors the previous generation handed over. The first generation is forked from
 * the supervisor instead (supervisor.h) and set up by reload_become_generation. */
#ifndef APOLLOD_COMMON_RELOAD_H
#define APOLLOD_COMMON_RELOAD_H

#include <stdint.h>

#include "common/base/kernel_consts.h"
#include "common/base/limits.h"
#include "common/base/static_assert.h"
#include "common/process/watch.h"

APOLLOD_EXTERN_C_BEGIN

/* The signal a supervisor sends a generation it has replaced: drain, answering one more
 * request on each keep-alive connection (BEHAVIOUR 17). A real-time signal no tool sends
 * by name (SIGUSR2 is the upgrade a user asks of the supervisor, BEHAVIOUR 11), ignored
 * by every process that does not watch it (signals.h). */
#define RELOAD_RETIRE_SIGNAL (K_SIGRTMIN + 8)
STATIC_ASSERT(RELOAD_RETIRE_SIGNAL <= K_SIGNAL_MAX, "a real-time signal: only the parent's counts");

/* The signals a generation watches besides the stop signals: a reload request or a log
 * reopen (SIGUSR1) to pass on, the supervisor's SIGIO (re-arm), its retire signal, and
 * --watch's change signal. */
#define RELOAD_SIGNALS                                                                   \
	(K_SIGBIT(K_SIGHUP) | K_SIGBIT(K_SIGUSR1) | K_SIGBIT(K_SIGIO) |                  \
	 K_SIGBIT(RELOAD_RETIRE_SIGNAL) | K_SIGBIT(WATCH_SIGNAL))

/* Our own environment variables for a generation started by exec. */
#define RELOAD_ENV_READY_FD "APOLLOD_READY_FD="   /* the readiness socket */
#define RELOAD_ENV_GROUPS "APOLLOD_LISTEN_GROUPS=" /* LISTEN_FDS is this many equal groups */
#define RELOAD_ENV_HANDED "APOLLOD_HANDED_FDS=" /* descriptors handed over, after READY_FD */

#define RELOAD_FDS_MAX 512    /* sockets passed: CLI_WORKERS_MAX x CLI_LISTEN_MAX */
/* Descriptors one generation hands the next: eight a site (a manifest and up to seven
 * arenas: SITE_HANDOVER_MAX), for every site (issue 31: the named ones too). 128,
 * well under the 253 one SCM_RIGHTS message may carry (the kernel's SCM_MAX_FD). */
#define RELOAD_HANDOVER_MAX (8 * SITES_MAX)
STATIC_ASSERT(RELOAD_HANDOVER_MAX <= 253, "one SCM_RIGHTS message carries them");
#define RELOAD_READY_BYTE 'R' /* the readiness message's one byte of data */

/* Remembers envp, and whether this process is a generation started by exec
 * (RELOAD_ENV_READY_FD): its readiness socket and the descriptors handed over. Call once at start-up. */
void reload_setup(char **envp);

/* Whether this process is a serving generation (started by exec, or forked as the first
 * one: reload_become_generation), not the supervisor. */
int reload_is_generation(void);

/* In the first generation, just forked: answer readiness on ready_fd. */
void reload_become_generation(int ready_fd);

/* How many groups LISTEN_FDS comes in (RELOAD_ENV_GROUPS, 1..max), 1 without the
 * variable, -1 when it is present but not a number in 1..max. */
int reload_listen_groups(uint32_t max);

/* Registers fds[0..n) (n <= RELOAD_HANDOVER_MAX; more are ignored) as what the
 * generation a reload starts must receive (the snapshot's memfds and manifest); call
 * after loading. The descriptors stay this process's; the readiness message carries
 * copies. */
void reload_hand_over(const int *fds, uint32_t n);

/* In the supervisor, once the first generation is forked: closes the descriptors
 * registered here (loaded before the fork; the generation hands its copies back with its
 * readiness message) and forgets them. */
void reload_release_hand_over(void);

/* In a generation started by exec: the descriptors the previous generation handed over,
 * in the order given; returns their count (0 when none) and sets *fds. */
uint32_t reload_handed_over(const int **fds);

/* The generation is ready: sends the readiness byte with the registered descriptors and closes the socket. Nothing when this process
 * is not a generation, or answered already. Errors are ignored: the supervisor
 * then reads the socket's end and reports the generation as failed once it exits. */
void reload_ready(void);

/* The readiness socket reload_ready will close, or -1 (none, or sent already): a
 * descriptor the serving process holds only until it serves. */
int reload_ready_fd(void);

/* SIGHUP or SIGUSR1 (sig) reached a generation (or --watch asks: K_SIGHUP): passes it to
 * the resident supervisor (the generation's parent at start: PR_SET_PDEATHSIG ends a
 * generation whose supervisor is gone), which reloads (BEHAVIOUR 11, 17). */
void reload_request(int sig);

/* A stopping generation (or one of its workers) whose backend has settled its accepts
 * (backend_accepts_settled): sends the resident supervisor SIGIO, which it passes to the
 * serving generation, whose listeners are then watched anew. A completion backend's
 * accept waits exclusively: the accept this process cancelled may have taken the wake-up
 * for a connection still queued, which the serving one would otherwise not hear of until
 * another connection came to the same socket. Nothing outside a generation. */
void reload_accepts_released(void);

/* Sends the readiness message on fd: RELOAD_READY_BYTE and fds[0..n) as SCM_RIGHTS.
 * Returns the bytes sent (1) or -errno. */
long reload_send_ready(int fd, const int *fds, uint32_t n);

/* Receives a readiness message on fd (blocking unless fd is not): the descriptors it
 * carried (close-on-exec) go to fds[0..RELOAD_HANDOVER_MAX), their count to *n.
 * Returns 1 for a readiness byte, 0 at the end of input (the generation exited or
 * closed it unanswered), or -errno. */
long reload_receive_ready(int fd, int *fds, uint32_t *n);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_RELOAD_H */
