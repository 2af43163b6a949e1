#!/bin/bash
# Load CPU and time to first response with and without gzip at load
# (benchmarks/reports/2026-12-03-compression.md, 2026-12-04-compress-readiness.md).
# Usage: compress_load.sh BINARY ROOT MODE [FLAG...]
# Starts BINARY --root ROOT --compress MODE [FLAG...] on a free-ish loopback port, polls
# GET /index.html every 10 ms (at most 60 s), then prints the wall seconds to the first
# response and the CPU seconds (user + system, with reaped children) of the daemon and its
# children so far, and stops it.
set -u
bin=$1 root=$2 mode=$3
shift 3
port=$((19000 + RANDOM % 500))
t0=$(date +%s.%N)
"$bin" --listen 127.0.0.1:$port --root "$root" --compress "$mode" "$@" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 6000); do
	curl -s -o /dev/null "http://127.0.0.1:$port/index.html" && break
	sleep 0.01
done
t1=$(date +%s.%N)
ticks=0
for p in $pid $(pgrep -P $pid); do
	read -r -a st <"/proc/$p/stat"
	ticks=$((ticks + st[13] + st[14] + st[15] + st[16]))
done
kill $pid
wait $pid 2>/dev/null
echo "$mode first-response $(echo "$t1 - $t0" | bc) s cpu $(echo "scale=2; $ticks / $(getconf CLK_TCK)" | bc) s"
