#!/bin/bash
# What systemd does with apollod.service, done by hand where systemd itself cannot run
# (no PID 1 here): the unit's ExecStart (binary and --root pointed at the build and a
# scratch tree) under systemd-socket-activate, which passes the sockets as apollod.socket
# would and execs the daemon in its own pid, the main pid; then the unit's ExecReload with
# $MAINPID three times: each reload serves the new tree and the main pid stays the same;
# then the unit's KillSignal to the main pid: it exits with 0 or a SuccessExitStatus, and
# no process it started is left (systemd's cgroup would clean up after it; apollod must
# not need that).
# Usage: service_reload_test.sh SERVICE DAEMON
set -euo pipefail
service=$1 daemon=$(readlink -f "$2")
dir=$(mktemp -d)
main=
cleanup() {
	[ -n "$main" ] && kill -KILL "$main" 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; echo "stderr:" >&2; cat "$dir/err" >&2; exit 1; }

field() { sed -n "s/^$1=//p" "$service" | head -1; }
exec_start=$(field ExecStart) exec_reload=$(field ExecReload) kill_signal=$(field KillSignal)
success=$(field SuccessExitStatus)
[ -n "$exec_reload" ] || fail "apollod.service has no ExecReload="
[ -n "$kill_signal" ] || kill_signal=SIGTERM
mkdir "$dir/www"
echo 0 >"$dir/www/n.txt"
exec_start=${exec_start/#\/usr\/local\/bin\/apollod /$daemon }
exec_start=${exec_start/--root \/srv\/www/--root $dir/www}

# A port the kernel calls free (bound to port 0, read, released). The port used to be
# 20000 + $$ % 20000, which can be any socket's ephemeral port: with a second suite
# running beside this one, the socket-activate bind failed once with EADDRINUSE.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The descendants of pid $1, from ps (children first found, then theirs).
descendants() {
	local all=() next=("$1") p
	while [ ${#next[@]} -gt 0 ]; do
		local kids=()
		for p in "${next[@]}"; do
			kids+=($(ps -o pid= --ppid "$p" || true))
		done
		all+=("${kids[@]}")
		next=("${kids[@]}")
	done
	echo "${all[@]}"
}

# Starts the unit's ExecStart on a free port; another process may take the port between
# free_port and the bind, so a start refused with "Address already in use" takes another
# (5 tries). Sets port and main. Waits until it serves or exits (bounded: a hang only).
start_service() {
	local try
	for try in 1 2 3 4 5; do
		port=$(free_port)
		# shellcheck disable=SC2086 # ExecStart is words, as systemd splits them
		systemd-socket-activate -l "127.0.0.1:$port" -- $exec_start 2>"$dir/err" >/dev/null &
		main=$!
		for _ in $(seq 600); do
			curl -sf "http://127.0.0.1:$port/n.txt" >/dev/null && return 0
			kill -0 "$main" 2>/dev/null || break
			sleep 0.1
		done
		grep -q "Address already in use" "$dir/err" || return 0
		echo "try $try: port $port taken, another" >&2
		main=
	done
}
start_service
[ "$(curl -sf "http://127.0.0.1:$port/n.txt")" = 0 ] || fail "not serving"
seen=" $(descendants "$main") "
[ -n "${seen// /}" ] || fail "no serving generation under the main pid"
for i in 1 2 3; do
	echo "$i" >"$dir/www/n.txt"
	reload=${exec_reload//\$MAINPID/$main}
	# shellcheck disable=SC2086
	$reload || fail "ExecReload failed"
	for _ in $(seq 100); do
		[ "$(grep -c 'apollod: reloaded: process' "$dir/err")" -ge "$i" ] && break
		sleep 0.05
	done
	[ "$(grep -c 'apollod: reloaded: process' "$dir/err")" -ge "$i" ] || fail "reload $i: no 'reloaded' line"
	kill -0 "$main" 2>/dev/null || fail "reload $i: the main pid $main is gone"
	# The generation the line names as draining accepts until its retire signal
	# (docs/BEHAVIOUR.md 17) and serves the old tree: ask once it has gone.
	old=$(grep 'apollod: reloaded: process' "$dir/err" | sed -n "${i}s/.*; process \([0-9]*\) drains.*/\1/p")
	[ -n "$old" ] || fail "reload $i: no draining pid in the reloaded line"
	for _ in $(seq 200); do
		kill -0 "$old" 2>/dev/null || break
		sleep 0.05
	done
	kill -0 "$old" 2>/dev/null && fail "reload $i: the old generation $old stays"
	[ "$(curl -sf "http://127.0.0.1:$port/n.txt")" = "$i" ] || fail "reload $i: the new tree is not served"
	seen+=" $(descendants "$main") "
done
echo "main pid $main kept across 3 reloads"
kill "-${kill_signal#SIG}" "$main"
status=0
wait "$main" || status=$?
main=
case " 0 $success " in
*" $status "*) ;;
*) fail "exit status $status after $kill_signal" ;;
esac
for _ in $(seq 50); do
	left=$(for p in $seen; do ps -o pid= -p "$p" || true; done)
	[ -z "$left" ] && break
	sleep 0.1
done
[ -z "$left" ] || fail "left after the stop: $left"
echo "$kill_signal stopped everything (status $status)"
