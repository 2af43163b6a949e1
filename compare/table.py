"""The comparison: every tier side by side with the nginx reference peer.

Prints a Markdown table on standard output and writes the same data as JSON and an SVG
chart (their paths go to standard error at the end). Static rows come from Bazel's own
view of each tier (see tier_inputs.bzl) and the ELF files; measured rows run the
daemons (bench/). Every measured figure is also given as a ratio to nginx and to min,
all measured in the same session. --quick shortens every measurement.

Usage (compare/BUILD wraps it as //compare:table):
  table.py --manifest M --first-response BIN [--quick] [--out DIR] [--nginx PATH]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bench"))
import aarch64_section  # noqa: E402
import chart  # noqa: E402
import counts  # noqa: E402
import load  # noqa: E402
import startup  # noqa: E402
import static_facts  # noqa: E402
import tier_manifest  # noqa: E402

NGINX = "nginx"
RATIO_BASES = (NGINX, "min")  # every measured figure is also a ratio to these columns
CALLGRIND_SCRIPT = "bench/callgrind_per_request.sh"
CALLGRIND_REQUESTS = {False: 2000, True: 20}  # by --quick
STRACE_REQUESTS = {False: 200, True: 20}

# The static rows: (key in static_facts' dicts, label, unit, nginx has it).
STATIC_ROWS = [
    ("source_bytes", "source bytes (files compiled, headers included)", "B", False),
    ("source_lines", "source lines", "lines", False),
    ("object_bytes", "object bytes (.o files linked)", "B", False),
    ("elf_bytes", "ELF bytes", "B", True),
    ("text_bytes", ".text bytes", "B", True),
    ("rodata_bytes", ".rodata bytes", "B", True),
    ("data_bytes", ".data bytes", "B", True),
    ("bss_bytes", ".bss bytes", "B", True),
    ("shared_libraries", "shared libraries loaded (DT_NEEDED)", "count", True),
    ("undefined_symbols", "undefined symbols", "count", True),
    ("instructions_total", "instructions in total (objdump -d, no padding)", "count", True),
    ("request_path_instructions", "instructions on the request path (static)", "count", False),
]


def measured_rows(scenarios):
    """The measured rows: (key, label, unit, nginx has it), like STATIC_ROWS. Load rows
    come from the scenario list, so a keep-alive scenario adds its rows by being added to
    bench/load.py."""
    rows = [
        ("instructions_per_request", "user-space instructions per request (callgrind)",
         "count", True),
        ("instructions_per_short_request",
         "the same, shorter request (callgrind_per_request.sh)", "count", False),
        ("syscalls_per_request", "syscalls per request (strace -f -c)", "count", True),
    ]
    for s in scenarios:
        name = s["name"]
        rows.append(("rps/" + name, "requests/s, %s" % name, "req/s", True))
        if s.get("latency", True):
            rows += [
                ("p50/" + name, "p50 latency, %s" % name, "us", True),
                ("p99/" + name, "p99 latency, %s" % name, "us", True),
            ]
        rows += [
            ("success/" + name, "success share, %s" % name, "share", True),
            ("syscalls/" + name, "syscalls per request (daemon counters), %s" % name,
             "count", False),
        ]
    rows += [
        ("first_response_us", "exec to first response, median (hyperfine)", "us", True),
        ("peak_rss_kib", "peak resident memory after the load (VmHWM)", "KiB", True),
    ]
    return rows


def log(message):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), message), file=sys.stderr, flush=True)


def script_callgrind_per_request(binary, requests, root):
    """bench/callgrind_per_request.sh's figure for a tier (its own shorter request:
    `GET / HTTP/1.1`, `Host: x`, `Connection: close`), or None when the script is absent."""
    script = os.path.join(root, CALLGRIND_SCRIPT)
    if not os.path.exists(script):
        return None
    out = subprocess.run(["bash", script, binary, str(requests)], capture_output=True,
                         text=True, check=True, timeout=600).stdout
    return float(out.split()[-1])


def collect(args):
    """Runs everything; returns the JSON-able result (columns, rows, details)."""
    root = tier_manifest.root()
    tiers = tier_manifest.load(args.manifest)
    names = [t["name"] for t in tiers]
    columns = names + [NGINX]
    servers_list = tier_manifest.binaries(tiers)
    everyone = servers_list + [(NGINX, args.nginx)]
    values = {}   # row key -> {column: number}
    details = {"quick": args.quick, "request_path_functions": {}, "source_files": {},
               "syscalls_by_name": {}}

    log("static facts")
    for tier in tiers:
        facts = static_facts.tier_facts(tier, root)
        details["request_path_functions"][tier["name"]] = facts.pop("request_path_functions")
        details["source_files"][tier["name"]] = facts.pop("source_files")
        for key, value in facts.items():
            values.setdefault(key, {})[tier["name"]] = value
    for key, value in static_facts.binary_facts(args.nginx).items():
        values.setdefault(key, {})[NGINX] = value

    quick = args.quick
    for name, binary in everyone:
        log("callgrind: " + name)
        values.setdefault("instructions_per_request", {})[name] = \
            counts.instructions_per_request(name, binary, CALLGRIND_REQUESTS[quick])
        if name != NGINX:  # the script starts a daemon tier by its command line
            values.setdefault("instructions_per_short_request", {})[name] = \
                script_callgrind_per_request(binary, CALLGRIND_REQUESTS[quick], root)
        log("strace: " + name)
        total, by_name = counts.syscalls_per_request(name, binary, STRACE_REQUESTS[quick])
        values.setdefault("syscalls_per_request", {})[name] = total
        details["syscalls_by_name"][name] = by_name

    duration = load.QUICK_DURATION_S if quick else load.DEFAULT_DURATION_S
    rounds = load.QUICK_ROUNDS if quick else load.DEFAULT_ROUNDS
    log("load: %d rounds of %d scenarios x %d servers, %d s each"
        % (rounds, len(load.SCENARIOS), len(everyone), duration))
    loaded = load.measure(servers_list, args.nginx, duration, rounds, log=log)
    details["wrk"] = {}
    details["wrk_text"] = os.path.join(args.out, "wrk.txt")
    with open(details["wrk_text"], "w") as wrk_text:
        for scenario, per_server in loaded["scenarios"].items():
            for server, r in per_server.items():
                for i, text in enumerate(r["wrk_output"]):
                    wrk_text.write("== %s, %s, round %d\n%s\n" % (scenario, server, i + 1, text))
    for scenario, per_server in loaded["scenarios"].items():
        for server, r in per_server.items():
            values.setdefault("rps/" + scenario, {})[server] = r["rps"]
            values.setdefault("p50/" + scenario, {})[server] = r["p50_us"]
            values.setdefault("p99/" + scenario, {})[server] = r["p99_us"]
            values.setdefault("success/" + scenario, {})[server] = r["success_share"]
            if r["syscalls_per_request"] is not None:
                values.setdefault("syscalls/" + scenario, {})[server] = \
                    r["syscalls_per_request"]
            details["wrk"].setdefault(scenario, {})[server] = {
                k: r[k] for k in ("requests", "errors")}
    values["peak_rss_kib"] = loaded["peak_rss_kib"]

    log("start-up: hyperfine")
    hyperfine_json = os.path.join(args.out, "startup.json")
    runs = startup.QUICK_RUNS if quick else startup.DEFAULT_RUNS
    first = startup.measure(servers_list, args.nginx,
                            os.path.join(root, args.first_response), runs, hyperfine_json,
                            log=sys.stderr)
    values["first_response_us"] = {name: s["median_s"] * 1e6 for name, s in first.items()}
    details["hyperfine_json"] = hyperfine_json
    details["load_duration_s"] = duration
    details["load_rounds"] = rounds

    rows = []
    sections = [("static", STATIC_ROWS), ("measured", measured_rows(load.SCENARIOS))]
    for section, declared in sections:
        for key, label, unit, nginx_has_it in declared:
            row_values = {c: values.get(key, {}).get(c) for c in columns}
            if not nginx_has_it:
                row_values[NGINX] = None
            row = {"key": key, "label": label, "unit": unit, "section": section,
                   "values": row_values}
            if section == "measured":
                for base in RATIO_BASES:
                    row["ratio_to_" + base] = {c: ratio(row_values[c], row_values[base])
                                               for c in columns}
            rows.append(row)
    return {"columns": columns, "tiers": names, "rows": rows, "details": details}


def ratio(value, base):
    if value is None or not base:
        return None
    return value / base


def fmt_number(value, unit):
    """A cell's number as people read it: thousands grouped, shares as percentages."""
    if value is None:
        return "—"
    if unit == "share":
        return "%.2f%%" % (100 * value)
    if isinstance(value, float) and abs(value) < 100 and value != int(value):
        return "%.2f" % value if abs(value) < 10 else "%.1f" % value
    return "{:,}".format(int(round(value)))


def fmt_ratio(value):
    """Three significant digits: 0.00213× stays readable next to 471×."""
    if value is None:
        return "—"
    return ("%.3g×" % value) if value < 100 else "%d×" % round(value)


def render_markdown(result):
    """The table as Markdown: static cells are values; measured cells are
    `value (×nginx / ×min)`."""
    columns = result["columns"]
    lines = ["| row | " + " | ".join(columns) + " |",
             "| --- |" + " ---: |" * len(columns)]
    for row in result["rows"]:
        cells = []
        for c in columns:
            text = fmt_number(row["values"][c], row["unit"])
            if row["section"] == "measured" and row["values"][c] is not None:
                text += " (%s / %s)" % (fmt_ratio(row["ratio_to_" + NGINX][c]),
                                        fmt_ratio(row["ratio_to_min"][c]))
            cells.append(text)
        lines.append("| %s | %s |" % (row["label"], " | ".join(cells)))
    d = result["details"]
    notes = [
        "",
        "Measured cells: value (ratio to nginx / ratio to min), all from this one run.",
        "Latencies in µs. Load: wrk, one new connection per request (`Connection: close`), "
        "%d s per server and scenario, 2 wrk threads at most, median of %d rounds."
        % (d["load_duration_s"], d["load_rounds"]),
        "Syscalls per request: " + "; ".join(
            "%s: %s" % (name, ", ".join("%s %.2g" % kv for kv in sorted(calls.items())))
            for name, calls in d["syscalls_by_name"].items()) + ".",
        "Instructions and syscalls per request: wrk's own request (`GET /`, `Host`, "
        "`Connection: close`), N sequential connections minus a start-up-only run "
        "(bench/counts.py); %s sends a shorter request (`Host: x`) and starts "
        "daemon tiers only." % CALLGRIND_SCRIPT,
    ]
    if d["quick"]:
        notes.append("--quick run: short measurements, figures are rough.")
    return "\n".join(lines + notes) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    tier_manifest.add_arguments(ap)
    ap.add_argument("--first-response", required=True)
    ap.add_argument("--out", help="directory for table.md, table.json, chart.svg")
    ap.add_argument("--aarch64-manifest", help="adds the aarch64 section (aarch64_section.py)")
    args = ap.parse_args()
    args.out = args.out or os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR") \
        or tempfile.mkdtemp(prefix="apollod-compare-")
    os.makedirs(args.out, exist_ok=True)
    started = time.monotonic()
    result = collect(args)
    result["details"]["runtime_s"] = round(time.monotonic() - started, 1)
    markdown = render_markdown(result)
    if args.aarch64_manifest:  # its own table, after the main one
        markdown += "\n" + aarch64_section.render(aarch64_section.collect(
            args.aarch64_manifest, args.manifest, 20 if args.quick else 200))
    paths = {name: os.path.join(args.out, name)
             for name in ("table.md", "table.json", "chart.svg")}
    with open(paths["table.md"], "w") as f:
        f.write(markdown)
    with open(paths["table.json"], "w") as f:
        json.dump(result, f, indent=2)
    with open(paths["chart.svg"], "w") as f:
        f.write(chart.render(result, [s["name"] for s in load.SCENARIOS]))
    sys.stdout.write(markdown)
    sys.stdout.flush()
    log("took %.0f s" % result["details"]["runtime_s"])
    for name, path in paths.items():
        print("%s: %s" % (name, path), file=sys.stderr)


if __name__ == "__main__":
    main()
