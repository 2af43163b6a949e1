// Span compares and number formatting (common/base/span.h), run for every hot-path
// implementation, with inputs and outputs ending against a PROT_NONE page.
#include <stdint.h>
#include <string.h>

#include <string>

#include <gtest/gtest.h>

#include "common/base/span.h"
#include "test/unit/guarded_buffer.h"
#include "test/unit/hotpath_test.h"

using namespace std::string_literals;

namespace {

class SpanTest : public HotpathTest {};
INSTANTIATE_FOR_EVERY_HOTPATH(SpanTest);

TEST_P(SpanTest, U64ToDecWritesOnlyItsDigits)
{
	const struct {
		const char *label;
		uint64_t value;
		const char *digits;
	} cases[] = {
		{"zero", 0, "0"},
		{"one", 1, "1"},
		{"largest one digit", 9, "9"},
		{"smallest two digits", 10, "10"},
		{"largest two digits", 99, "99"},
		{"smallest three digits", 100, "100"},
		{"largest three digits", 999, "999"},
		{"smallest four digits", 1000, "1000"},
		{"2^32-1", UINT32_MAX, "4294967295"},
		{"2^32", 4294967296ull, "4294967296"},
		{"10^19", 10000000000000000000ull, "10000000000000000000"},
		{"2^64-1", UINT64_MAX, "18446744073709551615"},
	};
	const char canary = '#';
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		// Exactly U64_DEC_MAX bytes of room, the promised minimum, then the guard page.
		GuardedBuffer out(U64_DEC_MAX);
		memset(out.mutable_data(), canary, out.size());
		size_t n = impl().u64_to_dec(c.value, out.mutable_data());
		ASSERT_EQ(n, strlen(c.digits));
		EXPECT_EQ(std::string(out.data(), n), c.digits);
		EXPECT_EQ(std::string(out.data() + n, U64_DEC_MAX - n),
			  std::string(U64_DEC_MAX - n, canary))
			<< "wrote past its digit count";
	}
}

TEST_P(SpanTest, SpanEqAndSpanIeq)
{
	const struct {
		const char *label;
		std::string a, b; // compared over their whole (equal) length
		int eq, ieq;      // expected span_eq, span_ieq
	} cases[] = {
		{"n=0", "", "", 1, 1},
		{"equal bytes", "GET", "GET", 1, 1},
		{"equal with NUL inside", "a\0b"s, "a\0b"s, 1, 1},
		{"case differs", "Host", "hOST", 0, 1},
		{"A vs a", "A", "a", 0, 1},
		{"Z vs z", "Z", "z", 0, 1},
		{"last byte case differs", "content-length", "content-lengtH", 0, 1},
		{"last byte differs", "content-length", "content-lengtx", 0, 0},
		{"first byte differs", "xlose", "close", 0, 0},
		{"'@' vs '`' (0x40 vs 0x60) do not fold", "@", "`", 0, 0},
		{"'[' vs '{' do not fold", "[", "{", 0, 0},
		{"']' vs '}' do not fold", "]", "}", 0, 0},
		{"'\\' vs '|' do not fold", "\\", "|", 0, 0},
		{"'^' vs '~' do not fold", "^", "~", 0, 0},
		{"'_' vs DEL do not fold", "_", "\x7f", 0, 0},
		{"digit vs control byte 0x20 apart", "1", "\x11", 0, 0},
		{"0xC1 vs 0xE1 do not fold", "\xc1", "\xe1", 0, 0},
		{"long, differs at the end", std::string(100, 'k') + "A", std::string(100, 'K') + "b",
		 0, 0},
		{"long, equal ignoring case", std::string(100, 'k') + "A",
		 std::string(100, 'K') + "a", 0, 1},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		ASSERT_EQ(c.a.size(), c.b.size());
		size_t n = c.a.size();
		// Both sides end at a guard page: reading past n bytes on either side crashes.
		GuardedBuffer a(c.a), b(c.b);
		EXPECT_EQ(impl().span_eq(a.data(), b.data(), n), c.eq);
		EXPECT_EQ(impl().span_eq(b.data(), a.data(), n), c.eq) << "symmetric";
		EXPECT_EQ(impl().span_ieq(a.data(), b.data(), n), c.ieq);
		EXPECT_EQ(impl().span_ieq(b.data(), a.data(), n), c.ieq) << "symmetric";
	}
}

TEST(CopySpanTest, CopiesNBytesAndReturnsTheEnd)
{
	for (size_t n : {0, 1, 7, 64, 1000}) {
		SCOPED_TRACE(n);
		std::string src(n, '\0');
		for (size_t i = 0; i < n; i++)
			src[i] = (char)('a' + i % 26);
		GuardedBuffer from(src), to(n); // a byte written past n faults
		char *end = copy_span(to.mutable_data(), from.data(), n);
		EXPECT_EQ(end, to.mutable_data() + n);
		EXPECT_EQ(std::string(to.data(), n), src);
	}
}

} // namespace
