/* STATIC_ASSERT for headers shared between C11 (the daemon) and C++ (the GoogleTest
 * suites): C++ spells the keyword static_assert, C11 _Static_assert. */
#ifndef APOLLOD_COMMON_STATIC_ASSERT_H
#define APOLLOD_COMMON_STATIC_ASSERT_H

#ifdef __cplusplus
#define STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#ifdef __cplusplus
#define APOLLOD_EXTERN_C_BEGIN extern "C" {
#define APOLLOD_EXTERN_C_END }
#else
#define APOLLOD_EXTERN_C_BEGIN
#define APOLLOD_EXTERN_C_END
#endif

#endif /* APOLLOD_COMMON_STATIC_ASSERT_H */
