/* aarch64: the min tier's program, from the apollod_start that _start (start.S) calls with
 * the initial stack pointer in x0, through the serving loop. What it does, its constants
 * and its data: common/arch/min_tier.h. Written by hand so the binary holds only these
 * instructions and the loop only what serving takes (the budget: BEHAVIOUR 8).
 *
 * Syscall ABI (syscall_arch.h): number in x8, arguments in x0-x5, `svc #0`; the result
 * in x0, -errno on failure; every other register kept, which the loop relies on (x3
 * stays 0 for accept4). Failure test: a descriptor or 0 is never negative, -errno always
 * is (tbnz on bit 63). Addresses by adr: the whole static binary is far inside its
 * +-1 MiB reach (the link fails if it ever is not). Registers: x19 the port, x20 the
 * exit code at `exit`, x21 the listening socket, x22 the connection. */
#include <asm/unistd.h>

#include "common/arch/min_tier.h"

	.text
	.globl	apollod_start
	.type	apollod_start, %function
apollod_start:
	/* The port: argv[1] when argc is 2; no argument: the default; more: usage. */
	ldr	x9, [x0]
	mov	x19, #MIN_DEFAULT_PORT
	cmp	x9, #MIN_ARGC_PORT
	b.lo	start_listening
	b.ne	usage
	ldr	x10, [x0, #MIN_STACK_ARGV1]
	mov	x19, #0
	ldrb	w11, [x10], #1
digit:	/* At least one digit (an empty word's NUL is none), the value below the limit. */
	sub	w11, w11, #'0'
	cmp	w11, #MIN_DECIMAL_BASE - 1
	b.hi	usage
	add	x19, x19, x19, lsl #2	/* port * 5 */
	add	x19, x11, x19, lsl #1	/* * 2 + digit */
	cmp	x19, #MIN_PORT_LIMIT
	b.hs	usage
	ldrb	w11, [x10], #1
	cbnz	w11, digit

start_listening:
	/* rt_sigaction(SIGPIPE, SIG_IGN): a write to a peer that has gone fails with EPIPE
	 * instead of killing the process. Cannot fail with a valid struct. */
	mov	x0, #MIN_SIGPIPE
	adr	x1, min_ignore_sigpipe
	mov	x2, #0
	mov	x3, #MIN_SIGSET_SIZE
	mov	x8, #__NR_rt_sigaction
	svc	#0
	/* socket(AF_INET, SOCK_STREAM, 0) */
	mov	x0, #MIN_AF_INET
	mov	x1, #MIN_SOCK_STREAM
	mov	x2, #0
	mov	x8, #__NR_socket
	svc	#0
	mov	x20, #MIN_EXIT_SOCKET
	tbnz	x0, #63, leave
	mov	x21, x0
	/* setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &1, 4): a restart binds past TIME_WAIT */
	mov	x1, #MIN_SOL_SOCKET
	mov	x2, #MIN_SO_REUSEADDR
	adr	x3, min_reuseaddr_on
	mov	x4, #MIN_INT_SIZE
	mov	x8, #__NR_setsockopt
	svc	#0
	mov	x20, #MIN_EXIT_SETSOCKOPT
	tbnz	x0, #63, leave
	/* bind(fd, 127.0.0.1:port, 16); the port in network byte order */
	rev16	w19, w19
	adr	x1, min_address
	strh	w19, [x1, #MIN_SIN_PORT_OFFSET]
	mov	x0, x21
	mov	x2, #MIN_SOCKADDR_IN_SIZE
	mov	x8, #__NR_bind
	svc	#0
	mov	x20, #MIN_EXIT_BIND
	tbnz	x0, #63, leave
	/* listen(fd, backlog) */
	mov	x0, x21
	mov	x1, #MIN_LISTEN_BACKLOG
	mov	x8, #__NR_listen
	svc	#0
	mov	x20, #MIN_EXIT_LISTEN
	tbnz	x0, #63, leave
	mov	x3, #0			/* accept4's flags, for every round */
	mov	x20, #MIN_EXIT_ACCEPT

serve:	/* accept4(fd, NULL, NULL, 0): no peer address, so no ECONNABORTED (see BEHAVIOUR 8) */
	mov	x8, #__NR_accept4
	mov	x0, x21
	mov	x1, #0
	mov	x2, #0
	svc	#0
	tbnz	x0, #63, leave
	mov	x22, x0
	/* read(conn, request, size): the request, whatever it is, is not looked at */
	mov	x8, #__NR_read
	adr	x1, min_request
	mov	x2, #MIN_READ_SIZE
	svc	#0
	/* write(conn, response, size); a failure (a peer gone) only ends this round */
	mov	x0, x22
	mov	x8, #__NR_write
	adr	x1, min_response
	mov	x2, #MIN_RESPONSE_SIZE
	svc	#0
	/* close(conn) */
	mov	x0, x22
	mov	x8, #__NR_close
	svc	#0
	b	serve

usage:
	mov	x20, #MIN_EXIT_USAGE
leave:	/* exit_group(x20); never returns, brk traps if it did */
	mov	x0, x20
	mov	x8, #__NR_exit_group
	svc	#0
	brk	#0
	.size	apollod_start, .-apollod_start
	.section .note.GNU-stack, "", %progbits
