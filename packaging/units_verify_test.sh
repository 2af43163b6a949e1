#!/bin/bash
# systemd-analyze verify on the shipped units: a copy of both in a scratch directory, with
# ExecStart's binary path pointed at the built daemon (verify checks that it is
# executable). Then the same check on a broken copy must fail, so it cannot pass vacuously.
# Usage: units_verify_test.sh SERVICE SOCKET DAEMON
set -euo pipefail
service=$1 socket=$2 daemon=$(readlink -f "$3")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$service" "$socket" "$dir/"
grep -q '^ExecStart=/usr/local/bin/apollod ' "$dir/apollod.service"
grep -q '^ExecReload=/bin/kill -HUP $MAINPID$' "$dir/apollod.service" # BEHAVIOUR 17
sed -i "s|^ExecStart=/usr/local/bin/apollod |ExecStart=$daemon |" "$dir/apollod.service"
(cd "$dir" && SYSTEMD_LOG_LEVEL=notice systemd-analyze verify apollod.socket apollod.service)
echo "units verify clean"
sed -i 's|^ListenStream=.*|ListenStream=not-an-address:|' "$dir/apollod.socket"
sed -i 's|^ExecStart=.*|ExecStart=relative/apollod|' "$dir/apollod.service"
if (cd "$dir" && systemd-analyze verify apollod.socket apollod.service) 2>/dev/null; then
	echo "a broken copy verified clean: the check is vacuous" >&2
	exit 1
fi
echo "broken copy refused"
