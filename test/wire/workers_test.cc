// --workers N and the graceful stop (features `workers` and `stop`, BEHAVIOUR 11 and 12):
// several processes serve one port with one set of counters, a killed worker is replaced,
// and SIGTERM lets every response in flight finish before the daemon exits 0.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

// Polling for a state the daemon reaches on its own: at most 3 s, in 20 ms steps.
constexpr int kSettleStepMs = 20;
constexpr int kSettleTries = 150;

// Waits until connections to port are refused: a stop has begun once its listener closes
// (BEHAVIOUR 11). False after kStateWaitMs.
bool StopBegan(int port)
{
	return WaitUntil([port] {
		int fd = ConnectLoopback(port, kSettleStepMs);
		if (fd >= 0)
			close(fd);
		return fd < 0;
	});
}

// Starts daemon with --workers 2 and returns its two workers (fails the test fatally
// otherwise).
#define START_TWO_WORKERS(daemon, workers)                                       \
	do {                                                                     \
		START_DAEMON(daemon, DaemonOptions{{"--workers", "2"}});         \
		workers = WaitForChildren(ServingGeneration((daemon).pid()), 2); \
		ASSERT_EQ((workers).size(), 2u);                                 \
	} while (0)

// A stopped worker (SIGSTOP, as a debugger or a cgroup freeze does) holds no connection
// that the other could serve (BEHAVIOUR 12: one accept queue per address, shared). Each
// worker in turn is stopped: every one of 20 fresh connections made meanwhile is answered,
// by the worker that runs; then it is continued. So both workers serve, too. (With a
// socket per worker, SO_REUSEPORT hashed about half of them to the stopped worker's
// queue, where they waited: 7 requests in 5 s in issue 30's measurement.)
TEST(WorkersTest, StoppedWorkerHoldsNoConnections)
{
	REQUIRE_FEATURE("workers");
	Daemon daemon;
	std::vector<pid_t> workers;
	START_TWO_WORKERS(daemon, workers);
	for (size_t stopped = 0; stopped < 2; stopped++) {
		pid_t running = workers[1 - stopped];
		ASSERT_EQ(kill(workers[stopped], SIGSTOP), 0);
		// Continued whatever the assertions below do: a stopped worker would hold the
		// daemon's stop at the test's end.
		std::unique_ptr<pid_t, void (*)(pid_t *)> resume(&workers[stopped], [](pid_t *p) {
			kill(*p, SIGCONT);
		});
		ASSERT_TRUE(WaitUntil([&] { return ProcessStopped(workers[stopped]); }));
		std::vector<std::unique_ptr<Client>> clients;
		for (int i = 0; i < 20; i++) {
			clients.push_back(std::make_unique<Client>(daemon.port()));
			Client &c = *clients.back();
			ASSERT_TRUE(c.connected());
			ASSERT_TRUE(c.Send(Get("/health")));
			HttpResponse r = ParseResponse(c.TakeResponse());
			ASSERT_TRUE(r.parsed) << "connection " << i << " with worker " << stopped
					      << " stopped was not answered";
			EXPECT_EQ(r.status, 200);
			EXPECT_TRUE(HoldsSocket(running, ServerEndOf(c.fd()).inode))
				<< "connection " << i << " is not the running worker's";
		}
		resume.reset();
		ASSERT_TRUE(WaitUntil([&] { return !ProcessStopped(workers[stopped]); }));
	}
	EXPECT_EQ(FetchMetrics(daemon.port())["workers_restarted"], 0u);
}

// After requests spread over both workers, /metrics (from either) reports exact totals.
TEST(WorkersTest, MetricsTotalsAreExact)
{
	REQUIRE_FEATURE("workers");
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--workers", "2"}});
	const struct {
		std::string request;
		int count;
	} mix[] = {
		{GetClose("/"), 60},
		{GetClose("/health", "HEAD"), 25},
		{GetClose("/nope"), 15},
		{"DELETE / HTTP/1.1\r\nConnection: close\r\n\r\n", 10},
		{"get / HTTP/1.1\r\n\r\n", 5},
	};
	for (const auto &m : mix)
		for (int i = 0; i < m.count; i++)
			ASSERT_TRUE(Roundtrip(daemon.port(), m.request).eof);
	std::map<std::string, uint64_t> v = FetchMetrics(daemon.port());
	EXPECT_EQ(v["requests_total"], 116u) << "115 and the scrape itself";
	EXPECT_EQ(v["requests_get"], 76u);
	EXPECT_EQ(v["requests_head"], 25u);
	EXPECT_EQ(v["responses_200"], 86u);
	EXPECT_EQ(v["responses_404"], 15u);
	EXPECT_EQ(v["responses_405"], 10u);
	EXPECT_EQ(v["responses_400"], 5u);
	EXPECT_EQ(v["connections_accepted"], 116u);
	EXPECT_EQ(v["workers_restarted"], 0u);
	EXPECT_EQ(v["requests_total"], v["responses_200"] + v["responses_400"] +
					      v["responses_404"] + v["responses_405"]);
}

// kill -9 one worker while clients keep connecting: the supervisor replaces it, counts it,
// and every connection made after the worker died is answered.
TEST(WorkersTest, KilledWorkerIsReplaced)
{
	REQUIRE_FEATURE("workers");
	Daemon daemon;
	std::vector<pid_t> before;
	START_TWO_WORKERS(daemon, before);
	for (int i = 0; i < 20; i++)
		ASSERT_TRUE(Roundtrip(daemon.port(), GetClose("/health")).eof);
	ASSERT_EQ(kill(before[0], SIGKILL), 0);
	for (int64_t deadline = NowMs() + 5000; NowMs() < deadline; SleepMs(10))
		if (kill(before[0], 0) != 0)
			break;
	int answered = 0;
	for (int i = 0; i < 100; i++) {
		HttpResponse r = ParseResponse(Roundtrip(daemon.port(), GetClose("/health")).bytes);
		answered += r.parsed && r.status == 200;
	}
	EXPECT_EQ(answered, 100) << "connections made after the kill";
	std::vector<pid_t> after = WaitForChildren(ServingGeneration(daemon.pid()), 2);
	ASSERT_EQ(after.size(), 2u) << "the worker came back";
	EXPECT_EQ(std::set<pid_t>(after.begin(), after.end()).count(before[0]), 0u);
	// The supervisor counts a restart just after its fork: under load the new worker can
	// be seen, and answer, first (a loaded run saw 0 here).
	uint64_t restarted = 0;
	WaitUntil([&] {
		restarted = FetchMetrics(daemon.port())["workers_restarted"];
		return restarted >= 1;
	});
	EXPECT_EQ(restarted, 1u);
}

// size bytes of a patterned body for /big.bin (a cut or reordered copy would not match).
std::string BigBody(size_t size)
{
	std::string body(size, '\0');
	for (size_t i = 0; i < size; i++)
		body[i] = (char)('a' + (i * 7 + i / 4096) % 26);
	return body;
}

// Starts a download of /big.bin with a small receive buffer and reads it slowly; SIGTERM
// arrives while most of it is still to come. The client must get every byte, the daemon
// must then exit 0. Run with 1 worker and with 2.
void ExpectSlowDownloadSurvivesSigterm(const std::vector<std::string> &extra)
{
	const std::string body = BigBody(16u << 20);
	FileRoot tree({{"big.bin", body}});
	std::vector<std::string> args = {"--root", tree.dir()};
	args.insert(args.end(), extra.begin(), extra.end());
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{args});
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int small = 4096;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	struct sockaddr_in addr = {};
	addr.sin_family = AF_INET;
	addr.sin_port = htons(daemon.port());
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_EQ(connect(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	ASSERT_TRUE(SendAll(fd, GetClose("/big.bin")));
	std::string got;
	char buf[65536];
	bool signalled = false;
	struct timeval tv = {10, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			break;
		got.append(buf, (size_t)n);
		if (!signalled && got.size() > (1u << 20)) {
			ASSERT_EQ(kill(daemon.pid(), SIGTERM), 0);
			signalled = true;
		}
		if (got.size() < (8u << 20))
			usleep(1000); // slow: the response is still in flight when SIGTERM comes
	}
	close(fd);
	ASSERT_TRUE(signalled);
	size_t head_end = got.find("\r\n\r\n");
	ASSERT_NE(head_end, std::string::npos);
	EXPECT_EQ(got.size() - head_end - 4, body.size()) << "every byte of the body";
	EXPECT_TRUE(got.compare(head_end + 4, std::string::npos, body) == 0);
	int status = 0;
	ASSERT_TRUE(daemon.WaitExit(10000, &status)) << "the daemon did not exit after SIGTERM";
	EXPECT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
	EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(StopTest, SigtermFinishesASlowDownload)
{
	REQUIRE_FEATURE("stop");
	REQUIRE_FEATURE("files");
	ExpectSlowDownloadSurvivesSigterm({});
}

TEST(StopTest, SigtermFinishesASlowDownloadWithTwoWorkers)
{
	REQUIRE_FEATURE("workers");
	REQUIRE_FEATURE("files");
	ExpectSlowDownloadSurvivesSigterm({"--workers", "2"});
}

// An idle keep-alive connection is closed at once by SIGTERM, and with nothing in flight
// the daemon exits 0 right away.
TEST(StopTest, IdleConnectionsCloseAndTheDaemonExits)
{
	REQUIRE_FEATURE("stop");
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{});
	Client idle(daemon.port());
	ASSERT_TRUE(idle.Send(Get("/health")));
	ASSERT_NE(idle.TakeResponse(), "");
	ASSERT_EQ(kill(daemon.pid(), SIGTERM), 0);
	Received end = idle.TakeUntilClose(3000);
	EXPECT_TRUE(end.eof) << "the idle connection was not closed";
	int status = 0;
	ASSERT_TRUE(daemon.WaitExit(3000, &status));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
}

// A connection accepted before SIGTERM whose request arrives after the stop began is not
// closed unanswered (BEHAVIOUR 11): its client sent, or is sending, a request it expects an
// answer to. It gets the whole answer, `Connection: close`, and the daemon then exits 0.
// (Under a reload's load this was a reset or an empty reply: the stop closed every
// connection with nothing queued as soon as it was looked at, fresh ones included.)
TEST(StopTest, AcceptedConnectionsFirstRequestIsAnsweredDuringTheStop)
{
	REQUIRE_FEATURE("stop");
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{});
	uint64_t before = FetchMetrics(daemon.port())["connections_accepted"];
	Client fresh(daemon.port());
	ASSERT_TRUE(fresh.connected());
	// Accepted once a later scrape counts it too (a scrape counts its own connection).
	bool accepted = false;
	for (int i = 0; i < kSettleTries && !accepted; i++, SleepMs(kSettleStepMs))
		accepted = FetchMetrics(daemon.port())["connections_accepted"] >= before + 2 + i;
	ASSERT_TRUE(accepted) << "the daemon never accepted the connection";
	ASSERT_EQ(kill(daemon.pid(), SIGTERM), 0);
	ASSERT_TRUE(StopBegan(daemon.port())) << "the listener still accepts after SIGTERM";
	ASSERT_TRUE(fresh.Send(Get("/"))); // not /health, which says 503 in a stop (BEHAVIOUR 11)
	Received end = fresh.TakeUntilClose(3000);
	HttpResponse r = ParseResponse(end.bytes);
	EXPECT_FALSE(end.reset) << "reset before its answer";
	ASSERT_TRUE(r.parsed) << "no whole answer: '" << end.bytes << "'";
	EXPECT_EQ(r.status, 200);
	EXPECT_EQ(r.body, "apollo says hello");
	EXPECT_NE(end.bytes.find("\r\nConnection: close\r\n"), std::string::npos) << end.bytes;
	EXPECT_TRUE(end.eof);
	int status = 0;
	ASSERT_TRUE(daemon.WaitExit(3000, &status));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
}

// A second SIGTERM while a response is still in flight ends the daemon at once, exit 13.
TEST(StopTest, SecondSignalStopsAtOnce)
{
	REQUIRE_FEATURE("stop");
	REQUIRE_FEATURE("files");
	FileRoot tree({{"big.bin", BigBody(16u << 20)}});
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{{"--root", tree.dir()}});
	Client slow(daemon.port());
	int small = 4096;
	setsockopt(slow.fd(), SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	ASSERT_TRUE(slow.Send(GetClose("/big.bin")));
	ASSERT_NE(slow.Take(1024), ""); // the response has started and stalls on our window
	ASSERT_EQ(kill(daemon.pid(), SIGTERM), 0);
	// The first is taken (two pending at once would be one): the stop has begun.
	ASSERT_TRUE(StopBegan(daemon.port())) << "the listener still accepts after SIGTERM";
	ASSERT_EQ(kill(daemon.pid(), SIGTERM), 0);
	int status = 0;
	ASSERT_TRUE(daemon.WaitExit(3000, &status));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 13);
}

} // namespace
} // namespace wire
