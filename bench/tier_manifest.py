"""Reads the manifest //compare:tier_inputs writes (one entry per tier: its binary,
objects, compiler .d files and sources, as paths under the runfiles root)."""

import json
import os


def root():
    """The runfiles copy of the workspace (run_python.sh exports it), else the cwd."""
    return os.environ.get("APOLLOD_ROOT", os.getcwd())


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


def add_arguments(parser, manifest_required=True):
    """The options every bench and compare program shares: --manifest, --nginx, --quick."""
    parser.add_argument("--manifest", required=manifest_required,
                        help="//compare:tier_inputs' JSON: every tier")
    parser.add_argument("--nginx", default="/usr/sbin/nginx", help="the reference peer")
    parser.add_argument("--quick", action="store_true", help="shorten every measurement")
