"""The uring tier's two ways out for a body by reference, measured A/B (issue 23).

Design (a): the head with MSG_MORE through the ring, then sendfile as a direct call beside
it. Design (b): one linked chain per pipe-full (send of the head, IORING_OP_SPLICE
memfd -> pipe -> socket). Both are built from one tree (bazel/tiers.bzl,
--define=uring_body=sendfile|splice) and given here as NAME=BINARY.

Every design serves the same tree (ServingTree with the scenario files) and runs each
scenario in interleaved rounds: a, b, a, b, ... (the start alternating per round, so
neither always runs first), each run one bounded wrk (bench/load.py's run_wrk: server CPU
from /proc/PID/stat over the run, its whole process tree with io-wq threads, and its
/metrics counters before and after). The figures per design are load.combine_rounds':
median requests/s, server CPU per response as (CPU over all rounds) / (responses over all
rounds). The run stops starting rounds once --budget seconds have passed.

Usage (from the repository root):
  python3 -m bench.uring_splice a=BINARY b=BINARY [--rounds N] [--duration S]
          [--budget S] [--pin] [--json OUT] [--scenario NAME]... [--daemon-arg ARG]...
"""

import argparse
import json
import sys
import time

from bench import load
from bench import servers

KIB = 1024
MIB = 1024 * KIB
SCENARIOS = [
    {"name": "4 MiB file, keep-alive c=8", "family": "files", "connections": 8,
     "headers": [], "file": 4 * MIB},
    {"name": "256 KiB file, keep-alive c=16", "family": "files", "connections": 16,
     "headers": [], "file": 256 * KIB},
]
DEFAULT_ROUNDS = 5
DEFAULT_DURATION_S = 3
DEFAULT_BUDGET_S = 600
COUNTERS = ["response_syscalls", "write_eagains", "responses_by_reference"]


def counter_deltas(result):
    """Per response, the COUNTERS' deltas over one run (None without counters)."""
    before, after = result["counters_before"], result["counters_after"]
    if not before or not after:
        return None
    responses = after["requests_total"] - before["requests_total"]
    if responses <= 0:
        return None
    return {name: (after.get(name, 0) - before.get(name, 0)) / responses
            for name in COUNTERS}


def run(designs, rounds, duration_s, budget_s, pin, log, scenarios=SCENARIOS,
        daemon_args=()):
    """Runs every scenario for every design (NAME, BINARY, started with --root and
    daemon_args) in interleaved rounds. Returns {scenario: {design: combine_rounds' dict
    plus "per_response": median counters}}."""
    raw = {}
    started = time.monotonic()
    prefix = load.PIN_LOAD if pin else ()
    with servers.ServingTree(sizes=[s["file"] for s in scenarios],
                             prefix="apollod-splice-") as tree:
        running = []
        try:
            for name, binary in designs:
                server = servers.start_tier(name, binary, load.PIN_SERVER if pin else (),
                                            extra_args=["--root", tree.root] +
                                            list(daemon_args))
                server.serves_files = True
                running.append(server)
            for round_no in range(rounds):
                if round_no and time.monotonic() - started > budget_s:
                    log("budget of %d s spent: %d rounds" % (budget_s, round_no))
                    break
                order = running if round_no % 2 == 0 else running[::-1]
                for scenario in scenarios:
                    for server in order:
                        log("round %d/%d, %s, %s" % (round_no + 1, rounds,
                                                     scenario["name"], server.name))
                        result = load.run_wrk(server, scenario, duration_s, prefix)
                        raw.setdefault(scenario["name"], {}).setdefault(
                            server.name, []).append(result)
        finally:
            servers.stop_all(running)
    out = {}
    for scenario, per in raw.items():
        for design, results in per.items():
            combined = load.combine_rounds(results)
            deltas = [d for d in map(counter_deltas, results) if d]
            combined["per_response"] = {
                name: load._median([d[name] for d in deltas]) for name in COUNTERS
            } if deltas else None
            combined["rounds_cpu_us"] = [
                (r["cpu_user_s"] + r["cpu_system_s"]) * 1e6 / r["requests"]
                for r in results if r["requests"]]
            combined["rounds_rps"] = [r["rps"] for r in results]
            del combined["wrk_output"]
            out.setdefault(scenario, {})[design] = combined
    return out


def print_table(results):
    print("%-30s %-7s %10s %10s %9s %9s %9s %9s %8s" % (
        "scenario", "design", "req/s", "CPU us/r", "user", "system", "sys/r",
        "resp-sys", "eagain"))
    for scenario, per in results.items():
        for design, r in per.items():
            pr = r["per_response"] or {}
            print("%-30s %-7s %10.0f %10.1f %9.1f %9.1f %9.2f %9.2f %8.2f" % (
                scenario, design, r["rps"], r["cpu_us_per_request"],
                r["cpu_user_us_per_request"], r["cpu_system_us_per_request"],
                r["syscalls_per_request"] or 0, pr.get("response_syscalls", 0),
                pr.get("write_eagains", 0)))
        for design, r in per.items():
            print("  %s per round: CPU us/r %s; req/s %s" % (
                design, " ".join("%.0f" % v for v in r["rounds_cpu_us"]),
                " ".join("%.0f" % v for v in r["rounds_rps"])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("designs", nargs="+", metavar="NAME=BINARY")
    ap.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS)
    ap.add_argument("--duration", type=int, default=DEFAULT_DURATION_S)
    ap.add_argument("--budget", type=int, default=DEFAULT_BUDGET_S,
                    help="seconds after which no new round starts")
    ap.add_argument("--pin", action="store_true",
                    help="the daemons on CPU 0, wrk on CPU 1 (bench/load.py's --pin)")
    ap.add_argument("--json", help="write the results here too")
    ap.add_argument("--scenario", action="append", choices=[s["name"] for s in SCENARIOS],
                    help="only this scenario (repeatable; default: all)")
    ap.add_argument("--daemon-arg", action="append", default=[],
                    help="one more argument for every daemon, e.g. --daemon-arg=--workers "
                         "--daemon-arg=2")
    args = ap.parse_args()
    designs = load.parse_tier_args(args.designs)
    scenarios = [s for s in SCENARIOS if not args.scenario or s["name"] in args.scenario]
    results = run(designs, args.rounds, args.duration, args.budget, args.pin,
                  lambda line: print("uring_splice: " + line, file=sys.stderr),
                  scenarios, args.daemon_arg)
    print_table(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
