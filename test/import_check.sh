#!/usr/bin/env bash
# The import check every daemon tier runs (BEHAVIOUR 1): a static ELF executable that imports
# nothing. Usage: import_check.sh BINARY. Prints one line per check; exits 1 on the first
# failure.
set -u
bin="$1"
pass=0
fail=0
check() { # check NAME COMMAND...: the command must succeed
	local name="$1"
	shift
	if "$@"; then
		echo "ok   - $name"
		pass=$((pass + 1))
	else
		echo "FAIL - $name"
		fail=$((fail + 1))
	fi
}
is_elf_exec() { readelf -h "$bin" 2>/dev/null | grep -q 'Type:[[:space:]]*EXEC'; }
no_dynamic() { readelf -d "$bin" 2>&1 | grep -q 'There is no dynamic section'; }
no_interp() { ! readelf -l "$bin" | grep -q -e INTERP -e 'PT_DYNAMIC' -e ' DYNAMIC '; }
no_undefined() { [ -z "$(nm -u "$bin")" ]; }
# Names of libc functions a libc-free daemon must not reference. memcpy, memmove, memset
# and memcmp may appear only as the project's own definitions (type T), never undefined.
libc_names='socket|bind|listen|accept|accept4|read|write|writev|close|epoll_wait|epoll_ctl|epoll_create1|malloc|free|calloc|realloc|printf|fprintf|puts|exit|_exit|abort|__libc_start_main|__stack_chk_fail|errno|__errno_location'
no_libc_symbols() { ! nm "$bin" | awk '{print $NF}' | grep -Ex "$libc_names" >/dev/null; }
own_mem_routines() { ! nm "$bin" | grep -E ' [^T] (memcpy|memmove|memset|memcmp)$' >/dev/null; }
no_needed_libs() { ! readelf -d "$bin" 2>/dev/null | grep -q NEEDED; }

check "$bin is an ELF executable (EXEC)" is_elf_exec
check "no dynamic section" no_dynamic
check "no PT_INTERP / PT_DYNAMIC program header" no_interp
check "nm -u prints nothing" no_undefined
check "no shared library needed" no_needed_libs
check "no libc function symbol" no_libc_symbols
check "memcpy/memmove/memset/memcmp are the project's own, if present" own_mem_routines
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
