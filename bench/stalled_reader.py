#!/usr/bin/env python3
"""How much of one response leaves before a reader that never reads stalls it: RUNS
times, a fresh apollod (--send-timeout 1 --idle-timeout 60, the file cached) serves one
GET of a SIZE-byte file to a client with the default receive buffer that reads nothing;
/metrics is read every 0.2 s until timeouts_send is 1 (4 s bound). Prints, per run,
(timeouts_send, bytes_written, connections_closed, seconds). A run whose bytes_written
reaches the file's size had nothing left to stall (SlowClientTest's 4 MiB file did not,
by 30 KB).

    bench/stalled_reader.py BINARY [SIZE] [RUNS]     # SIZE: 4194304, RUNS: 10
"""

import os
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reliability as R  # noqa: E402


def one_run(binary, root):
    """One daemon, one stalled reader; returns what /metrics said at the end."""
    with R.Server("apollod", binary, root, conns=None, defaults=True,
                  extra=["--send-timeout", "1", "--idle-timeout", "60"]) as server:
        with socket.create_connection((R.HOST, server.port)) as s:
            s.sendall(b"GET /big.bin HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            start, m = time.monotonic(), {}
            while time.monotonic() - start < 4 and not m.get("timeouts_send"):
                time.sleep(0.2)
                m = R.counters_of(server.port)
            return (m.get("timeouts_send"), m.get("bytes_written"),
                    m.get("connections_closed"), round(time.monotonic() - start, 1))


def main():
    binary = sys.argv[1]
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 4 << 20
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    root = tempfile.mkdtemp(prefix="stalled_")
    with open(os.path.join(root, "big.bin"), "wb") as f:
        f.write(b"b" * size)
    print([one_run(binary, root) for _ in range(runs)])


if __name__ == "__main__":
    main()
