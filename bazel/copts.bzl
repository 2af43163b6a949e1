"""Compiler and linker flags shared by every target: one place, so tiers cannot drift."""

# Warnings for every C file, daemon or test.
WARNING_COPTS = [
    "-Wall",
    "-Wextra",
    "-Wshadow",
    "-Wstrict-prototypes",
    "-Werror=implicit-function-declaration",
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
