#!/usr/bin/env python3
"""Can clients that never read their answers starve a well-behaved one? (issue 15)

Starts BINARY on a loopback port, opens HOGS connections that pipeline GET / and never read
the answers, writing until every one of them blocks (the daemon's sends to them have
filled the socket buffers, so it stops reading them), then asks once on a fresh connection
and prints how long the answer took, or how the connection ended. The uring tier's
receive shares its buffers between connections (a provided-buffer ring), which the hogs'
unread input can hold entirely; a starved connection falls back to a recv into its own
buffer, so the fresh client must still be answered at once.

    python3 bench/uring_starve.py BINARY [--hogs 64]

Bounded: WRITE_S seconds of writing at most, ANSWER_S seconds of waiting for the answer;
loopback only.
"""
import argparse
import socket
import subprocess
import time

WRITE_S = 8     # the hogs write for at most this long
ANSWER_S = 15   # longer than the daemon's 10 s header timeout
IDLE_S = 0.5    # every hog blocked this long: the daemon has stopped reading them
BATCH = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 512


def fill(hogs):
    """Writes BATCH to every hog until all block for IDLE_S or WRITE_S pass. Returns MB."""
    sent = 0
    end = time.time() + WRITE_S
    blocked_since = None
    while time.time() < end:
        wrote = False
        for s in hogs:
            try:
                sent += s.send(BATCH)
                wrote = True
            except BlockingIOError:
                pass
        if wrote:
            blocked_since = None
            continue
        blocked_since = blocked_since or time.time()
        if time.time() - blocked_since >= IDLE_S:
            break
        time.sleep(0.05)
    return sent / 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("binary")
    p.add_argument("--hogs", type=int, default=64)
    args = p.parse_args()
    if not 1 <= args.hogs <= 1000:
        p.error("--hogs 1..1000")
    daemon = subprocess.Popen([args.binary, "--listen", "127.0.0.1:0"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        port = int(daemon.stdout.readline().decode().strip().rsplit(":", 1)[1])
        hogs = [socket.create_connection(("127.0.0.1", port)) for _ in range(args.hogs)]
        for s in hogs:
            s.setblocking(False)
        mb = fill(hogs)
        t0 = time.time()
        fresh = socket.create_connection(("127.0.0.1", port), timeout=ANSWER_S)
        fresh.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        try:
            got = fresh.recv(4096)
            outcome = "answered: %r" % got.split(b"\r\n")[0].decode() if got else "closed"
        except socket.timeout:
            outcome = "no answer"
        except ConnectionResetError:
            outcome = "reset"
        print("%s, %d hogs (%.0f MB written, never read): fresh client %s after %.3f s" %
              (args.binary, args.hogs, mb, outcome, time.time() - t0))
    finally:
        daemon.kill()
        daemon.wait()


if __name__ == "__main__":
    main()
