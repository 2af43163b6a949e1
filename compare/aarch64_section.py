"""The comparison's aarch64 section: the static rows of every tier built for aarch64-linux
(bazel --config=aarch64 toolchain, through //compare:tier_inputs_aarch64), beside the
original ARM64 daemon's own figures, as one Markdown table of its own.

The aarch64 binaries run under qemu-user on these x86_64 machines, so requests per second
and latencies would measure the emulator, and are left out. What the emulator can count
exactly is instructions: qemu-aarch64 -singlestep puts one guest instruction in each
translation block and -d exec,nochain logs every block it executes, so the log's "Trace"
lines are the guest's user-space instructions (qemu 7.2 from Debian has no TCG plugins,
so no libinsn.so). Per request: (run with N sequential `GET /`) minus (run with none),
divided by N, the same protocol as callgrind's row (bench/counts.py's run_wrapped).

Usage: aarch64_section.py --aarch64-manifest M [--manifest X86_M] [--requests N] [--check]
  --manifest adds the x86_64 request path of the same tier (the goals compare with it);
  --requests N adds the per-request row (0: left out);
  --check exits 1 unless every tier has sane figures and min is within the floor's
    budget (//compare:aarch64_section_test).
table.py calls collect() and render() when it is given --aarch64-manifest."""

import argparse
import os
import sys
import tempfile

from bench import counts
from bench import tier_manifest
from compare import static_facts

ARCH = "aarch64"

# (key in static_facts' dicts, label)
ROWS = [
    ("elf_bytes", "ELF bytes (original: Mach-O bytes)"),
    ("text_bytes", ".text bytes (original: __text)"),
    ("instructions_total", "instructions in total (objdump -d, no padding)"),
    ("request_path_instructions", "instructions on the request path (static)"),
    ("undefined_symbols", "undefined symbols"),
]

# The original daemon (ARM64 assembly for macOS, Mach-O), from its own write-up: the
# seed document the project started from (/work/shared/seeds/000_*.txt, "make compare"
# table and "memory layout"). Its "request path" is "a static count of the instructions
# under the symbols a GET / can execute".
ORIGINAL_SOURCE = "the original ARM64 daemon's write-up (seed document 000, `make compare`)"
ORIGINAL = {
    "original apollod": {"elf_bytes": 39608, "text_bytes": 3348, "instructions_total": 837,
                         "request_path_instructions": 408, "undefined_symbols": 0},
    "original apollod-min": {"elf_bytes": 34040, "text_bytes": 264, "instructions_total": 66,
                             "request_path_instructions": 22, "undefined_symbols": 0},
}
X86_ROW = ("x86_64_request_path", "x86_64 request path, same tier (static)")
TRACE_ROW = ("traced_instructions_per_request",
             "user-space instructions per request (qemu -singlestep trace)")
# G_SLICE: see bazel/aarch64/qemu_run.sh (GLib's slice lock across fork).
QEMU = ["env", "G_SLICE=always-malloc", "qemu-aarch64-static", "-cpu", "max"]
DEFAULT_REQUESTS = 100
TABLE_REQUESTS = 200  # //compare:table; QUICK_REQUESTS under --quick
QUICK_REQUESTS = 20


def traced_instructions(kind, binary, requests, workdir):
    """Guest instructions qemu executed in one run of binary with requests requests: the
    "Trace" lines of its -d exec,nochain log under -singlestep."""
    log = os.path.join(workdir, "qemu.%s.%d.log" % (kind, requests))
    counts.run_wrapped(kind, binary, QEMU + ["-singlestep", "-d", "exec,nochain", "-D", log],
                        requests, workdir)
    with open(log, "rb") as f:
        return sum(1 for line in f if line.startswith(b"Trace "))


def instructions_per_request(kind, binary, requests):
    """(instructions with requests requests - instructions with none) / requests."""
    with tempfile.TemporaryDirectory(prefix="apollod-qemu-") as workdir:
        loaded = traced_instructions(kind, binary, requests, workdir)
        idle = traced_instructions(kind, binary, 0, workdir)
    return round((loaded - idle) / requests, 1)


# Tiers qemu-user cannot run: it has no io_uring (io_uring_setup fails with ENOSYS, and the
# uring tier exits 11 at start-up), so there is no per-request trace for them.
NOT_UNDER_QEMU = ("uring",)


def collect(aarch64_manifest, x86_manifest=None, requests=DEFAULT_REQUESTS):
    """{tier name: facts} for every aarch64 tier, in manifest order; facts gain
    x86_64_request_path when the x86_64 manifest is given, and the traced instructions
    per request unless requests is 0."""
    facts = {}
    for tier in tier_manifest.load(aarch64_manifest):
        binary = tier["binary"]
        f = static_facts.binary_facts(binary, ARCH)
        f["request_path_instructions"], f["request_path_functions"] = \
            static_facts.request_path(binary, ARCH)
        if requests and tier["name"] not in NOT_UNDER_QEMU:
            f[TRACE_ROW[0]] = instructions_per_request(tier["name"], binary, requests)
        elif requests:
            f[TRACE_ROW[0]] = None  # see NOT_UNDER_QEMU
        facts[tier["name"]] = f
    if x86_manifest:
        for tier in tier_manifest.load(x86_manifest):
            if tier["name"] in facts:
                facts[tier["name"]][X86_ROW[0]] = \
                    static_facts.request_path(tier["binary"])[0]
    return facts


def _fmt(value):
    if value is None:
        return "—"
    return "{:,}".format(int(value) if value == int(value) else value)


def goals(facts):
    """The issue's three goals as (text, reached) pairs, for the tiers present."""
    out = []
    path = {name: f["request_path_instructions"] for name, f in facts.items()}
    if "min" in path:
        total = facts["min"]["instructions_total"]
        budget = static_facts.MIN_BUDGET
        original = ORIGINAL["original apollod-min"]
        out.append(("min: %d instructions, %d on the request path, within %d and %d (the "
                    "original's: %d and %d)"
                    % (total, path["min"], budget["instructions_total"],
                       budget["request_path_instructions"], original["instructions_total"],
                       original["request_path_instructions"]),
                    total <= budget["instructions_total"]
                    and path["min"] <= budget["request_path_instructions"]))
    if "full" in path and X86_ROW[0] in facts["full"]:
        x86 = facts["full"][X86_ROW[0]]
        out.append(("full: request path %d <= x86_64 full's %d" % (path["full"], x86),
                    path["full"] <= x86))
    if "asm-hotpath" in path:
        out.append(("asm-hotpath: request path %d <= the original's 408"
                    % path["asm-hotpath"], path["asm-hotpath"] <= 408))
    return out


def render(facts):
    """The section as Markdown."""
    tiers = list(facts)
    columns = tiers + list(ORIGINAL)
    rows = list(ROWS)
    for extra in (X86_ROW, TRACE_ROW):
        if any(extra[0] in f for f in facts.values()):
            rows.append(extra)
    lines = ["### aarch64 (built with --config=aarch64; run under qemu, so no requests/s)",
             "",
             "| row | " + " | ".join(columns) + " |",
             "| --- |" + " ---: |" * len(columns)]
    for key, label in rows:
        cells = [_fmt(facts[t].get(key)) for t in tiers]
        cells += [_fmt(ORIGINAL[o].get(key)) for o in ORIGINAL]
        lines.append("| %s | %s |" % (label, " | ".join(cells)))
    lines += ["",
              "Original columns: %s. The original is a Mach-O for macOS (two 16 KiB pages "
              "plus __LINKEDIT), so its file size is not comparable; its instructions are." %
              ORIGINAL_SOURCE,
              "Requests per second are left out: on these x86_64 machines the aarch64 "
              "binaries run under qemu-user. Instructions per request: qemu-aarch64 "
              "-singlestep -d exec,nochain counts every guest instruction; N sequential "
              "`GET /` minus a start-up-only run, divided by N (as bench/counts.py does "
              "with callgrind).",
              "Request path: static_facts.request_path from the instruction that puts "
              "accept4's number (242) in x8 before `svc #0` (uring: from conn_open and "
              "conn_event). uring has no trace: qemu-user has no io_uring."]
    reached = goals(facts)
    if reached:
        lines.append("Goals: " + "; ".join(
            "%s (%s)" % (text, "reached" if ok else "not reached") for text, ok in reached)
            + ".")
    return "\n".join(lines) + "\n"


def check(facts):
    """Sanity of every tier's figures (shape, never speed). Returns failure strings."""
    failures = []
    for name, f in facts.items():
        if f["undefined_symbols"] != 0 or f["shared_libraries"] != 0:
            failures.append("%s: imports something" % name)
        if not 0 < f["request_path_instructions"] < f["instructions_total"]:
            failures.append("%s: request path %d not within the total %d"
                            % (name, f["request_path_instructions"], f["instructions_total"]))
        if not 0 < f["text_bytes"] < f["elf_bytes"]:
            failures.append("%s: .text %d not within the ELF %d"
                            % (name, f["text_bytes"], f["elf_bytes"]))
        if name == "min":
            for key, budget in static_facts.MIN_BUDGET.items():
                if f[key] > budget:
                    failures.append("min: %s %d over the floor's %d" % (key, f[key], budget))
        traced = f.get(TRACE_ROW[0])
        if traced is not None and not 0 < traced < f["instructions_total"] * 10:
            failures.append("%s: %s instructions per request" % (name, traced))
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--aarch64-manifest", required=True)
    ap.add_argument("--manifest", help="the x86_64 tiers' manifest, for the x86_64 row")
    ap.add_argument("--requests", type=int, default=DEFAULT_REQUESTS,
                    help="sequential requests for the per-request row (0: no row)")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    facts = collect(args.aarch64_manifest, args.manifest, args.requests)
    sys.stdout.write(render(facts))
    if args.check:
        failures = check(facts)
        for failure in failures:
            print("FAIL - " + failure)
        print("%d tiers checked, %d failures" % (len(facts), len(failures)))
        sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
