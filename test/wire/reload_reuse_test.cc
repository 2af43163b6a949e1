// A reload copies nothing that did not change (BEHAVIOUR 10.17, 17): the new image gets the
// old one's arenas (sealed memfds) and manifest as descriptors and reuses the bytes of
// every file whose device, inode, size, mtime and ctime are unchanged; only new or changed
// files are read, into a new arena; arenas no file uses are dropped; past the bound (or
// with more dead bytes than live ones in the reused arenas) the reload compacts. The gzip
// representations made at load are carried the same way (BEHAVIOUR 10.10): a reload
// compresses only what changed (compressions_at_load), by SIGHUP or by --watch.
//
// What is compared is read from /proc/PID/fd: the `memfd:apollod-snapshot` links (each an
// arena: its inode, its size) of the serving generation (the single process, or the
// supervisor of its --workers, which holds the snapshot the workers share). Under an
// emulator the reload is not tested (the new image would be the emulator: reload_test.cc).
#include <dirent.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "test/inflate.h"
#include "test/wire/reload_daemon.h"
#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr size_t kMiB = 1u << 20;
constexpr size_t kBigFiles = 8;              // the unchanged tree: 8 files of 4 MiB
constexpr size_t kBigFile = 4 * kMiB;
constexpr size_t kSmallFiles = 20; // the changing tree: 20 files of 64 KiB
constexpr size_t kSmallFile = 64 * 1024;
constexpr int kArenasKept = 7;               // file_arenas.c ARENAS_KEPT
constexpr int kShmemSampleMs = 5;

// The shared memory the daemon's processes hold, in bytes: every memfd and shared
// anonymous object (a `/memfd:` or `/dev/zero` link) among the descriptors
// (/proc/PID/fd) and the mappings (/proc/PID/map_files) of the supervisor and each of its
// descendants, counted once per object by its allocated blocks (st_blocks: pages that
// hold bytes, whoever maps them). The machine's Shmem (/proc/meminfo) would count every
// suite running beside this one too.
long long DaemonShmemBytes(pid_t supervisor)
{
	std::map<std::pair<dev_t, ino_t>, long long> objects;
	std::vector<pid_t> tree = Descendants(supervisor);
	tree.push_back(supervisor);
	for (pid_t p : tree)
		for (const char *kind : {"/fd", "/map_files"}) {
			std::string dir = "/proc/" + std::to_string(p) + kind;
			DIR *d = opendir(dir.c_str());
			for (struct dirent *e; d && (e = readdir(d)) != nullptr;) {
				std::string path = dir + "/" + e->d_name;
				char link[256];
				ssize_t n = readlink(path.c_str(), link, sizeof(link) - 1);
				std::string target(link, n > 0 ? (size_t)n : 0);
				struct stat st;
				if ((target.rfind("/memfd:", 0) == 0 || target.rfind("/dev/zero", 0) == 0) &&
				    stat(path.c_str(), &st) == 0)
					objects[{st.st_dev, st.st_ino}] = (long long)st.st_blocks * 512;
			}
			if (d)
				closedir(d);
		}
	long long sum = 0;
	for (const auto &o : objects)
		sum += o.second;
	return sum;
}

// The body GET target returns (a close request), or "" when it is no 200.
std::string Body(int port, const std::string &target)
{
	Received r = Roundtrip(port, GetClose(target));
	HttpResponse h = ParseResponse(r.bytes);
	return h.parsed && h.status == 200 ? h.body : std::string();
}

// Sends the daemon (its resident supervisor) SIGHUP and waits until the n-th reload's new
// generation serves and `from`, the generation it replaces, has exited. Returns the new
// generation's pid, or -1.
pid_t Reload(ReloadDaemon &d, pid_t from, int n)
{
	if (kill(d.pid(), SIGHUP) != 0)
		return -1;
	pid_t to = d.WaitForReloadedAlone(n);
	return to > 0 && !ProcessRuns(from) ? to : -1;
}

// Compressible text of about n bytes (lines of numbered words), different for each seed.
std::string Text(size_t n, uint64_t seed)
{
	std::string s;
	for (uint64_t i = 0; s.size() < n; i++)
		s += "<p>line " + std::to_string(i) + " of page " + std::to_string(seed) + "</p>\n";
	s.resize(n);
	return s;
}

// A GET of target asking for gzip (a close request).
HttpResponse GetGzip(int port, const std::string &target)
{
	return ParseResponse(Roundtrip(port, "GET " + target +
						     " HTTP/1.1\r\nHost: h\r\nAccept-Encoding: gzip\r\n"
						     "Connection: close\r\n\r\n")
				     .bytes);
}

// "" when r is a gzip 200 that inflates to body, else what is wrong.
std::string GzipProblem(const HttpResponse &r, const std::string &body)
{
	std::string back;
	if (r.status != 200 || r.Header("Content-Encoding") != "gzip")
		return "no gzip 200: " + std::to_string(r.status);
	if (!InflateGzip(r.body.data(), r.body.size(), body.size(), &back) || back != body)
		return "does not inflate to the file's bytes";
	return "";
}

// The compressible tree of the compression tests: two pages of text (gzip kept) and 64
// KiB of noise named .txt (compressed, not worth keeping).
std::map<std::string, std::string> TextTree()
{
	return {{"page.html", Text(200000, 1)}, {"app.js", Text(70000, 2)},
		{"noise.txt", Random(65536, 3)}};
}

// Replaces path with text at once: written beside root (dir/root's parent), then renamed
// over it, so that no load can see it half-written.
bool ReplaceByRename(ReloadDaemon &d, const std::string &rel, const std::string &text)
{
	std::string next = d.root() + "/../replacement";
	WriteFile(next, text);
	return rename(next.c_str(), (d.root() + "/" + rel).c_str()) == 0;
}

// Waits until /metrics says the serving snapshot holds want gzip representations and
// compressions_at_load reads at least runs. Returns the metrics read last.
std::map<std::string, uint64_t> WaitForGzip(int port, uint64_t want, uint64_t runs)
{
	std::map<std::string, uint64_t> m;
	WaitUntil([&] {
		m = FetchMetrics(port);
		return m["gzip_representations"] == want && m["compressions_at_load"] >= runs;
	});
	return m;
}

class ReloadReuseTest : public ProcessesTest {
protected:
	void SetUp() override
	{
		if (!HasFeature("stop") || !HasFeature("files"))
			GTEST_SKIP() << "SIGHUP reload belongs to the routed tiers with --root";
		if (!DaemonLauncher().empty())
			GTEST_SKIP() << "under an emulator the new image would be the emulator";
	}
	std::vector<std::string> Args() const
	{
		return WithWorkers({"--cache-bytes", "256M"});
	}
	// Starts d, then writes n files "f<i>.bin" of `size` pseudo-random bytes (seed i)
	// into its root and reloads, so that the tree is read. Returns the generation that
	// serves it, or -1 (d.Err() says why).
	pid_t LoadTree(ReloadDaemon &d, size_t n, size_t size)
	{
		if (d.Start(Args()) != "")
			return -1;
		for (size_t i = 0; i < n; i++)
			WriteFile(d.root() + "/f" + std::to_string(i) + ".bin", Random(size, i));
		return Reload(d, d.generation(), 1);
	}
};

INSTANTIATE_TEST_SUITE_P(Processes, ReloadReuseTest, testing::Values(1, 2),
			 ProcessesName);

// Reloading an unchanged tree reuses every arena: the new image holds the very memfds
// (same inodes, same sizes) and no other, and the shared memory the daemon's processes
// hold does not rise by a copy of the tree while both images are alive (sampled from the
// HUP until the old one has exited; a copy would add the whole 32 MiB).
TEST_P(ReloadReuseTest, UnchangedTreeReusesEveryMemfd)
{
	ReloadDaemon d;
	pid_t first = LoadTree(d, kBigFiles, kBigFile);
	ASSERT_GT(first, 0) << d.Err();
	// a.txt's arena from the start, reused, and the tree's
	std::map<ino_t, off_t> before = Arenas(first);
	ASSERT_FALSE(before.empty());
	off_t bytes = 0;
	for (const auto &a : before)
		bytes += a.second;
	EXPECT_EQ(bytes, (off_t)(kBigFiles * kBigFile + kBodyA.size()));

	std::atomic<bool> stop{false};
	long long base = DaemonShmemBytes(d.pid()), peak = base;
	std::thread sampler([&] {
		while (!stop) {
			long long now = DaemonShmemBytes(d.pid());
			peak = now > peak ? now : peak;
			SleepMs(kShmemSampleMs);
		}
	});
	pid_t second = Reload(d, first, 2);
	stop = true;
	sampler.join();
	ASSERT_GT(second, 0) << d.Err();
	EXPECT_EQ(Arenas(second), before) << "the arenas are not the old image's";
	EXPECT_LT(peak - base, (long long)(kBigFiles * kBigFile / 2))
		<< "shared memory rose by " << (peak - base) << " bytes during the reload";
	for (size_t i = 0; i < kBigFiles; i += 3)
		EXPECT_EQ(Body(d.port(), "/f" + std::to_string(i) + ".bin"), Random(kBigFile, i));
	EXPECT_EQ(d.Stop(), 0) << d.Err();
}

// A changed file (rewritten: new size, new mtime) gets new bytes in a new arena, of its
// size alone, and is served new after the reload; the unchanged ones keep the old arena.
TEST_P(ReloadReuseTest, ChangedFileGetsANewArena)
{
	ReloadDaemon d;
	pid_t first = LoadTree(d, kSmallFiles, kSmallFile);
	ASSERT_GT(first, 0) << d.Err();
	std::map<ino_t, off_t> before = Arenas(first);
	ASSERT_FALSE(before.empty());

	const std::string changed = Random(kSmallFile + 1, 99);
	WriteFile(d.root() + "/f2.bin", changed);
	pid_t second = Reload(d, first, 2);
	ASSERT_GT(second, 0) << d.Err();
	std::map<ino_t, off_t> after = Arenas(second);
	ASSERT_EQ(after.size(), before.size() + 1) << "the old arenas and one new one";
	for (const auto &a : before)
		EXPECT_EQ(after.count(a.first), 1u) << "an old arena was not kept";
	for (const auto &a : after) {
		if (!before.count(a.first))
			EXPECT_EQ(a.second, (off_t)changed.size()) << "the new arena holds f2 alone";
	}
	EXPECT_EQ(Body(d.port(), "/f2.bin"), changed);
	EXPECT_EQ(Body(d.port(), "/f1.bin"), Random(kSmallFile, 1));
	EXPECT_EQ(Body(d.port(), "/a.txt"), kBodyA);
	EXPECT_EQ(d.Stop(), 0) << d.Err();
}

// Deleted files' bytes are dropped at compaction: when the reused arena holds more bytes
// of deleted files than of live ones, the reload copies the live ones once into one new
// arena and closes the old one.
TEST_P(ReloadReuseTest, DeletedFilesAreDroppedAtCompaction)
{
	ReloadDaemon d;
	pid_t first = LoadTree(d, kSmallFiles, kSmallFile);
	ASSERT_GT(first, 0) << d.Err();
	std::map<ino_t, off_t> before = Arenas(first);
	ASSERT_FALSE(before.empty());

	for (size_t i = 1; i < kSmallFiles; i++) // f0 and a.txt stay
		ASSERT_EQ(unlink((d.root() + "/f" + std::to_string(i) + ".bin").c_str()), 0);
	pid_t second = Reload(d, first, 2);
	ASSERT_GT(second, 0) << d.Err();
	std::map<ino_t, off_t> after = Arenas(second);
	ASSERT_EQ(after.size(), 1u);
	for (const auto &a : before)
		EXPECT_EQ(after.count(a.first), 0u) << "an old arena was kept";
	EXPECT_EQ(after.begin()->second, (off_t)(kSmallFile + kBodyA.size()))
		<< "the new arena holds only the live bytes";
	EXPECT_EQ(Body(d.port(), "/f0.bin"), Random(kSmallFile, 0));
	EXPECT_EQ(StatusOf(d.port(), "/f1.bin"), 404);
	EXPECT_EQ(d.Stop(), 0) << d.Err();
}

// Each reload that changes one file adds one arena; the arenas stay within the bound:
// the reload that would pass it compacts to one, and every file is still served right.
TEST_P(ReloadReuseTest, ArenasStayWithinTheBound)
{
	if (GetParam() > 1)
		GTEST_SKIP() << "the bound is the snapshot's, the same with workers";
	ReloadDaemon d;
	pid_t serving = LoadTree(d, kSmallFiles, kSmallFile);
	ASSERT_GT(serving, 0) << d.Err();
	size_t most = 0, fewest_after_most = SIZE_MAX;
	for (int round = 0; round < kArenasKept + 1; round++) {
		WriteFile(d.root() + "/f" + std::to_string(round) + ".bin",
			  Random(kSmallFile, 100 + round));
		serving = Reload(d, serving, round + 2);
		ASSERT_GT(serving, 0) << "round " << round << ": " << d.Err();
		size_t arenas = Arenas(serving).size();
		EXPECT_LE(arenas, (size_t)kArenasKept) << "round " << round;
		if (arenas >= most)
			most = arenas;
		else if (arenas < fewest_after_most)
			fewest_after_most = arenas;
	}
	EXPECT_EQ(most, (size_t)kArenasKept) << "the arenas never reached the bound";
	EXPECT_EQ(fewest_after_most, 1u) << "no compaction to one arena";
	for (int i = 0; i < kArenasKept + 1; i++)
		EXPECT_EQ(Body(d.port(), "/f" + std::to_string(i) + ".bin"),
			  Random(kSmallFile, 100 + i));
	EXPECT_EQ(Body(d.port(), "/f9.bin"), Random(kSmallFile, 9));
	EXPECT_EQ(d.Stop(), 0) << d.Err();
}

// gzip representations are carried, never made twice (BEHAVIOUR 10.10, 10.17): the
// start-up compresses the text tree's 3 candidates (2 kept, the noise not worth it); a reload of the unchanged tree compresses nothing (compressions_at_load does not
// move) and serves the very gzip bytes under the same ETag, the noise not tried again;
// after one file changes, it alone is compressed, and its gzip inflates to its new bytes.
TEST_P(ReloadReuseTest, CompressedFormsAreCarriedNotMadeAgain)
{
	ReloadDaemon d;
	ASSERT_EQ(d.Start(Args(), 0, TextTree()), "");
	std::map<std::string, uint64_t> m = WaitForGzip(d.port(), 2, 3);
	ASSERT_EQ(m["gzip_representations"], 2u);
	ASSERT_EQ(m["compressions_at_load"], 3u) << "page.html, app.js, noise.txt; a.txt is short";
	HttpResponse page = GetGzip(d.port(), "/page.html");
	EXPECT_EQ(GzipProblem(page, Text(200000, 1)), "");

	pid_t second = Reload(d, d.generation(), 1);
	ASSERT_GT(second, 0) << d.Err();
	m = FetchMetrics(d.port());
	EXPECT_EQ(m["compressions_at_load"], 3u) << "the unchanged reload compressed something";
	EXPECT_EQ(m["gzip_representations"], 2u) << "carried";
	HttpResponse again = GetGzip(d.port(), "/page.html");
	EXPECT_TRUE(again.body == page.body) << "other gzip bytes";
	EXPECT_EQ(again.Header("ETag"), page.Header("ETag"));

	ASSERT_TRUE(ReplaceByRename(d, "app.js", Text(70001, 4)));
	pid_t third = Reload(d, second, 2);
	ASSERT_GT(third, 0) << d.Err();
	m = FetchMetrics(d.port());
	EXPECT_EQ(m["compressions_at_load"], 4u) << "only the changed file is compressed";
	EXPECT_EQ(m["gzip_representations"], 2u);
	EXPECT_EQ(GzipProblem(GetGzip(d.port(), "/app.js"), Text(70001, 4)), "");
	EXPECT_TRUE(GetGzip(d.port(), "/page.html").body == page.body);
	EXPECT_EQ(d.Stop(), 0) << d.Err();
}

// A file with its X.gz beside it is never compressed, at a reload too, which compresses
// at load (the X.gz is looked up in the table the loading walk has just made).
TEST_P(ReloadReuseTest, AGzipBesideIsNotCompressedAtAReload)
{
	ReloadDaemon d;
	const std::string page = Text(200000, 5);
	ASSERT_EQ(d.Start(Args(), 0, {{"page.html", page}, {"page.html.gz", "the gzip beside it"}}),
		  "");
	pid_t second = Reload(d, d.generation(), 1);
	ASSERT_GT(second, 0) << d.Err();
	std::map<std::string, uint64_t> m = FetchMetrics(d.port());
	EXPECT_EQ(m["compressions_at_load"], 0u);
	EXPECT_EQ(m["gzip_representations"], 0u);
	EXPECT_EQ(GetGzip(d.port(), "/page.html").body, "the gzip beside it");
	EXPECT_EQ(d.Stop(), 0) << d.Err();
}

// --watch compresses only what a deploy changed: the reload a file replaced starts adds one
// to compressions_at_load (one reload or more: the unchanged files are never compressed
// again).
TEST_P(ReloadReuseTest, WatchCompressesOnlyWhatChanged)
{
	ReloadDaemon d;
	std::vector<std::string> args = Args();
	args.push_back("--watch");
	ASSERT_EQ(d.Start(args, 0, TextTree()), "");
	std::map<std::string, uint64_t> m = WaitForGzip(d.port(), 2, 3);
	ASSERT_EQ(m["gzip_representations"], 2u) << d.Err();
	ASSERT_EQ(m["compressions_at_load"], 3u);

	ASSERT_TRUE(ReplaceByRename(d, "app.js", Text(70001, 4)));
	ASSERT_TRUE(WaitUntil([&] {
		return GzipProblem(GetGzip(d.port(), "/app.js"), Text(70001, 4)) == "";
	})) << d.Err();
	m = FetchMetrics(d.port());
	EXPECT_EQ(m["compressions_at_load"], 4u) << "the deploy's reload compressed more";
	EXPECT_EQ(m["gzip_representations"], 2u);
	EXPECT_EQ(d.Stop(), 0) << d.Err();
}

// issue 31: a named site (--site) carries its arenas and gzip forms across a reload as the
// default site does. The site's text tree (in a directory of its own) is compressed once
// at the start (3 runs); an unchanged reload compresses nothing and the serving image holds
// the very memfds (the named site's too); after one of its files changes, only that one is
// compressed (one run more), and its gzip, asked of the site's host, inflates to its new
// bytes. Read afresh (as before issue 31), the unchanged reload would count 3 runs more.
TEST_P(ReloadReuseTest, NamedSiteReusesItsArenasAcrossAReload)
{
	char name[] = "/tmp/apollod-named-XXXXXX";
	ASSERT_NE(mkdtemp(name), nullptr);
	const std::string site = name;
	for (const auto &f : TextTree())
		WriteFile(site + "/" + f.first, f.second);
	auto gzip_of = [&](int port, const std::string &target) {
		return ParseResponse(Roundtrip(port, "GET " + target +
							     " HTTP/1.1\r\nHost: n.example\r\n"
							     "Accept-Encoding: gzip\r\nConnection: close\r\n\r\n")
					     .bytes);
	};
	ReloadDaemon d;
	std::vector<std::string> args = Args();
	args.insert(args.end(), {"--site", "n.example=" + site});
	ASSERT_EQ(d.Start(args), "");
	std::map<std::string, uint64_t> m = WaitForGzip(d.port(), 2, 3);
	ASSERT_EQ(m["compressions_at_load"], 3u) << d.Err();
	HttpResponse page = gzip_of(d.port(), "/page.html");
	EXPECT_EQ(GzipProblem(page, Text(200000, 1)), "");
	pid_t first = d.generation();
	std::map<ino_t, off_t> before = Arenas(first);

	pid_t second = Reload(d, first, 1);
	ASSERT_GT(second, 0) << d.Err();
	m = FetchMetrics(d.port());
	EXPECT_EQ(m["compressions_at_load"], 3u) << "the named site's unchanged tree was read afresh";
	EXPECT_EQ(m["gzip_representations"], 2u);
	EXPECT_EQ(Arenas(second), before) << "the arenas are not the old image's";
	EXPECT_TRUE(gzip_of(d.port(), "/page.html").body == page.body) << "other gzip bytes";

	std::string next = site + ".next";
	WriteFile(next, Text(70001, 4));
	ASSERT_EQ(rename(next.c_str(), (site + "/app.js").c_str()), 0);
	pid_t third = Reload(d, second, 2);
	ASSERT_GT(third, 0) << d.Err();
	m = FetchMetrics(d.port());
	EXPECT_EQ(m["compressions_at_load"], 4u) << "only the changed file is compressed";
	EXPECT_EQ(GzipProblem(gzip_of(d.port(), "/app.js"), Text(70001, 4)), "");
	EXPECT_EQ(d.Stop(), 0) << d.Err();
	RunCommand({"rm", "-rf", site}, "", 5000);
}

} // namespace
} // namespace wire
