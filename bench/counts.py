"""Deterministic per-request figures: user-space instructions (valgrind callgrind) and
syscalls (strace -f -c). Each figure is (run with N sequential `GET /` requests) minus
(the same start-up and shutdown with no request), divided by N, so start-up and exit
costs cancel out. Requests go one at a time over a new connection each."""

import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import servers  # noqa: E402

WRAPPED_START_BOUND_S = 60.0  # valgrind start-up is slow
DEFAULT_REQUESTS = 200
QUICK_REQUESTS = 20


def _run_wrapped(kind, binary, wrapper, requests, workdir, signal_child=False):
    """Starts binary (a tier, or nginx when kind == "nginx") under wrapper, sends requests
    `GET /` one after another, each answered with a 200, then stops it with SIGTERM (sent
    to the wrapper's child if signal_child)."""
    if kind == "nginx":
        # A fresh prefix per run: nginx creates (and chowns) its temp dirs only once.
        prefix = tempfile.mkdtemp(prefix="nginx-", dir=workdir)
        server = servers.start_nginx(binary, prefix, wrapper, bound_s=WRAPPED_START_BOUND_S)
    else:
        server = servers.start_tier(kind, binary, wrapper, bound_s=WRAPPED_START_BOUND_S)
    try:
        # Both runs wait until start-up is over (the server blocks waiting for a
        # connection), so the difference between them is the requests alone.
        waiter = servers.only_child(server.pid) if signal_child else server.pid
        servers.wait_idle(waiter, WRAPPED_START_BOUND_S)
        for _ in range(requests):
            response = servers.fetch(server.port, timeout=30.0)
            if not response.startswith(b"HTTP/1.1 200"):
                raise RuntimeError("%s answered %r" % (kind, response[:40]))
        servers.wait_idle(waiter, WRAPPED_START_BOUND_S)  # back in accept / epoll_wait
    finally:
        server.stop(signal_child=signal_child)


def callgrind_total(kind, binary, requests, workdir):
    """Total user-space instructions (callgrind's Ir) of one run with requests requests."""
    out = os.path.join(workdir, "callgrind.%s.%d.out" % (kind, requests))
    wrapper = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
               "--log-file=" + out + ".log"]
    _run_wrapped(kind, binary, wrapper, requests, workdir)
    with open(out) as f:
        for line in f:
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise RuntimeError("no totals in " + out)


def instructions_per_request(kind, binary, requests=DEFAULT_REQUESTS):
    """(Ir with requests requests - Ir with none) / requests, from callgrind."""
    with tempfile.TemporaryDirectory(prefix="apollod-callgrind-") as workdir:
        loaded = callgrind_total(kind, binary, requests, workdir)
        idle = callgrind_total(kind, binary, 0, workdir)
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


def strace_calls(kind, binary, requests, workdir):
    """{syscall: calls} over one run (every thread and child: -f) with requests requests."""
    out = os.path.join(workdir, "strace.%s.%d.txt" % (kind, requests))
    _run_wrapped(kind, binary, ["strace", "-f", "-c", "-o", out], requests, workdir,
                 signal_child=True)
    with open(out) as f:
        return parse_strace_summary(f.read())


def syscalls_per_request(kind, binary, requests=DEFAULT_REQUESTS):
    """Returns (total syscalls per request, {syscall: calls per request}), the start-up
    only run subtracted. Syscalls that net to zero are left out."""
    with tempfile.TemporaryDirectory(prefix="apollod-strace-") as workdir:
        loaded = strace_calls(kind, binary, requests, workdir)
        idle = strace_calls(kind, binary, 0, workdir)
    per = {}
    for name in sorted(set(loaded) | set(idle)):
        net = (loaded.get(name, 0) - idle.get(name, 0)) / requests
        if abs(net) >= 0.005:
            per[name] = net
    return sum(per.values()), per
