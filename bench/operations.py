"""Issue 30's operations rows, apollod beside nginx in one run, on loopback:

1. stop: one of 2 workers stopped (SIGSTOP) for STOP_S seconds while wrk makes a new
   connection per request (close c=16): requests answered, and wrk's timeouts;
2. full table: every one of SLOTS connections is a download that has stalled (a small
   receive window, never read), then a fresh client asks GET /: what it gets, and after
   how long;
3. upgrades: UPGRADES binary upgrades, UPGRADE_GAP_S apart, under keep-alive clients that
   never retry and one client with a new connection per request: failed requests.
   apollod: a fresh copy of the binary renamed over the path it was started from, then
   SIGUSR2 to the resident supervisor; nginx: its USR2 (a new master from the binary),
   then QUIT to the old master once the new one has written its pid file;
4. memory: the resident supervisor's and the serving generation's VmRSS after a tree of
   TREE_FILES small files is loaded, and again after one reload (apollod only: nginx
   loads no tree).

    bazel build -c opt //variants/full:apollod //variants/uring:apollod
    python3 -m bench.operations --tier full=bazel-bin/variants/full/apollod \
        --tier uring=bazel-bin/variants/uring/apollod [--nginx /usr/sbin/nginx] \
        [--rows stop,full,upgrades,memory]

Every loop is bounded in time and count; every server is stopped at the end.
"""

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from bench import load, servers
from bench.reliability import read_response

STOP_S = 5               # the stop row: how long one worker stays stopped
STOP_CONNECTIONS = 16    # wrk -c, Connection: close
STOP_TIMEOUT_S = 2       # wrk --timeout: a request still unanswered then is a timeout
SLOTS = 64               # the full-table row: apollod --max-connections, nginx's slots
FULL_FILE = 4 << 20      # the stalled downloads' file
FULL_WINDOW = 8192       # their receive buffer
ANSWER_BOUND_S = 70      # beyond the default 60 s send deadline
FRESH_TRIES = 3
UPGRADES = 5
UPGRADE_GAP_S = 2.0
UPGRADE_KEEPALIVE = 4    # keep-alive clients during the upgrades
NEW_MASTER_BOUND_S = 10  # nginx's new master writes its pid file by then
TREE_FILES = 100_000
TREE_PER_DIR = 1000
MANY_FILES_DIR = "/dev/shm"
SETTLE_BOUND_S = 60      # a 100,000-file load, or a reload of it, is done by then


def children(pid):
    """pid's children, from /proc."""
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def wait_for(what, bound_s, step_s=0.02):
    """Polls what() until it is truthy; returns it, or None after bound_s."""
    deadline = time.monotonic() + bound_s
    while time.monotonic() < deadline:
        got = what()
        if got:
            return got
        time.sleep(step_s)
    return None


def workers_of(server, apollod):
    """The two worker pids of server: apollod's are the serving generation's children
    (resident supervisor, generation, workers); nginx's are its master's."""
    parent = server.pid
    if apollod:
        parent = wait_for(lambda: (children(server.pid) or [None])[0], 5)
    return wait_for(lambda: children(parent) if len(children(parent)) == 2 else None, 5)


def stop_row(server, apollod):
    """One worker stopped for STOP_S under close c=STOP_CONNECTIONS: the requests wrk
    had answered. (wrk's timeout count is no witness: it stayed 0 while connections
    queued for a stopped worker waited out the whole run.)"""
    stopped = workers_of(server, apollod)[0]
    os.kill(stopped, signal.SIGSTOP)
    try:
        scenario = {"connections": STOP_CONNECTIONS, "headers": load.CLOSE}
        argv = load.wrk_argv(server.port, scenario, STOP_S)
        argv[argv.index("--timeout") + 1] = "%ds" % STOP_TIMEOUT_S
        out = subprocess.run(argv, capture_output=True, text=True,
                             timeout=STOP_S + load.WRK_SLACK_S).stdout
    finally:
        os.kill(stopped, signal.SIGCONT)
    return load.parse_wrk(out)["requests"]


def stalled_download(port):
    """A connection asking for the full-table file that has its first bytes and reads no
    more."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, FULL_WINDOW)
    s.connect((servers.LOOPBACK, port))
    s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % servers.file_url(FULL_FILE)).encode())
    s.settimeout(ANSWER_BOUND_S)
    s.recv(1, socket.MSG_PEEK)
    return s


def fresh_answer(port):
    """GET / on a fresh connection: (its status line or what ended it, seconds taken)."""
    start = time.monotonic()
    try:
        with socket.create_connection((servers.LOOPBACK, port), timeout=ANSWER_BOUND_S) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            first = s.recv(4096) or b"closed without an answer"
    except OSError as e:
        first = type(e).__name__.encode()
    status = first.split(b"\r\n", 1)[0].decode(errors="replace")
    return status, time.monotonic() - start


def full_table_row(server):
    """SLOTS stalled downloads, then FRESH_TRIES fresh clients: [(status, seconds)]."""
    held = []
    try:
        for _ in range(SLOTS):
            held.append(stalled_download(server.port))
        return [fresh_answer(server.port) for _ in range(FRESH_TRIES)]
    finally:
        for s in held:
            s.close()


class Load:
    """UPGRADE_KEEPALIVE keep-alive clients that never retry (a response with Connection:
    close ends their connection; anything short of a whole 200 is a failure) and one
    client with a new connection per request, until stop(). counts: ok, failed."""

    def __init__(self, port):
        self.port = port
        self.done = threading.Event()
        self.lock = threading.Lock()
        self.counts = {"ok": 0, "failed": 0}
        self.threads = [threading.Thread(target=self.keepalive)
                        for _ in range(UPGRADE_KEEPALIVE)]
        self.threads.append(threading.Thread(target=self.closing))
        for t in self.threads:
            t.start()

    def note(self, ok):
        with self.lock:
            self.counts["ok" if ok else "failed"] += 1

    def keepalive(self):
        sock = None
        while not self.done.is_set():
            try:
                if sock is None:
                    sock = socket.create_connection((servers.LOOPBACK, self.port), timeout=5)
                sock.sendall(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            except OSError:
                self.note(False)
                sock = None
                continue
            got = read_response(sock)
            self.note(got is not None and got[0] == 200)
            if got is None or b"\r\nconnection: close" in got[1].lower():
                sock.close()
                sock = None
        if sock:
            sock.close()

    def closing(self):
        while not self.done.is_set():
            try:
                with socket.create_connection((servers.LOOPBACK, self.port), timeout=5) as s:
                    s.sendall(b"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
                    got = read_response(s)
            except OSError:
                got = None
            self.note(got is not None and got[0] == 200)

    def stop(self):
        self.done.set()
        for t in self.threads:
            t.join()
        return self.counts


def install_copy(source, path):
    """A new file at path with source's bytes, by rename (the running one stays whole)."""
    shutil.copy2(source, path + ".new")
    os.rename(path + ".new", path)


def apollod_upgrades(binary, workdir):
    """UPGRADES SIGUSR2s to apollod --workers 2 started from a copy of binary in workdir,
    a new copy installed before each: (requests, failed, upgraded lines)."""
    path = os.path.join(workdir, "apollod")
    shutil.copy2(binary, path)
    err_path = os.path.join(workdir, "upgrades.err")
    with open(err_path, "wb") as err:
        proc = subprocess.Popen(servers.tier_argv(path, ["--workers", "2"]),
                                stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL)
    server = servers.Server("apollod", proc, servers._read_announcement(
        proc, time.monotonic() + servers.START_BOUND_S))
    try:
        load_ = Load(server.port)
        time.sleep(UPGRADE_GAP_S / 2)
        for _ in range(UPGRADES):
            install_copy(binary, path)
            os.kill(proc.pid, signal.SIGUSR2)
            time.sleep(UPGRADE_GAP_S)
        counts = load_.stop()
    finally:
        server.stop()
    with open(err_path) as f:
        upgraded = sum("upgraded:" in line for line in f)
    return counts["ok"] + counts["failed"], counts["failed"], upgraded


def nginx_upgrades(nginx, tree):
    """UPGRADES nginx binary upgrades (USR2 to the master, QUIT to the old one once the
    new one's pid file is there) with 2 workers: (requests, failed, upgrades done).
    nginx runs as a daemon here: a master whose parent is still the process that started
    it ignores USR2 ("the changing binary signal is ignored"), taking that parent for
    an old binary's master."""
    workdir = os.path.join(tree.workdir, "nginx-upgrade")
    os.mkdir(workdir)
    os.chmod(workdir, 0o755)
    port = servers.free_port()
    argv = servers.write_peer_conf("nginx", nginx, workdir, port, tree.root, workers=2,
                                   conf_edit=lambda t: t.replace("daemon off;", "daemon on;"))
    pid_file = os.path.join(workdir, "nginx.pid")
    subprocess.run(argv, timeout=servers.START_BOUND_S, check=True,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    master, done = wait_for(lambda: read_pid(pid_file), servers.START_BOUND_S), 0
    try:
        wait_for(lambda: answers(port), servers.START_BOUND_S)
        load_ = Load(port)
        time.sleep(UPGRADE_GAP_S / 2)
        for _ in range(UPGRADES):
            os.kill(master, signal.SIGUSR2)
            new = wait_for(lambda: read_pid(pid_file) != master and read_pid(pid_file),
                           NEW_MASTER_BOUND_S)
            if not new:
                break
            os.kill(master, signal.SIGQUIT)
            master, done = new, done + 1
            time.sleep(UPGRADE_GAP_S)
        counts = load_.stop()
    finally:
        os.kill(master, signal.SIGQUIT)
        wait_for(lambda: not os.path.exists("/proc/%d" % master), servers.STOP_BOUND_S)
    return counts["ok"] + counts["failed"], counts["failed"], done


def answers(port):
    """Whether GET / on port gets a whole answer."""
    try:
        return bool(servers.fetch(port, timeout=1.0))
    except OSError:
        return False


def read_pid(path):
    """The pid in path, or None."""
    try:
        with open(path) as f:
            return int(f.read().strip() or 0) or None
    except (OSError, ValueError):
        return None


def make_many_files(root):
    """TREE_FILES files of a few bytes each under root, TREE_PER_DIR a directory."""
    for i in range(TREE_FILES):
        d = os.path.join(root, "d%03d" % (i // TREE_PER_DIR))
        if i % TREE_PER_DIR == 0:
            os.makedirs(d)
        with open(os.path.join(d, "f%05d.txt" % i), "w") as f:
            f.write("file %d\n" % i)


def rss_kib(pid):
    """pid's resident memory in KiB as "VmRSS (RssAnon / RssShmem)": its own heap and
    stacks, and the shared memory it maps (the snapshot's memfds, the counter page), of
    /proc/PID/status; "gone" once it has exited."""
    fields = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                name, _, value = line.partition(":")
                fields[name] = value.split()[0] if value.split() else ""
    except OSError:
        return "gone"
    return "%s (%s / %s)" % (fields["VmRSS"], fields["RssAnon"], fields["RssShmem"])


def memory_row(binary, root):
    """apollod --root root (TREE_FILES files): the supervisor's and the generation's VmRSS
    once serving, then after one SIGHUP once the old generation has exited. KiB."""
    server = servers.start_tier("apollod", binary, bound_s=SETTLE_BOUND_S,
                                extra_args=["--root", root])
    try:
        servers.wait_idle(server.pid, SETTLE_BOUND_S)
        first = wait_for(lambda: (children(server.pid) or [None])[0], 5)
        row = {"supervisor": rss_kib(server.pid), "generation": rss_kib(first)}
        os.kill(server.pid, signal.SIGHUP)
        # The new generation alone: the old one has drained and exited.
        second = wait_for(lambda: (lambda c: len(c) == 1 and c[0] != first and c[0])(
            children(server.pid)), SETTLE_BOUND_S)
        servers.wait_idle(server.pid, SETTLE_BOUND_S)
        row["supervisor after reload"] = rss_kib(server.pid)
        row["generation after reload"] = rss_kib(second) if second else None
        return row
    finally:
        server.stop()


def start_apollod(binary, tree, extra):
    """apollod serving tree.root (--root, the benches' --cache-bytes) with extra args."""
    return servers.start_tier("apollod", binary, extra_args=[
        "--root", tree.root, "--cache-bytes", str(servers.TIER_CACHE_BYTES)] + extra)


def start_nginx(nginx, tree, name, workers, connections=None):
    """nginx serving tree.root with workers worker processes (and worker_connections)."""
    workdir = os.path.join(tree.workdir, name)
    os.mkdir(workdir)
    os.chmod(workdir, 0o755)
    edit = None
    if connections:
        edit = lambda text: text.replace("worker_connections 1024;",
                                         "worker_connections %d;" % connections)
    return servers.start_peer("nginx", nginx, workdir, tree.root, workers=workers,
                              conf_edit=edit)


def with_server(server, row, *args):
    """row(server, *args), the server stopped afterwards whatever happens."""
    try:
        return row(server, *args)
    finally:
        server.stop()


def measure_stop(tiers, nginx, tree, log):
    """The stop row for every tier, then nginx."""
    got = {}
    for name, binary in tiers:
        log("stop row: %s" % name)
        got[name] = with_server(start_apollod(binary, tree, ["--workers", "2"]), stop_row, True)
    log("stop row: nginx")
    got["nginx"] = with_server(start_nginx(nginx, tree, "nginx-stop", 2), stop_row, False)
    return got


def measure_full(tiers, nginx, tree, log):
    """The full-table row for every tier, then nginx."""
    got = {}
    for name, binary in tiers:
        log("full-table row: %s" % name)
        got[name] = with_server(start_apollod(binary, tree, ["--max-connections", str(SLOTS)]),
                                full_table_row)
    log("full-table row: nginx")
    # nginx's listener takes one of its worker_connections: SLOTS + 1 hold SLOTS.
    got["nginx"] = with_server(start_nginx(nginx, tree, "nginx-full", 1, SLOTS + 1),
                               full_table_row)
    return got


def measure_upgrades(tiers, nginx, tree, log):
    """The upgrades row for every tier, then nginx."""
    got = {}
    for name, binary in tiers:
        log("upgrades: %s" % name)
        got[name] = apollod_upgrades(binary, tree.workdir)
    log("upgrades: nginx")
    got["nginx"] = nginx_upgrades(nginx, tree)
    return got


def measure_memory(tiers, nginx, tree, log):
    """The memory row for every tier (one tree of TREE_FILES files for all)."""
    got = {}
    # tmpfs: a disk-backed /tmp took minutes to write and remove 100,000 files.
    root = tempfile.mkdtemp(prefix="apollod-many-", dir=MANY_FILES_DIR)
    os.chmod(root, 0o755)
    try:
        log("memory: writing %d files" % TREE_FILES)
        make_many_files(root)
        for name, binary in tiers:
            log("memory: %s" % name)
            got[name] = memory_row(binary, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return got


ROWS = {"stop": measure_stop, "full": measure_full, "upgrades": measure_upgrades,
        "memory": measure_memory}


def measure(tiers, nginx, log, wanted):
    """The wanted rows (ROWS' names) for every tier and nginx: {row: {server: result}}."""
    with servers.ServingTree(sizes=[FULL_FILE], prefix="apollod-operations-") as tree:
        return {row: ROWS[row](tiers, nginx, tree, log) for row in wanted}


def table_stop(got):
    return ["| stop: 1 of 2 workers stopped for %d s, close c=%d | requests answered |"
            % (STOP_S, STOP_CONNECTIONS), "| --- | --- |"] + [
        "| %s | %d |" % (name, answered) for name, answered in got.items()]


def table_full(got):
    return ["| full table: %d stalled downloads, a fresh GET / | answers (seconds) |" % SLOTS,
            "| --- | --- |"] + [
        "| %s | %s |" % (name, "; ".join("`%s` %.3f" % t for t in tries))
        for name, tries in got.items()]


def table_upgrades(got):
    return ["| %d upgrades under keep-alive load | requests | failed | upgrades done |"
            % UPGRADES, "| --- | --- | --- | --- |"] + [
        "| %s | %d | %d | %d |" % (name, requests, failed, done)
        for name, (requests, failed, done) in got.items()]


def table_memory(got):
    return ["| %d-file tree, kB VmRSS (RssAnon / RssShmem) | supervisor | generation "
            "| supervisor after reload | generation after reload |" % TREE_FILES,
            "| --- | --- | --- | --- | --- |"] + [
        "| %s | %s | %s | %s | %s |" % (name, m["supervisor"], m["generation"],
                                        m["supervisor after reload"],
                                        m["generation after reload"])
        for name, m in got.items()]


TABLES = {"stop": table_stop, "full": table_full, "upgrades": table_upgrades,
          "memory": table_memory}


def report(rows):
    """The Markdown tables of the rows measured, a blank line apart."""
    return "\n\n".join("\n".join(TABLES[row](got)) for row, got in rows.items())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tier", action="append", required=True, metavar="NAME=BINARY")
    ap.add_argument("--nginx", default=servers.PEER_BINARIES["nginx"])
    ap.add_argument("--rows", default=",".join(ROWS),
                    help="which rows, comma-separated (default: %(default)s)")
    args = ap.parse_args()
    tiers = [tuple(t.split("=", 1)) for t in args.tier]
    tiers = [(n, os.path.abspath(b)) for n, b in tiers]
    log = lambda m: print("# " + m, file=sys.stderr, flush=True)
    rows = measure(tiers, args.nginx, log, args.rows.split(","))
    print(report(rows))


if __name__ == "__main__":
    main()
