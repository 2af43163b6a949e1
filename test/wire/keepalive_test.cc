// Persistent connections and pipelining over the wire (feature `keepalive`: every routed
// tier). HTTP/1.1 persists unless `Connection: close`, HTTP/1.0 only with `Connection:
// keep-alive`; the Connection header says what the daemon does; pipelined requests are
// answered in order; a 400, a 405 with a body and a GET body over 1 MiB close; a GET body
// is skipped exactly; a half-closed client gets every answer, then EOF; the idle deadline
// also runs between requests; /metrics counts what went before it on the same connection.
//
// Expected bytes: every keep-alive answer must be byte-identical to the one-shot answer to
// the same method and target with `Connection: close` (which routes_test.cc checks against
// BEHAVIOUR 6), except that its Connection header says keep-alive.
#include <cstdio>
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

// One request that asks to persist, and the one-shot request whose answer it must match.
struct MixRequest {
	const char *label;
	std::string request;
	std::string target;
	std::string method;
};

// Routes, HEAD, 404 and a body-less 405 (which persists): the mix every batch cycles.
const std::vector<MixRequest> &Mix()
{
	static const std::vector<MixRequest> mix = {
		{"get_root", Get("/"), "/", "GET"},
		{"get_health_query", Get("/health?x=1"), "/health?x=1", "GET"},
		{"head_root", Get("/", "HEAD"), "/", "HEAD"},
		{"get_unknown_404", Get("/nope"), "/nope", "GET"},
		{"head_unknown_404", Get("/nope", "HEAD"), "/nope", "HEAD"},
		{"put_without_body_405", Get("/health", "PUT"), "/health", "PUT"},
		{"http10_keep_alive", "GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
		 "/health", "GET"},
		{"get_with_headers",
		 "GET / HTTP/1.1\r\nHost: example.com:80\r\nUser-Agent: wire\r\nAccept: */*\r\n\r\n",
		 "/", "GET"},
	};
	return mix;
}

// Bytes sent in one go and the answers they must earn, one entry per request.
struct Batch {
	std::string sent;
	std::vector<std::string> labels;
	std::vector<std::string> answers;

	std::string AllAnswers() const
	{
		std::string all;
		for (const std::string &a : answers)
			all += a;
		return all;
	}
};

// A piece of a byte stream and what the daemon must send once the piece is complete ("" for
// a request body).
struct Piece {
	std::string sent;
	std::string answer;
};

class KeepAliveTest : public testing::Test {
protected:
	void SetUp() override { REQUIRE_FEATURE("keepalive"); }

	// Starts this test's daemon with extra command-line arguments.
	void Start(const std::vector<std::string> &args = {})
	{
		START_DAEMON(daemon_, DaemonOptions{args});
		port_ = daemon_.port();
	}

	// The one-shot answer to method target with `Connection: close`; fails the test
	// (non-fatally) unless it is a complete response followed by the daemon's close.
	std::string CloseAnswer(const std::string &target, const std::string &method = "GET")
	{
		Received r = Roundtrip(port_, GetClose(target, method));
		EXPECT_TRUE(r.eof && ParseResponse(r.bytes).parsed)
			<< method << " " << target << ": '" << r.bytes << "'";
		return r.bytes;
	}

	// The keep-alive answer to method target.
	std::string KeepAliveAnswer(const std::string &target, const std::string &method = "GET")
	{
		return AsKeepAlive(CloseAnswer(target, method));
	}

	// The answer a mix request must earn on a persistent connection (fetched once).
	const std::string &MixAnswer(size_t i)
	{
		if (mix_answers_.empty())
			for (const MixRequest &m : Mix())
				mix_answers_.push_back(KeepAliveAnswer(m.target, m.method));
		return mix_answers_[i];
	}

	// count requests cycling through the mix, starting at mix entry first.
	Batch MixBatch(size_t count, size_t first = 0)
	{
		Batch b;
		for (size_t i = 0; i < count; i++) {
			size_t m = (first + i) % Mix().size();
			b.sent += Mix()[m].request;
			b.labels.push_back(Mix()[m].label);
			b.answers.push_back(MixAnswer(m));
		}
		return b;
	}

	// Sends bytes that must end the connection and checks that exactly answer arrives,
	// then the daemon's close.
	void ExpectAnswerThenClose(Client *client, const std::string &bytes,
				   const std::string &answer)
	{
		ASSERT_TRUE(client->Send(bytes));
		Received end = client->TakeUntilClose();
		EXPECT_EQ(end.bytes, answer);
		EXPECT_TRUE(end.eof) << "no close after the answer (timed_out=" << end.timed_out
				     << ", reset=" << end.reset << ")";
	}

	// Ends a persistent connection with GET /health and `Connection: close`.
	void ExpectClosesOnRequest(Client *client)
	{
		ExpectAnswerThenClose(client, GetClose("/health"), CloseAnswer("/health"));
	}

	Daemon daemon_;
	int port_ = 0;

private:
	std::vector<std::string> mix_answers_;
};

// "" if got is exactly the batch's answers in order, else which answer differs first.
std::string BatchProblem(const std::string &got, const Batch &b)
{
	size_t at = 0;
	for (size_t i = 0; i < b.answers.size(); i++) {
		const std::string &want = b.answers[i];
		if (got.compare(at, want.size(), want) != 0)
			return "answer " + std::to_string(i + 1) + " of " +
			       std::to_string(b.answers.size()) + " (" + b.labels[i] +
			       ") differs: got '" + got.substr(at, want.size() + 40) + "', want '" +
			       want + "'";
		at += want.size();
	}
	if (at != got.size())
		return std::to_string(got.size() - at) + " bytes after the last answer: '" +
		       got.substr(at, 200) + "'";
	return "";
}

TEST_F(KeepAliveTest, ThousandSequentialRequestsOnOneConnection)
{
	constexpr int kRequests = 1000;
	Start();
	Client client(port_);
	ASSERT_TRUE(client.connected());
	for (int i = 0; i < kRequests; i++) {
		size_t m = i % Mix().size();
		std::string want = MixAnswer(m);
		ASSERT_TRUE(client.Send(Mix()[m].request)) << "request " << i + 1;
		std::string got = client.Take(want.size());
		ASSERT_EQ(got, want) << "request " << i + 1 << " (" << Mix()[m].label
				     << "); stream: eof=" << client.state().eof
				     << " reset=" << client.state().reset;
	}
	EXPECT_TRUE(client.Quiet(200)) << "after " << kRequests
				       << " requests the connection is open and silent";
	ExpectClosesOnRequest(&client);
}

class PipelineTest : public KeepAliveTest, public testing::WithParamInterface<size_t> {};

// One write carrying the whole batch; the answers come back in order, byte-exact, and the
// connection stays open. 300 requests pass both the 8 KiB request buffer and the 64-entry
// response queue.
TEST_P(PipelineTest, BatchInOneWriteAnsweredInOrder)
{
	Start();
	Batch batch = MixBatch(GetParam());
	Client client(port_);
	ASSERT_TRUE(client.connected());
	ASSERT_TRUE(client.Send(batch.sent));
	std::string want = batch.AllAnswers();
	std::string got = client.Take(want.size(), 10000);
	EXPECT_EQ(BatchProblem(got, batch), "");
	EXPECT_TRUE(client.Quiet(100)) << "open and silent after the batch";
	ExpectClosesOnRequest(&client);
}

INSTANTIATE_TEST_SUITE_P(Pipelined, PipelineTest, testing::Values(2, 16, 100, 300),
			 [](const testing::TestParamInfo<size_t> &param_info) {
				 return "batch_of_" + std::to_string(param_info.param);
			 });

// Sends the pieces' bytes in two writes split at every position k (1 .. all, where k = all
// is one write), each on a fresh connection: after the first write, the answers of the
// pieces it completes must arrive before the rest is sent (so the daemon saw the split;
// a first write that completes nothing, the daemon has read before the rest is sent);
// then everything else must arrive, then the daemon's close (the last piece must make it
// close). Returns "" or the first few failing splits. The wait for a read is per byte: it
// polls every kPerByteStepMs, and the first one that times out ends the test (a daemon
// that hangs costs one kStateWaitMs, not one a byte).
std::string ProblemsAtEverySplit(const Daemon &daemon, const std::vector<Piece> &pieces)
{
	constexpr int kReported = 3;
	const int port = daemon.port();
	const pid_t serving = daemon.ServingPid();
	std::string all, answers;
	for (const Piece &p : pieces) {
		all += p.sent;
		answers += p.answer;
	}
	std::string problems;
	int failed = 0;
	bool hung = false;
	for (size_t k = 1; k <= all.size() && !hung; k++) {
		std::string due; // answers of the pieces the first write completes
		size_t end = 0;
		for (const Piece &p : pieces) {
			end += p.sent.size();
			if (end <= k)
				due += p.answer;
		}
		Client client(port);
		std::string problem;
		if (!client.connected() || !client.Send(all.substr(0, k))) {
			problem = "could not connect or send";
		} else {
			std::string first = client.Take(due.size());
			if (first != due) {
				problem = "after the first write got '" + first + "', want '" + due + "'";
			} else if (due.empty() && !WaitUntilDaemonRead(serving, client.fd())) {
				problem = "the daemon never read the first write (the last split tried)";
				hung = true;
			} else {
				// The daemon may already have closed (a 405 with a body): a
				// refused send shows in what arrives, not here.
				client.Send(all.substr(k));
				Received rest = client.TakeUntilClose();
				if (due + rest.bytes != answers || !rest.eof)
					problem = "got '" + due + rest.bytes + "' eof=" +
						  std::to_string(rest.eof) + " reset=" +
						  std::to_string(rest.reset) + ", want '" + answers +
						  "' then EOF";
			}
		}
		if (problem.empty())
			continue;
		if (failed++ < kReported || hung)
			problems += "split after " + std::to_string(k) + " of " +
				    std::to_string(all.size()) + " bytes: " + problem + "\n";
	}
	if (failed > kReported)
		problems += "... " + std::to_string(failed) + " failing splits in all";
	return problems;
}

TEST_F(KeepAliveTest, BatchSplitAtEveryByteAcrossTwoWrites)
{
	Start();
	const std::vector<Piece> pieces = {
		{Get("/"), KeepAliveAnswer("/")},
		{Get("/nope", "HEAD"), KeepAliveAnswer("/nope", "HEAD")},
		{GetClose("/health"), CloseAnswer("/health")},
	};
	EXPECT_EQ(ProblemsAtEverySplit(daemon_, pieces), "");
}

TEST_F(KeepAliveTest, Http10WithoutKeepAliveClosesAfterOneAnswer)
{
	Start();
	Client client(port_);
	ASSERT_TRUE(client.connected());
	// A second request in the same write must not be answered.
	ExpectAnswerThenClose(&client, "GET /health HTTP/1.0\r\n\r\nGET / HTTP/1.0\r\n\r\n",
			      CloseAnswer("/health"));
}

TEST_F(KeepAliveTest, Http10WithKeepAlivePersists)
{
	Start();
	std::string want = KeepAliveAnswer("/health");
	Client client(port_);
	ASSERT_TRUE(client.connected());
	for (int i = 0; i < 3; i++) {
		ASSERT_TRUE(client.Send("GET /health HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"));
		EXPECT_EQ(client.Take(want.size()), want) << "request " << i + 1;
	}
	EXPECT_TRUE(client.Quiet(100));
	// Without the header, HTTP/1.0 ends the connection again.
	ExpectAnswerThenClose(&client, "GET / HTTP/1.0\r\n\r\n", CloseAnswer("/"));
}

TEST_F(KeepAliveTest, ConnectionCloseMidSequenceIsAnsweredThenCloses)
{
	Start();
	Client client(port_);
	ASSERT_TRUE(client.connected());
	for (const char *target : {"/", "/health"}) {
		std::string want = KeepAliveAnswer(target);
		ASSERT_TRUE(client.Send(Get(target)));
		EXPECT_EQ(client.Take(want.size()), want);
	}
	// The requests after the one that asks to close are never answered.
	ExpectAnswerThenClose(&client, GetClose("/nope") + Get("/") + Get("/health"),
			      CloseAnswer("/nope"));
}

TEST_F(KeepAliveTest, BadRequestMidPipelineAnswersWhatCameBeforeThenCloses)
{
	Start();
	const std::string bad = "GET /health HTTP/1.1\r\nHost : a\r\n\r\n";
	Received bad_alone = Roundtrip(port_, bad);
	ASSERT_EQ(ParseResponse(bad_alone.bytes).status, 400) << bad_alone.bytes;
	Client client(port_);
	ASSERT_TRUE(client.connected());
	EXPECT_EQ(ParseResponse(bad_alone.bytes).Header("Connection"), "close");
	// The 400 closes: the GET after it is never answered.
	ExpectAnswerThenClose(&client, Get("/") + Get("/health", "HEAD") + bad + Get("/"),
			      KeepAliveAnswer("/") + KeepAliveAnswer("/health", "HEAD") +
				      bad_alone.bytes);
}

// A GET whose body looks like a request: the body is skipped exactly, never answered, and
// the request after it is; split at every byte, so the body also arrives across writes.
TEST_F(KeepAliveTest, GetBodyIsSkippedExactlyAcrossWrites)
{
	Start();
	const std::string body = GetClose("/nope"); // would earn a 404 if it were parsed
	for (const std::string method : {"GET", "HEAD"}) {
		SCOPED_TRACE(method);
		const std::vector<Piece> pieces = {
			{method + " / HTTP/1.1\r\nContent-Length: " + std::to_string(body.size()) +
				 "\r\n\r\n",
			 KeepAliveAnswer("/", method)},
			{body, ""},
			{GetClose("/health"), CloseAnswer("/health")},
		};
		EXPECT_EQ(ProblemsAtEverySplit(daemon_, pieces), "");
	}
}

// A 405 announcing a body closes after its answer; the body and anything after it are
// never answered, wherever the bytes are split.
TEST_F(KeepAliveTest, PostWithBodyClosesAfter405)
{
	Start();
	const std::vector<Piece> pieces = {
		{"POST /health HTTP/1.1\r\nContent-Length: 5\r\n\r\n", CloseAnswer("/health", "POST")},
		{"hello", ""},
		{Get("/health"), ""},
	};
	EXPECT_EQ(ProblemsAtEverySplit(daemon_, pieces), "");
}

// Up to 1 MiB of GET body is read and skipped; one byte more closes after the answer.
TEST_F(KeepAliveTest, GetBodyOfOneMiBSkippedAndLargerCloses)
{
	constexpr size_t kSkipMax = 1024 * 1024;
	Start();
	{
		SCOPED_TRACE("exactly 1 MiB");
		Client client(port_);
		ASSERT_TRUE(client.connected());
		std::string head = "GET / HTTP/1.1\r\nContent-Length: " + std::to_string(kSkipMax) +
				   "\r\n\r\n";
		ASSERT_TRUE(client.Send(head + std::string(kSkipMax, 'b')));
		EXPECT_EQ(client.Take(KeepAliveAnswer("/").size()), KeepAliveAnswer("/"));
		ExpectClosesOnRequest(&client);
	}
	{
		SCOPED_TRACE("1 MiB + 1, body not sent");
		Client client(port_);
		ASSERT_TRUE(client.connected());
		ExpectAnswerThenClose(&client,
				      "GET / HTTP/1.1\r\nContent-Length: " +
					      std::to_string(kSkipMax + 1) + "\r\n\r\n",
				      CloseAnswer("/"));
	}
}

// The client shuts its write side right after a pipelined batch: every answer still
// arrives, then the daemon's close (EOF, not a reset).
TEST_F(KeepAliveTest, HalfCloseAfterPipelinedBatchGetsEveryAnswer)
{
	Start();
	Batch batch = MixBatch(20);
	Client client(port_);
	ASSERT_TRUE(client.connected());
	ASSERT_TRUE(client.Send(batch.sent));
	client.ShutWrite();
	Received r = client.TakeUntilClose();
	EXPECT_EQ(BatchProblem(r.bytes, batch), "");
	EXPECT_TRUE(r.eof) << "timed_out=" << r.timed_out << " reset=" << r.reset;
}

// The request and the FIN arrive in one segment on a connection the daemon already watches
// (it found nothing to read right after accepting it): one edge-triggered readiness report
// covers both, and a read that returns the request does not consume the end of input. The
// daemon must still see it: answer, then close. A cut head at EOF gets a 400.
TEST_F(KeepAliveTest, RequestAndFinTogetherOnWatchedConnection)
{
	constexpr int kRounds = 3;
	constexpr int kCloseWaitMs = 2000;  // far less than the 10 s idle deadline
	Start();
	const pid_t serving = daemon_.ServingPid();
	const std::string bad_request = Roundtrip(port_, "GET / HTTP/1.1\r\nX\r\n\r\n").bytes;
	const std::vector<std::pair<std::string, std::string>> cases = {
		{Get("/health"), KeepAliveAnswer("/health")},
		{"GET /health HTTP/1.1\r\nHost: a", bad_request},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.first);
		ASSERT_EQ(ParseResponse(c.second).parsed, true) << c.second;
		int closed = 0;
		for (int i = 0; i < kRounds; i++) {
			Client client(port_);
			ASSERT_TRUE(client.connected());
			// accepted, its first read came up empty, the daemon waits again
			ASSERT_TRUE(WaitUntilDaemonAccepted(serving, client.fd()));
			ASSERT_TRUE(client.SendWithFin(c.first));
			Received r = client.TakeUntilClose(kCloseWaitMs);
			EXPECT_EQ(r.bytes, c.second) << "round " << i + 1;
			closed += r.eof;
		}
		EXPECT_EQ(closed, kRounds) << "connections not closed within " << kCloseWaitMs
					   << " ms of the client's FIN";
	}
}

// Between requests the idle deadline runs again: one answered request, then silence,
// closes the connection without a reply once --idle-timeout passes; timeouts and
// timeouts_idle +1.
TEST_F(KeepAliveTest, IdleDeadlineBetweenRequests)
{
	REQUIRE_FEATURE("deadlines");
	constexpr int64_t kIdleMs = 1000;
	constexpr int64_t kEarlyCheckMs = 300;
	constexpr int64_t kEarlyCloseSlackMs = 250;
	constexpr int kCloseSlackMs = 5000;
	Start({"--idle-timeout", "1"});
	std::map<std::string, uint64_t> before = FetchMetrics(port_);
	std::string want = KeepAliveAnswer("/health");
	Client client(port_);
	ASSERT_TRUE(client.connected());
	ASSERT_TRUE(client.Send(Get("/health")));
	ASSERT_EQ(client.Take(want.size()), want);
	int64_t answered = NowMs();
	EXPECT_TRUE(client.Quiet(kEarlyCheckMs)) << "closed or spoke before the deadline";
	Received r = client.TakeUntilClose(kIdleMs + kCloseSlackMs);
	int64_t closed_at = NowMs();
	EXPECT_TRUE(r.eof) << "not closed by the idle deadline (timed_out=" << r.timed_out << ")";
	EXPECT_EQ(r.bytes, "") << "a deadline closes without a reply";
	EXPECT_GE(closed_at, answered + kIdleMs - kEarlyCloseSlackMs) << "closed too early";
	std::map<std::string, uint64_t> after = FetchMetrics(port_);
	EXPECT_EQ(after["timeouts"] - before["timeouts"], 1u);
	EXPECT_EQ(after["timeouts_idle"] - before["timeouts_idle"], 1u);
}

// A tier without deadlines keeps an idle persistent connection, and it still serves.
TEST_F(KeepAliveTest, NoDeadlineKeepsIdlePersistentConnection)
{
	REQUIRE_FEATURE("no_deadlines");
	constexpr int kIdleMs = 2500; // past the 1 s a deadline tier would allow
	Start({"--idle-timeout", "1"});
	std::string want = KeepAliveAnswer("/health");
	Client client(port_);
	ASSERT_TRUE(client.connected());
	ASSERT_TRUE(client.Send(Get("/health")));
	ASSERT_EQ(client.Take(want.size()), want);
	EXPECT_TRUE(client.Quiet(kIdleMs)) << "closed without deadlines";
	ExpectClosesOnRequest(&client);
	EXPECT_EQ(FetchMetrics(port_)["timeouts"], 0u);
}

// A /metrics pipelined after N requests reports them: requests_total counts them and
// itself, bytes_written exactly the answers sent before it (plus the first scrape's reply),
// bytes_read at least everything up to the end of the /metrics request. The requests
// after it are answered too.
TEST_F(KeepAliveTest, PipelinedMetricsCountsTheAnswersBeforeIt)
{
	constexpr size_t kBefore = 11, kAfter = 5;
	Start();
	Batch before_batch = MixBatch(kBefore);
	Batch after_batch = MixBatch(kAfter, 3);
	const std::string scrape_request = Get("/metrics");
	// After MixBatch: it fetched the reference answers on connections of their own.
	std::string first_raw;
	std::map<std::string, uint64_t> before = FetchMetrics(port_, &first_raw);
	Client client(port_);
	ASSERT_TRUE(client.connected());
	ASSERT_TRUE(client.Send(before_batch.sent + scrape_request + after_batch.sent));
	std::string answers_before = client.Take(before_batch.AllAnswers().size());
	ASSERT_EQ(BatchProblem(answers_before, before_batch), "");
	std::string scrape = client.TakeResponse();
	HttpResponse resp = ParseResponse(scrape);
	ASSERT_TRUE(resp.parsed) << scrape;
	EXPECT_EQ(resp.Header("Connection"), "keep-alive");
	EXPECT_EQ(BatchProblem(client.Take(after_batch.AllAnswers().size()), after_batch), "");
	Counters counters;
	std::string error;
	ASSERT_TRUE(ParseMetricsBody(resp.body, &counters, &error)) << error;
	std::map<std::string, uint64_t> m(counters.begin(), counters.end());

	EXPECT_EQ(m["requests_total"] - before["requests_total"], kBefore + 1);
	// the harness took the Date lines out of what it read: the first scrape's and the batch's
	EXPECT_EQ(m["bytes_written"] - before["bytes_written"],
		  first_raw.size() + answers_before.size() + (kBefore + 1) * kDateLineBytes);
	uint64_t through_scrape = before_batch.sent.size() + scrape_request.size();
	uint64_t read = m["bytes_read"] - before["bytes_read"]; // before counted its own request
	EXPECT_GE(read, through_scrape);
	EXPECT_LE(read, through_scrape + after_batch.sent.size());
	uint64_t heads = 0, gets = 0, puts = 0, not_found = 0;
	for (const std::string &label : before_batch.labels) {
		heads += label.rfind("head_", 0) == 0;
		puts += label.rfind("put_", 0) == 0;
		not_found += label.find("404") != std::string::npos;
	}
	gets = kBefore - heads - puts;
	EXPECT_EQ(m["requests_head"] - before["requests_head"], heads);
	EXPECT_EQ(m["requests_get"] - before["requests_get"], gets + 1);
	EXPECT_EQ(m["responses_405"] - before["responses_405"], puts);
	EXPECT_EQ(m["responses_404"] - before["responses_404"], not_found);
	EXPECT_EQ(m["responses_200"] - before["responses_200"], kBefore - puts - not_found + 1);
	EXPECT_EQ(m["connections_accepted"] - before["connections_accepted"], 1u);
	ExpectClosesOnRequest(&client);
}

// N requests on one connection move connections_accepted by exactly 1 and requests_total
// by exactly N + 1 (the closing /metrics on the same connection counts itself). The
// syscalls per request are reported, not judged.
TEST_F(KeepAliveTest, CountersAfterKeepAliveRequests)
{
	constexpr size_t kRequests = 200;
	Start();
	Batch warm = MixBatch(Mix().size()); // fetches the reference answers first
	std::map<std::string, uint64_t> before = FetchMetrics(port_);
	Client client(port_);
	ASSERT_TRUE(client.connected());
	for (size_t i = 0; i < kRequests; i++) {
		size_t m = i % Mix().size();
		ASSERT_TRUE(client.Send(Mix()[m].request));
		ASSERT_EQ(client.Take(warm.answers[m].size()), warm.answers[m]) << "request " << i + 1;
	}
	ASSERT_TRUE(client.Send(GetClose("/metrics")));
	Received r = client.TakeUntilClose();
	EXPECT_TRUE(r.eof);
	HttpResponse resp = ParseResponse(r.bytes);
	Counters counters;
	std::string error;
	ASSERT_TRUE(resp.parsed && ParseMetricsBody(resp.body, &counters, &error))
		<< error << " '" << r.bytes << "'";
	std::map<std::string, uint64_t> after(counters.begin(), counters.end());
	EXPECT_EQ(after["connections_accepted"] - before["connections_accepted"], 1u);
	EXPECT_EQ(after["requests_total"] - before["requests_total"], kRequests + 1);
	// The first scrape's connection; this one is open while its /metrics is built.
	EXPECT_EQ(after["connections_closed"] - before["connections_closed"], 1u);
	uint64_t syscalls = after["syscalls_total"] - before["syscalls_total"];
	EXPECT_GT(syscalls, 0u);
	double per_request = static_cast<double>(syscalls) / static_cast<double>(kRequests + 1);
	RecordProperty("syscalls_per_keepalive_request", std::to_string(per_request));
	printf("syscalls per keep-alive request: %.3f (%llu over %zu requests)\n", per_request,
	       static_cast<unsigned long long>(syscalls), kRequests + 1);
}

// curl fetching three URLs of one daemon reuses one connection.
TEST_F(KeepAliveTest, CurlReusesOneConnection)
{
	constexpr int kCurlTimeoutMs = 15000;
	Start();
	std::map<std::string, uint64_t> before = FetchMetrics(port_);
	std::string base = "http://127.0.0.1:" + std::to_string(port_);
	CommandResult r = RunCommand({"curl", "-sS", "--max-time", "10", base + "/", base + "/health",
				      base + "/"},
				     "", kCurlTimeoutMs);
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, 0) << r.err;
	EXPECT_EQ(r.out, "apollo says hellookapollo says hello");
	std::map<std::string, uint64_t> after = FetchMetrics(port_);
	// curl's one connection and the second scrape's.
	EXPECT_EQ(after["connections_accepted"] - before["connections_accepted"], 2u);
	EXPECT_EQ(after["requests_total"] - before["requests_total"], 4u);
}

} // namespace
} // namespace wire
