/* The min tier's contract between its program (common/arch/<cpu>/min_tier.S: the
 * apollod_start that the arch's _start calls, through the serving loop) and its data
 * (variants/min/min.c). Included by the assembly, so outside the __ASSEMBLER__ block
 * there are only numbers; min.c checks each against exit_codes.h, kernel_consts.h and
 * the kernel's own headers with STATIC_ASSERT.
 *
 * The program (BEHAVIOUR 8): the port from argv[1] (decimal, below MIN_PORT_LIMIT; no
 * argument: MIN_DEFAULT_PORT; anything else, or more words: exit MIN_EXIT_USAGE);
 * SIGPIPE ignored; socket, SO_REUSEADDR, bind 127.0.0.1:port, listen, each exiting with
 * its code on failure; then forever accept4, one read of up to MIN_READ_SIZE bytes, one
 * write of min_response, close; a failed accept4 exits MIN_EXIT_ACCEPT. Nothing is
 * written but the response. */
#ifndef APOLLOD_COMMON_ARCH_MIN_TIER_H
#define APOLLOD_COMMON_ARCH_MIN_TIER_H

#define MIN_DEFAULT_PORT 8080 /* the routed tiers' default port too */
#define MIN_PORT_LIMIT 65536  /* ports are below it */
#define MIN_DECIMAL_BASE 10
#define MIN_ARGC_PORT 2       /* argv[0], then the port */
#define MIN_STACK_ARGV1 16    /* initial stack: argc, argv[0], argv[1], 8 bytes each */
/* One read takes the whole request of any ordinary client, so close(2) finds nothing
 * unread and ends the connection with a FIN, not a reset that could cut the reply. */
#define MIN_READ_SIZE 8192
#define MIN_RESPONSE_SIZE 59  /* bytes of min_response */
#define MIN_LISTEN_BACKLOG 128
#define MIN_SIN_PORT_OFFSET 2 /* sin_port in struct sockaddr_in */

/* Exit codes (exit_codes.h). */
#define MIN_EXIT_SOCKET 1
#define MIN_EXIT_SETSOCKOPT 2
#define MIN_EXIT_BIND 3
#define MIN_EXIT_LISTEN 4
#define MIN_EXIT_ACCEPT 5
#define MIN_EXIT_USAGE 64

/* Kernel numbers whose UAPI headers the assembler cannot read (kernel_consts.h,
 * <asm/socket.h>). Syscall numbers come from <asm/unistd.h>. */
#define MIN_AF_INET 2
#define MIN_SOCK_STREAM 1
#define MIN_SOL_SOCKET 1
#define MIN_SO_REUSEADDR 2
#define MIN_SIGPIPE 13
#define MIN_SIGSET_SIZE 8
#define MIN_SOCKADDR_IN_SIZE 16
#define MIN_INT_SIZE 4

/* The data the program reads and writes (min_response, min_request, min_address,
 * min_ignore_sigpipe, min_reuseaddr_on) is defined and declared in variants/min/min.c: this
 * header stays below every layer (arch), and those types are base's (kernel_consts.h). */

#endif /* APOLLOD_COMMON_ARCH_MIN_TIER_H */
