/* The stack-protector guard for linked code built with -fstack-protector-strong (Debian's
 * libdeflate.a; apollod's own code is built without it, bazel/copts.bzl). On x86_64 the
 * guard lives at %fs:ARCH_TLS_GUARD_OFFSET of a thread control block this module sets;
 * on aarch64 in the global stack_guard_value (the library's __stack_chk_guard, renamed
 * in third_party/libdeflate/BUILD, as is __stack_chk_fail to stack_guard_fail). Daemon
 * binaries only (//common/base:runtime). */
#ifndef APOLLOD_COMMON_BASE_STACK_GUARD_H
#define APOLLOD_COMMON_BASE_STACK_GUARD_H

#include <stdint.h>

#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* The line stack_guard_fail writes before exit EXIT_STACK_GUARD (BEHAVIOUR 3). */
#define STACK_GUARD_LINE "apollod: stack smashing detected in linked code (libdeflate)\n"

/* The guard the aarch64 library reads (also set on x86_64, where nothing reads it). */
extern uintptr_t stack_guard_value;

/* Sets the guard from the kernel's 16 random bytes at auxv's AT_RANDOM (a fixed value
 * when there is none), and on x86_64 points %fs at a block holding it. Called once by
 * apollod_start, before anything that checks the guard. Returns 0 or arch_prctl's
 * -errno. */
long stack_guard_init(const uint64_t *auxv);

/* A check failed: writes STACK_GUARD_LINE to stderr and exits the process group with
 * EXIT_STACK_GUARD. Never returns. */
void stack_guard_fail(void) __attribute__((noreturn));

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_BASE_STACK_GUARD_H */
