#!/usr/bin/env python3
"""Interleaved A/B runs of the uring tier built two ways: what each ring flag and the receive design buy (issue 15).

Each comparison builds //variants/uring:apollod twice with -c opt, once with the
default defines (A) and once with the comparison's --copt defines (B), copies both
binaries aside, then runs bench/uring_focus.sh on A, B, B, A, A, B, ... (PAIRS pairs,
DURATION seconds each, wrk -t2, loopback) and prints, per side, the median and the spread (min..max)
of requests/s, syscalls per request (the daemon's own syscalls_total / requests_total) and
server CPU microseconds per request (/proc/PID/stat utime+stime), with /proc/loadavg
before and after the comparison. The build-time switches are all defines: no source is
edited.

Run from the workspace root (it calls bazel itself, so not under `bazel run`):
    python3 bench/uring_ab.py [--pairs 5] [--duration 3] [--only NAME ...]
Every load is bounded: wrk's duration, PAIRS pairs, loopback only.
"""
import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TARGET = "//variants/uring:apollod"
BINARY = "bazel-bin/variants/uring/apollod"

# The default set of common/serve/backend_uring.c, spelled out so a comparison can drop one.
FLAGS_ALL = ["CQSIZE", "SUBMIT_ALL", "COOP_TASKRUN", "SINGLE_ISSUER", "DEFER_TASKRUN"]


def setup_flags(names):
    """The --copt that sets URING_SETUP_FLAGS to the IORING_SETUP_ flags names."""
    return "--copt=-DURING_SETUP_FLAGS=(%s)" % "|".join("IORING_SETUP_" + n for n in names)


def without(*drop):
    return setup_flags([f for f in FLAGS_ALL if f not in drop])


# name: (what it measures, A's copts, B's copts, (connections, pipeline depth) loads).
# DEFER_TASKRUN needs SINGLE_ISSUER (io_uring_setup(2)), so SINGLE_ISSUER is measured on
# a ring without DEFER_TASKRUN.
KEEPALIVE = (64, 1)
PIPELINED = (64, 16)  # wrk_pipeline.lua: 16 GET / per write
COMPARISONS = {
    "defer": ("DEFER_TASKRUN: with (A) / without (B)",
              [], [without("DEFER_TASKRUN")], [KEEPALIVE]),
    "single": ("SINGLE_ISSUER, both without DEFER_TASKRUN: with (A) / without (B)",
               [without("DEFER_TASKRUN")], [without("DEFER_TASKRUN", "SINGLE_ISSUER")],
               [KEEPALIVE]),
    "coop": ("COOP_TASKRUN: with (A) / without (B)",
             [], [without("COOP_TASKRUN")], [KEEPALIVE]),
    "coop-nodefer": ("COOP_TASKRUN, both without DEFER_TASKRUN: with (A) / without (B)",
                     [without("DEFER_TASKRUN")], [without("DEFER_TASKRUN", "COOP_TASKRUN")],
                     [KEEPALIVE]),
    "regring": ("registered ring fd: with (A) / without (B)",
                [], ["--copt=-DURING_REGISTER_RING=0"], [KEEPALIVE]),
    "pollfirst": ("POLL_FIRST on every recv after the first: with (A) / without (B)",
                  [], ["--copt=-DURING_RECV_POLL_FIRST=0"], [KEEPALIVE, PIPELINED]),
    "pbuf": ("receive: one recv per read into the slot's buffer (A) / a provided-buffer "
             "ring of 256 x 2 KiB and one multishot recv per connection, the default (B)",
             ["--copt=-DURING_RECV_PBUF=0"], [], [KEEPALIVE, PIPELINED]),
}

LINE = re.compile(r"([\d.]+) requests/s, ([\d.]+) syscalls/request, ([\d.]+) us CPU/request")


def build(copts, dest):
    """Builds the tier with copts and copies the binary to dest."""
    subprocess.run(["bazel", "build", "-c", "opt", *copts, TARGET], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shutil.copy(os.path.join(ROOT, BINARY), dest)


def free_port():
    """A loopback port nobody listens on now (the machine is shared)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_once(binary, conns, depth, duration):
    """One uring_focus.sh run. Returns (requests/s, syscalls/request, CPU us/request)."""
    env = dict(os.environ, PORT=str(free_port()))
    out = subprocess.run(["sh", os.path.join(HERE, "uring_focus.sh"), binary, str(conns),
                          str(duration), str(depth)], check=True, capture_output=True,
                         text=True, timeout=duration + 30, env=env).stdout
    m = LINE.search(out)
    if not m:
        raise RuntimeError("unexpected uring_focus.sh output: " + out)
    return tuple(float(g) for g in m.groups())


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def summary(values):
    return "%s (%s..%s)" % (fmt(statistics.median(values)), fmt(min(values)), fmt(max(values)))


def fmt(v):
    return "%.0f" % v if v >= 100 else "%.3f" % v if v < 1 else "%.2f" % v


def compare(name, pairs, duration, workdir):
    what, copts_a, copts_b, loads = COMPARISONS[name]
    a, b = os.path.join(workdir, name + "-A"), os.path.join(workdir, name + "-B")
    build(copts_a, a)
    build(copts_b, b)
    print("\n## %s: %s" % (name, what))
    print("A: -c opt %s\nB: -c opt %s" % (" ".join(copts_a) or "(defaults)", " ".join(copts_b)))
    for conns, depth in loads:
        load_before = loadavg()
        runs = {"A": [], "B": []}
        # Interleaved and counterbalanced (AB BA AB ...): both sides see the same drift in
        # machine load, and neither always runs second (an AB-only order favoured B).
        for i in range(pairs):
            for side in ("AB" if i % 2 == 0 else "BA"):
                runs[side].append(run_once(a if side == "A" else b, conns, depth, duration))
        print("\nc=%d depth=%d, %d pairs of %ds, loadavg before %s, after %s" %
              (conns, depth, pairs, duration, load_before, loadavg()))
        print("| side | requests/s | syscalls/request | CPU us/request |")
        print("| --- | --- | --- | --- |")
        for side in "AB":
            cols = [summary([r[i] for r in runs[side]]) for i in range(3)]
            print("| %s | %s |" % (side, " | ".join(cols)))
        sys.stdout.flush()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--pairs", type=int, default=5)
    p.add_argument("--duration", type=int, default=3)
    p.add_argument("--only", nargs="*", choices=sorted(COMPARISONS), default=None)
    args = p.parse_args()
    if not 1 <= args.pairs <= 20 or not 1 <= args.duration <= 30:
        p.error("--pairs 1..20, --duration 1..30 (every load loop is bounded)")
    print("medians, (min..max) over the runs; machine: %d CPUs, kernel %s" %
          (os.cpu_count(), os.uname().release))
    with tempfile.TemporaryDirectory() as workdir:
        for name in args.only or list(COMPARISONS):
            compare(name, args.pairs, args.duration, workdir)


if __name__ == "__main__":
    main()
