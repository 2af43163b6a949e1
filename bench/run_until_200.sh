#!/bin/bash
# Runs a daemon that announces "listening on ...:PORT" until it first answers 200, for
# profiling its start-up (benchmarks/reports/2026-12-06-loader.md):
#   perf record -g -o perf.data -- bench/run_until_200.sh OUT BINARY --listen 127.0.0.1:0 --root DIR ...
# OUT.stdout gets the daemon's stdout. Polls GET /index.html every 10 ms, at most 3,000
# times, then sends SIGTERM and waits for the daemon.
out=$1
shift
"$@" >"$out.stdout" 2>/dev/null &
pid=$!
for _ in $(seq 3000); do
	p=$(grep -o '[0-9]*$' "$out.stdout" 2>/dev/null)
	[ -n "$p" ] && curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$p/index.html" | grep -q 200 && break
	sleep 0.01
done
kill -TERM $pid
wait $pid
