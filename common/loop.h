/* The event loop of the routed tiers: wait, dispatch, accept, park and unpark the
 * listener, expire idle connections. One thread; everything a connection does happens in
 * the connection code (conn.h), everything asked of the kernel in the backend
 * (event_backend.h). */
#ifndef APOLLOD_COMMON_LOOP_H
#define APOLLOD_COMMON_LOOP_H

#include "common/exit_codes.h"

/* Serves listen_fd (non-blocking, listening) forever. Expects the backend open, the
 * idle unit and the connection code set up (idle_init, conn_setup).
 * Returns only on a fatal error, with its exit code (EXIT_ACCEPT, EXIT_EPOLL). */
enum exit_code loop_run(int listen_fd);

#endif /* APOLLOD_COMMON_LOOP_H */
