// The buffers of listings made per request (common/serve/live_listing.h, BEHAVIOUR 10.14):
// LIVE_LISTING_BUFFERS connections still sending their listings hold every buffer, so
// one more gets none (the connection code answers it the 503 and counts
// listings_refused); a holder that has sent everything, or whose connection is gone (a
// new accept generation on its descriptor), gives its buffer up; a holder asking again
// gets its own.
#include <stdint.h>

#include <set>

#include <gtest/gtest.h>

#include "common/serve/live_listing.h"

// live_listing.c's other routine opens disk files beneath the site's DIR (disk_open.c
// and site.c, not in the host core); nothing here calls it, so the link gets stand-ins.
extern "C" long disk_open(int, const struct cached_file *, struct disk_stat *, uint8_t *)
{
	return -1;
}
extern "C" int site_root_fd(void) { return -1; }

namespace {

// Which (fd, generation) pairs still have responses queued, as the connection code says.
std::set<std::pair<int, uint32_t>> g_sending;

int Sending(int fd, uint32_t gen) { return g_sending.count({fd, gen}) != 0; }

struct live_listings g_listings; // 1 MiB: static, as in the daemon

class LiveListingTest : public testing::Test {
protected:
	void SetUp() override
	{
		g_listings = {};
		g_sending.clear();
	}
	// Lends a buffer to fd (generation gen), which then sends from it.
	char *Lend(int fd, uint32_t gen)
	{
		char *b = live_listing_buffer(&g_listings, fd, gen, Sending);
		if (b)
			g_sending.insert({fd, gen});
		return b;
	}
};

TEST_F(LiveListingTest, AllHeldBySendersRefusesOneMore)
{
	std::set<char *> lent;
	for (int fd = 10; fd < 10 + LIVE_LISTING_BUFFERS; fd++) {
		char *b = Lend(fd, 1);
		ASSERT_NE(b, nullptr) << "fd " << fd;
		EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 64, 0u) << "64-byte aligned";
		lent.insert(b);
	}
	EXPECT_EQ(lent.size(), (size_t)LIVE_LISTING_BUFFERS) << "each its own buffer";
	EXPECT_EQ(Lend(99, 1), nullptr) << "every buffer held by a connection still sending";
}

TEST_F(LiveListingTest, ASenderThatIsDoneOrGoneGivesItsBufferUp)
{
	char *first = nullptr;
	for (int fd = 10; fd < 10 + LIVE_LISTING_BUFFERS; fd++) {
		char *b = Lend(fd, 1);
		ASSERT_NE(b, nullptr);
		if (fd == 10)
			first = b;
	}
	g_sending.erase({10, 1}); // fd 10 has sent its listing
	EXPECT_EQ(Lend(99, 1), first) << "the buffer of the one that has sent everything";
	EXPECT_EQ(Lend(98, 1), nullptr);
	// fd 11's connection closed and the descriptor was accepted again (generation 2): the
	// old holder is gone even though (11, 1) would still say sending
	char *again = live_listing_buffer(&g_listings, 11, 2, Sending);
	EXPECT_EQ(again, nullptr) << "(11, 1) still queued: its bytes may still be read";
	g_sending.erase({11, 1});
	EXPECT_NE(live_listing_buffer(&g_listings, 11, 2, Sending), nullptr);
}

TEST_F(LiveListingTest, AHolderAskingAgainGetsItsOwn)
{
	char *b = Lend(10, 7);
	ASSERT_NE(b, nullptr);
	for (int fd = 20; fd < 20 + LIVE_LISTING_BUFFERS - 1; fd++)
		ASSERT_NE(Lend(fd, 1), nullptr);
	g_sending.erase({10, 7}); // its queue emptied; its next listing request comes
	EXPECT_EQ(Lend(10, 7), b) << "its own, though it is free to take";
	EXPECT_EQ(Lend(99, 1), nullptr) << "10 sends from it again";
}

} // namespace
