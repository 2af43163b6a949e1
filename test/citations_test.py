"""//test:citations_test: every path and BEHAVIOUR section cited in the tree exists
(test/citations.py says what is scanned and how), what the documents claim of the code
holds (test/doc_claims.py: counters, flags and defaults, C names, the README's figures),
and each checker fails on planted bad citations and claims.

Arguments (test/BUILD): [--help-of=DAEMON]... -- FILE...: the daemons whose --help is
scanned, then every file of the tree that Bazel declares (each package's :all_files), as
paths relative to the runfiles root, which is the working directory.
"""

import contextlib
import io
import os
import re
import sys
import tempfile
import unittest

import citations
import doc_claims

HELP_BINARIES = []
DECLARED_FILES = []


def parse_args(argv):
    """Fills HELP_BINARIES and DECLARED_FILES from argv; returns what unittest gets."""
    rest = [argv[0]]
    i = 1
    while i < len(argv):
        if argv[i].startswith("--help-of="):
            HELP_BINARIES.append(argv[i][len("--help-of="):])
            i += 1
        elif argv[i] == "--":
            DECLARED_FILES.extend(os.path.normpath(f) for f in argv[i + 1:])  # ./README.md
            break
        else:
            rest.append(argv[i])
            i += 1
    return rest


def read_file(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class TreeTest(unittest.TestCase):
    def test_every_citation_exists(self):
        self.assertTrue(DECLARED_FILES, "no files given (test/BUILD passes them)")
        self.assertIn(citations.BEHAVIOUR_FILE, DECLARED_FILES)
        ignored = citations.gitignored_paths(read_file(".gitignore"))
        tree = citations.Tree(DECLARED_FILES, ignored)
        bad = citations.check(tree, read_file, citations.help_outputs(HELP_BINARIES))
        if bad:
            self.fail("%d bad citation(s):\n%s" % (len(bad), "\n".join(bad)))

    def test_ci_runs_the_readme_test_command(self):
        """.ci/run runs `{ COMMAND; }`, and COMMAND is a line of README.md as it stands."""
        ci = [l for l in read_file(".ci/run").splitlines() if l.startswith("{ ")]
        self.assertEqual(len(ci), 1, ".ci/run has one `{ command; }` line")
        command = ci[0][2:ci[0].index(";")]
        self.assertIn(command, read_file("README.md").splitlines(),
                      "README.md's test command is not what .ci/run runs")

    def test_every_source_folder_is_declared(self):
        """A file of the working tree that no :all_files declares is neither scanned nor
        found when cited: a new package needs all_files() in its BUILD (bazel/all_files.bzl),
        a new top-level folder an entry in the root BUILD's. Reads the working tree found
        through the runfiles' symlinks, so it checks nothing where they are copies."""
        real = os.path.realpath(citations.BEHAVIOUR_FILE)
        if real == os.path.abspath(citations.BEHAVIOUR_FILE):
            self.skipTest("runfiles are not symlinks to the working tree")
        root = os.path.dirname(os.path.dirname(real))
        files, _ = citations.working_tree_files(root)
        declared = set(DECLARED_FILES)
        missing = sorted(f for f in files
                         if f not in declared and not f.startswith("third_party/"))
        if missing:
            self.fail("files no :all_files filegroup declares (add all_files() to their "
                      "package's BUILD, and the package to test/BUILD's :tree):\n" +
                      "\n".join(missing))


def full_help():
    """The --help of the `full` tier (the first routed tier when none is named full)."""
    full = [b for b in HELP_BINARIES if "/full/" in b] or HELP_BINARIES
    return citations.help_outputs(full[:1])[0][1]


def x86_64_sizes():
    """The routed tiers' ELF sizes when they are x86_64 builds (the README's), else []."""
    if not HELP_BINARIES or any(doc_claims.elf_machine(b) != doc_claims.EM_X86_64
                                for b in HELP_BINARIES):
        return []
    return [os.path.getsize(b) for b in HELP_BINARIES]


def read_report(name):
    path = doc_claims.REPORTS + name
    return read_file(path) if path in DECLARED_FILES else None


class ClaimsTest(unittest.TestCase):
    """The documents' claims about the code, against the code (test/doc_claims.py)."""

    def assertNone(self, bad):
        if bad:
            self.fail("%d false claim(s):\n%s" % (len(bad), "\n".join(bad)))

    def test_counter_lists_are_counters_h(self):
        counters = doc_claims.counter_names(read_file(doc_claims.COUNTERS_H))
        self.assertGreater(len(counters), 10)
        self.assertNone(doc_claims.check_counters(
            counters, read_file(doc_claims.BEHAVIOUR), read_file(doc_claims.OPERATING)))

    def test_flags_and_defaults_are_help(self):
        self.assertTrue(HELP_BINARIES, "no daemon given (test/BUILD passes them)")
        self.assertNone(doc_claims.check_flags(
            full_help(), read_file(doc_claims.README), read_file(doc_claims.OPERATING)))

    def test_architecture_names_every_state_object(self):
        self.assertNone(doc_claims.check_state_list(
            read_file(doc_claims.ARCHITECTURE), read_file(doc_claims.STATE_ALLOWLIST)))

    def test_c_names_exist(self):
        sources = [read_file(f) for f in DECLARED_FILES
                   if f.startswith(doc_claims.SOURCE_FOLDERS)]
        docs = {p: read_file(p) for p in doc_claims.NAME_DOCS}
        self.assertNone(doc_claims.check_c_names(
            docs, doc_claims.words_of(sources), doc_claims.system_header_words))

    def test_readme_figures_come_from_reports_or_the_build(self):
        self.assertNone(doc_claims.check_figures(
            read_file(doc_claims.README), read_report, x86_64_sizes()))


class PlantedClaimsTest(unittest.TestCase):
    """Each claim checker on stale claims of its own."""

    COUNTERS_H = "#define FOR_EACH_COUNTER(X) \\\n\tX(a_b) \\\n\tX(c_d)\n\nenum x;\n"
    HELP = ("usage: apollod [--idle-timeout SECONDS] [--root DIR] [--dotfiles]\n"
            "  --idle-timeout SECONDS     close (default 10)\n"
            "  --root DIR                 serve (default none)\n"
            "  --dotfiles                 also dot names\n")

    def test_counters(self):
        counters = doc_claims.counter_names(self.COUNTERS_H)
        self.assertEqual(counters, ["a_b", "c_d"])
        good_b = "## 7. C\n\nAll 2 counters.\n\n| 1 | `a_b` | x |\n| 2 | `c_d` | y |\n## 8. N\n"
        good_o = "## `/metrics`\n\n```\na_b     (the first)\nc_d\n```\n"
        self.assertEqual(doc_claims.check_counters(counters, good_b, good_o), [])
        bad = doc_claims.check_counters(
            counters, good_b.replace("All 2", "All 3").replace("| 2 | `c_d`", "| 2 | `e_f`"),
            good_o.replace("c_d\n", ""))
        self.assertEqual(len(bad), 3, bad)

    def test_flags(self):
        readme = ("| flag | default | what |\n| --- | --- | --- |\n"
                  "| `--idle-timeout S` | 10 | x |\n"
                  "| `--root DIR`, `--dotfiles` | none; off | y |\n")
        operating = ("## Flags\n\n```\napollod [--idle-timeout SECONDS] [--root DIR]\n"
                     "        [--dotfiles]\n```\n\n- `--idle-timeout` (default 10 s) ...\n")
        self.assertEqual(doc_claims.check_flags(self.HELP, readme, operating), [])
        bad = doc_claims.check_flags(
            self.HELP, readme.replace("| 10 |", "| 30 |").replace("`--dotfiles`", "`--dots`"),
            operating.replace("(default 10 s)", "(default 5)").replace("[--dotfiles]", ""))
        self.assertEqual(sorted(re.split(r"[: ]", b)[0] for b in bad),
                         ["README.md", "README.md", "README.md", "docs/OPERATING.md",
                          "docs/OPERATING.md"], bad)

    def test_state_list(self):
        allowlist = "# name kind file why\nloop state x.c y\nconn_table slot x.c y\n"
        good = "## State: s\n\n`loop` and `conn_table`.\n\n## Next\n\n`pool`\n"
        self.assertEqual(doc_claims.check_state_list(good, allowlist), [])
        bad = doc_claims.check_state_list(good, allowlist + "pool state x.c y\n")
        self.assertEqual(len(bad), 1, bad)
        self.assertIn("`pool`", bad[0])

    def test_sizes_compare_as_bytes(self):
        self.assertTrue(doc_claims.same_default("256 MiB", "268435456"))
        self.assertTrue(doc_claims.same_default("256M", "268435456"))
        self.assertFalse(doc_claims.same_default("128M", "268435456"))

    def test_c_names(self):
        docs = {"docs/ARCHITECTURE.md": "`conn_read` and `serve()`, `struct conn`, `loop`\n"
                                        "`LISTENER_TOKEN`, `EPOLLEXCLUSIVE`, `tcp_sendmsg`\n"}
        bad = doc_claims.check_c_names(docs, {"conn_read", "serve", "conn"},
                                       lambda: {"EPOLLEXCLUSIVE"})
        self.assertEqual(len(bad), 1, bad)
        self.assertIn("docs/ARCHITECTURE.md:2: `LISTENER_TOKEN`", bad[0])

    def test_readme_figures(self):
        reports = {"2026-01-01-x.md": "| full | 7.68 (0.99x) | 148 kB |\n"}
        readme = ("A static ELF of 115 to 124 KB.\n\nIdle: 148 kB (2026-01-01-x.md).\n\n"
                  "Rows of 2026-01-01-x.md:\n\n| row | full |\n| --- | ---: |\n"
                  "| CPU µs | 7.68 |\n\n| tier | flags |\n| --- | --- |\n| full | 4096 |\n")
        sizes = [114816, 123904]
        self.assertEqual(doc_claims.check_figures(readme, reports.get, sizes), [])
        stale = (readme.replace("115 to 124 KB", "72 to 83 KB").replace("148 kB", "128-132 kB")
                 .replace("| 7.68 |", "| 7.5 |") + "\nIt takes 14 minutes.\n")
        bad = doc_claims.check_figures(stale, reports.get, sizes)
        self.assertEqual([b.split(": ", 1)[1].split(" ")[0] for b in bad],
                         ["72", "128", "132", "7.5", "14"], bad)


class PlantedTest(unittest.TestCase):
    """The checker on a small tree of its own, with bad citations planted."""

    FILES = {
        "docs/BEHAVIOUR.md": "# b\n\n## 1. One\n\n### 1.2 Two\n\nSee section 1.2 and section 4.\n",
        "common/a.c": (
            "/* Reads common/b.h and common/gone.h (BEHAVIOUR 1.2, BEHAVIOUR 9.9). */\n"
            "int a; // //bench:counts is a label, common/*.h a glob, common/<x>.c a placeholder,\n"
            "// common/{a,b}.c braces, b012bb9:bench/old.sh an old commit's file, and\n"
            "// BEHAVIOUR\n"
            "// 3 wraps.\n"
            "const char *s = \"common/not_a_comment.c BEHAVIOUR 8\";\n"
        ),
        "common/b.h": "# common/gone.py is not a comment in a header\n",
        "common/b.c": "",
        "bench/x.py": '"""Uses bench/y.py and test/wire:suite."""\n# See docs/NOPE.md.\nX = 1\n',
        "test/wire/BUILD": "# test/wire/README.md, BEHAVIOUR 1\n",
        "README.md": (
            "Run `./scripts/gone.sh`; read [the contract](docs/BEHAVIOUR.md) and\n"
            "[old](docs/OLD.md); outputs in `compare/out/` (ignored). BEHAVIOUR 1-5.\n"
        ),
        ".gitignore": "/compare/out/\n",
    }
    EXPECTED = [
        "README.md:1: path scripts/gone.sh: no such file or folder",
        "README.md:2: link docs/OLD.md: no such file or folder",
        "README.md:2: section 5: no heading 5 in docs/BEHAVIOUR.md",
        "bench/x.py:1: path bench/y.py: no such file or folder",
        "bench/x.py:2: path docs/NOPE.md: no such file or folder",
        "common/a.c:1: path common/gone.h: no such file or folder",
        "common/a.c:1: section 9.9: no heading 9.9 in docs/BEHAVIOUR.md",
        "common/a.c:4: section 3: no heading 3 in docs/BEHAVIOUR.md",
        "docs/BEHAVIOUR.md:7: section 4: no heading 4 in docs/BEHAVIOUR.md",
        "test/wire/BUILD:1: path test/wire/README.md: no such file or folder",
        "the daemon --help: section 7: no heading 7 in docs/BEHAVIOUR.md",
        "the daemon --help: path common/help.c: no such file or folder",
    ]

    def test_bad_citations_named_with_file_and_line(self):
        tree = citations.Tree(self.FILES, ["compare/out"])
        help_text = [("the daemon --help", "  --x  see BEHAVIOUR 1 and 7, common/help.c\n")]
        bad = citations.check(tree, self.FILES.__getitem__, help_text)
        bad = [b.replace("the daemon --help:1:", "the daemon --help:") for b in bad]
        self.assertEqual(sorted(bad), sorted(self.EXPECTED))

    def test_command_line_fails_on_a_planted_file(self):
        with tempfile.TemporaryDirectory() as root:
            for path, text in self.FILES.items():
                os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
                with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                    f.write(text)
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
                self.assertEqual(citations.main(["citations.py", root]), 1)
            self.assertIn("common/a.c:1: path common/gone.h: no such file or folder",
                          printed.getvalue())
            os.remove(os.path.join(root, "common/a.c"))
            for path in ("bench/x.py", "test/wire/BUILD", "README.md"):
                os.remove(os.path.join(root, path))
            with open(os.path.join(root, "docs/BEHAVIOUR.md"), "w", encoding="utf-8") as f:
                f.write("## 1. One\n")
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
                self.assertEqual(citations.main(["citations.py", root]), 0)


if __name__ == "__main__":
    unittest.main(argv=parse_args(sys.argv))
