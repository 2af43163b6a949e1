// activation_count (common/process/activation.h): which environments pass sockets to this pid.
#include <string>
#include <vector>

#include "common/process/activation.h"
#include "gtest/gtest.h"
#include "test/unit/environment.h"

namespace {

constexpr long kPid = 4242;
constexpr uint32_t kMax = 8;

TEST(ActivationTest, Count)
{
	const struct {
		const char *label;
		std::vector<std::string> env;
		int count;
	} cases[] = {
		{"nothing", {"PATH=/bin"}, 0},
		{"empty environment", {}, 0},
		{"one socket", {"LISTEN_PID=4242", "LISTEN_FDS=1"}, 1},
		{"eight, other order", {"LISTEN_FDS=8", "HOME=/", "LISTEN_PID=4242"}, 8},
		{"another process's", {"LISTEN_PID=4243", "LISTEN_FDS=1"}, 0},
		{"pid prefix only", {"LISTEN_PID=42420", "LISTEN_FDS=1"}, 0},
		{"pid with junk", {"LISTEN_PID=4242x", "LISTEN_FDS=1"}, 0},
		{"no LISTEN_PID", {"LISTEN_FDS=1"}, 0},
		{"no LISTEN_FDS", {"LISTEN_PID=4242"}, 0},
		{"LISTEN_FDS=0", {"LISTEN_PID=4242", "LISTEN_FDS=0"}, -1},
		{"LISTEN_FDS over max", {"LISTEN_PID=4242", "LISTEN_FDS=9"}, -1},
		{"LISTEN_FDS empty", {"LISTEN_PID=4242", "LISTEN_FDS="}, -1},
		{"LISTEN_FDS not a number", {"LISTEN_PID=4242", "LISTEN_FDS=two"}, -1},
		{"LISTEN_FDS huge", {"LISTEN_PID=4242", "LISTEN_FDS=99999999999999"}, -1},
		{"a longer name is another variable", {"LISTEN_PIDX=4242", "LISTEN_FDS=1"}, 0},
		{"LISTEN_FDNAMES ignored", {"LISTEN_PID=4242", "LISTEN_FDNAMES=a", "LISTEN_FDS=2"}, 2},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		Environment env(c.env);
		EXPECT_EQ(activation_count(env.envp(), kPid, kMax), c.count);
	}
	EXPECT_EQ(activation_count(nullptr, kPid, kMax), 0) << "no environment at all";
}

} // namespace
