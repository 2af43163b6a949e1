"""Deterministic per-request figures, the tooling's one callgrind instrument: user-space
instructions (valgrind callgrind's Ir) and syscalls (strace -f -c). Each figure is (a run
with N sequential `GET /` requests, or with --file N requests of a --root file) minus
(the same start-up and shutdown with no request), divided by N, so start-up and exit
costs cancel out. Both runs wait until the server is blocked waiting for a connection
(/proc/PID/syscall) before the requests and before SIGTERM (valgrind still runs the
tool's exit code on a fatal signal, so the totals are written). Requests go one at a
time over a new connection each, with TCP_DEFER_ACCEPT on the client (servers.fetch), so
every one takes the same path.
Callgrind counts guest instructions only: kernel time is not in the figure (syscalls are
counted separately). Any server: an apollod tier or a peer (servers.PEERS).

Usage (bench/BUILD wraps it as //bench:counts):
  counts.py BINARY [--requests N] [--short | --file] [--strace] [--access-log PATH]
            [--redirects FILE]
  BINARY: a tier, or a peer name (--file: a routed tier only)
"""

import argparse
import contextlib
import glob
import gzip
import os
import re
import shutil
import tempfile

from bench import servers

WRAPPED_START_BOUND_S = 60.0  # valgrind start-up is slow
DEFAULT_REQUESTS = 200
QUICK_REQUESTS = 20
# Which request: the one wrk sends in the close scenarios (Host: 127.0.0.1:PORT), the
# shorter one (Host: x), or a GET of a --root file with the fields a browser's
# revalidation and a download resume send (FILE_REQUEST_FORMAT).
REQUESTS = {"wrk": None, "short": servers.SHORT_REQUEST, "file": "file"}
# The --file request: a 1 KiB file that has a gzip variant, so Accept-Encoding is weighed;
# an If-None-Match that never matches (the list is read, then the file served), and a
# Range, so the answer is 206 of the gzip representation's first FILE_RANGE_LAST + 1 bytes.
FILE_NAME = "f.txt"
FILE_SIZE = 1024
FILE_RANGE_LAST = 99
FILE_REQUEST_FORMAT = (
    "GET /" + FILE_NAME + " HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
    "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\r\n"
    "Accept: */*\r\nAccept-Language: en-US,en;q=0.5\r\n"
    "Accept-Encoding: gzip, deflate, br, zstd\r\n"
    "If-None-Match: \"0-0-0\"\r\nRange: bytes=0-%d\r\n"
    "Connection: close\r\n\r\n" % FILE_RANGE_LAST)
# The status line each request is answered with.
EXPECTED_STATUS = {"wrk": b"HTTP/1.1 200", "short": b"HTTP/1.1 200", "file": b"HTTP/1.1 206"}


class FileTree:
    """with FileTree() as root: a --root tree holding FILE_NAME (FILE_SIZE bytes of text)
    and FILE_NAME.gz (its gzip form, more than FILE_RANGE_LAST bytes); removed at exit."""

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="apollod-counts-")
        text = b"".join(b"%04d apollod counts line\n" % i for i in range(FILE_SIZE // 25 + 1))
        text = text[:FILE_SIZE]
        with open(os.path.join(self.dir, FILE_NAME), "wb") as f:
            f.write(text)
        with open(os.path.join(self.dir, FILE_NAME + ".gz"), "wb") as f:
            f.write(gzip.compress(text, mtime=0))
        return self.dir

    def __exit__(self, *exc):
        shutil.rmtree(self.dir, ignore_errors=True)


def run_wrapped(kind, binary, wrapper, requests, workdir, request=None,
                 signal_child=False, tier_args=(), expect=EXPECTED_STATUS["wrk"], host=None):
    """Starts binary (a tier, or the peer kind when kind is in servers.PEERS) under
    wrapper, sends requests `request` (bytes; None: `GET /`, "file": FILE_REQUEST_FORMAT)
    one after another, each answered with the status line expect, then stops it with
    SIGTERM (sent to the wrapper's child if signal_child). The protocol of every
    per-request instrument: callgrind and strace here, the qemu trace of
    compare/aarch64_section.py. tier_args: more flags for a tier (--access-log FILE,
    --root DIR); host: the "file" request's Host instead of 127.0.0.1:PORT."""
    if kind in servers.PEERS:
        # A fresh config directory per run: nginx creates (and chowns) its temp dirs once.
        tree = servers.ServingTree(sizes=[], prefix="apollod-%s-" % kind).__enter__()
        server = servers.start_peer(kind, binary, tree.workdir, tree.root, wrapper,
                                    bound_s=WRAPPED_START_BOUND_S, keep_root=True)
    else:
        tree = None
        server = servers.start_tier(kind, binary, wrapper, bound_s=WRAPPED_START_BOUND_S,
                                    extra_args=tier_args)
    try:
        waiter = servers.only_child(server.pid) if signal_child else server.pid
        servers.wait_idle(waiter, WRAPPED_START_BOUND_S)
        if request == "file":
            request = FILE_REQUEST_FORMAT.format(port=server.port)
            if host:
                request = request.replace("127.0.0.1:%d" % server.port, host)
            request = request.encode()
        for _ in range(requests):
            response = servers.fetch(server.port, request, timeout=30.0,
                                     defer_accept=True)
            if not response.startswith(expect):
                raise RuntimeError("%s answered %r" % (kind, response[:40]))
        servers.wait_idle(waiter, WRAPPED_START_BOUND_S)  # back in accept / epoll_wait
    finally:
        server.stop(signal_child=signal_child)
        if tree:
            tree.__exit__(None, None, None)


def parse_callgrind_totals(text):
    """The total Ir of a callgrind output file's text (its `summary:` or `totals:`
    line)."""
    for line in text.splitlines():
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
    raise ValueError("no summary or totals line in callgrind output")


def callgrind_total(kind, binary, requests, workdir, request=None, tier_args=(),
                    expect=EXPECTED_STATUS["wrk"], host=None):
    """Total user-space instructions (callgrind's Ir) of one run with requests requests,
    over every process of the server (valgrind follows fork: h2o forks a helper; each
    process writes its own file, %p in the name)."""
    stem = os.path.join(workdir, "callgrind.%s.%d" % (kind, requests))
    wrapper = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + stem + ".%p.out",
               "--log-file=" + stem + ".log"]
    if kind not in servers.PEERS and servers.announces(binary):
        # A routed tier's seccomp filter would apply to valgrind itself, whose own calls
        # are not the daemon's (BEHAVIOUR 19): it would be killed by SIGSYS.
        tier_args = tuple(tier_args) + ("--no-sandbox",)
    run_wrapped(kind, binary, wrapper, requests, workdir, request, tier_args=tier_args,
                expect=expect, host=host)
    outputs = glob.glob(stem + ".*.out")
    if not outputs:
        raise RuntimeError("callgrind wrote nothing; see " + stem + ".log")
    total = 0
    for path in outputs:
        with open(path) as f:
            total += parse_callgrind_totals(f.read())
    return total


@contextlib.contextmanager
def request_setup(request, tier_args, per_root=None):
    """with request_setup(request, tier_args) as args: the tier flags request (a key of
    REQUESTS) needs: tier_args, plus --root over a FileTree for "file", plus what
    per_root(that root) returns (bench/vhost_cost.py: a --config of sites over it)."""
    if request != "file":
        yield list(tier_args)
        return
    with FileTree() as root:
        yield list(tier_args) + ["--root", root] + (per_root(root) if per_root else [])


def instructions_per_request(kind, binary, requests=DEFAULT_REQUESTS, request="wrk",
                             tier_args=(), host=None, per_root=None):
    """(Ir with requests requests - Ir with none) / requests, from callgrind. request:
    a key of REQUESTS; tier_args, host: see run_wrapped; per_root: see request_setup."""
    with tempfile.TemporaryDirectory(prefix="apollod-callgrind-") as workdir, \
            request_setup(request, tier_args, per_root) as args:
        loaded = callgrind_total(kind, binary, requests, workdir, REQUESTS[request], args,
                                 EXPECTED_STATUS[request], host)
        idle = callgrind_total(kind, binary, 0, workdir, tier_args=args)
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


def strace_calls(kind, binary, requests, workdir, tier_args=(), request="wrk"):
    """{syscall: calls} over one run (every thread and child: -f) with requests requests
    (request: a key of REQUESTS; tier_args as request_setup gives them)."""
    out = os.path.join(workdir, "strace.%s.%d.txt" % (kind, requests))
    run_wrapped(kind, binary, ["strace", "-f", "-c", "-o", out], requests, workdir,
                REQUESTS[request], signal_child=True, tier_args=tier_args,
                expect=EXPECTED_STATUS[request])
    with open(out) as f:
        return parse_strace_summary(f.read())


def syscalls_per_request(kind, binary, requests=DEFAULT_REQUESTS, tier_args=(),
                         request="wrk"):
    """Returns (total syscalls per request, {syscall: calls per request}), the start-up
    only run subtracted. Syscalls that net to zero are left out. request: a key of
    REQUESTS."""
    with tempfile.TemporaryDirectory(prefix="apollod-strace-") as workdir, \
            request_setup(request, tier_args) as args:
        loaded = strace_calls(kind, binary, requests, workdir, args, request)
        idle = strace_calls(kind, binary, 0, workdir, args)
    per = {}
    for name in sorted(set(loaded) | set(idle)):
        net = (loaded.get(name, 0) - idle.get(name, 0)) / requests
        if abs(net) >= 0.005:
            per[name] = net
    return sum(per.values()), per


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary", help="a tier binary, or a peer name (%s)"
                    % ", ".join(servers.PEERS))
    ap.add_argument("--requests", type=int, default=DEFAULT_REQUESTS)
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--short", action="store_true", help="the shorter request (Host: x)")
    which.add_argument("--file", action="store_true",
                       help="a --root file request with Accept-Encoding, If-None-Match "
                       "and Range (a tier only)")
    ap.add_argument("--strace", action="store_true", help="also syscalls per request")
    ap.add_argument("--access-log", metavar="PATH", help="a tier: with --access-log PATH")
    ap.add_argument("--redirects", metavar="FILE",
                    help="a tier with --file: with --redirects FILE (rules matched per request)")
    args = ap.parse_args()
    tier_args = ["--access-log", args.access_log] if args.access_log else []
    if args.redirects:
        tier_args += ["--redirects", os.path.abspath(args.redirects)]
    if args.binary in servers.PEERS:
        kind, binary = args.binary, servers.PEER_BINARIES[args.binary]
    else:
        kind, binary = "tier", os.path.abspath(args.binary)
    request = "short" if args.short else "file" if args.file else "wrk"
    if request == "file" and kind != "tier":
        ap.error("--file measures a tier")
    print("instructions per request (callgrind, %s request): %.1f"
          % (request, instructions_per_request(kind, binary, args.requests, request,
                                               tier_args)))
    if args.strace:
        total, by_name = syscalls_per_request(kind, binary, args.requests, tier_args,
                                              request)
        print("syscalls per request (strace -f -c): %.2f  %s" % (total, ", ".join(
            "%s %.2g" % kv for kv in by_name.items())))


if __name__ == "__main__":
    main()
