"""The warm-cache benchmark: apollod `full --root DIR` against nginx (`sendfile on`) and
h2o (`file.dir`) serving the same files, with wrk keep-alive at several concurrencies,
and a 304 scenario: every request of the 4 KiB file carries `If-None-Match` with the ETag
that server gave it (each server has its own ETag form), so each answers 304 Not
Modified, no body (checked once before the run; a server that answers anything else
stops the benchmark).

For every file size and concurrency the servers take turns (same machine state) and the
table reports requests/s, MB/s (wrk's received bytes, heads included), and, for apollod,
what its own counters say about the window: response syscalls per cache hit and EAGAIN
retries. The counters are read from /metrics right before and right after each wrk run;
the window between the two renders contains exactly one response that is not a cache
hit, the first /metrics response itself (its writev is counted when it is sent, after it
was rendered), so the ratio is (Δresponse_syscalls - 1) / Δcache_hits.

Usage (bench/BUILD wraps it as //bench:files):
  files.py --manifest M [--quick] [--duration S] [--nginx PATH] [--h2o PATH] [--json OUT]
"""

import argparse
import json
import sys

from bench import load
from bench import servers
from bench import tier_manifest

TIER = "full"
FILES = [("4 KiB", 4 * 1024), ("256 KiB", 256 * 1024), ("4 MiB", 4 * 1024 * 1024)]
PEERS = ["nginx", "h2o"]
CONCURRENCY = [1, 8, 64]
MIB = 1024 * 1024
NOT_MODIFIED_FILE = ("4 KiB", 4 * 1024)  # the 304 scenario's file


def etag_of(port, path):
    """The ETag header a server sends for a GET of path (bytes, as sent)."""
    request = ("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path).encode()
    head = servers.fetch(port, request).partition(b"\r\n\r\n")[0]
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"etag":
            return value.strip().decode("ascii")
    raise RuntimeError("port %d sent no ETag for %s" % (port, path))


def not_modified_scenario(server, c):
    """The 304 scenario at concurrency c for server: If-None-Match with its own ETag of
    the file, after checking once that it answers 304 to it."""
    label, size = NOT_MODIFIED_FILE
    path = servers.file_url(size)
    header = "If-None-Match: " + etag_of(server.port, path)
    request = ("GET %s HTTP/1.1\r\nHost: x\r\n%s\r\nConnection: close\r\n\r\n"
               % (path, header)).encode()
    status = servers.fetch(server.port, request).split(b"\r\n", 1)[0]
    if b" 304 " not in status + b" ":
        raise RuntimeError("%s answered %r to %s" % (server.name, status, header))
    return {"name": "%s 304 c=%d" % (label, c), "connections": c, "headers": [header],
            "file": size}


def window(result):
    """(response syscalls per cache hit, EAGAIN retries) over one wrk run, from the
    daemon's counters; (None, None) for a server without them."""
    before, after = result["counters_before"], result["counters_after"]
    if not before or not after:
        return None, None
    hits = after["cache_hits"] - before["cache_hits"]
    calls = after["response_syscalls"] - before["response_syscalls"] - 1
    eagains = after["write_eagains"] - before["write_eagains"]
    return (calls / hits if hits else None), eagains


def measure(binary, peers, duration_s):
    """Runs every (file, concurrency) pair against apollod and each peer (name -> binary
    path). Returns rows."""
    rows = []
    with servers.ServingTree(sizes=[size for _, size in FILES],
                             prefix="apollod-files-") as tree:
        running = [servers.start_tier(TIER, binary, extra_args=["--root", tree.root])]
        try:
            for name in PEERS:
                running.append(servers.start_peer(name, peers[name], tree.workdir,
                                                  tree.root))
            # (row label, concurrency, file size, the 304 scenario or the plain one)
            cases = [(label, c, size, False) for label, size in FILES for c in CONCURRENCY]
            cases += [(NOT_MODIFIED_FILE[0] + " 304", c, NOT_MODIFIED_FILE[1], True)
                      for c in CONCURRENCY]
            for label, c, size, not_modified in cases:
                for server in running:
                    scenario = (not_modified_scenario(server, c) if not_modified else
                                {"name": "%s c=%d" % (label, c), "connections": c,
                                 "headers": [], "file": size})
                    r = load.run_wrk(server, scenario, duration_s)
                    per_hit, eagains = window(r)
                    rows.append({
                        "file": label, "connections": c, "server": server.name,
                        "rps": r["rps"], "mib_per_s": r["bytes_per_s"] / MIB,
                        "errors": sum(r["errors"].values()),
                        "response_syscalls_per_hit": per_hit,
                        "write_eagains": eagains,
                    })
        finally:
            servers.stop_all(running)
    return rows


def render(rows):
    lines = ["| file | c | server | requests/s | MiB/s | MiB/s vs nginx | "
             "response syscalls / hit | EAGAIN retries | errors |",
             "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    nginx = {(r["file"], r["connections"]): r for r in rows if r["server"] == "nginx"}
    for r in rows:
        base = nginx.get((r["file"], r["connections"]))
        vs = "%.2f×" % (r["mib_per_s"] / base["mib_per_s"]) if base and base["mib_per_s"] else "—"
        per_hit = ("%.6f" % r["response_syscalls_per_hit"]
                   if r["response_syscalls_per_hit"] is not None else "—")
        eagains = "—" if r["write_eagains"] is None else "{:,}".format(r["write_eagains"])
        lines.append("| %s | %d | %s | {:,} | {:,} | %s | %s | %s | %d |".format(
            int(round(r["rps"])), int(round(r["mib_per_s"])))
            % (r["file"], r["connections"], r["server"], vs, per_hit, eagains, r["errors"]))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    tier_manifest.add_arguments(parser)
    parser.add_argument("--duration", type=int, help="seconds per wrk run")
    parser.add_argument("--json", help="also write the rows as JSON here")
    args = parser.parse_args()
    tiers = dict(tier_manifest.binaries(tier_manifest.load(args.manifest)))
    duration = args.duration or (load.QUICK_DURATION_S if args.quick else
                                 load.DEFAULT_DURATION_S)
    rows = measure(tiers[TIER], {name: getattr(args, name) for name in PEERS}, duration)
    print(render(rows))
    print("\nwrk keep-alive, %d s per run, 2 threads at most; %s `--root DIR` against "
          "nginx `sendfile on` and h2o `file.dir` serving the same files in the same run; "
          "\"304\" rows send If-None-Match with each server's own ETag."
          % (duration, TIER))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
        print("json: " + args.json, file=sys.stderr)


if __name__ == "__main__":
    main()
