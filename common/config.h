/* Tier configuration: the one place that turns a tier's variant macros into the feature
 * macros the code tests. Code tests APOLLOD_HAVE_*, never a tier's name.
 *
 * Variant macros (set by a tier's BUILD through apollod_tier(), each 0 or 1):
 *   APOLLOD_VARIANT_NO_DEADLINES  compile the idle-deadline machinery out entirely
 *   APOLLOD_VARIANT_ASM_HOTPATH   the parser, span and number routines come from
 *                                 hand-written assembly instead of the C reference
 * Feature macros derived here (always defined, 0 or 1):
 *   APOLLOD_HAVE_DEADLINES        idle deadlines, the deadline queue and the clock
 *   APOLLOD_HAVE_ASM_HOTPATH      the assembly hot path is linked */
#ifndef APOLLOD_COMMON_CONFIG_H
#define APOLLOD_COMMON_CONFIG_H

#if defined(APOLLOD_HAVE_DEADLINES) || defined(APOLLOD_HAVE_ASM_HOTPATH)
#error "APOLLOD_HAVE_* are derived in config.h; set an APOLLOD_VARIANT_* macro instead"
#endif

#ifndef APOLLOD_VARIANT_NO_DEADLINES
#define APOLLOD_VARIANT_NO_DEADLINES 0
#endif
#ifndef APOLLOD_VARIANT_ASM_HOTPATH
#define APOLLOD_VARIANT_ASM_HOTPATH 0
#endif

#if APOLLOD_VARIANT_NO_DEADLINES != 0 && APOLLOD_VARIANT_NO_DEADLINES != 1
#error "APOLLOD_VARIANT_NO_DEADLINES must be 0 or 1"
#endif
#if APOLLOD_VARIANT_ASM_HOTPATH != 0 && APOLLOD_VARIANT_ASM_HOTPATH != 1
#error "APOLLOD_VARIANT_ASM_HOTPATH must be 0 or 1"
#endif
#if APOLLOD_VARIANT_ASM_HOTPATH && !defined(__x86_64__) && !defined(__aarch64__)
#error "the assembly hot path exists for x86_64 and aarch64 only"
#endif

#define APOLLOD_HAVE_DEADLINES (!APOLLOD_VARIANT_NO_DEADLINES)
#define APOLLOD_HAVE_ASM_HOTPATH APOLLOD_VARIANT_ASM_HOTPATH

#endif /* APOLLOD_COMMON_CONFIG_H */
