/* Command-line parsing and the start-up line's text, shared by every tier. Pure: no
 * syscalls (listener.h writes what these produce). */
#ifndef APOLLOD_COMMON_CLI_H
#define APOLLOD_COMMON_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/error_statuses.h"
#include "common/base/limits.h"
#include "common/base/kernel_consts.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define CLI_DEFAULT_ADDR 0x7f000001u /* 127.0.0.1, host byte order */
#define CLI_DEFAULT_PORT 8080
#define CLI_DEFAULT_IDLE_S 10
#define CLI_DEFAULT_HEADER_S 10   /* BEHAVIOUR 5: a head has this long from its first byte */
#define CLI_DEFAULT_SEND_S 60     /* BEHAVIOUR 5: a response may stall this long */
#define CLI_IDLE_MAX_S 86400      /* a day, for every timeout: longer is surely a typo */
#define CLI_MAX_CONNECTIONS CONN_SLOTS /* the default and the largest table */
#define CLI_DEFAULT_DRAIN_S 10
#define CLI_DEFAULT_WORKERS 1
#define CLI_WORKERS_MAX WORKERS_MAX /* serving processes */
#define CLI_WORKERS_AUTO 0        /* --workers auto: one per CPU this process may run on */
#define CLI_DEFAULT_MAX_FILES (1u << 20) /* --root: files and directories loaded at most */
#define CLI_MAX_FILES_MAX (1u << 24)     /* --max-files: 16 Mi entries, 768 MiB of table */
/* --cache-bytes: the snapshot's budget (site.h's SITE_BUDGET_DEFAULT and _MAX,
 * checked equal in daemon_main.c; BEHAVIOUR 10.18 says why 256 MiB). */
#define CLI_DEFAULT_CACHE_BYTES (256ull << 20)
#define CLI_CACHE_BYTES_MAX (1ull << 40)
/* --compress gzip|off and --compress-level (compress.h's COMPRESS_LEVEL_DEFAULT and
 * _MAX, checked equal in daemon_main.c; benchmarks/reports/2026-12-06-compress-handover.md). */
#define CLI_LOG_FORMATS 3 /* --access-log-format's words: common, combined, json */
#define CLI_COMPRESS_GZIP_WORD "gzip"
#define CLI_COMPRESS_OFF_WORD "off"
#define CLI_DEFAULT_COMPRESS_LEVEL 7
#define CLI_COMPRESS_LEVEL_MAX 12
#define CLI_HEADERS_MAX EXTRA_FIELDS_MAX /* --header given at most this often */
#define CLI_HEADER_FOR_MAX PATH_FIELDS_MAX /* --header-for given at most this often */

#define CLI_LISTEN_MAX LISTENERS_MAX /* --listen addresses */
#define CLI_SITES_MAX SITES_NAMED_MAX /* --site given at most this often */
#define CLI_SITE_WORD "site" /* a --config file's section line: "site HOST DIR" */
#define CLI_SITE_HOST_MAX SITES_HOST_MAX /* a --site name's bytes */

/* A --site HOST=DIR (BEHAVIOUR 10.21), and what its section of a --config file says: the
 * settings a site has of its own. */
struct cli_site {
	const char *host;           /* "name" or "*.suffix", host_len bytes (no NUL after) */
	const char *root;           /* DIR */
	uint32_t host_len;
	uint32_t header_for_count;  /* its header-for lines, in order: */
	const char *error_page[ERROR_PAGE_COUNT]; /* its error-page lines, by code, or NULL */
	const char *fallback;       /* its fallback line, or NULL */
	const char *redirects;      /* its redirects line, or NULL */
	const char *headers_file;   /* its headers line, or NULL */
	const char *header_for_pattern[CLI_HEADER_FOR_MAX];
	const char *header_for_field[CLI_HEADER_FOR_MAX];
	uint64_t cache_bytes;       /* its cache-bytes line (0..CLI_CACHE_BYTES_MAX: its own
				     * budget), or CLI_SITE_CACHE_SHARED: none, a share of
				     * --cache-bytes with the other sites that have none */
	uint8_t dotfiles;           /* its dotfiles line: names starting with '.' served here
				     * (so are they when --dotfiles is given for all) */
	uint8_t listing;            /* its listing line: directories listed here (so are they
				     * when --listing is given for all) */
};
#define CLI_SITE_CACHE_SHARED UINT64_MAX
STATIC_ASSERT(CLI_CACHE_BYTES_MAX < CLI_SITE_CACHE_SHARED, "no budget reads as a share");

/* What the command line asked for. */
struct cli_options {
	/* --listen, in command-line order: family, port and address in network byte order;
	 * the default address alone when no --listen was given. */
	union k_sockaddr listen[CLI_LISTEN_MAX];
	uint32_t listen_count;       /* 1..CLI_LISTEN_MAX */
	uint32_t idle_timeout_s;     /* 1..CLI_IDLE_MAX_S */
	uint32_t header_timeout_s;   /* 1..CLI_IDLE_MAX_S */
	uint32_t send_timeout_s;     /* 1..CLI_IDLE_MAX_S */
	uint32_t max_connections;    /* 1..CLI_MAX_CONNECTIONS */
	uint32_t drain_timeout_s;    /* 1..CLI_IDLE_MAX_S: graceful stop's bound */
	uint32_t workers;            /* 1..CLI_WORKERS_MAX, or CLI_WORKERS_AUTO */
	uint8_t help;                /* --help was given */
	uint8_t version;             /* --version was given */
	const char *root;            /* --root DIR, or NULL */
	uint8_t dotfiles;            /* --dotfiles: --root serves names starting with '.' */
	uint8_t watch;               /* --watch: a change under --root reloads (watch.h) */
	uint32_t max_files;          /* --max-files: 1..CLI_MAX_FILES_MAX */
	uint64_t cache_bytes;        /* --cache-bytes: 0..CLI_CACHE_BYTES_MAX */
	uint8_t compress;            /* --compress: 1 gzip (the default), 0 off */
	uint32_t compress_level;     /* --compress-level: 1..CLI_COMPRESS_LEVEL_MAX */
	uint8_t listing;             /* --listing: --root lists a directory without index.html */
	const char *mime_types;      /* --mime-types FILE, or NULL */
	const char *access_log;      /* --access-log PATH or "-", or NULL (off) */
	uint8_t access_log_format;   /* --access-log-format: 0 common, 1 combined, 2 json (enum
				      * access_log_format, access_log_line.h) */
	/* After cli_parse returned 0: what was wrong (cli_format_problem says it). */
	uint8_t problem;             /* CLI_PROBLEM_* */
	const char *problem_word;    /* the word at fault (argv[i]) */
	const char *problem_flag;    /* the flag it is the value of, or NULL */
	uint32_t problem_limit;      /* CLI_PROBLEM_TOO_MANY: how often the flag may come */
	uint32_t header_count;       /* --header words in headers[], in order */
	const char *headers[CLI_HEADERS_MAX]; /* unchecked here: extra_fields.h checks them */
	const char *error_page[ERROR_PAGE_COUNT]; /* --error-page CODE=/NAME: the "/NAME" of
				      * each code (enum error_page_id), or NULL */
	const char *fallback;        /* --fallback /NAME, or NULL */
	const char *redirects;       /* --redirects FILE (_redirects format), or NULL */
	const char *headers_file;    /* --headers FILE (_headers format), or NULL */
	uint32_t header_for_count;   /* --header-for given, in order: */
	const char *header_for_pattern[CLI_HEADER_FOR_MAX]; /* unchecked here: path_fields.h */
	const char *header_for_field[CLI_HEADER_FOR_MAX];   /* checks them */
	const char *user;            /* --user USER[:GROUP], or NULL (sandbox.h resolves it) */
	uint8_t no_sandbox;          /* --no-sandbox: no seccomp filter, no Landlock */
	const char *config;          /* --config FILE, or NULL (config_file.h reads it) */
	uint8_t check_config;        /* --check-config: validate, say so, exit */
	uint8_t admin;               /* --admin-listen given: listen[listen_count - 1] is it */
	union k_sockaddr admin_listen; /* --admin-listen's address as given */
	uint32_t site_count;         /* --site given, in order: */
	struct cli_site site[CLI_SITES_MAX];
};

/* Why cli_parse refused the command line. */
#define CLI_PROBLEM_UNKNOWN 1 /* problem_word is no flag this tier has */
#define CLI_PROBLEM_MISSING 2 /* problem_flag is the last word: its value is missing */
#define CLI_PROBLEM_VALUE 3   /* problem_word is no valid value for problem_flag */
#define CLI_PROBLEM_TOO_MANY 4 /* problem_flag given more often than the tier serves */
/* Only from cli_parse_setting (a line of a --config file): */
#define CLI_PROBLEM_NOT_SETTING 5 /* problem_flag exists on the command line only */
#define CLI_PROBLEM_NO_VALUE 6    /* problem_flag takes no value, problem_word is one */
#define CLI_PROBLEM_NOT_SITE 7    /* problem_flag is no site's setting (cli_parse_site_setting) */

/* Which flags a tier accepts. */
#define CLI_ACCEPT_LISTEN 0x1
#define CLI_ACCEPT_IDLE_TIMEOUT 0x2 /* and --header-timeout, --send-timeout */
#define CLI_ACCEPT_ROOT 0x4
#define CLI_ACCEPT_MAX_CONNECTIONS 0x8
#define CLI_ACCEPT_WORKERS 0x10       /* --workers */
#define CLI_ACCEPT_DRAIN_TIMEOUT 0x20 /* --drain-timeout */
#define CLI_ACCEPT_LISTEN_MANY 0x40   /* --listen up to CLI_LISTEN_MAX times, not once */
#define CLI_ACCEPT_ACCESS_LOG 0x80    /* --access-log */
#define CLI_ACCEPT_HEADER 0x100       /* --header 'Name: value', repeatable */
#define CLI_ACCEPT_SANDBOX 0x200      /* --user, --no-sandbox */
#define CLI_ACCEPT_CONFIG 0x400       /* --config FILE, --check-config */
/* --site HOST=DIR comes with CLI_ACCEPT_ROOT. --help and --version exist in every tier. */

/* Parses "a.b.c.d:port" (dotted quad, each part 0-255, port 0-65535, no spaces) into
 * addr. Returns 1 on success, 0 on any syntax error (addr is then unspecified). */
int cli_parse_ipv4_port(const char *s, struct k_sockaddr_in *addr);

/* Parses "a.b.c.d:port" as above or "[IPv6]:port" into addr: the IPv6 address in the
 * text form of RFC 4291 2.2 forms 1 and 2 (eight groups of 1-4 hex digits, or fewer
 * with one "::" standing for one or more zero groups); no embedded IPv4, no zone.
 * Returns 1, or 0 on any syntax error (addr is then unspecified). */
int cli_parse_addr_port(const char *s, union k_sockaddr *addr);

/* Parses argv (argc entries, argv[0] skipped) into *opts, which it first fills with the
 * defaults. Flags take their value as the next word or after '=' (--listen=ADDR:PORT).
 * `accept` (CLI_ACCEPT_*) says which flags exist. Returns 1, or 0 on the first bad flag
 * or value, with opts->problem, problem_word and problem_flag saying which. */
int cli_parse(int argc, char **argv, unsigned accept, struct cli_options *opts);

/* Settings come in layers (BEHAVIOUR 2.1): the defaults, then a --config file, then the
 * command line. A later layer's value replaces an earlier one's; a repeatable flag
 * (--listen, --header, --header-for) adds within a layer, and its first occurrence in a
 * layer drops what earlier layers gave it. cli_parse is cli_defaults, one layer of argv,
 * cli_finish. */
struct cli_layer {
	uint32_t cleared; /* bit (1 << enum flag_kind): that repeatable kind was emptied */
};
void cli_defaults(struct cli_options *opts);
/* One layer of argv words (argv[0] skipped), as cli_parse. Returns 1, or 0 with
 * opts->problem set. */
int cli_parse_layer(int argc, char **argv, unsigned accept, struct cli_layer *layer,
		    struct cli_options *opts);
/* Gives --listen its default address when no layer named one, then appends
 * --admin-listen's address as the last listener. Returns 1, or 0 with opts->problem set
 * (no room left for it). */
int cli_finish(struct cli_options *opts);

/* One setting of a --config file: name[0..name_len) is a long flag without its dashes,
 * value its NUL-terminated value or NULL when the line has none. A flag of two words
 * (--header-for) splits value at its first run of blanks, writing a NUL there. --config,
 * --check-config, --help and --version are refused (CLI_PROBLEM_NOT_SETTING), as is a
 * value for a flag that takes none (CLI_PROBLEM_NO_VALUE). Stored pointers point into
 * value, which must outlive opts. Returns 1, or 0 with opts->problem set (problem_word:
 * the name for CLI_PROBLEM_UNKNOWN, which must then be NUL-terminated). */
int cli_parse_setting(const char *name, size_t name_len, char *value, unsigned accept,
		      struct cli_layer *layer, struct cli_options *opts);

/* Whether host[0..len) is a --site name: a DNS name of letters, digits, '-' and '.'
 * (no empty label, no port), or "*." then such a name. Returns 1 or 0. Pure. */
int cli_site_host_valid(const char *host, size_t len);

/* Exchanges the per-site settings of opts (--error-page, --fallback, --redirects,
 * --headers, --header-for, --dotfiles, --listing, --cache-bytes) with site's: a --config file's site section parses its lines
 * with site's settings in opts's place (config_file.c), then swaps them back. */
void cli_site_swap(struct cli_options *opts, struct cli_site *site);

/* One setting of a --config file's site section (BEHAVIOUR 2.1): as cli_parse_setting,
 * into site's own settings; a setting that is not a site's (struct cli_site) is refused
 * (CLI_PROBLEM_NOT_SITE). Returns 1, or 0 with opts->problem set. */
int cli_parse_site_setting(const char *name, size_t name_len, char *value, unsigned accept,
			   struct cli_layer *layer, struct cli_options *opts,
			   struct cli_site *site);

/* The first setting that differs between was and now and that a reload cannot apply
 * (BEHAVIOUR 17: --listen, --workers, --user), as its name without dashes ("listen"),
 * or NULL when none does. Both as parsed, before --workers auto is resolved. */
const char *cli_restart_change(const struct cli_options *was, const struct cli_options *now);

/* The texts below are built into a caller's buffer of the size given; longer text is
 * cut at the end of the buffer (never past it). Each returns the bytes written. */
#define CLI_LINE_MAX 512  /* a problem line, a --help row */
#define CLI_USAGE_MAX 1024 /* the usage line: every flag of the synopsis */
#define CLI_WORD_SHOWN 64 /* at most this much of a bad word is quoted back */

/* "apollod: unknown flag '--bogus'\n", "apollod: --listen needs a value\n",
 * "apollod: --listen: bad value 'localhost:80'\n" or "apollod: --listen: given more often
 * than this tier serves\n", from the problem cli_parse left in opts. */
size_t cli_format_problem(char *out, size_t cap, const struct cli_options *opts);

/* The same for a line of a --config file, after "apollod: " and `where` ("FILE:LINE: "):
 * the flag named as a setting, without its dashes ("apollod: a.conf:3: root: bad value
 * ''\n", "... unknown setting 'roots'\n", "... dotfiles takes no value\n", "... config
 * is a command-line flag, not a setting\n"). */
size_t cli_format_setting_problem(char *out, size_t cap, const struct cli_options *opts,
				  const char *where, size_t where_len);

/* "usage: <name> [--listen ADDR:PORT] ... [--help] [--version]\n": the flags accept
 * turns on, in table order. */
size_t cli_format_usage(char *out, size_t cap, const char *name, unsigned accept);

/* --help's row `row` (0 .. cli_flag_rows()-1): "  --flag VALUE  what it does (default D)\n",
 * or 0 bytes when accept does not turn that flag on. Defaults come from the values
 * cli_parse starts from, so the text cannot drift from them. */
size_t cli_format_help_row(char *out, size_t cap, unsigned row, unsigned accept);
unsigned cli_flag_rows(void);

/* Writes "a.b.c.d:port" or "[IPv6]:port" (no newline) at out (at least CLI_ADDR_MAX
 * bytes) and returns its length. IPv6 in RFC 5952's form: lower-case hex without leading
 * zeros, the longest run of two or more zero groups (the first of equals) as "::". */
#define CLI_ADDR_MAX 48 /* "[" + 39 + "]:" + 5 */
size_t cli_format_addr(char *out, const union k_sockaddr *addr);

/* Writes "<name> listening on <cli_format_addr>\n" into out (at least CLI_ANNOUNCE_MAX
 * bytes) and returns its length. */
#define CLI_ANNOUNCE_MAX 96
STATIC_ASSERT(CLI_ANNOUNCE_MAX >= 16 + sizeof(" listening on \n") + CLI_ADDR_MAX,
	      "a 16-byte name and the widest address fit");
size_t cli_format_announce(char *out, const char *name, size_t name_len,
			   const union k_sockaddr *addr);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_CLI_H */
