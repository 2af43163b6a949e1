"""apollod_tier(): one macro stamps out a tier's binary, import check and test suites from
its entry in tiers.bzl, so every variants/<tier>/BUILD is two lines and all tiers keep the
same shape. A tier's features derive everything: sources, defines, wire-test features."""

load("//bazel:copts.bzl", "DAEMON_COPTS", "DAEMON_LINKOPTS")
load("//bazel:all_files.bzl", "all_files")
load("//bazel:tiers.bzl", "tier_named", "tier_variant_defines")
load("//bazel:wire_test.bzl", "wire_test")

# The C reference hot path; a tier with asm_hotpath links its package's :hotpath instead.
C_HOTPATH = [
    "//common/base:span_c",
    "//common/http:parse_c",
]
ASM_HOTPATH = [":hotpath"]

# Processes a routed tier's wire suite is split into. With .bazelrc's 4 test slots, 2 took
# the README's test command from an empty cache from 1,448 to 1,241 s beside the same load
# (docs/BUILDING.md, "How long it takes").
WIRE_SHARDS = 2

def _tier_srcs_and_deps(tier):
    """(srcs, deps) of a tier's binary: the entry compiled with the tier's macros, above
    its serve layer (bazel/layers.bzl), the hot path and the runtime. The min tier is the
    arch's _start, its program (the arch's min_tier.S) and its data (min.c), nothing else."""
    features = tier["features"]
    if "min" in features:
        return ["min.c"], [
            "//common/arch:entry",
            "//common/arch:min_tier",
            "//common/base",  # headers only: min.c checks its constants against them
        ]
    hotpath = ASM_HOTPATH if "asm_hotpath" in features else C_HOTPATH
    return ["//common/main:daemon_main.c"], [
        "//common/serve:serve_" + tier["name"],
        "//common/base:runtime",
    ] + hotpath

def _tier_defines(tier):
    """The tier's name (common/base/build_info.h, --version) and, for a routed tier, the
    APOLLOD_VARIANT_* macros common/base/config.h reads (the same as its serve layer's)."""
    # copts are split like a shell's words: the escaped quotes make it a C string.
    defines = ["APOLLOD_TIER_NAME=\\\"%s\\\"" % tier["name"]]
    if "min" in tier["features"]:
        return defines
    return defines + tier_variant_defines(tier)

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
    srcs, deps = _tier_srcs_and_deps(tier)
    native.cc_binary(
        name = binary,
        srcs = srcs,
        deps = deps,
        copts = DAEMON_COPTS + ["-D" + d for d in _tier_defines(tier)],
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

    # The slow_once tier's suite holds the slow tier-independent tests (the 100,000-file
    # tree took 517 s of full's 875 s on x86_64 at load 20, docs/BUILDING.md): its bound is
    # "eternal" (an hour), the others' large's 900 s. A bound only ends a hang.
    wire_test(
        name = name + "_wire_test",
        size = "large",
        timeout = "eternal" if "slow_once" in features else "long",
        # A routed tier's suite is 2 to 4 minutes of mostly waiting: split in
        # WIRE_SHARDS processes (gtest takes every WIRE_SHARDS-th case, from Bazel's
        # sharding environment), which run beside each other and the compiles.
        shard_count = WIRE_SHARDS if "routes" in features else 1,
        harness = "//test/wire:wire_harness",
        daemon = ":" + binary,
        harness_args = _wire_feature_args(features),
        data = [
            "//test/wire:conformance_cases",
            "//test/wire:seccomp_refuse",
        ],
    )

    native.test_suite(
        name = name + "_tests",
        tests = [":" + name + "_import_check", ":" + name + "_wire_test"],
    )

    all_files()  # the tier's folder, for //test:citations_test
