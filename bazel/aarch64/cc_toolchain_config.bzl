"""A C/C++ toolchain for aarch64-linux from Debian's cross compilers
(gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu, binutils-aarch64-linux-gnu). Everything it
needs is on the machine, so Bazel 4.2.3 stays offline: tool paths are absolute, and the
legacy action configs Bazel derives from tool_paths do the rest."""

load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "feature",
    "flag_group",
    "flag_set",
    "tool_path",
    "with_feature_set",
)
load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")

PREFIX = "/usr/bin/aarch64-linux-gnu-"

# ARMv8.1-A is the first level with the LSE atomics (FEAT_LSE): counter_add becomes one
# `stadd` instead of an ldxr/stxr loop. The tests run under qemu-aarch64 -cpu max.
TARGET_MARCH = "-march=armv8.1-a"

_COMPILE_ACTIONS = [
    ACTION_NAMES.assemble,
    ACTION_NAMES.preprocess_assemble,
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.linkstamp_compile,
]

_LINK_ACTIONS = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

def _flags(actions, flags, with_features = []):
    return flag_set(
        actions = actions,
        flag_groups = [flag_group(flags = flags)],
        with_features = with_features,
    )

def _impl(ctx):
    tool_paths = [
        tool_path(name = name, path = PREFIX + tool)
        for name, tool in [
            ("gcc", "gcc"),
            ("cpp", "cpp"),
            ("ar", "ar"),
            ("ld", "ld"),
            ("nm", "nm"),
            ("objcopy", "objcopy"),
            ("objdump", "objdump"),
            ("strip", "strip"),
            ("gcov", "gcov"),
            ("dwp", "dwp"),
        ]
    ]
    # "dwp" has no cross twin in Debian; Bazel only runs it with --fission.
    features = [
        feature(name = "opt"),
        feature(name = "dbg"),
        feature(name = "fastbuild"),
        # The same defaults as Bazel's host toolchain, minus the x86-only ones; the
        # daemon's own flags (bazel/copts.bzl) come after these and win.
        feature(
            name = "default_compile_flags",
            enabled = True,
            flag_sets = [
                _flags(_COMPILE_ACTIONS, [
                    TARGET_MARCH,
                    "-U_FORTIFY_SOURCE",
                    "-Wall",
                    "-fno-omit-frame-pointer",
                    # Paths in outputs relative to the execroot, as Bazel's include
                    # checking expects.
                    "-no-canonical-prefixes",
                    "-fno-canonical-system-headers",
                ]),
                _flags(_COMPILE_ACTIONS, ["-g"], [with_feature_set(features = ["dbg"])]),
                _flags(_COMPILE_ACTIONS, [
                    "-g0",
                    "-O2",
                    "-DNDEBUG",
                    "-ffunction-sections",
                    "-fdata-sections",
                ], [with_feature_set(features = ["opt"])]),
                _flags([ACTION_NAMES.cpp_compile, ACTION_NAMES.cpp_header_parsing], ["-std=c++17"]),
            ],
        ),
        feature(
            name = "default_link_flags",
            enabled = True,
            flag_sets = [
                _flags(_LINK_ACTIONS, [
                    TARGET_MARCH,
                    "-no-canonical-prefixes",
                    "-Wl,-no-as-needed",
                    "-Wl,-z,relro,-z,now",
                    "-pass-exit-codes",
                ]),
                _flags(_LINK_ACTIONS, ["-Wl,--gc-sections"], [with_feature_set(features = ["opt"])]),
            ],
        ),
        # Libraries after the objects: a daemon links -nostdlib and references none of
        # them, so a static archive contributes nothing to it.
        feature(
            name = "default_link_libs",
            enabled = True,
            flag_sets = [_flags(_LINK_ACTIONS, ["-lstdc++", "-lm"])],
        ),
        feature(name = "supports_pic", enabled = True),
    ]
    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        features = features,
        toolchain_identifier = "aarch64-linux-gnu-gcc",
        host_system_name = "x86_64-linux-gnu",
        target_system_name = "aarch64-linux-gnu",
        target_cpu = "aarch64",
        target_libc = "glibc",
        compiler = "gcc",
        abi_version = "gcc",
        abi_libc_version = "glibc",
        tool_paths = tool_paths,
        # Bazel checks every header a compile reads against these and the declared ones.
        cxx_builtin_include_directories = [
            "/usr/lib/gcc-cross/aarch64-linux-gnu",
            "/usr/aarch64-linux-gnu/include",
            "/usr/include",
        ],
    )

aarch64_cc_toolchain_config = rule(
    implementation = _impl,
    attrs = {},
    provides = [CcToolchainConfigInfo],
)
