"""Deterministic per-request figures, the tooling's one callgrind instrument: user-space
instructions (valgrind callgrind's Ir) and syscalls (strace -f -c). Each figure is (a run
with N sequential `GET /` requests) minus (the same start-up and shutdown with no
request), divided by N, so start-up and exit costs cancel out. Both runs wait until the
server is blocked waiting for a connection (/proc/PID/syscall) before the requests and
before SIGTERM (valgrind still runs the tool's exit code on a fatal signal, so the
totals are written). Requests go one at a time over a new connection each, with
TCP_DEFER_ACCEPT on the client (servers.fetch), so every one takes the same path.
Callgrind counts guest instructions only: kernel time is not in the figure (syscalls are
counted separately). Any server: an apollod tier or a peer (servers.PEERS).

Usage (bench/BUILD wraps it as //bench:counts):
  counts.py BINARY [--requests N] [--short] [--strace] [--access-log PATH]
  BINARY: a tier, or a peer name
"""

import argparse
import glob
import os
import re
import subprocess
import tempfile

from bench import servers

WRAPPED_START_BOUND_S = 60.0  # valgrind start-up is slow
DEFAULT_REQUESTS = 200
QUICK_REQUESTS = 20
# Which request: the one wrk sends in the close scenarios (Host: 127.0.0.1:PORT), or the
# shorter one (Host: x).
REQUESTS = {"wrk": None, "short": servers.SHORT_REQUEST}


def run_wrapped(kind, binary, wrapper, requests, workdir, request=None,
                 signal_child=False, tier_args=()):
    """Starts binary (a tier, or the peer kind when kind is in servers.PEERS) under
    wrapper, sends requests `GET /` one after another, each answered with a 200, then
    stops it with SIGTERM (sent to the wrapper's child if signal_child). The protocol of
    every per-request instrument: callgrind and strace here, the qemu trace of
    compare/aarch64_section.py. tier_args: more flags for a tier (--access-log FILE)."""
    if kind in servers.PEERS:
        # A fresh config directory per run: nginx creates (and chowns) its temp dirs once.
        tree = servers.ServingTree(sizes=[], prefix="apollod-%s-" % kind).__enter__()
        server = servers.start_peer(kind, binary, tree.workdir, tree.root, wrapper,
                                    bound_s=WRAPPED_START_BOUND_S, keep_root=True)
    else:
        tree = None
        server = servers.start_tier(kind, binary, wrapper, bound_s=WRAPPED_START_BOUND_S,
                                    extra_args=tier_args)
    try:
        waiter = servers.only_child(server.pid) if signal_child else server.pid
        servers.wait_idle(waiter, WRAPPED_START_BOUND_S)
        for _ in range(requests):
            response = servers.fetch(server.port, request, timeout=30.0,
                                     defer_accept=True)
            if not response.startswith(b"HTTP/1.1 200"):
                raise RuntimeError("%s answered %r" % (kind, response[:40]))
        servers.wait_idle(waiter, WRAPPED_START_BOUND_S)  # back in accept / epoll_wait
    finally:
        server.stop(signal_child=signal_child)
        if tree:
            tree.__exit__(None, None, None)


def parse_callgrind_totals(text):
    """The total Ir of a callgrind output file's text (its `summary:` or `totals:`
    line)."""
    for line in text.splitlines():
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
    raise ValueError("no summary or totals line in callgrind output")


def callgrind_total(kind, binary, requests, workdir, request=None, tier_args=()):
    """Total user-space instructions (callgrind's Ir) of one run with requests requests,
    over every process of the server (valgrind follows fork: h2o forks a helper; each
    process writes its own file, %p in the name)."""
    stem = os.path.join(workdir, "callgrind.%s.%d" % (kind, requests))
    wrapper = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + stem + ".%p.out",
               "--log-file=" + stem + ".log"]
    run_wrapped(kind, binary, wrapper, requests, workdir, request, tier_args=tier_args)
    outputs = glob.glob(stem + ".*.out")
    if not outputs:
        raise RuntimeError("callgrind wrote nothing; see " + stem + ".log")
    total = 0
    for path in outputs:
        with open(path) as f:
            total += parse_callgrind_totals(f.read())
    return total


def instructions_per_request(kind, binary, requests=DEFAULT_REQUESTS, request="wrk",
                             tier_args=()):
    """(Ir with requests requests - Ir with none) / requests, from callgrind. request:
    a key of REQUESTS; tier_args: see run_wrapped."""
    with tempfile.TemporaryDirectory(prefix="apollod-callgrind-") as workdir:
        loaded = callgrind_total(kind, binary, requests, workdir, REQUESTS[request],
                                 tier_args)
        idle = callgrind_total(kind, binary, 0, workdir, tier_args=tier_args)
    return (loaded - idle) / requests


_STRACE_ROW = re.compile(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:(\d+)\s+)?(\w+)\s*$")


def parse_strace_summary(text):
    """strace -c's table -> {syscall: calls} (the total row left out)."""
    calls = {}
    for line in text.splitlines():
        m = _STRACE_ROW.match(line)
        if m and m.group(3) != "total":
            calls[m.group(3)] = int(m.group(1))
    return calls


def strace_calls(kind, binary, requests, workdir, tier_args=()):
    """{syscall: calls} over one run (every thread and child: -f) with requests requests."""
    out = os.path.join(workdir, "strace.%s.%d.txt" % (kind, requests))
    run_wrapped(kind, binary, ["strace", "-f", "-c", "-o", out], requests, workdir,
                 signal_child=True, tier_args=tier_args)
    with open(out) as f:
        return parse_strace_summary(f.read())


def syscalls_per_request(kind, binary, requests=DEFAULT_REQUESTS, tier_args=()):
    """Returns (total syscalls per request, {syscall: calls per request}), the start-up
    only run subtracted. Syscalls that net to zero are left out."""
    with tempfile.TemporaryDirectory(prefix="apollod-strace-") as workdir:
        loaded = strace_calls(kind, binary, requests, workdir, tier_args)
        idle = strace_calls(kind, binary, 0, workdir, tier_args)
    per = {}
    for name in sorted(set(loaded) | set(idle)):
        net = (loaded.get(name, 0) - idle.get(name, 0)) / requests
        if abs(net) >= 0.005:
            per[name] = net
    return sum(per.values()), per


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary", help="a tier binary, or a peer name (%s)"
                    % ", ".join(servers.PEERS))
    ap.add_argument("--requests", type=int, default=DEFAULT_REQUESTS)
    ap.add_argument("--short", action="store_true", help="the shorter request (Host: x)")
    ap.add_argument("--strace", action="store_true", help="also syscalls per request")
    ap.add_argument("--access-log", metavar="PATH", help="a tier: with --access-log PATH")
    args = ap.parse_args()
    tier_args = ["--access-log", args.access_log] if args.access_log else []
    if args.binary in servers.PEERS:
        kind, binary = args.binary, servers.PEER_BINARIES[args.binary]
    else:
        kind, binary = "tier", os.path.abspath(args.binary)
    request = "short" if args.short else "wrk"
    print("instructions per request (callgrind, %s request): %.1f"
          % (request, instructions_per_request(kind, binary, args.requests, request,
                                               tier_args)))
    if args.strace:
        total, by_name = syscalls_per_request(kind, binary, args.requests, tier_args)
        print("syscalls per request (strace -f -c): %.2f  %s" % (total, ", ".join(
            "%s %.2g" % kv for kv in by_name.items())))


if __name__ == "__main__":
    main()
