"""Reliability under slow and greedy clients (issue 11): each attack against apollod and
against nginx configured with the same short timeouts, on loopback, bounded in time and
count. Prints one Markdown table row per attack (what apollod does, what nginx does) and,
with --json, every figure.

Self-contained (standard library only) so it does not depend on the bench package.

    bazel run //bench:reliability                      # about 4 minutes
    bench/reliability.py --apollod PATH [--nginx PATH] [--json OUT]
    bench/reliability.py --hostile --apollod FULL --uring URING [--uring-before OLD]
        # issue 33's rows (benchmarks/reports/2026-12-03-uring-hostile.md), about 7 minutes

Scale, reduced from the issue's so one run takes minutes: timeouts of 5 s (apollod
--header-timeout 5 --idle-timeout 5, send timeout left at its 60 s default; nginx
client_header_timeout, client_body_timeout and keepalive_timeout 5s, send_timeout 60s),
a trickle byte every second (the descriptor row: idle timeouts of 60 s, soft limit 1024),
and a table of 64 connections (apollod --max-connections 64,
nginx worker_connections 65: its listener takes one) filled by 64 tricklers or 64 idle
keep-alive connections.
"""

import argparse
import json
import os
import resource
import select
import signal
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HOST = "127.0.0.1"
TIMEOUT_S = 5          # every server-side timeout but sending
TRICKLE_EVERY_S = 1.0  # one byte this often: well inside any timeout
HOLD_BOUND_S = 30      # a trickler still held then is reported as "held > 30 s"
TABLE = 64             # connections the table holds
FRESH = 12             # fresh clients per attack
DOS_WINDOW_S = 20      # how long fresh clients keep trying while tricklers attack
FRESH_WAIT_S = 3       # a fresh client against a full table of idle connections
FD_SOFT = 1024         # the common soft descriptor limit
FD_HARD = 65536        # or this process's hard limit, if lower
FD_CLIENTS = 1100      # more than FD_SOFT connections at once
FD_IDLE_S = 60         # idle timeouts for that row (apollod --idle-timeout, keepalive_timeout)
FILE_SIZE = 4 << 20    # the steady reader's file
READ_RATE = 100_000    # bytes per second
READ_BOUND_S = 90
TRICKLE_HEAD = b"GET / HTTP/1.1\r\nHost: a\r\nX-Slow: "
FLOOD = 6000           # idle connections in a flood (issue 24)
FLOOD_FRESH_EVERY_S = 2.0  # a fresh client this often while a flood runs
FLOOD_FRESH_WAIT_S = 10    # a fresh client's bound
FLOOD_SETTLE_S = 5     # the flood opens before the first fresh client
FLOOD_RUN_MAX_S = 120  # the flood thread ends by then whatever happens
FLOOD_IDLE_S = 60      # the second flood's idle timeout (apollod --idle-timeout, keepalive_timeout)
DEFAULT_IDLE_S = 10    # apollod's and this file's nginx default idle timeout
RELOADS = 5            # the reload row: SIGHUPs ...
RELOAD_GAP_S = 1.0     # ... this far apart
RELOAD_KEEPALIVE = 2   # keep-alive clients beside the close-per-request one
RELOAD_FILE = "a.txt"

NGINX_CONF = """\
daemon off;
master_process {master};
worker_processes {workers};
error_log {dir}/error.log crit;
pid {dir}/nginx.pid;
events {{ worker_connections {conns}; }}
http {{
    access_log off;
    client_header_timeout {t}s;
    client_body_timeout {t}s;
    keepalive_timeout {idle}s;
    send_timeout 60s;
    client_body_temp_path {dir}/cb;
    proxy_temp_path {dir}/px;
    fastcgi_temp_path {dir}/fc;
    uwsgi_temp_path {dir}/uw;
    scgi_temp_path {dir}/sc;
    server {{
        listen {host}:{port};
        root {root};
        location = / {{ return 200 "apollo says hello"; }}
    }}
}}
"""


def free_port():
    """A loopback port that was free a moment ago."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def limit_fds(soft, hard):
    """A preexec_fn that sets RLIMIT_NOFILE in the child."""
    return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


class Server:
    """One server process (apollod or nginx) on a loopback port; stopped on exit."""

    def __init__(self, kind, binary, root, conns=TABLE, fd_limit=None, idle=TIMEOUT_S,
                 defaults=False, workers=1, extra=()):
        self.kind, self.port = kind, free_port()
        self.dir = tempfile.mkdtemp(prefix="reliability_")
        if kind == "apollod" and defaults:  # the floods: default flags but an idle timeout
            argv = [binary, "--listen", f"{HOST}:{self.port}", "--root", root]
            if idle != DEFAULT_IDLE_S:
                argv += ["--idle-timeout", str(idle)]
            argv += list(extra)
        elif kind == "apollod":
            argv = [binary, "--listen", f"{HOST}:{self.port}", "--root", root,
                    "--header-timeout", str(TIMEOUT_S), "--idle-timeout", str(idle)]
            if conns:
                argv += ["--max-connections", str(conns)]
            if workers > 1:
                argv += ["--workers", str(workers)]
        else:
            conf = os.path.join(self.dir, "nginx.conf")
            with open(conf, "w") as f:
                f.write(NGINX_CONF.format(dir=self.dir, conns=(conns or 4096) + 1,
                                          t=idle if defaults else TIMEOUT_S,
                                          idle=idle, host=HOST, port=self.port, root=root,
                                          master="on" if workers > 1 else "off",
                                          workers=workers))
            argv = [binary, "-c", conf, "-p", self.dir]
        self.proc = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=limit_fds(*fd_limit) if fd_limit else None)
        end = time.monotonic() + 10
        while time.monotonic() < end:
            try:
                socket.create_connection((HOST, self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"{kind} did not start")

    def soft_fd_limit(self):
        with open(f"/proc/{self.proc.pid}/limits") as f:
            for line in f:
                if line.startswith("Max open files"):
                    return int(line.split()[3])
        return -1

    def stop(self):
        self.proc.kill()
        self.proc.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def closed_or_spoke(sock, wait_s):
    """True if sock became readable (data or EOF) within wait_s."""
    poller = select.poll()  # select() cannot take descriptors above 1023
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(max(0, int(wait_s * 1000))))


def read_until_close(sock, bound_s):
    """Everything sock sends until EOF, a reset or bound_s."""
    data, end = b"", time.monotonic() + bound_s
    while time.monotonic() < end and closed_or_spoke(sock, end - time.monotonic()):
        try:
            chunk = sock.recv(65536)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    return data


def status_of(data):
    """The status code at the start of data, or None."""
    parts = data.split(b" ", 2)
    return int(parts[1]) if len(parts) > 1 and data.startswith(b"HTTP/") else None


def trickle(sock, bound_s):
    """Sends a byte every TRICKLE_EVERY_S until the server speaks or closes, or bound_s.
    Returns (seconds held, status of what it sent or None)."""
    start = time.monotonic()
    while time.monotonic() - start < bound_s:
        if closed_or_spoke(sock, TRICKLE_EVERY_S):
            held = time.monotonic() - start
            return held, status_of(read_until_close(sock, 2))
        try:
            sock.send(b"a")
        except OSError:
            break
    return time.monotonic() - start, None


def head_trickle(server):
    """One client trickling a head."""
    with socket.create_connection((HOST, server.port)) as s:
        s.sendall(TRICKLE_HEAD)
        held, status = trickle(s, HOLD_BOUND_S)
    return {"held_s": round(held, 1), "reply": status}


def body_trickle(server):
    """A GET announcing 1 MiB of body, answered, then its body trickled."""
    with socket.create_connection((HOST, server.port)) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1048576\r\n\r\n")
        s.settimeout(5)
        answer = s.recv(65536)
        s.settimeout(None)
        held, _ = trickle(s, HOLD_BOUND_S)
    return {"answered": status_of(answer), "held_s": round(held, 1)}


def fresh_client(port, wait_s):
    """One GET / with Connection: close; True if a 200 came within wait_s."""
    try:
        with socket.create_connection((HOST, port), timeout=wait_s) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            return status_of(read_until_close(s, wait_s)) == 200
    except OSError:
        return False


def dos(server):
    """TABLE tricklers, each reconnecting when closed, while FRESH clients try in turn."""
    stop, closed, lock = threading.Event(), [0], threading.Lock()

    def attacker():
        while not stop.is_set():
            try:
                with socket.create_connection((HOST, server.port), timeout=5) as s:
                    s.sendall(TRICKLE_HEAD)
                    while not stop.is_set() and not closed_or_spoke(s, TRICKLE_EVERY_S):
                        s.send(b"a")
                    if not stop.is_set():
                        with lock:
                            closed[0] += 1
            except OSError:
                time.sleep(0.1)

    threads = [threading.Thread(target=attacker) for _ in range(TABLE)]
    for t in threads:
        t.start()
    time.sleep(2)  # the table fills
    answered, start = 0, time.monotonic()
    for i in range(FRESH):
        left = DOS_WINDOW_S - (time.monotonic() - start)
        if left <= 0:
            break
        answered += fresh_client(server.port, left / (FRESH - i))
    time.sleep(max(0.0, DOS_WINDOW_S - (time.monotonic() - start)))  # the whole window
    stop.set()
    for t in threads:
        t.join()
    return {"fresh_answered": answered, "tricklers_closed": closed[0]}


def flood(server, reconnect):
    """FLOOD idle connections that send nothing (opened at once; with reconnect, a new
    one whenever one is closed) while FRESH clients come every FLOOD_FRESH_EVERY_S:
    how many are answered and how long each waited."""
    stop, stats = threading.Event(), {"closed": 0, "opened": 0}

    def run():
        ep, socks = select.epoll(), {}

        def open_one():
            s = socket.socket()
            s.setblocking(False)
            try:
                s.connect((HOST, server.port))
            except BlockingIOError:
                pass
            except OSError:
                s.close()
                return
            socks[s.fileno()] = s
            ep.register(s.fileno(), select.EPOLLIN | select.EPOLLRDHUP)
            stats["opened"] += 1

        for _ in range(FLOOD):
            open_one()
        end = time.monotonic() + FLOOD_RUN_MAX_S
        while not stop.is_set() and time.monotonic() < end:
            for fd, _ in ep.poll(0.1):
                ep.unregister(fd)
                socks.pop(fd).close()
                stats["closed"] += 1
                if reconnect:
                    open_one()
        for s in socks.values():
            s.close()
        ep.close()

    t = threading.Thread(target=run)
    t.start()
    time.sleep(FLOOD_SETTLE_S)
    waits = []
    for _ in range(FRESH):
        start = time.monotonic()
        ok = fresh_client(server.port, FLOOD_FRESH_WAIT_S)
        waits.append(round(time.monotonic() - start, 3) if ok else None)
        time.sleep(max(0.0, FLOOD_FRESH_EVERY_S - (time.monotonic() - start)))
    stop.set()
    t.join()
    answered = [w for w in waits if w is not None]
    return {"fresh_answered": len(answered), "waits_s": waits,
            "max_wait_s": max(answered) if answered else None,
            "flood_opened": stats["opened"], "flood_closed": stats["closed"]}


def floods(binaries, root):
    """The two floods of issue 24 against each server, with default flags (nginx: this
    file's configuration with worker_connections 4097 and keepalive_timeout as given)."""
    out = {}
    for kind, binary in binaries.items():
        server_kind = "nginx" if kind == "nginx" else "apollod"
        out[kind] = {}
        for name, reconnect, idle in (("flood", True, DEFAULT_IDLE_S),
                                      ("flood_idle60", False, FLOOD_IDLE_S)):
            with Server(server_kind, binary, root, conns=None, idle=idle,
                        defaults=True) as server:
                out[kind][name] = flood(server, reconnect)
                out[kind][name]["soft_limit"] = server.soft_fd_limit()
            print(f"{kind} {name}: {json.dumps(out[kind][name])}", file=sys.stderr)
    return out


def evict(server):
    """TABLE idle keep-alive connections, then FRESH clients one after another."""
    idle = []
    for _ in range(TABLE):
        s = socket.create_connection((HOST, server.port))
        s.sendall(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        s.recv(65536)
        idle.append(s)
    start = time.monotonic()
    answered = sum(fresh_client(server.port, FRESH_WAIT_S) for _ in range(FRESH))
    took = time.monotonic() - start
    closed = sum(closed_or_spoke(s, 0) for s in idle)
    for s in idle:
        s.close()
    return {"fresh_answered": answered, "seconds": round(took, 1), "idle_closed": closed}


def descriptors(kind, binary, root):
    """FD_CLIENTS keep-alive clients at once against a server started under soft limit
    FD_SOFT: how many are answered, and how many of those the server keeps open."""
    hard = min(FD_HARD, resource.getrlimit(resource.RLIMIT_NOFILE)[1])
    # A long idle timeout: what closes a connection here must be the descriptor limit.
    with Server(kind, binary, root, conns=None, fd_limit=(FD_SOFT, hard),
                idle=FD_IDLE_S) as server:
        socks = []
        for _ in range(FD_CLIENTS):
            s = socket.create_connection((HOST, server.port))
            s.sendall(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            socks.append(s)
        end = time.monotonic() + 10
        served = []
        for s in socks:
            if closed_or_spoke(s, max(0.0, end - time.monotonic())):
                try:
                    if status_of(s.recv(65536)) == 200:
                        served.append(s)
                except OSError:
                    pass
        answered = len(served)
        time.sleep(1)  # a server short of descriptors closes kept-alive ones to accept more
        still_open = sum(not closed_or_spoke(s, 0) for s in served)
        soft = server.soft_fd_limit()
        for s in socks:
            s.close()
    return {"answered": answered, "open_at_once": still_open, "of": FD_CLIENTS,
            "soft_limit": soft, "hard_limit": hard}


def steady_reader(server):
    """GET of a 4 MiB file, read at READ_RATE bytes per second."""
    with socket.create_connection((HOST, server.port)) as s:
        s.sendall(b"GET /big.bin HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        got, head, start = 0, b"", time.monotonic()
        while time.monotonic() - start < READ_BOUND_S:
            due = start + got / READ_RATE
            if due > time.monotonic():
                time.sleep(due - time.monotonic())
            try:
                chunk = s.recv(READ_RATE // 10)
            except OSError:
                break
            if not chunk:
                break
            got += len(chunk)
            if len(head) < 1024:  # enough to hold the response head
                head += chunk[:1024]
    head_len = head.find(b"\r\n\r\n") + 4
    return {"body_bytes": max(0, got - head_len) if head_len >= 4 else 0, "of": FILE_SIZE,
            "seconds": round(time.monotonic() - start, 1)}


def read_response(sock):
    """One whole response on sock: (status, head), or None at end of input, a reset or a
    timeout before it was complete."""
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                return None
            data += chunk
        head, body = data.split(b"\r\n\r\n", 1)
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(body) < length:
            chunk = sock.recv(65536)
            if not chunk:
                return None
            body += chunk
    except OSError:
        return None
    return status_of(data), head


def reload_load(server):
    """RELOADS reloads (SIGHUP to the pid started: apollod's resident supervisor, nginx's
    master), RELOAD_GAP_S apart, under RELOAD_KEEPALIVE keep-alive clients that never
    retry (a response saying Connection: close ends their connection; anything short of a
    whole 200 where one was due is a failure) and one client with a new connection per
    request. Counts requests and failures."""
    stop = threading.Event()
    counts = {"ok": 0, "failed": 0}
    lock = threading.Lock()
    request = f"GET /{RELOAD_FILE} HTTP/1.1\r\nHost: a\r\n".encode()

    def note(ok):
        with lock:
            counts["ok" if ok else "failed"] += 1

    def keepalive():
        sock = None
        while not stop.is_set():
            try:
                if sock is None:
                    sock = socket.create_connection((HOST, server.port), timeout=5)
                sock.sendall(request + b"\r\n")
            except OSError:
                note(False)
                sock = None
                continue
            got = read_response(sock)
            note(got is not None and got[0] == 200)
            if got is None or b"\r\nconnection: close" in got[1].lower():
                sock.close()
                sock = None
        if sock:
            sock.close()

    def closing():
        while not stop.is_set():
            try:
                with socket.create_connection((HOST, server.port), timeout=5) as sock:
                    sock.sendall(request + b"Connection: close\r\n\r\n")
                    got = read_response(sock)
            except OSError:
                got = None
            note(got is not None and got[0] == 200)

    threads = [threading.Thread(target=keepalive) for _ in range(RELOAD_KEEPALIVE)]
    threads.append(threading.Thread(target=closing))
    for t in threads:
        t.start()
    time.sleep(RELOAD_GAP_S / 2)
    for _ in range(RELOADS):
        os.kill(server.proc.pid, signal.SIGHUP)
        time.sleep(RELOAD_GAP_S)
    stop.set()
    for t in threads:
        t.join()
    return {"reloads": RELOADS, "requests": counts["ok"] + counts["failed"],
            "failed": counts["failed"], "pid_kept": server.proc.poll() is None}


def reloads(kind, binary, root):
    """The reload row: one process and two (apollod --workers 2; nginx's master with 2
    workers, the only way nginx reloads)."""
    result = {}
    for workers in (1, 2):
        if kind == "nginx" and workers == 1:
            continue  # master_process off cannot reload
        with Server(kind, binary, root, conns=None, workers=workers) as server:
            result[f"workers{workers}"] = reload_load(server)
    return result


# The hostile rows of issue 33: clients that fill the table, then leave. Afterwards the
# serving process must rest (no CPU), answer /health, hold few descriptors and stop on
# SIGTERM within the drain (10 s).
HOSTILE_HEADS = 64         # --max-connections, every slot an unfinished head
HOSTILE_IDLE = 100         # idle connections beside them, reconnecting ...
HOSTILE_IDLE_S = 2.0       # ... for this long
HOSTILE_REST_S = 3.0       # after everybody left: CPU measured over this window
HOSTILE_TRICKLERS = 4091   # default table (4090 or so) and one more
HOSTILE_TRICKLE_EVERY_S = 8.0
HOSTILE_TRICKLE_SETTLE_S = 10.0  # the tricklers open before the first fresh client
HOSTILE_FRESH_EVERY_S = 3.0
HOSTILE_FRESH_WAIT_S = 15
HOSTILE_DOWNLOADS = 60     # parallel 16 MiB downloads, never read ...
HOSTILE_DL_FD_LIMIT = 64   # ... under this descriptor limit, --cache-bytes 0
HOSTILE_DL_SIZE = 16 << 20
HOSTILE_DL_RCVBUF = 8192
HOSTILE_SEND_TIMEOUT_S = 60  # the default --send-timeout ends them
HOSTILE_STOP_BOUND_S = 15
HOSTILE_LOOP_BOUND_S = 180   # every row's client loop ends by then whatever happens


def serving_pid(server):
    """The resident supervisor's one child (the serving generation), or the server."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        path = f"/proc/{server.proc.pid}/task/{server.proc.pid}/children"
        try:
            kids = open(path).read().split()
        except OSError:
            kids = []
        if len(kids) == 1:
            return int(kids[0])
        time.sleep(0.05)
    return server.proc.pid


def cpu_s(pid):
    """CPU seconds (user + system) pid has used, or None once gone."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fd_count(pid):
    """Descriptors pid holds, or None once gone."""
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def health_within(port, wait_s):
    """Seconds until GET /health was answered 200 (asked again until wait_s), or None."""
    start = time.monotonic()
    while time.monotonic() - start < wait_s:
        try:
            with socket.create_connection((HOST, port), timeout=1) as s:
                s.sendall(b"GET /health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
                if status_of(read_until_close(s, 1)) == 200:
                    return round(time.monotonic() - start, 2)
        except OSError:
            pass
    return None


def counters_of(port):
    """The counters /metrics shows (name -> value), or {} when it is not answered."""
    try:
        with socket.create_connection((HOST, port), timeout=2) as s:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            body = read_until_close(s, 2).decode(errors="replace")
    except OSError:
        return {}
    return {k: int(v) for k, v in (line.split(" ", 1) for line in body.splitlines()
                                   if line[:1].isalpha() and " " in line and
                                   line.split(" ", 1)[1].isdigit())}


def after_leaving(server, pid):
    """What the serving process does once every client has gone: CPU over
    HOSTILE_REST_S, its descriptors, /health, and the seconds SIGTERM takes to end it."""
    before = cpu_s(pid)
    time.sleep(HOSTILE_REST_S)
    after = cpu_s(pid)
    used = round(after - before, 2) if before is not None and after is not None else None
    out = {"cpu_s": used, "rest_window_s": HOSTILE_REST_S, "fds": fd_count(pid),
           "health_s": health_within(server.port, 5)}
    start = time.monotonic()
    server.proc.send_signal(signal.SIGTERM)
    try:
        server.proc.wait(timeout=HOSTILE_STOP_BOUND_S)
        out["stop_s"] = round(time.monotonic() - start, 2)
    except subprocess.TimeoutExpired:
        out["stop_s"] = None  # Server.stop kills it
        os.kill(pid, signal.SIGKILL)
    return out


def nonblocking_connect(port):
    s = socket.socket()
    s.setblocking(False)
    try:
        s.connect((HOST, port))
    except BlockingIOError:
        pass
    return s


def hostile_heads(binary, root):
    """Issue 33 (1): a full table of unfinished heads, an idle crowd that reconnects and a
    few fresh clients for HOSTILE_IDLE_S, then every client closes."""
    with Server("apollod", binary, root, conns=HOSTILE_HEADS, defaults=True,
                extra=["--max-connections", str(HOSTILE_HEADS), "--header-timeout", "60"]) as server:
        pid = serving_pid(server)
        base = fd_count(pid)
        heads = []
        for _ in range(HOSTILE_HEADS):
            s = socket.create_connection((HOST, server.port))
            s.sendall(TRICKLE_HEAD)
            heads.append(s)
        settle = time.monotonic() + 5  # every head taken before the crowd comes
        while time.monotonic() < settle and fd_count(pid) < base + HOSTILE_HEADS:
            time.sleep(0.01)
        idle = [nonblocking_connect(server.port) for _ in range(HOSTILE_IDLE)]
        fresh, end = [], time.monotonic() + HOSTILE_IDLE_S
        while time.monotonic() < end:
            for i, s in enumerate(idle):
                if closed_or_spoke(s, 0):
                    s.close()
                    idle[i] = nonblocking_connect(server.port)
            if len(fresh) < 3 and time.monotonic() > end - HOSTILE_IDLE_S * (3 - len(fresh)) / 3:
                c = nonblocking_connect(server.port)
                fresh.append(c)
            time.sleep(0.01)
        during = fd_count(pid)
        for s in heads + idle + fresh:
            s.close()
        out = after_leaving(server, pid)
        out["fds_during"] = during
        return out


def hostile_tricklers(binary, root, first_now=False):
    """Issue 33 (2): HOSTILE_TRICKLERS connections trickling a head byte every
    HOSTILE_TRICKLE_EVERY_S, reconnecting when closed, default flags; FRESH fresh clients
    HOSTILE_FRESH_EVERY_S apart, each a whole GET /health in one packet. first_now: each
    connection sends its first byte as soon as it is opened (so it holds a head from the
    start and never counts as waiting between requests), then one every
    HOSTILE_TRICKLE_EVERY_S."""
    with Server("apollod", binary, root, conns=None, defaults=True) as server:
        pid = serving_pid(server)
        stop, fresh_results = threading.Event(), []
        first_due = HOSTILE_TRICKLE_EVERY_S if first_now else 0.0  # taken off "last sent"

        def crowd():
            socks = {}
            end = time.monotonic() + HOSTILE_LOOP_BOUND_S
            for _ in range(HOSTILE_TRICKLERS):
                s = nonblocking_connect(server.port)
                socks[s] = [0, time.monotonic() - first_due]
            poller = select.poll()
            for s in socks:
                poller.register(s, select.POLLIN)
            by_fd = {s.fileno(): s for s in socks}
            while not stop.is_set() and time.monotonic() < end:
                for fd, _ in poller.poll(100):
                    s = by_fd.pop(fd)
                    poller.unregister(fd)
                    socks.pop(s)
                    s.close()
                    n = nonblocking_connect(server.port)
                    socks[n] = [0, time.monotonic() - first_due]
                    by_fd[n.fileno()] = n
                    poller.register(n, select.POLLIN)
                now = time.monotonic()
                for s, st in socks.items():
                    if now - st[1] >= HOSTILE_TRICKLE_EVERY_S and st[0] < len(TRICKLE_HEAD):
                        try:
                            s.send(TRICKLE_HEAD[st[0]:st[0] + 1])
                            st[0] += 1
                        except OSError:
                            pass
                        st[1] = now
            for s in socks:
                s.close()

        def one_fresh():
            start = time.monotonic()
            try:
                with socket.create_connection((HOST, server.port),
                                              timeout=HOSTILE_FRESH_WAIT_S) as s:
                    s.sendall(b"GET /health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
                    data = read_until_close(s, HOSTILE_FRESH_WAIT_S)
                fresh_results.append((status_of(data), round(time.monotonic() - start, 1)))
            except OSError:
                fresh_results.append((None, round(time.monotonic() - start, 1)))

        t = threading.Thread(target=crowd)
        t.start()
        time.sleep(HOSTILE_TRICKLE_SETTLE_S)
        during = fd_count(pid)
        fresh = []
        for _ in range(FRESH):
            f = threading.Thread(target=one_fresh)
            f.start()
            fresh.append(f)
            time.sleep(HOSTILE_FRESH_EVERY_S)
        for f in fresh:
            f.join()
        stop.set()
        t.join()
        out = after_leaving(server, pid)
        out["fresh_answered"] = sum(1 for st, _ in fresh_results if st == 200)
        out["fresh"] = fresh_results
        out["fds_during"] = during
        return out


def hostile_downloads(binary, root):
    """Issue 33 (3): HOSTILE_DOWNLOADS downloads of a 16 MiB file from disk, never read,
    under a descriptor limit of HOSTILE_DL_FD_LIMIT; the send deadline ends them. How long
    after that deadline /health is answered."""
    with Server("apollod", binary, root, conns=None, defaults=True,
                fd_limit=(HOSTILE_DL_FD_LIMIT, HOSTILE_DL_FD_LIMIT),
                extra=["--cache-bytes", "0"]) as server:
        pid = serving_pid(server)
        downloads = []
        for _ in range(HOSTILE_DOWNLOADS):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, HOSTILE_DL_RCVBUF)
            s.settimeout(5)
            try:
                s.connect((HOST, server.port))
                s.sendall(b"GET /hostile.bin HTTP/1.1\r\nHost: a\r\n\r\n")
            except OSError:
                pass
            downloads.append(s)
        start = time.monotonic()
        fds = []
        while time.monotonic() - start < HOSTILE_SEND_TIMEOUT_S:
            fds.append(fd_count(pid))
            time.sleep(1)
        served = health_within(server.port, 30)
        fds_after = fd_count(pid)
        for s in downloads:
            s.close()
        counters = counters_of(server.port)
        out = after_leaving(server, pid)
        out.update({"health_after_deadline_s": served, "fds_max_during": max(f for f in fds if f),
                    "fds_at_deadline": fds_after,
                    "responses_404": counters.get("responses_404"),
                    "responses_from_disk": counters.get("responses_from_disk"),
                    "timeouts_send": counters.get("timeouts_send")})
        return out


HOSTILE_ROWS = [
    ("heads", f"{HOSTILE_HEADS} unfinished heads fill --max-connections {HOSTILE_HEADS}; "
              f"{HOSTILE_IDLE} idle reconnecting for {HOSTILE_IDLE_S:g} s; then all close",
     hostile_heads),
    ("tricklers", f"{HOSTILE_TRICKLERS} tricklers (a byte every {HOSTILE_TRICKLE_EVERY_S:g} s, "
                  f"reconnecting), default flags; {FRESH} fresh GET /health "
                  f"{HOSTILE_FRESH_EVERY_S:g} s apart", hostile_tricklers),
    ("tricklers-now", f"{HOSTILE_TRICKLERS} tricklers sending their first byte at once, then "
                      f"one every {HOSTILE_TRICKLE_EVERY_S:g} s (reconnecting), default flags; "
                      f"{FRESH} fresh GET /health {HOSTILE_FRESH_EVERY_S:g} s apart",
     lambda binary, root: hostile_tricklers(binary, root, first_now=True)),
    ("downloads", f"{HOSTILE_DOWNLOADS} unread 16 MiB downloads, RLIMIT_NOFILE "
                  f"{HOSTILE_DL_FD_LIMIT}, --cache-bytes 0, ended by the {HOSTILE_SEND_TIMEOUT_S} s "
                  "send deadline", hostile_downloads),
]


def describe_hostile(attack, r):
    """One table cell for a hostile row."""
    rest = (f"then {r['cpu_s']} s CPU in {r['rest_window_s']:g} s, {r['fds']} fds, "
            f"/health {'in ' + str(r['health_s']) + ' s' if r['health_s'] is not None else 'unanswered'}, "
            f"SIGTERM exit {'in ' + str(r['stop_s']) + ' s' if r['stop_s'] is not None else 'none in 15 s'}")
    if attack in ("tricklers", "tricklers-now"):
        return f"{r['fresh_answered']} of {FRESH} fresh answered; " + rest
    if attack == "downloads":
        h = r["health_after_deadline_s"]
        return (f"/health {'in ' + str(h) + ' s' if h is not None else 'unanswered for 30 s'} "
                f"after the deadline (fds up to {r['fds_max_during']}); "
                f"{r.get('responses_from_disk')} served from disk, {r.get('responses_404')} "
                f"answered 404, {r.get('timeouts_send')} send timeouts; " + rest)
    return f"{r['fds_during']} fds while full; " + rest


def hostile(binaries, root, rows):
    """The hostile rows against each binary; prints the table."""
    with open(os.path.join(root, "hostile.bin"), "wb") as f:
        f.write(b"h" * HOSTILE_DL_SIZE)
    results = {kind: {} for kind in binaries}
    for attack, _, run in HOSTILE_ROWS:
        if attack not in rows:
            continue
        for kind, binary in binaries.items():
            results[kind][attack] = run(binary, root)
            print(f"{kind} {attack}: {json.dumps(results[kind][attack])}", file=sys.stderr)
    print("| attack | " + " | ".join(binaries) + " |")
    print("| --- |" + " --- |" * len(binaries))
    for attack, label, _ in HOSTILE_ROWS:
        if attack in rows:
            print(f"| {label} | " + " | ".join(describe_hostile(attack, results[k][attack])
                                               for k in binaries) + " |")
    return results


def in_parallel(*calls):
    """Runs each zero-argument call in its own thread; returns their results in order."""
    results = [None] * len(calls)

    def run(i):
        results[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def describe(attack, r):
    """One table cell for an attack's result."""
    if attack in ("head", "body"):
        held = f"held > {HOLD_BOUND_S} s" if r["held_s"] >= HOLD_BOUND_S else \
            f"closed after {r['held_s']} s"
        if attack == "body":
            return f"{r['answered']}, then the body trickle {held}"
        return held + (f" with a {r['reply']}" if r.get("reply") else ", nothing sent")
    if attack == "dos":
        return f"{r['fresh_answered']} of {FRESH} fresh answered; " \
               f"{r['tricklers_closed']} trickler connections closed in {DOS_WINDOW_S} s"
    if attack == "evict":
        return f"{r['fresh_answered']} of {FRESH} fresh answered in {r['seconds']} s; " \
               f"{r['idle_closed']} idle closed"
    if attack == "fds":
        return f"{r['answered']} of {r['of']} answered within 10 s, {r['open_at_once']} of " \
               f"those kept open (its soft limit: {r['soft_limit']})"
    if attack == "reload":
        return "; ".join(f"{'--workers 2' if k == 'workers2' else 'one process'}: "
                         f"{v['failed']} of {v['requests']} failed"
                         for k, v in sorted(r.items()))
    return f"{r['body_bytes']} of {r['of']} body bytes in {r['seconds']} s"


ROWS = [
    ("head", "Head trickle: a header byte every 1 s"),
    ("body", "Body trickle: 1 MiB announced, a byte every 1 s"),
    ("dos", f"{TABLE} tricklers (reconnecting) fill the table; {FRESH} fresh clients over {DOS_WINDOW_S} s"),
    ("evict", f"Table full of {TABLE} idle keep-alive connections; {FRESH} fresh clients"),
    ("fds", f"Soft descriptor limit {FD_SOFT}; {FD_CLIENTS} keep-alive clients at once"),
    ("reader", f"Steady reader: 4 MiB at {READ_RATE // 1000} KB/s"),
    ("reload", f"{RELOADS} reloads (SIGHUP, {RELOAD_GAP_S} s apart) under {RELOAD_KEEPALIVE} "
               "keep-alive clients without retries and a close-per-request client"),
]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--apollod", required=True)
    p.add_argument("--nginx", default=shutil.which("nginx") or "/usr/sbin/nginx")
    p.add_argument("--json")
    p.add_argument("--floods", action="store_true",
                   help="only the two idle floods of issue 24 (full, --uring, nginx)")
    p.add_argument("--uring", help="the uring tier's binary, for --floods and --hostile")
    p.add_argument("--hostile", action="store_true",
                   help="only the hostile rows of issue 33 (full, --uring, --uring-before)")
    p.add_argument("--uring-before", help="another uring binary for --hostile (an older build)")
    p.add_argument("--rows", default=",".join(a for a, _ in ROWS),
                   help="comma-separated attacks to run (default: all)")
    args = p.parse_args()
    rows = set(args.rows.split(","))
    if args.hostile and args.rows == p.get_default("rows"):
        rows = {a for a, _, _ in HOSTILE_ROWS}
    want = 2 * FLOOD + 1024 if args.floods else 8192
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(want, resource.getrlimit(
        resource.RLIMIT_NOFILE)[1])))
    root = tempfile.mkdtemp(prefix="reliability_root_")
    os.chmod(root, 0o755)  # nginx's workers run as nobody when started as root
    with open(os.path.join(root, "big.bin"), "wb") as f:
        f.write(b"b" * FILE_SIZE)
    with open(os.path.join(root, RELOAD_FILE), "wb") as f:
        f.write(b"a\n")
    if args.hostile:
        binaries = {"full": args.apollod}
        if args.uring:
            binaries["uring"] = args.uring
        if args.uring_before:
            binaries["uring (before)"] = args.uring_before
        try:
            results = hostile(binaries, root, rows)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=2)
        return
    if args.floods:
        binaries = {"full": args.apollod}
        if args.uring:
            binaries["uring"] = args.uring
        binaries["nginx"] = args.nginx
        try:
            results = floods(binaries, root)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        print("| flood | " + " | ".join(binaries) + " |")
        print("| --- |" + " --- |" * len(binaries))
        for name, label in (("flood", f"{FLOOD} idle connections, reconnecting; default flags"),
                            ("flood_idle60", f"{FLOOD} idle connections, not reconnecting; "
                                             f"--idle-timeout {FLOOD_IDLE_S}")):
            cells = []
            for kind in binaries:
                r = results[kind][name]
                cells.append(f"{r['fresh_answered']} of {FRESH} answered, longest wait "
                             f"{r['max_wait_s']} s")
            print(f"| {label} | " + " | ".join(cells) + " |")
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=2)
        return
    results = {"apollod": {}, "nginx": {}}
    binaries = {"apollod": args.apollod, "nginx": args.nginx}
    try:
        for kind in ("apollod", "nginx"):
            if rows & {"head", "body"}:
                with Server(kind, binaries[kind], root) as server:
                    results[kind]["head"], results[kind]["body"] = in_parallel(
                        lambda: head_trickle(server), lambda: body_trickle(server))
            for attack, run in (("dos", dos), ("evict", evict)):
                if attack in rows:
                    with Server(kind, binaries[kind], root) as server:
                        results[kind][attack] = run(server)
            if "fds" in rows:
                results[kind]["fds"] = descriptors(kind, binaries[kind], root)
            if "reload" in rows:
                results[kind]["reload"] = reloads(kind, binaries[kind], root)
            print(f"{kind}: {json.dumps(results[kind])}", file=sys.stderr)
        if "reader" in rows:
            with Server("apollod", args.apollod, root) as a, \
                    Server("nginx", args.nginx, root) as n:
                results["apollod"]["reader"], results["nginx"]["reader"] = in_parallel(
                    lambda: steady_reader(a), lambda: steady_reader(n))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("| attack | apollod | nginx |")
    print("| --- | --- | --- |")
    for attack, label in ROWS:
        if attack not in rows:
            continue
        print(f"| {label} | {describe(attack, results['apollod'][attack])} | "
              f"{describe(attack, results['nginx'][attack])} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
