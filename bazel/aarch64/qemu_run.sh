#!/usr/bin/env bash
# `bazel test --config=aarch64` runs every test through this (--run_under): an aarch64 ELF
# goes through qemu-aarch64-static, explicitly, so no binfmt_misc registration is needed;
# anything else (a shell test, a wire suite's launcher: bazel/wire_test.bzl) runs as it is.
# -cpu max: a CPU model with the ARMv8.1 LSE atomics the binaries are built for.
# -L: the cross glibc and libstdc++ the dynamically linked test binaries load.
# APOLLOD_EMULATOR: the wire harness, which runs natively, puts these words before the
# daemon binary it starts (test/wire/wire_harness.cc), so the daemon runs under qemu; the unit suite's
# death test forks instead of re-executing itself when it is set.
# detect_leaks=0: LeakSanitizer stops the world with ptrace, which qemu-user does not
# emulate, and dies at exit ("LeakSanitizer has encountered a fatal error");
# AddressSanitizer and UBSan themselves work under qemu and stay on.
# G_SLICE=always-malloc: qemu-user 7.2 links GLib 2.74, whose slice allocator holds a
# mutex across fork; when another qemu thread held it as the emulated process forked, the
# child waited on it forever, before it could exec (QEMU issue 285; docs/BUILDING.md).
# glibc's malloc resets its own locks in the child.
set -euo pipefail
export G_SLICE=always-malloc
qemu=(/usr/bin/qemu-aarch64-static -cpu max -L /usr/aarch64-linux-gnu)
export APOLLOD_EMULATOR="${qemu[*]}"
export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
# e_machine, the 2 bytes at offset 18 of an ELF header: 0xb7 is EM_AARCH64.
if [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ] &&
	[ "$(od -An -tx1 -j18 -N2 "$1" | tr -d ' ')" = 'b700' ]; then
	exec "${qemu[@]}" "$@"
fi
exec "$@"
