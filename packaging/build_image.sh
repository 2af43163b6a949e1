#!/usr/bin/env bash
# Builds apollod's container image (packaging/Containerfile) from a built daemon: stages the
# Containerfile, the binary (mode 0555) and packaging/site/ in a fresh context directory and
# builds it with podman, or with buildah when podman is absent. Prints NAME:VERSION on
# standard output (the builder's own output goes to standard error).
# Usage: build_image.sh BINARY [NAME]
#   BINARY  a static apollod, e.g. bazel-bin/variants/full/apollod. Its --version gives the
#           tag and the tier (run through $APOLLOD_EMULATOR if set: a binary for another
#           architecture, bazel/aarch64/qemu_run.sh); its ELF header gives the platform.
#   NAME    the image's repository (default localhost/apollod, the name
#           packaging/kubernetes/apollod.yaml deploys).
# `bazel run //packaging:image` runs it on //variants/full:apollod.
set -euo pipefail

binary=${1:?usage: build_image.sh BINARY [NAME]}
name=${2:-localhost/apollod}

# The Containerfile and site/ sit beside this script: in the source tree, or in the
# runfiles tree that `bazel run` starts from (the working directory, where this script's
# own path is bazel-bin/packaging/image instead).
here=$(dirname "$0")
[ -f "$here/Containerfile" ] || here=packaging
[ -f "$here/Containerfile" ] || { echo "build_image.sh: no Containerfile beside $0 or in ./packaging" >&2; exit 1; }

# e_machine, the 2 bytes at offset 18 of an ELF header (little-endian): the image's platform.
case "$(od -An -tx1 -j18 -N2 "$binary" | tr -d ' ')" in
3e00) arch=amd64 ;;
b700) arch=arm64 ;;
*) echo "build_image.sh: $binary is not an x86_64 or aarch64 ELF" >&2; exit 1 ;;
esac

# "apollod 0.13.0 (tier full)" -> version 0.13.0, tier full.
read -r _ version _ tier < <(${APOLLOD_EMULATOR:-} "$binary" --version)
tier=${tier%)}
[ -n "$version" ] && [ -n "$tier" ] || { echo "build_image.sh: $binary --version said nothing usable" >&2; exit 1; }

context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
cp "$here/Containerfile" "$context/"
cp -RL "$here/site" "$context/site"  # -L: runfiles are symlinks; the image takes their bytes
cp "$binary" "$context/apollod"
chmod 0555 "$context/apollod"
chmod -R u=rwX,go=rX "$context/site"
find "$context/site" -type f -exec chmod 0444 {} +

# --layers=false: no intermediate images, and so no layer cache read either (a build
# with it says no "Using cache"). Each step is a small COPY (the image is about 120 kB),
# and a cached layer is shared with whatever else built the same bytes, so that build's
# `podman rmi` could delete it under this one ("layer not known": two image tests at
# once, one removing its image while the other built on the same cached layers).
build_args=(--platform "linux/$arch" --build-arg "VERSION=$version" --build-arg "TIER=$tier"
	--layers=false --tag "$name:$version" --file "$context/Containerfile" "$context")
if command -v podman >/dev/null; then
	podman build "${build_args[@]}" >&2
elif command -v buildah >/dev/null; then
	buildah bud "${build_args[@]}" >&2
else
	echo "build_image.sh: neither podman nor buildah is installed (scripts/bootstrap.sh installs both)" >&2
	exit 1
fi
echo "$name:$version"
