"""Reads the manifest //compare:tier_inputs writes (one entry per tier: its binary,
objects, compiler .d files and sources, as paths under the runfiles root, and whether it
serves files with --root), and the command-line options every bench and compare
program shares."""

import json
import os

from bench import servers


def root():
    """The workspace as these programs see it: the runfiles copy under bazel run and
    bazel test (this file is ROOT/bench/tier_manifest.py), else the checkout itself."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(manifest_path):
    """Returns the list of tier dicts, every path made absolute."""
    base = root()
    with open(os.path.join(base, manifest_path)) as f:
        tiers = json.load(f)["tiers"]
    for tier in tiers:
        tier["binary"] = os.path.join(base, tier["binary"])
        for key in ("objects", "depfiles", "sources"):
            tier[key] = [os.path.join(base, p) for p in tier[key]]
    return tiers


def binaries(tiers):
    """[(tier name, binary path)] in column order."""
    return [(t["name"], t["binary"]) for t in tiers]


def serving(tiers):
    """[(tier name, binary path, serves files with --root)] in column order."""
    return [(t["name"], t["binary"], bool(t.get("files"))) for t in tiers]


def peers(args):
    """[(peer name, binary path)] in column order, from add_arguments' options."""
    return [(name, getattr(args, name)) for name in servers.PEERS]


def add_arguments(parser, manifest_required=True):
    """The options every bench and compare program shares: --manifest, a path per peer
    (--nginx, --h2o, --lighttpd), --quick, --pin."""
    parser.add_argument("--manifest", required=manifest_required,
                        help="//compare:tier_inputs' JSON: every tier")
    for name, default in servers.PEER_BINARIES.items():
        parser.add_argument("--" + name, default=default, help="the %s peer" % name)
    parser.add_argument("--quick", action="store_true", help="shorten every measurement")
    parser.add_argument("--pin", action="store_true",
                        help="servers on CPU 0, the load on CPU 1 (taskset)")
