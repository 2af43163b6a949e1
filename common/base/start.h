/* The C side of process entry, for the libc-free daemon binaries. */
#ifndef APOLLOD_COMMON_START_H
#define APOLLOD_COMMON_START_H

#include <stdint.h>

/* Each routed tier defines this (start.c calls it). argv and envp are NULL-terminated;
 * auxv is the auxiliary vector's (type, value) pairs, ending with AT_NULL. Returns the
 * exit status. */
int apollod_main(int argc, char **argv, char **envp, const uint64_t *auxv);

/* Called by the arch's _start with the initial stack pointer; never returns. start.c
 * defines it for the routed tiers; the min tier's is its whole program, in the arch's
 * assembly (common/arch/<cpu>/min_tier.S). */
__attribute__((noreturn)) void apollod_start(long *sp);

#endif /* APOLLOD_COMMON_START_H */
