// gzip at load (common/answer/compress.h): every representation inflates to exactly the
// identity bytes (test/inflate.h: zlib, or libdeflate's inflater on aarch64), and is made
// only when it is worth it (256 bytes or more, at least 5% saved). Also the load-time
// heap under it (common/base/load_heap.h).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test/inflate.h"

#include "common/answer/compress.h"
#include "common/base/load_heap.h"

namespace {

// Compresses at `level` with the contract's cap; returns the representation (empty when
// "not worth it").
std::vector<uint8_t> Gzip(const std::vector<uint8_t> &in, int level)
{
	struct libdeflate_compressor *c = compress_begin(level);
	EXPECT_NE(c, nullptr);
	std::vector<uint8_t> out(in.size() + 1);
	size_t n = compress_gzip(c, in.data(), in.size(), out.data(), out.size());
	compress_end(c);
	out.resize(n);
	return out;
}

// Checks gz inflates to in, and saves at least a twentieth.
void ExpectRoundTrip(const std::vector<uint8_t> &in, const std::vector<uint8_t> &gz)
{
	ASSERT_FALSE(gz.empty());
	std::string back;
	ASSERT_TRUE(InflateGzip(gz.data(), gz.size(), in.size(), &back));
	EXPECT_TRUE(std::vector<uint8_t>(back.begin(), back.end()) == in);
	EXPECT_GE((in.size() - gz.size()) * 20, in.size()) << gz.size() << " of " << in.size();
}

std::vector<uint8_t> ReadFile(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	std::stringstream s;
	s << f.rdbuf();
	std::string t = s.str();
	return std::vector<uint8_t>(t.begin(), t.end());
}

// Real text the bootstrap installs (scripts/bootstrap.sh names each package).
const char *const kCorpus[] = {
	"/usr/share/doc/bazel-bootstrap/site/docs/build-ref.html",     // bazel-bootstrap
	"/usr/share/doc/bazel-bootstrap/site/assets/bep-graph.svg",     // bazel-bootstrap
	"/usr/lib/python3/dist-packages/matplotlib/backends/web_backend/js/mpl.js", // matplotlib
	"/usr/share/prometheus/web/static/vendor/bootstrap4-glyphicons/css/"
	"bootstrap-glyphicons.css", // prometheus
	"/usr/share/doc/podman/examples/policy.json", // podman
};

class CorpusTest : public ::testing::TestWithParam<int> {};

TEST_P(CorpusTest, EveryFileInflatesToItsBytes)
{
	for (const char *path : kCorpus) {
		SCOPED_TRACE(path);
		std::vector<uint8_t> in = ReadFile(path);
		ASSERT_GT(in.size(), 4096u) << "missing: run scripts/bootstrap.sh";
		ExpectRoundTrip(in, Gzip(in, GetParam()));
	}
}

INSTANTIATE_TEST_SUITE_P(Levels, CorpusTest, ::testing::Values(1, 6, 9, 12));

TEST(CompressTest, TheSameBytesGiveTheSameRepresentation)
{
	std::vector<uint8_t> in = ReadFile(kCorpus[0]);
	EXPECT_TRUE(Gzip(in, 6) == Gzip(in, 6));
}

TEST(CompressTest, BelowTheMinimumIsNotWorthIt)
{
	std::vector<uint8_t> empty, small(COMPRESS_MIN_BYTES - 1, 'a');
	EXPECT_TRUE(Gzip(empty, 6).empty());
	EXPECT_TRUE(Gzip(small, 6).empty());
	EXPECT_EQ(compress_gzip_cap(COMPRESS_MIN_BYTES - 1), 0u);
}

TEST(CompressTest, TheMinimumIsCompressed)
{
	std::vector<uint8_t> in(COMPRESS_MIN_BYTES, 'a');
	ExpectRoundTrip(in, Gzip(in, 6));
}

TEST(CompressTest, IncompressibleIsNotWorthIt)
{
	std::mt19937 rng(29);
	std::vector<uint8_t> in(1 << 20);
	for (auto &b : in)
		b = static_cast<uint8_t>(rng());
	EXPECT_TRUE(Gzip(in, 6).empty());
}

TEST(CompressTest, ALargeRunOfOneByte)
{
	std::vector<uint8_t> in(8u << 20, 'x');
	ExpectRoundTrip(in, Gzip(in, 6));
}

TEST(CompressTest, JustUnderFivePercentIsNotWorthIt)
{
	// A result one byte over the room offered is refused; with room to spare (libdeflate
	// wants a few bytes past the end it writes) the same bytes come back.
	std::vector<uint8_t> in = ReadFile(kCorpus[0]);
	std::vector<uint8_t> gz = Gzip(in, 6);
	ASSERT_FALSE(gz.empty());
	struct libdeflate_compressor *c = compress_begin(6);
	ASSERT_NE(c, nullptr);
	std::vector<uint8_t> out(gz.size() + 64);
	EXPECT_EQ(compress_gzip(c, in.data(), in.size(), out.data(), gz.size() - 1), 0u);
	EXPECT_EQ(compress_gzip(c, in.data(), in.size(), out.data(), out.size()), gz.size());
	compress_end(c);
	EXPECT_EQ(compress_gzip_cap(1000), 950u);
	EXPECT_EQ(compress_gzip_cap(1001), 950u); // saves at least 51 of 1001: over 5%
}

TEST(CompressTest, LevelsOutsideOneToTwelveAreRefused)
{
	EXPECT_EQ(compress_begin(COMPRESS_LEVEL_MIN - 1), nullptr);
	EXPECT_EQ(compress_begin(COMPRESS_LEVEL_MAX + 1), nullptr);
	EXPECT_EQ(load_heap_alloc(1), nullptr); // a refused level leaves no heap mapped
}

TEST(CompressTest, NoCompressorIsNotWorthIt)
{
	std::vector<uint8_t> in(4096, 'a'), out(4096);
	EXPECT_EQ(compress_gzip(nullptr, in.data(), in.size(), out.data(), out.size()), 0u);
	compress_end(compress_begin(6));
	EXPECT_EQ(load_heap_alloc(1), nullptr); // the heap went with the compressor
}

TEST(LoadHeapTest, BumpsAlignsAndGivesBackTheLatest)
{
	ASSERT_EQ(load_heap_open(), 0);
	uint8_t *a = static_cast<uint8_t *>(load_heap_alloc(3));
	uint8_t *b = static_cast<uint8_t *>(load_heap_alloc(100));
	ASSERT_NE(a, nullptr);
	ASSERT_NE(b, nullptr);
	EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % LOAD_HEAP_ALIGN, 0u);
	EXPECT_EQ(b - a, static_cast<ptrdiff_t>(LOAD_HEAP_ALIGN));
	memset(b, 0xab, 100);
	load_heap_free(b);
	EXPECT_EQ(load_heap_used(), 3u);
	EXPECT_EQ(load_heap_alloc(100), b); // its room is used again
	load_heap_free(a);                  // not the latest: kept until close
	EXPECT_EQ(load_heap_used(), LOAD_HEAP_ALIGN + 100);
	EXPECT_EQ(load_heap_alloc(LOAD_HEAP_BYTES), nullptr); // more than is left
	load_heap_close();
	EXPECT_EQ(load_heap_alloc(1), nullptr);
	load_heap_free(a); // after close: ignored
}

} // namespace
