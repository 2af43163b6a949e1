// The command line (common/process/cli.h): address parsing, flags, and the start-up line.

// common/ headers first (kept from when kernel_consts.h named a field sa_handler, which glibc's
// <signal.h> (reached through GoogleTest) defines as a macro.
#include "common/process/cli.h"
#include "common/base/kernel_consts.h"
#include "test/unit/guarded_buffer.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

// The address as a.b.c.d:port, read back from network byte order without libc's helpers
// (this test must not depend on the byte-order code it checks).
std::string AddressText(const struct k_sockaddr_in &a)
{
	const uint8_t *ip = (const uint8_t *)&a.sin_addr;
	const uint8_t *port = (const uint8_t *)&a.sin_port;
	return std::to_string(ip[0]) + "." + std::to_string(ip[1]) + "." + std::to_string(ip[2]) +
	       "." + std::to_string(ip[3]) + ":" + std::to_string(port[0] << 8 | port[1]);
}

TEST(CliTest, ParseIpv4Port)
{
	const struct {
		const char *label;
		const char *text;
		bool ok;
		const char *parsed = nullptr; // AddressText of the result when ok
	} cases[] = {
		{"loopback", "127.0.0.1:8080", true, "127.0.0.1:8080"},
		{"port 0", "127.0.0.1:0", true, "127.0.0.1:0"},
		{"largest values", "255.255.255.255:65535", true, "255.255.255.255:65535"},
		{"all zero", "0.0.0.0:1", true, "0.0.0.0:1"},
		{"byte order", "1.2.3.4:258", true, "1.2.3.4:258"},
		{"octet 256", "256.0.0.1:80", false},
		{"three parts", "1.2.3:80", false},
		{"five parts", "1.2.3.4.5:80", false},
		{"no address", ":80", false},
		{"no port", "127.0.0.1", false},
		{"empty port", "127.0.0.1:", false},
		{"port 65536", "127.0.0.1:65536", false},
		{"huge port", "127.0.0.1:99999999999", false},
		{"trailing junk", "127.0.0.1:80x", false},
		{"trailing space", "127.0.0.1:80 ", false},
		{"leading space", " 127.0.0.1:80", false},
		{"negative octet", "-1.0.0.1:80", false},
		{"empty octet", "1..3.4:80", false},
		{"host name", "localhost:80", false},
		{"empty string", "", false},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		struct k_sockaddr_in addr;
		memset(&addr, 0xa5, sizeof(addr));
		ASSERT_EQ(cli_parse_ipv4_port(c.text, &addr), c.ok ? 1 : 0);
		if (!c.ok)
			continue;
		EXPECT_EQ(AddressText(addr), c.parsed);
		EXPECT_EQ(addr.sin_family, K_AF_INET);
		for (uint8_t z : addr.sin_zero)
			EXPECT_EQ(z, 0);
	}
}

// Runs cli_parse on "apollod" then args into *opts (first filled with junk). Each word, NUL
// included, ends at a guard page: the parser must not read past a word's terminator, even
// when comparing it with a longer flag name. Returns cli_parse's result; when it is 0 and
// problem is given, *problem receives cli_format_problem's line (made while the words live).
int ParseGuarded(const std::vector<std::string> &args, unsigned accept, struct cli_options *opts,
		 std::string *problem = nullptr)
{
	std::vector<std::unique_ptr<GuardedBuffer>> words;
	words.push_back(std::make_unique<GuardedBuffer>(std::string("apollod", 8)));
	for (const std::string &arg : args)
		words.push_back(std::make_unique<GuardedBuffer>(arg + '\0'));
	std::vector<char *> argv;
	for (auto &w : words)
		argv.push_back(w->mutable_data());
	argv.push_back(nullptr);
	memset(opts, 0xa5, sizeof(*opts));
	int ok = cli_parse((int)words.size(), argv.data(), accept, opts);
	if (!ok && problem) {
		char out[CLI_LINE_MAX + 1];
		memset(out, '#', sizeof(out));
		size_t n = cli_format_problem(out, CLI_LINE_MAX, opts);
		EXPECT_EQ(out[n], '#') << "wrote past the returned length";
		problem->assign(out, n);
	}
	return ok;
}

TEST(CliTest, Parse)
{
	const unsigned full = CLI_ACCEPT_LISTEN | CLI_ACCEPT_IDLE_TIMEOUT;
	const struct {
		const char *label;
		std::vector<std::string> args; // after argv[0]
		unsigned accept;
		bool ok;
		const char *listen = nullptr; // the rest when ok
		uint32_t idle_s = 0;
		bool help = false;
	} cases[] = {
		{"no flags: defaults", {}, full, true, "127.0.0.1:8080", CLI_DEFAULT_IDLE_S, false},
		{"--listen X", {"--listen", "127.0.0.1:0"}, full, true, "127.0.0.1:0", 10, false},
		{"--listen=X", {"--listen=10.1.2.3:99"}, full, true, "10.1.2.3:99", 10, false},
		{"--idle-timeout 3", {"--idle-timeout", "3"}, full, true, "127.0.0.1:8080", 3, false},
		{"--idle-timeout=86400", {"--idle-timeout=86400"}, full, true, "127.0.0.1:8080",
		 86400, false},
		{"both flags", {"--idle-timeout", "1", "--listen", "127.0.0.1:1"}, full, true,
		 "127.0.0.1:1", 1, false},
		{"--help", {"--help"}, full, true, "127.0.0.1:8080", 10, true},
		{"--help among flags", {"--listen", "127.0.0.1:5", "--help"}, full, true,
		 "127.0.0.1:5", 10, true},
		{"--listen only: --listen", {"--listen", "127.0.0.1:0"}, CLI_ACCEPT_LISTEN, true,
		 "127.0.0.1:0", 10, false},
		{"--idle-timeout 0", {"--idle-timeout", "0"}, full, false},
		{"--idle-timeout over a day", {"--idle-timeout", "86401"}, full, false},
		{"--idle-timeout non-numeric", {"--idle-timeout", "ten"}, full, false},
		{"--idle-timeout trailing junk", {"--idle-timeout", "5s"}, full, false},
		{"--idle-timeout negative", {"--idle-timeout", "-5"}, full, false},
		{"--idle-timeout= empty", {"--idle-timeout="}, full, false},
		{"--listen bad address", {"--listen", "localhost:80"}, full, false},
		{"--listen missing value", {"--listen"}, full, false},
		{"--idle-timeout missing value", {"--idle-timeout"}, full, false},
		{"--listen= empty", {"--listen="}, full, false},
		{"unknown flag", {"--port", "80"}, full, false},
		{"flag with a suffix", {"--listener", "127.0.0.1:0"}, full, false},
		{"--help with a value", {"--help=yes"}, full, false},
		{"single dash", {"-h"}, full, false},
		{"positional word", {"127.0.0.1:80"}, full, false},
		{"empty word", {""}, full, false},
		{"--listen only: no --idle-timeout", {"--idle-timeout", "5"}, CLI_ACCEPT_LISTEN, false},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		struct cli_options opts;
		ASSERT_EQ(ParseGuarded(c.args, c.accept, &opts), c.ok ? 1 : 0);
		if (!c.ok)
			continue;
		EXPECT_EQ(AddressText(opts.listen[0].in), c.listen);
		EXPECT_EQ(opts.listen_count, 1u);
		EXPECT_EQ(opts.idle_timeout_s, c.idle_s);
		EXPECT_EQ(opts.help, c.help ? 1 : 0);
	}
}

// The timeouts and the table size (BEHAVIOUR 2): defaults, values, bounds, and which
// accept bits turn them on.
TEST(CliTest, DeadlineAndTableFlags)
{
	const unsigned full = CLI_ACCEPT_LISTEN | CLI_ACCEPT_IDLE_TIMEOUT |
			      CLI_ACCEPT_MAX_CONNECTIONS;
	const struct {
		const char *label;
		std::vector<std::string> args;
		unsigned accept;
		bool ok;
		uint32_t header_s = 0, send_s = 0, max_conn = 0; // when ok
	} cases[] = {
		{"defaults", {}, full, true, CLI_DEFAULT_HEADER_S, CLI_DEFAULT_SEND_S,
		 CLI_MAX_CONNECTIONS},
		{"default values", {}, full, true, 10, 60, 4096},
		{"--header-timeout 2", {"--header-timeout", "2"}, full, true, 2, 60, 4096},
		{"--send-timeout=86400", {"--send-timeout=86400"}, full, true, 10, 86400, 4096},
		{"--max-connections 1", {"--max-connections", "1"}, full, true, 10, 60, 1},
		{"all three, last wins", {"--max-connections", "9", "--header-timeout", "3",
					  "--send-timeout", "4", "--max-connections=8"},
		 full, true, 3, 4, 8},
		{"--header-timeout 0", {"--header-timeout", "0"}, full, false},
		{"--send-timeout over a day", {"--send-timeout", "86401"}, full, false},
		{"--max-connections 0", {"--max-connections", "0"}, full, false},
		{"--max-connections over the table", {"--max-connections", "4097"}, full, false},
		{"--max-connections missing value", {"--max-connections"}, full, false},
		{"--header-timeout junk", {"--header-timeout", "1s"}, full, false},
		{"--listen only: no --header-timeout", {"--header-timeout", "5"}, CLI_ACCEPT_LISTEN,
		 false},
		{"no --max-connections without its bit", {"--max-connections", "5"},
		 CLI_ACCEPT_LISTEN | CLI_ACCEPT_IDLE_TIMEOUT, false},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		struct cli_options opts;
		ASSERT_EQ(ParseGuarded(c.args, c.accept, &opts), c.ok ? 1 : 0);
		if (!c.ok)
			continue;
		EXPECT_EQ(opts.header_timeout_s, c.header_s);
		EXPECT_EQ(opts.send_timeout_s, c.send_s);
		EXPECT_EQ(opts.max_connections, c.max_conn);
		EXPECT_EQ(opts.idle_timeout_s, (uint32_t)CLI_DEFAULT_IDLE_S);
	}
}

// The --root flags and --access-log (BEHAVIOUR 2, 10.2, 14): --root and --access-log take
// a non-empty word, --dotfiles none, --max-files a number; each only with its accept bit.
TEST(CliTest, RootAndAccessLogFlags)
{
	const unsigned root = CLI_ACCEPT_ROOT;
	const unsigned both = CLI_ACCEPT_LISTEN | CLI_ACCEPT_ROOT | CLI_ACCEPT_ACCESS_LOG;
	const struct {
		const char *label;
		std::vector<std::string> args;
		unsigned accept;
		bool ok;
		const char *root = nullptr, *access_log = nullptr; // when ok
		uint8_t dotfiles = 0;
	} cases[] = {
		{"neither", {}, both, true},
		{"--root only", {"--root", "/srv"}, root, true, "/srv"},
		{"--root and --dotfiles", {"--root=/srv", "--dotfiles"}, root, true, "/srv", nullptr, 1},
		{"--dotfiles first", {"--dotfiles", "--root", "d"}, root, true, "d", nullptr, 1},
		{"--dotfiles with a value", {"--dotfiles=yes"}, root, false},
		{"--dotfiles prefix", {"--dotfile"}, root, false},
		{"--dotfiles longer", {"--dotfilesx"}, root, false},
		{"tier without --root", {"--dotfiles"}, CLI_ACCEPT_LISTEN, false},
		{"--max-files 0", {"--max-files", "0"}, root, false},
		{"--max-files over its bound", {"--max-files", "16777217"}, root, false},
		{"--max-files not a number", {"--max-files", "many"}, root, false},
		{"--max-files without --root's tier", {"--max-files", "5"}, CLI_ACCEPT_LISTEN, false},
		{"--access-log FILE", {"--access-log", "/var/log/a.log"}, both, true, nullptr,
		 "/var/log/a.log"},
		{"--access-log -", {"--access-log", "-"}, both, true, nullptr, "-"},
		{"--access-log=FILE and --root", {"--access-log=a.log", "--root", "/srv"}, both, true,
		 "/srv", "a.log"},
		{"last wins", {"--access-log", "a", "--access-log", "b"}, both, true, nullptr, "b"},
		{"--access-log empty", {"--access-log="}, both, false},
		{"--access-log missing value", {"--access-log"}, both, false},
		{"--root empty", {"--root", ""}, both, false},
		{"no --access-log without its bit", {"--access-log", "a"},
		 CLI_ACCEPT_LISTEN | CLI_ACCEPT_ROOT, false},
		{"--access-log with a suffix", {"--access-logs", "a"}, both, false},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		struct cli_options opts;
		ASSERT_EQ(ParseGuarded(c.args, c.accept, &opts), c.ok ? 1 : 0);
		if (!c.ok)
			continue;
		// The paths pointed into ParseGuarded's words, gone now: parse again over words
		// that live on.
		std::vector<std::string> words = {"apollod"};
		words.insert(words.end(), c.args.begin(), c.args.end());
		std::vector<char *> argv;
		for (std::string &w : words)
			argv.push_back(w.data());
		ASSERT_EQ(cli_parse((int)argv.size(), argv.data(), c.accept, &opts), 1);
		EXPECT_EQ(opts.root ? std::string(opts.root) : "<none>", c.root ? c.root : "<none>");
		EXPECT_EQ(opts.access_log ? std::string(opts.access_log) : "<none>",
			  c.access_log ? c.access_log : "<none>");
		EXPECT_EQ(opts.dotfiles, c.dotfiles);
		EXPECT_EQ(opts.max_files, CLI_DEFAULT_MAX_FILES);
	}
	struct cli_options opts;
	ASSERT_EQ(ParseGuarded({"--max-files", "16777216"}, root, &opts), 1);
	EXPECT_EQ(opts.max_files, CLI_MAX_FILES_MAX);
	ASSERT_EQ(ParseGuarded({"--max-files=1"}, root, &opts), 1);
	EXPECT_EQ(opts.max_files, 1u);
}

// --cache-bytes (BEHAVIOUR 2, 10.18): bytes 0..2^40, digits with at most one K/M/G/T
// suffix (either case, binary multiples), default 256 MiB; only with --root's bit.
TEST(CliTest, CacheBytes)
{
	const unsigned root = CLI_ACCEPT_ROOT;
	const struct {
		const char *label;
		std::vector<std::string> args;
		bool ok;
		uint64_t bytes; // when ok
	} cases[] = {
		{"the default", {}, true, 256ull << 20},
		{"zero: every file from disk", {"--cache-bytes", "0"}, true, 0},
		{"plain bytes", {"--cache-bytes=1000"}, true, 1000},
		{"K", {"--cache-bytes", "4K"}, true, 4096},
		{"lower-case m", {"--cache-bytes", "3m"}, true, 3ull << 20},
		{"G", {"--cache-bytes", "2G"}, true, 2ull << 30},
		{"1T is the bound", {"--cache-bytes", "1T"}, true, 1ull << 40},
		{"the bound in bytes", {"--cache-bytes", "1099511627776"}, true, 1ull << 40},
		{"one byte over", {"--cache-bytes", "1099511627777"}, false, 0},
		{"2T over", {"--cache-bytes", "2T"}, false, 0},
		{"1025G over", {"--cache-bytes", "1025G"}, false, 0},
		{"20 digits over", {"--cache-bytes", "99999999999999999999"}, false, 0},
		{"two suffixes", {"--cache-bytes", "1KK"}, false, 0},
		{"KiB is no suffix", {"--cache-bytes", "1KiB"}, false, 0},
		{"a suffix alone", {"--cache-bytes", "M"}, false, 0},
		{"a sign", {"--cache-bytes", "-1"}, false, 0},
		{"empty", {"--cache-bytes="}, false, 0},
		{"missing", {"--cache-bytes"}, false, 0},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		struct cli_options opts;
		ASSERT_EQ(ParseGuarded(c.args, root, &opts), c.ok ? 1 : 0);
		if (c.ok)
			EXPECT_EQ(opts.cache_bytes, c.bytes);
	}
	struct cli_options opts;
	EXPECT_EQ(ParseGuarded({"--cache-bytes", "1"}, CLI_ACCEPT_LISTEN, &opts), 0)
		<< "a tier without --root has no --cache-bytes";
}

// --header is repeatable, kept in order and unchecked (extra_fields.h checks the words);
// a missing value, one word too many, or a tier without it is a usage error.
TEST(CliTest, HeaderRepeats)
{
	struct cli_options opts;
	ASSERT_EQ(ParseGuarded({"--header", "A: 1", "--header=B: 2"}, CLI_ACCEPT_HEADER, &opts), 1);
	EXPECT_EQ(opts.header_count, 2u);
	ASSERT_EQ(ParseGuarded({}, CLI_ACCEPT_HEADER, &opts), 1);
	EXPECT_EQ(opts.header_count, 0u);
	EXPECT_EQ(ParseGuarded({"--header"}, CLI_ACCEPT_HEADER, &opts), 0);
	EXPECT_EQ(ParseGuarded({"--header", "A: 1"}, CLI_ACCEPT_LISTEN, &opts), 0);
	std::vector<std::string> many;
	for (int i = 0; i <= CLI_HEADERS_MAX; i++)
		many.insert(many.end(), {"--header", "X: " + std::to_string(i)});
	EXPECT_EQ(ParseGuarded(many, CLI_ACCEPT_HEADER, &opts), 0);
	many.resize(many.size() - 2);
	ASSERT_EQ(ParseGuarded(many, CLI_ACCEPT_HEADER, &opts), 1);
	EXPECT_EQ(opts.header_count, static_cast<uint32_t>(CLI_HEADERS_MAX));
}

// --error-page takes 404=/NAME only, --fallback /NAME (BEHAVIOUR 10.12); --header-for
// takes two words, repeatable and kept in order (BEHAVIOUR 10.13); all need CLI_ACCEPT_ROOT.
TEST(CliTest, SitePagesAndHeaderFor)
{
	struct cli_options opts;
	const unsigned root = CLI_ACCEPT_ROOT;
	// Words that outlive the parse, to read the kept pointers (ParseGuarded frees its own).
	char w0[] = "apollod", w1[] = "--error-page", w2[] = "404=/e/404.html",
	     w3[] = "--fallback=/index.html", w4[] = "--header-for", w5[] = "/a/", w6[] = "A: 1",
	     w7[] = "--header-for=*.zip", w8[] = "B: 2";
	char *argv[] = {w0, w1, w2, w3, w4, w5, w6, w7, w8, nullptr};
	ASSERT_EQ(cli_parse(9, argv, root, &opts), 1);
	EXPECT_STREQ(opts.error_page[ERROR_PAGE_404], "/e/404.html");
	for (unsigned id = 0; id < ERROR_PAGE_COUNT; id++)
		if (id != ERROR_PAGE_404) {
			EXPECT_EQ(opts.error_page[id], nullptr);
		}
	EXPECT_STREQ(opts.fallback, "/index.html");
	ASSERT_EQ(opts.header_for_count, 2u);
	EXPECT_STREQ(opts.header_for_pattern[0], "/a/");
	EXPECT_STREQ(opts.header_for_field[0], "A: 1");
	EXPECT_STREQ(opts.header_for_pattern[1], "*.zip");
	EXPECT_STREQ(opts.header_for_field[1], "B: 2");
	ASSERT_EQ(ParseGuarded({}, root, &opts), 1);
	EXPECT_EQ(opts.error_page[ERROR_PAGE_404], nullptr);
	// Every status of FOR_EACH_ERROR_STATUS, each in its own entry; a code again: the last.
	std::vector<std::string> words = {"apollod", "--error-page", "400=/400.html",
					  "--error-page=403=/403.html", "--error-page",
					  "405=/405.html", "--error-page", "408=/408.html",
					  "--error-page", "410=/410.html", "--error-page",
					  "414=/414.html", "--error-page", "416=/416.html",
					  "--error-page", "503=/503.html", "--error-page",
					  "404=/first.html", "--error-page", "404=/404.html"};
	std::vector<char *> kept;
	for (std::string &w : words)
		kept.push_back(&w[0]);
	kept.push_back(nullptr);
	ASSERT_EQ(cli_parse((int)words.size(), kept.data(), root, &opts), 1);
	const char *const codes[ERROR_PAGE_COUNT] = {"400", "403", "404", "405", "408",
						     "410", "414", "416", "503"};
	for (unsigned id = 0; id < ERROR_PAGE_COUNT; id++) {
		ASSERT_NE(opts.error_page[id], nullptr) << codes[id];
		EXPECT_EQ(std::string(opts.error_page[id]), "/" + std::string(codes[id]) + ".html");
	}
	EXPECT_EQ(opts.fallback, nullptr);
	const std::vector<std::vector<std::string>> refused = {
		{"--error-page", "500=/500.html"}, {"--error-page", "401=/x"},
		{"--error-page", "4040=/x"},       {"--error-page", "40=/x"},
		{"--error-page", "404:/x"},        {"--error-page", "=/x"},
		{"--error-page", "404=404.html"},  {"--error-page", "404=/"},
		{"--error-page", "404"},           {"--error-page", "/404.html"},
		{"--fallback", "index.html"},      {"--fallback", "/"},
		{"--fallback="},                   {"--error-page"},
		{"--header-for", "/a/"},           {"--header-for"},
	};
	for (const auto &words : refused) {
		SCOPED_TRACE(words[0] + " " + (words.size() > 1 ? words[1] : ""));
		EXPECT_EQ(ParseGuarded(words, root, &opts), 0);
	}
	EXPECT_EQ(ParseGuarded({"--fallback", "/index.html"}, CLI_ACCEPT_LISTEN, &opts), 0);
	std::vector<std::string> many;
	for (int i = 0; i <= CLI_HEADER_FOR_MAX; i++)
		many.insert(many.end(), {"--header-for", "/", "X: " + std::to_string(i)});
	EXPECT_EQ(ParseGuarded(many, root, &opts), 0);
	many.resize(many.size() - 3);
	ASSERT_EQ(ParseGuarded(many, root, &opts), 1);
	EXPECT_EQ(opts.header_for_count, static_cast<uint32_t>(CLI_HEADER_FOR_MAX));
}

TEST(CliTest, FormatAnnounce)
{
	const struct {
		const char *label;
		const char *name;
		const char *addr;
		const char *line;
	} cases[] = {
		{"full tier", "apollod", "127.0.0.1:43210", "apollod listening on 127.0.0.1:43210\n"},
		{"default port", "apollod", "127.0.0.1:8080", "apollod listening on 127.0.0.1:8080\n"},
		{"zeros", "apollod", "0.0.0.0:0", "apollod listening on 0.0.0.0:0\n"},
		{"widest", "apollod", "255.255.255.255:65535",
		 "apollod listening on 255.255.255.255:65535\n"},
		{"IPv6 loopback", "apollod", "[::1]:8080", "apollod listening on [::1]:8080\n"},
		{"widest IPv6", "apollod", "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535",
		 "apollod listening on [ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535\n"},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		union k_sockaddr addr;
		ASSERT_EQ(cli_parse_addr_port(c.addr, &addr), 1);
		char out[CLI_ANNOUNCE_MAX + 1];
		memset(out, '#', sizeof(out));
		size_t n = cli_format_announce(out, c.name, strlen(c.name), &addr);
		ASSERT_LE(n, (size_t)CLI_ANNOUNCE_MAX);
		EXPECT_EQ(std::string(out, n), c.line);
		EXPECT_EQ(out[n], '#') << "wrote past the returned length";
	}
}

// --listen's IPv6 form (BEHAVIOUR 13.4): what parses, and the RFC 5952 text it is
// announced with, checked against the host's inet_pton and inet_ntop.
TEST(CliTest, ParseAndFormatIpv6)
{
	const struct {
		const char *text;
		const char *shown; // nullptr: a syntax error
	} cases[] = {
		{"[::1]:8080", "[::1]:8080"},
		{"[::]:0", "[::]:0"},
		{"[0:0:0:0:0:0:0:1]:1", "[::1]:1"},
		{"[2001:DB8::1]:80", "[2001:db8::1]:80"},
		{"[2001:db8:0:0:1:0:0:1]:80", "[2001:db8::1:0:0:1]:80"},
		{"[2001:0db8:0000:0000:0000:0000:0002:0001]:80", "[2001:db8::2:1]:80"},
		{"[1:0:0:2:0:0:0:3]:9", "[1:0:0:2::3]:9"},
		{"[1::]:9", "[1::]:9"},
		{"[1:2:3:4:5:6:7::]:9", "[1:2:3:4:5:6:7:0]:9"},
		{"[1:0:2:3:4:5:6:7]:9", "[1:0:2:3:4:5:6:7]:9"},
		{"[fe80::]:65535", "[fe80::]:65535"},
		{"[::1]", nullptr},
		{"::1:80", nullptr},
		{"[::1]80", nullptr},
		{"[::1]:", nullptr},
		{"[::1]:65536", nullptr},
		{"[::1]:80x", nullptr},
		{"[]:80", nullptr},
		{"[:]:80", nullptr},
		{"[:::]:80", nullptr},
		{"[1::2::3]:80", nullptr},
		{"[1:2:3:4:5:6:7:8:9]:80", nullptr},
		{"[1:2:3:4:5:6:7]:80", nullptr},
		{"[1:2:3:4::5:6:7:8]:80", nullptr},
		{"[12345::]:80", nullptr},
		{"[1:]:80", nullptr},
		{"[:1::]:80", nullptr},
		{"[::ffff:1.2.3.4]:80", nullptr},
		{"[fe80::1%eth0]:80", nullptr},
		{"[g::]:80", nullptr},
		{"[::1:80", nullptr},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.text);
		union k_sockaddr addr;
		memset(&addr, 0xa5, sizeof(addr));
		ASSERT_EQ(cli_parse_addr_port(c.text, &addr), c.shown ? 1 : 0);
		if (!c.shown)
			continue;
		EXPECT_EQ(addr.family, K_AF_INET6);
		EXPECT_EQ(addr.in6.sin6_flowinfo, 0u);
		EXPECT_EQ(addr.in6.sin6_scope_id, 0u);
		// The address bytes are what the host's parser makes of the same text.
		std::string inner(c.text + 1, strchr(c.text, ']') - c.text - 1);
		struct in6_addr host;
		ASSERT_EQ(inet_pton(AF_INET6, inner.c_str(), &host), 1);
		EXPECT_EQ(memcmp(addr.in6.sin6_addr, &host, 16), 0);
		char out[CLI_ADDR_MAX + 1];
		memset(out, '#', sizeof(out));
		size_t n = cli_format_addr(out, &addr);
		ASSERT_LE(n, (size_t)CLI_ADDR_MAX);
		EXPECT_EQ(std::string(out, n), c.shown);
		EXPECT_EQ(out[n], '#');
		char host_text[INET6_ADDRSTRLEN];
		ASSERT_NE(inet_ntop(AF_INET6, &host, host_text, sizeof(host_text)), nullptr);
		std::string shown(out, n);
		EXPECT_EQ(shown.substr(1, shown.rfind(']') - 1), host_text)
			<< "RFC 5952 text as glibc writes it";
	}
}

// --listen may be given up to CLI_LISTEN_MAX times with CLI_ACCEPT_LISTEN_MANY, once
// without; the first replaces the default.
TEST(CliTest, RepeatedListen)
{
	const unsigned many = CLI_ACCEPT_LISTEN | CLI_ACCEPT_LISTEN_MANY;
	struct cli_options opts;
	ASSERT_EQ(ParseGuarded({"--listen", "127.0.0.1:1", "--listen=[::1]:2"}, many, &opts), 1);
	ASSERT_EQ(opts.listen_count, 2u);
	char out[CLI_ADDR_MAX];
	EXPECT_EQ(std::string(out, cli_format_addr(out, &opts.listen[0])), "127.0.0.1:1");
	EXPECT_EQ(std::string(out, cli_format_addr(out, &opts.listen[1])), "[::1]:2");
	std::vector<std::string> most;
	for (int i = 0; i < CLI_LISTEN_MAX; i++)
		most.insert(most.end(), {"--listen", "127.0.0.1:" + std::to_string(i + 1)});
	ASSERT_EQ(ParseGuarded(most, many, &opts), 1);
	EXPECT_EQ(opts.listen_count, (uint32_t)CLI_LISTEN_MAX);
	most.insert(most.end(), {"--listen", "127.0.0.1:99"});
	std::string problem;
	ASSERT_EQ(ParseGuarded(most, many, &opts, &problem), 0);
	EXPECT_EQ(problem, "apollod: --listen: given more than 8 times: the limit is 8\n");
	ASSERT_EQ(ParseGuarded({"--listen", "127.0.0.1:1", "--listen", "127.0.0.1:2"},
			       CLI_ACCEPT_LISTEN, &opts, &problem),
		  0);
	EXPECT_EQ(problem, "apollod: --listen: given more than 1 time: the limit is 1\n");
}

// The line naming the word at fault (BEHAVIOUR 3), from the problem cli_parse leaves.
TEST(CliTest, FormatProblem)
{
	const unsigned full = CLI_ACCEPT_LISTEN | CLI_ACCEPT_IDLE_TIMEOUT | CLI_ACCEPT_WORKERS;
	const struct {
		const char *label;
		std::vector<std::string> args;
		unsigned accept;
		std::string line;
	} cases[] = {
		{"unknown flag", {"--port", "80"}, full, "apollod: unknown flag '--port'\n"},
		{"positional word", {"127.0.0.1:80"}, full, "apollod: unknown flag '127.0.0.1:80'\n"},
		{"empty word", {""}, full, "apollod: unknown flag ''\n"},
		{"flag this tier lacks", {"--workers", "2"}, CLI_ACCEPT_LISTEN,
		 "apollod: unknown flag '--workers'\n"},
		{"missing value", {"--listen"}, full, "apollod: --listen needs a value\n"},
		{"bad value", {"--idle-timeout", "ten"}, full,
		 "apollod: --idle-timeout: bad value 'ten'\n"},
		{"bad value after =", {"--workers=0"}, full, "apollod: --workers: bad value '0'\n"},
		{"empty value", {"--listen="}, full, "apollod: --listen: bad value ''\n"},
		{"the first of two", {"--bogus", "--listen"}, full,
		 "apollod: unknown flag '--bogus'\n"},
		{"word at the limit", {std::string(CLI_WORD_SHOWN, 'w')}, full,
		 "apollod: unknown flag '" + std::string(CLI_WORD_SHOWN, 'w') + "'\n"},
		{"longer word cut", {std::string(CLI_WORD_SHOWN + 1, 'w')}, full,
		 "apollod: unknown flag '" + std::string(CLI_WORD_SHOWN, 'w') + "...'\n"},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		struct cli_options opts;
		std::string line;
		ASSERT_EQ(ParseGuarded(c.args, c.accept, &opts, &line), 0);
		EXPECT_EQ(line, c.line);
	}
}

// The usage line and --help rows come from one table: each flag accept turns on appears
// once in each, in the same order, and every row with a value shows the default that
// cli_parse starts from.
TEST(CliTest, UsageAndHelpRows)
{
	const unsigned every = ~0u;
	char usage[CLI_USAGE_MAX];
	std::string line(usage, cli_format_usage(usage, sizeof(usage), "apollod", every));
	ASSERT_EQ(line.back(), '\n') << "the usage line did not fit CLI_USAGE_MAX: " << line;
	std::string rows;
	for (unsigned i = 0; i < cli_flag_rows(); i++) {
		char row[CLI_LINE_MAX];
		size_t n = cli_format_help_row(row, sizeof(row), i, every);
		ASSERT_GT(n, 0u);
		ASSERT_EQ(row[n - 1], '\n') << "row " << i << " did not fit CLI_LINE_MAX";
		rows.append(row, n);
	}
	char past[CLI_LINE_MAX];
	EXPECT_EQ(cli_format_help_row(past, sizeof(past), cli_flag_rows(), every), 0u);
	const struct {
		const char *usage_part;
		std::string row_end; // how its --help row ends
	} expected[] = {
		{"[--listen ADDR:PORT]", "(default 127.0.0.1:8080)\n"},
		{"[--idle-timeout SECONDS]", "(default " + std::to_string(CLI_DEFAULT_IDLE_S) + ")\n"},
		{"[--max-connections N]",
		 "(default " + std::to_string(CLI_MAX_CONNECTIONS) + ")\n"},
		{"[--workers N|auto]", "(default " + std::to_string(CLI_DEFAULT_WORKERS) + ")\n"},
		{"[--drain-timeout SECONDS]",
		 "(default " + std::to_string(CLI_DEFAULT_DRAIN_S) + ")\n"},
		{"[--help]", "print this help and exit\n"},
		{"[--version]", "print the version and tier and exit\n"},
	};
	size_t usage_at = 0, row_at = 0;
	for (const auto &e : expected) {
		SCOPED_TRACE(e.usage_part);
		size_t u = line.find(e.usage_part);
		ASSERT_NE(u, std::string::npos) << line;
		EXPECT_GE(u, usage_at) << "usage order";
		usage_at = u;
		std::string flag = std::string(e.usage_part + 1, strcspn(e.usage_part + 1, " ]"));
		size_t r = rows.find("  " + flag + " ");
		ASSERT_NE(r, std::string::npos) << rows;
		EXPECT_GE(r, row_at) << "row order";
		row_at = r;
		std::string row = rows.substr(r, rows.find('\n', r) + 1 - r);
		ASSERT_GE(row.size(), e.row_end.size());
		EXPECT_EQ(row.substr(row.size() - e.row_end.size()), e.row_end) << row;
	}
	// A tier that takes --listen only: only --listen, --help and --version.
	std::string listen_only(usage, cli_format_usage(usage, sizeof(usage), "apollod",
							 CLI_ACCEPT_LISTEN));
	EXPECT_EQ(listen_only, "usage: apollod [--listen ADDR:PORT] [--help] [--version]\n");
	char row[CLI_LINE_MAX];
	EXPECT_EQ(cli_format_help_row(row, sizeof(row), 1, CLI_ACCEPT_LISTEN), 0u)
		<< "row 1 (--idle-timeout) is not such a tier's";
}

// A buffer too small is filled, never overrun.
TEST(CliTest, FormattersStopAtTheBuffer)
{
	char out[16 + 1];
	memset(out, '#', sizeof(out));
	size_t n = cli_format_usage(out, 16, "apollod", ~0u);
	EXPECT_EQ(n, 16u);
	EXPECT_EQ(std::string(out, n), "usage: apollod [");
	EXPECT_EQ(out[16], '#');
}

} // namespace
