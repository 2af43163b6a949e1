#!/usr/bin/env python3
"""What virtual hosts cost a keep-alive request (issue 31, BEHAVIOUR 10.21).

Two builds side by side on the same requests: BASE (e.g. main's) serving one tree with
100 `--redirects` rules, and SITES (the --site build) serving the same tree as --root and
as 10 named sites s0.example .. s9.example, each with the same 100 rules (a --config file
of site sections). Every request carries `Host: s5.example`: BASE serves it from its one
tree, SITES matches the name (one pass over the host, BEHAVIOUR 10.21) and serves site 5.
The rules are those of benchmarks/reports/2026-12-04-redirects-cost.md: none names the
file asked for.

For each path (`/` and a 4 KiB file) and each round, the two servers take turns (the
order alternating by round), each started fresh: `wrk -t1 -cC -dSs -H 'Host: s5.example'`
on keep-alive, the server's CPU read before and after from /proc (bench/cpu_independent.py's
reader: stat and schedstat of the process tree). Medians over the rounds, with the spread.

  python3 -m bench.vhost_cost BASE SITES [--rounds 5] [--duration 3] [--connections 8]
      [--callgrind N]

--rounds 0: no wrk runs (only --callgrind).

--callgrind N: also user-space instructions per request (bench/counts.py --file, N
requests of its 1 KiB file, Host s5.example): BASE with the rules, SITES with the rules
and the 10 sites. Every load is bounded: wrk's duration, the rounds, loopback only.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from bench import counts
from bench import cpu_independent as ci

SITES = 10
HOST_ASKED = "s5.example"
FILE_KIB = 4


def rules_text():
    """The 100 rules of 2026-12-04-redirects-cost.md."""
    lines = ["/old/page-%d.html /new/page-%d.html 301" % (i, i) for i in range(60)]
    lines += ["/section-%d/* /s/%d/:splat 302" % (i, i) for i in range(36)]
    lines += ["/:lang/guide-%d /docs/guide-%d?lang=:lang 302" % (i, i) for i in range(4)]
    return "\n".join(lines) + "\n"


def site_config(root, rules):
    """The --config text: SITES site sections over root, each with the rules."""
    return "".join("site s%d.example %s\n  redirects %s\n" % (i, root, rules)
                   for i in range(SITES))


def make_fixture(work):
    """The tree (index.html, 4k.bin), the rules and the site config under work."""
    root = os.path.join(work, "www")
    os.makedirs(root)
    with open(os.path.join(root, "index.html"), "w") as f:
        f.write("apollo says hello")
    with open(os.path.join(root, "%dk.bin" % FILE_KIB), "wb") as f:
        f.write(os.urandom(FILE_KIB * 1024))
    rules = os.path.join(work, "rules100")
    with open(rules, "w") as f:
        f.write(rules_text())
    conf = os.path.join(work, "sites.conf")
    with open(conf, "w") as f:
        f.write(site_config(root, rules))
    return root, rules, conf


def wrk(port, path, args):
    """wrk -t1 with the Host of a named site; returns the responses."""
    out = subprocess.run(["wrk", "-t1", "-c%d" % args.connections, "-d%ds" % args.duration,
                          "--timeout", "10s", "-H", "Host: " + HOST_ASKED,
                          "http://%s:%d%s" % (ci.HOST, port, path)],
                         capture_output=True, text=True, check=True,
                         timeout=args.duration + 30).stdout
    if "Non-2xx" in out:
        raise RuntimeError("errors from wrk:\n" + out)
    return next(int(l.split()[0]) for l in out.splitlines()
                if len(l.split()) >= 2 and l.split()[1] == "requests")


def one_run(spec, root, path, args):
    """Starts spec (BINARY,ARG...) fresh, loads path, stops it: µs of CPU per response."""
    proc, port = ci.start_apollod(spec, root, [])
    try:
        before = ci.cpu(proc.pid)
        n = wrk(port, path, args)
        after = ci.cpu(proc.pid)
    finally:
        ci.stop(proc)
    return (after[1] - before[1]) * 1e6 / n, (after[0] - before[0]) * 1e6 / n


def callgrind(binary, extra, requests, rules, sites):
    """counts.py's --file instructions per request with the Host of a named site; with
    sites, a --config of the sites over counts.py's own tree (which holds its file)."""
    def per_root(root):
        conf = os.path.join(os.path.dirname(rules), "counts-sites.conf")
        with open(conf, "w") as f:
            f.write(site_config(root, rules))
        return ["--config", conf]
    return counts.instructions_per_request("tier", os.path.abspath(binary), requests,
                                           "file", extra, host=HOST_ASKED,
                                           per_root=per_root if sites else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("base")
    ap.add_argument("sites")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--duration", type=int, default=3)
    ap.add_argument("--connections", type=int, default=8)
    ap.add_argument("--callgrind", type=int, default=0, metavar="N")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="apollod-vhost-cost-")
    try:
        root, rules, conf = make_fixture(work)
        servers = {"base": ",".join([args.base, "--no-sandbox", "--redirects", rules]),
                   "sites": ",".join([args.sites, "--no-sandbox", "--redirects", rules,
                                      "--config", conf])}
        print("loadavg before: %s" % ci.loadavg(), flush=True)
        print("| path | server | schedstat µs (min-max) | stat µs |")
        print("| --- | --- | ---: | ---: |")
        for path in ("/", "/%dk.bin" % FILE_KIB) if args.rounds else ():
            runs = {name: [] for name in servers}
            for r in range(args.rounds):
                order = list(servers) if r % 2 == 0 else list(servers)[::-1]
                for name in order:
                    runs[name].append(one_run(servers[name], root, path, args))
            for name, rs in runs.items():
                sched = [x[0] for x in rs]
                print("| %s | %s | %.2f (%.2f-%.2f) | %.2f |" % (
                    path, name, statistics.median(sched), min(sched), max(sched),
                    statistics.median(x[1] for x in rs)), flush=True)
        print("loadavg after: %s" % ci.loadavg(), flush=True)
        if args.callgrind:
            base = callgrind(args.base, ["--redirects", rules], args.callgrind, rules, False)
            sites = callgrind(args.sites, ["--redirects", rules], args.callgrind, rules, True)
            print("instructions per request (callgrind, --file, Host %s): base %.1f, "
                  "sites %.1f, difference %+.1f" % (HOST_ASKED, base, sites, sites - base))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
