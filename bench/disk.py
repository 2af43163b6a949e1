"""Files served from disk (BEHAVIOUR 10.18), measured as issue 23 asks:

1. A 1 GiB file beyond --cache-bytes (the default budget, 256 MiB), keep-alive, c=4: MB/s
   of the apollod tiers against nginx (sendfile on, bench/servers.py's config), rounds
   interleaved, medians; and the daemon's VmRSS before and after the load (and VmHWM).
2. A 10 GiB tree of sparse files (ten of 1 GiB, beyond the budget, and an index.html):
   start-up time (exec to the "listening on" line, median of N) and VmRSS after start.

Run: bazel build -c opt //variants/full:apollod //variants/uring:apollod &&
     python3 bench/disk.py --tier full=bazel-bin/variants/full/apollod \
         --tier uring=bazel-bin/variants/uring/apollod
(or bazel run -c opt //bench:disk). The 1 GiB file is real bytes (written once, read
from the page cache afterwards), the 10 GiB tree sparse: both under /tmp, removed after.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

from bench import load, servers

GIB = 1 << 30
FILE_URL = "/files/1g.bin"
SPARSE_FILES = 10             # ten sparse files of 1 GiB: the 10 GiB tree
WRK_CONNECTIONS = 4
WRK_TIMEOUT_S = 60            # a 1 GiB response takes seconds: not a timeout
CURL_BOUND_S = 300            # four whole downloads of 1 GiB, on a slow shared machine
DEFAULT_DURATION_S = 10
DEFAULT_ROUNDS = 3
DEFAULT_STARTS = 5
CHUNK = 1 << 20


def vm_kib(pid, field):
    """VmRSS or VmHWM of pid, in KiB."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError("no %s for pid %d" % (field, pid))


def write_real_file(path, size):
    """size bytes of pseudo-random data (one random MiB repeated) at path."""
    block = os.urandom(CHUNK)
    with open(path, "wb") as f:
        for _ in range(size // CHUNK):
            f.write(block)


def wrk_mb_s(server, duration_s):
    """One wrk run of c=4 keep-alive GETs of the 1 GiB file: MB/s (10^6 bytes) read, the
    responses wrk completed, and the server's CPU seconds (user + system) per GB sent."""
    scenario = {"connections": WRK_CONNECTIONS, "headers": []}
    argv = load.wrk_argv(server.port, scenario, duration_s)
    argv[-1] = "http://%s:%d%s" % (servers.LOOPBACK, server.port, FILE_URL)
    argv[argv.index("--timeout") + 1] = "%ds" % WRK_TIMEOUT_S
    cpu0 = sum(servers.cpu_seconds(server.pid))
    out = subprocess.run(argv, capture_output=True, text=True,
                         timeout=duration_s + load.WRK_SLACK_S).stdout
    cpu = sum(servers.cpu_seconds(server.pid)) - cpu0
    r = load.parse_wrk(out)
    gb = r["bytes_per_s"] * duration_s / 1e9
    return r["bytes_per_s"] / 1e6, r["requests"], cpu / gb if gb else float("nan")


def curl_mb_s(server):
    """WRK_CONNECTIONS curls at once, each downloading the whole 1 GiB file (to /dev/null,
    one connection each): MB/s (10^6 bytes) of the bytes all received over the wall time
    from the first start to the last end, complete downloads, and the server's CPU
    seconds per GB sent."""
    url = "http://%s:%d%s" % (servers.LOOPBACK, server.port, FILE_URL)
    argv = ["curl", "-s", "-o", "/dev/null", "-w", "%{size_download}\\n", url]
    cpu0 = sum(servers.cpu_seconds(server.pid))
    t0 = time.monotonic()
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
             for _ in range(WRK_CONNECTIONS)]
    sizes = [int(p.communicate(timeout=CURL_BOUND_S)[0].strip() or 0) for p in procs]
    wall = time.monotonic() - t0
    cpu = sum(servers.cpu_seconds(server.pid)) - cpu0
    total = sum(sizes)
    return total / wall / 1e6, sum(1 for n in sizes if n == GIB), cpu / (total / 1e9)


def one_gib(tiers, duration_s, rounds):
    """Part 1. Returns rows (name, median MB/s, per-round MB/s, rss before, after, hwm)."""
    work = servers.public_tempdir("apollod-disk-")
    try:
        root = os.path.join(work, "www")
        os.makedirs(os.path.join(root, "files"))
        with open(os.path.join(root, "index.html"), "w") as f:
            f.write(servers.ANSWER)
        write_real_file(os.path.join(root, FILE_URL.lstrip("/")), GIB)
        running = [servers.start_tier(name, binary, extra_args=["--root", root])
                   for name, binary in tiers]
        running.append(servers.start_peer("nginx", servers.PEER_BINARIES["nginx"], work, root))
        rss_before = {s.name: vm_kib(s.pid, "VmRSS") for s in running}
        results = {s.name: [] for s in running}
        whole = {s.name: [] for s in running}
        for _ in range(rounds):
            for s in running:  # interleaved: each round every server once, both clients
                results[s.name].append(wrk_mb_s(s, duration_s))
                whole[s.name].append(curl_mb_s(s))
        rows = []
        for s in running:
            mbs = [r[0] for r in results[s.name]]
            rows.append((s.name, statistics.median(mbs), mbs, rss_before[s.name],
                         vm_kib(s.pid, "VmRSS"), vm_kib(s.pid, "VmHWM"),
                         sum(r[1] for r in results[s.name]),
                         statistics.median(r[2] for r in results[s.name]),
                         whole[s.name]))
        counters = {}
        for s in running:
            if s.name != "nginx":
                counters[s.name] = load.daemon_counters(s.port)
            s.stop()
        return rows, counters
    finally:
        shutil.rmtree(work, ignore_errors=True)


def start_once(binary, root):
    """Starts binary --root root, times exec to its announcement line; returns (seconds,
    VmRSS KiB after start)."""
    t0 = time.monotonic()
    server = servers.start_tier("t", binary, extra_args=["--root", root])
    elapsed = time.monotonic() - t0
    rss = vm_kib(server.pid, "VmRSS")
    reply = servers.fetch(server.port, ("GET /f0.img HTTP/1.1\r\nHost: x\r\nRange: "
                                        "bytes=-4\r\nConnection: close\r\n\r\n").encode())
    server.stop()
    if b"206 Partial Content" not in reply:
        raise RuntimeError("the 10 GiB tree did not serve a range: %r" % reply[:200])
    return elapsed, rss


def ten_gib_tree(tiers, starts):
    """Part 2. Returns rows (name, median start s, all, median VmRSS KiB, all)."""
    work = servers.public_tempdir("apollod-disk-tree-")
    try:
        for i in range(SPARSE_FILES):
            with open(os.path.join(work, "f%d.img" % i), "wb") as f:
                f.truncate(GIB)
        with open(os.path.join(work, "index.html"), "w") as f:
            f.write(servers.ANSWER)
        rows = []
        for name, binary in tiers:
            runs = [start_once(binary, work) for _ in range(starts)]
            secs = [r[0] for r in runs]
            rss = [r[1] for r in runs]
            rows.append((name, statistics.median(secs), secs, statistics.median(rss), rss))
        return rows
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tier", action="append", required=True, metavar="NAME=BINARY")
    p.add_argument("--duration", type=int, default=DEFAULT_DURATION_S)
    p.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS)
    p.add_argument("--starts", type=int, default=DEFAULT_STARTS)
    args = p.parse_args(argv)
    tiers = [tuple(t.split("=", 1)) for t in args.tier]
    print("## 10 GiB tree of sparse files: start-up (exec to 'listening on') and VmRSS")
    print("| tier | start-up s, median | all | VmRSS kB, median | all |")
    print("| --- | ---: | --- | ---: | --- |")
    for name, med, secs, rss_med, rss in ten_gib_tree(tiers, args.starts):
        print("| %s | %.4f | %s | %d | %s |" % (name, med, ", ".join("%.4f" % s for s in secs),
                                                rss_med, ", ".join(str(r) for r in rss)))
    print()
    print("## 1 GiB file from disk, keep-alive c=4, %d s x %d rounds interleaved"
          % (args.duration, args.rounds))
    rows, counters = one_gib(tiers, args.duration, args.rounds)
    nginx = [r for r in rows if r[0] == "nginx"][0][1]
    print("| server | MB/s, median | rounds | x nginx | server CPU s per GB, median | "
          "VmRSS kB before | after | VmHWM kB | responses completed |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, med, mbs, before, after, hwm, responses, cpu_gb, _ in rows:
        print("| %s | %.0f | %s | %.2f | %.3f | %d | %d | %d | %d |" % (
            name, med, ", ".join("%.0f" % m for m in mbs), med / nginx, cpu_gb, before,
            after, hwm, responses))
    print()
    print("## The same, whole downloads: %d curls at once, each the whole 1 GiB, %d rounds"
          % (WRK_CONNECTIONS, args.rounds))
    curl_nginx = statistics.median(r[0] for r in [r for r in rows if r[0] == "nginx"][0][8])
    print("| server | MB/s, median | rounds | x nginx | server CPU s per GB, median | "
          "complete downloads |")
    print("| --- | ---: | --- | ---: | ---: | ---: |")
    for row in rows:
        runs = row[8]
        med = statistics.median(r[0] for r in runs)
        print("| %s | %.0f | %s | %.2f | %.3f | %d of %d |" % (
            row[0], med, ", ".join("%.0f" % r[0] for r in runs), med / curl_nginx,
            statistics.median(r[2] for r in runs), sum(r[1] for r in runs),
            WRK_CONNECTIONS * len(runs)))
    for name, c in counters.items():
        print("%s counters: %s" % (name, ", ".join(
            "%s=%s" % (k, c.get(k)) for k in ("responses_from_disk", "bodies_cut_short",
                                              "responses_by_reference", "files_cached"))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
