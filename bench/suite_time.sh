#!/usr/bin/env bash
# The README's test command from an empty Bazel cache, timed half by half, with a profile
# per half for bench/suite_profile.py (docs/BUILDING.md, "How long it takes").
#
# Usage: bench/suite_time.sh OUT_DIR   (run from a fresh clone: its own output base)
# Writes OUT_DIR/{x86_64,aarch64}.{log,prof} and prints one line per step: its wall
# clock, its exit status, the CPU time of the processes the Bazel server ran for it (its
# reaped children: every compile, link and test; the server's own Java is not counted)
# and the machine's load average. --disk_cache= turns off the disk cache ~/.bazelrc may
# name, so every compile and test runs. Exits 1 if a step fails.
set -uo pipefail
out=${1:?usage: bench/suite_time.sh OUT_DIR}
mkdir -p "$out"
cd "$(dirname "$0")/.." || exit 1
load() { cut -d' ' -f1-3 /proc/loadavg; }
# children_cpu: seconds of CPU the Bazel server's reaped children used so far (fields 16
# and 17 of /proc/PID/stat, cutime and cstime, in clock ticks); 0 with no server.
children_cpu() {
	local pid
	pid=$(bazel info server_pid 2>/dev/null) || { echo 0; return; }
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.0f", ($14 + $15) / hz }' \
		"/proc/$pid/stat"
}
step() { # step NAME COMMAND...: runs it, prints how long it took
	local name=$1 start=$SECONDS cpu_before cpu_after
	shift
	cpu_before=$(children_cpu)
	"$@" >"$out/$name.log" 2>&1
	local rc=$?
	cpu_after=$(children_cpu)
	echo "$name: $((SECONDS - start)) s, exit $rc, actions' CPU $((cpu_after - cpu_before)) s," \
		"load average $(load)"
	return $rc
}
echo "start: $(git rev-parse --short HEAD), load average $(load)"
step bootstrap ./scripts/bootstrap.sh &&
	step x86_64 bazel test --disk_cache= --profile="$out/x86_64.prof" //... &&
	step aarch64 bazel test --config=aarch64 --disk_cache= --profile="$out/aarch64.prof" //...
rc=$?
echo "total: $SECONDS s"
exit $rc
