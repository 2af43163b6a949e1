"""The comparison's aarch64 section: the static rows of every tier built for aarch64-linux
(bazel --config=aarch64 toolchain, through //compare:tier_inputs_aarch64), beside the
original ARM64 daemon's own figures, as one Markdown table of its own.

Only static rows: the aarch64 binaries run under qemu-user on these x86_64 machines, so
requests per second and latencies would measure the emulator, and are left out.

Usage: aarch64_section.py --aarch64-manifest M [--manifest X86_M] [--check]
  --manifest adds the x86_64 request path of the same tier (the goals compare with it);
  --check exits 1 unless every tier has sane figures (//compare:aarch64_section_test).
table.py calls render() when it is given --aarch64-manifest."""

import argparse
import sys
import os

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bench"))
import static_facts  # noqa: E402
import tier_manifest  # noqa: E402

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


def collect(aarch64_manifest, x86_manifest=None):
    """{tier name: facts} for every aarch64 tier, in manifest order; facts gain
    x86_64_request_path when the x86_64 manifest is given."""
    facts = {}
    for tier in tier_manifest.load(aarch64_manifest):
        binary = tier["binary"]
        f = static_facts.binary_facts(binary, ARCH)
        f["request_path_instructions"], f["request_path_functions"] = \
            static_facts.request_path(binary, ARCH)
        facts[tier["name"]] = f
    if x86_manifest:
        for tier in tier_manifest.load(x86_manifest):
            if tier["name"] in facts:
                facts[tier["name"]][X86_ROW[0]] = \
                    static_facts.request_path(tier["binary"])[0]
    return facts


def _fmt(value):
    return "—" if value is None else "{:,}".format(value)


def goals(facts):
    """The issue's three goals as (text, reached) pairs, for the tiers present."""
    out = []
    path = {name: f["request_path_instructions"] for name, f in facts.items()}
    if "min" in path:
        out.append(("min: request path %d <= the original's 22" % path["min"],
                    path["min"] <= 22))
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
    if any(X86_ROW[0] in f for f in facts.values()):
        rows.append(X86_ROW)
    lines = ["### aarch64 (static rows; built with --config=aarch64, run only under qemu)",
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
              "binaries run under qemu-user.",
              "Request path: static_facts.request_path from the instruction that puts "
              "accept4's number (242) in x8 before `svc #0`."]
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
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--aarch64-manifest", required=True)
    ap.add_argument("--manifest", help="the x86_64 tiers' manifest, for the x86_64 row")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    facts = collect(args.aarch64_manifest, args.manifest)
    sys.stdout.write(render(facts))
    if args.check:
        failures = check(facts)
        for failure in failures:
            print("FAIL - " + failure)
        print("%d tiers checked, %d failures" % (len(facts), len(failures)))
        sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
