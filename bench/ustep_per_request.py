#!/usr/bin/env python3
"""User-space instructions per request of a running daemon, counted by single-stepping it
(bench/ustep.c): the figure callgrind gives for the epoll tiers, for the uring tier,
which callgrind cannot run (valgrind blocks signals in io_uring_enter) and where the
hardware counters are not available (`perf stat -e instructions:u` is <not supported>
without a PMU).

It starts the daemon, opens CONNS keep-alive connections and warms them, reads
requests_total, attaches ustep for a bounded window, sends ROUNDS lock-step rounds (a
batch of DEPTH pipelined GET / on every connection, then every answer; byte-exact against
the first answer), lets ustep detach, reads requests_total again and prints the steps
divided by the requests the window served. The /metrics scrapes are outside the window.

    bazel run -c opt //bench:ustep_per_request -- BINARY [--conns 64] [--rounds 4] [--depth 1]
    bazel run -c opt //bench:ustep_per_request -- BINARY --fresh 200

With --fresh N it follows callgrind's protocol instead (bench/counts.py): N requests one
after another, each on a new connection (TCP_DEFER_ACCEPT on the client), so the figure
sits beside callgrind's for the epoll tiers. Unlike bench/counts.py it does not subtract
an idle run: the window covers the requests alone.

Bounded: ROUNDS x CONNS x DEPTH requests (at most 20,000), a window of at most 600 s;
loopback only.
"""
import argparse
import socket
import subprocess
import sys
import time
import urllib.request
import os
import re

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench import servers  # noqa: E402  (the workspace root, for a plain python3 run)

REQUEST = b"GET / HTTP/1.1\r\nHost: bench\r\n\r\n"
# Every answer carries the current second in Date, and single-stepping makes the load
# take seconds: answers are compared with the Date value masked (it has a fixed length).
DATE_VALUE = re.compile(rb"(\r\nDate: )[^\r]*")


def without_date(answer):
    return DATE_VALUE.sub(rb"\1-", answer)


MAX_REQUESTS = 20000


def requests_total(port):
    body = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10).read()
    for line in body.decode().splitlines():
        if line.startswith("requests_total "):
            return int(line.split()[1])
    raise RuntimeError("no requests_total in /metrics")


def take(sock, n):
    """Reads exactly n bytes."""
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise RuntimeError("the daemon closed a keep-alive connection")
        data += chunk
    return data


def start(binary):
    """Starts binary on a free loopback port. Returns (process, port)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([binary, "--listen", "127.0.0.1:%d" % port],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("the daemon did not listen")


def measure(binary, ustep, conns, rounds, depth, window, fresh):
    proc, port = start(binary)
    try:
        socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(conns)]
        for s in socks:  # warm, and learn the answer's length
            s.sendall(REQUEST)
        answer = None
        for s in socks:
            got = s.recv(65536)
            answer = answer or got
            if without_date(got) != without_date(answer):
                raise RuntimeError("unexpected warm-up answer")
        before = requests_total(port)
        tracer = subprocess.Popen([ustep, str(proc.pid), str(window)],
                                  stdout=subprocess.PIPE, text=True)
        attached = time.monotonic()
        time.sleep(0.5)  # attached: the daemon is being stepped from here on
        if fresh:  # callgrind's protocol (bench/counts.py): a new connection each
            for _ in range(fresh):
                if not servers.fetch(port, defer_accept=True).startswith(b"HTTP/1.1 200 "):
                    raise RuntimeError("a request was not answered 200")
        for _ in range(0 if fresh else rounds):
            for s in socks:
                s.sendall(REQUEST * depth)
            for s in socks:
                got = take(s, len(answer) * depth)
                if without_date(got) != without_date(answer * depth):
                    raise RuntimeError("an answer differed")
        if time.monotonic() > attached + window:
            raise RuntimeError("the window closed before the load ended: raise --window")
        time.sleep(attached + window + 1 - time.monotonic())
        # Past the window (a second's margin for ustep's own start): a connection wakes
        # the daemon, and ustep detaches at the first instruction after its wait, before
        # the daemon handles the connection. Again until ustep is gone (10 at most).
        for _ in range(10):
            socket.create_connection(("127.0.0.1", port)).close()
            try:
                out, _ = tracer.communicate(timeout=1)
                break
            except subprocess.TimeoutExpired:
                pass
        else:
            tracer.kill()
            raise RuntimeError("ustep did not detach")
        if tracer.returncode != 0:
            raise RuntimeError("ustep failed")
        steps = int(out.split()[1])
        served = requests_total(port) - before - 1  # the second scrape counts itself
        for s in socks:
            s.close()
        return steps, served
    finally:
        proc.kill()
        proc.wait()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("binary")
    p.add_argument("--ustep", default="bench/ustep")
    p.add_argument("--conns", type=int, default=64)
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--depth", type=int, default=1)
    p.add_argument("--window", type=int, default=60, help="seconds ustep stays attached")
    p.add_argument("--fresh", type=int, default=0,
                   help="instead: N requests one after another, each on a new connection "
                        "(callgrind's protocol in bench/counts.py)")
    a = p.parse_args()
    total = a.fresh or a.conns * a.rounds * a.depth
    if not 1 <= total <= MAX_REQUESTS or not 1 <= a.window <= 600:
        p.error("1..%d requests, a window of 1..600 s" % MAX_REQUESTS)
    steps, served = measure(a.binary, a.ustep, a.conns, a.rounds, a.depth, a.window, a.fresh)
    if served != total:
        sys.exit("the window saw %d requests, not %d" % (served, total))
    load = "fresh connections" if a.fresh else "c=%d depth=%d" % (a.conns, a.depth)
    print("%s %s: %d user-space instructions for %d requests: %.0f per request" %
          (a.binary, load, steps, served, steps / served))


if __name__ == "__main__":
    main()
