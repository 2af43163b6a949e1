#!/usr/bin/env bash
# The short fuzz run `bazel test //...` makes for one target: build it with clang, seed it
# from the conformance rows, run a bounded number of inputs, fail on any finding.
# usage (from BUILD): fuzz_test.sh TARGET RUNS
set -euo pipefail
target=$1 runs=$2
root="${TEST_SRCDIR}/${TEST_WORKSPACE}"
work="${TEST_TMPDIR:-$(mktemp -d)}"
"$root/test/fuzz/build_fuzzer.sh" "$root" "$target" "$work/fuzzer"
prefix=()
[ "$target" = answer ] && prefix=(0)
python3 "$root/test/fuzz/make_seeds.py" "$root/test/wire/data/conformance_cases.tsv" \
	"$work/seeds" "${prefix[@]}"
mkdir -p "$work/corpus"
# -max_total_time bounds a slow machine; -runs is the normal end.
"$work/fuzzer" -runs="$runs" -max_total_time=60 -max_len=16384 \
	-dict="$root/test/fuzz/http.dict" -artifact_prefix="$work/" \
	"$work/corpus" "$work/seeds" 2>&1 | tail -n 5
