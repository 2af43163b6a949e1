// Virtual hosts (--site HOST=DIR, BEHAVIOUR 10.21), feature `files`: the request's
// authority (Host, or an absolute-form target's) picks the site, exact names before
// "*.suffix" ones, --root for any other host, 421 without it (counted in responses_421);
// each site serves its own tree, error pages, --redirects rules, --header-for fields and
// gzip made at load; the access log ends with the host; a --config file's site sections
// and their refusals; a reload that adds a site, then drops it.
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test/inflate.h"
#include "test/wire/reload_daemon.h"
#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kCommandMs = 20000; // a refused start (under qemu too) ends within this
constexpr int kExitConfig = 19;
constexpr int kExitUsage = 64;
constexpr size_t kLargeBody = 4u << 20; // a named site's body that leaves by reference

// A request for target with Host host (none when empty), closing.
std::string ForHost(const std::string &host, const std::string &target,
		    const std::string &method = "GET", const std::string &more = "")
{
	return method + " " + target + " HTTP/1.1\r\n" + (host.empty() ? "" : "Host: " + host + "\r\n") +
	       more + "Connection: close\r\n\r\n";
}

// A page long and plain enough to get a gzip representation at load.
std::string Page(const std::string &who)
{
	std::string p = "<!doctype html><title>" + who + "</title>\n";
	for (int i = 0; i < 40; i++)
		p += "<p>the site of " + who + ", paragraph " + std::to_string(i) + "</p>\n";
	return p;
}

// Three trees in a fresh directory: d (the default), a and b, each with its own index
// page, a 404 page, a text page and (a) a 4 MiB body; a --config file beside them.
class VhostTest : public testing::Test {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("files");
		char name[] = "/tmp/apollod-vhost-XXXXXX";
		ASSERT_NE(mkdtemp(name), nullptr);
		dir_ = name;
		for (const char *who : {"d", "a", "b"}) {
			std::string w = who;
			ASSERT_TRUE(Put(dir_, w + "/index.html", "site " + w + "\n"));
			ASSERT_TRUE(Put(dir_, w + "/404.html", "no such page on " + w + "\n"));
			ASSERT_TRUE(Put(dir_, w + "/page.html", Page(w)));
			ASSERT_TRUE(Put(dir_, w + "/sub/f.txt", "f of " + w + "\n"));
		}
		large_ = Random(kLargeBody, 31);
		ASSERT_TRUE(Put(dir_, "a/large.bin", large_));
	}
	void TearDown() override
	{
		daemon_.Stop();
		if (!dir_.empty())
			RunCommand({"rm", "-rf", dir_}, "", 5000);
	}
	std::string Tree(const std::string &who) const { return dir_ + "/" + who; }
	std::string Conf() const { return dir_ + "/apollod.conf"; }
	void Start(const std::vector<std::string> &args, size_t config_listens = 0)
	{
		DaemonOptions o;
		o.extra_args = args;
		o.config_listens = config_listens;
		std::string error;
		ASSERT_TRUE(daemon_.Start(o, &error)) << error;
	}
	HttpResponse Ask(const std::string &request)
	{
		return ParseResponse(Roundtrip(daemon_.port(), request, true).bytes);
	}
	std::string Body(const std::string &host, const std::string &target = "/")
	{
		HttpResponse r = Ask(ForHost(host, target));
		return r.parsed && r.status == 200 ? r.body : "status " + std::to_string(r.status);
	}
	// The daemon with args, to its refusal.
	CommandResult Run(const std::vector<std::string> &args) const
	{
		std::vector<std::string> argv = DaemonCommand();
		argv.insert(argv.end(), {"--listen", "127.0.0.1:0"});
		argv.insert(argv.end(), args.begin(), args.end());
		return RunCommand(argv, "", kCommandMs);
	}
	std::string dir_, large_;
	Daemon daemon_;
};

// Exact names (any case, a port, a trailing dot), then the longest *.suffix, then --root;
// a request without Host (HTTP/1.0) is the default's; the access log ends with the host.
TEST_F(VhostTest, ExactWildcardAndDefault)
{
	std::string log = dir_ + "/access.log";
	Start({"--root", Tree("d"), "--site", "a.example=" + Tree("a"), "--site",
	       "*.b.example=" + Tree("b"), "--site", "*.x.b.example=" + Tree("a"),
	       "--access-log", log});
	const std::map<std::string, std::string> want = {
		{"a.example", "site a\n"},   {"A.Example:8080", "site a\n"},
		{"a.example.", "site a\n"},  {"w.b.example", "site b\n"},
		{"v.w.b.example", "site b\n"}, {"y.x.b.example", "site a\n"},
		{"x.b.example", "site b\n"}, {"b.example", "site d\n"},
		{"other.example", "site d\n"}, {"127.0.0.1", "site d\n"},
		{"[::1]:80", "site d\n"},    {"aa.example", "site d\n"},
	};
	for (const auto &w : want)
		EXPECT_EQ(Body(w.first), w.second) << w.first;
	HttpResponse r = Ask("GET / HTTP/1.0\r\n\r\n");
	EXPECT_EQ(r.body, "site d\n");
	EXPECT_EQ(Body("a.example", "/sub/f.txt"), "f of a\n");
	EXPECT_EQ(Body("w.b.example", "/sub/f.txt"), "f of b\n");
	EXPECT_EQ(Ask(ForHost("a.example", "/nope")).status, 404);
	std::string lines;
	EXPECT_TRUE(WaitUntil([&] {
		lines = Slurp(log);
		return std::count(lines.begin(), lines.end(), '\n') == (long)want.size() + 4;
	}, kStateWaitMs, 20));
	EXPECT_NE(lines.find("\" 200 7 "), std::string::npos);
	EXPECT_NE(lines.find(" - A.Example:8080\n"), std::string::npos) << lines;
	EXPECT_NE(lines.find(" - v.w.b.example\n"), std::string::npos) << lines;
	EXPECT_NE(lines.find("\"GET / HTTP/1.0\" 200 7 "), std::string::npos) << lines;
	EXPECT_NE(lines.find(" - -\n"), std::string::npos) << "no Host: '-'\n" << lines;
	EXPECT_NE(lines.find("\"GET /nope HTTP/1.1\" 404 "), std::string::npos) << lines;
}

// Without --root, a host no --site names gets 421 (GET and HEAD, kept alive), counted in
// responses_421 and logged as 421; /health and /metrics still answer.
TEST_F(VhostTest, UnknownHostWithoutDefaultIs421)
{
	std::string log = dir_ + "/access.log";
	Start({"--site", "a.example=" + Tree("a"), "--access-log", log});
	std::map<std::string, uint64_t> before = FetchMetrics(daemon_.port());
	const std::string head = "HTTP/1.1 421 Misdirected Request\r\n"
				 "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 20\r\n";
	EXPECT_EQ(Roundtrip(daemon_.port(), ForHost("b.example", "/")).bytes,
		  head + "Connection: close\r\n\r\nmisdirected request\n");
	EXPECT_EQ(Roundtrip(daemon_.port(), ForHost("b.example", "/page.html", "HEAD")).bytes,
		  head + "Connection: close\r\n\r\n");
	EXPECT_EQ(Roundtrip(daemon_.port(), "GET / HTTP/1.0\r\n\r\n").bytes,
		  head + "Connection: close\r\n\r\nmisdirected request\n");
	EXPECT_EQ(Body("a.example"), "site a\n");
	EXPECT_EQ(Ask(ForHost("b.example", "/health")).status, 200);
	std::map<std::string, uint64_t> after = FetchMetrics(daemon_.port());
	EXPECT_EQ(after["responses_421"] - before["responses_421"], 3u);
	EXPECT_EQ(after["responses_200"] - before["responses_200"], 3u) << "a, /health, /metrics";
	std::string lines;
	EXPECT_TRUE(WaitUntil([&] {
		lines = Slurp(log);
		return std::count(lines.begin(), lines.end(), '\n') == 7;
	}, kStateWaitMs, 20));
	EXPECT_NE(lines.find("\"GET / HTTP/1.1\" 421 20 "), std::string::npos) << lines;
	EXPECT_NE(lines.find("\"HEAD /page.html HTTP/1.1\" 421 - "), std::string::npos) << lines;
	EXPECT_NE(lines.find(" - b.example\n"), std::string::npos) << lines;
}

// An absolute-form target's authority picks the site, over the Host field (RFC 9112
// 3.2.2).
TEST_F(VhostTest, AbsoluteFormAuthoritySelectsTheSite)
{
	Start({"--root", Tree("d"), "--site", "a.example=" + Tree("a")});
	EXPECT_EQ(Ask(ForHost("other", "http://a.example/sub/f.txt")).body, "f of a\n");
	EXPECT_EQ(Ask(ForHost("a.example", "http://other:8080/sub/f.txt")).body, "f of d\n");
	EXPECT_EQ(Ask(ForHost("", "http://A.EXAMPLE:80/")).body, "site a\n");
}

// A site section of the --config file: its own error page, --redirects rule and
// --header-for field, which neither the default nor the other site has.
TEST_F(VhostTest, PerSiteErrorPageRedirectsAndFields)
{
	ASSERT_TRUE(Put(dir_, "a.redirects", "/old /sub/f.txt 301\n"));
	ASSERT_TRUE(Put(dir_, "b.redirects", "/old /elsewhere 302\n"));
	WriteFile(Conf(), "listen 127.0.0.1:0\nroot " + Tree("d") + "\n"
			  "site a.example " + Tree("a") + "\n"
			  "  error-page 404=/404.html\n"
			  "  redirects " + dir_ + "/a.redirects\n"
			  "  header-for /sub/ X-Site: a\n"
			  "site *.b.example " + Tree("b") + "\n"
			  "  redirects " + dir_ + "/b.redirects\n");
	Start({"--config", Conf()}, 1);
	HttpResponse r = Ask(ForHost("a.example", "/missing"));
	EXPECT_EQ(r.status, 404);
	EXPECT_EQ(r.body, "no such page on a\n");
	EXPECT_EQ(Ask(ForHost("other", "/missing")).body, "not found\n");
	EXPECT_EQ(Ask(ForHost("w.b.example", "/missing")).body, "not found\n");
	r = Ask(ForHost("a.example", "/old"));
	EXPECT_EQ(r.status, 301);
	EXPECT_EQ(r.Header("Location"), "/sub/f.txt");
	r = Ask(ForHost("w.b.example", "/old"));
	EXPECT_EQ(r.status, 302);
	EXPECT_EQ(r.Header("Location"), "/elsewhere");
	EXPECT_EQ(Ask(ForHost("other", "/old")).status, 404);
	EXPECT_EQ(Ask(ForHost("a.example", "/sub/f.txt")).Header("X-Site"), "a");
	int count = -1;
	Ask(ForHost("other", "/sub/f.txt")).Header("X-Site", &count);
	EXPECT_EQ(count, 0);
	r = Ask(ForHost("a.example", "/sub/f.txt", "OPTIONS"));
	EXPECT_EQ(r.status, 204);
	EXPECT_EQ(r.Header("X-Site"), "a") << "OPTIONS reads the site's fields";
}

// issue 31: dotfiles, listing and cache-bytes in a site section are that site's own. Site
// a lists its directories and serves its dotfiles, b does neither (nor does the default);
// a's cache-bytes 0 sends every file of a to disk while b's and the default's, sharing
// --cache-bytes, stay in memory (responses_from_disk).
TEST_F(VhostTest, PerSiteDotfilesListingAndCacheBytes)
{
	for (const char *who : {"d", "a", "b"})
		ASSERT_TRUE(Put(dir_, std::string(who) + "/.env", "SECRET=" + std::string(who) + "\n"));
	WriteFile(Conf(), "listen 127.0.0.1:0\nroot " + Tree("d") + "\n"
			  "site a.example " + Tree("a") + "\n"
			  "  dotfiles\n"
			  "  listing\n"
			  "  cache-bytes 0\n"
			  "site b.example " + Tree("b") + "\n");
	Start({"--config", Conf()}, 1);
	EXPECT_EQ(Body("a.example", "/.env"), "SECRET=a\n");
	EXPECT_EQ(Body("b.example", "/.env"), "status 404");
	EXPECT_EQ(Body("other", "/.env"), "status 404");
	HttpResponse r = Ask(ForHost("a.example", "/sub/"));
	EXPECT_EQ(r.status, 200);
	EXPECT_NE(r.body.find("<a href=\"f.txt\">f.txt</a>"), std::string::npos) << r.body;
	EXPECT_EQ(Body("b.example", "/sub/"), "status 404");
	EXPECT_EQ(Body("other", "/sub/"), "status 404");
	auto from_disk = [&] { return FetchMetrics(daemon_.port())["responses_from_disk"]; };
	uint64_t before = from_disk();
	EXPECT_EQ(Body("b.example", "/sub/f.txt"), "f of b\n");
	EXPECT_EQ(Body("other", "/sub/f.txt"), "f of d\n");
	EXPECT_EQ(from_disk(), before) << "b and the default share --cache-bytes: in memory";
	EXPECT_EQ(Body("a.example", "/sub/f.txt"), "f of a\n");
	EXPECT_EQ(Body("a.example", "/page.html"), Page("a"));
	EXPECT_EQ(from_disk(), before + 2) << "a's cache-bytes 0: from disk";
}

// Each site's gzip, made at load, inflates to that site's own page.
TEST_F(VhostTest, EachSiteGzipInflatesToItsOwnPage)
{
	REQUIRE_FEATURE("compress");
	Start({"--root", Tree("d"), "--site", "a.example=" + Tree("a"), "--site",
	       "*.b.example=" + Tree("b")});
	for (const auto &h : std::vector<std::pair<std::string, std::string>>{
		     {"a.example", "a"}, {"w.b.example", "b"}, {"other", "d"}}) {
		HttpResponse r =
			Ask(ForHost(h.first, "/page.html", "GET", "Accept-Encoding: gzip\r\n"));
		EXPECT_EQ(r.status, 200) << h.first;
		EXPECT_EQ(r.Header("Content-Encoding"), "gzip") << h.first;
		std::string back;
		std::string page = Page(h.second);
		EXPECT_TRUE(InflateGzip(r.body.data(), r.body.size(), page.size(), &back));
		EXPECT_TRUE(back == page) << h.first << ": inflates to its own page";
	}
	EXPECT_EQ(FetchMetrics(daemon_.port())["gzip_representations"], 3u);
}

// A named site's 4 MiB body (from its own arena, by reference) arrives byte-exact.
TEST_F(VhostTest, NamedSiteLargeBodyByteExact)
{
	Start({"--root", Tree("d"), "--site", "a.example=" + Tree("a")});
	Received got = Roundtrip(daemon_.port(), ForHost("a.example", "/large.bin"), true, 20000);
	HttpResponse r = ParseResponse(got.bytes);
	EXPECT_EQ(r.status, 200);
	EXPECT_EQ(r.body.size(), large_.size());
	EXPECT_TRUE(r.body == large_) << "byte-exact";
	EXPECT_EQ(Ask(ForHost("other", "/large.bin")).status, 404);
}

// Site sections' refusals name the file and line; a name given twice (any case) is
// refused, on the command line too; a bad --site word; a site DIR that cannot open.
TEST_F(VhostTest, ConfigSitesAndTheirErrors)
{
	REQUIRE_FEATURE("routes");
	const struct {
		std::string text, line;
	} cases[] = {
		{"root " + Tree("d") + "\nsite a.example " + Tree("a") + "\nlisten 127.0.0.1:1\n",
		 ":3: listen is not a site's setting (a site section takes error-page, fallback,"
		 " redirects, headers, header-for, dotfiles, listing and cache-bytes)\n"},
		{"root " + Tree("d") + "\nsite a.example " + Tree("a") + "\n  listing\n"
		 "  cache-bytes lots\n",
		 ":4: cache-bytes: bad value 'lots'\n"},
		{"site a.example " + Tree("a") + "\n  dotfiles yes\n",
		 ":2: dotfiles takes no value: 'yes'\n"},
		{"site a..example " + Tree("a") + "\n",
		 ":1: site: bad value 'a..example=" + Tree("a") + "'\n"},
		{"site a.example\n", ":1: site: bad value 'a.example'\n"},
		{"site a.example " + Tree("a") + "\nsite A.EXAMPLE " + Tree("b") + "\n",
		 ":2: site A.EXAMPLE: the host is named by an earlier site\n"},
	};
	for (const auto &c : cases) {
		WriteFile(Conf(), c.text);
		CommandResult r = Run({"--config", Conf()});
		ASSERT_TRUE(r.ran) << r.problem;
		EXPECT_EQ(r.exit_code, kExitConfig) << c.text;
		EXPECT_EQ(r.err, "apollod: " + Conf() + c.line);
	}
	CommandResult r = Run({"--site", "a.example=" + Tree("a"), "--site", "a.example=" + Tree("b")});
	EXPECT_EQ(r.exit_code, kExitUsage);
	EXPECT_EQ(r.err, "apollod: --site a.example: the host is named by an earlier site\n");
	r = Run({"--site", "x*.example=" + Tree("a")});
	EXPECT_EQ(r.exit_code, kExitUsage);
	EXPECT_EQ(UsageErrorProblem(r.err, "apollod: --site: bad value 'x*.example=" + Tree("a") +
						   "'\n"),
		  "");
	r = Run({"--site", "a.example=" + dir_ + "/none"});
	EXPECT_EQ(r.exit_code, 10);
	EXPECT_EQ(r.err, "apollod: --site " + dir_ +
				 "/none: cannot open directory: no such file or directory\n");
}

// The memfds a process holds named apollod-snapshot: its arenas.
int ArenaCount(pid_t pid)
{
	std::string fds = "/proc/" + std::to_string(pid) + "/fd";
	DIR *d = opendir(fds.c_str());
	int n = 0;
	if (!d)
		return -1;
	while (struct dirent *e = readdir(d)) {
		char target[256];
		ssize_t len = readlink((fds + "/" + e->d_name).c_str(), target, sizeof(target) - 1);
		n += len > 0 && std::string(target, len).rfind("/memfd:apollod-snapshot", 0) == 0;
	}
	closedir(d);
	return n;
}

// A reload (SIGHUP) reads the --config file again: a site it adds serves its host, and
// once dropped that host falls to the default and the generation holds fewer arenas.
TEST(VhostReloadTest, ReloadDropsASite)
{
	REQUIRE_FEATURE("files");
	if (!HasFeature("stop") || !DaemonLauncher().empty())
		GTEST_SKIP() << "SIGHUP reload: the routed tiers, run natively";
	char name[] = "/tmp/apollod-vhost-reload-XXXXXX";
	ASSERT_NE(mkdtemp(name), nullptr);
	std::string dir = name, conf = dir + "/apollod.conf";
	ASSERT_TRUE(Put(dir, "d/index.html", "site d\n") && Put(dir, "a/index.html", "site a\n"));
	std::string base = "listen 127.0.0.1:0\nroot " + dir + "/d\n";
	WriteFile(conf, base);
	Daemon daemon;
	DaemonOptions o;
	o.extra_args = {"--config", conf};
	o.config_listens = 1;
	std::string error;
	ASSERT_TRUE(daemon.Start(o, &error)) << error;
	auto body = [&] { return ParseResponse(Roundtrip(daemon.port(), ForHost("a.example", "/")).bytes).body; };
	auto reload = [&](uint64_t n) {
		pid_t old = daemon.ServingPid();
		ASSERT_EQ(kill(daemon.pid(), SIGHUP), 0);
		EXPECT_TRUE(WaitUntil([&] { return FetchMetrics(daemon.port())["reloads"] == n; },
				      kStateWaitMs, 50));
		// The old image accepts until it has gone (BEHAVIOUR 17), with the old sites.
		EXPECT_TRUE(WaitUntilExited(old));
	};
	EXPECT_EQ(body(), "site d\n");
	int one = ArenaCount(daemon.ServingPid());
	WriteFile(conf, base + "site a.example " + dir + "/a\n");
	reload(1);
	EXPECT_EQ(body(), "site a\n");
	int two = -1;
	EXPECT_TRUE(WaitUntil([&] { return (two = ArenaCount(daemon.ServingPid())) == one + 1; },
			      kStateWaitMs, 50)) << one << " then " << two;
	WriteFile(conf, base);
	reload(2);
	EXPECT_EQ(body(), "site d\n") << "the dropped site's host falls to the default";
	int three = -1;
	EXPECT_TRUE(WaitUntil([&] { return (three = ArenaCount(daemon.ServingPid())) == one; },
			      kStateWaitMs, 50)) << two << " then " << three;
	daemon.Stop();
	RunCommand({"rm", "-rf", dir}, "", 5000);
}

} // namespace
} // namespace wire
