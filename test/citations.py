"""Every repository path and every BEHAVIOUR section a document cites must exist.

Scanned: every `*.md` file (its whole text), the comments of code (C, headers, `.S`, `.cc`:
`//` and `/* */`; Python, `.bzl` and BUILD: `#` comments and docstrings; shell: `#`
comments), and the daemon's `--help` output. Checked in them:

- a path that starts with one of PATH_PREFIXES (`common/serve/conn.c`, `test/wire/`,
  `./scripts/bootstrap.sh`) must be a file or a directory of the tree. A glob or a
  placeholder names every file it matches and must match one (`common/*/*.c`,
  `common/arch/<cpu>/`, `common/serve/backend_{epoll,uring}.c`; `backend_uring.c/h` is the .c
  and the .h). A Bazel label is not a path (`//bench:counts`); `test/wire:wire_suite`
  names the package `test/wire`. A path behind a commit (`b012bb9:bench/x.sh`, git's
  spelling) names a file of that commit and is not checked. Paths the root `.gitignore`
  ignores (`compare/out/`) are outputs, not checked;
- a Markdown link's relative target, from the linking file's folder;
- `BEHAVIOUR n` and `BEHAVIOUR n.m` (also `BEHAVIOR`, `BEHAVIOUR.md`, `section(s)`, lists
  such as `6, 7 and 9`, ranges such as `2-7` or `10.8 to 10.10`), and in
  docs/BEHAVIOUR.md its own `section n`: a heading `## n.` or `### n.m` of
  docs/BEHAVIOUR.md.

Run by hand from the workspace root (`python3 test/citations.py`) it checks the working
tree; //test:citations_test runs it on the files Bazel declares (test/BUILD).
"""

import ast
import fnmatch
import io
import os
import re
import subprocess
import sys
import tokenize

# The folders a cited repository path starts with.
PATH_PREFIXES = (
    "common", "bench", "test", "docs", "compare", "variants", "benchmarks", "scripts",
    "packaging", "bazel", ".ci",
)
BEHAVIOUR_FILE = "docs/BEHAVIOUR.md"

C_LIKE = (".c", ".h", ".cc", ".S")
PYTHON_LIKE = (".py", ".bzl")
SHELL_LIKE = (".sh",)

_SECTION = r"\d+(?:\.\d+)?"
_SECTION_LIST = _SECTION + r"(?:\s*(?:,|and|or|to|-|–)\s*" + _SECTION + r")*"
# BEHAVIOUR, then anything a comment or a sentence puts before the number: spaces, a line
# break and its comment leader, ",", ":", "§", "section(s)".
BEHAVIOUR_RE = re.compile(
    r"BEHAVIOU?R(?:\.md)?(?:[\s*/#,:§]|sections?\b)*?(" + _SECTION_LIST + r")(?![\w.]*\d)"
)
OWN_SECTION_RE = re.compile(r"\bsections?\s+(" + _SECTION_LIST + r")")
HEADING_RE = re.compile(r"^#{2,6}\s+(\d+(?:\.\d+)*)\.?\s", re.M)

_PATH_CHARS = r"[\w.*?\[\]{}<>,/+\-]"
PATH_RE = re.compile(
    r"(?<![\w/\-~$.@])(?:\./)?((?:" + "|".join(re.escape(p) for p in PATH_PREFIXES) +
    r")/" + _PATH_CHARS + r"*)"
)
COMMIT_BEFORE_RE = re.compile(r"\b[0-9a-f]{7,40}:$")
MD_LINK_RE = re.compile(r"\]\(([^)\s]+)\)")


class Citation:
    """One cited thing: where (file, line) and what (kind: path, link or section)."""

    def __init__(self, where, line, kind, text):
        self.where, self.line, self.kind, self.text = where, line, kind, text

    def __str__(self):
        return "%s:%d: %s %s" % (self.where, self.line, self.kind, self.text)


# ---- Comment text of each kind of file: a list of (first line, text) ----


def c_comments(source):
    """The // and /* */ comments of C-like source, skipping string and character
    literals; consecutive // lines join into one piece (so a citation may wrap)."""
    pieces = []
    i, n, line = 0, len(source), 1
    last_line_comment_end = None
    while i < n:
        ch = source[i]
        if ch == "\n":
            line += 1
            i += 1
        elif source.startswith("//", i):
            end = source.find("\n", i)
            end = n if end < 0 else end
            text = source[i + 2:end]
            if last_line_comment_end == line - 1 and pieces:
                first, previous = pieces[-1]
                pieces[-1] = (first, previous + "\n" + text)
            else:
                pieces.append((line, text))
            last_line_comment_end = line
            i = end
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end
            text = source[i + 2:end]
            pieces.append((line, text))
            line += text.count("\n")
            i = end + 2
        elif ch in "\"'":
            j = i + 1
            while j < n and source[j] != ch and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            i = j + 1
        else:
            i += 1
    return pieces


def python_comments(source):
    """The # comments (consecutive lines joined) and the docstrings of Python or Starlark
    source; # comments by a line scan when the source does not tokenize."""
    pieces = []
    try:
        previous_line = None
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type != tokenize.COMMENT:
                continue
            text, row = tok.string[1:], tok.start[0]
            if previous_line == row - 1 and pieces:
                pieces[-1] = (pieces[-1][0], pieces[-1][1] + "\n" + text)
            else:
                pieces.append((row, text))
            previous_line = row
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pieces = hash_comments(source)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return pieces
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list) or not body:
            continue
        first = body[0]
        if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and
                isinstance(first.value.value, str)):
            pieces.append((first.lineno, first.value.value))
    return pieces


def hash_comments(source):
    """Shell-style comments: from a # that starts a word to the end of the line (not a
    #! first line); consecutive comment lines join."""
    pieces = []
    previous = None
    for row, text in enumerate(source.split("\n"), 1):
        if row == 1 and text.startswith("#!"):
            continue
        m = re.search(r"(?:^|[\s;])#(.*)$", text)
        if not m:
            continue
        if previous == row - 1 and pieces:
            pieces[-1] = (pieces[-1][0], pieces[-1][1] + "\n" + m.group(1))
        else:
            pieces.append((row, m.group(1)))
        previous = row
    return pieces


def scanned_text(path, source):
    """What of a file is scanned: [(first line, text)], [] for a file not scanned."""
    name = os.path.basename(path)
    if path.endswith(".md"):
        return [(1, source)]
    if path.endswith(C_LIKE):
        return c_comments(source)
    if path.endswith(PYTHON_LIKE) or name in ("BUILD", "BUILD.bazel", "WORKSPACE"):
        return python_comments(source)
    if path.endswith(SHELL_LIKE) or source.startswith(("#!/bin/sh", "#!/usr/bin/env bash",
                                                        "#!/bin/bash")):
        return hash_comments(source)
    return []


# ---- Finding citations in text ----


def _sections(listed):
    """The sections a list such as "6, 7 and 9", "2-7" or "10.8 to 10.10" names."""
    return re.findall(_SECTION, listed)


def find_citations(where, pieces, own_sections=False):
    """The citations in pieces [(first line, text)] of file `where`."""
    found = []
    for first, text in pieces:
        def line_of(pos):
            return first + text.count("\n", 0, pos)

        for m in BEHAVIOUR_RE.finditer(text):
            for s in _sections(m.group(1)):
                found.append(Citation(where, line_of(m.start()), "section", s))
        if own_sections:
            for m in OWN_SECTION_RE.finditer(text):
                for s in _sections(m.group(1)):
                    found.append(Citation(where, line_of(m.start()), "section", s))
        for m in PATH_RE.finditer(text):
            if COMMIT_BEFORE_RE.search(text, max(0, m.start() - 41), m.start()):
                continue  # git's commit:path, a file of that commit
            if where.endswith(".md") and text.endswith("](", 0, m.start()):
                continue  # a link's target: checked as a link, below
            path = _trim(m.group(1))
            found.append(Citation(where, line_of(m.start()), "path", path))
        if where.endswith(".md"):
            for m in MD_LINK_RE.finditer(text):
                target = m.group(1).split("#", 1)[0]
                if not target or re.match(r"^[a-z]+:", target) or target.startswith("/"):
                    continue
                resolved = os.path.normpath(os.path.join(os.path.dirname(where), target))
                found.append(Citation(where, line_of(m.start()), "link", resolved))
    return found


def _trim(path):
    """A matched path without the punctuation of the sentence or comment around it."""
    while True:
        if path.endswith("*/"):
            path = path[:-2]
        elif path and path[-1] in ".,;:":
            path = path[:-1]
        elif path.endswith(("]", "}", ">")) and path.count(path[-1]) > path.count(
                {"]": "[", "}": "{", ">": "<"}[path[-1]]):
            path = path[:-1]
        else:
            return path


# ---- The tree ----


class Tree:
    """The repository's files (paths relative to its root) and what they imply."""

    def __init__(self, files, ignored=()):
        self.files = set(files)
        self.dirs = set()
        for f in self.files:
            d = os.path.dirname(f)
            while d and d not in self.dirs:
                self.dirs.add(d)
                d = os.path.dirname(d)
        self.ignored = list(ignored)

    def is_ignored(self, path):
        return any(path == i or path.startswith(i + "/") for i in self.ignored)

    def has(self, path):
        """True when path (a file, a folder, a glob) names something of the tree."""
        path = path.rstrip("/") or path
        for expanded in _expand_braces(path):
            # <tier> is a placeholder; ".*" is a regular expression's "anything"
            pattern = re.sub(r"<[^<>/]*>", "*", expanded).replace(".*", "*")
            if self.is_ignored(pattern):
                continue
            if any(c in pattern for c in "*?["):
                if not any(fnmatch.fnmatchcase(p, pattern) for p in self.files | self.dirs):
                    return False
            elif pattern not in self.files and pattern not in self.dirs:
                if not self._has_pair(pattern):
                    return False
        return True

    def _has_pair(self, path):
        """`x.c/h` or `x.c/.h`: both x.c and x.h."""
        m = re.match(r"^(.*)\.(\w{1,3})/\.?(\w{1,3})$", path)
        return bool(m) and all(
            "%s.%s" % (m.group(1), ext) in self.files for ext in (m.group(2), m.group(3)))


def _expand_braces(path):
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    out = []
    for alt in m.group(1).split(","):
        out.extend(_expand_braces(path[:m.start()] + alt + path[m.end():]))
    return out


def gitignored_paths(gitignore_text):
    """The anchored entries (`/compare/out/`) of a root .gitignore: outputs, not sources."""
    out = []
    for line in gitignore_text.splitlines():
        line = line.strip()
        if line.startswith("/") and not any(c in line for c in "*?["):
            out.append(line.strip("/"))
    return out


def behaviour_sections(text):
    """The section numbers docs/BEHAVIOUR.md's headings define."""
    return set(HEADING_RE.findall(text))


# ---- The check ----


def check(tree, read, help_texts=()):
    """Every bad citation in the tree's files, as "file:line: kind text: why" lines.
    read(path) returns a file's text; help_texts: [(name, text)] of --help outputs."""
    sections = behaviour_sections(read(BEHAVIOUR_FILE)) if BEHAVIOUR_FILE in tree.files \
        else set()
    citations = []
    for path in sorted(tree.files):
        try:
            source = read(path)
        except UnicodeDecodeError:
            continue
        pieces = scanned_text(path, source)
        if pieces:
            citations += find_citations(path, pieces, own_sections=path == BEHAVIOUR_FILE)
    for name, text in help_texts:
        citations += find_citations(name, [(1, text)])
    bad = []
    for c in sorted(citations, key=lambda c: (c.where, c.line)):
        if c.kind == "section":
            if c.text not in sections:
                bad.append("%s: no heading %s in %s" % (c, c.text, BEHAVIOUR_FILE))
        elif not tree.has(c.text):
            bad.append("%s: no such file or folder" % c)
    return bad


def help_outputs(binaries):
    """[(name, --help output)] of each daemon binary, run under $APOLLOD_EMULATOR when
    set (qemu for an aarch64 build: bazel/aarch64/qemu_run.sh)."""
    launcher = os.environ.get("APOLLOD_EMULATOR", "").split()
    out = []
    for b in binaries:
        r = subprocess.run(launcher + [b, "--help"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=60, check=False)
        if r.returncode != 0:
            raise RuntimeError("%s --help exited %d" % (b, r.returncode))
        out.append(("%s --help" % b, r.stdout.decode("utf-8", "replace")))
    return out


def working_tree_files(root):
    """The files of a working tree at root, without Git's, Bazel's and ignored ones."""
    ignored = gitignored_paths(_read_or_empty(os.path.join(root, ".gitignore")))
    files = []
    for d, subdirs, names in os.walk(root):
        rel = os.path.relpath(d, root)
        rel = "" if rel == "." else rel
        subdirs[:] = [s for s in subdirs
                      if s != ".git" and s != "__pycache__" and not s.startswith("bazel-")
                      and not os.path.join(rel, s) in ignored]
        files += [os.path.join(rel, n) for n in names if n != ".git"]  # a worktree's
    return files, ignored


def _read_or_empty(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return ""


def main(argv):
    """python3 test/citations.py [ROOT]: checks the working tree at ROOT (default: .)."""
    root = argv[1] if len(argv) > 1 else "."
    files, ignored = working_tree_files(root)

    def read(p):
        with open(os.path.join(root, p), encoding="utf-8") as f:
            return f.read()

    bad = check(Tree(files, ignored), read)
    for line in bad:
        print(line)
    print("%d bad citation(s)" % len(bad), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
