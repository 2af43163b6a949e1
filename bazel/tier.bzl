"""apollod_tier(): one macro stamps out a tier's binary, import check and test suites from
its entry in tiers.bzl, so every variants/<tier>/BUILD is two lines and all tiers keep the
same shape. A tier's features derive everything: sources, defines, wire-test features."""

load("//bazel:copts.bzl", "DAEMON_COPTS", "DAEMON_LINKOPTS")
load("//bazel:tiers.bzl", "tier_named")

# The routed tiers' source groups, in link order; the hot path and deadlines come after.
ROUTED_SRCS = [
    "//common:runtime_srcs",
    "//common:core_srcs",
    "//common:serving_srcs",
]

# The min tier: the arch's _start, its program (the arch's min_tier.S) and its data
# (min.c), nothing else.
MIN_SRCS = [
    "//common:entry_srcs",
    "//common:min_tier_srcs",
    "min.c",
]

# The event backend: epoll, or io_uring for a tier with the uring feature.
BACKEND_EPOLL_SRCS = ["//common:backend_epoll_srcs"]
BACKEND_URING_SRCS = ["//common:backend_uring_srcs"]

# The C reference hot path; a tier with asm_hotpath links its package's :hotpath_srcs.
C_HOTPATH_SRCS = ["//common:c_hotpath_srcs"]
ASM_HOTPATH_SRCS = [":hotpath_srcs"]

def _tier_srcs(features):
    """The sources a tier with these features links."""
    if "min" in features:
        return MIN_SRCS
    srcs = ROUTED_SRCS
    srcs = srcs + (BACKEND_URING_SRCS if "uring" in features else BACKEND_EPOLL_SRCS)
    srcs = srcs + (ASM_HOTPATH_SRCS if "asm_hotpath" in features else C_HOTPATH_SRCS)
    if "deadlines" in features:
        srcs = srcs + ["//common:deadline_srcs"]
    return srcs

def _tier_defines(name, features):
    """The APOLLOD_VARIANT_* macros common/config.h reads, and the tier's name
    (common/build_info.h)."""
    # copts are split like a shell's words: the escaped quotes make it a C string.
    name_define = {"APOLLOD_TIER_NAME": '\\"%s\\"' % name}
    if "min" in features:
        return name_define
    return dict(name_define, **{
        "APOLLOD_VARIANT_NO_DEADLINES": "0" if "deadlines" in features else "1",
        "APOLLOD_VARIANT_URING": "1" if "uring" in features else "0",
    })

def _wire_features(features):
    """What the over-the-wire suite tests (test/wire/README.md): the tier's features,
    plus no_deadlines for a routed tier without deadlines."""
    if "routes" in features and "deadlines" not in features:
        return features + ["no_deadlines"]
    return features

def _wire_feature_args(features):
    """The wire suite's --features argument. qemu-user has no io_uring (io_uring_setup
    fails with ENOSYS under it), so under --config=aarch64 the uring tier's suite runs
    only the test of that refusal (feature uring_emulated); the rest runs natively."""
    native_arg = ["--features=" + ",".join(_wire_features(features))]
    if "uring" not in features:
        return native_arg
    return select({
        "//bazel:aarch64": [
            "--features=uring_emulated",
            "--gtest_filter=UringEmulatedTest.*",
        ],
        "//conditions:default": native_arg,
    })

def apollod_tier(name):
    """Declares tier `name` (an entry of //bazel:tiers.bzl) in the calling package."""
    tier = tier_named(name)
    binary = tier["binary"]
    features = tier["features"]
    native.cc_binary(
        name = binary,
        srcs = _tier_srcs(features) + ["//common:hdrs"],
        copts = DAEMON_COPTS + [
            "-D%s=%s" % (k, v)
            for k, v in sorted(_tier_defines(name, features).items())
        ],
        linkopts = DAEMON_LINKOPTS,
        visibility = ["//visibility:public"],
    )

    native.sh_test(
        name = name + "_import_check",
        size = "small",
        srcs = ["//test:import_check.sh"],
        args = ["$(rootpath :%s)" % binary],
        data = [":" + binary],
    )

    native.cc_test(
        name = name + "_wire_test",
        size = "large",
        srcs = [],
        args = ["$(rootpath :%s)" % binary] + _wire_feature_args(features),
        data = [
            ":" + binary,
            "//test/wire:conformance_cases",
            "//test/wire:seccomp_refuse",
        ],
        deps = ["//test/wire:wire_suite"],
    )

    native.test_suite(
        name = name + "_tests",
        tests = [":" + name + "_import_check", ":" + name + "_wire_test"],
    )
