/* The event loop and connection handling of the routed tiers. */
#ifndef APOLLOD_COMMON_SERVER_H
#define APOLLOD_COMMON_SERVER_H

#include <stdint.h>

#include "common/exit_codes.h"

/* Serves listen_fd (non-blocking, listening) forever with the event backend, which must
 * be open. idle_ms is the idle deadline (ignored when deadlines are compiled out).
 * serve_files: paths that match no built-in route are looked up in the file cache
 * (loaded before) and counted as cache hits or misses.
 * Returns only on a fatal error, with its exit code (EXIT_ACCEPT, EXIT_EPOLL). */
enum exit_code server_run(int listen_fd, uint64_t idle_ms, int serve_files);

#endif /* APOLLOD_COMMON_SERVER_H */
