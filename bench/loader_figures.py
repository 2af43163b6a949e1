#!/usr/bin/env python3
"""Time from exec to the first response on a big tree, and the loader's throughput
(issue 29, "A faster loader"; benchmarks/reports/2026-12-06-loader.md).

For each binary, --runs times, alternating the binaries within a round: starts
`BINARY --listen 127.0.0.1:0 --root TREE [extra flags]`, reads the port from its
"listening on" line, then asks GET /index.html every POLL_S until a 200 arrives (at most
LIMIT_S). Records:
  - first_s: wall seconds from just before the exec to the first 200;
  - cpu_s: the CPU (user + system) of the daemon and every process below it by then,
    from /proc/PID/stat (utime, stime, and the reaped children's cutime, cstime);
  - loaded MB: bytes_cached from /metrics (the snapshot's body bytes);
  - MB/s: loaded MB / first_s, and loaded MB / cpu_s (the throughput of the CPU the
    load had: on a shared, loaded machine the wall time is mostly waiting for a core).
One untimed start first warms the page cache, so the figures are loads from it.
Prints one line per run and a Markdown table of the medians per binary.

  python3 -m bench.loader_figures TREE --runs 3 BEFORE AFTER [-- --cache-bytes 2000000000]
"""
import argparse
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import time

POLL_S = 0.002
LIMIT_S = 120.0
CLK_TCK = os.sysconf("SC_CLK_TCK")


def get(port, path):
    """(status, body) of one GET on a fresh connection, or (0, b"") when refused."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path)
            data = b""
            while True:
                chunk = s.recv(1 << 16)
                if not chunk:
                    break
                data += chunk
    except OSError:
        return 0, b""
    m = re.match(rb"HTTP/1\.1 (\d+)", data)
    head, _, body = data.partition(b"\r\n\r\n")
    return (int(m.group(1)) if m else 0), body


def tree_of(pid):
    """pid and every descendant's pid (from /proc/*/stat's ppid)."""
    parent = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                parent[int(name)] = int(fields[1])
            except OSError:
                continue
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(c for c, pp in parent.items() if pp == p)
    return out


def cpu_seconds(pids):
    """utime + stime + cutime + cstime of pids, in seconds."""
    ticks = 0
    for p in pids:
        try:
            with open("/proc/%d/stat" % p) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += sum(int(x) for x in fields[11:15])  # fields 14-17 of proc(5)
    return ticks / CLK_TCK


def one_run(binary, tree, extra):
    """(first_s, cpu_s, loaded_bytes) of one start of binary on tree."""
    t0 = time.monotonic()
    proc = subprocess.Popen([binary, "--listen", "127.0.0.1:0", "--root", tree] + extra,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        line = proc.stdout.readline().decode()
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        if not m:
            sys.exit("loader_figures: %s said %r" % (binary, line))
        port = int(m.group(1))
        while get(port, b"/index.html")[0] != 200:
            if time.monotonic() - t0 > LIMIT_S:
                sys.exit("loader_figures: no 200 within %d s" % LIMIT_S)
            time.sleep(POLL_S)
        first = time.monotonic() - t0
        cpu = cpu_seconds(tree_of(proc.pid))
        metrics = get(port, b"/metrics")[1].decode()
        loaded = re.search(r"^bytes_cached (\d+)", metrics, re.M)
        return first, cpu, int(loaded.group(1)) if loaded else 0
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def loadavg():
    """The 1-minute load average (/proc/loadavg): a shared machine's figures need it."""
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree")
    ap.add_argument("binaries", nargs="+")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args(argv)
    load_before = loadavg()
    one_run(a.binaries[0], a.tree, extra)  # warms the page cache
    results = {b: [] for b in a.binaries}
    for r in range(a.runs):
        for b in a.binaries:
            first, cpu, loaded = one_run(b, a.tree, extra)
            results[b].append((first, cpu, loaded))
            print("run %d %s: first response %.3f s, cpu %.3f s, loaded %.1f MB, %.0f MB/s"
                  % (r + 1, b, first, cpu, loaded / 1e6, loaded / 1e6 / first), flush=True)
    print("\nflags: %s; load average before %s, after %s\n" % (
        " ".join(extra) or "(defaults)", load_before, loadavg()))
    print("| binary | first response (s) | CPU by then (s) | loaded (MB) | MB/s | MB per CPU s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for b, rows in results.items():
        first = statistics.median(x[0] for x in rows)
        cpu = statistics.median(x[1] for x in rows)
        loaded = statistics.median(x[2] for x in rows)
        print("| %s | %.3f | %.3f | %.1f | %.0f | %.0f |" % (
            b, first, cpu, loaded / 1e6, loaded / 1e6 / first, loaded / 1e6 / cpu))


if __name__ == "__main__":
    main()
