"""Time from exec to first complete response, every tier and peer, with hyperfine.

hyperfine times //bench:first_response (bench/first_response.c), which starts the server, waits until it can take a
connection (a tier's "listening on" line; a peer and min, which announce nothing: connect
until accepted), sends `GET /`, reads the whole response and kills the server. Each peer
runs with the generated config of bench/servers.py on a port picked once; so does min,
given the port as its argument.

Usage (bench/BUILD wraps it as //bench:startup):
  startup.py --manifest M --first-response BIN [--quick] [--runs N] [--json OUT]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from bench import servers
from bench import tier_manifest

DEFAULT_RUNS = 100
QUICK_RUNS = 5
WARMUP_RUNS = 3
HYPERFINE_BOUND_S = 600  # generous: each run is bounded by first_response's own 5 s


def commands(tiers, peers, first_response, tree):
    """[(name, argv)] for hyperfine: one per tier, then one per peer (its config in its
    own directory under tree.workdir, serving tree.root)."""
    cmds = []
    for name, binary in tiers:
        if servers.announces(binary):
            cmds.append((name, [first_response, "--announce", "--"] +
                         servers.tier_argv(binary)))
        else:  # min: a port of its own, as a peer's
            port = servers.free_port()
            cmds.append((name, [first_response, "--port", str(port), "--"] +
                         servers.tier_argv(binary, port=port)))
    for name, binary in peers:
        workdir = os.path.join(tree.workdir, name)
        os.makedirs(workdir, exist_ok=True)
        os.chmod(workdir, 0o755)
        port = servers.free_port()
        argv = servers.write_peer_conf(name, binary, workdir, port, tree.root)
        cmds.append((name, [first_response, "--port", str(port), "--"] + argv))
    return cmds


def parse_hyperfine(text, names):
    """hyperfine's --export-json text -> {name: {"median_s", "mean_s", "stddev_s",
    "min_s", "max_s", "runs"}}, its results taken in the order of names."""
    results = json.loads(text)["results"]
    if len(results) != len(names):
        raise ValueError("hyperfine has %d results for %d commands"
                         % (len(results), len(names)))
    return {name: {"median_s": r["median"], "mean_s": r["mean"], "stddev_s": r["stddev"],
                   "min_s": r["min"], "max_s": r["max"], "runs": len(r["times"])}
            for name, r in zip(names, results)}


def measure(tiers, peers, first_response, runs, json_out, log=sys.stderr):
    """Runs hyperfine over every command, writing its JSON to json_out. Returns
    parse_hyperfine's dict."""
    with servers.ServingTree(sizes=[], prefix="apollod-startup-") as tree:
        argv = ["hyperfine", "-N", "--style", "basic", "--warmup", str(WARMUP_RUNS),
                "--runs", str(runs), "--export-json", json_out]
        names = []
        for name, cmd in commands(tiers, peers, first_response, tree):
            names.append(name)
            argv += ["-n", name, " ".join(cmd)]
        subprocess.run(argv, check=True, stdout=log, timeout=HYPERFINE_BOUND_S)
    with open(json_out) as f:
        return parse_hyperfine(f.read(), names)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    tier_manifest.add_arguments(ap)
    ap.add_argument("--first-response", required=True)
    ap.add_argument("--runs", type=int)
    ap.add_argument("--json", help="hyperfine's JSON goes here (default: a new temp dir)")
    args = ap.parse_args()
    runs = args.runs or (QUICK_RUNS if args.quick else DEFAULT_RUNS)
    json_out = args.json or os.path.join(tempfile.mkdtemp(prefix="apollod-startup-"),
                                         "startup.json")
    tiers = tier_manifest.binaries(tier_manifest.load(args.manifest))
    first_response = os.path.join(tier_manifest.root(), args.first_response)
    summary = measure(tiers, tier_manifest.peers(args), first_response, runs, json_out,
                      log=sys.stdout)
    print()
    for name, s in summary.items():
        print("%-12s median %8.1f us  mean %8.1f us  (%d runs)"
              % (name, s["median_s"] * 1e6, s["mean_s"] * 1e6, s["runs"]))
    print("hyperfine JSON: " + json_out)


if __name__ == "__main__":
    main()
