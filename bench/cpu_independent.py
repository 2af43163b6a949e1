#!/usr/bin/env python3
"""Server CPU per response for file bodies, measured without bench/'s own code (issue 34).

The second opinion on bench/load.py and bench/crossover.py: standard library only, and it
shares none of their code (not servers.py's process walk or CPU readers, not load.py's
wrk wrapper), so a fault in one cannot hide in both. The method:

- one process tree per server, started fresh for every round and stopped after it;
- `wrk -t1 -cC -dSs` on keep-alive against one file of the size measured;
- the server's CPU read right before and right after wrk from two clocks, summed over
  every process whose parent chain leads to the started pid (found from every
  /proc/PID/stat's ppid field) and every thread of each: /proc/PID/stat's utime + stime
  (+ cutime + cstime: children already reaped) and /proc/PID/task/TID/schedstat's run
  time; the two are printed side by side;
- the servers take turns within a round (the order rotating by round), each figure the
  median over the rounds; /proc/loadavg is printed before and after.

Servers: NAME=BINARY[,ARG...] for an apollod build (run as BINARY --listen 127.0.0.1:0
--root TREE ARG...), e.g. copy=/tmp/apollod-copy,--cache-bytes,1G or
disk=/tmp/apollod,--cache-bytes,0 (an ARG --root DIR replaces TREE: DIR must hold the
same SIZEk.bin files, e.g. copies on a tmpfs); and --nginx PATH for nginx 1.22 with sendfile on and
tcp_nopush on, one process (the bench/servers.py settings, written out again here).

  python3 bench/cpu_independent.py NAME=BINARY[,ARG...]... [--nginx /usr/sbin/nginx]
      [--sizes 64,256,1024,4096 (KiB)] [--rounds 5] [--duration 3] [--connections 8]
      [--pin] [--json OUT]

--pin: the servers on CPU 0, wrk on CPU 1 (taskset). Every load is bounded: wrk's
duration, the rounds, loopback only.
"""
import argparse
import json
import os
import select
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HOST = "127.0.0.1"
BOUND_S = 10.0
TICKS = os.sysconf("SC_CLK_TCK")
NGINX = """daemon off;
master_process off;
worker_processes 1;
error_log {d}/error.log warn;
pid {d}/nginx.pid;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path {d}/cb; proxy_temp_path {d}/px; fastcgi_temp_path {d}/fc;
    uwsgi_temp_path {d}/uw; scgi_temp_path {d}/sc;
    sendfile on;
    tcp_nopush on;
    server {{ listen {h}:{p}; location / {{ root {root}; }} }}
}}
"""


def stat_fields(pid):
    """The fields of /proc/PID/stat after the command name, or None once it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            text = f.read()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()


def family(root):
    """root and every process descended from it, from each process's ppid."""
    parent = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = stat_fields(int(entry))
            if fields:
                parent[int(entry)] = int(fields[1])  # field 4: ppid
    members, grew = {root}, True
    while grew:
        new = {p for p, pp in parent.items() if pp in members and p not in members}
        members |= new
        grew = bool(new)
    return sorted(members)


def cpu(root):
    """(stat seconds, schedstat seconds) of root's family: utime+stime+cutime+cstime
    (fields 14-17) of each process, and the run time of each of its threads."""
    ticks = run_ns = 0
    for pid in family(root):
        fields = stat_fields(pid)
        if fields:
            ticks += sum(int(x) for x in fields[11:15])
        try:
            tids = os.listdir("/proc/%d/task" % pid)
        except OSError:
            continue
        for tid in tids:
            try:
                with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                    run_ns += int(f.read().split()[0])
            except OSError:
                pass
    return ticks / TICKS, run_ns / 1e9


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def wait_answering(proc, port, deadline):
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            socket.create_connection((HOST, port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.01)
    proc.kill()
    raise RuntimeError("%s did not answer" % proc.args)


def start_apollod(spec, root, pin):
    """Starts BINARY[,ARG...] on port 0; returns (proc, port) once it announces."""
    binary, *extra = spec.split(",")
    own = [] if "--root" in extra else ["--root", root]  # a server's own tree (tmpfs A/B)
    proc = subprocess.Popen(pin + [binary, "--listen", HOST + ":0"] + own + extra,
                            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    deadline, seen = time.monotonic() + BOUND_S, b""
    while b"listening on" not in seen or not seen.endswith(b"\n"):
        if not select.select([proc.stdout], [], [], max(0, deadline - time.monotonic()))[0]:
            proc.kill()
            raise RuntimeError("%s did not announce" % binary)
        data = os.read(proc.stdout.fileno(), 4096)
        if not data:
            raise RuntimeError("%s exited" % binary)
        seen += data
    line = next(l for l in seen.decode().splitlines() if "listening on" in l)
    port = int(line.rsplit(":", 1)[1])
    wait_answering(proc, port, deadline)
    return proc, port


def start_nginx(binary, root, work, pin):
    port = free_port()
    with open(os.path.join(work, "nginx.conf"), "w") as f:
        f.write(NGINX.format(d=work, h=HOST, p=port, root=root))
    proc = subprocess.Popen(pin + [binary, "-p", work + "/", "-e", work + "/error.log",
                                   "-c", work + "/nginx.conf"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    wait_answering(proc, port, time.monotonic() + BOUND_S)
    return proc, port


def stop(proc):
    proc.terminate()
    try:
        proc.wait(BOUND_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def wrk(port, path, args):
    """wrk -t1 on keep-alive; returns (responses, responses per second)."""
    pin = ["taskset", "-c", "1"] if args.pin else []
    out = subprocess.run(pin + ["wrk", "-t1", "-c%d" % args.connections,
                                "-d%ds" % args.duration, "--timeout", "10s",
                                "http://%s:%d%s" % (HOST, port, path)],
                         capture_output=True, text=True, check=True,
                         timeout=args.duration + 30).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1] == "requests" and parts[0].isdigit():
            count = int(parts[0])
        if line.startswith("Requests/sec:"):
            rate = float(line.split()[1])
    if "Non-2xx" in out:
        raise RuntimeError("errors from wrk:\n" + out)
    return count, rate


def one_run(server, size, tree, args):
    """Starts server fresh, runs wrk on the file of size KiB, stops it. Returns a dict."""
    pin = ["taskset", "-c", "0"] if args.pin else []
    name, how = server
    work = tempfile.mkdtemp(prefix="cpu-indep-", dir=tree)
    os.chmod(work, 0o755)
    try:
        proc, port = (start_nginx(how, os.path.join(tree, "www"), work, pin)
                      if name == "nginx" else start_apollod(how, os.path.join(tree, "www"), pin))
        try:
            before = cpu(proc.pid)
            count, rate = wrk(port, "/%dk.bin" % size, args)
            after = cpu(proc.pid)
        finally:
            stop(proc)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if count < 4 * args.connections:  # the c responses in flight at the end weigh too much
        raise RuntimeError("%s, %d KiB: %d responses in %d s; lengthen --duration"
                           % (name, size, count, args.duration))
    return {"stat_us": (after[0] - before[0]) * 1e6 / count,
            "sched_us": (after[1] - before[1]) * 1e6 / count, "rps": rate,
            "responses": count}


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("servers", nargs="*", metavar="NAME=BINARY[,ARG...]")
    ap.add_argument("--nginx")
    ap.add_argument("--sizes", default="64,256,512,1024,2048,3072,4096,8192,16384")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--duration", type=int, default=3)
    ap.add_argument("--connections", type=int, default=8)
    ap.add_argument("--pin", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    if not (1 <= args.duration <= 30 and 1 <= args.rounds <= 20
            and 1 <= args.connections <= 256):
        ap.error("--duration 1..30, --rounds 1..20, --connections 1..256")
    servers = [tuple(s.split("=", 1)) for s in args.servers]
    if args.nginx:
        servers.append(("nginx", args.nginx))
    sizes = [int(s) for s in args.sizes.split(",")]
    tree = tempfile.mkdtemp(prefix="cpu-indep-")
    os.chmod(tree, 0o755)
    os.makedirs(os.path.join(tree, "www"), mode=0o755)
    for size in sizes:
        with open(os.path.join(tree, "www", "%dk.bin" % size), "wb") as f:
            f.write(os.urandom(size * 1024))
    os.sync()  # no dirty pages under the first round
    print("loadavg before: %s; c=%d, wrk -t1 -d%ds, %d rounds, %s"
          % (loadavg(), args.connections, args.duration, args.rounds,
             "pinned (server CPU 0, wrk CPU 1)" if args.pin else "unpinned"), flush=True)
    print("| body | server | CPU µs/response, stat | schedstat (min-max) | req/s | schedstat / nginx |",
          flush=True)
    results = {}
    try:
        for size in sizes:
            runs = {name: [] for name, _ in servers}
            for r in range(args.rounds):
                for server in servers[r % len(servers):] + servers[:r % len(servers)]:
                    runs[server[0]].append(one_run(server, size, tree, args))
            results[size] = runs
            report(size, runs)
    finally:
        shutil.rmtree(tree, ignore_errors=True)
    print("loadavg after: %s" % loadavg(), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "results": results}, f, indent=1)


def report(size, runs):
    """Prints one markdown row per server: medians of both clocks, req/s, ratio to nginx."""
    med = {n: {k: statistics.median(x[k] for x in rs) for k in ("stat_us", "sched_us", "rps")}
           for n, rs in runs.items()}
    for name, m in med.items():
        ratio = ("%.2f" % (m["sched_us"] / med["nginx"]["sched_us"])
                 if "nginx" in med else "-")
        gap = abs(m["stat_us"] - m["sched_us"]) / m["sched_us"]
        sched = [x["sched_us"] for x in runs[name]]  # the spread over the rounds
        print("| %d KiB | %s | %.0f | %.0f (%.0f-%.0f) | %.0f | %s |%s" % (
            size, name, m["stat_us"], m["sched_us"], min(sched), max(sched), m["rps"], ratio,
            " clocks %.0f%% apart" % (100 * gap) if gap > 0.10 else ""), flush=True)


if __name__ == "__main__":
    sys.exit(main())
