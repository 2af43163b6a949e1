#!/usr/bin/env python3
"""Issue 33 (3) as a timeline: N downloads of a 16 MiB file with 8 KiB receive buffers,
never read, against one apollod under RLIMIT_NOFILE 64 with --cache-bytes 0; the clients
close at CLOSE_AT seconds. Twice a second until CLOSE_AT + AFTER: the serving process's
descriptors and CPU, and whether a fresh GET /health is answered within 1 s. Then the
counters that tell what the downloads got (responses_from_disk, responses_404,
timeouts_send, connections_evicted). Bounded: CLOSE_AT + AFTER seconds and N connections.

    bench/hostile_timeline.py BINARY [--send-timeout S] [--close-at S] [--after S] [--downloads N]
"""

import argparse
import os
import resource
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reliability as R  # noqa: E402

PROBE_EVERY_S = 0.5
COUNTERS = ("responses_from_disk", "responses_404", "timeouts_send", "connections_evicted",
            "connections_accepted")


def health_now(port):
    """200, another status, or the exception's name for one GET /health (1 s bound)."""
    try:
        with socket.create_connection((R.HOST, port), timeout=1) as c:
            c.sendall(b"GET /health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            return R.status_of(R.read_until_close(c, 1))
    except OSError as e:
        return type(e).__name__


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("binary")
    p.add_argument("--send-timeout", type=int, default=0, help="0: the default (60 s)")
    p.add_argument("--close-at", type=float, default=60.0)
    p.add_argument("--after", type=float, default=15.0)
    p.add_argument("--downloads", type=int, default=R.HOSTILE_DOWNLOADS)
    a = p.parse_args()
    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, max(4096, resource.getrlimit(
        resource.RLIMIT_NOFILE)[1])))
    root = tempfile.mkdtemp(prefix="timeline_")
    with open(os.path.join(root, "hostile.bin"), "wb") as f:
        f.write(b"h" * R.HOSTILE_DL_SIZE)
    extra = ["--cache-bytes", "0"] + (["--send-timeout", str(a.send_timeout)]
                                      if a.send_timeout else [])
    limit = (R.HOSTILE_DL_FD_LIMIT, R.HOSTILE_DL_FD_LIMIT)
    with R.Server("apollod", a.binary, root, conns=None, defaults=True, fd_limit=limit,
                  extra=extra) as server:
        pid = R.serving_pid(server)
        start = time.monotonic()
        socks = []
        for _ in range(a.downloads):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, R.HOSTILE_DL_RCVBUF)
            s.settimeout(5)
            try:
                s.connect((R.HOST, server.port))
                s.sendall(b"GET /hostile.bin HTTP/1.1\r\nHost: a\r\n\r\n")
            except OSError as e:
                print("download:", e)
            socks.append(s)
        closed = False
        while time.monotonic() - start < a.close_at + a.after:
            t = time.monotonic() - start
            if not closed and t >= a.close_at:
                for s in socks:
                    s.close()
                closed = True
                print(f"{t:6.1f} s  clients closed")
            print(f"{t:6.1f} s  fds {R.fd_count(pid)}  cpu {R.cpu_s(pid)} s  "
                  f"/health {health_now(server.port)}", flush=True)
            time.sleep(max(0.0, PROBE_EVERY_S - (time.monotonic() - start - t)))
        counters = R.counters_of(server.port)
        print("  ".join(f"{k} {counters.get(k)}" for k in COUNTERS))


if __name__ == "__main__":
    main()
