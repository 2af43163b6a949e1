/* Signals as readable events: the stop signals are blocked and read from a signalfd, so
 * no handler runs asynchronously, nothing needs a restorer trampoline, and the loop sees a
 * signal as one more report from its backend. */
#ifndef APOLLOD_COMMON_SIGNALS_H
#define APOLLOD_COMMON_SIGNALS_H

#include <stdint.h>

#include "common/base/kernel_consts.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* The signals that stop the daemon gracefully (a second one stops it at once). */
#define SIGNALS_STOP (K_SIGBIT(K_SIGTERM) | K_SIGBIT(K_SIGINT))

/* The signals whose default action would end a process and that no process of the
 * daemon reads by default (BEHAVIOUR 11): ignored from the start (signals_ignore_strays),
 * so that a stray kill, a logrotate snippet's USR1 sent too early or a `killall -USR2`
 * cannot stop the service. A process that reads one of them (the resident supervisor's
 * USR1 and USR2, a generation's USR1 and retire signal) watches it (signals_watch). The
 * faults (SEGV, BUS, ILL, FPE, TRAP, SYS) are in the list for a kill(2) only: the kernel
 * delivers a real fault with the default action whatever the disposition
 * (force_sig_fault). SIGPIPE is ignored on its own (listener.h). */
#define SIGNALS_REALTIME (~0ull << (K_SIGRTMIN - 1)) /* K_SIGRTMIN..K_SIGNAL_MAX */
#define SIGNALS_STRAY                                                                     \
	(K_SIGBIT(K_SIGQUIT) | K_SIGBIT(K_SIGILL) | K_SIGBIT(K_SIGTRAP) |                 \
	 K_SIGBIT(K_SIGABRT) | K_SIGBIT(K_SIGBUS) | K_SIGBIT(K_SIGFPE) |                  \
	 K_SIGBIT(K_SIGUSR1) | K_SIGBIT(K_SIGSEGV) | K_SIGBIT(K_SIGUSR2) |                \
	 K_SIGBIT(K_SIGALRM) | K_SIGBIT(K_SIGSTKFLT) | K_SIGBIT(K_SIGXCPU) |              \
	 K_SIGBIT(K_SIGXFSZ) | K_SIGBIT(K_SIGVTALRM) | K_SIGBIT(K_SIGPROF) |              \
	 K_SIGBIT(K_SIGPWR) | K_SIGBIT(K_SIGSYS) | SIGNALS_REALTIME)
STATIC_ASSERT(K_SIGNAL_MAX == 64, "a kernel sigset_t is one 64-bit word (K_SIGSET_SIZE)");

/* Ignores every signal of SIGNALS_STRAY (ignored dispositions survive fork and execve).
 * Call first thing in every process image; errors are ignored (rt_sigaction(2) fails
 * only for SIGKILL, SIGSTOP or a bad number, none of them in the list). */
void signals_ignore_strays(void);

/* Blocks `mask` for this process (and the children it forks), gives the signals of it
 * that SIGNALS_STRAY ignored their default action back (a blocked signal stays pending
 * for the signalfd either way; this keeps the textbook setup), and returns a signalfd
 * that reports them, close-on-exec, non-blocking when nonblock is 1; or -errno. */
long signals_watch(uint64_t mask, int nonblock);

/* Reads one pending signal from signal_fd. Returns its number, 0 when none is pending
 * (non-blocking descriptor), or -errno. A real-time signal is the daemon's own (the
 * retire signal a supervisor sends its generation, and a generation its workers,
 * reload.h): one this process's parent did not send is read past, so that a stray kill
 * cannot turn into a drain that ends the service. */
long signals_next(int signal_fd);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_SIGNALS_H */
