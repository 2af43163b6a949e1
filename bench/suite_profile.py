"""Where a `bazel test` run's time went, from its --profile (bench/suite_time.sh writes
one per half): compile actions (count, summed action time, when the last one ended) and
each test action that took longer than a few seconds, its start and end from the start of
the build. Summed action time counts time an action waited for a CPU: read it beside the
wall clock, not as CPU time.

Usage: python3 bench/suite_profile.py PROFILE [PROFILE...]"""
import json
import sys

LONG_TEST_S = 5  # shorter tests are left out of the listing


def actions(path):
    """(name, start s, end s) of each action in the profile at path, from the build's start."""
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    zero = min(e["ts"] for e in events if "ts" in e)
    return [(e["name"], (e["ts"] - zero) / 1e6, (e["ts"] + e["dur"] - zero) / 1e6)
            for e in events
            if e.get("ph") == "X" and e.get("cat") == "action processing"]


def report(path):
    """Prints the summary of one profile."""
    done = actions(path)
    compiles = [a for a in done if a[0].startswith("Compiling")]
    tests = sorted((a for a in done if a[0].startswith("Testing")), key=lambda a: a[1])
    print(path)
    if compiles:
        print("  compiles: %d actions, %.0f s summed, the last ended at %.0f s" % (
            len(compiles), sum(end - start for _, start, end in compiles),
            max(end for _, _, end in compiles)))
    print("  build ended at %.0f s" % max(end for _, _, end in done))
    for name, start, end in tests:
        if end - start >= LONG_TEST_S:
            print("  %5.0f s to %5.0f s  %s" % (start, end, name.split()[1]))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        report(path)


if __name__ == "__main__":
    main()
