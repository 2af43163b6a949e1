/* The built-in routes: one list gives the enum and the paths. Matching is exact on the
 * path (the target up to '?'): no URL decoding, so /health/ is not /health. */
#ifndef APOLLOD_COMMON_ROUTES_H
#define APOLLOD_COMMON_ROUTES_H

#include <stddef.h>

#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* X(id, path) */
#define FOR_EACH_ROUTE(X)            \
	X(ROUTE_ROOT, "/")           \
	X(ROUTE_HEALTH, "/health")   \
	X(ROUTE_METRICS, "/metrics")

enum route {
#define ROUTE_ENUM(id, path) id,
	FOR_EACH_ROUTE(ROUTE_ENUM)
#undef ROUTE_ENUM
	ROUTE_NONE, /* no such route: 404 */
	ROUTE_ADMIN_MISS, /* the admin listener's anything but /health and /metrics: a static
			   * 404, no file looked up (BEHAVIOUR 6.5) */
};

/* Which routes a connection's listener answers (BEHAVIOUR 6.5, --admin-listen). */
enum route_set {
	ROUTES_ALL = 0,   /* no --admin-listen: the built-in routes and the site */
	ROUTES_SITE = 1,  /* a --listen address beside an admin listener: no /health, /metrics */
	ROUTES_ADMIN = 2, /* the admin listener: /health and /metrics only */
};

/* Returns the route whose path is exactly the len bytes at path, or ROUTE_NONE. */
enum route route_match(const char *path, size_t len);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_ROUTES_H */
