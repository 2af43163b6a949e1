// Counters survive (feature `stop` with `files`, BEHAVIOUR 7, 17): the resident
// supervisor owns the counter page and hands it to every generation, so every counter
// runs on across reloads and an upgrade; a page of another layout starts afresh with one
// line; the service's start is a gauge; apollod_build_info names the tier under test.
// Each case runs with one process and with --workers 2.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <map>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "test/wire/reload_daemon.h"
#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kReloads = 5;
constexpr int kRequestsBetween = 3; // /a.txt requests before each reload

// Counters that are not counts: they may move either way (a new snapshot's size) or not
// at all (the service's start).
bool IsGauge(const std::string &name)
{
	return name == "files_cached" || name == "bytes_cached" || name == "start_time_seconds" ||
	       name == "gzip_representations" || name == "gzip_pending";
}

// Expects every count in now to be at least what it was in before, and requests_total
// to have grown. what names the step for the failure message.
void ExpectMonotonic(const std::map<std::string, uint64_t> &before,
		     const std::map<std::string, uint64_t> &now, const std::string &what)
{
	ASSERT_EQ(before.size(), now.size()) << what;
	for (const auto &c : before)
		if (!IsGauge(c.first))
			EXPECT_GE(now.at(c.first), c.second) << c.first << " after " << what;
	EXPECT_GT(now.at("requests_total"), before.at("requests_total")) << what;
	EXPECT_EQ(now.at("start_time_seconds"), before.at("start_time_seconds")) << what;
}

// The counter page's descriptor in pid (/proc/PID/fd), or "" when it holds none.
std::string CounterPageOf(pid_t pid)
{
	std::string dir = "/proc/" + std::to_string(pid) + "/fd";
	CommandResult r = RunCommand({"ls", dir}, "", 5000);
	std::istringstream in(r.out);
	for (std::string fd; in >> fd;) {
		char link[256];
		ssize_t n = readlink((dir + "/" + fd).c_str(), link, sizeof(link) - 1);
		if (n > 0 && std::string(link, (size_t)n).find("/memfd:apollod-counters") == 0)
			return dir + "/" + fd;
	}
	return "";
}

class CountersSurviveTest : public SupervisorTest {};

// Five reloads and an upgrade: every count only grows, the start stays, reloads is 6.
TEST_P(CountersSurviveTest, MonotonicAcrossFiveReloadsAndAnUpgrade)
{
	std::string binary = dir_ + "/apollod";
	ASSERT_TRUE(InstallByRename(DaemonPath(), binary));
	ReloadDaemon d;
	d.UseBinary(binary);
	ASSERT_EQ(d.Start(WithWorkers({})), "");
	std::map<std::string, uint64_t> last = FetchMetrics(d.port());
	ASSERT_FALSE(last.empty());
	EXPECT_GT(last["start_time_seconds"], 1700000000u); // a wall-clock second, not 0
	for (int i = 1; i <= kReloads + 1; i++) {
		for (int r = 0; r < kRequestsBetween; r++)
			ASSERT_EQ(StatusOf(d.port(), "/a.txt"), 200);
		if (i <= kReloads) {
			ASSERT_EQ(kill(d.pid(), SIGHUP), 0);
			ASSERT_GT(d.WaitForReloaded(i), 0) << d.Err();
		} else {
			ASSERT_TRUE(InstallByRename(DaemonPath(), binary));
			ASSERT_EQ(kill(d.pid(), SIGUSR2), 0);
			ASSERT_FALSE(d.WaitForLine(std::regex("apollod: upgraded: ")).empty())
				<< d.Err();
		}
		std::map<std::string, uint64_t> now = FetchMetrics(d.port());
		ExpectMonotonic(last, now, i <= kReloads ? "reload " + std::to_string(i) : "upgrade");
		last = now;
	}
	EXPECT_EQ(last["reloads"], (uint64_t)kReloads + 1);
	EXPECT_GE(last["requests_total"], (uint64_t)(kReloads + 1) * kRequestsBetween);
	int status = d.Stop();
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// A page whose header is another layout's (as a binary with a different one would find
// it): the next generation says so in one line and counts afresh; the start stays.
TEST_P(CountersSurviveTest, AnotherLayoutStartsAfreshWithOneLine)
{
	ReloadDaemon d;
	ASSERT_EQ(d.Start(WithWorkers({})), "");
	for (int r = 0; r < kRequestsBetween; r++)
		ASSERT_EQ(StatusOf(d.port(), "/a.txt"), 200);
	std::map<std::string, uint64_t> before = FetchMetrics(d.port());
	std::string page = CounterPageOf(d.pid());
	ASSERT_FALSE(page.empty()) << "the supervisor holds no counter page";
	int fd = open(page.c_str(), O_RDWR);
	ASSERT_GE(fd, 0);
	struct stat st;
	ASSERT_EQ(fstat(fd, &st), 0);
	uint64_t other = 0x6f74686572; // not "apollod1": the layout word, second to last
	ASSERT_EQ(pwrite(fd, &other, sizeof(other), st.st_size - 16), (ssize_t)sizeof(other));
	close(fd);
	ASSERT_EQ(kill(d.pid(), SIGHUP), 0);
	ASSERT_GT(d.WaitForReloaded(1), 0) << d.Err();
	std::regex afresh("apollod: counters: the page has another layout; starting afresh\n");
	EXPECT_FALSE(d.WaitForLine(afresh).empty()) << d.Err();
	std::map<std::string, uint64_t> after = FetchMetrics(d.port());
	EXPECT_LT(after["requests_total"], before["requests_total"]);
	EXPECT_EQ(after["reloads"], 1u);
	EXPECT_EQ(after["start_time_seconds"], before["start_time_seconds"]);
	EXPECT_GE(d.Stop(), 0);
}

// BEHAVIOUR 7.2: apollod_build_info's tier label is the tier under test (--version's).
TEST_P(CountersSurviveTest, BuildInfoNamesTheTier)
{
	CommandResult v = RunCommand({DaemonPath(), "--version"}, "", 5000);
	std::smatch m;
	ASSERT_TRUE(std::regex_search(v.out, m, std::regex("\\(tier ([a-z-]+)\\)"))) << v.out;
	ReloadDaemon d;
	ASSERT_EQ(d.Start(WithWorkers({})), "");
	Received r = Roundtrip(d.port(), GetClose("/metrics?format=prometheus"));
	EXPECT_NE(r.bytes.find(",tier=\"" + m[1].str() + "\"} 1\n"), std::string::npos) << r.bytes;
	EXPECT_EQ(r.bytes.find("tier=\"none\""), std::string::npos);
	EXPECT_NE(r.bytes.find("# TYPE apollod_start_time_seconds gauge\n"), std::string::npos);
	EXPECT_GE(d.Stop(), 0);
}

INSTANTIATE_TEST_SUITE_P(Processes, CountersSurviveTest, testing::Values(1, 2),
			 ProcessesName);

} // namespace
} // namespace wire
