"""The CPU time of a target's C and C++ compiles, each run by hand with the command line
Bazel would use (`bazel aquery`), then again with clang at the same flags: where the test
command's compile time goes (docs/BUILDING.md, "How long it takes"), and what another
compiler would save. Run it in the workspace after a build of the target (the generated
headers must exist). Objects go to a scratch file; nothing in bazel-out changes.

Usage: python3 bench/compile_cpu.py TARGET   e.g. //test/wire:wire_suite
Prints one line per source (gcc s, clang s, each compile's exit status) and the totals.
CPU is user + system time of the compiler's processes: a busy machine slows the wall
clock, not this."""
import json
import os
import resource
import subprocess
import sys
import tempfile

# GCC-only warning flags Bazel's toolchain adds; clang warns about them, nothing else.
GCC_ONLY = {"-Wunused-but-set-parameter", "-Wno-free-nonheap-object",
            "-fno-canonical-system-headers"}


def bazel(*words):
    """Standard output of `bazel WORDS`."""
    return subprocess.run(["bazel"] + list(words), capture_output=True, text=True,
                          check=True).stdout


def cpu_of(argv, cwd):
    """(CPU seconds, exit status) of running argv in cwd."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    status = subprocess.run(argv, cwd=cwd, capture_output=True).returncode
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, status)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    query = 'mnemonic("CppCompile", %s)' % sys.argv[1]
    actions = json.loads(bazel("aquery", query, "--output=jsonproto")).get("actions", [])
    root = bazel("info", "execution_root").strip()
    scratch = tempfile.mkdtemp(prefix="compile_cpu-")
    totals = [0.0, 0.0]
    for action in actions:
        argv = list(action["arguments"])
        argv[argv.index("-o") + 1] = os.path.join(scratch, "out.o")
        if "-MF" in argv:
            argv[argv.index("-MF") + 1] = os.path.join(scratch, "out.d")
        source = argv[argv.index("-c") + 1]
        clang = "clang++" if source.endswith(".cc") else "clang"
        gcc_s, gcc_status = cpu_of(argv, root)
        clang_s, clang_status = cpu_of([clang] + [a for a in argv[1:] if a not in GCC_ONLY],
                                       root)
        totals[0] += gcc_s
        totals[1] += clang_s
        print("%6.2f %6.2f  %d %d  %s" % (gcc_s, clang_s, gcc_status, clang_status, source),
              flush=True)
    print("%d compiles: gcc %.0f s, clang %.0f s of CPU" % (len(actions), *totals))
    for name in os.listdir(scratch):
        os.unlink(os.path.join(scratch, name))
    os.rmdir(scratch)


if __name__ == "__main__":
    main()
