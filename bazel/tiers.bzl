"""The tiers: the one list. Bazel builds each from it (variants/<name>/BUILD calls
apollod_tier(name)) and compare/ measures each from it. Adding a tier is one entry here
and a two-line BUILD file.

Each entry:
  name:     the tier's folder under variants/ and its column heading.
  binary:   the daemon cc_binary's name in that folder.
  features: what the tier is (see apollod_tier in tier.bzl for what each one brings):
    routes       the routed daemon: the common loop, connections, parser and answer
    deadlines    idle deadlines (with routes; without it the machinery is compiled out)
    keepalive    persistent connections and pipelining (wire-suite feature)
    files        --root, the warm file cache (wire-suite feature)
    compress     gzip representations made at load (wire-suite feature; every routed tier
                 links libdeflate through common/answer, which all of them share)
    stop         SIGTERM/SIGINT stop gracefully (wire-suite feature)
    workers      --workers N, one counter page (wire-suite feature)
    asm_hotpath  the request hot path from the tier's own assembly, not the C reference
    uring        the io_uring event backend instead of epoll (and its wire tests)
    min          the minimal tier: accept, read, write, close; its own min.c
    slow_once    the slow wire tests whose outcome does not depend on the tier (the
                 100,000-file tree, the 10 s default deadlines, chromium's listing and
                 CORS preflight, a Prometheus server's scrape, 4097 watched directories)
                 run on this tier only (wire-suite feature)
"""

TIERS = [
    {
        "name": "full",
        "binary": "apollod",
        "features": ["routes", "deadlines", "files", "compress", "keepalive", "stop", "workers", "slow_once"],
    },
    {
        "name": "min",
        "binary": "apollod-min",
        "features": ["min"],
    },
    {
        "name": "nodeadline",
        "binary": "apollod",
        "features": ["routes", "files", "compress", "keepalive", "stop", "workers"],
    },
    {
        "name": "asm-hotpath",
        "binary": "apollod",
        "features": ["routes", "deadlines", "files", "compress", "keepalive", "stop", "workers", "asm_hotpath"],
    },
    {
        "name": "uring",
        "binary": "apollod",
        "features": ["routes", "deadlines", "files", "compress", "keepalive", "stop", "workers", "uring"],
    },
]

def tier_named(name):
    """Returns the TIERS entry called name; fails for an unknown one."""
    for tier in TIERS:
        if tier["name"] == name:
            return tier
    fail("no tier named %s in bazel/tiers.bzl" % name)

def tier_label(tier):
    """The daemon binary's label."""
    return "//variants/%s:%s" % (tier["name"], tier["binary"])

def tier_variant_defines(tier):
    """The APOLLOD_VARIANT_* macros common/base/config.h reads, as NAME=VALUE strings, for
    a routed tier's serve layer and entry."""
    features = tier["features"]
    return [
        "APOLLOD_VARIANT_NO_DEADLINES=" + ("0" if "deadlines" in features else "1"),
        "APOLLOD_VARIANT_URING=" + ("1" if "uring" in features else "0"),
    ]
