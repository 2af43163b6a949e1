#!/usr/bin/env bash
# Runs a Python program of this repository from Bazel runfiles with Debian's python3
# (no py_binary: Bazel 4's Python toolchain is not worth the trouble offline).
# Usage: run_python.sh SCRIPT [ARGS...], SCRIPT relative to the workspace root.
# Exports APOLLOD_ROOT, the runfiles copy of the workspace, for the script.
set -euo pipefail
if [ -n "${RUNFILES_DIR:-}" ]; then
	runfiles="$RUNFILES_DIR"
elif [ -n "${TEST_SRCDIR:-}" ]; then
	runfiles="$TEST_SRCDIR"
elif [ -d "$0.runfiles" ]; then
	runfiles="$0.runfiles"
else
	echo "run_python.sh: cannot find the runfiles of $0" >&2
	exit 2
fi
export APOLLOD_ROOT="$runfiles/apollod"
script="$1"
shift
exec /usr/bin/python3 "$APOLLOD_ROOT/$script" "$@"
