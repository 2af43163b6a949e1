#!/usr/bin/env python3
"""How long does a fresh client wait when every slot is a slow download? (issue 30)

Starts BINARY (an apollod tier) on a loopback port with --root holding one 4 MiB file and
--max-connections SLOTS, opens SLOTS downloads of it with 8 KiB receive buffers that never
read past their first bytes (every slot is sending, nothing can be evicted), then asks
GET /health on a fresh connection and prints its status line and how long the answer
took. Before issue 30 the fresh client waited for a send deadline (60 s by default);
now it gets the static 503 at once.

    python3 bench/full_table.py BINARY [--slots 64] [--tries 5]

Bounded: ANSWER_S seconds per answer at most; loopback only; the daemon is killed at the
end.
"""
import argparse
import os
import socket
import subprocess
import tempfile
import time

ANSWER_S = 70        # beyond the default 60 s send deadline: a stall shows as such
BIG = 4 << 20        # far beyond what the downloads' windows take
WINDOW = 8192        # the downloads' receive buffer


def start(binary, root, slots):
    """Starts the daemon on port 0; returns (process, port) from its announcement."""
    p = subprocess.Popen([binary, "--listen", "127.0.0.1:0", "--root", root,
                          "--max-connections", str(slots)],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = p.stdout.readline()
    return p, int(line.rsplit(":", 1)[1])


def download(port):
    """A connection asking for /big that has its first bytes and reads no more."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, WINDOW)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
    s.settimeout(ANSWER_S)
    s.recv(1, socket.MSG_PEEK)
    return s


def ask(port):
    """GET /health on a fresh connection: (status line, seconds to the answer)."""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=ANSWER_S) as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        try:
            first = s.recv(4096)
        except (socket.timeout, ConnectionResetError) as e:
            first = repr(e).encode()
    took = time.monotonic() - start
    return first.split(b"\r\n", 1)[0].decode(errors="replace"), took


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--slots", type=int, default=64)
    ap.add_argument("--tries", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as root:
        with open(os.path.join(root, "big"), "wb") as f:
            f.write(os.urandom(BIG))
        p, port = start(args.binary, root, args.slots)
        try:
            held = [download(port) for _ in range(args.slots)]
            for i in range(args.tries):
                status, took = ask(port)
                print(f"try {i + 1}: {status!r} after {took * 1000:.1f} ms")
            for s in held:
                s.close()
        finally:
            p.kill()
            p.wait()


if __name__ == "__main__":
    main()
