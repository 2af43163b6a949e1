// The --config FILE (BEHAVIOUR 2.1, 2.2, 17; features `routes` and `files`): a daemon
// serving what its file says, the command line over the file, --check-config's line and
// exit codes, and (natively, the resident supervisor) a reload that reads the file again:
// a root change applied, a listen change or a broken file refused while the old
// generation serves on.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test/wire/reload_daemon.h"
#include "test/wire/wire_harness.h"

namespace wire {
namespace {

constexpr int kCommandMs = 20000; // a --check-config run (under qemu too) ends within this
// An address no interface has: binding it fails (exit 3), so a daemon that serves or a
// check that passes with it in the file never bound it.
const char kUnbindable[] = "192.0.2.1:80";

// A scratch directory with a config file and two trees, removed afterwards.
class ConfigTest : public testing::Test {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("routes");
		REQUIRE_FEATURE("files");
		char name[] = "/tmp/apollod-config-XXXXXX";
		ASSERT_NE(mkdtemp(name), nullptr);
		dir_ = name;
		ASSERT_TRUE(Put(dir_, "one/a.txt", "one\n") && Put(dir_, "two/a.txt", "two\n"));
	}
	void TearDown() override
	{
		if (!dir_.empty())
			RunCommand({"rm", "-rf", dir_}, "", 5000);
	}
	std::string Conf() const { return dir_ + "/apollod.conf"; }
	std::string Tree(const char *name) const { return dir_ + "/" + name; }
	// The daemon with extra args, its stdout and stderr; kills it after kCommandMs.
	CommandResult Run(std::vector<std::string> args) const
	{
		std::vector<std::string> argv = DaemonCommand();
		argv.insert(argv.end(), args.begin(), args.end());
		return RunCommand(argv, "", kCommandMs);
	}
	std::string dir_;
};

HttpResponse GetA(int port)
{
	return ParseResponse(Roundtrip(port, GetClose("/a.txt")).bytes);
}

TEST_F(ConfigTest, ServesWhatTheFileSays)
{
	WriteFile(Conf(), "# the site\n"
			  "\n"
			  "listen 127.0.0.1:0\n"
			  "root " + Tree("one") + "\n"
			  "  header-for *.txt X-From: the file\n"
			  "header X-Top: 1\n");
	Daemon d;
	DaemonOptions o;
	o.extra_args = {"--config", Conf()};
	o.config_listens = 1;
	std::string error;
	ASSERT_TRUE(d.Start(o, &error)) << error;
	ASSERT_EQ(d.announced().size(), 1u);
	EXPECT_EQ(d.announced()[0].rfind("apollod listening on 127.0.0.1:", 0), 0u);
	HttpResponse r = GetA(d.port());
	EXPECT_EQ(r.status, 200) << r.error;
	EXPECT_EQ(r.body, "one\n");
	EXPECT_EQ(r.Header("X-From"), "the file");
	EXPECT_EQ(r.Header("X-Top"), "1");
}

// BEHAVIOUR 2.1: a flag replaces the file's setting; a repeatable one replaces all of the
// file's occurrences (the file's unbindable --listen is never bound).
TEST_F(ConfigTest, CommandLineOverridesTheFile)
{
	WriteFile(Conf(), std::string("listen ") + kUnbindable + "\nroot " + Tree("one") +
				  "\nheader X-File: 1\nheader-for / X-For: file\n");
	Daemon d;
	DaemonOptions o;
	o.extra_args = {"--config", Conf(), "--root", Tree("two"), "--header", "X-Cli: 2"};
	std::string error;
	ASSERT_TRUE(d.Start(o, &error)) << error; // adds --listen 127.0.0.1:0
	EXPECT_EQ(d.announced().size(), 1u);
	HttpResponse r = GetA(d.port());
	EXPECT_EQ(r.status, 200) << r.error;
	EXPECT_EQ(r.body, "two\n");
	EXPECT_EQ(r.Header("X-Cli"), "2");
	int count = -1;
	r.Header("X-File", &count);
	EXPECT_EQ(count, 0) << "the command line's --header replaces the file's";
	EXPECT_EQ(r.Header("X-For"), "file") << "a setting the command line leaves stays";
}

TEST_F(ConfigTest, CheckConfigSaysOkWithoutBinding)
{
	WriteFile(Conf(), std::string("listen ") + kUnbindable + "\nroot " + Tree("one") +
				  "\nerror-page 404=/a.txt\nheader X-A: 1\n");
	CommandResult r = Run({"--config", Conf(), "--check-config"});
	ASSERT_TRUE(r.ran) << r.problem;
	EXPECT_EQ(r.exit_code, 0) << r.err;
	EXPECT_EQ(r.out, "configuration ok\n");
	EXPECT_EQ(r.err, "");
	r = Run({"--check-config", "--root", Tree("two")}); // flags alone
	EXPECT_EQ(r.exit_code, 0) << r.err;
	EXPECT_EQ(r.out, "configuration ok\n");
}

// Each refusal: its exit code and its one line, nothing on stdout; a start with the same
// file refuses the same way, before any socket.
TEST_F(ConfigTest, CheckConfigRefusals)
{
	const struct {
		const char *label;
		std::string text;                 // the file ("" : none written)
		std::vector<std::string> flags;   // after --config FILE --check-config
		int code;
		std::string line; // "FILE" stands for the path
	} cases[] = {
		{"unknown setting", "root /tmp\n\nroots /tmp\n", {}, 19,
		 "apollod: FILE:3: unknown setting 'roots'\n"},
		{"missing value", "root\n", {}, 19, "apollod: FILE:1: root needs a value\n"},
		{"bad value", "# x\nworkers none\n", {}, 19,
		 "apollod: FILE:2: workers: bad value 'none'\n"},
		{"a field checked after parsing", "root /tmp\nheader NoColon\n", {}, 19,
		 "apollod: FILE:2: header 'NoColon': expected 'Name: value'\n"},
		{"over-long line", "#" + std::string(4096, 'x') + "\n", {}, 19,
		 "apollod: FILE:1: line longer than 4096 bytes\n"},
		{"too big", std::string(65537, '\n'), {}, 19, "apollod: FILE: larger than 65536 bytes\n"},
		{"no such file", "", {}, 19, "apollod: FILE: cannot open: no such file or directory\n"},
		{"bad flag beside it", "root /tmp\n", {"--workers", "0"}, 64, ""},
		{"no such root", "root /nonexistent-apollod\n", {}, 10,
		 "apollod: --root /nonexistent-apollod: no such file or directory\n"},
		{"no such error page", "root /tmp\nerror-page 404=/nonexistent-apollod.html\n", {},
		 10, "apollod: --error-page /nonexistent-apollod.html: no such file or directory\n"},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		unlink(Conf().c_str());
		if (!c.text.empty())
			WriteFile(Conf(), c.text);
		std::vector<std::string> args = {"--config", Conf(), "--check-config"};
		args.insert(args.end(), c.flags.begin(), c.flags.end());
		CommandResult r = Run(args);
		ASSERT_TRUE(r.ran) << r.problem;
		EXPECT_EQ(r.exit_code, c.code) << r.err;
		EXPECT_EQ(r.out, "");
		std::string line = std::regex_replace(c.line, std::regex("FILE"), Conf());
		if (c.code == 64)
			EXPECT_EQ(UsageErrorProblem(r.err, "apollod: --workers: bad value '0'\n"), "");
		else
			EXPECT_EQ(r.err, line);
		if (c.code != 19)
			continue;
		args.pop_back(); // a start: the same line and code, no announcement
		args.push_back("--listen=127.0.0.1:0");
		r = Run(args);
		EXPECT_EQ(r.exit_code, 19) << r.err;
		EXPECT_EQ(r.out, "");
		EXPECT_EQ(r.err, line);
	}
}

// The resident supervisor reads the file again on SIGHUP (BEHAVIOUR 17): natively, with
// one process and with --workers 2.
class ConfigReloadTest : public SupervisorTest {
protected:
	// Starts d with its --listen and --root in its config file, after lines.
	void StartWithConfig(ReloadDaemon &d, const std::string &lines)
	{
		d.UseConfig(lines + (GetParam() > 1 ? "workers " + std::to_string(GetParam()) + "\n"
						    : std::string()));
		// ReloadDaemon adds listen and root after these lines
		ASSERT_EQ(d.Start({}), "");
	}
	// A whole file: d's address (or port), root, the workers it started with, lines.
	std::string Lines(ReloadDaemon &d, const std::string &root, const std::string &lines,
			  int port = 0)
	{
		return "listen 127.0.0.1:" + std::to_string(port ? port : d.port()) + "\nroot " +
		       root + "\n" +
		       (GetParam() > 1 ? "workers " + std::to_string(GetParam()) + "\n" : "") + lines;
	}
};
INSTANTIATE_TEST_SUITE_P(Processes, ConfigReloadTest, testing::Values(1, 2), ProcessesName);

TEST_P(ConfigReloadTest, ReloadAppliesARootChange)
{
	ReloadDaemon d;
	StartWithConfig(d, "header X-Gen: old\n");
	ASSERT_EQ(mkdir((d.root() + "2").c_str(), 0755), 0);
	ASSERT_TRUE(Put(d.root() + "2", "a.txt", "new\n"));
	HttpResponse r = GetA(d.port());
	ASSERT_EQ(r.body, "a\n");
	EXPECT_EQ(r.Header("X-Gen"), "old");
	WriteFile(d.config(), Lines(d, d.root() + "2", "header X-Gen: new\n"));
	ASSERT_EQ(kill(d.pid(), SIGHUP), 0);
	ASSERT_GT(d.WaitForReloadedAlone(), 0) << d.Err();
	r = GetA(d.port());
	EXPECT_EQ(r.body, "new\n") << "the file's new root is not served";
	EXPECT_EQ(r.Header("X-Gen"), "new") << "the file's new header applies";
	EXPECT_EQ(d.Err().find("refused"), std::string::npos) << d.Err();
	EXPECT_EQ(d.Stop(), 0) << d.Err();
}

TEST_P(ConfigReloadTest, ReloadRefusesAListenChangeAndServesOn)
{
	ReloadDaemon d;
	StartWithConfig(d, "");
	pid_t serving = d.generation();
	ASSERT_GT(serving, 0);
	int other = RecentlyFreePort();
	WriteFile(d.config(), Lines(d, d.root() + "2", "", other));
	ASSERT_EQ(mkdir((d.root() + "2").c_str(), 0755), 0);
	ASSERT_TRUE(Put(d.root() + "2", "a.txt", "new\n"));
	ASSERT_EQ(kill(d.pid(), SIGHUP), 0);
	std::smatch m = d.WaitForLine(std::regex("apollod: reload refused: " + d.config() +
						 ": listen changed, which only a restart "
						 "applies; serving on\n"));
	ASSERT_FALSE(m.empty()) << d.Err();
	EXPECT_EQ(d.generation(), serving) << "the old generation serves on";
	EXPECT_EQ(GetA(d.port()).body, "a\n") << "nothing of the file applied";
	EXPECT_EQ(FetchMetrics(d.port())["reloads"], 0u);
	EXPECT_LT(ConnectLoopback(other, 200), 0) << "the new address was not bound";
	// A broken file is refused with its line, then a mended one reloads.
	WriteFile(d.config(), Lines(d, d.root() + "2", "workers none\n"));
	ASSERT_EQ(kill(d.pid(), SIGHUP), 0);
	m = d.WaitForLine(std::regex("apollod: reload refused: " + d.config() +
				     ":[0-9]+: workers: bad value 'none'; serving on\n"));
	ASSERT_FALSE(m.empty()) << d.Err();
	EXPECT_EQ(d.generation(), serving);
	WriteFile(d.config(), Lines(d, d.root() + "2", ""));
	ASSERT_EQ(kill(d.pid(), SIGHUP), 0);
	ASSERT_GT(d.WaitForReloaded(), 0) << d.Err();
	EXPECT_TRUE(WaitUntil([&] { return GetA(d.port()).body == "new\n"; }))
		<< "the mended file's root is not served";
	EXPECT_EQ(d.Stop(), 0) << d.Err();
}

} // namespace
} // namespace wire
