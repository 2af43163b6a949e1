"""--workers: the full tier with 1 and 2 workers beside nginx with 1 and 2 worker processes,
in one run, at keep-alive c=64 and close c=64: requests/s and server CPU per request (the
whole process tree: supervisor and workers, nginx's master and workers), plus how evenly
two workers share 64 keep-alive connections.

    bazel run -c opt //bench:workers [-- --quick | --duration S | --rounds N]

What it can show on a 2-core machine shared with wrk: server CPU per request is the
figure to read (each server pays for its own work, whoever it shares the cores with);
requests/s cannot double, because wrk needs a core too."""

import argparse
import os
import subprocess
import sys
import time

from bench import load, servers, tier_manifest

SCENARIOS = [s for s in load.SCENARIOS if s["name"] in ("keep-alive c=64", "close c=64")]
SPREAD_CONNECTIONS = 64
SPREAD_SETTLE_S = 1.5  # into a wrk run, when every connection is open


def socket_count(pid):
    """Sockets among /proc/PID/fd."""
    fd_dir = "/proc/%d/fd" % pid
    count = 0
    for name in os.listdir(fd_dir):
        try:
            count += os.readlink(os.path.join(fd_dir, name)).startswith("socket:")
        except OSError:
            pass  # closed while we looked
    return count


def spread(server, duration_s):
    """Connections each worker of server (a Server running --workers 2) holds in the
    middle of a keep-alive c=64 wrk run: its sockets minus the one listener it keeps.
    Returns {worker pid: connections}."""
    workers = servers.process_tree(server.pid)[1:]
    scenario = next(s for s in SCENARIOS if s["name"] == "keep-alive c=64")
    argv = load.wrk_argv(server.port, scenario, duration_s)
    wrk = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(min(SPREAD_SETTLE_S, duration_s / 2))
        return {pid: socket_count(pid) - 1 for pid in workers}
    finally:
        wrk.wait(timeout=duration_s + load.WRK_SLACK_S)


def start(binary, nginx):
    """The four servers: full with --workers 1 and 2, nginx with 1 and 2 workers."""
    tree = servers.ServingTree(prefix="apollod-workers-").__enter__()
    running = [
        servers.start_tier("full w1", binary, extra_args=["--workers", "1"]),
        servers.start_tier("full w2", binary, extra_args=["--workers", "2"]),
    ]
    for n in (1, 2):
        workdir = os.path.join(tree.workdir, "nginx%d" % n)
        os.mkdir(workdir)
        os.chmod(workdir, 0o755)
        running.append(servers.start_peer("nginx", nginx, workdir, tree.root, workers=n))
        running[-1].name = "nginx w%d" % n
    return tree, running


def table(results, distribution):
    """The Markdown table."""
    lines = ["| server | " + " | ".join(
        "%s: requests/s | %s: CPU µs/request (user / system)" % (s["name"], s["name"])
        for s in SCENARIOS) + " |",
        "| --- |" + " ---: | ---: |" * len(SCENARIOS)]
    names = [name for name in results[SCENARIOS[0]["name"]]]
    for name in names:
        cells = []
        for s in SCENARIOS:
            r = results[s["name"]][name]
            cells.append("{:,.0f}".format(r["rps"]))
            cells.append("%.2f (%.2f / %.2f)" % (r["cpu_us_per_request"],
                                                  r["cpu_user_us_per_request"],
                                                  r["cpu_system_us_per_request"]))
        lines.append("| %s | %s |" % (name, " | ".join(cells)))
    held = sorted(distribution.values())
    lines.append("")
    lines.append("Connections held by each of full's two workers in the middle of a "
                 "keep-alive c=%d run: %s." % (SPREAD_CONNECTIONS,
                                               " and ".join(str(n) for n in held)))
    return "\n".join(lines)


def measure(binary, nginx, duration_s, rounds, log=None):
    """Runs the comparison; returns (results, distribution)."""
    tree, running = start(binary, nginx)
    try:
        results = load.run_scenarios(running, SCENARIOS, duration_s, rounds, log=log)
        distribution = spread(running[1], max(duration_s, 2))
    finally:
        for server in running:
            server.stop()
        tree.__exit__(None, None, None)
    return results, distribution


def full_binary(manifest):
    """The full tier's binary from //compare:tier_inputs' manifest."""
    return dict(tier_manifest.binaries(tier_manifest.load(manifest)))["full"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    tier_manifest.add_arguments(parser)
    parser.add_argument("--duration", type=float, default=3.0, help="seconds per run")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, in turns")
    args = parser.parse_args()
    binary = full_binary(args.manifest)
    nginx = args.nginx
    duration, rounds = (1.0, 1) if args.quick else (args.duration, args.rounds)
    results, distribution = measure(binary, nginx, duration, rounds,
                                    log=lambda m: print(m, file=sys.stderr))
    print(table(results, distribution))


if __name__ == "__main__":
    main()
