#!/usr/bin/env python3
"""Where a daemon's start-up CPU goes, from a `perf record -g` of it (issue 29's loader
profile, benchmarks/reports/2026-12-06-loader.md): each sample of COMM is put in one
bucket by its call chain, and the buckets are printed as shares of COMM's samples.

Buckets: the syscall the sample is under (`__x64_sys_*`, or `__arm64_sys_*`), split for
sendfile into the kernel's copy (`memcpy` symbols) and the rest; a page fault outside a
syscall; user space by function (samples at the instruction after a `syscall` land
here: the cost of entering and leaving the kernel, large under a paravirtualized guest).
Also printed: the share whose leaf is the PVM guest's pvm_* (its interrupt enabling,
where samples taken with interrupts off land), counted in the buckets above as well.

  perf record -g -o DATA -- COMMAND...
  python3 bench/perf_breakdown.py DATA [--comm apollod]
"""
import argparse
import collections
import re
import subprocess

SYSCALL = re.compile(r"__(?:x64|arm64)_sys_(\w+)|ksys_(\w+)")  # ksys_read: read's body


def samples(data, comm):
    """Each sample of comm as a list of (symbol, is_kernel), leaf first."""
    out = subprocess.run(["perf", "script", "-i", data, "--comm", comm, "-F", "comm,ip,sym,dso"],
                         capture_output=True, text=True, check=True).stdout
    chain = []
    for line in out.splitlines():
        if not line.strip():
            if chain:
                yield chain
            chain = []
            continue
        if line.startswith(comm) and not line.startswith("\t"):
            continue
        parts = line.split()
        if len(parts) >= 2:
            sym = parts[1].split("+")[0]
            chain.append((sym, "kernel.kallsyms" in line))
    if chain:
        yield chain


def bucket(chain):
    """The bucket name of one sample."""
    leaf, leaf_kernel = chain[0]
    for sym, _ in chain:
        m = SYSCALL.match(sym)
        if m:
            name = m.group(1) or m.group(2)
            if name.startswith("sendfile") or name == "read":
                if any(x in ("exc_page_fault", "asm_exc_page_fault") for x, _ in chain):
                    return "%s: page faults on the destination" % name
                copy = "memcpy" in leaf or "copy_to_iter" in leaf or "copy_user" in leaf
                return "%s: the kernel's copy" % name if copy else "%s: the rest" % name
            return "syscall " + name
    if any(s == "exc_page_fault" or s == "asm_exc_page_fault" for s, _ in chain):
        return "page faults (outside syscalls)"
    if leaf_kernel:
        return "kernel, other (" + leaf + ")"
    return "user: " + leaf


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data")
    ap.add_argument("--comm", default="apollod")
    ap.add_argument("--top", type=int, default=16)
    a = ap.parse_args()
    chains = list(samples(a.data, a.comm))
    counts = collections.Counter(bucket(c) for c in chains)
    pvm = sum(1 for c in chains if "pvm_" in c[0][0])
    total = sum(counts.values())
    print("| where | share of %s's samples (%d) |" % (a.comm, total))
    print("| --- | ---: |")
    for name, n in counts.most_common(a.top):
        print("| %s | %.1f%% |" % (name, 100.0 * n / total))
    print("\nof all of them, with a pvm_* leaf: %.1f%%" % (100.0 * pvm / total))


if __name__ == "__main__":
    main()
