#!/bin/sh
# A focused keep-alive run of one daemon binary: wrk for DURATION seconds at C connections
# (2 threads), with /metrics read before and after and the daemon's utime+stime taken from
# /proc/PID/stat over the same window. Prints requests/s, syscalls per request and server
# CPU microseconds per request. Loopback only; bounded by wrk's duration.
#
# Usage: [PORT=N] bench/uring_focus.sh BINARY [C] [DURATION] [PIPELINE_DEPTH]
#   PIPELINE_DEPTH > 1 uses bench/wrk_pipeline.lua (that many GET / per write).
#   PORT: the loopback port (default: derived from the shell's pid); bench/uring_ab.py
#   passes one the kernel just handed out.
set -eu
bin=$1
conns=${2:-64}
duration=${3:-5}
depth=${4:-1}
here=$(cd "$(dirname "$0")" && pwd)
port=${PORT:-$((20000 + $$ % 20000))}
"$bin" --listen 127.0.0.1:$port >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
sleep 0.3
metric() { curl -s "http://127.0.0.1:$port/metrics" | awk -v k="$1" '$1 == k {print $2}'; }
cpu() { awk '{print $14 + $15}' /proc/$pid/stat; }  # utime + stime, clock ticks
tck=$(getconf CLK_TCK)
script=""
[ "$depth" -gt 1 ] && script="-s $here/wrk_pipeline.lua"
wrk -t2 -c"$conns" -d1s $script "http://127.0.0.1:$port/" ${script:+-- $depth} >/dev/null  # warm
r0=$(metric requests_total); s0=$(metric syscalls_total); c0=$(cpu)
out=$(wrk -t2 -c"$conns" -d"${duration}s" $script "http://127.0.0.1:$port/" ${script:+-- $depth})
c1=$(cpu); r1=$(metric requests_total); s1=$(metric syscalls_total)
# The first scrape's own response and the second's request are inside the window: 2 requests.
awk -v r="$((r1 - r0 - 1))" -v s="$((s1 - s0))" -v c="$((c1 - c0))" -v t="$tck" -v d="$duration" \
    -v bin="$bin" -v conns="$conns" -v depth="$depth" 'BEGIN {
	printf "%s c=%d depth=%d: %.0f requests/s, %.4f syscalls/request, %.2f us CPU/request (%d requests)\n",
	       bin, conns, depth, r / d, s / r, c / t * 1e6 / r, r }'
