// --listen addresses over the wire (BEHAVIOUR 13.4), the routed tiers' flag (min takes a
// port only): IPv6 loopback, several listeners at once (with --workers too), what [::]
// means for IPv4, one announcement per socket, a refused ninth address.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kRunTimeoutMs = 5000;
constexpr int kListenMax = 8; // CLI_LISTEN_MAX

// A blocking TCP connection to [::1]:port, or -1.
int ConnectIpv6Loopback(int port)
{
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_in6 a = {};
	a.sin6_family = AF_INET6;
	a.sin6_port = htons(static_cast<uint16_t>(port));
	a.sin6_addr = in6addr_loopback;
	if (connect(fd, reinterpret_cast<struct sockaddr *>(&a), sizeof(a)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

// "" if GET /health on fd (then closed) is answered 200, else what happened.
std::string HealthProblem(int fd)
{
	if (fd < 0)
		return std::string("connect: ") + strerror(errno);
	Received r = Exchange(fd, GetClose("/health"), false, kRunTimeoutMs);
	HttpResponse response = ParseResponse(r.bytes);
	return response.parsed && response.status == 200 ? "" : "no 200: '" + r.bytes + "'";
}

// True if this machine has ::1 (a container may run without IPv6).
bool HaveIpv6Loopback()
{
	int fd = socket(AF_INET6, SOCK_STREAM, 0);
	struct sockaddr_in6 a = {};
	a.sin6_family = AF_INET6;
	a.sin6_addr = in6addr_loopback;
	bool ok = fd >= 0 && bind(fd, reinterpret_cast<struct sockaddr *>(&a), sizeof(a)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

#define REQUIRE_IPV6()                                                         \
	do {                                                                   \
		if (!HaveIpv6Loopback())                                       \
			GTEST_SKIP() << "no IPv6 loopback (::1) on this machine"; \
	} while (0)

class AddressesTest : public testing::Test {
protected:
	void SetUp() override { REQUIRE_FEATURE("routes"); }
};

TEST_F(AddressesTest, ServesIpv6Loopback)
{
	REQUIRE_IPV6();
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--listen", "[::1]:0"}});
	ASSERT_EQ(daemon.announced().size(), 1u);
	EXPECT_EQ(daemon.announced()[0],
		  "apollod listening on [::1]:" + std::to_string(daemon.port()));
	EXPECT_EQ(HealthProblem(ConnectIpv6Loopback(daemon.port())), "");
	EXPECT_LT(ConnectLoopback(daemon.port(), 500), 0) << "127.0.0.1 is not served";
}

// Two addresses, IPv4 and IPv6, in one process: one line each, in command-line order,
// and both serve, several connections each, alternately.
TEST_F(AddressesTest, TwoListenersAtOnce)
{
	REQUIRE_IPV6();
	for (const char *workers : {"1", "2"}) {
		SCOPED_TRACE(std::string("--workers ") + workers);
		std::vector<std::string> args = {"--listen", "127.0.0.1:0", "--listen", "[::1]:0"};
		if (std::string(workers) != "1") {
			if (!HasFeature("workers"))
				continue;
			args.insert(args.end(), {"--workers", workers});
		}
		Daemon daemon;
		START_DAEMON(daemon, DaemonOptions{args});
		ASSERT_EQ(daemon.announced().size(), 2u);
		int v4 = daemon.port(), v6 = AnnouncedPort(daemon.announced()[1]);
		EXPECT_EQ(daemon.announced()[0], "apollod listening on 127.0.0.1:" + std::to_string(v4));
		EXPECT_EQ(daemon.announced()[1], "apollod listening on [::1]:" + std::to_string(v6));
		for (int i = 0; i < 8; i++) {
			EXPECT_EQ(LivenessProblem(v4), "") << "request " << i;
			EXPECT_EQ(HealthProblem(ConnectIpv6Loopback(v6)), "") << "request " << i;
		}
	}
}

// A daemon serves at most eight addresses: a ninth --listen is refused, not ignored.
TEST_F(AddressesTest, RefusesANinthListen)
{
	std::vector<std::string> argv = DaemonCommand();
	for (int i = 0; i <= kListenMax; i++)
		argv.insert(argv.end(), {"--listen", "127.0.0.1:0"});
	CommandResult r = RunCommand(argv, "", kRunTimeoutMs);
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, 64);
	EXPECT_EQ(r.out, "") << "nothing announced";
	EXPECT_EQ(UsageErrorProblem(r.err, "apollod: --listen: given more than 8 times: the "
					   "limit is 8\n"),
		  "");
}

// [::] is IPv6 only (IPV6_V6ONLY is set whatever net.ipv6.bindv6only says): 127.0.0.1 on
// the same port stays free for another socket, and a daemon may serve both by naming
// both.
TEST_F(AddressesTest, WildcardIpv6IsIpv6Only)
{
	REQUIRE_IPV6();
	// A port below the ephemeral range, not port 0: the kernel's pick for [::] is an
	// ephemeral port, which the parallel suites' client sockets may hold on 127.0.0.1
	// (connected or in TIME_WAIT), and the bind below would fail for them, not for [::].
	int port = RecentlyFreePort();
	ASSERT_GT(port, 0);
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--listen", "[::]:" + std::to_string(port)}});
	ASSERT_EQ(daemon.port(), port);
	EXPECT_EQ(daemon.announced()[0], "apollod listening on [::]:" + std::to_string(port));
	EXPECT_EQ(HealthProblem(ConnectIpv6Loopback(port)), "");
	EXPECT_LT(ConnectLoopback(port, 500), 0) << "[::] took IPv4 connections";
	int v4 = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {};
	a.sin_family = AF_INET;
	a.sin_port = htons(static_cast<uint16_t>(port));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	EXPECT_EQ(bind(v4, reinterpret_cast<struct sockaddr *>(&a), sizeof(a)), 0)
		<< "127.0.0.1:" << port << " taken by [::]: " << strerror(errno);
	close(v4);
	daemon.Stop();

	int both_port = RecentlyFreePort();
	ASSERT_GT(both_port, 0);
	std::string p = std::to_string(both_port);
	Daemon both;
	START_DAEMON(both, DaemonOptions{{"--listen", "[::]:" + p, "--listen", "127.0.0.1:" + p}});
	EXPECT_EQ(HealthProblem(ConnectIpv6Loopback(both_port)), "");
	EXPECT_EQ(LivenessProblem(both_port), "");
}

} // namespace
} // namespace wire
