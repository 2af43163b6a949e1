#!/usr/bin/env python3
"""syscalls_total per close-per-request connection, from /metrics: N sequential
connections, each one GET of a 1-byte file with Connection: close, read to the close.
The /metrics request that reads the counter after them is included (1/N of one).

    bench/syscalls_per_connection.py BINARY [N]      # N: 1000
"""

import os
import socket
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reliability as R  # noqa: E402


def main():
    binary = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    root = tempfile.mkdtemp(prefix="percon_")
    with open(os.path.join(root, "a.txt"), "w") as f:
        f.write("a")
    with R.Server("apollod", binary, root, conns=None, defaults=True) as server:
        before = R.counters_of(server.port)["syscalls_total"]
        for _ in range(n):
            with socket.create_connection((R.HOST, server.port)) as c:
                c.sendall(b"GET /a.txt HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
                R.read_until_close(c, 2)
        after = R.counters_of(server.port)["syscalls_total"]
    print(f"{binary}: {(after - before) / n:.2f} syscalls per connection ({n} connections)")


if __name__ == "__main__":
    main()
