"""The load runner: wrk against every server in one session, scenario by scenario.

A scenario is one wrk setting (connections, extra headers, path, Lua script) in one
family: a new connection per request (`Connection: close`), keep-alive, pipelined, and
files (the served tree's 4 KiB and 256 KiB files). Within a scenario the servers run one
after another, so each gets the same machine state; the order rotates between
scenarios. The whole set runs several rounds and each figure is the median over the
rounds (the machines are shared and noisy). Around every wrk run the server's own CPU
time is read from /proc/PID/stat (its whole process tree) and from the scheduler's
schedstat, and for apollod its /metrics counters: server CPU and syscalls per request
over the same window. Each row prints the CPU by both clocks side by side and warns (on
stderr) when they are more than servers.CLOCKS_AGREE_SHARE apart (issue 34's self-check);
bench/cpu_independent.py measures the same thing with code of its own.

--pin puts every server on CPU 0 and wrk on CPU 1 (taskset); --quick runs every server
at once within a scenario (1 s each): rough figures, for the table's shape test.
--access-log runs only keep-alive c=64, with each logging server's access log off and
then on (to a file), and prints what logging costs (access_log_cost).

Connection-per-request load on loopback leaves one TIME_WAIT socket per request on the
server side; a long run fills the ephemeral port space and the TIME_WAIT table
(net.ipv4.tcp_max_tw_buckets), after which connects stall and p99 shows it. So each wrk
run is short (DEFAULT_DURATION_S; --quick: QUICK_DURATION_S, wrk's smallest unit).

Usage as a program (bench/BUILD wraps it as //bench:load):
  load.py (--manifest M | NAME=BINARY...) [--quick] [--pin] [--duration S] [--rounds N]
          [--json OUT] [--access-log [--log-dir DIR]] [--scenario NAME]...
          [--nginx PATH] [--h2o PATH] [--lighttpd PATH]
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

from bench import servers
from bench import tier_manifest

DEFAULT_DURATION_S = 3
QUICK_DURATION_S = 1  # wrk takes whole seconds: "0.5s" or "500ms" make it exit at once
DEFAULT_ROUNDS = 3
QUICK_ROUNDS = 1
WRK_TIMEOUT_S = 2     # a response slower than this counts as a timeout error
WRK_MAX_THREADS = 2   # these machines have 2 cores; wrk needs threads <= connections
WRK_SLACK_S = 10      # on top of the duration before wrk itself is killed

CLOSE = ["Connection: close"]
PIPELINE_DEPTH = 16
KIB = 1024
MIB = 1024 * KIB

# name: row label; family: the chart panel (close, keep-alive, pipelined, files);
# connections: wrk -c; headers: wrk -H each; file: the served tree's file of that many
# bytes (servers.file_url; default the fixed answer at "/"); script: the wrk Lua script
# (default WRK_SCRIPT) and its arguments; latency: False when wrk's latency figures mean
# nothing for the scenario (with pipelining wrk times a batch from its first write, and
# its histogram reports zeros). Keep-alive scenarios send no Connection header (HTTP/1.1
# persists); the pipelined one sends PIPELINE_DEPTH requests per write.
SCENARIOS = [
    {"name": "close c=1", "family": "close", "connections": 1, "headers": CLOSE},
    {"name": "close c=8", "family": "close", "connections": 8, "headers": CLOSE},
    {"name": "close c=64", "family": "close", "connections": 64, "headers": CLOSE},
    {"name": "keep-alive c=1", "family": "keep-alive", "connections": 1, "headers": []},
    {"name": "keep-alive c=8", "family": "keep-alive", "connections": 8, "headers": []},
    {"name": "keep-alive c=64", "family": "keep-alive", "connections": 64, "headers": []},
    {"name": "pipelined x%d c=64" % PIPELINE_DEPTH, "family": "pipelined",
     "connections": 64, "headers": [], "script": "wrk_pipeline.lua",
     "script_args": [str(PIPELINE_DEPTH)], "latency": False},
    {"name": "4 KiB file, keep-alive c=64", "family": "files", "connections": 64,
     "headers": [], "file": 4 * KIB},
    {"name": "256 KiB file, keep-alive c=64", "family": "files", "connections": 64,
     "headers": [], "file": 256 * KIB},
    {"name": "4 KiB file, close c=8", "family": "files", "connections": 8,
     "headers": CLOSE, "file": 4 * KIB},
    # Issue 23's rows: a 4 MiB body (by reference, through a send pipe:
    # FILE_BY_REFERENCE_MIN is 1 MiB, where the pipe starts to cost less than the copy on
    # loopback, issue 34), and one the tiers serve from disk by sendfile (beyond
    # --cache-bytes: servers.TIER_CACHE_BYTES).
    {"name": "4 MiB file, keep-alive c=8", "family": "files", "connections": 8,
     "headers": [], "file": 4 * MIB},
    {"name": "16 MiB file from disk, keep-alive c=4", "family": "files", "connections": 4,
     "headers": [], "file": servers.DISK_FILE_SIZE},
]
FAMILIES = ["close", "keep-alive", "pipelined", "files"]

# The access log's cost: keep-alive c=64 again, every server logging each request to a
# file (measure_logged). Not in SCENARIOS: it needs servers started with their logs on.
LOGGED_SCENARIO = {"name": "keep-alive c=64, access log on (to a file)",
                   "family": "keep-alive", "connections": 64, "headers": []}
LOGGED_PEERS = ["nginx"]  # the peer that logs in that row (access_log to a file)

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
WRK_SCRIPT = os.path.join(BENCH_DIR, "wrk_report.lua")
PIN_SERVER = ["taskset", "-c", "0"]  # --pin: the server on CPU 0 ...
PIN_LOAD = ["taskset", "-c", "1"]    # ... and wrk on CPU 1


def scenario_path(scenario):
    """The URL path a scenario requests: its "path", the file of its "file" size, or /."""
    if "path" in scenario:
        return scenario["path"]
    return servers.file_url(scenario["file"]) if "file" in scenario else "/"


def wrk_argv(port, scenario, duration_s, prefix=()):
    """The wrk command line for one scenario against 127.0.0.1:port (after prefix, e.g.
    taskset)."""
    connections = scenario["connections"]
    script = os.path.join(BENCH_DIR, scenario["script"]) if "script" in scenario else WRK_SCRIPT
    argv = list(prefix) + [
        "wrk", "-t", str(min(WRK_MAX_THREADS, connections)), "-c", str(connections),
        "-d", "%ds" % duration_s, "--timeout", "%ds" % WRK_TIMEOUT_S, "--latency",
        "-s", script]
    for header in scenario["headers"]:
        argv += ["-H", header]
    argv.append("http://%s:%d%s" % (servers.LOOPBACK, port, scenario_path(scenario)))
    if scenario.get("script_args"):
        argv += ["--"] + scenario["script_args"]
    return argv


def parse_wrk(output):
    """Turns wrk's output (with wrk_report.lua's WRK_JSON line) into a result dict:
    requests, rps, bytes (read, heads included), bytes_per_s, p50_us, p99_us, success_share (responses with a 2xx/3xx
    status over all attempts: responses plus connect, read, write and timeout errors),
    errors. p50_us and p99_us are None when wrk timed no response: it counts a response
    slower than --timeout (WRK_TIMEOUT_S) as completed and as a timeout error, and leaves
    it out of its histogram, which then reads 0 everywhere, max included."""
    for line in output.splitlines():
        if line.startswith("WRK_JSON "):
            raw = json.loads(line[len("WRK_JSON "):])
            break
    else:
        raise RuntimeError("no WRK_JSON line in wrk output:\n" + output)
    errors = raw["errors"]
    failed_attempts = errors["connect"] + errors["read"] + errors["write"] + errors["timeout"]
    attempts = raw["requests"] + failed_attempts
    good = raw["requests"] - errors["status"]
    timed = raw["latency_us"]["max"] > 0
    return {
        "requests": raw["requests"],
        "rps": raw["requests"] / (raw["duration_us"] / 1e6),
        "bytes": raw["bytes"],
        "bytes_per_s": raw["bytes"] / (raw["duration_us"] / 1e6),
        "p50_us": raw["latency_us"]["p50"] if timed else None,
        "p99_us": raw["latency_us"]["p99"] if timed else None,
        "success_share": good / attempts if attempts else 0.0,
        "errors": errors,
    }


def daemon_counters(port):
    """The daemon's own /metrics counters as {name: value}, or None for a server without
    them (the peers, min). One request with Connection: close, bounded in time."""
    request = b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    try:
        reply = servers.fetch(port, request)
    except OSError:
        return None
    head, _, body = reply.partition(b"\r\n\r\n")
    counters = {}
    for line in body.decode("ascii", "replace").splitlines():
        name, _, value = line.partition(" ")
        if not value.isdigit():
            return None
        counters[name] = int(value)
    return counters if "syscalls_total" in counters else None


def run_wrk(server, scenario, duration_s, wrk_prefix=()):
    """Runs one bounded wrk against server (a servers.Server) and returns parse_wrk's dict
    plus the raw text and the server's CPU seconds over the run (cpu_user_s,
    cpu_system_s: its whole process tree, from /proc/PID/stat right before and right
    after wrk; cpu_run_s: the same tree's run time from schedstat, None without it). For a daemon with counters, also syscalls_per_request:
    Δsyscalls_total / Δrequests_total over the run, from /metrics read before and after
    (the /metrics request read before is in the delta; over thousands of requests it
    weighs nothing)."""
    before = daemon_counters(server.port)
    cpu_before = servers.cpu_seconds(server.pid)
    run_before = servers.run_seconds(server.pid)
    out = subprocess.run(wrk_argv(server.port, scenario, duration_s, wrk_prefix),
                         capture_output=True, text=True, timeout=duration_s + WRK_SLACK_S,
                         check=True).stdout
    cpu_after = servers.cpu_seconds(server.pid)
    run_after = servers.run_seconds(server.pid)
    after = daemon_counters(server.port)
    result = parse_wrk(out)
    result["wrk_output"] = out
    result["cpu_user_s"] = cpu_after[0] - cpu_before[0]
    result["cpu_system_s"] = cpu_after[1] - cpu_before[1]
    result["cpu_run_s"] = (run_after - run_before
                           if run_before is not None and run_after is not None else None)
    result["counters_before"], result["counters_after"] = before, after
    result["syscalls_per_request"] = None
    if before and after and after["requests_total"] > before["requests_total"]:
        result["syscalls_per_request"] = (
            (after["syscalls_total"] - before["syscalls_total"])
            / (after["requests_total"] - before["requests_total"]))
    return result


def _median(values):
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _median_of_timed(values):
    """The median of the rounds in which wrk timed a response (parse_wrk), or None."""
    timed = [v for v in values if v is not None]
    return _median(timed) if timed else None


def combine_rounds(results):
    """One result from several rounds' results: medians of rps, p50 and p99 (p50 and p99
    over the rounds in which wrk timed a response); requests, errors and the success
    share over all rounds together; server CPU per request as
    (CPU seconds over all rounds) / (requests over all rounds), split into user and
    system the same way so that the two add up to the total."""
    errors = {k: sum(r["errors"][k] for r in results) for k in results[0]["errors"]}
    requests = sum(r["requests"] for r in results)
    good = requests - errors["status"]
    attempts = requests + sum(errors[k] for k in ("connect", "read", "write", "timeout"))
    user = sum(r["cpu_user_s"] for r in results)
    system = sum(r["cpu_system_s"] for r in results)
    runs = [r.get("cpu_run_s") for r in results]
    run = None if None in runs else sum(runs)
    per_request = (lambda s: s * 1e6 / requests) if requests else (lambda s: None)
    return {
        "requests": requests,
        "bytes": sum(r["bytes"] for r in results),  # read by wrk, heads included
        "rps": _median([r["rps"] for r in results]),
        "p50_us": _median_of_timed([r["p50_us"] for r in results]),
        "p99_us": _median_of_timed([r["p99_us"] for r in results]),
        "success_share": good / attempts if attempts else 0.0,
        "errors": errors,
        "cpu_us_per_request": per_request(user + system),
        "cpu_user_us_per_request": per_request(user),
        "cpu_system_us_per_request": per_request(system),
        # the same window by the scheduler's clock (schedstat), None without it: the
        # self-check against the ticks above (servers.clocks_disagree)
        "cpu_run_us_per_request": None if run is None else per_request(run),
        "clocks_gap": servers.clocks_disagree(user + system, run),
        "syscalls_per_request": (
            None if any(r["syscalls_per_request"] is None for r in results)
            else _median([r["syscalls_per_request"] for r in results])),
        "rounds": len(results),
        "wrk_output": [r["wrk_output"] for r in results],
    }


def serves(server, scenario):
    """Whether server takes part in scenario: file scenarios need a served tree."""
    return "file" not in scenario or server.serves_files


def run_scenarios(running, scenarios, duration_s, rounds=1, log=None, pin=False,
                  parallel=False):
    """Runs every scenario against every Server in running that serves it, rounds times
    (in turns; with parallel, all servers of a scenario at once). Returns
    {scenario name: {server name: combine_rounds' result}}."""
    raw = {}
    step = 0
    prefix = PIN_LOAD if pin else ()
    for round_no in range(rounds):
        for scenario in scenarios:
            order = running[step % len(running):] + running[:step % len(running)]
            order = [s for s in order if serves(s, scenario)]
            step += 1
            if log:
                log("load: round %d/%d, %s%s" % (round_no + 1, rounds, scenario["name"],
                                                  " (all servers at once)" if parallel
                                                  else ""))
            if parallel:
                with concurrent.futures.ThreadPoolExecutor(len(order)) as pool:
                    futures = [(s, pool.submit(run_wrk, s, scenario, duration_s, prefix))
                               for s in order]
                    done = [(s, f.result()) for s, f in futures]
            else:
                done = [(s, run_wrk(s, scenario, duration_s, prefix)) for s in order]
            for server, result in done:
                raw.setdefault(scenario["name"], {}).setdefault(server.name, []).append(
                    result)
    return {scenario: {server: combine_rounds(results) for server, results in per.items()}
            for scenario, per in raw.items()}


def measure(tiers, peers, duration_s, rounds=1, scenarios=SCENARIOS, log=None,
            pin=False, parallel=False):
    """Starts every tier ((name, binary, serves_files) triples) and every peer ((name,
    binary) pairs) on one served tree, runs the scenarios, reads each server's peak
    resident memory after the load, stops them. pin: servers on CPU 0, wrk on CPU 1.
    Returns {"scenarios": run_scenarios' dict, "peak_rss_kib": {server: KiB}}."""
    if pin and (os.cpu_count() or 1) < 2:
        raise RuntimeError("--pin needs two CPUs")
    with servers.ServingTree(prefix="apollod-load-") as tree:
        running = servers.start_all(tiers, peers, tree, PIN_SERVER if pin else ())
        try:
            results = run_scenarios(running, scenarios, duration_s, rounds, log=log,
                                    pin=pin, parallel=parallel)
            rss = {s.name: s.peak_rss_kib() for s in running}
        finally:
            servers.stop_all(running)
    return {"scenarios": results, "peak_rss_kib": rss}


def measure_logged(tiers, peers, duration_s, rounds=1, log=None, parallel=False,
                   log_dir=None):
    """LOGGED_SCENARIO against the tiers that have --access-log (the routed ones: those
    that serve files) and the LOGGED_PEERS, each logging to a file of its own in a fresh
    tree (or in log_dir: another filesystem). Arguments as measure's. Returns
    {"scenarios": run_scenarios' dict}."""
    logging_tiers = [t for t in tiers if t[2]]
    logging_peers = [p for p in peers if p[0] in LOGGED_PEERS]
    with servers.ServingTree(prefix="apollod-logged-") as tree:
        running = servers.start_all(logging_tiers, logging_peers, tree, access_logs=True,
                                    log_dir=log_dir)
        try:
            results = run_scenarios(running, [LOGGED_SCENARIO], duration_s, rounds,
                                    log=log, parallel=parallel)
        finally:
            servers.stop_all(running)
    return {"scenarios": results}


def access_log_cost(tiers, peers, duration_s, rounds, log=None, log_dir=None):
    """keep-alive c=64 with every logging server's log off (measure), then on
    (measure_logged), `rounds` times each, alternating. Prints per server req/s, server
    CPU µs per request and syscalls per request, off and on, and the difference."""
    plain = next(s for s in SCENARIOS if s["name"] == "keep-alive c=64")
    tiers = [t for t in tiers if t[2]]  # the tiers with --access-log
    peers = [p for p in peers if p[0] in LOGGED_PEERS]
    runs = {"off": [], "on": []}
    for _ in range(rounds):
        runs["off"].append(measure(tiers, peers, duration_s, 1, [plain], log)["scenarios"][
            plain["name"]])
        runs["on"].append(measure_logged(tiers, peers, duration_s, 1, log,
                                         log_dir=log_dir)["scenarios"][
            LOGGED_SCENARIO["name"]])
    print("%-11s %12s %12s %14s %14s %8s %10s %10s" % (
        "server", "req/s off", "req/s on", "CPU us/req off", "CPU us/req on", "delta",
        "sys/req off", "sys/req on"))
    for name in [t[0] for t in tiers] + [p[0] for p in peers]:
        off = _median([r[name]["cpu_us_per_request"] for r in runs["off"]])
        on = _median([r[name]["cpu_us_per_request"] for r in runs["on"]])
        sys_off = [r[name]["syscalls_per_request"] for r in runs["off"]]
        sys_on = [r[name]["syscalls_per_request"] for r in runs["on"]]
        print("%-11s %12.0f %12.0f %14.2f %14.2f %+8.2f %10s %10s" % (
            name, _median([r[name]["rps"] for r in runs["off"]]),
            _median([r[name]["rps"] for r in runs["on"]]), off, on, on - off,
            "%.2f" % _median(sys_off) if None not in sys_off else "-",
            "%.2f" % _median(sys_on) if None not in sys_on else "-"))


def _us(value):
    return "-" if value is None else "%.1f" % value


def result_line(name, server, r):
    """One printed row: req/s, p99, server CPU per request by both clocks (ticks from
    /proc/PID/stat, run time from schedstat), syscalls per request, success share."""
    sys_req = r["syscalls_per_request"]
    return ("%-30s %-11s %10.0f req/s  p99 %6s us  CPU %6s us/req (stat) %6s (schedstat)"
            "  syscalls/req %s  success %.4f"
            % (name, server, r["rps"], "-" if r["p99_us"] is None else r["p99_us"],
               _us(r["cpu_us_per_request"]),
               _us(r.get("cpu_run_us_per_request")),
               "-" if sys_req is None else "%.3f" % sys_req, r["success_share"]))


def clocks_warning(name, server, r):
    """The self-check's warning for a row whose two CPU clocks disagree."""
    return ("WARNING: %s, %s: server CPU %s us/req by /proc/PID/stat but %s by schedstat "
            "(%.0f%% apart, more than %.0f%%): do not use this figure"
            % (name, server, _us(r["cpu_us_per_request"]), _us(r["cpu_run_us_per_request"]),
               100 * r["clocks_gap"], 100 * servers.CLOCKS_AGREE_SHARE))


def parse_tier_args(pairs):
    """NAME=BINARY strings -> [(name, binary)]."""
    return [tuple(p.split("=", 1)) for p in pairs]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tiers", nargs="*", metavar="NAME=BINARY")
    tier_manifest.add_arguments(ap, manifest_required=False)
    ap.add_argument("--duration", type=int, help="seconds per wrk run")
    ap.add_argument("--rounds", type=int, help="repetitions of the whole set")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--access-log", action="store_true",
                    help="only keep-alive c=64, logs off then on: what the access log costs")
    ap.add_argument("--log-dir",
                    help="with --access-log: write the logs here (e.g. /dev/shm, a tmpfs, to "
                         "set the filesystem's writeback apart from the daemon's own cost)")
    ap.add_argument("--scenario", action="append", metavar="NAME",
                    help="run only this scenario (repeatable), e.g. 'keep-alive c=64'")
    args = ap.parse_args()
    scenarios = [sc for sc in SCENARIOS if not args.scenario or sc["name"] in args.scenario]
    if not scenarios:
        ap.error("no scenario named %s; the names: %s" % (
            args.scenario, ", ".join(sc["name"] for sc in SCENARIOS)))
    duration = args.duration or (QUICK_DURATION_S if args.quick else DEFAULT_DURATION_S)
    rounds = args.rounds or (QUICK_ROUNDS if args.quick else DEFAULT_ROUNDS)
    # A tier given by hand serves the tree too, unless it is min (told by its binary).
    tiers = [(name, binary, servers.serves_files(binary))
             for name, binary in parse_tier_args(args.tiers)]
    if args.manifest:
        tiers += tier_manifest.serving(tier_manifest.load(args.manifest))
    if not tiers:
        ap.error("no tier: give --manifest or NAME=BINARY")
    if args.access_log:
        access_log_cost(tiers, tier_manifest.peers(args), duration, rounds,
                        log=lambda m: print(m, file=sys.stderr), log_dir=args.log_dir)
        return
    data = measure(tiers, tier_manifest.peers(args), duration, rounds, scenarios,
                   pin=args.pin, parallel=args.quick,
                   log=lambda m: print(m, file=sys.stderr))
    for name, per_server in data["scenarios"].items():
        for server, r in per_server.items():
            print(result_line(name, server, r))
            if r["clocks_gap"] is not None:
                print(clocks_warning(name, server, r), file=sys.stderr)
    for server, kib in data["peak_rss_kib"].items():
        print("peak RSS %-11s %d KiB" % (server, kib))
    if args.json:
        for per_server in data["scenarios"].values():
            for r in per_server.values():
                del r["wrk_output"]
        with open(args.json, "w") as f:
            json.dump(data, f, indent=2)
        print("wrote " + args.json)


if __name__ == "__main__":
    main()
