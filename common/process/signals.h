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

/* Blocks `mask` for this process (and the children it forks) and returns a signalfd
 * that reports them, close-on-exec, non-blocking when nonblock is 1; or -errno. */
long signals_watch(uint64_t mask, int nonblock);

/* Reads one pending signal from signal_fd. Returns its number, 0 when none is pending
 * (non-blocking descriptor), or -errno. */
long signals_next(int signal_fd);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_SIGNALS_H */
