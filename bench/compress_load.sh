#!/bin/bash
# Load CPU and time to first response with and without gzip at load, and to the gzip
# forms (benchmarks/reports/2026-12-03-compression.md, 2026-12-04-compress-readiness.md,
# 2026-12-06-compress-handover.md).
# Usage: compress_load.sh BINARY ROOT MODE [FLAG...]
# Starts BINARY --root ROOT --compress MODE [FLAG...] on a free-ish loopback port, polls
# GET /index.html every 10 ms (at most 60 s), then prints the wall seconds to the first
# response and the CPU seconds (user + system, with reaped children) of the daemon and its
# children so far; with MODE gzip (and a binary that has gzip_pending) it then polls /metrics every 10 ms (at most 600 s) until
# gzip_pending reads 0 (the compressing generation serves the gzip forms, BEHAVIOUR
# 10.10) and prints the same two figures for that moment; then stops it.
set -u
bin=$1 root=$2 mode=$3
shift 3
port=$((19000 + RANDOM % 500))
t0=$(date +%s.%N)
"$bin" --listen 127.0.0.1:$port --root "$root" --compress "$mode" "$@" >/dev/null 2>&1 &
pid=$!

# CPU seconds of the daemon and its children now (reaped ones in cutime/cstime).
cpu() {
	local ticks=0 p
	for p in $pid $(pgrep -P $pid); do
		read -r -a st <"/proc/$p/stat" || continue
		ticks=$((ticks + st[13] + st[14] + st[15] + st[16]))
	done
	echo "scale=2; $ticks / $(getconf CLK_TCK)" | bc
}

for _ in $(seq 6000); do
	curl -s -o /dev/null "http://127.0.0.1:$port/index.html" && break
	sleep 0.01
done
t1=$(date +%s.%N)
line="$mode first-response $(echo "$t1 - $t0" | bc) s cpu $(cpu) s"
# A binary without gzip_pending (before 2026-12-06) compressed before its first response.
if [ "$mode" = gzip ] && curl -s "http://127.0.0.1:$port/metrics" | grep -q '^gzip_pending '; then
	for _ in $(seq 60000); do
		curl -s "http://127.0.0.1:$port/metrics" | grep -qx 'gzip_pending 0' && break
		sleep 0.01
	done
	t2=$(date +%s.%N)
	line="$line gzip-served $(echo "$t2 - $t0" | bc) s cpu $(cpu) s"
fi
kill $pid
wait $pid 2>/dev/null
echo "$line"
