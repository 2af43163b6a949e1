/* The event loop of the routed tiers: wait, dispatch, accept, park and unpark the
 * listener, expire idle connections. One thread; everything a connection does happens in
 * the connection code (conn.h), everything asked of the kernel in the backend
 * (event_backend.h). */
#ifndef APOLLOD_COMMON_LOOP_H
#define APOLLOD_COMMON_LOOP_H

#include "common/base/exit_codes.h"

#include <stdint.h>

/* Serves listen_fds[0..listeners) (non-blocking, listening; listeners <= LISTENERS_MAX)
 * until it is stopped. Expects the backend
 * open, the deadline unit and the connection code set up (deadline_init, conn_setup).
 * signal_fd reports SIGTERM and SIGINT (signals.h, non-blocking). The first starts a
 * graceful stop: the listeners close, connections without a response in flight close,
 * the others finish theirs, within drain_ms.
 * Returns EXIT_OK when every connection finished after a stop, EXIT_DRAIN_TIMEOUT when
 * drain_ms passed first, EXIT_STOP_AGAIN on a second stop signal, or a fatal error's
 * code (EXIT_ACCEPT, EXIT_WAIT). */
enum exit_code loop_run(const int *listen_fds, uint32_t listeners, int signal_fd,
			uint64_t drain_ms);

#endif /* APOLLOD_COMMON_LOOP_H */
