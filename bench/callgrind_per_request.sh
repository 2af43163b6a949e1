#!/usr/bin/env bash
# User-space instructions per `GET /` request, measured exactly with valgrind callgrind.
#
# Usage: bench/callgrind_per_request.sh BINARY [N]    (N defaults to 10000)
# Prints one line: the instructions per request, rounded to one decimal.
# With VERBOSE=1 it also prints both totals on stderr.
#
# Method: run BINARY under callgrind on 127.0.0.1:0 twice, once serving N sequential
# requests (`GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, one connection
# each, the reply read to EOF; the routed tiers keep HTTP/1.1 connections open without it) and once serving none; stop each run with SIGTERM (valgrind still runs the tool's
# exit code on a fatal signal, so the totals are written), subtract the start-up-only
# total and divide by N. Callgrind counts guest instructions only: kernel time is not in
# the figure, which is the point (syscalls per request are counted separately).
#
# Deterministic: the client sets TCP_DEFER_ACCEPT on its own socket before connect(),
# which makes Linux hold back the handshake's final ACK and send it with the first data
# segment (tcp_rcv_synsent_state_process, "Save one ACK"). The connection therefore
# reaches the daemon's accept queue with the request already in it, so every request
# takes the same path (accept4, read, write, close) instead of sometimes finding no data
# yet and detouring through an epoll registration; without this the figure moved by
# +-25% from run to run, with it by less than 0.5%.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
	echo "usage: $0 BINARY [N]" >&2
	exit 64
fi
binary=$1
requests=${2:-10000}
[[ -x $binary ]] || { echo "$0: $binary is not executable" >&2; exit 64; }
[[ $requests =~ ^[1-9][0-9]*$ ]] || { echo "$0: N must be a positive integer" >&2; exit 64; }
command -v valgrind >/dev/null || { echo "$0: valgrind is not installed" >&2; exit 1; }

workdir=$(mktemp -d)
server_pid=
cleanup() {
	if [[ -n $server_pid ]]; then kill -KILL "$server_pid" 2>/dev/null || true; fi
	rm -rf "$workdir"
}
trap cleanup EXIT

# Sends `count` sequential requests to 127.0.0.1:port (see "Deterministic" above); each
# reply must start with a 200 status line. Bounded: each socket operation times out
# after 10 s.
send_requests() {
	python3 - "$1" "$2" <<'EOF'
import socket, sys
port, count = int(sys.argv[1]), int(sys.argv[2])
request = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
for i in range(count):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_DEFER_ACCEPT, 1)
        s.connect(("127.0.0.1", port))
        s.sendall(request)
        reply = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            reply += chunk
    if not reply.startswith(b"HTTP/1.1 200 "):
        sys.exit("request %d: unexpected reply %r" % (i, reply[:64]))
EOF
}

# Runs the binary under callgrind, serves `count` requests, stops it and prints the
# total instruction count from the output file.
measure() {
	local count=$1 out="$workdir/callgrind.$1" log="$workdir/stdout.$1"
	valgrind --tool=callgrind --callgrind-out-file="$out" --log-file="$workdir/valgrind.$1" \
		"$binary" --listen 127.0.0.1:0 >"$log" &
	server_pid=$!
	local port=
	for _ in $(seq 1 300); do # up to 30 s for valgrind to start the daemon
		port=$(sed -n 's/.* listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$log")
		[[ -n $port ]] && break
		kill -0 "$server_pid" 2>/dev/null || { echo "$0: daemon exited early" >&2; exit 1; }
		sleep 0.1
	done
	[[ -n $port ]] || { echo "$0: daemon did not report its port" >&2; exit 1; }
	if [[ $count -gt 0 ]]; then send_requests "$port" "$count"; fi
	kill -TERM "$server_pid"
	wait "$server_pid" || true
	server_pid=
	local total
	total=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out")
	[[ -n $total ]] || { echo "$0: no totals in $out" >&2; exit 1; }
	echo "$total"
}

startup_only=$(measure 0)
with_requests=$(measure "$requests")
if [[ ${VERBOSE:-0} == 1 ]]; then
	echo "start-up only: $startup_only instructions; with $requests requests: $with_requests" >&2
fi
python3 -c "print('%.1f' % (($with_requests - $startup_only) / $requests))"
