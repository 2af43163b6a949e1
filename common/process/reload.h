/* SIGHUP reload (BEHAVIOUR 17): a new process image of the same binary, with the same
 * argv, takes over the very listening sockets (passed as in socket activation) and loads
 * a new snapshot of --root; the old one keeps accepting until the new one says it is
 * ready, then drains as on SIGTERM. If the new one fails to start, the old one says why
 * on stderr and goes on serving.
 *
 * The handshake:
 *   old: pipe2(O_CLOEXEC), the read end O_ASYNC|O_NONBLOCK owned by the old process (so a
 *        byte, or the end of input when the new one exits, arrives as SIGIO on the
 *        signalfd the loop already watches: no backend change); fork.
 *   child: moves the listeners to 3..3+N-1 and the pipe's write end to 3+N (dup3: the
 *        only descriptors without close-on-exec), then the descriptors registered with
 *        reload_hand_over to 3+N+1.., builds the environment (LISTEN_PID = its own
 *        pid, LISTEN_FDS = N, RELOAD_ENV_GROUPS, RELOAD_ENV_READY_FD,
 *        RELOAD_ENV_HANDED), execs /proc/self/exe.
 *   new: takes the sockets (activation.h) and the handed-over descriptors
 *        (reload_handed_over), loads --root, writes one byte (reload_ready),
 *        serves. A failure before that exits, which closes the pipe unwritten. */
#ifndef APOLLOD_COMMON_RELOAD_H
#define APOLLOD_COMMON_RELOAD_H

#include <stdint.h>

#include "common/base/kernel_consts.h"
#include "common/base/static_assert.h"
#include "common/process/watch.h"

APOLLOD_EXTERN_C_BEGIN

/* The signals a reloading process watches besides the stop signals: the request, the
 * readiness pipe's SIGIO, SIGCHLD (a new image that died), and --watch's change signal. */
#define RELOAD_SIGNALS                                                                   \
	(K_SIGBIT(K_SIGHUP) | K_SIGBIT(K_SIGIO) | K_SIGBIT(K_SIGCHLD) | K_SIGBIT(WATCH_SIGNAL))

/* Our own environment variables for the new image. */
#define RELOAD_ENV_READY_FD "APOLLOD_READY_FD="   /* the readiness pipe's write end */
#define RELOAD_ENV_GROUPS "APOLLOD_LISTEN_GROUPS=" /* LISTEN_FDS is this many equal groups */
#define RELOAD_ENV_RELOADS "APOLLOD_RELOADS=" /* the reloads counter the new image starts at */
#define RELOAD_ENV_HANDED "APOLLOD_HANDED_FDS=" /* descriptors handed over, after READY_FD */

#define RELOAD_FDS_MAX 512    /* sockets passed: CLI_WORKERS_MAX x CLI_LISTEN_MAX */
#define RELOAD_HANDOVER_MAX 8 /* descriptors one image hands the next */

/* Exit statuses of the forked child when it fails before the new image runs. */
#define RELOAD_EXIT_SETUP 125 /* moving a descriptor, or the environment did not fit */
#define RELOAD_EXIT_EXEC 126  /* execve(2) failed */

enum reload_state {
	RELOAD_IDLE,    /* none under way */
	RELOAD_PENDING, /* the new image has not answered yet */
	RELOAD_READY,   /* the new image serves: this process should drain and exit */
	RELOAD_FAILED,  /* the new image exited first (reported on stderr) */
};

/* Remembers argv and envp (apollod_main's) for reload_begin, and whether this process is
 * itself a reload's new image (RELOAD_ENV_READY_FD). Call once at start-up. */
void reload_setup(char **argv, char **envp);

/* Registers fds[0..n) (n <= RELOAD_HANDOVER_MAX; more are ignored) as what the image a
 * reload starts must receive (the snapshot's memfds and manifest); call after loading.
 * The descriptors stay this process's; the new image gets copies, in this order. */
void reload_hand_over(const int *fds, uint32_t n);

/* In an image started by a reload: the descriptors the previous image handed over
 * (close-on-exec), in the order given; returns their count (0 when none) and sets *fds. */
uint32_t reload_handed_over(const int **fds);

/* How many groups LISTEN_FDS comes in (RELOAD_ENV_GROUPS, 1..max), 1 without the
 * variable, -1 when it is present but not a number in 1..max. */
int reload_listen_groups(uint32_t max);

/* The new image is ready: counts the reloads (RELOAD_ENV_RELOADS: the old image's count
 * and this one) in `reloads`, writes the byte to the readiness pipe and closes it. Nothing
 * when this process was not started by a reload. With --workers, call it after
 * counters_share, so the count is in the shared page. Errors are ignored: the old process then
 * reads the end of input and keeps serving, and this one serves too (both on the same
 * sockets, no connection lost). */
void reload_ready(void);

/* SIGHUP: starts a new image that is passed fds[0..count), skipping negative entries
 * (groups equal groups of them, see RELOAD_ENV_GROUPS). With a reload already under way
 * does nothing. On failure (pipe2, fcntl, fork) writes one line and stays RELOAD_IDLE.
 * Returns the state afterwards. */
enum reload_state reload_begin(const int *fds, uint32_t count, uint32_t groups);

/* On SIGIO or SIGCHLD: whether the new image answered. RELOAD_READY and RELOAD_FAILED are
 * reported once (one stderr line each) and the state returns to RELOAD_IDLE. READY
 * counts in `reloads` here too, so the draining image agrees with the new one. */
enum reload_state reload_poll(void);

/* A stop signal came first: a reload under way is called off, its new image (whatever
 * it has reached) sent SIGTERM, which it reads as a graceful stop (inherited blocked, the
 * signal waits for its signalfd). */
void reload_abandon(void);

/* This process, drained after a reload, is about to exit: sends the new image SIGIO, on
 * which it re-arms its listeners (loop.c, workers.c). A completion backend's multishot
 * accept polls a listener with an exclusive wait: the old process's accept, cancelled
 * when it stopped, may have taken the wakeup for a connection still queued, which the
 * new image's accept would then never hear of. Nothing without a ready reload. */
void reload_accepts_released(void);

/* For a supervisor's wait4(-1): pid has exited with wstatus. Returns 1 when it was the
 * reload's child (its status is kept for reload_poll), else 0. */
int reload_reaped(long pid, int wstatus);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_RELOAD_H */
