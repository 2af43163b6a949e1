"""Starting and stopping the servers the benchmarks measure: an apollod tier on port 0, or
a peer (nginx, h2o, lighttpd) on a free loopback port with a generated config, all
serving the same fixed answer at / and the same file tree under /files/. Also the one
HTTP client of the tooling (fetch), the process-tree CPU reader (/proc/PID/stat) and the
tree of files every server serves. Every wait is bounded. Used by bench/load.py,
bench/startup.py, bench/counts.py, bench/files.py and compare/table.py."""

import functools
import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time

LOOPBACK = "127.0.0.1"
START_BOUND_S = 10.0  # a server that is not answering by then has failed
STOP_BOUND_S = 10.0
# The request wrk sends in the connection-per-request scenarios, byte for byte, so the
# per-request counts describe the same work as the load rows.
REQUEST_FORMAT = "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
# A shorter request (the one the old callgrind script sent): the parser's cost for ~30
# header bytes fewer.
SHORT_REQUEST = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
ANSWER = "apollo says hello"  # every server's answer at /: 17 bytes

# The served tree: ANSWER as index.html (the answer of a peer that cannot make a fixed
# one), and the benchmark files under files/ (FILE_SIZES: label -> bytes). The apollod
# tiers get the whole tree with --root; their built-in / wins over index.html.
FILES_DIR = "files"
FILE_SIZES = {"4 KiB": 4 * 1024, "256 KiB": 256 * 1024, "4 MiB": 4 << 20,
              "16 MiB": 16 << 20}
# The apollod tiers' snapshot budget in every benchmark (--cache-bytes): the 4 KiB, 256 KiB
# and 4 MiB files (and index.html) fit it whatever order the walk meets them in, the
# 16 MiB one never does, so the tiers serve it from disk (BEHAVIOUR 10.18) as the peers
# serve every file.
TIER_CACHE_BYTES = 8 << 20
DISK_FILE_SIZE = 16 << 20
assert sum(v for v in FILE_SIZES.values() if v != DISK_FILE_SIZE) + 1024 < TIER_CACHE_BYTES
assert DISK_FILE_SIZE > TIER_CACHE_BYTES


def file_url(size):
    """The URL path of the benchmark file of size bytes: /files/4k.bin, /files/4m.bin."""
    name = "%dk.bin" % (size >> 10) if size < 1 << 20 else "%dm.bin" % (size >> 20)
    return "/%s/%s" % (FILES_DIR, name)


def make_tree(root, sizes=None):
    """Writes the served tree under root: index.html with ANSWER and, per size in sizes
    (bytes; default FILE_SIZES' values), a file of random bytes at file_url(size)."""
    os.makedirs(os.path.join(root, FILES_DIR), exist_ok=True)
    with open(os.path.join(root, "index.html"), "w") as f:
        f.write(ANSWER)
    for size in FILE_SIZES.values() if sizes is None else sizes:
        with open(os.path.join(root, file_url(size).lstrip("/")), "wb") as f:
            f.write(os.urandom(size))


def public_tempdir(prefix):
    """A new directory under /tmp that every user may read and enter: h2o drops to nobody
    before it opens a file, and the Bazel output base (under /root) is closed to nobody.
    The caller removes it (shutil.rmtree)."""
    path = tempfile.mkdtemp(prefix=prefix, dir="/tmp")
    os.chmod(path, 0o755)
    return path


class ServingTree:
    """with ServingTree() as t: t.root is a served tree (make_tree) in a public_tempdir,
    t.workdir a public directory for configs and logs; both removed at exit."""

    def __init__(self, sizes=None, prefix="apollod-serve-"):
        self.sizes = sizes
        self.prefix = prefix

    def __enter__(self):
        self.workdir = public_tempdir(self.prefix)
        self.root = os.path.join(self.workdir, "www")
        make_tree(self.root, self.sizes)
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.workdir, ignore_errors=True)


# ---- the peers ----------------------------------------------------------------------

# nginx: one process serving (master_process off, so the process we start is the one
# that serves), no access log, a fixed answer at /, sendfile for files. Every path nginx
# would write is inside the temp dir.
NGINX_CONF = """\
daemon off;
master_process off;
worker_processes 1;
error_log {dir}/error.log warn;
pid {dir}/nginx.pid;
events {{
    worker_connections 1024;
}}
http {{
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    sendfile on;
    tcp_nopush on;
    server {{
        listen {host}:{port};
        location = / {{
            return 200 "{answer}";
        }}
        location / {{
            root {root};
        }}
    }}
}}
"""

# h2o: one worker thread, no access log (none configured), mruby for the fixed answer
# when h2o was built with it (Debian's is), else index.html from the tree. As root h2o
# switches to nobody before serving, so the tree must be world-readable.
H2O_CONF = """\
listen:
  host: {host}
  port: {port}
num-threads: 1
error-log: {dir}/h2o-error.log
user: {user}
hosts:
  default:
    paths:
      "/{files}":
        file.dir: {root}/{files}
      "/":
{root_handler}
"""
H2O_MRUBY = """\
        mruby.handler: |
          Proc.new do |env|
            [200, {{"content-type" => "text/plain"}}, ["{answer}"]]
          end"""
H2O_FILE = "        file.dir: {root}"

# lighttpd: one process (server.max-worker = 0), no access log (mod_accesslog not
# loaded), keep-alive not cut short, mod_magnet (lua) for the fixed answer when the
# module is installed, else index.html from the tree. Errors go to stderr.
LIGHTTPD_CONF = """\
server.document-root = "{root}"
server.bind = "{host}"
server.port = {port}
server.max-worker = 0
{user}
server.max-keep-alive-requests = 1000000
server.max-keep-alive-idle = 60
index-file.names = ("index.html")
{magnet}
"""
LIGHTTPD_MAGNET = """\
server.modules += ("mod_magnet")
$HTTP["url"] == "/" {{
    magnet.attract-raw-url-to = ("{dir}/answer.lua")
}}"""
LIGHTTPD_LUA = """\
lighty.r.resp_header["Content-Type"] = "text/plain"
lighty.r.resp_body:set("{answer}")
return 200
"""
LIGHTTPD_MODULES = "/usr/lib/lighttpd"

# The peers, in column order: name -> default binary.
PEER_BINARIES = {"nginx": "/usr/sbin/nginx", "h2o": "/usr/bin/h2o",
                 "lighttpd": "/usr/sbin/lighttpd"}
PEERS = list(PEER_BINARIES)


@functools.lru_cache(maxsize=None)
def peer_answers_fixed(name, binary):
    """True when the peer can make the fixed answer itself (nginx: return 200; h2o: its
    mruby handler, if compiled in; lighttpd: mod_magnet, if installed); False when it
    serves the tree's 17-byte index.html instead."""
    if name == "nginx":
        return True
    if name == "h2o":
        out = subprocess.run([binary, "-v"], capture_output=True, text=True, timeout=10)
        return "mruby: YES" in out.stdout + out.stderr
    if name == "lighttpd":
        return os.path.exists(os.path.join(LIGHTTPD_MODULES, "mod_magnet.so"))
    raise ValueError("unknown peer " + name)


def peer_answer_note(name, binary):
    """How the peer answers /, in the table's words."""
    if not peer_answers_fixed(name, binary):
        return "the same 17 bytes as a file (index.html)"
    return {"nginx": "fixed answer (return 200)", "h2o": "fixed answer (mruby handler)",
            "lighttpd": "fixed answer (mod_magnet, lua)"}[name]


def write_peer_conf(name, binary, workdir, port, root, keep_root=False, workers=1,
                    access_log=None, files_only=False, conf_edit=None):
    """Writes the peer's config into workdir (which must be world-readable for h2o and
    lighttpd, see public_tempdir) for 127.0.0.1:port serving the tree at root. Returns
    the argv that runs the peer in the foreground. h2o and lighttpd switch to nobody
    once listening unless keep_root (under valgrind: callgrind writes its output file
    at exit, which nobody may not). workers > 1 (nginx only): a master process and that
    many worker processes instead of the one serving process. access_log (nginx only): a
    file for nginx's access log in its default form (combined format, one write per
    request) instead of none. files_only: every path from the tree (h2o and lighttpd
    without the fixed answer at /). conf_edit: a function of the config's text that
    returns the text written (bench/compressed.py adds each peer's compression)."""
    fixed = peer_answers_fixed(name, binary) and not files_only
    fields = {"dir": workdir, "host": LOOPBACK, "port": port, "root": root,
              "answer": ANSWER, "files": FILES_DIR}
    if name == "h2o":
        fields["user"] = "root" if keep_root else "nobody"
    elif name == "lighttpd":
        fields["user"] = "" if keep_root else ('server.username = "nobody"\n'
                                               'server.groupname = "nogroup"')
    if name == "nginx":
        path = os.path.join(workdir, "nginx.conf")
        text = NGINX_CONF.format(**fields)
        if workers > 1:
            text = text.replace("master_process off;\nworker_processes 1;",
                                "master_process on;\nworker_processes %d;" % workers)
        if access_log:
            text = text.replace("access_log off;", "access_log %s;" % access_log)
        argv = [binary, "-p", workdir + "/", "-e", os.path.join(workdir, "error.log"),
                "-c", path]
    elif name == "h2o":
        path = os.path.join(workdir, "h2o.conf")
        handler = (H2O_MRUBY if fixed else H2O_FILE).format(**fields)
        text = H2O_CONF.format(root_handler=handler, **fields)
        argv = [binary, "-c", path]
    elif name == "lighttpd":
        path = os.path.join(workdir, "lighttpd.conf")
        magnet = ""
        if fixed:
            magnet = LIGHTTPD_MAGNET.format(**fields)
            with open(os.path.join(workdir, "answer.lua"), "w") as f:
                f.write(LIGHTTPD_LUA.format(**fields))
        text = LIGHTTPD_CONF.format(magnet=magnet, **fields)
        argv = [binary, "-D", "-f", path]
    else:
        raise ValueError("unknown peer " + name)
    with open(path, "w") as f:
        f.write(conf_edit(text) if conf_edit else text)
    return argv


def free_port():
    """Returns a loopback TCP port that was free a moment ago (bind to port 0, read the
    port, close). nginx cannot listen on port 0 and report the port, so it gets this; a
    race with another process is possible, and start_nginx retries on a new port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


# The min tier's binary (//bazel:tiers.bzl) takes its port as its one argument and
# announces nothing (BEHAVIOUR 8); every other tier takes --listen and announces its
# address.
MIN_BINARY = "apollod-min"


def announces(binary):
    """Whether the tier binary says where it listens ("... listening on ADDR:PORT")."""
    return os.path.basename(binary) != MIN_BINARY


def serves_files(binary):
    """Whether the tier binary takes --root DIR: every routed tier does, min does not."""
    return os.path.basename(binary) != MIN_BINARY


def tier_argv(binary, extra_args=(), port=0):
    """The command line that starts tier binary on a loopback port (0: the kernel picks)."""
    if not announces(binary):
        return [binary, str(port)] + list(extra_args)
    return [binary, "--listen", "%s:%d" % (LOOPBACK, port)] + list(extra_args)


def fetch(port, request=None, timeout=5.0, defer_accept=False):
    """The tooling's one HTTP client: sends request (default: REQUEST_FORMAT's `GET /`)
    to 127.0.0.1:port over a new connection and returns every byte until the server
    closes. defer_accept sets TCP_DEFER_ACCEPT on the client socket before connect(),
    which makes Linux hold back the handshake's last ACK and send it with the first data
    segment (tcp_rcv_synsent_state_process, "Save one ACK"): the connection reaches the
    server's accept queue with the request already in it, so every request takes the
    same path (accept4, read, write, close) instead of sometimes finding no data yet and
    going once more around the event loop. Per-request counts use it: without it
    callgrind's figure moved by +-25% between runs, with it by less than 0.5%."""
    if request is None:
        request = REQUEST_FORMAT.format(port=port).encode()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        if defer_accept:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_DEFER_ACCEPT, 1)
        s.connect((LOOPBACK, port))
        s.sendall(request)
        chunks = []
        while True:
            data = s.recv(65536)
            if not data:
                return b"".join(chunks)
            chunks.append(data)


# ---- CPU time of a server -----------------------------------------------------------

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def parse_proc_stat(text):
    """/proc/PID/stat's text -> (utime, stime) in clock ticks (fields 14 and 15, counted
    after the ')' that ends the command name, which may itself hold spaces or ')')."""
    fields = text[text.rindex(")") + 2:].split()
    return int(fields[11]), int(fields[12])  # fields 14 and 15; the state is field 3


def _tasks(pid):
    """The thread ids of pid (/proc/PID/task), none once it is gone."""
    try:
        return os.listdir("/proc/%d/task" % pid)
    except OSError:
        return []


def process_tree(pid):
    """pid and all its descendants (from /proc/PID/task/TID/children), pid first."""
    tree, work = [], [pid]
    while work:
        p = work.pop(0)
        tree.append(p)
        for tid in _tasks(p):
            try:
                with open("/proc/%d/task/%s/children" % (p, tid)) as f:
                    work += [int(c) for c in f.read().split()]
            except OSError:
                pass
    return tree


def cpu_seconds(pid):
    """(user, system) CPU seconds used so far by pid and every process under it (every
    thread of each: /proc/PID/stat sums a process's threads). A process that exits
    between two readings takes its time with it; servers here keep their processes."""
    user = system = 0
    for p in process_tree(pid):
        try:
            with open("/proc/%d/stat" % p) as f:
                u, s = parse_proc_stat(f.read())
        except OSError:
            continue
        user += u
        system += s
    return user / CLOCK_TICKS, system / CLOCK_TICKS


def run_seconds(pid):
    """CPU seconds pid and every process under it have run so far, from the scheduler's
    own clock (/proc/PID/task/TID/schedstat's first field, sum_exec_runtime in ns), or
    None where the kernel has no schedstat. Unlike /proc/PID/stat's utime and stime,
    which a kernel with tick accounting (CONFIG_TICK_CPU_ACCOUNTING) samples once per
    tick, this is exact: short runs on a busy machine vary far less."""
    total = 0
    for p in process_tree(pid):
        for tid in _tasks(p):
            try:
                with open("/proc/%d/task/%s/schedstat" % (p, tid)) as f:
                    total += parse_schedstat(f.read())
            except FileNotFoundError:
                return None
            except OSError:
                continue
    return total / 1e9


def parse_schedstat(text):
    """/proc/PID/task/TID/schedstat's text ("run_ns wait_ns timeslices") -> run_ns."""
    return int(text.split()[0])


# The self-check of every CPU figure (issue 34): the tick-sampled /proc/PID/stat clock and
# the scheduler's schedstat clock measure the same tree over the same window; beyond this
# share apart, one of them missed something (a thread, a process, a sampled tick) and the
# figure is not to be trusted.
CLOCKS_AGREE_SHARE = 0.10


def clocks_disagree(stat_s, run_s):
    """The relative gap |stat - run| / run between the two clocks' CPU seconds, when it
    exceeds CLOCKS_AGREE_SHARE; else (or without schedstat: run_s None) None."""
    if run_s is None or run_s <= 0:
        return None
    gap = abs(stat_s - run_s) / run_s
    return gap if gap > CLOCKS_AGREE_SHARE else None


class Server:
    """A running server: name, its process (proc, perhaps a wrapper such as valgrind, or
    taskset, which execs its command and keeps the pid) and the loopback port it answers
    on. serves_files: it maps the served tree (peers, tiers started with --root)."""

    def __init__(self, name, proc, port, workdir=None, serves_files=False):
        self.name = name
        self.proc = proc
        self.port = port
        self.workdir = workdir
        self.serves_files = serves_files

    @property
    def pid(self):
        return self.proc.pid

    def peak_rss_kib(self):
        """VmHWM (peak resident set) of the server process that peaked highest, in KiB:
        the pid started, or a process below it (apollod's routed tiers serve in a child
        of their resident supervisor, BEHAVIOUR 17)."""
        peaks = []
        for p in process_tree(self.proc.pid):
            try:
                with open("/proc/%d/status" % p) as f:
                    peaks += [int(line.split()[1]) for line in f if line.startswith("VmHWM:")]
            except OSError:
                pass
        if not peaks:
            raise RuntimeError("no VmHWM for pid %d" % self.proc.pid)
        return max(peaks)

    def stop(self, sig=signal.SIGTERM, signal_child=False):
        """Sends sig and waits (bounded); kills it if it lingers. Returns the exit status.
        signal_child: send sig to the process's only child instead (strace writes its
        summary when its tracee exits, not when strace itself is terminated)."""
        if self.proc.poll() is None:
            if signal_child:
                os.kill(only_child(self.pid), sig)
            else:
                self.proc.send_signal(sig)
            try:
                self.proc.wait(STOP_BOUND_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()
        return self.proc.returncode


# x86_64 syscall numbers a server sits in while it waits for a connection: accept,
# epoll_wait, accept4, epoll_pwait, epoll_pwait2, io_uring_enter (the uring tier) (from
# <asm/unistd_64.h>).
WAITING_SYSCALLS = {43, 232, 288, 281, 441, 426}


def only_child(pid):
    """The pid of pid's only child (a wrapper's payload: strace's tracee)."""
    with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
        return int(f.read().split()[0])


def wait_idle(pid, bound_s=START_BOUND_S):
    """Waits until pid, or a process below it, is blocked in a syscall that waits for a
    connection (read from /proc/PID/syscall), so that start-up has finished: apollod's
    routed tiers serve in a child of the pid started (its resident supervisor waits in
    ppoll), a wrapper's payload is its child. Raises after bound_s."""
    deadline = time.monotonic() + bound_s
    while time.monotonic() < deadline:
        for p in process_tree(pid):
            try:
                with open("/proc/%d/syscall" % p) as f:
                    fields = f.read().split()
            except OSError:
                fields = []
            if fields and fields[0].isdigit() and int(fields[0]) in WAITING_SYSCALLS:
                return
        time.sleep(0.005)
    raise RuntimeError("pid %d never waited for a connection" % pid)


def _read_announcement(proc, deadline):
    """Reads proc's stdout until "... listening on ADDR:PORT"; returns the port."""
    buffered = b""
    fd = proc.stdout.fileno()
    while b"\n" not in buffered or b"listening on" not in buffered:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise RuntimeError("no 'listening on' line from %s" % proc.args[0])
        data = os.read(fd, 4096)
        if not data:
            raise RuntimeError("%s exited before listening (status %s)"
                               % (proc.args[0], proc.wait()))
        buffered += data
    for line in buffered.decode().splitlines():
        if "listening on" in line:
            return int(line.rsplit(":", 1)[1])
    raise RuntimeError("bad announcement %r" % buffered)


def listening_port(pid):
    """The port of an IPv4 TCP socket in LISTEN state that pid or a process under it (a
    wrapper's payload) holds: the socket inodes of /proc/PID/fd against the LISTEN rows
    (state 0A) of /proc/PID/net/tcp. None while there is none."""
    inodes = set()
    for p in process_tree(pid):
        try:
            fds = os.listdir("/proc/%d/fd" % p)
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink("/proc/%d/fd/%s" % (p, fd))
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(int(target[len("socket:["):-1]))
    try:
        with open("/proc/%d/net/tcp" % pid) as f:
            rows = [line.split() for line in f.read().splitlines()[1:]]
    except OSError:
        return None
    for row in rows:  # sl local_address rem_address st ... uid timeout inode
        if row[3] == "0A" and int(row[9]) in inodes:
            return int(row[1].rsplit(":", 1)[1], 16)
    return None


def _wait_listening_port(proc, deadline):
    """Polls listening_port(proc.pid) until it is known; returns it. Raises if proc exits
    or the deadline passes first."""
    while time.monotonic() < deadline:
        port = listening_port(proc.pid)
        if port:
            return port
        if proc.poll() is not None:
            raise RuntimeError("%s exited before listening (status %s)"
                               % (proc.args[0], proc.returncode))
        time.sleep(0.005)
    raise RuntimeError("%s did not listen in time" % proc.args[0])


def start_tier(name, binary, wrapper=(), bound_s=START_BOUND_S, extra_args=()):
    """Starts tier binary on port 0 (under wrapper, e.g. valgrind, if given; with
    extra_args after --listen) and waits for its announcement, or for min (which
    announces nothing) until its listening socket shows in /proc. Returns a Server."""
    proc = subprocess.Popen(list(wrapper) + tier_argv(binary, extra_args),
                            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + bound_s
        if announces(binary):
            port = _read_announcement(proc, deadline)
        else:
            port = _wait_listening_port(proc, deadline)
    except Exception:
        proc.kill()
        proc.wait()
        raise
    return Server(name, proc, port)


def _wait_listening(proc, port, deadline):
    """Connects to port until it accepts; False if proc exits or the deadline passes."""
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            socket.create_connection((LOOPBACK, port), timeout=1.0).close()
            return True
        except OSError:
            time.sleep(0.01)
    return False


def start_peer(name, binary, workdir, root, wrapper=(), bound_s=START_BOUND_S,
               attempts=3, keep_root=False, workers=1, access_log=None, files_only=False,
               conf_edit=None):
    """Starts peer name (PEERS) with a config generated in workdir, serving the tree at
    root (under wrapper if given). Returns a Server. A peer cannot listen on port 0 and
    tell the port, so it gets free_port()'s; if that was taken meanwhile, it retries on a
    new one. keep_root, workers, access_log, files_only, conf_edit: see write_peer_conf."""
    for _ in range(attempts):
        port = free_port()
        argv = write_peer_conf(name, binary, workdir, port, root, keep_root, workers,
                               access_log, files_only, conf_edit)
        proc = subprocess.Popen(list(wrapper) + argv, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL,
                                stderr=open(os.path.join(workdir, name + ".stderr"), "ab"))
        if _wait_listening(proc, port, time.monotonic() + bound_s):
            return Server(name, proc, port, workdir, serves_files=True)
        proc.kill()
        proc.wait()
    raise RuntimeError("%s did not start; see %s" % (name, workdir))


def start_all(tiers, peers, tree, wrapper=(), access_logs=False, log_dir=None):
    """Starts every tier ((name, binary, serves_files) triples; with --root tree.root when
    it serves files) and every peer ((name, binary) pairs, each with its own config
    directory under tree.workdir). access_logs: each server logs every request to a file
    of its own under tree.workdir, or under log_dir when given (tiers: --access-log; nginx
    only among the peers).
    Returns the Servers in that order. On failure stops the ones already started."""
    servers = []
    try:
        for name, binary, serves_files in tiers:
            extra = (["--root", tree.root, "--cache-bytes", str(TIER_CACHE_BYTES)]
                     if serves_files else [])
            if access_logs:
                extra += ["--access-log",
                          os.path.join(log_dir or tree.workdir, name + ".access.log")]
            server = start_tier(name, binary, wrapper, extra_args=extra)
            server.serves_files = serves_files
            servers.append(server)
        for name, binary in peers:
            workdir = os.path.join(tree.workdir, name)
            os.makedirs(workdir, exist_ok=True)
            os.chmod(workdir, 0o755)
            log_path = (os.path.join(log_dir or workdir, name + ".access.log")
                        if access_logs else None)
            servers.append(start_peer(name, binary, workdir, tree.root, wrapper,
                                      access_log=log_path))
    except Exception:
        stop_all(servers)
        raise
    return servers


def stop_all(servers):
    for s in servers:
        s.stop()
