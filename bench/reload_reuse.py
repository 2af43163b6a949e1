#!/usr/bin/env python3
"""Reload of an unchanged tree (issue 23, BEHAVIOUR 10.17): time from SIGHUP to the new
image's readiness, and the machine's memory in use during the hand-over.

For each binary given: makes (once) a tree of --files files of --file-mib MiB of random
bytes, starts the binary with --root on it and --cache-bytes, then sends SIGHUP --rounds
times, each once the generation it replaces has exited (the daemon's pid is the resident
supervisor: the serving generation is its child). Per reload it records:
  - ready_s: from the kill(2) to the old image's "reloaded: process N" stderr line (it is
    written when the new image's readiness byte arrives), polled every 1 ms;
  - used_rise_mib: the peak of MemTotal - MemAvailable (/proc/meminfo) from the HUP until
    the old image has exited, less its value just before the HUP; sampled every 2 ms;
  - shmem_rise_mib: the same for Shmem.
Prints one line per reload and the medians per binary, as a Markdown table.

  python3 bench/reload_reuse.py --tree /work/tmp/reload-tree NAME=BINARY [NAME=BINARY...]
"""
import argparse
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

MIB = 1 << 20


def meminfo():
    """MemTotal - MemAvailable and Shmem, in bytes."""
    fields = {}
    with open("/proc/meminfo") as f:
        for line in f:
            key, value = line.split(":", 1)
            fields[key] = int(value.split()[0]) * 1024
    return fields["MemTotal"] - fields["MemAvailable"], fields["Shmem"]


def make_tree(path, files, mib):
    os.makedirs(path, exist_ok=True)
    for i in range(files):
        name = os.path.join(path, "f%03d.bin" % i)
        if os.path.exists(name) and os.path.getsize(name) == mib * MIB:
            continue
        with open(name, "wb") as out:
            out.write(os.urandom(mib * MIB))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_listening(port, timeout_s=120):
    end = time.time() + timeout_s
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), 1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("the daemon did not listen on %d" % port)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is gone for memory's sake
    with open("/proc/%d/stat" % pid) as f:
        return f.read().split(")")[-1].split()[0] != "Z"


def serving(supervisor):
    """The serving generation: the resident supervisor's child (BEHAVIOUR 17)."""
    try:
        with open("/proc/%d/task/%d/children" % (supervisor, supervisor)) as f:
            children = [int(w) for w in f.read().split()]
    except OSError:
        children = []
    return children[-1] if children else supervisor


def reload_once(supervisor, err_path, seen):
    """SIGHUPs the daemon; returns (new generation, ready_s, used_rise, shmem_rise). The
    memory is sampled until the generation serving before the HUP has exited."""
    pid = serving(supervisor)
    base_used, base_shm = meminfo()
    peak = [base_used, base_shm]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            u, s = meminfo()
            peak[0] = max(peak[0], u)
            peak[1] = max(peak[1], s)
            time.sleep(0.002)

    t = threading.Thread(target=sample)
    t.start()
    t0 = time.monotonic()
    os.kill(supervisor, signal.SIGHUP)
    new_pid = None
    while new_pid is None:
        with open(err_path) as f:
            found = re.findall(r"reloaded: process (\d+)", f.read())
        if len(found) > seen:
            new_pid = int(found[seen])
            ready_s = time.monotonic() - t0
        elif time.monotonic() - t0 > 120:
            raise SystemExit("no reload line")
        else:
            time.sleep(0.001)
    while alive(pid) and time.monotonic() - t0 < 120:
        time.sleep(0.002)
    stop.set()
    t.join()
    return new_pid, ready_s, peak[0] - base_used, peak[1] - base_shm


def run(name, binary, tree, cache_bytes, rounds):
    port = free_port()
    err_path = "/tmp/reload_reuse_%s.err" % name
    with open(err_path, "w") as err:
        # the bench is the child subreaper: the new images are reparented here
        proc = subprocess.Popen([binary, "--listen", "127.0.0.1:%d" % port, "--root", tree,
                                 "--cache-bytes", cache_bytes],
                                stdout=subprocess.DEVNULL, stderr=err)
    wait_listening(port)
    rows = []
    for r in range(rounds):
        _, ready_s, used, shm = reload_once(proc.pid, err_path, r)
        rows.append((ready_s, used, shm))
        print("%s reload %d: ready %.3f s, used +%.1f MiB, Shmem +%.1f MiB" %
              (name, r + 1, ready_s, used / MIB, shm / MIB), flush=True)
    os.kill(proc.pid, signal.SIGTERM)
    proc.wait()
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", required=True)
    ap.add_argument("--files", type=int, default=256)
    ap.add_argument("--file-mib", type=int, default=4)
    ap.add_argument("--cache-bytes", default="2G")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("binaries", nargs="+", help="NAME=PATH")
    args = ap.parse_args()
    try:  # orphaned new images come back to us, so wait4 can reap them
        import ctypes
        ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except OSError:
        pass
    make_tree(args.tree, args.files, args.file_mib)
    tree_mib = args.files * args.file_mib
    results = {}
    for spec in args.binaries:
        name, binary = spec.split("=", 1)
        results[name] = run(name, binary, args.tree, args.cache_bytes, args.rounds)
    print()
    print("| build | reload ready (median s) | used rise (median MiB) | Shmem rise (median MiB)"
          " | used rise / tree |")
    print("| --- | --- | --- | --- | --- |")
    for name, rows in results.items():
        ready = statistics.median(r[0] for r in rows)
        used = statistics.median(r[1] for r in rows) / MIB
        shm = statistics.median(r[2] for r in rows) / MIB
        print("| %s | %.3f | %.1f | %.1f | %.1f%% |" % (name, ready, used, shm,
                                                         100.0 * used / tree_mib))


if __name__ == "__main__":
    sys.exit(main())
