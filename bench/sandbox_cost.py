#!/usr/bin/env python3
"""What the sandbox's seccomp filter costs (BEHAVIOUR 19.6): server CPU per keep-alive
request with the filter (the default) and without it (--no-sandbox), interleaved.

For each NAME=BINARY tier, two daemons run side by side, one of each; every round runs
wrk (keep-alive, C connections, DURATION seconds) against one and then the other, the
order alternating between rounds, and reads each daemon's CPU time from /proc/PID/stat
around its run (load.run_wrk). The figure is CPU seconds over all rounds / requests over
all rounds, in microseconds (load.combine_rounds), with the per-round spread.

    python3 bench/sandbox_cost.py NAME=BINARY... [--rounds 10] [--duration 2] [--conns 64]

Every load is bounded: ROUNDS x 2 wrk runs of DURATION seconds per tier, loopback only.
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench import load  # noqa: E402  (the workspace root, for a plain python3 run)
from bench import servers  # noqa: E402

MODES = [("filter", ()), ("no-sandbox", ("--no-sandbox",))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tiers", nargs="+", metavar="NAME=BINARY")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--duration", type=int, default=2, help="seconds per wrk run")
    ap.add_argument("--conns", type=int, default=64)
    args = ap.parse_args()
    scenario = {"name": "keep-alive c=%d" % args.conns, "family": "keep-alive",
                "connections": args.conns, "headers": []}
    print("%-8s %-11s %10s %14s %22s" % ("tier", "mode", "req/s", "CPU us/req",
                                           "per-round min..max"))
    for name, binary in load.parse_tier_args(args.tiers):
        running = {mode: servers.start_tier(name, binary, extra_args=extra)
                   for mode, extra in MODES}
        try:
            runs = {mode: [] for mode, _ in MODES}
            for r in range(args.rounds):
                order = MODES if r % 2 == 0 else MODES[::-1]
                for mode, _ in order:
                    runs[mode].append(load.run_wrk(running[mode], scenario, args.duration))
        finally:
            servers.stop_all(list(running.values()))
        cpu = {}
        for mode, _ in MODES:
            combined = load.combine_rounds(runs[mode])
            per_round = [(x["cpu_user_s"] + x["cpu_system_s"]) * 1e6 / x["requests"]
                         for x in runs[mode]]
            cpu[mode] = combined["cpu_us_per_request"]
            print("%-8s %-11s %10.0f %14.3f %10.3f..%-10.3f" % (
                name, mode, combined["rps"], cpu[mode], min(per_round), max(per_round)))
        print("%-8s %-11s %10s %+14.3f (%+.1f%%), median of per-round differences %+.3f" % (
            name, "filter cost", "", cpu["filter"] - cpu["no-sandbox"],
            100 * (cpu["filter"] / cpu["no-sandbox"] - 1),
            statistics.median(
                (a["cpu_user_s"] + a["cpu_system_s"]) * 1e6 / a["requests"] -
                (b["cpu_user_s"] + b["cpu_system_s"]) * 1e6 / b["requests"]
                for a, b in zip(runs["filter"], runs["no-sandbox"]))))


if __name__ == "__main__":
    main()
