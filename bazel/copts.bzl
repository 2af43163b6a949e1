"""The project's compiler and linker flags, every BUILD file's: one place, so targets cannot
drift. Not here: the aarch64 toolchain's own defaults (bazel/aarch64/cc_toolchain_config.bzl,
which these follow and override), GoogleTest's -pthread (third_party/googletest) and the
fuzzers' clang command (test/fuzz/build_fuzzer.sh, outside Bazel)."""

# Warnings for every C file, daemon or test.
WARNING_COPTS = [
    "-Wall",
    "-Wextra",
    "-Wshadow",
    "-Wstrict-prototypes",
    "-Werror=implicit-function-declaration",
    # A pointer of the wrong type is a bug, never a style point: a merge that turned a
    # field into an array once compiled with only a warning here and read the wrong bytes.
    "-Werror=incompatible-pointer-types",
    "-Werror=int-conversion",
]

# The libc-free daemon binaries. -ffreestanding: no hosted library is assumed;
# -fno-stack-protector: there is no __stack_chk_fail to call; no unwind tables: nothing
# unwinds; function and data sections let --gc-sections drop what a tier does not call;
# -fno-tree-loop-distribute-patterns keeps GCC from turning loops into memcpy/memset
# calls (our own memcpy included); -fno-pic: a static executable at a fixed address.
DAEMON_COPTS = WARNING_COPTS + [
    "-std=gnu11",
    "-O2",
    "-ffreestanding",
    "-fno-stack-protector",
    "-fno-asynchronous-unwind-tables",
    "-fno-unwind-tables",
    "-ffunction-sections",
    "-fdata-sections",
    "-fno-tree-loop-distribute-patterns",
    "-fno-pic",
    "-fno-plt",
]

# -nostdlib: no crt objects, no libc; -static: no PT_INTERP, no dynamic section.
# Only ever on a daemon cc_binary: a cc_library's linkopts leak into every dependent.
DAEMON_LINKOPTS = [
    "-nostdlib",
    "-static",
    "-no-pie",
    "-Wl,--gc-sections",
    "-Wl,--build-id=none",
    "-Wl,-z,norelro",
    "-Wl,-z,noexecstack",
]

# The same C sources compiled into host test binaries (with libc, for GoogleTest).
HOST_C_COPTS = WARNING_COPTS + ["-std=gnu11"]

# The shared warnings that only mean something to a C compiler.
C_ONLY_WARNINGS = [
    "-Wstrict-prototypes",
    "-Werror=implicit-function-declaration",
    "-Werror=incompatible-pointer-types",
    "-Werror=int-conversion",
]

# The C++ test suites (GoogleTest: test/unit, test/wire): the shared warnings a C++
# compiler understands; C++17 (Bazel 4's default toolchain compiles C++ as c++0x).
CXX_TEST_COPTS = [flag for flag in WARNING_COPTS if flag not in C_ONLY_WARNINGS] + [
    "-std=c++17",
]

# AddressSanitizer + UndefinedBehaviorSanitizer, for copts and linkopts alike. No
# recovery: the first finding fails the test instead of scrolling past in the log.
SANITIZER_FLAGS = [
    "-fsanitize=address,undefined",
    "-fno-omit-frame-pointer",
    "-fno-sanitize-recover=all",
]
