/* Route lookup (see routes.h): a length check first, so most targets cost one compare. */
#include "common/answer/routes.h"

#include "common/base/span.h"

enum route route_match(const char *path, size_t len)
{
#define ROUTE_TRY(id, lit) \
	if (len == sizeof(lit) - 1 && span_eq(path, lit, sizeof(lit) - 1)) \
		return id;
	FOR_EACH_ROUTE(ROUTE_TRY)
#undef ROUTE_TRY
	return ROUTE_NONE;
}
