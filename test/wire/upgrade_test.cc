// SIGUSR2 upgrades the binary (feature `stop` with `files`, BEHAVIOUR 11, 17): the
// resident supervisor starts a generation of the binary now at the path it was started
// from, on the same listeners, and the old one drains; a binary that cannot start leaves
// the old one serving with one line. Each case runs with one process and --workers 2.
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "test/wire/reload_daemon.h"
#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kLoadClients = 2;    // keep-alive clients during the upgrade
constexpr int kLoadLimitMs = 20000; // the load ends by then whatever happens
constexpr int kLoadRequests = 200; // answered before the signal, and again after it

// The inode of path (following links: /proc/PID/exe is the image), or 0.
ino_t InodeOf(const std::string &path)
{
	struct stat st;
	return stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

// Requests /a.txt on persistent connections until *stop (or kLoadLimitMs), as a client
// without retries: each must get a whole 200; one that says Connection: close ends its
// connection and the next goes on a new one. Anything else is a failure.
void PersistentLoad(int port, const std::atomic<bool> *stop, LoadResult *result)
{
	int64_t limit = NowMs() + kLoadLimitMs;
	while (!*stop && NowMs() < limit) {
		Client c(port);
		if (!c.connected()) {
			result->Fail("connect failed");
			return;
		}
		for (bool open = true; open && !*stop && NowMs() < limit;) {
			std::string bytes = c.Send(Get("/a.txt")) ? c.TakeResponse() : "";
			size_t used;
			if (!wire::TakeResponse(bytes, &used)) {
				result->Fail("got " + std::to_string(bytes.size()) + " bytes: " + bytes);
				open = false;
				continue;
			}
			result->ok++;
			open = bytes.find("\r\nConnection: close") == std::string::npos;
		}
	}
}

// Waits until result has at least n answers (bounded by kLoadLimitMs). Returns whether.
bool WaitForAnswers(const LoadResult &result, int n)
{
	WaitUntil([&] { return result.ok >= n || result.failed > 0; }, kLoadLimitMs, 5);
	return result.ok >= n;
}

class UpgradeTest : public SupervisorTest {
protected:
	void SetUp() override
	{
		SupervisorTest::SetUp();
		if (IsSkipped() || HasFatalFailure())
			return;
		ASSERT_TRUE(Install(DaemonPath()));
	}
	std::string binary() const { return dir_ + "/apollod"; }

	bool Install(const std::string &source) { return InstallByRename(source, binary()); }
	bool InstallText(const std::string &text)
	{
		std::string source = dir_ + "/source";
		WriteFile(source, text);
		return Install(source);
	}
};

// A new binary at the path: same supervisor, the serving generation (and its workers)
// run the new file, no request fails under keep-alive load, and a later reload keeps the
// new image.
TEST_P(UpgradeTest, Usr2RunsTheNewBinaryWithoutFailingARequest)
{
	ReloadDaemon d;
	d.UseBinary(binary());
	ASSERT_EQ(d.Start(WithWorkers({})), "");
	pid_t supervisor = d.pid();
	ino_t old_image = InodeOf(binary());
	std::atomic<bool> stop{false};
	LoadResult result;
	std::vector<std::thread> load;
	for (int i = 0; i < kLoadClients; i++)
		load.emplace_back(PersistentLoad, d.port(), &stop, &result);
	EXPECT_TRUE(WaitForAnswers(result, kLoadRequests)) << result.first_failure;
	ASSERT_TRUE(Install(DaemonPath()));
	ino_t new_image = InodeOf(binary());
	ASSERT_NE(new_image, old_image);
	ASSERT_EQ(kill(supervisor, SIGUSR2), 0);
	std::smatch m = d.WaitForLine(std::regex("apollod: upgraded: process ([0-9]+) runs the "
						 "new binary; process [0-9]+ drains\n"));
	ASSERT_FALSE(m.empty()) << d.Err();
	pid_t fresh = (pid_t)std::stoi(m[1].str());
	int before = result.ok;
	EXPECT_TRUE(WaitForAnswers(result, before + kLoadRequests)) << result.first_failure;
	stop = true;
	for (std::thread &t : load)
		t.join();
	EXPECT_EQ(result.failed, 0) << result.first_failure;
	EXPECT_GT(result.ok, 0);
	EXPECT_TRUE(ProcessRuns(supervisor));
	EXPECT_EQ(InodeOf("/proc/" + std::to_string(fresh) + "/exe"), new_image);
	for (pid_t worker : Children(fresh))
		EXPECT_EQ(InodeOf("/proc/" + std::to_string(worker) + "/exe"), new_image);
	EXPECT_EQ(InodeOf("/proc/" + std::to_string(supervisor) + "/exe"), old_image);
	// A reload afterwards runs the upgraded image, not the supervisor's own.
	ASSERT_EQ(kill(supervisor, SIGHUP), 0);
	pid_t again = d.WaitForReloaded(1);
	ASSERT_GT(again, 0) << d.Err();
	EXPECT_EQ(InodeOf("/proc/" + std::to_string(again) + "/exe"), new_image);
	int status = d.Stop();
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// A binary that cannot serve (a script that exits 1, an ELF cut short): one line each,
// and the old generation goes on serving.
TEST_P(UpgradeTest, BrokenBinaryLeavesTheOldOneServing)
{
	ReloadDaemon d;
	d.UseBinary(binary());
	ASSERT_EQ(d.Start(WithWorkers({})), "");
	pid_t serving = d.generation();
	ASSERT_GT(serving, 0);
	ASSERT_TRUE(InstallText("#!/bin/sh\nexit 1\n"));
	ASSERT_EQ(kill(d.pid(), SIGUSR2), 0);
	std::regex failed("apollod: upgrade failed: the new binary's process [a-z ]+[0-9]+; "
			  "serving on\n");
	ASSERT_FALSE(d.WaitForLine(failed).empty()) << d.Err();
	EXPECT_EQ(StatusOf(d.port(), "/a.txt"), 200);
	std::string cut = Slurp(DaemonPath()).substr(0, 4096);
	ASSERT_TRUE(InstallText(cut));
	ASSERT_EQ(kill(d.pid(), SIGUSR2), 0);
	std::regex twice("(upgrade failed: [^\n]*\n[\\s\\S]*){2}");
	ASSERT_FALSE(d.WaitForLine(twice).empty()) << d.Err();
	EXPECT_EQ(StatusOf(d.port(), "/a.txt"), 200);
	EXPECT_EQ(d.generation(), serving);
	EXPECT_TRUE(ProcessRuns(serving));
	int status = d.Stop();
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

INSTANTIATE_TEST_SUITE_P(Processes, UpgradeTest, testing::Values(1, 2), ProcessesName);

} // namespace
} // namespace wire
