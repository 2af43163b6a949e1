// errno_text (common/base/errno_text.h): every errno the table knows reads as the host libc's
// strerror with a lower-case first letter; every other one as "error N"; never more than
// ERRNO_TEXT_MAX bytes.
#include <cctype>
#include <cerrno>
#include <cstring>
#include <string>

#include "common/base/errno_text.h"
#include "gtest/gtest.h"

namespace {

// Linux's errnos end at EHWPOISON (133); a few past it check the fallback too.
constexpr long kLastChecked = 140;

TEST(ErrnoTextTest, MatchesStrerrorOrSaysTheNumber)
{
	int known = 0;
	for (long e = 1; e <= kLastChecked; e++) {
		SCOPED_TRACE(e);
		char out[ERRNO_TEXT_MAX + 1];
		memset(out, '#', sizeof(out));
		size_t n = errno_text(-e, out);
		ASSERT_LE(n, (size_t)ERRNO_TEXT_MAX);
		EXPECT_EQ(out[n], '#') << "wrote past the returned length";
		std::string text(out, n);
		char positive[ERRNO_TEXT_MAX];
		EXPECT_EQ(std::string(positive, errno_text(e, positive)), text)
			<< "-errno and errno read the same";
		if (text == "error " + std::to_string(e))
			continue;
		known++;
		std::string want = strerror((int)e);
		want[0] = (char)tolower((unsigned char)want[0]);
		EXPECT_EQ(text, want);
	}
	EXPECT_GT(known, 0) << "the table is empty";
}

// The errnos the start-up steps' lines rely on (BEHAVIOUR 3) are in the table.
TEST(ErrnoTextTest, StartupErrnosAreNamed)
{
	for (int e : {EACCES, EADDRINUSE, EADDRNOTAVAIL, ENOENT, ENOTDIR, EMFILE, ENOMEM, EPERM,
		      ENOSYS, EAFNOSUPPORT}) {
		char out[ERRNO_TEXT_MAX];
		std::string text(out, errno_text(-e, out));
		EXPECT_NE(text.rfind("error ", 0), 0u) << e << " reads as '" << text << "'";
	}
}

} // namespace
