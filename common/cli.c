/* Command-line parsing (see cli.h). */
#include "common/cli.h"

#include "common/span.h"

#define PORT_MAX 65535u
#define OCTET_MAX 255u
#define MAX_DIGITS_U32 10

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

/* The flags that take a whole number from 1 to max, and where each one goes. */
struct number_flag {
	const char *flag;
	unsigned accept; /* CLI_ACCEPT_* bit that turns it on */
	uint32_t max;
	size_t offset;   /* of its uint32_t in struct cli_options */
	uint8_t automatic; /* the word "auto" stands for CLI_WORKERS_AUTO (--workers) */
};
#define NUMBER_FLAG_COUNT 7
static const struct number_flag number_flags[NUMBER_FLAG_COUNT] = {
	{"--idle-timeout", CLI_ACCEPT_IDLE_TIMEOUT, CLI_IDLE_MAX_S,
	 __builtin_offsetof(struct cli_options, idle_timeout_s), 0},
	{"--header-timeout", CLI_ACCEPT_IDLE_TIMEOUT, CLI_IDLE_MAX_S,
	 __builtin_offsetof(struct cli_options, header_timeout_s), 0},
	{"--send-timeout", CLI_ACCEPT_IDLE_TIMEOUT, CLI_IDLE_MAX_S,
	 __builtin_offsetof(struct cli_options, send_timeout_s), 0},
	{"--max-connections", CLI_ACCEPT_MAX_CONNECTIONS, CLI_MAX_CONNECTIONS,
	 __builtin_offsetof(struct cli_options, max_connections), 0},
	{"--drain-timeout", CLI_ACCEPT_DRAIN_TIMEOUT, CLI_IDLE_MAX_S,
	 __builtin_offsetof(struct cli_options, drain_timeout_s), 0},
	{"--workers", CLI_ACCEPT_WORKERS, CLI_WORKERS_MAX,
	 __builtin_offsetof(struct cli_options, workers), 1},
	{"--max-files", CLI_ACCEPT_ROOT, CLI_MAX_FILES_MAX,
	 __builtin_offsetof(struct cli_options, max_files), 0},
};

/* Tries argv[*i] against the number flags `accept` turns on. Returns 1 when it was one
 * with a valid value (stored in opts), 0 when it was none of them, -1 when it was one
 * with a missing or bad value. */
static int parse_number_flag(int argc, char **argv, int *i, unsigned accept,
			     struct cli_options *opts)
{
	for (int f = 0; f < NUMBER_FLAG_COUNT; f++) {
		const struct number_flag *nf = &number_flags[f];
		int matched;
		if (!(accept & nf->accept))
			continue;
		const char *v = flag_value(argc, argv, i, nf->flag, &matched);
		if (!matched)
			continue;
		uint32_t n;
		if (nf->automatic && v && cstr_len(v) == 4 && span_eq(v, "auto", 4))
			n = CLI_WORKERS_AUTO;
		else if (!v || !parse_decimal(&v, nf->max, &n) || *v || !n)
			return -1;
		*(uint32_t *)((char *)opts + nf->offset) = n;
		return 1;
	}
	return 0;
}

/* Fills opts with every default. */
static void set_defaults(struct cli_options *opts)
{
	struct k_sockaddr_in listen = {
		.sin_family = K_AF_INET,
		.sin_port = to_be16(CLI_DEFAULT_PORT),
		.sin_addr = to_be32(CLI_DEFAULT_ADDR),
	};
	opts->listen = listen;
	opts->idle_timeout_s = CLI_DEFAULT_IDLE_S;
	opts->drain_timeout_s = CLI_DEFAULT_DRAIN_S;
	opts->workers = CLI_DEFAULT_WORKERS;
	opts->header_timeout_s = CLI_DEFAULT_HEADER_S;
	opts->send_timeout_s = CLI_DEFAULT_SEND_S;
	opts->max_connections = CLI_MAX_CONNECTIONS;
	opts->help = 0;
	opts->root = 0;
	opts->dotfiles = 0;
	opts->max_files = CLI_DEFAULT_MAX_FILES;
	opts->header_count = 0;
}

/* Tries argv[*i] as --header (repeatable). Returns 1 when it was one and was kept, 0 when
 * it was not one, -1 when its value is missing or one too many was given. */
static int parse_header_flag(int argc, char **argv, int *i, struct cli_options *opts)
{
	int matched;
	const char *v = flag_value(argc, argv, i, "--header", &matched);
	if (!matched)
		return 0;
	if (!v || opts->header_count == CLI_HEADERS_MAX)
		return -1;
	opts->headers[opts->header_count++] = v;
	return 1;
}

/* Returns 1 when arg is exactly the flag word (one that takes no value). */
static int is_word(const char *arg, const char *word, size_t len)
{
	return cstr_len(arg) == len && span_eq(arg, word, len);
}

int cli_parse(int argc, char **argv, unsigned accept, struct cli_options *opts)
{
	set_defaults(opts);
	for (int i = 1; i < argc; i++) {
		int matched;
		const char *v;
		if (is_word(argv[i], LITERAL("--help"))) {
			opts->help = 1;
			continue;
		}
		if ((accept & CLI_ACCEPT_ROOT) && is_word(argv[i], LITERAL("--dotfiles"))) {
			opts->dotfiles = 1;
			continue;
		}
		if (accept & CLI_ACCEPT_LISTEN) {
			v = flag_value(argc, argv, &i, "--listen", &matched);
			if (matched) {
				if (!v || !cli_parse_ipv4_port(v, &opts->listen))
					return 0;
				continue;
			}
		}
		if (accept & CLI_ACCEPT_ROOT) {
			v = flag_value(argc, argv, &i, "--root", &matched);
			if (matched) {
				if (!v || !*v)
					return 0;
				opts->root = v;
				continue;
			}
		}
		if (accept & CLI_ACCEPT_HEADER) {
			int header = parse_header_flag(argc, argv, &i, opts);
			if (header < 0)
				return 0;
			if (header)
				continue;
		}
		int number = parse_number_flag(argc, argv, &i, accept, opts);
		if (number != 1)
			return 0;
	}
	return 1;
}

size_t cli_format_announce(char *out, const char *name, size_t name_len,
			   const struct k_sockaddr_in *addr)
{
	static const char mid[] = " listening on ";
	char *p = copy_span(out, name, name_len);
	p = copy_span(p, mid, sizeof(mid) - 1);
	uint32_t ip = to_be32(addr->sin_addr);
	for (int shift = 24; shift >= 0; shift -= 8) {
		p += u64_to_dec((ip >> shift) & OCTET_MAX, p);
		*p++ = shift ? '.' : ':';
	}
	p += u64_to_dec(to_be16(addr->sin_port), p);
	*p++ = '\n';
	return (size_t)(p - out);
}
