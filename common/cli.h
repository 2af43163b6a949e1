/* Command-line parsing and the start-up line's text, shared by every tier. Pure: no
 * syscalls (listener.h writes what these produce). */
#ifndef APOLLOD_COMMON_CLI_H
#define APOLLOD_COMMON_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "common/kernel_consts.h"
#include "common/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define CLI_DEFAULT_ADDR 0x7f000001u /* 127.0.0.1, host byte order */
#define CLI_DEFAULT_PORT 8080
#define CLI_DEFAULT_IDLE_S 10
#define CLI_DEFAULT_HEADER_S 10   /* BEHAVIOUR 5: a head has this long from its first byte */
#define CLI_DEFAULT_SEND_S 60     /* BEHAVIOUR 5: a response may stall this long */
#define CLI_IDLE_MAX_S 86400      /* a day, for every timeout: longer is surely a typo */
#define CLI_MAX_CONNECTIONS 4096  /* == CONN_SLOTS: the default and the largest table */
#define CLI_DEFAULT_DRAIN_S 10
#define CLI_DEFAULT_WORKERS 1
#define CLI_WORKERS_MAX 64        /* serving processes */
#define CLI_WORKERS_AUTO 0        /* --workers auto: one per CPU this process may run on */
#define CLI_DEFAULT_MAX_FILES (1u << 20) /* --root: files and directories loaded at most */
#define CLI_MAX_FILES_MAX (1u << 24)     /* --max-files: 16 Mi entries, 768 MiB of table */
#define CLI_HEADERS_MAX 32               /* --header given at most this often */

/* What the command line asked for. */
struct cli_options {
	struct k_sockaddr_in listen; /* family, port and address in network byte order */
	uint32_t idle_timeout_s;     /* 1..CLI_IDLE_MAX_S */
	uint32_t header_timeout_s;   /* 1..CLI_IDLE_MAX_S */
	uint32_t send_timeout_s;     /* 1..CLI_IDLE_MAX_S */
	uint32_t max_connections;    /* 1..CLI_MAX_CONNECTIONS */
	uint32_t drain_timeout_s;    /* 1..CLI_IDLE_MAX_S: graceful stop's bound */
	uint32_t workers;            /* 1..CLI_WORKERS_MAX, or CLI_WORKERS_AUTO */
	uint8_t help;                /* --help was given */
	const char *root;            /* --root DIR, or NULL */
	uint8_t dotfiles;            /* --dotfiles: --root serves names starting with '.' */
	uint32_t max_files;          /* --max-files: 1..CLI_MAX_FILES_MAX */
	uint32_t header_count;       /* --header words in headers[], in order */
	const char *headers[CLI_HEADERS_MAX]; /* unchecked here: extra_fields.h checks them */
};

/* Which flags a tier accepts. */
#define CLI_ACCEPT_LISTEN 0x1
#define CLI_ACCEPT_IDLE_TIMEOUT 0x2 /* and --header-timeout, --send-timeout */
#define CLI_ACCEPT_ROOT 0x4 /* and --dotfiles, --max-files */
#define CLI_ACCEPT_MAX_CONNECTIONS 0x8
#define CLI_ACCEPT_WORKERS 0x10       /* --workers */
#define CLI_ACCEPT_DRAIN_TIMEOUT 0x20 /* --drain-timeout */
#define CLI_ACCEPT_HEADER 0x40        /* --header 'Name: value', repeatable */

/* Parses "a.b.c.d:port" (dotted quad, each part 0-255, port 0-65535, no spaces) into
 * addr. Returns 1 on success, 0 on any syntax error (addr is then unspecified). */
int cli_parse_ipv4_port(const char *s, struct k_sockaddr_in *addr);

/* Parses argv (argc entries, argv[0] skipped) into *opts, which it first fills with the
 * defaults. Flags take their value as the next word or after '=' (--listen=ADDR:PORT).
 * `accept` (CLI_ACCEPT_*) says which flags exist. Returns 1, or 0 on any bad flag or
 * value. */
int cli_parse(int argc, char **argv, unsigned accept, struct cli_options *opts);

/* Writes "<name> listening on a.b.c.d:port\n" into out (at least CLI_ANNOUNCE_MAX bytes)
 * and returns its length. */
#define CLI_ANNOUNCE_MAX 96
size_t cli_format_announce(char *out, const char *name, size_t name_len,
			   const struct k_sockaddr_in *addr);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_CLI_H */
