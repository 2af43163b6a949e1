/* Tier configuration: the one place that turns a tier's variant macros into the feature
 * macros the code tests. Code tests APOLLOD_HAVE_*, never a tier's name.
 *
 * Variant macros (set by a tier's BUILD through apollod_tier(), each 0 or 1):
 *   APOLLOD_VARIANT_NO_DEADLINES  compile the idle-deadline machinery out entirely
 *   APOLLOD_VARIANT_URING         the io_uring event backend instead of epoll
 * Feature macros derived here (always defined, 0 or 1):
 *   APOLLOD_HAVE_DEADLINES        idle deadlines, the deadline queue and the clock
 *   APOLLOD_HAVE_URING            event_backend.h includes backend_uring.h (the tier
 *                                 links backend_uring.c instead of backend_epoll.c)
 *
 * Every tier's binary also gets APOLLOD_TIER_NAME, its name in bazel/tiers.bzl as a string
 * literal, which --version prints (daemon_main.c, min.c).
 *
 * Which implementation of the hot path a tier links (C or assembly) is a choice of
 * sources, not of macros: both sit behind the same prototypes, so no code needs to know. */
#ifndef APOLLOD_COMMON_CONFIG_H
#define APOLLOD_COMMON_CONFIG_H

#if defined(APOLLOD_HAVE_DEADLINES) || defined(APOLLOD_HAVE_URING)
#error "APOLLOD_HAVE_* are derived in config.h; set an APOLLOD_VARIANT_* macro instead"
#endif

#ifndef APOLLOD_VARIANT_NO_DEADLINES
#define APOLLOD_VARIANT_NO_DEADLINES 0
#endif

#if APOLLOD_VARIANT_NO_DEADLINES != 0 && APOLLOD_VARIANT_NO_DEADLINES != 1
#error "APOLLOD_VARIANT_NO_DEADLINES must be 0 or 1"
#endif

#define APOLLOD_HAVE_DEADLINES (!APOLLOD_VARIANT_NO_DEADLINES)

#ifndef APOLLOD_VARIANT_URING
#define APOLLOD_VARIANT_URING 0
#endif

#if APOLLOD_VARIANT_URING != 0 && APOLLOD_VARIANT_URING != 1
#error "APOLLOD_VARIANT_URING must be 0 or 1"
#endif

#define APOLLOD_HAVE_URING APOLLOD_VARIANT_URING

#endif /* APOLLOD_COMMON_CONFIG_H */
