#!/usr/bin/env bash
# State you can see (issue 22): every writable object with static storage in the routed
# tiers' binaries (nm types b B d D g G s S: .bss, .data, small data) is listed in
# ALLOWLIST, either as a module's one state struct ("state") or as a per-slot array
# indexed by descriptor ("slot"), and there are fewer than STATE_MAX state structs. A
# static added at file or function scope fails the check by name: put it in its module's
# state struct instead. A listed name no binary has fails too, so the list stays true.
# A third kind, "linked", is state a linked library (Debian's libdeflate.a) holds or whose
# name and layout its interface fixes (a malloc without context, __stack_chk_guard, the
# x86_64 thread block): not a module's, so not counted against STATE_MAX, and arch
# dependent (each arch's archive has its own), so not held to the stale check.
# Usage: state_check.sh NM ALLOWLIST BINARY...
# Prints one line per check; exits 1 when one fails.
set -u
nm_tool=$1
list=$2
shift 2
STATE_MAX=20 # issue 22: under 20 objects outside the per-slot arrays
# Symbols the linker defines (section bounds, the GOT), not objects of ours.
linker='^(_GLOBAL_OFFSET_TABLE_|__bss_start(__)?|__bss_end__|_bss_end__|_edata|_end|__end__)$'

found=""
for bin in "$@"; do
	syms=$("$nm_tool" "$bin") || { echo "FAIL - $nm_tool $bin"; exit 1; }
	found+=$(awk '$2 ~ /^[bBdDgGsS]$/ {print $3}' <<<"$syms")$'\n'
done
found=$(grep -vE "$linker" <<<"$found" | grep -v '^$' | sort -u)
entries=$(grep -vE '^(#|[[:space:]]*$)' "$list")
listed=$(awk '{print $1}' <<<"$entries" | sort -u)
listed_ours=$(awk '$2 != "linked" {print $1}' <<<"$entries" | sort -u)
fail=0

bad_kind=$(awk '$2 != "state" && $2 != "slot" && $2 != "linked" || NF < 4 {print $1}' <<<"$entries")
if [ -n "$bad_kind" ]; then
	echo "FAIL - entries without kind (state, slot or linked), module and reason: $bad_kind"
	fail=1
fi
unlisted=$(comm -23 <(echo "$found") <(echo "$listed"))
if [ -z "$unlisted" ]; then
	echo "ok   - every writable object is listed ($(wc -l <<<"$found") in $# binaries)"
else
	echo "FAIL - writable objects not in $list (put them in their module's state struct):"
	sed 's/^/         /' <<<"$unlisted"
	fail=1
fi
stale=$(comm -13 <(echo "$found") <(echo "$listed_ours"))
if [ -z "$stale" ]; then
	echo "ok   - every listed object exists"
else
	echo "FAIL - listed but in no binary (remove them from $list):"
	sed 's/^/         /' <<<"$stale"
	fail=1
fi
states=$(awk '$2 == "state"' <<<"$entries" | wc -l)
slots=$(awk '$2 == "slot"' <<<"$entries" | wc -l)
if [ "$states" -lt "$STATE_MAX" ]; then
	echo "ok   - $states module state objects (< $STATE_MAX) and $slots per-slot arrays"
else
	echo "FAIL - $states module state objects, the most is $((STATE_MAX - 1))"
	fail=1
fi
exit "$fail"
