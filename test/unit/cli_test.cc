// The command line (common/cli.h): address parsing, flags, and the start-up line.

// common/ headers first (kept from when kernel_consts.h named a field sa_handler, which glibc's
// <signal.h> (reached through GoogleTest) defines as a macro.
#include "common/cli.h"
#include "common/kernel_consts.h"
#include "test/unit/guarded_buffer.h"

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
// when comparing it with a longer flag name. Returns cli_parse's result.
int ParseGuarded(const std::vector<std::string> &args, unsigned accept, struct cli_options *opts)
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
	return cli_parse((int)words.size(), argv.data(), accept, opts);
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
		{"min: --listen", {"--listen", "127.0.0.1:0"}, CLI_ACCEPT_LISTEN, true,
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
		{"min: no --idle-timeout", {"--idle-timeout", "5"}, CLI_ACCEPT_LISTEN, false},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		struct cli_options opts;
		ASSERT_EQ(ParseGuarded(c.args, c.accept, &opts), c.ok ? 1 : 0);
		if (!c.ok)
			continue;
		EXPECT_EQ(AddressText(opts.listen), c.listen);
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
		{"min: no --header-timeout", {"--header-timeout", "5"}, CLI_ACCEPT_LISTEN, false},
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

// --root and --dotfiles (BEHAVIOUR 2, 10.2): --dotfiles is a word without a value, and
// only a tier that takes --root knows it.
TEST(CliTest, RootAndDotfiles)
{
	const struct {
		const char *label;
		std::vector<std::string> args;
		unsigned accept;
		bool ok;
		const char *root = nullptr; // when ok
		uint8_t dotfiles = 0;
	} cases[] = {
		{"neither", {}, CLI_ACCEPT_ROOT, true, nullptr, 0},
		{"--root only", {"--root", "/srv"}, CLI_ACCEPT_ROOT, true, "/srv", 0},
		{"--root and --dotfiles", {"--root=/srv", "--dotfiles"}, CLI_ACCEPT_ROOT, true, "/srv",
		 1},
		{"--dotfiles first", {"--dotfiles", "--root", "d"}, CLI_ACCEPT_ROOT, true, "d", 1},
		{"--dotfiles with a value", {"--dotfiles=yes"}, CLI_ACCEPT_ROOT, false},
		{"--dotfiles prefix", {"--dotfile"}, CLI_ACCEPT_ROOT, false},
		{"--dotfiles longer", {"--dotfilesx"}, CLI_ACCEPT_ROOT, false},
		{"tier without --root", {"--dotfiles"}, CLI_ACCEPT_LISTEN, false},
		{"--max-files 0", {"--max-files", "0"}, CLI_ACCEPT_ROOT, false},
		{"--max-files over its bound", {"--max-files", "16777217"}, CLI_ACCEPT_ROOT, false},
		{"--max-files not a number", {"--max-files", "many"}, CLI_ACCEPT_ROOT, false},
		{"--max-files without --root's tier", {"--max-files", "5"}, CLI_ACCEPT_LISTEN, false},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		struct cli_options opts;
		ASSERT_EQ(ParseGuarded(c.args, c.accept, &opts), c.ok ? 1 : 0);
		if (!c.ok)
			continue;
		// opts.root pointed into ParseGuarded's words, gone now: parse again over words
		// that live on.
		std::vector<std::string> words = {"apollod"};
		words.insert(words.end(), c.args.begin(), c.args.end());
		std::vector<char *> argv;
		for (std::string &w : words)
			argv.push_back(&w[0]);
		ASSERT_EQ(cli_parse((int)argv.size(), argv.data(), c.accept, &opts), 1);
		if (c.root)
			EXPECT_STREQ(opts.root, c.root);
		else
			EXPECT_EQ(opts.root, nullptr);
		EXPECT_EQ(opts.dotfiles, c.dotfiles);
		EXPECT_EQ(opts.max_files, CLI_DEFAULT_MAX_FILES);
	}
	struct cli_options opts;
	ASSERT_EQ(ParseGuarded({"--max-files", "16777216"}, CLI_ACCEPT_ROOT, &opts), 1);
	EXPECT_EQ(opts.max_files, CLI_MAX_FILES_MAX);
	ASSERT_EQ(ParseGuarded({"--max-files=1"}, CLI_ACCEPT_ROOT, &opts), 1);
	EXPECT_EQ(opts.max_files, 1u);
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

TEST(CliTest, FormatAnnounce)
{
	const struct {
		const char *label;
		const char *name;
		const char *addr;
		const char *line;
	} cases[] = {
		{"full tier", "apollod", "127.0.0.1:43210", "apollod listening on 127.0.0.1:43210\n"},
		{"min tier", "apollod-min", "127.0.0.1:8080", "apollod-min listening on 127.0.0.1:8080\n"},
		{"zeros", "apollod", "0.0.0.0:0", "apollod listening on 0.0.0.0:0\n"},
		{"widest", "apollod", "255.255.255.255:65535",
		 "apollod listening on 255.255.255.255:65535\n"},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.label);
		struct k_sockaddr_in addr;
		ASSERT_EQ(cli_parse_ipv4_port(c.addr, &addr), 1);
		char out[CLI_ANNOUNCE_MAX + 1];
		memset(out, '#', sizeof(out));
		size_t n = cli_format_announce(out, c.name, strlen(c.name), &addr);
		ASSERT_LE(n, (size_t)CLI_ANNOUNCE_MAX);
		EXPECT_EQ(std::string(out, n), c.line);
		EXPECT_EQ(out[n], '#') << "wrote past the returned length";
	}
}

} // namespace
