#!/usr/bin/env bash
# Counter updates compile to single atomic instructions (common/base/counters.h): on aarch64
# one LSE `stadd` per increment and no exclusive-monitor retry loop (ldxr/stxr, ldaxr/
# stlxr) and no other atomic; on x86_64 one `lock add`.
# Usage: counter_atomics_check.sh OBJDUMP BINARY ARCH, ARCH aarch64 or x86_64.
# Prints one line per check; exits 1 on the first failure.
set -u
objdump="$1"
bin="$2"
arch="$3"
disasm=$("$objdump" -d --no-show-raw-insn "$bin") || exit 1
case "$arch" in
aarch64)
	want='[[:space:]]stadd[[:space:]]'
	# LL/SC loops, and any other LSE atomic (ldadd would be a fetch-add whose
	# result is kept, cas a compare-and-swap loop).
	forbidden='[[:space:]](ldxr|stxr|ldaxr|stlxr|ldadd[al]*|cas[al]*|swp[al]*)[[:space:]]'
	;;
x86_64)
	want='lock add'
	forbidden='lock (cmpxchg|xadd)'
	;;
*)
	echo "unknown arch $arch" >&2
	exit 2
	;;
esac
found=$(grep -cE "$want" <<<"$disasm")
bad=$(grep -E "$forbidden" <<<"$disasm" | head -3)
fail=0
if [ "$found" -ge 1 ]; then
	echo "ok   - $found '$want' instructions in $bin"
else
	echo "FAIL - no '$want' instruction in $bin"
	fail=1
fi
if [ -z "$bad" ]; then
	echo "ok   - no retry loop or other atomic ($forbidden)"
else
	echo "FAIL - found: $bad"
	fail=1
fi
# Where the instruction sits (the serving loop's functions, for the log).
echo "     functions holding it: $(awk -v want="$want" '
	/^[0-9a-f]+ <.*>:$/ { fn = $2 }
	$0 ~ want { n[fn]++ }
	END { for (f in n) printf "%s %d  ", f, n[f] }' <<<"$disasm")"
exit "$fail"
