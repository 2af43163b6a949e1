/* The wall clock for the access log: the current UTC second in the Common Log Format's
 * date form, "[10/Oct/2000:13:55:36 +0000]", rendered at most once per second (a line
 * in the same second reuses the text). CLOCK_REALTIME comes through the vDSO (clock.h),
 * so reading it costs no syscall. */
#ifndef APOLLOD_COMMON_WALLCLOCK_H
#define APOLLOD_COMMON_WALLCLOCK_H

#include <stdint.h>

#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* "[dd/Mon/yyyy:hh:mm:ss +0000]" */
#define WALLCLOCK_CLF_LEN 28
STATIC_ASSERT(WALLCLOCK_CLF_LEN == sizeof("[10/Oct/2000:13:55:36 +0000]") - 1, "CLF date");

/* Writes the CLF date of unix_seconds (UTC; years 1970 to 9999) into the
 * WALLCLOCK_CLF_LEN bytes at out. Pure. */
void wallclock_render_clf(uint64_t unix_seconds, char *out);

/* The CLF date of now. Reads CLOCK_REALTIME (clock_init must have run); renders only
 * when the second differs from the last render's, together with the Date tail
 * (date_tail_copy). Returns WALLCLOCK_CLF_LEN bytes that stay valid until the next call
 * of either. */
const char *wallclock_clf_now(void);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_WALLCLOCK_H */
