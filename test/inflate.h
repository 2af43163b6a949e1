// Inflates a gzip member for the tests that check what the daemon compressed
// (test/unit/compress_test.cc, test/wire/compress_test.cc): with zlib, independent of the
// compressor; on aarch64, whose cross toolchain has no zlib, with libdeflate's own
// decompressor (a separate code path: inflate and CRC-32), allocating with libc.
#ifndef APOLLOD_TEST_INFLATE_H
#define APOLLOD_TEST_INFLATE_H

#include <stddef.h>

#include <string>

// Inflates gz[0..gz_len) into *out. Returns false when the stream is bad, does not end
// exactly at gz_len, or does not give exactly expected_len bytes.
bool InflateGzip(const void *gz, size_t gz_len, size_t expected_len, std::string *out);

#endif // APOLLOD_TEST_INFLATE_H
