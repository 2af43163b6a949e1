"""The layers of common/: one cc_library per folder whose deps point only downward, so an
include of a higher layer's header fails to compile (the header is not among the action's
inputs in the sandbox). docs/ARCHITECTURE.md draws the graph; test/layering_check.py checks
the include lines against the same order.

    arch <- base <- http <- answer <- serve <- main
                \\<- process <------------/

Every layer compiles with the daemon's flags (freestanding, no libc). `serve` is compiled
once per routed tier (its sources read the tier's APOLLOD_VARIANT_* macros through
base/config.h); every other layer is shared by all tiers."""

load("//bazel:all_files.bzl", "all_files")
load("//bazel:copts.bzl", "DAEMON_COPTS")

# Bottom to top: an include may name its own layer or one listed before it.
LAYERS = ["arch", "base", "http", "answer", "process", "serve", "main"]

def layer_library(name, srcs = [], deps = [], alwayslink = False, local_defines = []):
    """A cc_library of this package's daemon sources with every header of the package.

    Args:
      name: the target (the layer's own name for the layer's main library).
      srcs: .c / .S sources of this package.
      deps: the layers (and libraries) directly below that these sources include.
      alwayslink: link every object even if nothing before it in the link line refers to
        it (a hot-path implementation or the entry, referred to from lower layers).
      local_defines: macros for these sources only (a tier's variant macros).
    """
    native.cc_library(
        name = name,
        srcs = srcs,
        hdrs = native.glob(["*.h"]),
        deps = deps,
        copts = DAEMON_COPTS,
        local_defines = local_defines,
        alwayslink = alwayslink,
        linkstatic = True,  # static archives only: no shared object of -fno-pic code
        visibility = ["//visibility:public"],
    )

def layer_files():
    """Exports the package's sources and headers by name (the host test library in
    //common:core_for_tests and the fuzzers compile some of them with libc), as the
    filegroups :hdrs and :files (//test:layering_test), and :all_files
    (//test:citations_test)."""
    all_files()
    native.exports_files(native.glob(["*.c", "*.h"]))
    native.filegroup(
        name = "hdrs",
        srcs = native.glob(["*.h"]),
        visibility = ["//visibility:public"],
    )
    native.filegroup(
        name = "files",
        srcs = native.glob(["*.c", "*.h", "*.S", "*/*.h", "*/*.S"]),
        visibility = ["//visibility:public"],
    )
