#!/usr/bin/env bash
# Builds one libFuzzer target with clang, AddressSanitizer and UndefinedBehaviorSanitizer,
# straight from the sources (Bazel 4's default toolchain is gcc, which has no libFuzzer).
# usage: build_fuzzer.sh SRC_ROOT TARGET OUT
#   SRC_ROOT  the tree holding common/, test/fuzz/ and variants/asm-hotpath/
#   TARGET    parser | differential | answer
set -euo pipefail
root=$1 target=$2 out=$3

# The pure core: the parser's layers, answer's routes and file decisions (fields, dates,
# ranges, encodings), --redirects' matching, a listing's order (listing.c), responses
# and counters.
core=(common/base/char_class.c common/base/counters.c common/answer/file_answer.c common/http/http_date.c
	common/http/http_host.c common/http/http_parse.c common/http/http_request.c
	common/answer/responses.c common/answer/routes.c common/base/span.c common/http/url_path.c
	common/answer/redirects.c common/base/errno_text.c common/base/console.c
	common/answer/listing.c)
extra=()
if [ "$target" = differential ]; then
	# The assembly with every symbol prefixed asm_, next to the C reference.
	extra=(variants/asm-hotpath/x86_64/http_parse.S variants/asm-hotpath/x86_64/span.S)
fi
case $target in parser | differential | answer) ;; *)
	echo "build_fuzzer.sh: unknown target '$target'" >&2
	exit 2
	;;
esac

cd "$root"
clang -std=gnu11 -O1 -g -I. -DAPOLLOD_ASM_PREFIX=asm_ \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer \
	"test/fuzz/${target}_fuzz.c" "${core[@]}" "${extra[@]}" -o "$out"
