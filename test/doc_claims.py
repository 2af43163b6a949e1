"""What the documents claim about the code, held to the code (//test:citations_test).

Four kinds of claim, each checked by one function that returns "file: what is wrong" lines
(docs/BUILDING.md, "Docs held by tests", states the rules for writers):

- counters: the table of docs/BEHAVIOUR.md section 7 (number and name of each row), its
  "All N counters" and the list under docs/OPERATING.md's `/metrics` heading name the
  counters of common/base/counters.h's FOR_EACH_COUNTER, all of them, in its order;
- flags: every flag of the README's flag table, and of docs/OPERATING.md's "Flags"
  section, is a flag of `apollod --help`, and the default either gives is --help's; the
  OPERATING synopsis is --help's usage line; every flag of --help is named in the README;
- state: docs/ARCHITECTURE.md's "State" section names (in backticks) every state object
  and per-slot array of test/state_allowlist.txt, the list //test:state_check holds the
  binaries to;
- C names: a backticked C name in docs/ARCHITECTURE.md or docs/AUDIT.md (`name`,
  `struct name` where name has an underscore; any `name()` or `name(args)`) is a word of
  the project's sources (common/, variants/, bazel/), of the kernel's and libc's headers
  (SYSTEM_HEADER_DIRS), or one of KERNEL_INTERNALS;
- figures: in the README, a number with a measuring unit (MEASURED_UNITS; both numbers of
  a range, "128-132 kB"), and every number of a measured table's value cells (not its
  first column or header, not an issue's number), is written in a report
  (benchmarks/reports/) that its paragraph names, as it is or with more places that
  round to it (696.0 for 696, 0.816 for 0.82). A table's paragraph is the one just above
  it and a note in parentheses just below it; a table whose paragraphs name no report is
  not a measured one. A paragraph that names no report holds no figure with a unit, except
  ELF sizes in KB ("N KB", "N to M KB"), which are the build's: within ELF_TOLERANCE of the
  smallest and largest routed tier's binary (x86_64 builds only).
"""

import decimal
import os
import re

COUNTERS_H = "common/base/counters.h"
BEHAVIOUR = "docs/BEHAVIOUR.md"
OPERATING = "docs/OPERATING.md"
README = "README.md"
NAME_DOCS = ("docs/ARCHITECTURE.md", "docs/AUDIT.md")
ARCHITECTURE = NAME_DOCS[0]
STATE_ALLOWLIST = "test/state_allowlist.txt"
SOURCE_FOLDERS = ("common/", "variants/", "bazel/")
REPORTS = "benchmarks/reports/"

# Where a kernel or libc name a document cites is defined (read only for names the
# project's sources lack).
SYSTEM_HEADER_DIRS = (
    "/usr/include/linux", "/usr/include/asm-generic", "/usr/include/x86_64-linux-gnu/bits",
    "/usr/include/x86_64-linux-gnu/asm", "/usr/include",
)
# Functions inside the kernel a document names to explain a cost: in no header.
KERNEL_INTERNALS = {"tcp_sendmsg", "sock_recvmsg", "sock_sendmsg", "do_splice"}

MEASURED_UNITS = ("kB", "µs", "minutes", "×", "requests/s")
ELF_TOLERANCE = 0.05
EM_X86_64 = 62


# ---- Counters ----


def counter_names(counters_h):
    """The names FOR_EACH_COUNTER lists, in order."""
    m = re.search(r"#define FOR_EACH_COUNTER\(X\)((?:[^\n]*\\\n)*[^\n]*)", counters_h)
    return re.findall(r"\bX\((\w+)\)", m.group(1)) if m else []


def _section(text, heading_re):
    """The text from the heading heading_re matches to the next heading of its level."""
    m = re.search(heading_re, text, re.M)
    if not m:
        return ""
    level = len(m.group(0)) - len(m.group(0).lstrip("#"))
    rest = text[m.end():]
    end = re.search(r"^#{1,%d}\s" % level, rest, re.M)
    return rest[:end.start()] if end else rest


def check_counters(counters, behaviour, operating):
    bad = []
    seven = _section(behaviour, r"^## 7\.")
    rows = re.findall(r"^\|\s*(\d+)\s*\|\s*`(\w+)`\s*\|", seven, re.M)
    want = [(str(i), name) for i, name in enumerate(counters, 1)]
    if rows != want:
        bad.append("%s section 7: the table lists %s; %s lists %s" % (
            BEHAVIOUR, _pairs(rows), COUNTERS_H, _pairs(want)))
    for n in re.findall(r"\bAll (\d+) counters", seven):
        if int(n) != len(counters):
            bad.append("%s section 7: \"All %s counters\"; %s has %d" % (
                BEHAVIOUR, n, COUNTERS_H, len(counters)))
    block = re.search(r"```\n(.*?)```", _section(operating, r"^## `/metrics`"), re.S)
    listed = re.findall(r"\b[a-z][a-z0-9_]*\b",
                        re.sub(r"\([^)]*\)", "", block.group(1))) if block else []
    if listed != counters:
        bad.append("%s `/metrics`: the list names %s; %s lists %s" % (
            OPERATING, " ".join(listed) or "nothing", COUNTERS_H, " ".join(counters)))
    return bad


def _pairs(rows):
    return ", ".join("%s %s" % r for r in rows) or "nothing"


# ---- Flags ----


def help_flags(help_text):
    """(usage line without "usage: ", {flag: its default or None for a switch})."""
    lines = help_text.splitlines()
    usage = lines[0][len("usage: "):] if lines and lines[0].startswith("usage: ") else ""
    flags = {}
    for line in lines[1:]:
        m = re.match(r"^\s+(--[\w-]+)", line)
        if m:
            d = re.search(r"\(default ([^()]*(?:\([^()]*\)[^()]*)*)\)\s*$", line)
            flags[m.group(1)] = d.group(1) if d else None
    return usage, flags


def _bytes(value):
    """256M, 256 MiB, 268435456 as bytes; None when value is not a size."""
    m = re.fullmatch(r"(\d+)\s*([KMGT]?)(?:iB)?", value.strip())
    if not m:
        return None
    return int(m.group(1)) << (10 * " KMGT".index(m.group(2) or " "))


def same_default(doc, helped):
    """True when a document's default (backticks, a trailing " s" unit aside) is
    --help's: the same words, or the same size; a switch (no default) is "off"."""
    doc = doc.replace("`", "").strip()
    doc = doc[:-2] if doc.endswith(" s") else doc
    if helped is None:
        return doc == "off"
    return doc == helped or (_bytes(doc) is not None and _bytes(doc) == _bytes(helped))


def readme_flag_rows(readme):
    """[(line, [flags], [defaults])] of the README's table headed | flag | default |."""
    rows, in_table = [], False
    for n, line in enumerate(readme.splitlines(), 1):
        if re.match(r"^\|\s*flag\s*\|\s*default\s*\|", line):
            in_table = True
            continue
        if in_table and not line.startswith("|"):
            break
        if in_table and not line.startswith("| ---"):
            cells = [c.strip().replace("\\|", "|")
                     for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            flags = [f.split()[0] for f in re.findall(r"`(--[^`]+)`", cells[0])]
            rows.append((n, flags, [d.strip() for d in cells[1].split(";")]))
    return rows


def check_flags(help_text, readme, operating):
    usage, flags = help_flags(help_text)
    return _check_readme_flags(flags, readme) + _check_operating_flags(usage, flags, operating)


def _check_readme_flags(flags, readme):
    bad = []
    rows = readme_flag_rows(readme)
    if not rows:
        bad.append("%s: no table headed | flag | default |" % README)
    for n, names, defaults in rows:
        if len(defaults) not in (1, len(names)):
            bad.append("%s:%d: %d flags, %d defaults" % (README, n, len(names), len(defaults)))
            continue
        for i, name in enumerate(names):
            bad += _check_default(README, n, name, defaults[-1 if len(defaults) == 1 else i],
                                  flags)
    named = set(re.findall(r"`(--[\w-]+)", readme))
    for name in flags:
        if name not in named and name not in ("--help", "--version"):
            bad.append("%s: --help's %s is not named" % (README, name))
    return bad


def _check_operating_flags(usage, flags, operating):
    bad = []
    section = _section(operating, r"^## Flags")
    first = operating.count("\n", 0, operating.find(section))
    block = re.search(r"```\n(.*?)```", section, re.S)
    if not block or " ".join(block.group(1).split()) != " ".join(usage.split()):
        bad.append("%s Flags: the synopsis is not --help's usage line: %s" % (OPERATING, usage))
    for m in re.finditer(r"`(--[\w-]+)", section):
        if m.group(1) not in flags:
            bad.append("%s:%d: %s is not a flag of --help" % (
                OPERATING, first + 1 + section.count("\n", 0, m.start()), m.group(1)))
    for m in re.finditer(r"\(default ([^);,]+)", section):
        named = re.findall(r"`(--[\w-]+)", section[:m.start()])
        line = first + 1 + section.count("\n", 0, m.start())
        if named:
            bad += _check_default(OPERATING, line, named[-1], m.group(1), flags)
    return bad


def _check_default(doc, line, name, default, flags):
    if name not in flags:
        return ["%s:%d: %s is not a flag of --help" % (doc, line, name)]
    if not same_default(default, flags[name]):
        return ["%s:%d: %s defaults to %s, --help says %s" % (
            doc, line, name, default, flags[name] or "off (a switch)")]
    return []


# ---- State ----


def check_state_list(architecture, allowlist):
    """Every object of the allowlist (first word of each line that is not a comment) is
    backticked in ARCHITECTURE's "## State" section."""
    section = _section(architecture, r"^## State")
    named = set(re.findall(r"`(\w+)`", section))
    objects = [l.split()[0] for l in allowlist.splitlines() if l.strip() and l[0] != "#"]
    return ["%s State: `%s` (%s) is not named" % (ARCHITECTURE, o, STATE_ALLOWLIST)
            for o in objects if o not in named]


# ---- C names ----

_C_NAME_RE = re.compile(r"`(?:(?:struct|enum|union) )?([A-Za-z_]\w*)(\([^`()]*\))?`")


def cited_c_names(text):
    """[(line, name)]: the backticked C names of a document (module docstring's rule)."""
    out = []
    for m in _C_NAME_RE.finditer(text):
        whole = m.group(0)
        if "_" in m.group(1).strip("_") or m.group(2) or " " in whole or \
                m.group(1).startswith("_"):
            out.append((text.count("\n", 0, m.start()) + 1, m.group(1)))
    return out


def words_of(texts):
    words = set()
    for t in texts:
        words.update(re.findall(r"\w+", t))
    return words


def system_header_words(dirs=SYSTEM_HEADER_DIRS):
    """The words of the .h files directly in each of dirs (not their subfolders)."""
    words = set()
    for d in dirs:
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for n in names:
            if n.endswith(".h"):
                with open(os.path.join(d, n), encoding="utf-8", errors="replace") as f:
                    words.update(re.findall(r"\w+", f.read()))
    return words


def check_c_names(docs, source_words, header_words):
    """docs: {path: text}; source_words: the project's; header_words(): the system's."""
    bad, system = [], None
    for path in sorted(docs):
        for line, name in cited_c_names(docs[path]):
            if name in source_words or name in KERNEL_INTERNALS:
                continue
            system = header_words() if system is None else system
            if name not in system:
                bad.append("%s:%d: `%s` is in no source of %s nor a system header" % (
                    path, line, name, ", ".join(SOURCE_FOLDERS)))
    return bad


# ---- README figures ----

_NUMBER = r"(?<![\w.,/-])(\d[\d,]*(?:\.\d+)?)"
_UNIT_RE = re.compile(_NUMBER + r"(?:\s?(?:-|–|to)\s?(\d[\d,]*(?:\.\d+)?))?\s?(?:" +
                      "|".join(re.escape(u) for u in MEASURED_UNITS) + r")(?!\w)")
_SEPARATED_RE = re.compile(_NUMBER + r"(?![\w])")
_KB_RE = re.compile(r"(?<![\w.,])(\d+)(?: to (\d+))? KB\b")
_REPORT_RE = re.compile(r"(\d{4}-\d\d-\d\d-[\w.-]+?\.(?:md|txt))")


def blocks(text):
    """[(first line, text, is_table, caption)] of the README: paragraphs, tables and list
    items (code blocks left out); a table's caption is the paragraph just above it and a
    note in parentheses just below it."""
    out, current, start, previous = [], [], 1, ""
    in_code = False
    lines = text.splitlines()
    for n, line in enumerate(lines + [""], 1):
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        if line.strip() == "" or line.startswith("#") or line.startswith("- "):
            if current:
                out.append((start, "\n".join(current)))
            current, start = [], n
            if line.startswith("- "):
                current, start = [line], n
            continue
        current.append(line)
    result = []
    for i, (first, body) in enumerate(out):
        table = body.startswith("|")
        above = out[i - 1][1] if table and i > 0 and out[i - 1][1][0] != "|" else ""
        below = out[i + 1][1] if table and i + 1 < len(out) else ""
        result.append((first, body, table, above + ("\n" + below if below[:1] == "(" else "")))
    return result


def reports_named(text):
    return set(_REPORT_RE.findall(text))


def figures_of(body, table):
    """[(offset, figure)] that must come from a report."""
    found = []
    if table:
        for row in body.splitlines():
            cells = row.split("|")[2:-1]
            if row.startswith("| ---") or not cells:
                continue
            off = body.find(row) + len("|".join(row.split("|")[:2])) + 1
            for m in _SEPARATED_RE.finditer("|".join(cells)):
                if not "|".join(cells).endswith("issue ", 0, m.start()):
                    found.append((off + m.start(), m.group(1)))
        header = body.splitlines()[0]
        return [(o, f) for o, f in found if o >= len(header)]
    return [(m.start(g), m.group(g)) for m in _UNIT_RE.finditer(body) for g in (1, 2)
            if m.group(g)]


def _decimal(number):
    return decimal.Decimal(number.replace(",", ""))


def report_numbers(text):
    """The numbers a report writes, as Decimals with the places they are written to."""
    return {_decimal(n) for n in re.findall(r"(?<![\d.])\d[\d,]*(?:\.\d+)?", text)
            if not n.endswith(",")}


def in_report(figure, numbers):
    """True when a report writes figure, or the same number with more places that rounds
    to it (696.0 for 696, 0.816 for 0.82)."""
    want = _decimal(figure)
    places = want.as_tuple().exponent
    for n in numbers:
        if n.as_tuple().exponent <= places and \
                n.quantize(decimal.Decimal(1).scaleb(places), decimal.ROUND_HALF_UP) == want:
            return True
    return False


def check_figures(readme, read_report, elf_sizes):
    """read_report(name) returns a report's text or None; elf_sizes: the routed tiers'
    x86_64 binary sizes ([] skips the KB check)."""
    bad = []
    for first, body, table, caption in blocks(readme):
        names = reports_named(body) | reports_named(caption)
        numbers = set()
        for t in (read_report(n) for n in sorted(names)):
            numbers |= report_numbers(t or "")
        for n in sorted(names):
            if read_report(n) is None:
                bad.append("%s:%d: no report %s in %s" % (README, first, n, REPORTS))
        for m in _KB_RE.finditer(body):
            bad += _check_kb(first + body.count("\n", 0, m.start()), m, elf_sizes)
        if table and not names:
            continue  # a table of facts, not of measurements
        for off, figure in figures_of(_KB_RE.sub(lambda k: " " * len(k.group(0)), body), table):
            line = first + body.count("\n", 0, off)
            if not names:
                bad.append("%s:%d: %s is a figure, and its paragraph names no report" % (
                    README, line, figure))
            elif not in_report(figure.rstrip(",."), numbers):
                bad.append("%s:%d: %s is in none of %s" % (
                    README, line, figure, ", ".join(sorted(names))))
    return bad


def _check_kb(line, m, elf_sizes):
    if not elf_sizes:
        return []
    low = int(m.group(1))
    high = int(m.group(2) or m.group(1))
    built = (min(elf_sizes) / 1000.0, max(elf_sizes) / 1000.0)
    if abs(built[0] - low) > ELF_TOLERANCE * low or abs(built[1] - high) > ELF_TOLERANCE * high:
        return ["%s:%d: %s KB, but the routed tiers' ELF files are %d to %d bytes" % (
            README, line, m.group(0)[:-3], min(elf_sizes), max(elf_sizes))]
    return []


def elf_machine(path):
    """The e_machine of an ELF file (62: x86_64, 183: aarch64)."""
    with open(path, "rb") as f:
        head = f.read(20)
    return int.from_bytes(head[18:20], "little") if head[:4] == b"\x7fELF" else None
