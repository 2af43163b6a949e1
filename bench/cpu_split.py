#!/usr/bin/env python3
"""Where a daemon's server CPU per keep-alive request goes: a sampled kernel+user profile.

Starts BINARY (one apollod tier) on a loopback port, warms it with wrk for 1 s, then runs
wrk (2 threads, C connections, DURATION seconds) while `perf record -e cpu-clock -g -p
PID` samples the daemon at 2 kHz. From `perf report --children` it splits the daemon's
sampled CPU time per request into:

  send     under tcp_sendmsg: the response's TCP path, which on loopback includes the
           client's receive (softirq on the sender's CPU) and the client's wake-up
  receive  under tcp_recvmsg: the request's copy out of the socket
  user     the daemon's own instructions
  other    the rest of the kernel: syscall entry and exit, epoll or io_uring machinery
           (poll arming, task work, SQE and CQE handling), descriptor lookups

This shows what a tier can still save: io_uring removes syscall entries (part of
"other"), never "send". cpu-clock is a software event, so it works in a VM with no PMU
(this machine); samples taken with interrupts off land where they are re-enabled, which
moves time inside the kernel but not between the columns above. Needs perf and
/proc/sys/kernel/perf_event_paranoid <= 2 for a process of one's own (root here).

    python3 bench/cpu_split.py BINARY... [--conns 64] [--duration 3] [--rounds 1]

Every load is bounded: wrk's duration, ROUNDS rounds per binary, loopback only.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench import load  # noqa: E402  (the workspace root, for a plain python3 run)
from bench import servers  # noqa: E402

FREQ_HZ = 2000
# (column, perf symbol whose children time is the column)
SUBTREES = [("send", "tcp_sendmsg"), ("receive", "tcp_recvmsg")]
ROW = re.compile(r"^\s+([\d.]+)%\s+([\d.]+)%\s+\[([k.])\]\s+(\S+)")
EVENTS = re.compile(r"^# Event count \(approx\.\): (\d+)", re.M)


def split(report):
    """Per column, the share (0..1) of the sampled time; and the total in nanoseconds."""
    total_ns = int(EVENTS.search(report).group(1))
    children, user_self = {}, 0.0
    for line in report.splitlines():
        m = ROW.match(line)
        if not m:
            continue
        child, self_pct, space, sym = float(m.group(1)), float(m.group(2)), m.group(3), m.group(4)
        children.setdefault(sym, child)
        if space == ".":
            user_self += self_pct
    shares = {name: children.get(sym, 0.0) / 100 for name, sym in SUBTREES}
    shares["user"] = user_self / 100
    shares["other"] = max(0.0, 1 - sum(shares.values()))
    return shares, total_ns


def profile(binary, conns, duration, workdir):
    """One profiled run. Returns {column: microseconds per request} with 'total'."""
    scenario = {"name": "keep-alive c=%d" % conns, "family": "keep-alive",
                "connections": conns, "headers": []}
    server = servers.start_tier(os.path.basename(binary), binary)
    try:
        load.run_wrk(server, scenario, 1)  # warm
        data = os.path.join(workdir, "perf.data")
        perf = subprocess.Popen(["perf", "record", "-q", "-e", "cpu-clock", "-F", str(FREQ_HZ),
                                 "-g", "-p", str(server.pid), "-o", data, "--", "sleep",
                                 str(duration)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        requests = load.run_wrk(server, scenario, duration)["requests"]
        perf.wait(timeout=duration + 30)
    finally:
        server.stop()
    report = subprocess.run(["perf", "report", "-i", data, "--stdio", "--children",
                             "--sort", "symbol", "-g", "none"], check=True,
                            capture_output=True, text=True, timeout=120).stdout
    shares, total_ns = split(report)
    total_us = total_ns / 1000 / requests
    row = {name: share * total_us for name, share in shares.items()}
    row["total"] = total_us
    return row


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("binaries", nargs="+", metavar="BINARY")
    p.add_argument("--conns", type=int, default=64)
    p.add_argument("--duration", type=int, default=3)
    p.add_argument("--rounds", type=int, default=1)
    args = p.parse_args()
    if not 1 <= args.duration <= 30 or not 1 <= args.rounds <= 10 or not 1 <= args.conns <= 1024:
        p.error("--duration 1..30, --rounds 1..10, --conns 1..1024 (every load is bounded)")
    cols = ["total", "send", "receive", "other", "user"]
    runs = {b: [] for b in args.binaries}
    with tempfile.TemporaryDirectory() as workdir:
        for _ in range(args.rounds):  # binaries alternate, so both see the same drift
            for b in args.binaries:
                runs[b].append(profile(os.path.abspath(b), args.conns, args.duration, workdir))
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print("sampled server CPU, us per request, keep-alive c=%d, %d s, median of %d round(s); "
          "loadavg after: %s" % (args.conns, args.duration, args.rounds, load))
    print("| binary | " + " | ".join(cols) + " | send share |")
    print("| --- |" + " ---: |" * (len(cols) + 1))
    for b, rs in runs.items():
        med = {c: statistics.median(r[c] for r in rs) for c in cols}
        print("| %s | %s | %.0f%% |" % (b, " | ".join("%.2f" % med[c] for c in cols),
                                        100 * med["send"] / med["total"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
