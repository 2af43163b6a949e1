#!/bin/bash
# systemd-analyze verify on the shipped units: a copy of both in a scratch directory, with
# ExecStart's binary path pointed at the built daemon (verify checks that it is
# executable), and `systemd-analyze security` must rate the service's exposure at most 2.0
# (docs/OPERATING.md). Then the same checks on a broken copy and on a copy without its
# sandbox must fail, so they cannot pass vacuously.
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
# --threshold is on the 0-100 scale that the 0.0-10.0 exposure is printed on a tenth of.
exposure() { (cd "$dir" && systemd-analyze security --offline=yes --threshold=20 "$1"); }
exposure apollod.service | grep 'Overall exposure level'
grep -v -E '^(DynamicUser|PrivateUsers|CapabilityBoundingSet|SystemCallFilter|Protect[A-Za-z]*|Restrict[A-Za-z]*|Private[A-Za-z]*)=' \
	"$dir/apollod.service" >"$dir/open.service"
if exposure open.service >/dev/null 2>&1; then
	echo "the unit without its sandbox rated under 2.0: the exposure check is vacuous" >&2
	exit 1
fi
echo "exposure at most 2.0; without the sandbox, refused"
sed -i 's|^ListenStream=.*|ListenStream=not-an-address:|' "$dir/apollod.socket"
sed -i 's|^ExecStart=.*|ExecStart=relative/apollod|' "$dir/apollod.service"
if (cd "$dir" && systemd-analyze verify apollod.socket apollod.service) 2>/dev/null; then
	echo "a broken copy verified clean: the check is vacuous" >&2
	exit 1
fi
echo "broken copy refused"
