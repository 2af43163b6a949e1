// The --config FILE (common/process/config_file.h, BEHAVIOUR 2.1): lines parsed by the flag
// table, every refusal's line, the layers (the command line over the file), the file's
// bounds, and the settings a reload may not change.

#include "common/process/config_file.h"
#include "common/process/cli.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

// Every flag the routed tiers accept (common/main/daemon_main.c's `routed`).
const unsigned kRouted = CLI_ACCEPT_LISTEN | CLI_ACCEPT_LISTEN_MANY | CLI_ACCEPT_IDLE_TIMEOUT |
			 CLI_ACCEPT_ROOT | CLI_ACCEPT_MAX_CONNECTIONS | CLI_ACCEPT_WORKERS |
			 CLI_ACCEPT_DRAIN_TIMEOUT | CLI_ACCEPT_ACCESS_LOG | CLI_ACCEPT_HEADER |
			 CLI_ACCEPT_SANDBOX | CLI_ACCEPT_CONFIG;

// The text parsed as one layer over the defaults. Returns the problem; *line the line
// the problem line names ("f:LINE: ..."), empty when none. text is kept in *keep (the
// options point into it).
enum config_problem ParseText(const std::string &text, struct cli_options *opts,
			      std::string *keep, std::string *line)
{
	*keep = text;
	keep->push_back('\0'); // config_parse writes a NUL after the last line
	struct cli_layer layer = {0};
	uint32_t at = 0;
	cli_defaults(opts);
	enum config_problem p = config_parse(&(*keep)[0], text.size(), kRouted, &layer, opts, &at);
	EXPECT_EQ(cli_finish(opts), 1);
	line->clear();
	if (p == CONFIG_SETTING) {
		std::string where = "f:" + std::to_string(at) + ": ";
		char out[CLI_LINE_MAX];
		*line = std::string(out, cli_format_setting_problem(out, sizeof(out), opts,
								      where.data(), where.size()));
	} else if (p != CONFIG_OK) {
		*line = "line " + std::to_string(at);
	}
	return p;
}

std::string Addr(const union k_sockaddr &a)
{
	char out[CLI_ADDR_MAX];
	return std::string(out, cli_format_addr(out, &a));
}

TEST(ConfigFileTest, SettingsAreTheLongFlags)
{
	struct cli_options opts;
	std::string keep, line;
	ASSERT_EQ(ParseText("# a site\n"
			    "\n"
			    "   \t\n"
			    "  # indented comment\n"
			    "listen 0.0.0.0:8080\r\n"
			    "listen\t[::1]:81\n"
			    "root /srv/www   \n"
			    "dotfiles\n"
			    "idle-timeout 3\n"
			    "cache-bytes 1M\n"
			    "workers auto\n"
			    "header X-A: one two\n"
			    "header-for /assets/ Cache-Control: max-age=31536000\n"
			    "header-for *.zip \t Content-Disposition: attachment\n"
			    "error-page 404=/404.html\n"
			    "user nobody",
			    &opts, &keep, &line),
		  CONFIG_OK)
		<< line;
	ASSERT_EQ(opts.listen_count, 2u);
	EXPECT_EQ(Addr(opts.listen[0]), "0.0.0.0:8080");
	EXPECT_EQ(Addr(opts.listen[1]), "[::1]:81");
	EXPECT_STREQ(opts.root, "/srv/www");
	EXPECT_EQ(opts.dotfiles, 1);
	EXPECT_EQ(opts.idle_timeout_s, 3u);
	EXPECT_EQ(opts.cache_bytes, 1u << 20);
	EXPECT_EQ(opts.workers, (uint32_t)CLI_WORKERS_AUTO);
	ASSERT_EQ(opts.header_count, 1u);
	EXPECT_STREQ(opts.headers[0], "X-A: one two");
	ASSERT_EQ(opts.header_for_count, 2u);
	EXPECT_STREQ(opts.header_for_pattern[0], "/assets/");
	EXPECT_STREQ(opts.header_for_field[0], "Cache-Control: max-age=31536000");
	EXPECT_STREQ(opts.header_for_pattern[1], "*.zip");
	EXPECT_STREQ(opts.header_for_field[1], "Content-Disposition: attachment");
	EXPECT_STREQ(opts.error_page[ERROR_PAGE_404], "/404.html");
	EXPECT_STREQ(opts.user, "nobody");
	EXPECT_EQ(opts.config, nullptr);
}

TEST(ConfigFileTest, EmptyFileIsTheDefaults)
{
	struct cli_options opts, defaults;
	std::string keep, line;
	ASSERT_EQ(ParseText("", &opts, &keep, &line), CONFIG_OK);
	char *argv[] = {(char *)"apollod", nullptr};
	ASSERT_EQ(cli_parse(1, argv, kRouted, &defaults), 1);
	EXPECT_EQ(Addr(opts.listen[0]), Addr(defaults.listen[0]));
	EXPECT_EQ(opts.listen_count, 1u);
	EXPECT_EQ(opts.root, nullptr);
}

// Every way a line is refused, with the line the daemon writes for it.
TEST(ConfigFileTest, RefusedLines)
{
	const struct {
		const char *label;
		std::string text;
		enum config_problem problem;
		std::string line;
	} cases[] = {
		{"unknown setting", "root /a\nroots /b\n", CONFIG_SETTING,
		 "apollod: f:2: unknown setting 'roots'\n"},
		{"a flag written with dashes", "--root /a\n", CONFIG_SETTING,
		 "apollod: f:1: unknown setting '--root'\n"},
		{"missing value", "\n\nroot\n", CONFIG_SETTING, "apollod: f:3: root needs a value\n"},
		{"missing value, blanks after", "root \t \n", CONFIG_SETTING,
		 "apollod: f:1: root needs a value\n"},
		{"header-for with one word", "header-for /assets/\n", CONFIG_SETTING,
		 "apollod: f:1: header-for needs a value\n"},
		{"bad number", "# x\nworkers 0\n", CONFIG_SETTING,
		 "apollod: f:2: workers: bad value '0'\n"},
		{"bad address", "listen localhost:80\n", CONFIG_SETTING,
		 "apollod: f:1: listen: bad value 'localhost:80'\n"},
		{"bad bytes", "cache-bytes 1Q\n", CONFIG_SETTING,
		 "apollod: f:1: cache-bytes: bad value '1Q'\n"},
		{"bad site path", "fallback index.html\n", CONFIG_SETTING,
		 "apollod: f:1: fallback: bad value 'index.html'\n"},
		{"a value for a switch", "dotfiles yes\n", CONFIG_SETTING,
		 "apollod: f:1: dotfiles takes no value: 'yes'\n"},
		{"config in a config", "config /etc/other.conf\n", CONFIG_SETTING,
		 "apollod: f:1: config is a command-line flag, not a setting\n"},
		{"check-config", "check-config\n", CONFIG_SETTING,
		 "apollod: f:1: check-config is a command-line flag, not a setting\n"},
		{"help", "help\n", CONFIG_SETTING,
		 "apollod: f:1: help is a command-line flag, not a setting\n"},
		{"version", "version\n", CONFIG_SETTING,
		 "apollod: f:1: version is a command-line flag, not a setting\n"},
		{"too many", std::string("listen 127.0.0.1:1\n") + std::string(
			 "listen 127.0.0.1:1\nlisten 127.0.0.1:1\nlisten 127.0.0.1:1\nlisten 127.0.0.1:1\n"
			 "listen 127.0.0.1:1\nlisten 127.0.0.1:1\nlisten 127.0.0.1:1\nlisten 127.0.0.1:1\n"),
		 CONFIG_SETTING, "apollod: f:9: listen: given more than 8 times: the limit is 8\n"},
		{"over-long line", "root /a\n" + std::string(CONFIG_LINE_MAX + 1, '#') + "\n",
		 CONFIG_LONG_LINE, "line 2"},
		{"NUL in a line", std::string("root /a\0b\n", 10), CONFIG_NUL, "line 1"},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		struct cli_options opts;
		std::string keep, line;
		EXPECT_EQ(ParseText(c.text, &opts, &keep, &line), c.problem);
		EXPECT_EQ(line, c.line);
	}
}

TEST(ConfigFileTest, LongestLineAccepted)
{
	struct cli_options opts;
	std::string keep, line;
	std::string root = "/" + std::string(CONFIG_LINE_MAX - sizeof("root /") + 1, 'r');
	ASSERT_EQ(("root " + root).size(), (size_t)CONFIG_LINE_MAX);
	ASSERT_EQ(ParseText("root " + root + "\r\n", &opts, &keep, &line), CONFIG_LONG_LINE)
		<< "the CR counts";
	ASSERT_EQ(ParseText("root " + root + "\n", &opts, &keep, &line), CONFIG_OK) << line;
	EXPECT_EQ(std::string(opts.root), root);
}

// A temporary file, removed at the end of the test.
class TempFile {
 public:
	explicit TempFile(const std::string &text)
	{
		char name[] = "/tmp/apollod_config_XXXXXX";
		int fd = mkstemp(name);
		EXPECT_GE(fd, 0);
		path_ = name;
		EXPECT_EQ(write(fd, text.data(), text.size()), (ssize_t)text.size());
		close(fd);
	}
	~TempFile() { unlink(path_.c_str()); }
	const char *path() const { return path_.c_str(); }

 private:
	std::string path_;
};

// config_load over argv words (argv[0] added). Returns its exit code; *err its stderr.
// The files read: the start's, and a reload's (static: 72 KiB each).
struct config_file started_file, reread_file;

enum exit_code Load(const char *path, std::vector<std::string> args, struct cli_options *opts,
		    std::string *err, struct config_file *file = &started_file)
{
	static std::vector<std::string> kept; // the options point into the words
	kept = args;
	kept.insert(kept.begin(), "apollod");
	std::vector<char *> argv;
	for (auto &w : kept)
		argv.push_back(&w[0]);
	argv.push_back(nullptr);
	testing::internal::CaptureStderr();
	enum exit_code r = config_load(file, path, (int)kept.size(), argv.data(), kRouted, opts,
				       "", "");
	*err = testing::internal::GetCapturedStderr();
	return r;
}

// BEHAVIOUR 2.1: the command line over the file; a repeatable flag given on the command
// line replaces the file's occurrences, one it does not give keeps them.
TEST(ConfigFileTest, CommandLineOverridesTheFile)
{
	TempFile file("listen 0.0.0.0:8080\nlisten 0.0.0.0:8081\nroot /srv/a\nidle-timeout 3\n"
		      "header X-File: 1\nheader-for / X-F: 1\n");
	struct cli_options opts;
	std::string err;
	ASSERT_EQ(Load(file.path(), {"--root", "/srv/b", "--listen", "127.0.0.1:0"}, &opts, &err),
		  EXIT_OK)
		<< err;
	EXPECT_EQ(err, "");
	EXPECT_STREQ(opts.root, "/srv/b");
	ASSERT_EQ(opts.listen_count, 1u) << "the command line's --listen replaces the file's";
	EXPECT_EQ(Addr(opts.listen[0]), "127.0.0.1:0");
	EXPECT_EQ(opts.idle_timeout_s, 3u) << "a setting the command line leaves stays";
	ASSERT_EQ(opts.header_count, 1u);
	EXPECT_STREQ(opts.headers[0], "X-File: 1");
	ASSERT_EQ(Load(file.path(), {"--header", "X-Cli: 1", "--header", "X-Cli: 2"}, &opts, &err),
		  EXIT_OK);
	ASSERT_EQ(opts.header_count, 2u);
	EXPECT_STREQ(opts.headers[0], "X-Cli: 1");
	EXPECT_STREQ(opts.headers[1], "X-Cli: 2");
	ASSERT_EQ(opts.listen_count, 2u) << "the file's two --listen stay";
	EXPECT_EQ(opts.header_for_count, 1u);
}

TEST(ConfigFileTest, FileErrors)
{
	struct cli_options opts;
	std::string err;
	EXPECT_EQ(Load("/nonexistent/apollod.conf", {}, &opts, &err), EXIT_CONFIG);
	EXPECT_EQ(err, "apollod: /nonexistent/apollod.conf: cannot open: no such file or "
		       "directory\n");
	EXPECT_EQ(Load("/tmp", {}, &opts, &err), EXIT_CONFIG);
	EXPECT_EQ(err, "apollod: /tmp: cannot read: is a directory\n");
	TempFile biggest(std::string(CONFIG_FILE_MAX - 1, '#') + "\n");
	EXPECT_EQ(Load(biggest.path(), {}, &opts, &err), EXIT_CONFIG) << "a 64 KiB line";
	EXPECT_EQ(err, std::string("apollod: ") + biggest.path() +
			       ":1: line longer than 4096 bytes\n");
	std::string lines;
	while (lines.size() + 128 <= CONFIG_FILE_MAX)
		lines += "# " + std::string(61, 'c') + "\n";
	lines += std::string(CONFIG_FILE_MAX - lines.size() - 1, '#') + "\n";
	ASSERT_EQ(lines.size(), (size_t)CONFIG_FILE_MAX);
	TempFile at_bound(lines);
	EXPECT_EQ(Load(at_bound.path(), {}, &opts, &err), EXIT_OK) << err;
	TempFile too_big(lines + "\n");
	EXPECT_EQ(Load(too_big.path(), {}, &opts, &err), EXIT_CONFIG);
	EXPECT_EQ(err, std::string("apollod: ") + too_big.path() + ": larger than 65536 bytes\n");
	TempFile bad("root /a\n\nworkers many\n");
	EXPECT_EQ(Load(bad.path(), {}, &opts, &err), EXIT_CONFIG);
	EXPECT_EQ(err, std::string("apollod: ") + bad.path() + ":3: workers: bad value 'many'\n");
	if (geteuid() != 0) { // root reads a mode-0 file anyway
		TempFile unreadable("root /a\n");
		chmod(unreadable.path(), 0);
		EXPECT_EQ(Load(unreadable.path(), {}, &opts, &err), EXIT_CONFIG);
		EXPECT_EQ(err, std::string("apollod: ") + unreadable.path() +
				       ": cannot open: permission denied\n");
	}
}

// A word found bad after parsing (extra_fields.h, path_fields.h) is named with its line.
TEST(ConfigFileTest, WhereAWordCameFrom)
{
	TempFile file("# one\nroot /a\n\nheader X-A: 1\nheader X-B: 2\n");
	struct cli_options opts;
	std::string err;
	ASSERT_EQ(Load(file.path(), {"--header-for", "/", "X-C: 3"}, &opts, &err), EXIT_OK);
	char out[CONFIG_WHERE_MAX];
	ASSERT_EQ(opts.header_count, 2u);
	EXPECT_EQ(std::string(out, config_where(&started_file, opts.headers[1], out)),
		  std::string(file.path()) + ":5: ");
	EXPECT_EQ(std::string(out, config_where(&started_file, opts.root, out)), std::string(file.path()) + ":2: ");
	EXPECT_EQ(config_where(&started_file, opts.header_for_field[0], out), 0u) << "from the command line";
	EXPECT_EQ(config_where(&started_file, nullptr, out), 0u);
	// A reload's read leaves the start's words where they were.
	TempFile other("root /b\n");
	struct cli_options reread;
	ASSERT_EQ(Load(other.path(), {}, &reread, &err, &reread_file), EXIT_OK);
	EXPECT_STREQ(opts.root, "/a");
	EXPECT_EQ(config_where(&started_file, reread.root, out), 0u);
	EXPECT_EQ(std::string(out, config_where(&reread_file, reread.root, out)),
		  std::string(other.path()) + ":1: ");
}

// BEHAVIOUR 17: listen, workers and user only a restart applies; the rest a reload does.
TEST(ConfigFileTest, RestartOnlySettings)
{
	const struct {
		const char *label;
		std::string was, now;
		const char *changed;
	} cases[] = {
		{"same", "listen 127.0.0.1:1\nroot /a\n", "listen 127.0.0.1:1\nroot /a\n", nullptr},
		{"root", "root /a\n", "root /b\n", nullptr},
		{"headers and timeouts", "header A: 1\n", "header A: 2\nidle-timeout 4\n", nullptr},
		{"listen port", "listen 127.0.0.1:1\n", "listen 127.0.0.1:2\n", "listen"},
		{"listen added", "listen 127.0.0.1:1\n", "listen 127.0.0.1:1\nlisten [::1]:1\n",
		 "listen"},
		{"listen as the default", "", "listen 127.0.0.1:8080\n", nullptr},
		{"workers", "workers 2\n", "workers 3\n", "workers"},
		{"workers auto kept", "workers auto\n", "workers auto\n", nullptr},
		{"user set", "", "user nobody\n", "user"},
		{"user changed", "user nobody\n", "user daemon\n", "user"},
		{"user kept", "user nobody\n", "user nobody\n", nullptr},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		struct cli_options was, now;
		std::string keep_was, keep_now, line;
		ASSERT_EQ(ParseText(c.was, &was, &keep_was, &line), CONFIG_OK);
		ASSERT_EQ(ParseText(c.now, &now, &keep_now, &line), CONFIG_OK);
		const char *changed = cli_restart_change(&was, &now);
		if (c.changed)
			EXPECT_STREQ(changed, c.changed);
		else
			EXPECT_EQ(changed, nullptr) << changed;
	}
}

} // namespace
