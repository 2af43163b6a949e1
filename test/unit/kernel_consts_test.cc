// common/base/kernel_consts.h against the host libc: every constant and layout apollod spells
// out itself must equal what glibc says (STYLE 3: a table of our own is checked).
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "test/unit/kernel_facts.h"

namespace {

TEST(KernelConstsTest, EqualTheHostLibc)
{
	const struct kernel_fact libc_facts[] = {
#define LIBC_FACT(ours, libc) {#libc, (long)(libc)},
		FOR_EACH_KERNEL_FACT(LIBC_FACT)
#undef LIBC_FACT
	};
	ASSERT_EQ(apollod_kernel_fact_count, sizeof(libc_facts) / sizeof(libc_facts[0]));
	for (size_t i = 0; i < apollod_kernel_fact_count; i++) {
		SCOPED_TRACE(libc_facts[i].label);
		EXPECT_STREQ(apollod_kernel_facts[i].label, libc_facts[i].label);
		EXPECT_EQ(apollod_kernel_facts[i].value, libc_facts[i].value);
	}
}

} // namespace
