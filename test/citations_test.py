"""//test:citations_test: every path and BEHAVIOUR section cited in the tree exists
(test/citations.py says what is scanned and how), and the checker fails on planted bad
citations.

Arguments (test/BUILD): [--help-of=DAEMON]... -- FILE...: the daemons whose --help is
scanned, then every file of the tree that Bazel declares (each package's :all_files), as
paths relative to the runfiles root, which is the working directory.
"""

import contextlib
import io
import os
import sys
import tempfile
import unittest

import citations

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
