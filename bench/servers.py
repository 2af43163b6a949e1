"""Starting and stopping the servers the benchmarks measure: an apollod tier on port 0, or
the nginx reference peer on a free loopback port with a generated config. Every wait is
bounded. Used by bench/load.py, bench/startup.py and compare/table.py."""

import os
import select
import signal
import socket
import subprocess
import time

LOOPBACK = "127.0.0.1"
START_BOUND_S = 10.0  # a server that is not answering by then has failed
STOP_BOUND_S = 10.0
# The request wrk sends in the connection-per-request scenarios, byte for byte, so the
# per-request counts describe the same work as the load rows.
REQUEST_FORMAT = "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
NGINX_BODY = "apollo says hello"

# nginx as the reference peer: one process serving (master_process off, so the process we
# start is the one that serves: its pid is the one strace, callgrind and VmHWM look at),
# no access log, one fixed response. Every path nginx would write is inside the temp dir.
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
    server {{
        listen {host}:{port};
        location / {{
            {location}
        }}
    }}
}}
"""


def free_port():
    """Returns a loopback TCP port that was free a moment ago (bind to port 0, read the
    port, close). nginx cannot listen on port 0 and report the port, so it gets this; a
    race with another process is possible, and start_nginx retries on a new port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def write_nginx_conf(workdir, port, root=None):
    """Writes workdir/nginx.conf for the reference peer on 127.0.0.1:port; returns its path.
    Without root, / returns the fixed body; with root, nginx serves the files under it
    with sendfile (its fastest static path: head by writev, body by sendfile)."""
    location = ('return 200 "%s";' % NGINX_BODY if root is None
                else "root %s; sendfile on; tcp_nopush on;" % root)
    path = os.path.join(workdir, "nginx.conf")
    with open(path, "w") as f:
        f.write(NGINX_CONF.format(dir=workdir, host=LOOPBACK, port=port, location=location))
    return path


def nginx_argv(nginx, workdir, conf):
    """The command line that runs nginx in the foreground with conf and no global paths."""
    return [nginx, "-p", workdir + "/", "-e", os.path.join(workdir, "error.log"), "-c", conf]


def tier_argv(binary, extra_args=()):
    """The command line that starts an apollod tier on an ephemeral loopback port."""
    return [binary, "--listen", LOOPBACK + ":0"] + list(extra_args)


def fetch(port, request=None, timeout=5.0):
    """Sends request (default: REQUEST_FORMAT's `GET /`) to 127.0.0.1:port and returns
    every byte until the server closes."""
    if request is None:
        request = REQUEST_FORMAT.format(port=port).encode()
    with socket.create_connection((LOOPBACK, port), timeout=timeout) as s:
        s.sendall(request)
        chunks = []
        while True:
            data = s.recv(65536)
            if not data:
                return b"".join(chunks)
            chunks.append(data)


class Server:
    """A running server: name, its process (proc, perhaps a wrapper such as valgrind) and
    the loopback port it answers on."""

    def __init__(self, name, proc, port, workdir=None):
        self.name = name
        self.proc = proc
        self.port = port
        self.workdir = workdir

    @property
    def pid(self):
        return self.proc.pid

    def peak_rss_kib(self):
        """VmHWM (peak resident set) of the server process, in KiB."""
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        raise RuntimeError("no VmHWM for pid %d" % self.proc.pid)

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
    """Waits until pid is blocked in a syscall that waits for a connection (read from
    /proc/PID/syscall), so that start-up has finished. Raises after bound_s."""
    deadline = time.monotonic() + bound_s
    while time.monotonic() < deadline:
        try:
            with open("/proc/%d/syscall" % pid) as f:
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


def start_tier(name, binary, wrapper=(), bound_s=START_BOUND_S, extra_args=()):
    """Starts tier binary on port 0 (under wrapper, e.g. valgrind, if given; with
    extra_args after --listen) and waits for its announcement. Returns a Server."""
    proc = subprocess.Popen(list(wrapper) + tier_argv(binary, extra_args),
                            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        port = _read_announcement(proc, time.monotonic() + bound_s)
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


def start_nginx(nginx, workdir, wrapper=(), bound_s=START_BOUND_S, attempts=3, root=None):
    """Starts the nginx reference peer with a config generated in workdir (under wrapper
    if given; serving files under root if given). Returns a Server. Retries on a new port
    if the chosen one was taken."""
    for _ in range(attempts):
        port = free_port()
        conf = write_nginx_conf(workdir, port, root)
        proc = subprocess.Popen(list(wrapper) + nginx_argv(nginx, workdir, conf),
                                stdin=subprocess.DEVNULL)
        if _wait_listening(proc, port, time.monotonic() + bound_s):
            return Server("nginx", proc, port, workdir)
        proc.kill()
        proc.wait()
    raise RuntimeError("nginx did not start; see %s/error.log" % workdir)


def start_all(tiers, nginx, workdir, wrapper=()):
    """Starts every tier ((name, binary) pairs) and, if nginx is set, the reference peer.
    Returns the Servers in that order. On failure stops the ones already started."""
    servers = []
    try:
        for name, binary in tiers:
            servers.append(start_tier(name, binary, wrapper))
        if nginx:
            servers.append(start_nginx(nginx, workdir, wrapper))
    except Exception:
        stop_all(servers)
        raise
    return servers


def stop_all(servers):
    for s in servers:
        s.stop()
