"""The comparison's test: runs `table.py --quick` and checks that every row and every
column is present and sane. It checks shape and invariants, never speed.

Checks (each failure is printed with its row and column):
  - the Markdown has a header with every tier and nginx, and a line per declared row;
  - every tier has a number in every row; nginx in every measured row and in the static
    rows it has (the others are "—"); numbers are finite and not negative;
  - every measured figure has positive ratios to nginx and to min;
  - every tier: zero undefined symbols and zero shared libraries (static, imports
    nothing); ELF, .text, source bytes and the request path are positive;
  - success shares lie in (0, 1]; each tier's request path is shorter than its total;
  - chart.svg is well-formed XML with the bars.
Usage: check_table.py --manifest M --first-response BIN (the //compare:table args).
"""

import json
import math
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bench"))
import load  # noqa: E402
import table  # noqa: E402

failures = []


def check(ok, what):
    print(("ok   - " if ok else "FAIL - ") + what)
    if not ok:
        failures.append(what)


def is_number(v):
    return isinstance(v, (int, float)) and math.isfinite(v)


def main():
    out = os.path.join(os.environ.get("TEST_TMPDIR") or tempfile.mkdtemp(), "compare")
    run = subprocess.run([sys.executable, os.path.join(HERE, "table.py"), "--quick",
                          "--out", out] + sys.argv[1:], capture_output=True, text=True,
                         timeout=1200)
    sys.stderr.write(run.stderr)
    check(run.returncode == 0, "table.py --quick exits 0 (status %d)" % run.returncode)
    if run.returncode != 0:
        return
    markdown = run.stdout
    print(markdown)
    with open(os.path.join(out, "table.json")) as f:
        result = json.load(f)
    svg = ElementTree.parse(os.path.join(out, "chart.svg")).getroot()
    bars = svg.findall("{http://www.w3.org/2000/svg}rect")
    check(len(bars) > len(load.SCENARIOS) * len(result["columns"]),
          "chart.svg parses and has a bar per scenario and server (%d rects)" % len(bars))

    tiers = result["tiers"]
    columns = result["columns"]
    check(columns == tiers + [table.NGINX], "columns are the tiers then nginx")
    check(len(tiers) >= 3 and "min" in tiers and "full" in tiers, "min and full are tiers")
    header = markdown.splitlines()[0]
    for column in columns:
        check(" %s |" % column in header, "Markdown header has column " + column)

    declared = table.STATIC_ROWS + table.measured_rows(load.SCENARIOS)
    expected = [key for key, *_ in declared]
    rows = {row["key"]: row for row in result["rows"]}
    check([row["key"] for row in result["rows"]] == expected, "rows in the declared order")
    for scenario in load.SCENARIOS:
        check("rps/" + scenario["name"] in rows, "requests/s row for " + scenario["name"])
    nginx_has = {key for key, _, _, has in declared if has}
    script = os.path.exists(os.path.join(os.environ.get("APOLLOD_ROOT", ""),
                                         table.CALLGRIND_SCRIPT))

    for key in expected:
        row = rows.get(key)
        if row is None:
            check(False, "row %s present" % key)
            continue
        check("| %s |" % row["label"] in markdown, "Markdown has row '%s'" % row["label"])
        for column in columns:
            value = row["values"].get(column)
            counters_row = key.startswith("syscalls/")  # from /metrics: routed tiers only
            if column == table.NGINX:
                wants_value = key in nginx_has
            elif counters_row:
                wants_value = column != "min"
            elif column in result["details"].get("callgrind_unsupported", {}):
                wants_value = not key.startswith("instructions_per_")
            else:
                wants_value = key != "instructions_per_short_request" or script
            if not wants_value:
                check(value is None, "%s / %s is empty" % (key, column))
                continue
            check(is_number(value) and value >= 0, "%s / %s is a number >= 0 (%r)"
                  % (key, column, value))
            if row["section"] == "measured":
                for base in table.RATIO_BASES:
                    if base == table.NGINX and key not in nginx_has:
                        continue  # no nginx figure to divide by
                    if base == "min" and counters_row:
                        continue  # min keeps no counters
                    r = row["ratio_to_" + base].get(column)
                    check(is_number(r) and r > 0, "%s / %s ratio to %s > 0 (%r)"
                          % (key, column, base, r))
            if key.startswith("success/"):
                check(0 < value <= 1, "%s / %s in (0, 1]" % (key, column))

    for tier in tiers:
        v = {key: rows[key]["values"][tier] for key in rows}
        check(v["undefined_symbols"] == 0, tier + ": zero undefined symbols")
        check(v["shared_libraries"] == 0, tier + ": zero shared libraries")
        for key in ("elf_bytes", "text_bytes", "source_bytes", "source_lines",
                    "object_bytes", "request_path_instructions", "instructions_per_request",
                    "syscalls_per_request", "first_response_us", "peak_rss_kib"):
            if v[key] is None and tier in result["details"].get("callgrind_unsupported", {}):
                continue  # checked above: empty, with the reason in the details
            check(v[key] > 0, "%s: %s > 0" % (tier, key))
        check(v["request_path_instructions"] < v["instructions_total"],
              tier + ": request path shorter than the whole program")
    check(rows["shared_libraries"]["values"][table.NGINX] > 0,
          "nginx: dynamically linked (its DT_NEEDED count is read)")


if __name__ == "__main__":
    main()
    print("%d failed" % len(failures))
    sys.exit(1 if failures else 0)
