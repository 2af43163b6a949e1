#!/usr/bin/env bash
# send_profile.sh: where a server's CPU goes per response for one large file body (issue
# 34; benchmarks/reports/2026-12-06-send-pipes.md, section 8). The server runs pinned to
# CPU 0 and wrk (-t1, keep-alive) to CPU 1 for DURATION seconds; over that run it reads,
# summed over every process of the server's tree:
#   - CPU per response from /proc/PID/stat (utime + stime), as bench/cpu_independent.py;
#   - system calls per response (perf stat, tracepoint raw_syscalls:sys_enter);
#   - voluntary context switches per response (/proc/PID/task/*/status): how often the
#     server went to sleep, that is, waited for the socket or for a request;
# then, in a second run of the same length, perf record samples the server (cpu-clock at
# 4,000 Hz, so a sample is 250 us of CPU) and prints the share of its samples in user
# space and its ten heaviest symbols, with samples per response.
#
#   bench/send_profile.sh SIZE_BYTES CONNECTIONS DURATION -- apollod --root DIR ...
#   bench/send_profile.sh SIZE_BYTES CONNECTIONS DURATION -- nginx ROOT
#
# The file asked for is /SIZE_BYTES.bin under the root (it is made if absent: random
# bytes). The daemon is given --listen 127.0.0.1:PORT; for "nginx ROOT" a config like
# bench/cpu_independent.py's (sendfile on, tcp_nopush on, one process) is written to a
# temporary directory. Needs perf, wrk, taskset and curl; loopback only, bounded by
# DURATION.
set -euo pipefail
[ $# -ge 5 ] && [ "$4" = "--" ] || { sed -n '13,16p' "$0" >&2; exit 2; }
size=$1 conns=$2 duration=$3
shift 4
port=$((20000 + RANDOM % 20000))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ "$1" = nginx ]; then
	root=$2
	mkdir -p "$work/t"
	cat > "$work/nginx.conf" <<EOF
daemon off; master_process off; worker_processes 1;
error_log $work/error.log warn; pid $work/nginx.pid;
events { worker_connections 1024; }
http { access_log off; keepalive_requests 1000000; sendfile on; tcp_nopush on;
  client_body_temp_path $work/t/cb; proxy_temp_path $work/t/px; fastcgi_temp_path $work/t/fc;
  uwsgi_temp_path $work/t/uw; scgi_temp_path $work/t/sc;
  server { listen 127.0.0.1:$port; location / { root $root; } } }
EOF
	server=(/usr/sbin/nginx -c "$work/nginx.conf" -p "$work")
else
	root=$(printf '%s\n' "$@" | sed -n '/^--root$/{n;p;q}')
	server=("$@" --listen "127.0.0.1:$port")
fi
[ -n "$root" ] || { echo "send_profile: no root (apollod needs --root DIR)" >&2; exit 2; }
file=$root/$size.bin
[ -f "$file" ] || head -c "$size" /dev/urandom > "$file"
url=http://127.0.0.1:$port/$size.bin

# start: the server on CPU 0; sets pid and pids (its tree, comma-separated)
start() {
	taskset -c 0 "${server[@]}" > "$work/server.log" 2>&1 &
	pid=$!
	for _ in $(seq 200); do
		curl -sf -o /dev/null "$url" && break
		sleep 0.05
	done
	pids=$pid
	for child in $(pgrep -P "$pid" || true); do
		pids="$pids,$child"
		for grandchild in $(pgrep -P "$child" || true); do pids="$pids,$grandchild"; done
	done
}
stop() { kill "$pid"; wait "$pid" 2> /dev/null || true; }
sum_status() { # sum of a /proc/PID/task/*/status field over the tree
	local total=0 p v
	for p in ${pids//,/ }; do
		for v in $(awk -v k="$1" '$1 == k {print $2}' /proc/"$p"/task/*/status 2> /dev/null); do
			total=$((total + v))
		done
	done
	echo "$total"
}
ticks() {
	local total=0 p
	for p in ${pids//,/ }; do total=$((total + $(awk '{print $14 + $15}' /proc/"$p"/stat))); done
	echo "$total"
}
responses() { awk '/requests in/ {print $1}' "$1"; }
load=$(cut -d' ' -f1-3 /proc/loadavg)

start
v0=$(sum_status voluntary_ctxt_switches:) t0=$(ticks)
perf stat -e raw_syscalls:sys_enter -p "$pids" -o "$work/stat.txt" -- \
	taskset -c 1 wrk -t1 -c"$conns" -d"${duration}s" "$url" > "$work/wrk1.txt"
v1=$(sum_status voluntary_ctxt_switches:) t1=$(ticks)
stop
n=$(responses "$work/wrk1.txt")
calls=$(awk '/raw_syscalls/ {gsub(",", "", $1); print $1}' "$work/stat.txt")
hz=$(getconf CLK_TCK)

start
taskset -c 1 wrk -t1 -c"$conns" -d"${duration}s" "$url" > "$work/wrk2.txt" &
wrk_pid=$!
perf record -q -F 4000 -e cpu-clock -p "$pids" -o "$work/perf.data" -- sleep "$duration" > /dev/null 2>&1
wait "$wrk_pid"
stop
n2=$(responses "$work/wrk2.txt")
samples=$(perf script -i "$work/perf.data" -F ip 2> /dev/null | wc -l)
user=$(perf report -i "$work/perf.data" --sort dso --stdio 2> /dev/null |
	awk '/%/ && !/kernel/ {gsub("%", "", $1); s += $1} END {printf "%.1f", s}')

printf '%s bytes, c=%s, %s s; load average before %s\n' "$size" "$conns" "$duration" "$load"
awk -v n="$n" -v c="$calls" -v v="$((v1 - v0))" -v t="$((t1 - t0))" -v hz="$hz" 'BEGIN {
	printf "run 1: %d responses; per response: %.0f us CPU, %.1f system calls, %.2f voluntary switches\n",
		n, t * 1e6 / hz / n, c / n, v / n }'
awk -v n="$n2" -v s="$samples" -v u="$user" 'BEGIN {
	printf "run 2: %d responses, %d samples (%.2f per response), %s%% in user space\n", n, s, s / n, u }'
perf report -i "$work/perf.data" --sort sym --stdio 2> /dev/null | grep '%' | head -10
