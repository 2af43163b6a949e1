#!/usr/bin/env bash
# Installs every Debian package apollod needs to build, test and measure. Idempotent and
# fast when everything is present (one dpkg-query, no apt-get). Run as root on Debian 12.
set -euo pipefail

packages=(
	bazel-bootstrap  # Bazel 4.2.3, offline (see docs/BUILDING.md)
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
	h2o              # a peer (one thread; its mruby handler makes the fixed answer)
	lighttpd         # a peer (one process)
	lighttpd-modules-lua # lighttpd's mod_magnet, for its fixed answer
	lighttpd-mod-deflate # lighttpd's on-the-fly gzip, a compressed row of //compare:table
	python3          # compare/ and bench/ drivers (Debian's /usr/bin/python3)
	python3-matplotlib # the comparison's chart (PNG and SVG)
	python-is-python3 # `python` for the py_binary stub of //bench:reliability
	clang            # test/fuzz: libFuzzer targets (clang -fsanitize=fuzzer)
	libclang-rt-dev  # ... and their runtime: libclang_rt.fuzzer, asan, ubsan
	systemd          # systemd-socket-activate (activation tests), systemd-analyze verify (packaging/)
	prometheus       # promtool (checks the /metrics exposition) and a real server that scrapes it
	chromium         # a real browser, headless: the --listing page as it renders (test/wire/listing_test.cc)
	podman           # builds and runs the container image (packaging/Containerfile, //packaging:image_test)
	buildah          # builds it where podman is absent (packaging/build_image.sh)
	runc             # an OCI runtime for podman where crun refuses a hybrid cgroup v1/v2 layout
	python3-yaml     # reads packaging/kubernetes/ (//packaging:kubernetes_test)
	libdeflate-dev   # the daemon's gzip compressor, linked statically (third_party/libdeflate)
	zlib1g-dev       # the unit tests inflate what the daemon compressed (test/unit)
	libbrotli-dev    # bench/compression.c only: brotli measured against gzip
	libzstd-dev      # ... and zstd (benchmarks/reports/2026-12-03-compression.md)
	nodejs           # its API docs hold the compressed rows' 190 KB page (bench/compressed.py)
	libjs-underscore # ... and underscore.js their 70 KB script
)
# kubectl (`kubectl kustomize` in //packaging:kubernetes_test): Debian's kubernetes-client,
# unless some other package already provides the command (both ship /usr/bin/kubectl, so
# dpkg would refuse to install one over the other).
if ! command -v kubectl >/dev/null; then
	packages+=(kubernetes-client)
fi

# One dpkg-query for all of them (one per package took 2 s of a run that installs nothing);
# it exits 1 when some package is unknown to dpkg, which only makes that one missing.
installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null |
	awk '$2 == "install" && $3 == "ok" && $4 == "installed" { print $1 }' || true)
missing=()
for p in "${packages[@]}"; do
	if ! grep -qxF "$p" <<<"$installed"; then
		missing+=("$p")
	fi
done

if [ "${#missing[@]}" -gt 0 ]; then
	echo "bootstrap: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The aarch64 libdeflate.a, for --config=aarch64. Not through multiarch: installing
# libc6:arm64 beside the host's made qemu tests hang (issue 29). apt-get reads arm64 package
# lists into a private state directory and downloads the one .deb; dpkg -x unpacks it into
# a private sysroot. The host's dpkg never learns of arm64 and installs nothing. The x86_64
# side of the sysroot links to the host's libdeflate-dev (third_party/libdeflate).
sysroot=/opt/apollod-sysroot
deflate_version=$(dpkg-query -W -f='${Version}' libdeflate-dev)
if [ "$(cat "$sysroot/arm64/version" 2>/dev/null)" != "$deflate_version" ]; then
	echo "bootstrap: unpacking libdeflate-dev:arm64 $deflate_version into $sysroot/arm64" >&2
	state=$(mktemp -d)
	trap 'rm -rf "$state"' EXIT
	mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
	apt_arm64=(apt-get -qq -o APT::Architecture=arm64 -o APT::Architectures::=arm64
		-o Dir::State::Lists="$state/lists" -o Dir::Cache="$state/cache"
		-o Dir::State::Status=/dev/null -o APT::Sandbox::User=root)
	"${apt_arm64[@]}" update
	(cd "$state" && "${apt_arm64[@]}" download "libdeflate-dev:arm64=$deflate_version")
	rm -rf "$sysroot/arm64"
	mkdir -p "$sysroot/arm64"
	dpkg -x "$state"/libdeflate-dev_*_arm64.deb "$sysroot/arm64"
	echo "$deflate_version" >"$sysroot/arm64/version"
fi
# An earlier bootstrap made include a symlink; a second run must find a directory and go on.
if [ -L "$sysroot/x86_64/include" ]; then rm -f "$sysroot/x86_64/include"; fi
mkdir -p "$sysroot/x86_64/include"
ln -sfn /usr/include/libdeflate.h "$sysroot/x86_64/include/libdeflate.h"
ln -sfn /usr/lib/x86_64-linux-gnu/libdeflate.a "$sysroot/x86_64/libdeflate.a"
ln -sfn usr/include "$sysroot/arm64/include"
ln -sfn usr/lib/aarch64-linux-gnu/libdeflate.a "$sysroot/arm64/libdeflate.a"

# Debian's nginx, h2o, lighttpd and prometheus packages may start a service on port 80 when installed
# (where an init system runs). apollod's benchmarks start their own copies on free
# loopback ports with generated configs, so a system service only competes for the CPUs
# and the port: stop it and keep it from starting at boot.
for service in nginx h2o lighttpd prometheus; do
	if [ -x "/etc/init.d/$service" ]; then
		"/etc/init.d/$service" stop >/dev/null 2>&1 || true
		update-rc.d "$service" disable >/dev/null 2>&1 || true
	fi
	if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
		systemctl disable --now "$service" >/dev/null 2>&1 || true
	fi
done
exit 0
