// --admin-listen (issue 30, BEHAVIOUR 6.5), on every routed tier: the admin listener
// answers /health and /metrics and nothing else; the --listen addresses then serve the
// site's own `health` and `metrics` files (404 without them); the split outlives a
// reload, one process and --workers 2.
#include <signal.h>

#include <map>
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kBoundMs = 20000; // ends a hang only (qemu included)

// The port of an announced line ("... listening on 127.0.0.1:PORT"), or 0.
int PortOf(const std::string &line)
{
	size_t colon = line.rfind(':');
	return colon == std::string::npos ? 0 : std::atoi(line.c_str() + colon + 1);
}

// GET path (Connection: close) on port: its status and body.
std::pair<int, std::string> Ask(int port, const std::string &path)
{
	HttpResponse r = ParseResponse(Roundtrip(port, GetClose(path), false, kBoundMs).bytes);
	return {r.status, r.body};
}

// The site's files named like the built-in routes, and one more.
FileRoot SiteWithRouteNames()
{
	return FileRoot({{"health", "site health\n"}, {"metrics", "site metrics\n"},
			 {"a.txt", "a\n"}});
}

// Checks the split on a daemon whose first address is site and last announced admin.
void ExpectSplit(Daemon &daemon, const std::string &context)
{
	SCOPED_TRACE(context);
	int site = daemon.port(), admin = PortOf(daemon.announced().back());
	ASSERT_GT(admin, 0) << daemon.announced().back();
	ASSERT_NE(admin, site);
	EXPECT_EQ(Ask(site, "/health"), std::make_pair(200, std::string("site health\n")));
	EXPECT_EQ(Ask(site, "/metrics"), std::make_pair(200, std::string("site metrics\n")));
	EXPECT_EQ(Ask(site, "/a.txt"), std::make_pair(200, std::string("a\n")));
	EXPECT_EQ(Ask(admin, "/health"), std::make_pair(200, std::string("ok")));
	std::pair<int, std::string> m = Ask(admin, "/metrics");
	Counters counters;
	std::string error;
	EXPECT_EQ(m.first, 200);
	EXPECT_TRUE(ParseMetricsBody(m.second, &counters, &error)) << error << m.second;
	EXPECT_EQ(Ask(admin, "/a.txt").first, 404) << "the admin listener serves a file";
	EXPECT_EQ(Ask(admin, "/").first, 404) << "the admin listener says hello";
}

TEST(AdminListenTest, RoutesSplitAndTheSitesOwnFilesAreServed)
{
	REQUIRE_FEATURE("routes");
	REQUIRE_FEATURE("files");
	FileRoot root = SiteWithRouteNames();
	ASSERT_NE(root.dir(), "");
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--root", root.dir(), "--admin-listen", "127.0.0.1:0"}});
	ExpectSplit(daemon, "one process");
}

TEST(AdminListenTest, WithoutRootTheSiteListenerHasNoHealth)
{
	REQUIRE_FEATURE("routes");
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--admin-listen", "127.0.0.1:0"}});
	int admin = PortOf(daemon.announced().back());
	EXPECT_EQ(Ask(daemon.port(), "/health").first, 404);
	EXPECT_EQ(Ask(daemon.port(), "/metrics").first, 404);
	EXPECT_EQ(Ask(daemon.port(), "/"), std::make_pair(200, std::string("apollo says hello")));
	EXPECT_EQ(Ask(admin, "/health"), std::make_pair(200, std::string("ok")));
}

TEST(AdminListenTest, TheSplitOutlivesAReloadWithWorkers)
{
	REQUIRE_FEATURE("stop");
	REQUIRE_FEATURE("files");
	REQUIRE_FEATURE("workers");
	if (!DaemonLauncher().empty())
		GTEST_SKIP() << "under an emulator a reload's new image would be the emulator";
	FileRoot root = SiteWithRouteNames();
	ASSERT_NE(root.dir(), "");
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--root", root.dir(), "--admin-listen", "127.0.0.1:0",
					    "--workers", "2"}});
	ExpectSplit(daemon, "before the reload");
	int admin = PortOf(daemon.announced().back());
	ASSERT_EQ(kill(daemon.pid(), SIGHUP), 0);
	uint64_t reloads = 0;
	EXPECT_TRUE(WaitUntil([&] {
		std::pair<int, std::string> m = Ask(admin, "/metrics");
		Counters counters;
		std::string error;
		if (m.first == 200 && ParseMetricsBody(m.second, &counters, &error))
			for (const auto &c : counters)
				if (c.first == "reloads")
					reloads = c.second;
		return reloads >= 1;
	}, kBoundMs)) << "no reload counted on the admin listener";
	ExpectSplit(daemon, "after the reload");
}

} // namespace
} // namespace wire
