/* Monotonic milliseconds and wall-clock seconds without a syscall: clock_gettime through the vDSO that the
 * kernel maps into every process (its address is AT_SYSINFO_EHDR in the auxiliary
 * vector), with the raw syscall as the fallback when there is no vDSO. */
#ifndef APOLLOD_COMMON_CLOCK_H
#define APOLLOD_COMMON_CLOCK_H

#include <stdint.h>

#include "common/base/kernel_consts.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* Finds the vDSO's clock_gettime through auxv (the NULL-terminated pairs that follow
 * envp on the initial stack). auxv may be NULL. Returns 1 if the vDSO entry was found,
 * 0 if clock_now_ms() will use the syscall. */
int clock_init(const uint64_t *auxv);

/* CLOCK_MONOTONIC in milliseconds. */
uint64_t clock_now_ms(void);

/* CLOCK_MONOTONIC in microseconds. */
uint64_t clock_now_us(void);

/* Reads clock clockid (K_CLOCK_*) into *ts through the vDSO when clock_init found it,
 * else by the raw syscall. */
void clock_read(int clockid, struct k_timespec *ts);
/* CLOCK_REALTIME in whole seconds since the Unix epoch (0 for a clock set before 1970),
 * through the same vDSO entry: the Date field's source (date_field.h). */
uint64_t clock_now_unix_s(void);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_CLOCK_H */
