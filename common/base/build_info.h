/* What a binary says about its own build: the version (common/base/version.h, printed by
 * --version) and the tier it is (bazel/tier.bzl passes APOLLOD_TIER_NAME, the tier's name
 * in bazel/tiers.bzl). The Prometheus exposition reports both as apollod_build_info's
 * labels. */
#ifndef APOLLOD_COMMON_BUILD_INFO_H
#define APOLLOD_COMMON_BUILD_INFO_H

#include "common/base/version.h"

/* The host build of the core for the unit tests is no tier. */
#ifndef APOLLOD_TIER_NAME
#define APOLLOD_TIER_NAME "none"
#endif

#endif /* APOLLOD_COMMON_BUILD_INFO_H */
