"""Is the first 16 MiB download from a freshly started daemon slower than later ones?
(issue 30: "in 4 of 4 runs ... took 14-23 s; later ones took 2.5 s".)

For each of STARTS fresh daemons (--root holding one 16 MiB file, in the snapshot or,
with --cache-bytes 0, read from disk), DOWNLOADS downloads of it one after another, each
through a slow reader (a client with a RCVBUF-byte receive buffer reading CHUNK bytes
at a time, as fast as it can or with --pause-ms between reads, as the wire suite's
StopTest.SigtermFinishesASlowDownload reads): seconds per download, and the daemon's syscalls_total and
write_eagains per download (from /metrics). Also prints the machine's transparent huge
page settings and the thp_* counters of /proc/vmstat that moved across each download.

    bazel build -c opt //variants/full:apollod //variants/uring:apollod
    python3 -m bench.first_download --tier full=bazel-bin/variants/full/apollod \
        [--starts 3] [--downloads 3] [--cache-bytes 0] [--pause-ms 1] [--cold]

--cold drops the file's pages from the page cache before each start (fsync, then
posix_fadvise DONTNEED on that one file: nothing else is evicted), as on a machine
whose tree was written long before, so a daemon that reads it from disk reads the
device.

Loopback only; every download bounded by BOUND_S; every daemon stopped.
"""

import argparse
import os
import socket
import sys
import time

from bench import load, servers

SIZE = 16 << 20
RCVBUF = 4096
CHUNK = 65536
BOUND_S = 120
THP_FILES = ["/sys/kernel/mm/transparent_hugepage/enabled",
             "/sys/kernel/mm/transparent_hugepage/shmem_enabled",
             "/sys/kernel/mm/transparent_hugepage/defrag"]


def thp_counters():
    """The thp_* lines of /proc/vmstat as {name: value}."""
    with open("/proc/vmstat") as f:
        pairs = (line.split() for line in f)
        return {k: int(v) for k, v in pairs if k.startswith("thp_")}


def download(port, path, pause_s):
    """One slow-reader download of path, pause_s between reads: (seconds, bytes)."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
    s.settimeout(BOUND_S)
    start = time.monotonic()
    got = 0
    try:
        s.connect((servers.LOOPBACK, port))
        s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path).encode())
        while time.monotonic() - start < BOUND_S:
            data = s.recv(CHUNK)
            if not data:
                break
            got += len(data)
            if pause_s:
                time.sleep(pause_s)
    except OSError:
        pass
    finally:
        s.close()
    return time.monotonic() - start, got


def evict(path):
    """Drops path's pages from the page cache (written back first, so they are clean)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def one_start(binary, tree, downloads, cache_bytes, pause_s):
    """A fresh daemon, then downloads downloads: [(seconds, bytes, syscalls, eagains,
    {thp counter: change})]."""
    extra = ["--root", tree.root]
    if cache_bytes is not None:
        extra += ["--cache-bytes", str(cache_bytes)]
    server = servers.start_tier("apollod", binary, extra_args=extra)
    rows = []
    try:
        servers.wait_idle(server.pid)
        path = servers.file_url(SIZE)
        for _ in range(downloads):
            before, thp0 = load.daemon_counters(server.port), thp_counters()
            took, got = download(server.port, path, pause_s)
            after, thp1 = load.daemon_counters(server.port), thp_counters()
            moved = {k: thp1[k] - thp0.get(k, 0) for k in thp1 if thp1[k] != thp0.get(k, 0)}
            rows.append((took, got, after["syscalls_total"] - before["syscalls_total"],
                         after["write_eagains"] - before["write_eagains"], moved))
    finally:
        server.stop()
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tier", action="append", required=True, metavar="NAME=BINARY")
    ap.add_argument("--starts", type=int, default=3)
    ap.add_argument("--downloads", type=int, default=3)
    ap.add_argument("--cache-bytes", type=int, default=None)
    ap.add_argument("--pause-ms", type=float, default=0.0)
    ap.add_argument("--cold", action="store_true")
    args = ap.parse_args()
    for path in THP_FILES:
        try:
            with open(path) as f:
                print("%s: %s" % (path, f.read().strip()))
        except OSError as e:
            print("%s: %s" % (path, e))
    print("| tier | start | download | seconds | bytes | syscalls | write_eagains "
          "| thp counters moved |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    with servers.ServingTree(sizes=[SIZE], prefix="apollod-first-") as tree:
        for spec in args.tier:
            name, binary = spec.split("=", 1)
            for start in range(args.starts):
                if args.cold:
                    evict(os.path.join(tree.root, servers.file_url(SIZE).lstrip("/")))
                rows = one_start(os.path.abspath(binary), tree, args.downloads,
                                 args.cache_bytes, args.pause_ms / 1000)
                for i, (took, got, calls, eagains, moved) in enumerate(rows):
                    print("| %s | %d | %d | %.2f | %d | %d | %d | %s |" % (
                        name, start + 1, i + 1, took, got, calls, eagains,
                        ", ".join("%s +%d" % kv for kv in sorted(moved.items())) or "none"))
                    sys.stdout.flush()


if __name__ == "__main__":
    main()
