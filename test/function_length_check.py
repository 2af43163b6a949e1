"""No function in common/ or variants/ is longer than the house allows (STYLE, helper rules:
none over 50 lines between its braces).

A function's body is what lies between a `{` alone at column 0 (or one that ends a
line closing a parameter list, `...) {`, outside any function) and the next `}` at
column 0 (the kernel style clang-format keeps here). Counted: the lines strictly between the two
braces, blank and comment lines included, as a reader sees them.

Usage: function_length_check.py FILE...   (C sources and headers; other files are skipped)
Exit 1 naming each function over the limit, with its file, line and length."""

import re
import sys

MAX_BODY_LINES = 50
SOURCE_SUFFIXES = (".c", ".h")
OPEN_RE = re.compile(r"^(\{|[^#].*\)\s*\{)\s*$")
NAME_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


def function_name(lines, opening):
    """The name before the first '(' of the declaration that ends at line `opening`."""
    start = opening
    while start > 0 and lines[start - 1].strip() and lines[start - 1][:1] not in "}#/ *":
        start -= 1
    for name in NAME_RE.findall(" ".join(lines[start:opening + 1])):
        if name not in ("__attribute__", "STATIC_ASSERT"):
            return name
    return "?"


def bodies(text):
    """(name, first line, body length) for each function of C text."""
    lines = text.split("\n")
    opening = None
    for i, line in enumerate(lines):
        if opening is None and OPEN_RE.match(line):
            opening = i
        elif opening is not None and line.startswith("}") and not line.startswith("};"):
            yield function_name(lines, opening), opening + 1, i - opening - 1
            opening = None


def self_check():
    """The counter on two made-up functions, one at the limit and one past it, both
    forms of opening brace: returns a problem line, or None when it counts right."""
    def body(n):
        return "\n".join("\tx();" for _ in range(n))
    text = ("static int at_limit(void)\n{\n%s\n}\n\nint past_limit(int a,\n\t       int b) {\n%s\n}\n"
            % (body(MAX_BODY_LINES), body(MAX_BODY_LINES + 1)))
    got = list(bodies(text))
    want = [("at_limit", 2, MAX_BODY_LINES), ("past_limit", MAX_BODY_LINES + 6, MAX_BODY_LINES + 1)]
    return None if got == want else "self-check: counted %r, expected %r" % (got, want)


def main(paths):
    broken = self_check()
    if broken:
        print(broken)
        return 1
    problems = 0
    checked = 0
    for path in paths:
        if not path.endswith(SOURCE_SUFFIXES):
            continue
        with open(path, encoding="utf-8") as f:
            for name, line, length in bodies(f.read()):
                checked += 1
                if length > MAX_BODY_LINES:
                    problems += 1
                    print("%s:%d: %s has %d lines between its braces (at most %d)"
                          % (path, line, name, length, MAX_BODY_LINES))
    print("%d functions, %d over %d lines" % (checked, problems, MAX_BODY_LINES))
    if checked == 0:
        print("no function found: the file list is wrong")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
