#!/usr/bin/env bash
# A long fuzz run of one target, outside Bazel: builds it, seeds it from the conformance
# rows, keeps its corpus and any crash under /tmp/apollod-fuzz/TARGET, and prints
# libFuzzer's final statistics (the execution count is "#N" on its last lines).
# usage: test/fuzz/run_long.sh parser|differential|answer SECONDS  (from the repository root)
set -euo pipefail
target=$1 seconds=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
work=/tmp/apollod-fuzz/$target
mkdir -p "$work/corpus"
"$root/test/fuzz/build_fuzzer.sh" "$root" "$target" "$work/fuzzer"
prefix=()
[ "$target" = answer ] && prefix=(0)
python3 "$root/test/fuzz/make_seeds.py" "$root/test/wire/data/conformance_cases.tsv" \
	"$work/seeds" "${prefix[@]}"
"$work/fuzzer" -max_total_time="$seconds" -max_len=16384 -print_final_stats=1 \
	-dict="$root/test/fuzz/http.dict" -artifact_prefix="$work/" \
	"$work/corpus" "$work/seeds" 2>&1 | tail -n 20
