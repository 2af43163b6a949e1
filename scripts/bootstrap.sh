#!/usr/bin/env bash
# Installs every Debian package apollod needs to build, test and measure. Idempotent and
# fast when everything is present (one dpkg-query, no apt-get). Run as root on Debian 12.
set -euo pipefail

packages=(
	bazel-bootstrap  # Bazel 4.2.3, offline (see DESIGN notes in README)
	bazel-platforms  # @platforms for Bazel
	googletest       # GoogleTest sources in /usr/src/googletest
	libgtest-dev
	gcc g++ binutils # compiler, assembler, readelf, nm, objdump, size
	gcc-aarch64-linux-gnu       # --config=aarch64: the cross C compiler (bazel/aarch64)
	g++-aarch64-linux-gnu       # ... and C++ for the GoogleTest suites built for aarch64
	binutils-aarch64-linux-gnu  # aarch64 assembler, linker, objdump (compare/, tests)
	qemu-user-static            # runs the aarch64 tests (qemu-aarch64-static -cpu max)
	curl             # real-client checks
	netcat-openbsd   # raw-bytes checks
	strace           # syscall counts
	valgrind         # callgrind instruction counts
	hyperfine        # start-up timing
	wrk              # load
	nginx-light      # the reference peer
	python3          # compare/ and bench/ drivers (Debian's /usr/bin/python3)
)

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ "${#missing[@]}" -gt 0 ]; then
	echo "bootstrap: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Debian's nginx package may start a service on port 80 when installed; apollod's
# benchmarks start their own nginx on a free loopback port, so nothing here needs it.
exit 0
