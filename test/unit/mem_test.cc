// The word loops behind the daemon's memcpy, memmove and memset (common/base/mem_words.h),
// with x86_64's `rep movsb` and `rep stosb` from ARCH_MEM_BLOCK_MIN bytes: every length
// around the word and block edges, at every misalignment of each end, against a byte loop.
#include <stddef.h>
#include <stdint.h>

#include <vector>

#include <gtest/gtest.h>

#include "common/base/mem_words.h"

namespace {

constexpr size_t kGuard = 16;      // bytes either side of each range, checked untouched
constexpr size_t kMaxLength = 1100; // past ARCH_MEM_BLOCK_MIN (512) twice
constexpr unsigned char kGuardByte = 0xa5;

// The lengths tried: every one up to 3 words, then either side of each word multiple
// and of the block threshold, up to kMaxLength.
std::vector<size_t> Lengths()
{
	std::vector<size_t> out;
	for (size_t n = 0; n <= 3 * MEM_WORD_BYTES; n++)
		out.push_back(n);
	for (size_t n : {63, 64, 65, 255, 511, 512, 513, 520, 1023, 1024, 1025, 1099})
		out.push_back(n);
	return out;
}

// A buffer of bytes that differ from their neighbours and from the guard byte.
std::vector<unsigned char> Pattern(size_t n, unsigned seed)
{
	std::vector<unsigned char> b(n);
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)(i * 131 + seed * 7 + 1) == kGuardByte
			       ? 0
			       : (unsigned char)(i * 131 + seed * 7 + 1);
	return b;
}

TEST(MemWordsTest, CopyMatchesAByteLoopAtEveryAlignment)
{
	for (size_t n : Lengths())
		for (size_t da = 0; da < MEM_WORD_BYTES; da++)
			for (size_t sa = 0; sa < MEM_WORD_BYTES; sa++) {
				std::vector<unsigned char> src = Pattern(kMaxLength + 2 * kGuard, 1);
				std::vector<unsigned char> dst(kMaxLength + 2 * kGuard, kGuardByte);
				std::vector<unsigned char> want = dst;
				for (size_t i = 0; i < n; i++)
					want[kGuard + da + i] = src[kGuard + sa + i];
				mem_copy(&dst[kGuard + da], &src[kGuard + sa], n);
				ASSERT_EQ(dst, want) << "length " << n << ", dst +" << da << ", src +" << sa;
			}
}

TEST(MemWordsTest, FillMatchesAByteLoopAtEveryAlignment)
{
	for (size_t n : Lengths())
		for (size_t da = 0; da < MEM_WORD_BYTES; da++)
			for (unsigned c : {0u, 1u, 0x7fu, 0xffu}) {
				std::vector<unsigned char> dst(kMaxLength + 2 * kGuard, kGuardByte);
				std::vector<unsigned char> want = dst;
				for (size_t i = 0; i < n; i++)
					want[kGuard + da + i] = (unsigned char)c;
				mem_fill(&dst[kGuard + da], (unsigned char)c, n);
				ASSERT_EQ(dst, want) << "length " << n << ", dst +" << da << ", byte " << c;
			}
}

// memmove's two directions over overlapping ranges: forward when the destination is
// below the source, backward when above, each shift from 1 byte to past a word.
TEST(MemWordsTest, OverlappingCopiesMatchAByteLoopBothWays)
{
	for (size_t n : Lengths())
		for (size_t shift = 1; shift <= 2 * MEM_WORD_BYTES + 1; shift++) {
			std::vector<unsigned char> b = Pattern(kMaxLength + 2 * kGuard + shift, 2);
			std::vector<unsigned char> down = b, up = b, want_down = b, want_up = b;
			for (size_t i = 0; i < n; i++)
				want_down[kGuard + i] = b[kGuard + shift + i];
			for (size_t i = 0; i < n; i++)
				want_up[kGuard + shift + i] = b[kGuard + i];
			mem_copy_forward(&down[kGuard], &down[kGuard + shift], n);
			mem_copy_backward(&up[kGuard + shift], &up[kGuard], n);
			ASSERT_EQ(down, want_down) << "forward, length " << n << ", shift " << shift;
			ASSERT_EQ(up, want_up) << "backward, length " << n << ", shift " << shift;
		}
}

} // namespace
