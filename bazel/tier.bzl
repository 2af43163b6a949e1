"""apollod_tier(): one macro stamps out a tier's binary, import check and test suites, so
every variants/<tier>/BUILD is a few lines and all tiers keep the same shape."""

load("//bazel:copts.bzl", "DAEMON_COPTS", "DAEMON_LINKOPTS")

# The routed tiers' source groups, in link order.
ROUTED_SRCS = [
    "//common:runtime_srcs",
    "//common:core_srcs",
    "//common:server_srcs",
]

def apollod_tier(
        name,
        binary = "apollod",
        srcs = [],
        variant_defines = {},
        hotpath_srcs = ["//common:c_hotpath_srcs"],
        deadlines = True,
        routed = True,
        wire_features = []):
    """Declares tier `name` in the calling package.

    Args:
      name: the tier's name (full, min, nodeadline, asm-hotpath).
      binary: the cc_binary's name (apollod, or apollod-min).
      srcs: tier-specific sources (min: its own loop).
      variant_defines: APOLLOD_VARIANT_* macro -> 0/1, read by common/config.h.
      hotpath_srcs: the request hot path (C reference, or the assembly of asm-hotpath).
      deadlines: False compiles the idle deadline out (APOLLOD_VARIANT_NO_DEADLINES=1)
        and leaves its sources unlinked.
      routed: a routed tier (the common event loop) rather than min.
      wire_features: features the over-the-wire suite tests (see test/wire/README.md).
    """
    defines = dict(variant_defines)
    defines["APOLLOD_VARIANT_NO_DEADLINES"] = "0" if deadlines else "1"
    if routed:
        all_srcs = ROUTED_SRCS + hotpath_srcs + srcs
        if deadlines:
            all_srcs = all_srcs + ["//common:deadline_srcs"]
    else:
        all_srcs = ["//common:runtime_srcs", "//common:min_srcs"] + srcs

    native.cc_binary(
        name = binary,
        srcs = all_srcs + ["//common:hdrs"],
        copts = DAEMON_COPTS + [
            "-D%s=%s" % (k, v)
            for k, v in sorted(defines.items())
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

    tests = [":" + name + "_import_check"]

    native.cc_test(
        name = name + "_wire_test",
        size = "large",
        srcs = [],
        args = [
            "$(rootpath :%s)" % binary,
            "--features=" + ",".join(wire_features),
        ],
        data = [
            ":" + binary,
            "//test/wire:conformance_cases",
        ],
        deps = ["//test/wire:wire_suite"],
    )
    tests.append(":" + name + "_wire_test")

    native.test_suite(
        name = name + "_tests",
        tests = tests,
    )
