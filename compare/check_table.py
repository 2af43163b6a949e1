"""The comparison's test: runs `table.py --quick` and checks that every row and every
column is present and sane. It checks shape and invariants, never speed.

Checks (each failure is printed with its row and column):
  - the Markdown has a header with every tier and every peer, and a line per row;
  - every tier has a number in every row it can have (min: no files, no counters), every
    peer in every row peers have; numbers are finite and not negative;
  - every measured figure has positive ratios to nginx and to the best peer (in a --quick
    run, a server that completed no response in a scenario has no figure there, nor a
    p99 when wrk's --timeout outran every response);
  - server CPU per request is positive and its user / system split adds up to it;
  - every tier: zero undefined symbols and zero shared libraries (static, imports
    nothing); ELF, .text, source bytes and the request path are positive;
  - success shares lie in (0, 1]; each tier's request path is shorter than its total;
  - min stays the floor: within static_facts.MIN_BUDGET (total and request path);
  - chart.png is a PNG and chart.svg well-formed XML with a bar per figure.
Usage: check_table.py --manifest M --first-response BIN (the //compare:table args).
"""

import json
import math
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

from bench import load
from compare import static_facts
from compare import table

HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def check(ok, what):
    """Prints and records one check; returns ok."""
    print(("ok   - " if ok else "FAIL - ") + what)
    if not ok:
        failures.append(what)
    return ok


def is_number(v):
    return isinstance(v, (int, float)) and math.isfinite(v)


def wants_value(key, column, result, declared_peers):
    """Whether the cell (row key, column) must hold a figure."""
    tier = column in result["tiers"]
    files_row = any(key.endswith("/" + s["name"]) and "file" in s for s in load.SCENARIOS)
    if not tier:
        return column in declared_peers.get(key, ())
    if (key.endswith("/" + load.LOGGED_SCENARIO["name"])
            and column not in result["details"]["access_log_tiers"]):
        return False
    if files_row and column not in result["details"]["files_served_by"]:
        return False
    if key.startswith("syscalls/"):  # from /metrics: the routed tiers only
        return column != "min"
    if column in result["details"].get("callgrind_unsupported", {}):
        return not key.startswith("instructions_per_")
    return True


def none_completed(by_key, key, column, result):
    """Whether, in a --quick run, the server of column completed no response at all in the
    scenario of row key (a 16 MiB download at 1 s under a loaded CI machine can): then its
    requests/s is 0 and it has no CPU per request, latency or ratio to show (the syscalls
    row may: bench/load.py divides by the daemon's count of the requests it took). A full
    run must have every figure."""
    scenario = key.split("/", 1)[1] if "/" in key else None
    rps = by_key.get("rps/" + scenario) if scenario else None
    return bool(result["details"].get("quick") and rps is not None
                and rps["values"].get(column) == 0)


def untimed(key, column, result):
    """Whether, in a --quick run, wrk timed no response of column's server in the scenario
    of p99 row key: each one it completed took longer than its --timeout
    (load.WRK_TIMEOUT_S), which wrk counts as a timeout error and leaves out of its
    histogram (a 16 MiB download from nginx at 0.39 requests/s, four builds beside it,
    did). Then that p99 cell has no figure, and the row no ratio to that server. The
    witness is wrk's own count of timeouts in that scenario, never the missing figure
    alone."""
    if not (key.startswith("p99/") and result["details"].get("quick")):
        return False
    wrk = result["details"]["wrk"].get(key.split("/", 1)[1], {}).get(column)
    return bool(wrk and wrk["p50_us"] is None and wrk["errors"]["timeout"] > 0)


def no_figure(by_key, key, column, result):
    """Whether the measured cell (key, column) may lack its figure (none_completed,
    untimed)."""
    return none_completed(by_key, key, column, result) or untimed(key, column, result)


def check_ratio(by_key, row, column, base, peers, result):
    """Checks the cell's ratio to base (nginx or best_peer): positive, or None when the
    base has no figure (for best_peer: when no peer of the row has one)."""
    key = row["key"]
    r = row["ratio_to_" + base].get(column)
    bases = ["nginx"] if base == "nginx" else peers
    if all(no_figure(by_key, key, peer, result) for peer in bases):
        check(r is None, "%s / %s: no ratio to %s, which has no figure in the --quick"
              " window (%r)" % (key, column, base, r))
        return
    check(is_number(r) and r > 0, "%s / %s ratio to %s > 0 (%r)" % (key, column, base, r))


def check_rows(result, rows, markdown, declared):
    columns = result["columns"]
    # row key -> the peers that have it
    declared_peers = {key: (table.PEERS if peers_have is True else peers_have)
                      for key, _, _, peers_have, _ in declared if peers_have}
    check([row["key"] for row in rows] == [d[0] for d in declared],
          "rows in the declared order")
    by_key = {row["key"]: row for row in rows}
    for row in rows:
        key = row["key"]
        check("| %s |" % row["label"] in markdown, "Markdown has row '%s'" % row["label"])
        for column in columns:
            value = row["values"].get(column)
            if not wants_value(key, column, result, declared_peers):
                check(value is None, "%s / %s is empty" % (key, column))
                continue
            if none_completed(by_key, key, column, result):
                if key.startswith("syscalls/"):  # over the daemon's own requests_total,
                    # which counts a download still in flight at the window's end
                    check(value is None or is_number(value) and value >= 0,
                          "%s / %s: a number >= 0 or none (%r)" % (key, column, value))
                    continue
                check(value in (None, 0, [0, 0]),
                      "%s / %s: no response completed in the --quick window (requests/s 0),"
                      " so no figure (%r)" % (key, column, value))
                continue
            if untimed(key, column, result):
                check(value is None, "%s / %s: every response outlasted wrk's --timeout,"
                      " so no p99 (%r)" % (key, column, value))
                continue
            if row["unit"] == "split":
                total = next(r for r in rows if r["key"] == "cpu/" + key.split("/", 1)[1])
                ok = (isinstance(value, list) and len(value) == 2
                      and all(is_number(v) and v >= 0 for v in value)
                      and math.isclose(sum(value), total["values"][column], rel_tol=1e-6))
                check(ok, "%s / %s: user + system = the CPU row (%r)" % (key, column, value))
                continue
            if not check(is_number(value) and value >= 0, "%s / %s is a number >= 0 (%r)"
                         % (key, column, value)):
                continue
            if key.startswith("cpu/"):
                check(value > 0, "%s / %s: the server used CPU" % (key, column))
            if "ratio_to_nginx" in row and "nginx" in declared_peers.get(key, ()):
                for base in ("nginx", "best_peer"):
                    check_ratio(by_key, row, column, base, declared_peers[key], result)
            if key == "success_share":
                check(0 < value <= 1, "%s / %s in (0, 1]" % (key, column))


def main():
    out = os.path.join(os.environ.get("TEST_TMPDIR") or tempfile.mkdtemp(), "compare")
    run = subprocess.run([sys.executable, os.path.join(HERE, "table.py"), "--quick",
                          "--out", out] + sys.argv[1:], capture_output=True, text=True,
                         timeout=1200, env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                             sys.path)))
    sys.stderr.write(run.stderr)
    check(run.returncode == 0, "table.py --quick exits 0 (status %d)" % run.returncode)
    if run.returncode != 0:
        return
    markdown = run.stdout
    print(markdown)
    with open(os.path.join(out, "table.json")) as f:
        result = json.load(f)
    with open(os.path.join(out, "chart.png"), "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", "chart.png is a PNG")
    svg = ElementTree.parse(os.path.join(out, "chart.svg")).getroot()
    bars = svg.findall(".//{http://www.w3.org/2000/svg}path")
    check(len(bars) > len(load.SCENARIOS) * len(result["columns"]),
          "chart.svg parses and has a shape per scenario and server (%d paths)" % len(bars))
    for name in ("wrk.txt", "startup.json"):
        check(os.path.getsize(os.path.join(out, name)) > 0, name + " is written")

    tiers = result["tiers"]
    columns = result["columns"]
    check(columns == tiers + table.PEERS, "columns are the tiers then the peers")
    check(table.PEERS == ["nginx", "h2o", "lighttpd"], "the peers are nginx, h2o, lighttpd")
    check(len(tiers) >= 3 and "min" in tiers and "full" in tiers, "min and full are tiers")
    header = markdown.splitlines()[0]
    for column in columns:
        check(" %s |" % column in header, "Markdown header has column " + column)
    declared = ([d + (None,) for d in table.STATIC_ROWS]
                + table.measured_rows(load.SCENARIOS))
    check_rows(result, result["rows"], markdown, declared)
    keys = {row["key"] for row in result["rows"]}
    for scenario in load.SCENARIOS:
        for prefix in ("rps/", "cpu/", "cpu_split/"):
            check(prefix + scenario["name"] in keys, prefix + scenario["name"] + " row")

    rows = {row["key"]: row for row in result["rows"]}
    for tier in tiers:
        v = {key: rows[key]["values"][tier] for key in rows}
        check(v["undefined_symbols"] == 0, tier + ": zero undefined symbols")
        check(v["shared_libraries"] == 0, tier + ": zero shared libraries")
        for key in ("elf_bytes", "text_bytes", "source_bytes", "source_lines",
                    "object_bytes", "request_path_instructions", "instructions_per_request",
                    "syscalls_per_request", "first_response_us", "peak_rss_kib"):
            if v[key] is None and tier in result["details"].get("callgrind_unsupported", {}):
                continue  # empty on purpose, with the reason in the details
            check(v[key] > 0, "%s: %s > 0" % (tier, key))
        check(v["request_path_instructions"] < v["instructions_total"],
              tier + ": request path shorter than the whole program")
    for key, budget in static_facts.MIN_BUDGET.items():
        value = rows[key]["values"]["min"]
        check(value <= budget, "min: %s %s within the floor's %d" % (key, value, budget))
    for peer in table.PEERS:
        check(rows["shared_libraries"]["values"][peer] > 0,
              peer + ": dynamically linked (its DT_NEEDED count is read)")
    check_compressed(result["details"].get("compressed"), markdown)


def check_compressed(c, markdown):
    """The compressed rows (bench/compressed.py): each server answered 200 with bytes
    that decode to the file where this can decode them, and every figure is there."""
    check(c is not None, "the compressed rows ran")
    if not c:
        return
    for scenario, per in c["rows"].items():
        check("**%s**" % scenario in markdown, "Markdown has the table of " + scenario)
        for label, r in per.items():
            what = "%s / %s" % (scenario, label)
            check(r["status"] == 200 and r["decodes"] is not False, what + ": 200, the file")
            for key in ("cpu_us", "bytes_per_response", "rps"):
                check(is_number(r[key]) and r[key] > 0, "%s: %s > 0 (%r)" % (what, key, r[key]))


if __name__ == "__main__":
    main()
    print("%d failed" % len(failures))
    sys.exit(1 if failures else 0)
