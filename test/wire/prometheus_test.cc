// The Prometheus exposition of /metrics (feature `routes`, BEHAVIOUR 7.2): which requests
// get it, that `promtool check metrics` finds no problem in a real scrape (also with
// --workers 2), that a plain request keeps the original body, the open-connections gauge,
// and a real Prometheus server scraping the daemon on loopback. promtool and prometheus
// come from Debian's prometheus package (scripts/bootstrap.sh) and are found on PATH.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kPromtoolTimeoutMs = 30000;
constexpr const char *kExpositionType = "text/plain; version=0.0.4; charset=utf-8";
// What Prometheus 2.42 itself sends when it scrapes.
constexpr const char *kPrometheusAccept =
	"application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
	"version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

// GET target with extra header lines (each ending in CRLF), asking to close.
std::string GetWith(const std::string &target, const std::string &fields)
{
	return "GET " + target + " HTTP/1.1\r\nHost: t\r\n" + fields + "Connection: close\r\n\r\n";
}

// Scrapes with request and returns the parsed response (fatal failures are the caller's).
HttpResponse Scrape(int port, const std::string &request)
{
	Received r = Roundtrip(port, request);
	EXPECT_TRUE(r.eof);
	return ParseResponse(r.bytes);
}

// "" when `promtool check metrics` reads body and reports nothing, else what it said.
std::string PromtoolProblem(const std::string &body)
{
	CommandResult r = RunCommand({"promtool", "check", "metrics"}, body, kPromtoolTimeoutMs);
	if (!r.ran)
		return "promtool did not run: " + r.problem;
	if (r.exit_code != 0 || !r.out.empty() || !r.err.empty())
		return "promtool exit " + std::to_string(r.exit_code) + ":\n" + r.out + r.err;
	return "";
}

// The value of the sample line `series value` in an exposition body, or -1.
long long SampleValue(const std::string &body, const std::string &series)
{
	std::istringstream lines(body);
	std::string line;
	while (std::getline(lines, line))
		if (line.rfind(series + " ", 0) == 0)
			return std::stoll(line.substr(series.size() + 1));
	return -1;
}

class PrometheusTest : public testing::Test {
protected:
	void SetUp() override { REQUIRE_FEATURE("routes"); }
};

// Each way of asking gets an exposition promtool passes, with the 0.0.4 Content-Type,
// apollod_ names, labels, the gauge and the build info.
TEST_F(PrometheusTest, EveryWayOfAskingPassesPromtool)
{
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{});
	const struct {
		const char *label;
		std::string request;
	} asks[] = {
		{"Prometheus's own Accept", GetWith("/metrics", "Accept: " + std::string(kPrometheusAccept) + "\r\n")},
		{"text format 0.0.4", GetWith("/metrics", "Accept: text/plain; version=0.0.4\r\n")},
		{"OpenMetrics", GetWith("/metrics", "Accept: application/openmetrics-text\r\n")},
		{"a second Accept line", GetWith("/metrics", "Accept: text/html\r\naccept: text/plain; version=0.0.4\r\n")},
		{"query", GetWith("/metrics?format=prometheus", "")},
	};
	for (const auto &a : asks) {
		SCOPED_TRACE(a.label);
		HttpResponse resp = Scrape(daemon.port(), a.request);
		ASSERT_EQ(resp.status, 200) << resp.error;
		EXPECT_EQ(resp.Header("Content-Type"), kExpositionType);
		EXPECT_EQ(PromtoolProblem(resp.body), "");
		for (const char *family : {"apollod_requests_total", "apollod_responses_total",
					   "apollod_open_connections", "apollod_build_info"}) {
			EXPECT_NE(resp.body.find(std::string("# HELP ") + family + " "), std::string::npos) << family;
			EXPECT_NE(resp.body.find(std::string("# TYPE ") + family + " "), std::string::npos) << family;
		}
		EXPECT_GE(SampleValue(resp.body, "apollod_requests_total{method=\"GET\"}"), 1) << resp.body;
		EXPECT_NE(resp.body.find("apollod_build_info{version=\""), std::string::npos);
	}
}

// HEAD gets the exposition's head: the same Content-Length, no body.
TEST_F(PrometheusTest, HeadGetsTheExpositionHead)
{
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{});
	Received r = Roundtrip(daemon.port(), "HEAD /metrics?format=prometheus HTTP/1.1\r\nHost: t\r\n"
					       "Connection: close\r\n\r\n");
	HttpResponse head = ParseResponse(r.bytes);
	ASSERT_EQ(head.status, 200);
	EXPECT_EQ(head.body, "");
	HttpResponse get = Scrape(daemon.port(), GetWith("/metrics?format=prometheus", ""));
	// One more GET was counted since, and numbers may grow: the lengths are close, not equal.
	EXPECT_GT(std::stoul(head.Header("Content-Length")), get.body.size() / 2);
	EXPECT_EQ(head.Header("Content-Type"), kExpositionType);
}

// No Accept, `*/*`, a plain text/plain and an HTML browser's Accept keep the original
// "name value" body with every counter in order.
TEST_F(PrometheusTest, PlainRequestsKeepTheOriginalBody)
{
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{});
	for (const char *fields : {"", "Accept: */*\r\n", "Accept: text/plain\r\n",
				   "Accept: text/html,application/xhtml+xml,*/*;q=0.8\r\n"}) {
		SCOPED_TRACE(fields);
		HttpResponse resp = Scrape(daemon.port(), GetWith("/metrics", fields));
		ASSERT_EQ(resp.status, 200);
		Counters counters;
		std::string error;
		ASSERT_TRUE(ParseMetricsBody(resp.body, &counters, &error)) << error;
		std::vector<std::string> names;
		for (const auto &c : counters)
			names.push_back(c.first);
		EXPECT_EQ(names, ExpectedCounterNames());
	}
}

// Three idle keep-alive connections and the scrape's own: the gauge says 4; once they
// close, 1. With --workers 2 the connections spread over both workers and the gauge still
// counts them all (one shared counter page); promtool passes there too.
void CheckOpenConnectionsGauge(const DaemonOptions &options)
{
	Daemon daemon;
	START_DAEMON(daemon, options);
	{
		std::vector<std::unique_ptr<Client>> clients;
		for (int i = 0; i < 3; i++) {
			clients.push_back(std::make_unique<Client>(daemon.port()));
			ASSERT_TRUE(clients.back()->Send(Get("/health")));
			ASSERT_NE(clients.back()->TakeResponse(), "");
		}
		HttpResponse resp = Scrape(daemon.port(), GetWith("/metrics?format=prometheus", ""));
		EXPECT_EQ(SampleValue(resp.body, "apollod_open_connections"), 4) << resp.body;
		EXPECT_EQ(PromtoolProblem(resp.body), "");
	}
	// The daemon closes the three when it reads their FIN: poll the gauge until it has.
	long long open = -1;
	for (int64_t deadline = NowMs() + 3000; NowMs() < deadline && open != 1; SleepMs(20)) {
		HttpResponse resp = Scrape(daemon.port(), GetWith("/metrics?format=prometheus", ""));
		open = SampleValue(resp.body, "apollod_open_connections");
	}
	EXPECT_EQ(open, 1) << "the closed connections still counted";
}

TEST_F(PrometheusTest, OpenConnectionsGauge)
{
	REQUIRE_FEATURE("keepalive");
	CheckOpenConnectionsGauge(DaemonOptions{});
}

TEST_F(PrometheusTest, OpenConnectionsGaugeOverWorkers)
{
	REQUIRE_FEATURE("workers");
	CheckOpenConnectionsGauge(DaemonOptions{{"--workers", "2"}});
}

// ---- A real Prometheus server ----

constexpr int kPrometheusStartMs = 30000; // it opens its TSDB first; qemu runs are slow
constexpr int kPrometheusScrapeMs = 30000;

// A child process that is always killed: by the destructor (SIGKILL, then reaped), or by
// the kernel if this test process dies first (PR_SET_PDEATHSIG).
class ChildProcess {
public:
	// Starts argv (argv[0] looked up on PATH) with stdout and stderr appended to log_path.
	bool Start(const std::vector<std::string> &argv, const std::string &log_path)
	{
		pid_t parent = getpid();
		std::vector<char *> args = ArgvOf(argv);
		pid_ = fork();
		if (pid_ < 0)
			return false;
		if (pid_ == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(127); // the parent died before prctl took effect
			int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
			if (log < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0)
				_exit(127);
			execvp(args[0], args.data());
			_exit(127);
		}
		return true;
	}
	bool Alive() { return pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0; }
	~ChildProcess()
	{
		if (pid_ > 0) {
			kill(pid_, SIGKILL);
			waitpid(pid_, nullptr, 0);
		}
	}

private:
	pid_t pid_ = -1;
};

std::string ReadFile(const std::string &path)
{
	std::ifstream in(path);
	std::stringstream s;
	s << in.rdbuf();
	return s.str();
}

// Percent-encodes everything but unreserved bytes, for a query parameter.
std::string UrlEncode(const std::string &s)
{
	static const char hex[] = "0123456789ABCDEF";
	std::string out;
	for (unsigned char ch : s) {
		if (isalnum(ch) || ch == '_' || ch == '-' || ch == '.' || ch == '~') {
			out += (char)ch;
		} else {
			out += '%';
			out += hex[ch >> 4];
			out += hex[ch & 15];
		}
	}
	return out;
}

// The value of a PromQL query's one sample through the HTTP API at port, or "" when it
// has no single sample yet.
std::string QueryValue(int port, const std::string &promql)
{
	Received r = Roundtrip(port, GetClose("/api/v1/query?query=" + UrlEncode(promql)));
	HttpResponse resp = ParseResponse(r.bytes);
	static const std::regex one_sample(
		R"re(^\{"status":"success","data":\{"resultType":"vector","result":\[\{"metric":\{[^}]*\},"value":\[[0-9.]+,"([^"]*)"\]\}\]\}\}$)re");
	std::smatch m;
	if (resp.status != 200 || !std::regex_match(resp.body, m, one_sample))
		return "";
	return m[1];
}

// Prometheus scrapes the daemon every second (it asks with its own Accept and gets the
// exposition); through its HTTP API, up is 1 and apollod_responses_total{code="404"}
// holds exactly the three 404s this test caused (its own scrapes are 200s).
TEST(PrometheusServerTest, ScrapesUpAndACounter)
{
	REQUIRE_FEATURE("routes");
	REQUIRE_FEATURE("slow_once"); // the exposition is common/'s; promtool checks it everywhere
	Daemon daemon;
	START_DAEMON(daemon, DaemonOptions{});
	for (int i = 0; i < 3; i++)
		ASSERT_TRUE(Roundtrip(daemon.port(), GetClose("/nope")).eof);

	const char *tmp = getenv("TEST_TMPDIR");
	std::string dir_template = std::string(tmp ? tmp : "/tmp") + "/prometheus.XXXXXX";
	ASSERT_NE(mkdtemp(dir_template.data()), nullptr);
	const std::string dir = dir_template;
	{
		std::ofstream config(dir + "/prometheus.yml");
		config << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
		       << "scrape_configs:\n  - job_name: apollod\n    static_configs:\n"
		       << "      - targets: ['127.0.0.1:" << daemon.port() << "']\n";
	}
	const std::string log = dir + "/prometheus.log";
	ChildProcess prometheus;
	ASSERT_TRUE(prometheus.Start({"prometheus", "--config.file=" + dir + "/prometheus.yml",
				      "--storage.tsdb.path=" + dir + "/data",
				      "--web.listen-address=127.0.0.1:0"},
				     log));
	// It names the port the kernel gave it: `msg="Listening on" address=127.0.0.1:PORT`.
	static const std::regex listening(R"re(msg="Listening on" address=127\.0\.0\.1:([0-9]+))re");
	int api_port = 0;
	for (int64_t deadline = NowMs() + kPrometheusStartMs;
	     !api_port && NowMs() < deadline && prometheus.Alive(); SleepMs(100)) {
		std::smatch m;
		std::string text = ReadFile(log);
		if (std::regex_search(text, m, listening))
			api_port = std::stoi(m[1]);
	}
	ASSERT_NE(api_port, 0) << "prometheus did not start:\n" << ReadFile(log);

	std::string up, not_found;
	for (int64_t deadline = NowMs() + kPrometheusScrapeMs;
	     (up != "1" || not_found != "3") && NowMs() < deadline; SleepMs(250)) {
		up = QueryValue(api_port, "up{job=\"apollod\"}");
		not_found = QueryValue(api_port, "apollod_responses_total{code=\"404\"}");
	}
	EXPECT_EQ(up, "1") << ReadFile(log);
	EXPECT_EQ(not_found, "3");
	EXPECT_EQ(LivenessProblem(daemon.port()), "");
}

} // namespace
} // namespace wire
