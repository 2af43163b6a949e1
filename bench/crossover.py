"""Where a body should stop leaving by copy and start leaving by reference (BEHAVIOUR
10.17): server CPU per response, keep-alive, for bodies of several sizes, each served by
builds that differ only in FILE_BY_REFERENCE_MIN. Bench-only: the figures go to a dated
report in benchmarks/reports/, never into a test.

Build the two ways of one tier first (the define only moves the threshold):
  bazel build -c opt --copt=-DAPOLLOD_BY_REFERENCE_MIN=0xffffffffffffffff \
      //variants/full:apollod && cp bazel-bin/variants/full/apollod /tmp/apollod-copy
  bazel build -c opt --copt=-DAPOLLOD_BY_REFERENCE_MIN=1 \
      //variants/full:apollod && cp bazel-bin/variants/full/apollod /tmp/apollod-reference

Usage:
  python3 -m bench.crossover NAME=BINARY... [--disk NAME=BINARY]... [--nginx PATH [--nginx-tmpfs]]
          [--sizes 4,16,...(KiB)] [--connections C] [--rounds N] [--duration S] [--syscalls] [--pin]
Each size is one scenario; within it the servers run one after another, the order
rotating by round; each figure is the median over the rounds. Server CPU is given
twice: from the scheduler's run time (schedstat, exact) and from /proc/PID/stat's
ticks (sampled once per tick on a tick-accounting kernel, and so noisy in short runs); a
round where the two differ by more than servers.CLOCKS_AGREE_SHARE is warned about on
stderr. --disk starts a build with --cache-bytes 0 (bodies from disk by sendfile, as a
peer sends them); --pin puts the servers on CPU 0 and wrk on CPU 1. --syscalls adds, for each
apollod server, Δresponse_syscalls, Δwrite_eagains and Δresponses_by_reference per
response over the same run (from /metrics).
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile

from bench import load
from bench import servers

DEFAULT_SIZES_KIB = [4, 16, 32, 64, 128, 256]
TMPFS = "/dev/shm"  # --nginx-tmpfs: where the tree's shmem copy goes
KIB = 1024


def per_response(result, name):
    """The counter name's delta over the run, per request answered (None without
    counters)."""
    before, after = result["counters_before"], result["counters_after"]
    if not before or not after or name not in after:
        return None
    answered = after["requests_total"] - before["requests_total"]
    return (after[name] - before[name]) / answered if answered else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tiers", nargs="*", help="NAME=BINARY of an apollod build")
    parser.add_argument("--disk", action="append", default=[], metavar="NAME=BINARY",
                        help="an apollod build run with --cache-bytes 0: every body from "
                        "disk by sendfile (BEHAVIOUR 10.18)")
    parser.add_argument("--pin", action="store_true",
                        help="servers on CPU 0, wrk on CPU 1 (taskset)")
    parser.add_argument("--nginx", help="nginx binary (sendfile on), run beside them")
    parser.add_argument("--nginx-tmpfs", action="store_true",
                        help="with --nginx, a second nginx serving a copy of the tree on "
                        "tmpfs (/dev/shm): sendfile from shmem, as the memfd arena is")
    parser.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES_KIB)),
                        help="body sizes in KiB, comma-separated")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=3)
    parser.add_argument("--syscalls", action="store_true")
    args = parser.parse_args()
    sizes = [int(s) * KIB for s in args.sizes.split(",")]
    with servers.ServingTree(sizes=sizes, prefix="apollod-crossover-") as tree:
        running = []
        wrapper = load.PIN_SERVER if args.pin else ()
        for spec, budget in ([(t, []) for t in args.tiers]
                             + [(t, ["--cache-bytes", "0"]) for t in args.disk]):
            name, binary = spec.split("=", 1)
            running.append(servers.start_tier(name, binary, wrapper,
                                              extra_args=["--root", tree.root] + budget))
        if args.nginx:
            running.append(servers.start_peer("nginx", args.nginx, tree.workdir, tree.root,
                                              wrapper))
        shm = None
        if args.nginx and args.nginx_tmpfs:
            shm = tempfile.mkdtemp(prefix="apollod-crossover-", dir=TMPFS)
            os.chmod(shm, 0o755)
            shutil.copytree(tree.root, os.path.join(shm, "www"))
            running.append(servers.start_peer("nginx", args.nginx, shm,
                                              os.path.join(shm, "www")))
            running[-1].name = "nginx-tmpfs"
        try:
            print("| body | server | CPU us/response (run time) | CPU us/response (ticks)"
                  " | requests/s | response syscalls/response | EAGAINs/response"
                  " | by reference/response |")
            print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
            for size in sizes:
                scenario = {"name": "%d KiB" % (size // KIB), "family": "files",
                            "connections": args.connections, "headers": [], "file": size}
                runs = {s.name: [] for s in running}
                for r in range(args.rounds):
                    order = running[r % len(running):] + running[:r % len(running)]
                    for s in order:
                        runs[s.name].append(load.run_wrk(
                            s, scenario, args.duration, load.PIN_LOAD if args.pin else ()))
                for s in running:
                    rs = runs[s.name]
                    ticks = statistics.median(
                        (x["cpu_user_s"] + x["cpu_system_s"]) / x["requests"] * 1e6 for x in rs)
                    run = ("%.1f" % statistics.median(
                        x["cpu_run_s"] / x["requests"] * 1e6 for x in rs)
                        if None not in (x["cpu_run_s"] for x in rs) else "-")
                    rps = statistics.median(x["rps"] for x in rs)
                    for x in rs:  # the self-check, round by round
                        gap = servers.clocks_disagree(x["cpu_user_s"] + x["cpu_system_s"],
                                                      x["cpu_run_s"])
                        if gap is not None:
                            print("WARNING: %d KiB, %s: stat and schedstat %.0f%% apart"
                                  % (size // KIB, s.name, 100 * gap), file=sys.stderr)
                    extra = ["", "", ""]
                    if args.syscalls and rs[0]["counters_before"]:
                        values = [[per_response(x, c) for x in rs]
                                  for c in ("response_syscalls", "write_eagains",
                                            "responses_by_reference")]
                        extra = ["-" if None in v else "%.3f" % statistics.median(v)
                                 for v in values]
                    print("| %d KiB | %s | %s | %.1f | %.0f | %s |" % (
                        size // KIB, s.name, run, ticks, rps, " | ".join(extra)), flush=True)
        finally:
            servers.stop_all(running)
            if shm:
                shutil.rmtree(shm, ignore_errors=True)


if __name__ == "__main__":
    main()
