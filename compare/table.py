"""The comparison: every tier side by side with the peers nginx, h2o and lighttpd.

Prints a Markdown table on standard output and writes it, the same data as JSON, a chart
(PNG and SVG) and the raw wrk and hyperfine outputs into one folder, printed at the
end: compare/out/ in the workspace under `bazel run`, the test's undeclared outputs under
`bazel test`, or --out DIR. Static rows come from Bazel's own view of each tier (see
tier_inputs.bzl) and the ELF files; measured rows run the servers (bench/). Every
measured figure is also given as a ratio to nginx and to the best peer of its row, all
measured in the same session. --quick shortens every measurement; --pin adds a second
load table with every server on CPU 0 and wrk on CPU 1. --aarch64-manifest appends the
aarch64 section (aarch64_section.py: static rows, instructions per request under qemu).

Usage (compare/BUILD wraps it as //compare:table):
  table.py --manifest M --first-response BIN [--quick] [--pin] [--out DIR]
           [--nginx PATH] [--h2o PATH] [--lighttpd PATH] [--aarch64-manifest M]
           [--scenario NAME]...
--scenario NAME (repeatable) measures only those load rows, every server, and prints
them alone: `bazel run -c opt //compare:table -- --scenario "4 MiB file, keep-alive c=8"`.
The compressed rows (bench/compressed.py: apollod's gzip made at load beside nginx, h2o
and lighttpd compressing) are selected the same way by their names, e.g.
`--scenario "190 KB HTML page, gzip, keep-alive c=16"`.
"""

import argparse
import concurrent.futures
import json
import os
import sys
import time

from bench import compressed
from bench import counts
from bench import load
from bench import servers
from bench import startup
from bench import tier_manifest
from bench import workers
from compare import aarch64_section
from compare import chart
from compare import static_facts

NGINX = "nginx"
PEERS = servers.PEERS
CALLGRIND_REQUESTS = {False: 2000, True: 20}  # by --quick
STRACE_REQUESTS = {False: 200, True: 20}
HIGHER, LOWER = "higher", "lower"  # which way a row is better (for the best peer)

# The static rows: (key in static_facts' dicts, label, unit, the peers have it).
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


def load_rows(scenarios, peers=True):
    """Per scenario: (key, label, unit, the peers have it, better). Requests/s, p99,
    server CPU per request (with its user / system split) and, for the routed tiers,
    syscalls per request from the daemon's counters. peers: True (every peer has the
    figures) or the names of the peers that do."""
    rows = []
    for s in scenarios:
        name = s["name"]
        rows.append(("rps/" + name, "requests/s, %s" % name, "req/s", peers, HIGHER))
        if s.get("latency", True):
            rows.append(("p99/" + name, "p99 latency, %s" % name, "us", peers, LOWER))
        rows += [
            ("cpu/" + name, "server CPU µs per request, %s" % name, "us", peers, LOWER),
            ("cpu_split/" + name, "user / system µs per request, %s" % name, "split",
             peers, None),
            ("syscalls/" + name, "syscalls per request (daemon counters), %s" % name,
             "count", False, LOWER),
        ]
    return rows


def measured_rows(scenarios):
    """The measured rows: (key, label, unit, the peers have it, better). Load rows come
    from the scenario list, so a scenario adds its rows by being added to bench/load.py."""
    return [
        ("instructions_per_request", "user-space instructions per request (callgrind)",
         "count", True, LOWER),
        ("instructions_per_short_request",
         "the same, shorter request (`Host: x`)", "count", False, LOWER),
        ("syscalls_per_request", "syscalls per request (strace -f -c)", "count", True,
         LOWER),
    ] + load_rows(scenarios) + load_rows([load.LOGGED_SCENARIO], load.LOGGED_PEERS) + [
        ("success_share", "lowest success share over the load scenarios", "share", True,
         HIGHER),
        ("first_response_us", "exec to first response, median (hyperfine)", "us", True,
         LOWER),
        ("peak_rss_kib", "peak resident memory after the load (VmHWM)", "KiB", True, LOWER),
    ]


def log(message):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), message), file=sys.stderr, flush=True)


def cpu_figures(r):
    """(server CPU µs per request, (user, system) µs) of one combined load result: the
    scheduler's run time (schedstat, exact) split in the proportion of /proc/PID/stat's
    user and system ticks, which count in 10 ms steps and so read 0 for a short or
    light run (issue 34); the ticks themselves where the kernel has no schedstat."""
    run = r.get("cpu_run_us_per_request")
    user, system = r["cpu_user_us_per_request"], r["cpu_system_us_per_request"]
    if run is None:
        return r["cpu_us_per_request"], (user, system)
    ticks = (user or 0) + (system or 0)
    share = user / ticks if ticks else 0.0
    return run, (share * run, run - share * run)


def load_values(loaded, values, details, wrk_text, title):
    """Moves load.measure's results into values (row key -> {column: number}) and
    details; appends every wrk report to the open file wrk_text under title."""
    for scenario, per_server in loaded["scenarios"].items():
        for server, r in per_server.items():
            for i, text in enumerate(r["wrk_output"]):
                wrk_text.write("== %s: %s, %s, round %d\n%s\n"
                               % (title, scenario, server, i + 1, text))
            row = values.setdefault
            row("rps/" + scenario, {})[server] = r["rps"]
            row("p99/" + scenario, {})[server] = r["p99_us"]
            cpu = cpu_figures(r)
            row("cpu/" + scenario, {})[server] = cpu[0]
            if cpu[0] is not None:
                row("cpu_split/" + scenario, {})[server] = cpu[1]
            if r["syscalls_per_request"] is not None:
                row("syscalls/" + scenario, {})[server] = r["syscalls_per_request"]
            lowest = values.setdefault("success_share", {})
            if r["requests"] or any(r["errors"].values()):  # none completed or failed: no share
                lowest[server] = min(lowest.get(server, 1.0), r["success_share"])
            details.setdefault(scenario, {})[server] = {
                k: r[k] for k in ("requests", "errors", "p50_us", "success_share",
                                  "cpu_user_us_per_request", "cpu_system_us_per_request")}


# Tiers valgrind cannot measure, with the reason (shown in the log and the JSON details).
CALLGRIND_UNSUPPORTED = {
    "uring": "valgrind 3.19 runs io_uring_enter with signals blocked, so the daemon never "
             "takes the signal that makes callgrind write its profile",
}


def server_counts(name, binary, quick):
    """The callgrind and strace figures of one server: {row key: value}, and its
    syscalls by name. A tier valgrind cannot run (CALLGRIND_UNSUPPORTED) gets None for
    the instruction rows."""
    kind = name if name in PEERS else "tier"
    log("callgrind and strace: " + name)
    if name in CALLGRIND_UNSUPPORTED:
        log("callgrind: %s not measured: %s" % (name, CALLGRIND_UNSUPPORTED[name]))
        figures = {"instructions_per_request": None, "instructions_per_short_request": None}
    else:
        figures = {"instructions_per_request": counts.instructions_per_request(
            kind, binary, CALLGRIND_REQUESTS[quick])}
    if name not in PEERS and name not in CALLGRIND_UNSUPPORTED:
        figures["instructions_per_short_request"] = counts.instructions_per_request(
            kind, binary, CALLGRIND_REQUESTS[quick], request="short")
    total, by_name = counts.syscalls_per_request(kind, binary, STRACE_REQUESTS[quick])
    figures["syscalls_per_request"] = total
    return figures, by_name


def static_rows(tiers, peers, root):
    """Every static figure: ({row key: {column: value}}, {tier: functions on the request
    path}, {tier: source files})."""
    values, functions, sources = {}, {}, {}
    for tier in tiers:
        facts = static_facts.tier_facts(tier, root)
        functions[tier["name"]] = facts.pop("request_path_functions")
        sources[tier["name"]] = facts.pop("source_files")
        for key, value in facts.items():
            values.setdefault(key, {})[tier["name"]] = value
    for name, binary in peers:
        for key, value in static_facts.binary_facts(binary).items():
            values.setdefault(key, {})[name] = value
    return values, functions, sources


def build_rows(declared, values, columns, section):
    """Table rows from declared row tuples and the collected values."""
    rows = []
    for declared_row in declared:
        key, label, unit, peers_have_it = declared_row[:4]
        better = declared_row[4] if len(declared_row) > 4 else None
        row_values = {c: values.get(key, {}).get(c) for c in columns}
        for peer in PEERS:
            if not (peers_have_it is True or (peers_have_it and peer in peers_have_it)):
                row_values[peer] = None
        row = {"key": key, "label": label, "unit": unit, "section": section,
               "better": better, "values": row_values}
        if section != "static" and better:
            peer_values = [row_values[p] for p in PEERS if row_values[p]]
            best = (max if better == HIGHER else min)(peer_values) if peer_values else None
            row["best_peer"] = next((p for p in PEERS if peer_values
                                     and row_values[p] == best), None)
            row["ratio_to_nginx"] = {c: ratio(row_values[c], row_values[NGINX])
                                     for c in columns}
            row["ratio_to_best_peer"] = {c: ratio(row_values[c], best) for c in columns}
        rows.append(row)
    return rows


def collect(args):
    """Runs everything; returns the JSON-able result (columns, rows, details)."""
    root = tier_manifest.root()
    tiers = tier_manifest.load(args.manifest)
    names = [t["name"] for t in tiers]
    peers = tier_manifest.peers(args)
    columns = names + [name for name, _ in peers]
    everyone = tier_manifest.binaries(tiers) + peers
    values = {}   # row key -> {column: number}
    details = {"quick": args.quick, "pin": args.pin, "syscalls_by_name": {}, "wrk": {},
               "callgrind_unsupported": {t["name"]: CALLGRIND_UNSUPPORTED[t["name"]]
                                         for t in tiers if t["name"] in CALLGRIND_UNSUPPORTED},
               "files_served_by": [t["name"] for t in tiers if t.get("files")] + PEERS,
               "peer_answers": {name: servers.peer_answer_note(name, binary)
                                for name, binary in peers}}

    # The static facts and the per-server counts; with --quick, two at a time (callgrind's
    # and strace's counts do not depend on the machine's load; the routed tiers' strace
    # figure depends slightly on timing, so a full run takes them one by one).
    quick = args.quick
    log("static facts, callgrind, strace")
    with concurrent.futures.ThreadPoolExecutor(2 if quick else 1) as pool:
        static = pool.submit(static_rows, tiers, peers, root)
        per_server = [(name, pool.submit(server_counts, name, binary, quick))
                      for name, binary in everyone]
        static_values, details["request_path_functions"], details["source_files"] = \
            static.result()
        values.update(static_values)
        for name, future in per_server:
            figures, details["syscalls_by_name"][name] = future.result()
            for key, value in figures.items():
                values.setdefault(key, {})[name] = value

    duration = load.QUICK_DURATION_S if quick else load.DEFAULT_DURATION_S
    rounds = load.QUICK_ROUNDS if quick else load.DEFAULT_ROUNDS
    serving = tier_manifest.serving(tiers)
    details["wrk_text"] = os.path.join(args.out, "wrk.txt")
    pinned = {}
    details["load_average"] = {"before": os.getloadavg()[0]}
    with open(details["wrk_text"], "w") as wrk_text:
        log("load: %d rounds of %d scenarios x %d servers, %d s each"
            % (rounds, len(load.SCENARIOS), len(everyone), duration))
        loaded = load.measure(serving, peers, duration, rounds, log=log, parallel=quick)
        load_values(loaded, values, details["wrk"], wrk_text, "shared CPUs")
        values["peak_rss_kib"] = loaded["peak_rss_kib"]
        if args.pin:
            log("load, pinned: servers on CPU 0, wrk on CPU 1")
            loaded = load.measure(serving, peers, duration, rounds, log=log, pin=True,
                                  parallel=quick)
            details["wrk_pinned"] = {}
            load_values(loaded, pinned, details["wrk_pinned"], wrk_text, "pinned")
        log("load with the access log on: %s" % load.LOGGED_SCENARIO["name"])
        logged = load.measure_logged(serving, peers, duration, rounds, log=log,
                                     parallel=quick)
        load_values(logged, values, details["wrk"], wrk_text, "access log on")
        details["access_log_tiers"] = [name for name, _, files in serving if files]
        log("workers: full with --workers 1 and 2, nginx with 1 and 2 worker processes")
        full = dict(tier_manifest.binaries(tiers))["full"]
        worker_results, distribution = workers.measure(
            full, dict(peers)[NGINX], duration, rounds, log=log)
        details["workers"] = workers.table(worker_results, distribution)
        log("compressed responses: " + ", ".join(compressed.NAMES))
        details["compressed"] = collect_compressed(tiers, peers, duration, rounds)

    details["load_average"]["after"] = os.getloadavg()[0]
    log("start-up: hyperfine")
    hyperfine_json = os.path.join(args.out, "startup.json")
    runs = startup.QUICK_RUNS if quick else startup.DEFAULT_RUNS
    first = startup.measure(tier_manifest.binaries(tiers), peers,
                            os.path.join(root, args.first_response), runs, hyperfine_json,
                            log=sys.stderr)
    values["first_response_us"] = {name: s["median_s"] * 1e6 for name, s in first.items()}
    details["hyperfine_json"] = hyperfine_json
    details["load_duration_s"] = duration
    details["load_rounds"] = rounds

    rows = (build_rows(STATIC_ROWS, values, columns, "static")
            + build_rows(measured_rows(load.SCENARIOS), values, columns, "measured"))
    result = {"columns": columns, "tiers": names, "peers": PEERS, "rows": rows,
              "scenarios": load.SCENARIOS, "details": details}
    if args.pin:
        result["pinned_rows"] = build_rows(load_rows(load.SCENARIOS), pinned, columns,
                                           "pinned")
    return result


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


def fmt_cell(row, column):
    """One cell: a static value, a measured `value (×nginx / ×best peer)`, or a CPU split
    `user / system`."""
    value = row["values"][column]
    if row["unit"] == "split":
        return "—" if value is None else "%s / %s" % (fmt_number(value[0], "us"),
                                                     fmt_number(value[1], "us"))
    text = fmt_number(value, row["unit"])
    if "ratio_to_nginx" in row and value is not None:
        text += " (%s / %s)" % (fmt_ratio(row["ratio_to_nginx"][column]),
                                fmt_ratio(row["ratio_to_best_peer"][column]))
    return text


def markdown_rows(columns, rows):
    lines = ["| row | " + " | ".join(columns) + " |",
             "| --- |" + " ---: |" * len(columns)]
    for row in rows:
        lines.append("| %s | %s |" % (row["label"], " | ".join(fmt_cell(row, c)
                                                              for c in columns)))
    return lines


def collect_scenarios(args, scenarios):
    """--scenario: only those load rows, every server in them, nothing else (no static
    facts, counts, access log, workers or start-up): the way to rerun one row, e.g. to
    see that it reproduces. Returns the JSON-able result."""
    tiers = tier_manifest.load(args.manifest)
    peers = tier_manifest.peers(args)
    columns = [t["name"] for t in tiers] + [name for name, _ in peers]
    duration = load.QUICK_DURATION_S if args.quick else load.DEFAULT_DURATION_S
    rounds = load.QUICK_ROUNDS if args.quick else load.DEFAULT_ROUNDS
    values, details = {}, {"wrk": {}, "load_duration_s": duration, "load_rounds": rounds,
                           "load_average": {"before": os.getloadavg()[0]},
                           "pin": args.pin, "quick": args.quick}
    with open(os.path.join(args.out, "wrk.txt"), "w") as wrk_text:
        loaded = load.measure(tier_manifest.serving(tiers), peers, duration, rounds,
                              scenarios, log=log, pin=args.pin, parallel=args.quick)
        load_values(loaded, values, details["wrk"], wrk_text,
                    "pinned" if args.pin else "shared CPUs")
    details["load_average"]["after"] = os.getloadavg()[0]
    return {"columns": columns, "tiers": [t["name"] for t in tiers], "peers": PEERS,
            "rows": build_rows(load_rows(scenarios), values, columns, "measured"),
            "scenarios": scenarios, "details": details}


def collect_compressed(tiers, peers, duration, rounds, scenarios=compressed.SCENARIOS):
    """bench/compressed.py's rows, JSON-able: per scenario, per server label, the probe
    and the load figures (server CPU µs per response, bytes per response, requests/s)."""
    full = dict(tier_manifest.binaries(tiers))["full"]
    before = os.getloadavg()[0]
    measured = compressed.measure(full, dict(peers), duration, rounds, scenarios, log=log)
    rows = {}
    for scenario, per_server in measured["scenarios"].items():
        for label, r in per_server.items():
            status, coding, body, exact = measured["probes"][scenario][label]
            rows.setdefault(scenario, {})[label] = {
                "status": status, "coding": coding, "body_bytes": body, "decodes": exact,
                "cpu_us": cpu_figures(r)[0], "rps": r["rps"], "requests": r["requests"],
                "bytes_per_response": r["bytes"] / r["requests"] if r["requests"] else None,
                "errors": r["errors"], "clocks_gap": r["clocks_gap"]}
    return {"rows": rows, "skipped": measured["skipped"], "duration_s": duration,
            "rounds": rounds, "load_average": [before, os.getloadavg()[0]]}


def render_compressed(c):
    """collect_compressed's figures as Markdown: one table per scenario, a row per server,
    ratios to nginx `gzip on` at its default level."""
    lines = ["Compressed responses (bench/compressed.py): `%s`, keep-alive, %d connections; "
             "wrk %d s per server, %d round(s); server CPU per response from schedstat over "
             "all rounds, bytes per response = wrk's bytes read (heads included) / "
             "responses, requests/s the median. Load average before / after: %.1f / %.1f."
             % (compressed.ACCEPT, compressed.CONNECTIONS, c["duration_s"], c["rounds"],
                c["load_average"][0], c["load_average"][1])]
    base_label = "nginx gzip on (level 1, its default)"
    order = [setup[0] for setup in compressed.setups()]  # rows in setups()' order
    for scenario, per in c["rows"].items():
        base = per.get(base_label, {})
        lines += ["", "**%s**" % scenario, "",
                  "| server | sent (probe) | server CPU µs/response | bytes/response | "
                  "requests/s |", "| --- | --- | ---: | ---: | ---: |"]
        for label, r in sorted(per.items(), key=lambda kv: order.index(kv[0])):
            lines.append("| %s | %d %s, %d B%s | %s | %s | %s |" % (
                label, r["status"], r["coding"], r["body_bytes"],
                {True: "", False: " (NOT the file's bytes)", None: ""}[r["decodes"]],
                _with_ratio(r["cpu_us"], base.get("cpu_us"), "%.1f"),
                _with_ratio(r["bytes_per_response"], base.get("bytes_per_response"), "{:,.0f}"),
                _with_ratio(r["rps"], base.get("rps"), "{:,.0f}")))
    for label, reason in c["skipped"].items():
        lines.append("\n%s: not measured, %s." % (label, reason))
    return "\n".join(lines)


def _with_ratio(value, base, form):
    """value in form, then (× base) when both are there."""
    if value is None:
        return "—"
    text = form.format(value) if "{" in form else form % value
    return text + (" (%.3g×)" % (value / base) if base else "")


def render_scenarios(result):
    """collect_scenarios' table and how it was measured, as Markdown."""
    d = result["details"]
    return "\n".join(markdown_rows(result["columns"], result["rows"]) + [
        "", "Only the rows asked for (--scenario), wrk %d s per server, median of %d "
        "round(s)%s; server CPU from schedstat (split by /proc/PID/stat's ticks). Load average before / after: %.1f / %.1f."
        % (d["load_duration_s"], d["load_rounds"], ", pinned" if d["pin"] else "",
           d["load_average"]["before"], d["load_average"]["after"])]) + "\n"


def render_markdown(result):
    """The main table, its notes and, after --pin, the pinned load table, as Markdown."""
    d = result["details"]
    lines = markdown_rows(result["columns"], result["rows"])
    files_by = d["files_served_by"]
    lines += [
        "",
        "Measured cells: value (ratio to nginx / ratio to the best peer of the row), all "
        "from this one run. Latencies and CPU in µs.",
        "Load: wrk, %d s per server and scenario, 2 wrk threads at most, on the same 2 "
        "CPUs as the servers; median of %d round(s)%s. Server CPU per request: "
        "the run time of all the server's processes and threads (schedstat; "
        "/proc/PID/stat's ticks split it into user and system) over the wrk run, divided "
        "by the responses wrk counted. The machine's 1-minute load average "
        "before / after the load: %.1f / %.1f (%d CPUs; other work shares them)."
        % (d["load_duration_s"], d["load_rounds"],
           "; --quick: every server loaded at once" if d["quick"] else "",
           d["load_average"]["before"], d["load_average"]["after"], os.cpu_count()),
        "Answers: " + "; ".join("%s: %s" % kv for kv in d["peer_answers"].items())
        + "; the tiers: built in. Files (the same tree, `/files/4k.bin`, "
        "`/files/256k.bin`): %s; — where a server has no files." % ", ".join(files_by),
        "Syscalls per request (strace): " + "; ".join(
            "%s: %s" % (name, ", ".join("%s %.2g" % kv for kv in sorted(calls.items())))
            for name, calls in d["syscalls_by_name"].items()) + ".",
        "Instructions and syscalls per request: wrk's request (`GET /`, `Host`, "
        "`Connection: close`), N sequential connections minus a start-up-only run "
        "(bench/counts.py); the shorter request sends `Host: x`.",
        "Access log on: the same keep-alive c=64 load on fresh servers that log every "
        "request to a file: the tiers with `--access-log FILE` (%s; one write per loop "
        "iteration), nginx with `access_log FILE` (combined format, its default: one write "
        "per request); the other peers do not take part. What logging costs is the row's "
        "difference to the `keep-alive c=64` row." % ", ".join(d["access_log_tiers"]),
    ]
    if d["quick"]:
        lines.append("--quick run: short measurements, figures are rough.")
    if d.get("workers"):
        lines += ["", "Workers (`--workers`), keep-alive c=64 and close c=64, in the same "
                  "run; server CPU is the whole process tree's:", "", d["workers"]]
    if d.get("compressed"):
        lines += ["", render_compressed(d["compressed"])]
    if "pinned_rows" in result:
        lines += ["", "Pinned (`--pin`): every server on CPU 0, wrk on CPU 1 (taskset), "
                  "the same scenarios, in the same run.", ""]
        lines += markdown_rows(result["columns"], result["pinned_rows"])
    return "\n".join(lines) + "\n"


def out_dir(requested):
    """Where the outputs go: --out, else the test's undeclared outputs under bazel test,
    else compare/out/ in the workspace (BUILD_WORKSPACE_DIRECTORY under bazel run)."""
    if requested:
        return requested
    if os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR"):
        return os.environ["TEST_UNDECLARED_OUTPUTS_DIR"]
    workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY") or tier_manifest.root()
    return os.path.join(workspace, "compare", "out")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    tier_manifest.add_arguments(ap)
    ap.add_argument("--first-response", required=True)
    ap.add_argument("--out", help="the output folder (default: compare/out/)")
    ap.add_argument("--aarch64-manifest", help="adds the aarch64 section (aarch64_section.py)")
    ap.add_argument("--scenario", action="append", metavar="NAME",
                    help="only this load row (repeatable; bench/load.py's names, e.g. "
                    "'4 MiB file, keep-alive c=8'): every server, nothing else measured")
    args = ap.parse_args()
    args.out = os.path.abspath(out_dir(args.out))
    os.makedirs(args.out, exist_ok=True)
    if args.scenario:
        chosen = [sc for sc in load.SCENARIOS if sc["name"] in args.scenario]
        squeezed = [sc for sc in compressed.SCENARIOS if sc["name"] in args.scenario]
        if len(chosen) + len(squeezed) != len(set(args.scenario)):
            ap.error("unknown scenario in %s; the names: %s" % (
                args.scenario, ", ".join(sc["name"] for sc in load.SCENARIOS
                                         + compressed.SCENARIOS)))
        markdown = render_scenarios(collect_scenarios(args, chosen)) if chosen else ""
        if squeezed:
            tiers = tier_manifest.load(args.manifest)
            duration = load.QUICK_DURATION_S if args.quick else load.DEFAULT_DURATION_S
            rounds = load.QUICK_ROUNDS if args.quick else load.DEFAULT_ROUNDS
            markdown += render_compressed(collect_compressed(
                tiers, tier_manifest.peers(args), duration, rounds, squeezed)) + "\n"
        with open(os.path.join(args.out, "table.md"), "w") as f:
            f.write(markdown)
        sys.stdout.write(markdown)
        return
    started = time.monotonic()
    result = collect(args)
    result["details"]["runtime_s"] = round(time.monotonic() - started, 1)
    markdown = render_markdown(result)
    if args.aarch64_manifest:  # its own table, after the main one
        result["aarch64"] = aarch64_section.collect(
            args.aarch64_manifest, args.manifest,
            aarch64_section.QUICK_REQUESTS if args.quick else aarch64_section.TABLE_REQUESTS)
        markdown += "\n" + aarch64_section.render(result["aarch64"])
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(markdown)
    with open(os.path.join(args.out, "table.json"), "w") as f:
        json.dump(result, f, indent=2)
    chart.render(result, os.path.join(args.out, "chart"))
    sys.stdout.write(markdown)
    sys.stdout.flush()
    log("took %.0f s" % result["details"]["runtime_s"])
    print("outputs (table.md, table.json, chart.png, chart.svg, wrk.txt, startup.json): "
          + args.out, file=sys.stderr)


if __name__ == "__main__":
    main()
