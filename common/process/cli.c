/* Command-line parsing (see cli.h). */
#include "common/process/cli.h"

#include "common/base/span.h"
#include "common/base/text_out.h"

#define PORT_MAX 65535u
#define OCTET_MAX 255u
#define MAX_DIGITS_U32 10

#define MAX_DIGITS_U64 20
/* --cache-bytes' suffixes: K, M, G, T (either case) multiply by 2^10, 2^20, 2^30, 2^40. */
#define BYTE_SUFFIXES "kmgt"
#define BYTE_SUFFIX_SHIFT 10

/* Network byte order, without libc's htons/htonl. */
static uint16_t to_be16(uint32_t v)
{
	return (uint16_t)(((v & 0xffu) << 8) | ((v >> 8) & 0xffu));
}

static uint32_t to_be32(uint32_t v)
{
	return ((v & 0xffu) << 24) | ((v & 0xff00u) << 8) | ((v >> 8) & 0xff00u) | (v >> 24);
}

/* Parses 1..MAX_DIGITS_U32 decimal digits at *s up to max. Advances *s past them.
 * Returns 1 and stores the value, or 0 (no digit, too many, or over max). */
static int parse_decimal(const char **s, uint32_t max, uint32_t *value)
{
	const char *p = *s;
	uint64_t v = 0;
	int n = 0;
	while (*p >= '0' && *p <= '9') {
		if (++n > MAX_DIGITS_U32)
			return 0;
		v = v * 10 + (uint64_t)(*p++ - '0');
	}
	if (n == 0 || v > max)
		return 0;
	*s = p;
	*value = (uint32_t)v;
	return 1;
}

/* Parses a whole word of bytes: 1..MAX_DIGITS_U64 decimal digits, then at most one
 * suffix of BYTE_SUFFIXES, the result at most max. Returns 1 and stores it, or 0. */
static int parse_bytes(const char *p, uint64_t max, uint64_t *value)
{
	uint64_t v = 0;
	int n = 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		uint64_t d = (uint64_t)(*p - '0');
		if (++n > MAX_DIGITS_U64 || v > (max - d) / 10u)
			return 0;
		v = v * 10u + d;
	}
	if (n == 0)
		return 0;
	if (*p) {
		unsigned shift = 0;
		for (int i = 0; BYTE_SUFFIXES[i]; i++)
			if ((*p | 0x20) == BYTE_SUFFIXES[i])
				shift = BYTE_SUFFIX_SHIFT * (unsigned)(i + 1);
		if (!shift || p[1] || v > (max >> shift))
			return 0;
		v <<= shift;
	}
	*value = v;
	return 1;
}

int cli_parse_ipv4_port(const char *s, struct k_sockaddr_in *addr)
{
	uint32_t ip = 0;
	for (int part = 0; part < 4; part++) {
		uint32_t octet;
		if (!parse_decimal(&s, OCTET_MAX, &octet))
			return 0;
		ip = (ip << 8) | octet;
		if (*s++ != (part < 3 ? '.' : ':'))
			return 0;
	}
	uint32_t port;
	if (!parse_decimal(&s, PORT_MAX, &port) || *s != '\0')
		return 0;
	addr->sin_family = K_AF_INET;
	addr->sin_port = to_be16(port);
	addr->sin_addr = to_be32(ip);
	for (int i = 0; i < 8; i++)
		addr->sin_zero[i] = 0;
	return 1;
}


/* The value of hex digit c, or -1. */
static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parses the IPv6 text s[0..n) (see cli_parse_addr_port) into g[8]. Returns 1 or 0. */
static int parse_ipv6_groups(const char *s, size_t n, uint16_t g[8])
{
	uint16_t part[8];
	int count = 0, gap = -1; /* gap: groups before the "::" */
	size_t i = 0;
	if (n >= 2 && s[0] == ':' && s[1] == ':') {
		gap = 0;
		i = 2;
	}
	while (i < n) {
		uint32_t v = 0;
		int digits = 0;
		for (; i < n && hex_value(s[i]) >= 0 && digits <= 4; digits++)
			v = v * 16 + (uint32_t)hex_value(s[i++]);
		if (digits == 0 || digits > 4 || count == 8)
			return 0;
		part[count++] = (uint16_t)v;
		if (i == n)
			break;
		if (s[i++] != ':' || i == n)
			return 0; /* not a separator, or a trailing single ':' */
		if (s[i] == ':') {
			if (gap >= 0)
				return 0; /* a second "::" */
			gap = count;
			i++;
		}
	}
	if (gap < 0 ? count != 8 : count > 7)
		return 0;
	int zeros = 8 - count;
	for (int k = 0, out = 0; k < count; k++, out++) {
		if (k == gap)
			for (int z = 0; z < zeros; z++)
				g[out++] = 0;
		g[out] = part[k];
	}
	for (int z = 0; gap == count && z < zeros; z++)
		g[count + z] = 0; /* "::" at the end, or alone */
	return 1;
}

int cli_parse_addr_port(const char *s, union k_sockaddr *addr)
{
	if (s[0] != '[')
		return cli_parse_ipv4_port(s, &addr->in);
	size_t close = 1;
	while (s[close] && s[close] != ']')
		close++;
	uint16_t g[8];
	if (s[close] != ']' || s[close + 1] != ':' || !parse_ipv6_groups(s + 1, close - 1, g))
		return 0;
	const char *port_text = s + close + 2;
	uint32_t port;
	if (!parse_decimal(&port_text, PORT_MAX, &port) || *port_text != '\0')
		return 0;
	struct k_sockaddr_in6 *a = &addr->in6;
	a->sin6_family = K_AF_INET6;
	a->sin6_port = to_be16(port);
	a->sin6_flowinfo = 0;
	a->sin6_scope_id = 0;
	for (int k = 0; k < 8; k++) {
		a->sin6_addr[2 * k] = (uint8_t)(g[k] >> 8);
		a->sin6_addr[2 * k + 1] = (uint8_t)g[k];
	}
	return 1;
}

/* If arg is `flag` or `flag=VALUE`, returns the value (the next argv word in the first
 * case, advancing *i; NULL when it is missing) and sets *matched. */
static const char *flag_value(int argc, char **argv, int *i, const char *flag, int *matched)
{
	const char *arg = argv[*i];
	size_t n = cstr_len(flag);
	*matched = 0;
	/* span_eq reads all n bytes: never more than the word has. */
	if (cstr_len(arg) < n || !span_eq(arg, flag, n))
		return 0;
	if (arg[n] == '=') {
		*matched = 1;
		return arg + n + 1;
	}
	if (arg[n] != '\0')
		return 0;
	*matched = 1;
	if (*i + 1 >= argc)
		return 0;
	return argv[++*i];
}

/* What a flag's value is, and so how it is parsed and where it goes. */
enum flag_kind {
	FLAG_SWITCH,  /* no value: sets a uint8_t to 1 */
	FLAG_NUMBER,  /* a whole number 1..max (or "auto"): a uint32_t */
	FLAG_BYTES,   /* bytes, 0..CLI_CACHE_BYTES_MAX, with a K/M/G/T suffix or none: a uint64_t */
	FLAG_ADDRESS, /* ADDR:PORT: the struct k_sockaddr_in */
	FLAG_PATH,    /* a non-empty word: a const char * */
	FLAG_HEADER,  /* a word kept for extra_fields.h to check: appended to headers[] */
	FLAG_SITE_PATH,  /* '/' then at least one byte: a const char * (--fallback) */
	FLAG_ERROR_PAGE, /* a code of FOR_EACH_ERROR_STATUS, "=", then a FLAG_SITE_PATH: that
			  * path, in the field's array at the code's index */
	FLAG_HEADER_FOR, /* two words, PATTERN and 'Name: value', kept for path_fields.h */
	FLAG_COMPRESS,   /* CLI_COMPRESS_GZIP_WORD or CLI_COMPRESS_OFF_WORD: a uint8_t 1 or 0 */
	FLAG_ADMIN_ADDRESS, /* ADDR:PORT: admin_listen, and admin set to 1 (BEHAVIOUR 6.5) */
	FLAG_SITE,          /* HOST=DIR: appended to site[] (BEHAVIOUR 10.21) */
	FLAG_LOG_FORMAT,    /* a word of cli_log_format_words: its index, a uint8_t */
};

/* --access-log-format's words, by enum access_log_format's value (access_log_line.h;
 * the first is the default). */
static const char *const cli_log_format_words[CLI_LOG_FORMATS] = {"common", "combined", "json"};

/* One flag: the one list parsing, the usage line and --help are all made from. A new
 * flag is one row here (and its field in struct cli_options). */
struct flag_row {
	const char *flag;
	const char *value;  /* the value's name in usage and --help; NULL for a switch */
	const char *help;   /* what it does, for --help */
	const char *shown_default; /* FLAG_PATH: what --help says its absence means;
				    * FLAG_COMPRESS, FLAG_LOG_FORMAT: its default word */
	unsigned accept;    /* the CLI_ACCEPT_* bit that turns it on; 0: every tier */
	uint8_t kind;       /* enum flag_kind */
	uint8_t automatic;  /* FLAG_NUMBER: the word "auto" stands for CLI_WORKERS_AUTO */
	uint32_t max;       /* FLAG_NUMBER: the largest value */
	size_t offset;      /* of its field in struct cli_options */
};
#define FIELD(name) __builtin_offsetof(struct cli_options, name)
static const struct flag_row flag_rows[] = {
	{"--listen", "ADDR:PORT", "address to serve: A.B.C.D:PORT or [IPv6]:PORT; repeatable", 0,
	 CLI_ACCEPT_LISTEN, FLAG_ADDRESS, 0, 0, FIELD(listen)},
	{"--admin-listen", "ADDR:PORT",
	 "serve /health and /metrics here only; the --listen addresses serve the site",
	 "none: every --listen serves them", CLI_ACCEPT_LISTEN_MANY, FLAG_ADMIN_ADDRESS, 0, 0,
	 FIELD(admin_listen)},
	{"--idle-timeout", "SECONDS", "close a connection idle between requests after this",
	 0, CLI_ACCEPT_IDLE_TIMEOUT, FLAG_NUMBER, 0, CLI_IDLE_MAX_S, FIELD(idle_timeout_s)},
	{"--header-timeout", "SECONDS", "a request head must arrive within this", 0,
	 CLI_ACCEPT_IDLE_TIMEOUT, FLAG_NUMBER, 0, CLI_IDLE_MAX_S, FIELD(header_timeout_s)},
	{"--send-timeout", "SECONDS", "a response may stall this long", 0,
	 CLI_ACCEPT_IDLE_TIMEOUT, FLAG_NUMBER, 0, CLI_IDLE_MAX_S, FIELD(send_timeout_s)},
	{"--max-connections", "N", "connections open at once (1-4096)", 0,
	 CLI_ACCEPT_MAX_CONNECTIONS, FLAG_NUMBER, 0, CLI_MAX_CONNECTIONS,
	 FIELD(max_connections)},
	{"--root", "DIR", "serve the files under DIR, loaded at start-up",
	 "none: built-in routes only", CLI_ACCEPT_ROOT, FLAG_PATH, 0, 0, FIELD(root)},
	{"--dotfiles", 0, "--root also serves names starting with '.'", 0, CLI_ACCEPT_ROOT,
	 FLAG_SWITCH, 0, 0, FIELD(dotfiles)},
	{"--max-files", "N", "--root loads at most N files and directories", 0, CLI_ACCEPT_ROOT,
	 FLAG_NUMBER, 0, CLI_MAX_FILES_MAX, FIELD(max_files)},
	{"--cache-bytes", "N[K|M|G|T]",
	 "--root keeps at most N bytes of files in memory; the rest is served from disk", 0,
	 CLI_ACCEPT_ROOT, FLAG_BYTES, 0, 0, FIELD(cache_bytes)},
	{"--compress", "gzip|off",
	 "--root makes a gzip form of each text file at load (off: sends files as stored)",
	 CLI_COMPRESS_GZIP_WORD, CLI_ACCEPT_ROOT, FLAG_COMPRESS, 0, 0, FIELD(compress)},
	{"--compress-level", "N", "--compress gzip's level, 1 (fastest) to 12 (smallest)", 0,
	 CLI_ACCEPT_ROOT, FLAG_NUMBER, 0, CLI_COMPRESS_LEVEL_MAX, FIELD(compress_level)},
	{"--watch", 0, "reload --root by itself 200 ms after changes stop (inotify)", 0,
	 CLI_ACCEPT_ROOT, FLAG_SWITCH, 0, 0, FIELD(watch)},
	{"--listing", 0, "--root answers a directory without index.html with a listing", 0,
	 CLI_ACCEPT_ROOT, FLAG_SWITCH, 0, 0, FIELD(listing)},
	{"--mime-types", "FILE", "--root takes types from FILE (/etc/mime.types format) first",
	 "built-in table only", CLI_ACCEPT_ROOT, FLAG_PATH, 0, 0, FIELD(mime_types)},
	{"--access-log", "PATH|-", "one Common Log Format line per request (- for stdout)",
	 "off", CLI_ACCEPT_ACCESS_LOG, FLAG_PATH, 0, 0, FIELD(access_log)},
	{"--access-log-format", "FORMAT",
	 "the log's lines: common, combined (adds Referer, User-Agent) or json", "common",
	 CLI_ACCEPT_ACCESS_LOG, FLAG_LOG_FORMAT, 0, 0, FIELD(access_log_format)},
	{"--header", "'NAME: VALUE'", "add this field to every response; repeatable (up to 32)",
	 "none", CLI_ACCEPT_HEADER, FLAG_HEADER, 0, 0, FIELD(headers)},
	{"--error-page", "NNN=/PATH",
	 "--root answers status NNN (400 403 404 405 408 410 414 416 503) with this file; "
	 "repeatable", "none",
	 CLI_ACCEPT_ROOT, FLAG_ERROR_PAGE, 0, 0, FIELD(error_page)},
	{"--fallback", "/PATH", "--root answers a path that finds no file with this file",
	 "none", CLI_ACCEPT_ROOT, FLAG_SITE_PATH, 0, 0, FIELD(fallback)},
	{"--redirects", "FILE", "--root applies FILE's rules (_redirects format) before lookup",
	 "none", CLI_ACCEPT_ROOT, FLAG_PATH, 0, 0, FIELD(redirects)},
	{"--header-for", "PATTERN FIELD",
	 "add FIELD ('NAME: VALUE') to the files PATTERN (/dir/ or *.ext) names; repeatable "
	 "(up to 32)", "none",
	 CLI_ACCEPT_ROOT, FLAG_HEADER_FOR, 0, 0, FIELD(header_for_pattern)},
	{"--headers", "FILE", "--root adds FILE's fields (_headers format) as --header-for does",
	 "none", CLI_ACCEPT_ROOT, FLAG_PATH, 0, 0, FIELD(headers_file)},
	{"--site", "HOST=DIR",
	 "serve DIR to requests for HOST (a name or *.suffix); --root serves other hosts; "
	 "repeatable (up to 15)", "none", CLI_ACCEPT_ROOT, FLAG_SITE, 0, 0, FIELD(site)},
	{"--workers", "N|auto", "serving processes (auto: one per CPU)", 0,
	 CLI_ACCEPT_WORKERS, FLAG_NUMBER, 1, CLI_WORKERS_MAX, FIELD(workers)},
	{"--drain-timeout", "SECONDS", "a graceful stop may take this long", 0,
	 CLI_ACCEPT_DRAIN_TIMEOUT, FLAG_NUMBER, 0, CLI_IDLE_MAX_S, FIELD(drain_timeout_s)},
	{"--user", "USER[:GROUP]", "after binding and loading, drop root to this user and group",
	 "stay as started", CLI_ACCEPT_SANDBOX, FLAG_PATH, 0, 0, FIELD(user)},
	{"--no-sandbox", 0, "serve without the seccomp filter and Landlock (BEHAVIOUR 19)", 0,
	 CLI_ACCEPT_SANDBOX, FLAG_SWITCH, 0, 0, FIELD(no_sandbox)},
	{"--config", "FILE",
	 "read settings from FILE first, one a line ('root /srv/www'); flags here override it",
	 "none", CLI_ACCEPT_CONFIG, FLAG_PATH, 0, 0, FIELD(config)},
	{"--check-config", 0, "check the settings as a start would, say 'configuration ok', exit",
	 0, CLI_ACCEPT_CONFIG, FLAG_SWITCH, 0, 0, FIELD(check_config)},
	{"--help", 0, "print this help and exit", 0, 0, FLAG_SWITCH, 0, 0, FIELD(help)},
	{"--version", 0, "print the version and tier and exit", 0, 0, FLAG_SWITCH, 0, 0,
	 FIELD(version)},
};
#define FLAG_ROWS (sizeof(flag_rows) / sizeof(flag_rows[0]))

unsigned cli_flag_rows(void)
{
	return FLAG_ROWS;
}

/* The codes --error-page takes, by enum error_page_id. */
static const char *const error_status_code[ERROR_PAGE_COUNT] = {
#define ERROR_STATUS_CODE(id, code, line) [id] = code,
	FOR_EACH_ERROR_STATUS(ERROR_STATUS_CODE)
#undef ERROR_STATUS_CODE
};

/* The enum error_page_id whose code, then '=', starts v; ERROR_PAGE_COUNT for none. */
static unsigned error_status_index(const char *v)
{
	unsigned id = 0;
	if (cstr_len(v) > ERROR_STATUS_CODE_LEN && v[ERROR_STATUS_CODE_LEN] == '=')
		while (id < ERROR_PAGE_COUNT &&
		       !span_eq(v, error_status_code[id], ERROR_STATUS_CODE_LEN))
			id++;
	else
		id = ERROR_PAGE_COUNT;
	return id;
}

#define ASCII_CASE_BIT 0x20 /* 'A' | ASCII_CASE_BIT is 'a' */

int cli_site_host_valid(const char *host, size_t len)
{
	size_t i = len >= 2 && host[0] == '*' && host[1] == '.' ? 2 : 0;
	size_t label = 0;
	if (i == len || len > CLI_SITE_HOST_MAX)
		return 0;
	for (; i < len; i++) {
		char c = host[i];
		if (c == '.' && label == 0)
			return 0; /* an empty label */
		label = c == '.' ? 0 : label + 1;
		int letter = (c | ASCII_CASE_BIT) >= 'a' && (c | ASCII_CASE_BIT) <= 'z';
		if (c != '.' && c != '-' && !letter && !(c >= '0' && c <= '9'))
			return 0;
	}
	return label != 0;
}

/* Appends the --site word v, HOST=DIR, to opts->site (which has room), its own settings
 * empty (its cache-bytes a share: CLI_SITE_CACHE_SHARED). Returns 1, or 0 when v is no
 * such word. */
static int store_site(const char *v, struct cli_options *opts)
{
	size_t n = 0;
	while (v[n] && v[n] != '=')
		n++;
	if (v[n] != '=' || !v[n + 1] || !cli_site_host_valid(v, n))
		return 0;
	struct cli_site *site = &opts->site[opts->site_count++];
	__builtin_memset(site, 0, sizeof(*site));
	site->cache_bytes = CLI_SITE_CACHE_SHARED;
	site->host = v;
	site->host_len = (uint32_t)n;
	site->root = v + n + 1;
	return 1;
}

/* Exchanges *a and *b, n bytes each (they do not overlap). */
static void swap_bytes(void *a, void *b, size_t n)
{
	char *x = a, *y = b;
	for (size_t i = 0; i < n; i++) {
		char t = x[i];
		x[i] = y[i];
		y[i] = t;
	}
}

void cli_site_swap(struct cli_options *opts, struct cli_site *site)
{
	swap_bytes(opts->error_page, site->error_page, sizeof(site->error_page));
	swap_bytes(&opts->fallback, &site->fallback, sizeof(site->fallback));
	swap_bytes(&opts->redirects, &site->redirects, sizeof(site->redirects));
	swap_bytes(&opts->headers_file, &site->headers_file, sizeof(site->headers_file));
	swap_bytes(&opts->header_for_count, &site->header_for_count,
		   sizeof(site->header_for_count));
	swap_bytes(opts->header_for_pattern, site->header_for_pattern,
		   sizeof(site->header_for_pattern));
	swap_bytes(opts->header_for_field, site->header_for_field, sizeof(site->header_for_field));
	swap_bytes(&opts->dotfiles, &site->dotfiles, sizeof(site->dotfiles));
	swap_bytes(&opts->listing, &site->listing, sizeof(site->listing));
	swap_bytes(&opts->cache_bytes, &site->cache_bytes, sizeof(site->cache_bytes));
}

/* Sets *out to the index of v among cli_log_format_words. Returns 1, or 0 for no word. */
static int parse_log_format(const char *v, uint8_t *out)
{
	for (uint8_t n = 0; n < CLI_LOG_FORMATS; n++)
		if (cstr_len(v) == cstr_len(cli_log_format_words[n]) &&
		    span_eq(v, cli_log_format_words[n], cstr_len(v))) {
			*out = n;
			return 1;
		}
	return 0;
}

/* Stores value v (NULL: missing) of flag row r in opts. Returns 1, or 0 when v is
 * missing or not a valid value for r. */
static int store_value(const struct flag_row *r, const char *v, struct cli_options *opts)
{
	char *field = (char *)opts + r->offset;
	uint32_t n;
	if (!v)
		return 0;
	switch (r->kind) {
	case FLAG_NUMBER:
		if (r->automatic && cstr_len(v) == 4 && span_eq(v, "auto", 4))
			n = CLI_WORKERS_AUTO;
		else if (!parse_decimal(&v, r->max, &n) || *v || !n)
			return 0;
		*(uint32_t *)field = n;
		return 1;
	case FLAG_BYTES:
		return parse_bytes(v, CLI_CACHE_BYTES_MAX, (uint64_t *)field);
	case FLAG_COMPRESS:
		*(uint8_t *)field = cstr_len(v) == sizeof(CLI_COMPRESS_GZIP_WORD) - 1 &&
				    span_eq(v, LITERAL(CLI_COMPRESS_GZIP_WORD));
		return *(uint8_t *)field || (cstr_len(v) == sizeof(CLI_COMPRESS_OFF_WORD) - 1 &&
					     span_eq(v, LITERAL(CLI_COMPRESS_OFF_WORD)));
	case FLAG_LOG_FORMAT:
		return parse_log_format(v, (uint8_t *)field);
	case FLAG_ADDRESS: /* the first --listen replaces the default, later ones add */
		return cli_parse_addr_port(v, &opts->listen[opts->listen_count++]);
	case FLAG_ADMIN_ADDRESS: /* the last listener once parsed (cli_parse) */
		opts->admin = 1;
		return cli_parse_addr_port(v, &opts->admin_listen);
	case FLAG_HEADER: /* checked whole at start-up (extra_fields.h), named if bad */
		opts->headers[opts->header_count++] = v;
		return 1;
	case FLAG_SITE:
		return store_site(v, opts);
	case FLAG_ERROR_PAGE: /* the code's entry of the field's array */
		n = error_status_index(v);
		if (n == ERROR_PAGE_COUNT)
			return 0;
		field += n * sizeof(const char *);
		v += ERROR_STATUS_CODE_LEN + 1;
		__attribute__((fallthrough)); /* the rest is a site path */
	case FLAG_SITE_PATH:
		if (v[0] != '/' || v[1] == '\0')
			return 0;
		*(const char **)field = v;
		return 1;
	default: /* FLAG_PATH */
		if (!*v)
			return 0;
		*(const char **)field = v;
		return 1;
	}
}

/* Records a refused flag in opts. Returns 0. */
static int refuse(struct cli_options *opts, uint8_t problem, const char *word, const char *flag)
{
	opts->problem = problem;
	opts->problem_word = word;
	opts->problem_flag = flag;
	return 0;
}

/* Stores --header-for's words: the pattern v (NULL: missing) and the field, the word
 * after it (advancing *i). Returns 1, or 0 with opts->problem set (a missing word). */
static int store_header_for(int argc, char **argv, int *i, const char *v,
			    struct cli_options *opts)
{
	if (!v || *i + 1 >= argc)
		return refuse(opts, CLI_PROBLEM_MISSING, v, "--header-for");
	opts->header_for_pattern[opts->header_for_count] = v;
	opts->header_for_field[opts->header_for_count++] = argv[++*i];
	return 1;
}

/* How many entries repeatable kind `kind` holds in opts, or NULL for a kind that does not
 * repeat; *limit says how many it may hold. */
static uint32_t *repeat_count(unsigned kind, unsigned accept, struct cli_options *opts,
			      uint32_t *limit)
{
	switch (kind) {
	case FLAG_ADDRESS:
		*limit = accept & CLI_ACCEPT_LISTEN_MANY ? CLI_LISTEN_MAX : 1;
		return &opts->listen_count;
	case FLAG_HEADER:
		*limit = CLI_HEADERS_MAX;
		return &opts->header_count;
	case FLAG_HEADER_FOR:
		*limit = CLI_HEADER_FOR_MAX;
		return &opts->header_for_count;
	case FLAG_SITE:
		*limit = CLI_SITES_MAX;
		return &opts->site_count;
	default:
		*limit = 1;
		return 0;
	}
}

/* Stores value v (NULL: missing) of the flag of row r, the argv word at *i, in opts
 * (advancing *i past a second word). The first entry of a repeatable kind in this layer
 * drops the earlier layers' entries. Returns 1, or 0 with opts->problem set. */
static int store_flag(const struct flag_row *r, const char *v, int argc, char **argv, int *i,
		      unsigned accept, struct cli_layer *layer, struct cli_options *opts)
{
	uint32_t limit;
	uint32_t *count = repeat_count(r->kind, accept, opts, &limit);
	if (count && !(layer->cleared & (1u << r->kind))) {
		layer->cleared |= 1u << r->kind;
		*count = 0;
	}
	int full = count && *count == limit;
	opts->problem_limit = limit;
	if (!full && r->kind == FLAG_HEADER_FOR)
		return store_header_for(argc, argv, i, v, opts);
	if (!full && store_value(r, v, opts))
		return 1;
	return refuse(opts, full ? CLI_PROBLEM_TOO_MANY : v ? CLI_PROBLEM_VALUE : CLI_PROBLEM_MISSING,
		      v, r->flag);
}

/* Whether row r exists in a tier that accepts `accept`. */
static int row_accepted(const struct flag_row *r, unsigned accept)
{
	return !r->accept || (accept & r->accept);
}

/* Parses the flag at argv[*i] (advancing *i past a separate value) into opts. Returns 1,
 * or 0 with opts->problem set. */
static int parse_flag(int argc, char **argv, int *i, unsigned accept, struct cli_layer *layer,
		      struct cli_options *opts)
{
	const char *word = argv[*i];
	for (unsigned f = 0; f < FLAG_ROWS; f++) {
		const struct flag_row *r = &flag_rows[f];
		int matched;
		if (!row_accepted(r, accept))
			continue;
		if (r->kind == FLAG_SWITCH) {
			size_t n = cstr_len(r->flag);
			if (cstr_len(word) != n || !span_eq(word, r->flag, n))
				continue;
			*((uint8_t *)opts + r->offset) = 1;
			return 1;
		}
		const char *v = flag_value(argc, argv, i, r->flag, &matched);
		if (matched)
			return store_flag(r, v, argc, argv, i, accept, layer, opts);
	}
	return refuse(opts, CLI_PROBLEM_UNKNOWN, word, 0);
}

/* Sets opts->listen[0] to the default address. */
static void set_default_listen(struct cli_options *opts)
{
	struct k_sockaddr_in listen = {
		.sin_family = K_AF_INET,
		.sin_port = to_be16(CLI_DEFAULT_PORT),
		.sin_addr = to_be32(CLI_DEFAULT_ADDR),
	};
	opts->listen[0].in = listen;
}

void cli_defaults(struct cli_options *opts)
{
	set_default_listen(opts);
	opts->listen_count = 0; /* cli_parse: 1 (the default) if no --listen comes */
	opts->idle_timeout_s = CLI_DEFAULT_IDLE_S;
	opts->drain_timeout_s = CLI_DEFAULT_DRAIN_S;
	opts->workers = CLI_DEFAULT_WORKERS;
	opts->header_timeout_s = CLI_DEFAULT_HEADER_S;
	opts->send_timeout_s = CLI_DEFAULT_SEND_S;
	opts->max_connections = CLI_MAX_CONNECTIONS;
	opts->help = 0;
	opts->version = 0;
	opts->root = 0;
	opts->dotfiles = 0;
	opts->watch = 0;
	opts->max_files = CLI_DEFAULT_MAX_FILES;
	opts->cache_bytes = CLI_DEFAULT_CACHE_BYTES;
	opts->compress = 1;
	opts->compress_level = CLI_DEFAULT_COMPRESS_LEVEL;
	opts->listing = 0;
	opts->mime_types = 0;
	opts->access_log = 0;
	opts->access_log_format = 0; /* common */
	opts->header_count = 0;
	for (unsigned i = 0; i < ERROR_PAGE_COUNT; i++)
		opts->error_page[i] = 0;
	opts->fallback = 0;
	opts->redirects = 0;
	opts->headers_file = 0;
	opts->header_for_count = 0;
	opts->user = 0;
	opts->no_sandbox = 0;
	opts->config = 0;
	opts->check_config = 0;
	opts->admin = 0;
	opts->problem = 0;
	opts->problem_word = 0;
	opts->problem_flag = 0;
}

/* --admin-listen's address becomes the last listener, after every --listen address
 * (BEHAVIOUR 6.5). Returns 1, or 0 with the --listen limit's problem when no room is
 * left for it. */
static int cli_append_admin(struct cli_options *opts)
{
	if (!opts->admin)
		return 1;
	if (opts->listen_count == CLI_LISTEN_MAX) {
		opts->problem = CLI_PROBLEM_TOO_MANY;
		opts->problem_flag = "--listen";
		opts->problem_word = 0;
		opts->problem_limit = CLI_LISTEN_MAX - 1; /* one taken by --admin-listen */
		return 0;
	}
	opts->listen[opts->listen_count++] = opts->admin_listen;
	return 1;
}

int cli_parse_layer(int argc, char **argv, unsigned accept, struct cli_layer *layer,
		    struct cli_options *opts)
{
	for (int i = 1; i < argc; i++)
		if (!parse_flag(argc, argv, &i, accept, layer, opts))
			return 0;
	return 1;
}

int cli_finish(struct cli_options *opts)
{
	if (!opts->listen_count) {
		set_default_listen(opts);
		opts->listen_count = 1;
	}
	return cli_append_admin(opts);
}

int cli_parse(int argc, char **argv, unsigned accept, struct cli_options *opts)
{
	struct cli_layer layer = {0};
	cli_defaults(opts);
	if (!cli_parse_layer(argc, argv, accept, &layer, opts))
		return 0;
	return cli_finish(opts);
}

/* The row of the setting name[0..n) (a long flag without its dashes) in a tier that
 * accepts `accept`, or NULL. */
static const struct flag_row *setting_row(const char *name, size_t n, unsigned accept)
{
	for (unsigned f = 0; f < FLAG_ROWS; f++) {
		const char *flag = flag_rows[f].flag + 2; /* past "--" */
		if (row_accepted(&flag_rows[f], accept) && cstr_len(flag) == n &&
		    span_eq(flag, name, n))
			return &flag_rows[f];
	}
	return 0;
}

/* Whether row r is a flag of the command line only: it names or reads the file, or ends
 * the start. */
static int command_line_only(const struct flag_row *r)
{
	return r->offset == FIELD(config) || r->offset == FIELD(check_config) ||
	       r->offset == FIELD(help) || r->offset == FIELD(version);
}

/* Splits a two-word value at its first run of blanks (a NUL written at the first blank).
 * Returns the second word, or NULL when there is none. */
static char *second_word(char *value)
{
	while (*value && *value != ' ' && *value != '\t')
		value++;
	if (!*value)
		return 0;
	*value++ = 0;
	while (*value == ' ' || *value == '\t')
		value++;
	return *value ? value : 0;
}

int cli_parse_setting(const char *name, size_t name_len, char *value, unsigned accept,
		      struct cli_layer *layer, struct cli_options *opts)
{
	const struct flag_row *r = setting_row(name, name_len, accept);
	if (!r)
		return refuse(opts, CLI_PROBLEM_UNKNOWN, name, 0);
	if (command_line_only(r))
		return refuse(opts, CLI_PROBLEM_NOT_SETTING, 0, r->flag);
	if (r->kind == FLAG_SWITCH && value)
		return refuse(opts, CLI_PROBLEM_NO_VALUE, value, r->flag);
	char *words[] = {0, (char *)r->flag, value, 0};
	int argc = r->kind == FLAG_SWITCH ? 2 : 3;
	if (value && r->kind == FLAG_HEADER_FOR) {
		words[3] = second_word(value);
		argc += words[3] != 0;
	}
	int i = 1;
	return parse_flag(argc, words, &i, accept, layer, opts);
}

/* Whether row r is a setting a site has of its own (struct cli_site). */
static int site_row(const struct flag_row *r)
{
	return r->offset == FIELD(error_page) || r->offset == FIELD(fallback) ||
	       r->offset == FIELD(redirects) || r->offset == FIELD(headers_file) ||
	       r->offset == FIELD(header_for_pattern) || r->offset == FIELD(dotfiles) ||
	       r->offset == FIELD(listing) || r->offset == FIELD(cache_bytes);
}

int cli_parse_site_setting(const char *name, size_t name_len, char *value, unsigned accept,
			   struct cli_layer *layer, struct cli_options *opts,
			   struct cli_site *site)
{
	const struct flag_row *r = setting_row(name, name_len, accept);
	if (r && !site_row(r))
		return refuse(opts, CLI_PROBLEM_NOT_SITE, 0, r->flag);
	cli_site_swap(opts, site);
	int ok = cli_parse_setting(name, name_len, value, accept, layer, opts);
	cli_site_swap(opts, site);
	return ok;
}

/* Whether row r's setting is the same in a and b (the kinds restart_rows holds). */
static int same_setting(const struct flag_row *r, const struct cli_options *a,
			const struct cli_options *b)
{
	const char *fa = (const char *)a + r->offset, *fb = (const char *)b + r->offset;
	if (r->kind == FLAG_NUMBER)
		return *(const uint32_t *)fa == *(const uint32_t *)fb;
	if (r->kind == FLAG_PATH) {
		const char *sa = *(const char *const *)fa, *sb = *(const char *const *)fb;
		return sa == sb || (sa && sb && cstr_len(sa) == cstr_len(sb) &&
				    span_eq(sa, sb, cstr_len(sa)));
	}
	if (a->listen_count != b->listen_count) /* FLAG_ADDRESS */
		return 0;
	for (uint32_t i = 0; i < a->listen_count; i++) {
		char ta[CLI_ADDR_MAX], tb[CLI_ADDR_MAX];
		size_t na = cli_format_addr(ta, &a->listen[i]);
		if (na != cli_format_addr(tb, &b->listen[i]) || !span_eq(ta, tb, na))
			return 0;
	}
	return 1;
}

const char *cli_restart_change(const struct cli_options *was, const struct cli_options *now)
{
	/* BEHAVIOUR 17: the supervisor holds the listeners (one set per worker), and a
	 * generation is started as root to drop to --user. */
	static const size_t restart_fields[] = {FIELD(listen), FIELD(workers), FIELD(user)};
	for (unsigned k = 0; k < sizeof(restart_fields) / sizeof(restart_fields[0]); k++)
		for (unsigned f = 0; f < FLAG_ROWS; f++)
			if (flag_rows[f].offset == restart_fields[k] &&
			    !same_setting(&flag_rows[f], was, now))
				return flag_rows[f].flag + 2;
	return 0;
}

/* Appends the flag of opts's problem: "--root", or as a setting ("root") when `setting`. */
static void put_problem_flag(struct text_out *o, const struct cli_options *opts, int setting)
{
	const char *flag = opts->problem_flag ? opts->problem_flag : "";
	put_cstr(o, setting && flag[0] ? flag + 2 : flag);
}

/* Appends "'WORD'" (cut to CLI_WORD_SHOWN bytes and "...") for the problem's word. */
static void put_problem_word(struct text_out *o, const struct cli_options *opts)
{
	const char *word = opts->problem_word ? opts->problem_word : "";
	size_t n = cstr_len(word);
	put_cstr(o, "'");
	put(o, word, n < CLI_WORD_SHOWN ? n : CLI_WORD_SHOWN);
	put_cstr(o, n > CLI_WORD_SHOWN ? "...'" : "'");
}

/* Appends what the problem in opts is, the flag named as a setting when `setting`. */
static void put_problem(struct text_out *o, const struct cli_options *opts, int setting)
{
	char digits[U64_DEC_MAX];
	size_t n = u64_to_dec(opts->problem_limit, digits);
	if (opts->problem == CLI_PROBLEM_UNKNOWN) {
		put_cstr(o, setting ? "unknown setting " : "unknown flag ");
		put_problem_word(o, opts);
		return;
	}
	put_problem_flag(o, opts, setting);
	if (opts->problem == CLI_PROBLEM_MISSING) {
		put_cstr(o, " needs a value");
	} else if (opts->problem == CLI_PROBLEM_NO_VALUE) {
		put_cstr(o, " takes no value: ");
		put_problem_word(o, opts);
	} else if (opts->problem == CLI_PROBLEM_NOT_SETTING) {
		put_cstr(o, " is a command-line flag, not a setting");
	} else if (opts->problem == CLI_PROBLEM_NOT_SITE) {
		put_cstr(o, " is not a site's setting (a site section takes error-page, fallback,"
			    " redirects, headers, header-for, dotfiles, listing and cache-bytes)");
	} else if (opts->problem == CLI_PROBLEM_TOO_MANY) {
		put_cstr(o, ": given more than ");
		put(o, digits, n);
		put_cstr(o, opts->problem_limit == 1 ? " time" : " times");
		put_cstr(o, ": the limit is ");
		put(o, digits, n);
	} else {
		put_cstr(o, ": bad value ");
		put_problem_word(o, opts);
	}
}

size_t cli_format_problem(char *out, size_t cap, const struct cli_options *opts)
{
	return cli_format_setting_problem(out, cap, opts, 0, 0);
}

size_t cli_format_setting_problem(char *out, size_t cap, const struct cli_options *opts,
				  const char *where, size_t where_len)
{
	struct text_out o = {out, out + cap};
	put_cstr(&o, "apollod: ");
	put(&o, where, where_len);
	put_problem(&o, opts, where != 0);
	put_cstr(&o, "\n");
	return (size_t)(o.p - out);
}

size_t cli_format_usage(char *out, size_t cap, const char *name, unsigned accept)
{
	struct text_out o = {out, out + cap};
	put_cstr(&o, "usage: ");
	put_cstr(&o, name);
	for (unsigned f = 0; f < FLAG_ROWS; f++) {
		const struct flag_row *r = &flag_rows[f];
		if (r->accept && !(accept & r->accept))
			continue;
		put_cstr(&o, " [");
		put_cstr(&o, r->flag);
		if (r->value) {
			put_cstr(&o, " ");
			put_cstr(&o, r->value);
		}
		put_cstr(&o, "]");
	}
	put_cstr(&o, "\n");
	return (size_t)(o.p - out);
}

/* Appends " (default D)" for row r, D read from the values cli_parse starts from (a
 * path row has none: its shown_default says what its absence means). */
static void put_default(struct text_out *o, const struct flag_row *r)
{
	struct cli_options defaults;
	char text[CLI_ADDR_MAX > U64_DEC_MAX ? CLI_ADDR_MAX : U64_DEC_MAX];
	const char *field = (const char *)&defaults + r->offset;
	cli_defaults(&defaults);
	put_cstr(o, " (default ");
	if (r->kind == FLAG_NUMBER)
		put(o, text, u64_to_dec(*(const uint32_t *)field, text));
	else if (r->kind == FLAG_BYTES)
		put(o, text, u64_to_dec(*(const uint64_t *)field, text));
	else if (r->kind == FLAG_ADDRESS)
		put(o, text, cli_format_addr(text, (const union k_sockaddr *)field));
	else
		put_cstr(o, r->shown_default);
	put_cstr(o, ")");
}

/* --help's flag column is padded to this width. */
#define HELP_COLUMN 28

size_t cli_format_help_row(char *out, size_t cap, unsigned row, unsigned accept)
{
	if (row >= FLAG_ROWS)
		return 0;
	const struct flag_row *r = &flag_rows[row];
	if (r->accept && !(accept & r->accept))
		return 0;
	struct text_out o = {out, out + cap};
	put_cstr(&o, "  ");
	put_cstr(&o, r->flag);
	size_t used = 2 + cstr_len(r->flag);
	if (r->value) {
		put_cstr(&o, " ");
		put_cstr(&o, r->value);
		used += 1 + cstr_len(r->value);
	}
	for (; used < HELP_COLUMN; used++)
		put_cstr(&o, " ");
	put_cstr(&o, " ");
	put_cstr(&o, r->help);
	if (r->kind != FLAG_SWITCH)
		put_default(&o, r);
	put_cstr(&o, "\n");
	return (size_t)(o.p - out);
}

/* The first and length of the longest run of two or more zero groups in g[8] (the first
 * of equals), or a length of 0. */
static void longest_zero_run(const uint16_t g[8], int *first, int *len)
{
	*first = 0;
	*len = 0;
	for (int i = 0; i < 8;) {
		int j = i;
		while (j < 8 && g[j] == 0)
			j++;
		if (j - i > *len && j - i >= 2) {
			*first = i;
			*len = j - i;
		}
		i = j > i ? j : i + 1;
	}
}

/* Writes v in lower-case hex without leading zeros; returns the digits written (1-4). */
static size_t hex_group(uint16_t v, char *out)
{
	static const char digit[] = "0123456789abcdef";
	size_t n = 0;
	for (int shift = 12; shift >= 0; shift -= 4)
		if ((v >> shift) || shift == 0 || n)
			out[n++] = digit[(v >> shift) & 0xf];
	return n;
}

/* Writes the RFC 5952 text of the 16-byte address a at out (at most 39 bytes). */
static size_t format_ipv6(const uint8_t *a, char *out)
{
	uint16_t g[8];
	for (int i = 0; i < 8; i++)
		g[i] = (uint16_t)(a[2 * i] << 8 | a[2 * i + 1]);
	int first, len;
	longest_zero_run(g, &first, &len);
	char *p = out;
	for (int i = 0; i < 8; i++) {
		if (len && i == first) {
			*p++ = ':';
			if (i == 0)
				*p++ = ':';
			i += len - 1;
			continue;
		}
		p += hex_group(g[i], p);
		if (i < 7)
			*p++ = ':';
	}
	return (size_t)(p - out);
}

size_t cli_format_addr(char *out, const union k_sockaddr *addr)
{
	char *p = out;
	uint16_t port = addr->family == K_AF_INET6 ? addr->in6.sin6_port : addr->in.sin_port;
	if (addr->family == K_AF_INET6) {
		*p++ = '[';
		p += format_ipv6(addr->in6.sin6_addr, p);
		*p++ = ']';
	} else {
		uint32_t ip = to_be32(addr->in.sin_addr);
		for (int shift = 24; shift >= 0; shift -= 8) {
			p += u64_to_dec((ip >> shift) & OCTET_MAX, p);
			if (shift)
				*p++ = '.';
		}
	}
	*p++ = ':';
	p += u64_to_dec(to_be16(port), p);
	return (size_t)(p - out);
}

size_t cli_format_announce(char *out, const char *name, size_t name_len,
			   const union k_sockaddr *addr)
{
	static const char mid[] = " listening on ";
	char *p = copy_span(out, name, name_len);
	p = copy_span(p, mid, sizeof(mid) - 1);
	p += cli_format_addr(p, addr);
	*p++ = '\n';
	return (size_t)(p - out);
}
