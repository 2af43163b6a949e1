// Readiness never waits for compression (BEHAVIOUR 10.10, 17): the first start serves the
// files as stored at once, and the resident supervisor then forks a compressing generation
// from its own table and arenas, which takes over as a reload's new generation would (one
// line, not counted as a reload) while the first drains; a SIGHUP that comes meanwhile is
// done after the handover; --compress off forks none. The supervisor holds no tree once
// its generations have it: its VmRSS after a 60,000-file load is far below the serving
// generation's. Run as one serving process and with --workers 2, natively and under qemu
// (a fork, no exec); the SIGHUP's reload (an exec) natively only.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test/inflate.h"
#include "test/wire/reload_daemon.h"
#include "test/wire/wire_harness.h"

namespace wire {
namespace {

// Real text the bootstrap installs (as compress_test.cc uses).
const char kHtml[] = "/usr/share/doc/bazel-bootstrap/site/docs/build-ref.html";
constexpr int kCatchAttempts = 5; // starts tried until one is caught compressing
constexpr int kCopies = 300;      // copies of the page (10 MB): compressing lasts past Start
constexpr size_t kBigFiles = 60000; // the big tree: empty files, one directory
constexpr long kNoTreeMarginKb = 20 * 1024; // 20 MiB: what the table alone costs there

// The response to GET target with the extra fields, on a new connection.
HttpResponse Get(int port, const std::string &target, const std::string &fields)
{
	std::string request = "GET " + target + " HTTP/1.1\r\nHost: h\r\n" + fields +
			      "Connection: close\r\n\r\n";
	return ParseResponse(Roundtrip(port, request, false, 5000).bytes);
}

// VmRSS of pid in kB (/proc/PID/status), or -1.
long RssKb(pid_t pid)
{
	std::ifstream in("/proc/" + std::to_string(pid) + "/status");
	for (std::string line; std::getline(in, line);)
		if (line.rfind("VmRSS:", 0) == 0)
			return std::stol(line.substr(6));
	return -1;
}

class CompressHandoverTest : public ProcessesTest {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("compress");
		if (GetParam() > 1 && !HasFeature("workers"))
			GTEST_SKIP() << "--workers belongs to the tiers with workers";
		std::ifstream f(kHtml, std::ios::binary);
		std::stringstream s;
		s << f.rdbuf();
		html_ = s.str();
		ASSERT_GT(html_.size(), 4096u) << kHtml << ": run scripts/bootstrap.sh";
	}

	// Starts daemons until one is caught with its compressing generation stopped
	// (SIGSTOP) while it compresses (kCopies copies of the page keep it busy): the
	// supervisor's second child, stopped with gzip_pending still above 0 and no
	// "compressed" line. Returns it, its compressing generation in *compressing and its
	// first in *first, or NULL.
	std::unique_ptr<ReloadDaemon> StartCaught(pid_t *first, pid_t *compressing)
	{
		std::map<std::string, std::string> files = {{"page.html", html_}};
		for (int i = 0; i < kCopies; i++)
			files["copy-" + std::to_string(i) + ".html"] = html_;
		for (int attempt = 0; attempt < kCatchAttempts; attempt++) {
			std::unique_ptr<ReloadDaemon> d(new ReloadDaemon);
			d->DoNotSettle();
			std::string error = d->Start(WithWorkers({}), 0, files);
			if (!error.empty()) {
				ADD_FAILURE() << error;
				return nullptr;
			}
			pid_t pid = d->pid();
			std::vector<pid_t> kids;
			WaitUntil([&] { return !(kids = Children(pid)).empty(); }, kStateWaitMs, 1);
			/* the first is the older (the smaller pid, but for a wrap: then again) */
			*first = kids.empty() ? -1 : *std::min_element(kids.begin(), kids.end());
			*compressing = -1;
			WaitUntil([&] {
				for (pid_t k : Children(pid))
					if (k > *first)
						*compressing = k;
				return *compressing > 0;
			}, kStateWaitMs, 0);
			if (*compressing > 0)
				kill(*compressing, SIGSTOP);
			if (*compressing > 0 && SupervisorCounter(pid, kGzipPendingCounter) > 0 &&
			    d->Err().find("compressed:") == std::string::npos)
				return d;
			if (*compressing > 0)
				kill(*compressing, SIGCONT); /* it was done already: again */
			last_ = "first " + std::to_string(*first) + ", compressing " +
				std::to_string(*compressing) + "; stderr: " + d->Err();
		}
		return nullptr;
	}

	std::string html_;
	std::string last_; // what the last attempt of StartCaught saw
};

// While the compressing generation is stopped, the first serves: the page as stored, no Vary, gzip_pending above 0 and no gzip representation. Once it can, the
// compressing generation takes over with its line (the first drains), the page's gzip
// inflates to it, and a SIGHUP sent meanwhile reloads after the handover, compressing
// nothing again.
TEST_P(CompressHandoverTest, TheFirstServesAsStoredThenTheGzipFormsTakeOver)
{
	pid_t first = -1, compressing = -1;
	std::unique_ptr<ReloadDaemon> d = StartCaught(&first, &compressing);
	ASSERT_NE(d, nullptr) << "the compressing generation was never caught compressing: " << last_;
	ASSERT_TRUE(WaitUntil([&] { return StatusOf(d->port(), "/health") == 200; }));
	HttpResponse r = Get(d->port(), "/page.html", "Accept-Encoding: gzip\r\n");
	EXPECT_EQ(r.status, 200);
	int count = -1;
	r.Header("Content-Encoding", &count);
	EXPECT_EQ(count, 0) << "the first start serves the file as stored";
	r.Header("Vary", &count);
	EXPECT_EQ(count, 0) << "no representation yet: no Vary";
	EXPECT_EQ(r.body, html_);
	std::map<std::string, uint64_t> m = FetchMetrics(d->port());
	EXPECT_EQ(m["gzip_pending"], 1u + kCopies);
	EXPECT_EQ(m["gzip_representations"], 0u);
	bool reload = DaemonLauncher().empty(); // an exec'd reload: natively only
	if (reload)
		ASSERT_EQ(kill(d->pid(), SIGHUP), 0); // kept until the handover
	ASSERT_EQ(kill(compressing, SIGCONT), 0);
	std::smatch line = d->WaitForLine(std::regex(
		"apollod: compressed: process ([0-9]+) serves the gzip forms; process ([0-9]+) "
		"drains\n"));
	ASSERT_FALSE(line.empty()) << d->Err();
	EXPECT_EQ(std::stoi(line[1].str()), compressing);
	EXPECT_EQ(std::stoi(line[2].str()), first);
	ASSERT_TRUE(WaitForSettledStart(d->pid())) << d->Err();
	if (reload)
		ASSERT_GT(d->WaitForReloaded(1), 0) << "the SIGHUP was lost: " << d->Err();
	r = Get(d->port(), "/page.html", "Accept-Encoding: gzip\r\n");
	// (what served it, should it be the stored page: the processes and the log)
	EXPECT_EQ(r.Header("Content-Encoding"), "gzip") << ProcessTreeReport(d->pid()) << d->Err();
	EXPECT_EQ(r.Header("Vary"), "Accept-Encoding");
	std::string back;
	EXPECT_TRUE(InflateGzip(r.body.data(), r.body.size(), html_.size(), &back));
	EXPECT_TRUE(back == html_) << "the gzip inflates to the page";
	m = FetchMetrics(d->port());
	EXPECT_EQ(m["gzip_pending"], 0u);
	EXPECT_EQ(m["gzip_representations"], 1u + kCopies);
	EXPECT_EQ(m["compressions_at_load"], 1u + kCopies) << "the reload carried them";
	EXPECT_EQ(m["reloads"], reload ? 1u : 0u) << "the handover is no reload";
}

// --compress off: nothing is left to compress, and no second generation is forked.
TEST_P(CompressHandoverTest, CompressOffForksNoCompressingGeneration)
{
	ReloadDaemon d;
	ASSERT_EQ(d.Start(WithWorkers({"--compress", "off"}), 0, {{"page.html", html_}}), "");
	pid_t first = ServingGeneration(d.pid());
	ASSERT_GT(first, 0);
	EXPECT_EQ(SupervisorCounter(d.pid(), kGzipPendingCounter), 0);
	EXPECT_EQ(StatusOf(d.port(), "/page.html"), 200);
	EXPECT_EQ(ServingGeneration(d.pid()), first);
	EXPECT_EQ(d.Err().find("compressed:"), std::string::npos) << d.Err();
}

// After a load of 60,000 files the supervisor keeps no table: its VmRSS is at least
// 20 MiB below the serving generation's (which holds the table; the bodies are empty).
TEST_P(CompressHandoverTest, TheSupervisorHoldsNoTree)
{
	std::map<std::string, std::string> files;
	for (size_t i = 0; i < kBigFiles; i++)
		files["file-" + std::to_string(i) + ".txt"] = "";
	ReloadDaemon d;
	ASSERT_EQ(d.Start(WithWorkers({}), 0, files), "") << d.Err();
	pid_t serving = ServingGeneration(d.pid());
	ASSERT_GT(serving, 0);
	long supervisor_kb = -1, serving_kb = -1; // the supervisor releases after its fork
	EXPECT_TRUE(WaitUntil([&] {
		supervisor_kb = RssKb(d.pid());
		serving_kb = RssKb(serving);
		return supervisor_kb >= 0 && supervisor_kb + kNoTreeMarginKb <= serving_kb;
	}))
		<< "supervisor " << supervisor_kb << " kB, generation " << serving_kb << " kB";
}

INSTANTIATE_TEST_SUITE_P(Processes, CompressHandoverTest, testing::Values(1, 2));

} // namespace
} // namespace wire
