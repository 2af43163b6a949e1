// /health during a stop (issue 30, BEHAVIOUR 11), on every routed tier that stops
// gracefully: once a stop has begun (its listeners closed, so new connections are
// refused), a /health the stopping process still answers (on a connection accepted
// before the stop) says 503 with Connection: close, while a slow download holds the
// drain open; the download still arrives whole.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr size_t kBigBytes = 4 << 20; // far beyond what the small window takes
constexpr int kSmallWindow = 8192;    // the download's receive buffer: it stalls
constexpr int kBoundMs = 20000;       // ends a hang only (qemu included)
const std::string kHealthDraining =
	"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
	"Content-Length: 9\r\nConnection: close\r\n\r\ndraining\n";

// True once a connect to port is refused: the stop has closed every listener.
bool ListenersClosed(int port)
{
	int fd = ConnectLoopback(port, 1000);
	if (fd < 0)
		return true;
	close(fd); // accepted before the stop: it ends at once, having asked nothing
	return false;
}

TEST(HealthDrainTest, HealthSays503OnceAStopHasBegun)
{
	REQUIRE_FEATURE("stop");
	REQUIRE_FEATURE("files");
	FileRoot root({{"big", Random(kBigBytes, 30)}});
	ASSERT_NE(root.dir(), "");
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--root", root.dir(), "--drain-timeout", "60"}});
	ASSERT_EQ(LivenessProblem(daemon.port()), "");
	int baseline = daemon.OpenDescriptorCount();
	int download = ConnectLoopback(daemon.port(), kBoundMs, kSmallWindow);
	ASSERT_GE(download, 0);
	ASSERT_TRUE(SendAll(download, Get("/big")));
	ASSERT_TRUE(PeerSpokeOrClosed(download, kBoundMs)) << "the download has not started";
	int fresh = ConnectLoopback(daemon.port(), kBoundMs);
	ASSERT_GE(fresh, 0);
	ASSERT_EQ(WaitForOpenDescriptors(daemon, baseline + 2, kBoundMs), baseline + 2)
		<< "both connections accepted before the stop";

	ASSERT_EQ(kill(daemon.pid(), SIGTERM), 0);
	ASSERT_TRUE(WaitUntil([&] { return ListenersClosed(daemon.port()); }, kBoundMs))
		<< "the stop never closed the listeners";
	Received r = Exchange(fresh, Get("/health"), false, kBoundMs);
	EXPECT_EQ(r.bytes, kHealthDraining) << "a fresh connection's /health during the stop";
	EXPECT_TRUE(r.eof) << "the connection stays open after the last answer";

	// The download held the drain open all along, and arrives whole.
	Received all = ReadUntilClose(download, kBoundMs);
	close(download);
	HttpResponse first = ParseResponse(all.bytes);
	ASSERT_EQ(first.status, 200) << all.bytes.substr(0, 200);
	ASSERT_EQ(all.bytes.size(), first.head.size() + kBigBytes) << "the download, whole";
	EXPECT_EQ(all.bytes.substr(first.head.size()), Random(kBigBytes, 30));
	EXPECT_TRUE(all.eof);
	int status = -1;
	ASSERT_TRUE(daemon.WaitExit(kBoundMs, &status)) << "no exit after the last response";
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

} // namespace
} // namespace wire
