/* apollod-min, the floor: the data of the min tier's program and the checks of its
 * constants. The program itself (socket, SO_REUSEADDR, bind, listen, then forever
 * accept, one read, one write of a fixed 200 OK, close) is common/arch/<cpu>/min_tier.S,
 * called by the arch's _start; min_tier.h is the contract between the two. Nothing else
 * is linked: no command line beyond the port, no messages, no parser, routing, counters
 * or deadlines (BEHAVIOUR 8). */
#include <asm/socket.h> /* SOL_SOCKET, SO_REUSEADDR */

#include "common/arch/min_tier.h"
#include "common/base/exit_codes.h"
#include "common/base/kernel_consts.h"
#include "common/base/static_assert.h"

#define MIN_BODY "OK"
#define MIN_BODY_LEN 2
/* Only what HTTP/1.1 framing needs: no Content-Type, no Date. Written out rather than
 * built from responses.h's pieces, whose header (and the ones it includes) would be
 * most of the floor's source. */
#define MIN_RESPONSE                                                                   \
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n" MIN_BODY
#define MIN_LOOPBACK_BE 0x0100007fu /* 127.0.0.1 as its bytes lie in memory (big-endian) */

STATIC_ASSERT(sizeof(MIN_BODY) - 1 == MIN_BODY_LEN, "Content-Length: 2 matches the body");
STATIC_ASSERT(sizeof(MIN_RESPONSE) - 1 == MIN_RESPONSE_SIZE, "the program writes it whole");

/* What the program (common/arch/<cpu>/min_tier.S) reads and writes, by these names. */
extern const char min_response[];                   /* MIN_RESPONSE_SIZE bytes */
extern char min_request[MIN_READ_SIZE];             /* every read lands here, unread */
extern struct k_sockaddr_in min_address;            /* 127.0.0.1; the program stores the port */
extern const struct k_sigaction min_ignore_sigpipe; /* SIG_IGN */
extern const int min_reuseaddr_on;                  /* 1: setsockopt's value */

const char min_response[MIN_RESPONSE_SIZE] = MIN_RESPONSE; /* no NUL: written by size */
char min_request[MIN_READ_SIZE];
struct k_sockaddr_in min_address = {
	.sin_family = K_AF_INET,
	.sin_port = 0, /* the program stores the port */
	.sin_addr = MIN_LOOPBACK_BE,
};
const struct k_sigaction min_ignore_sigpipe = {.handler = K_SIG_IGN}; /* no restorer needed */
const int min_reuseaddr_on = 1;

/* The numbers the assembly is built with, against the headers that define them. */
STATIC_ASSERT(MIN_EXIT_SOCKET == EXIT_SOCKET, "exit_codes.h");
STATIC_ASSERT(MIN_EXIT_SETSOCKOPT == EXIT_SETSOCKOPT, "exit_codes.h");
STATIC_ASSERT(MIN_EXIT_BIND == EXIT_BIND, "exit_codes.h");
STATIC_ASSERT(MIN_EXIT_LISTEN == EXIT_LISTEN, "exit_codes.h");
STATIC_ASSERT(MIN_EXIT_ACCEPT == EXIT_ACCEPT, "exit_codes.h");
STATIC_ASSERT(MIN_EXIT_USAGE == EXIT_USAGE, "exit_codes.h");
STATIC_ASSERT(MIN_AF_INET == K_AF_INET, "kernel_consts.h");
STATIC_ASSERT(MIN_SOCK_STREAM == K_SOCK_STREAM, "kernel_consts.h");
STATIC_ASSERT(MIN_SOL_SOCKET == SOL_SOCKET, "asm/socket.h");
STATIC_ASSERT(MIN_SO_REUSEADDR == SO_REUSEADDR, "asm/socket.h");
STATIC_ASSERT(MIN_SIGPIPE == K_SIGPIPE, "kernel_consts.h");
STATIC_ASSERT(MIN_SIGSET_SIZE == K_SIGSET_SIZE, "kernel_consts.h");
STATIC_ASSERT(MIN_SOCKADDR_IN_SIZE == sizeof(struct k_sockaddr_in), "bind's length");
STATIC_ASSERT(MIN_SIN_PORT_OFFSET == __builtin_offsetof(struct k_sockaddr_in, sin_port),
	      "where the program stores the port");
STATIC_ASSERT(MIN_INT_SIZE == sizeof(min_reuseaddr_on), "setsockopt's length");
STATIC_ASSERT(MIN_STACK_ARGV1 == sizeof(long) + sizeof(char *), "argc, argv[0], then argv[1]");
STATIC_ASSERT(MIN_PORT_LIMIT == 1 << 16, "sin_port is 16 bits");
