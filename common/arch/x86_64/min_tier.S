/* x86_64: the min tier's program, from the apollod_start that _start (start.S) calls with
 * the initial stack pointer in rdi, through the serving loop. What it does, its
 * constants and its data: common/arch/min_tier.h. Written by hand so the binary holds
 * only these instructions and the loop only what serving takes (the budget: BEHAVIOUR 8).
 *
 * Syscall ABI (syscall_arch.h): number in rax, arguments in rdi, rsi, rdx, r10, r8; the
 * result in rax, -errno on failure; rcx and r11 clobbered, every other register kept,
 * which the loop relies on (rdi holds the connection across read, write and close; r10
 * stays 0 for accept4). Failure test: a descriptor or 0 is never negative, -errno always
 * is. Registers: r12 the listening socket, ebx the port, edi the exit code at `leave`. */
#include <asm/unistd.h>

#include "common/arch/min_tier.h"

	.text
	.globl	apollod_start
	.type	apollod_start, @function
apollod_start:
	/* The port: argv[1] when argc is 2; no argument: the default; more: usage. */
	mov	(%rdi), %rcx
	mov	$MIN_DEFAULT_PORT, %ebx
	cmp	$MIN_ARGC_PORT, %rcx
	jb	start_listening
	jne	usage
	mov	MIN_STACK_ARGV1(%rdi), %rsi
	xor	%ebx, %ebx
digit:	/* At least one digit (an empty word's NUL is none), the value below the limit. */
	movzbl	(%rsi), %eax
	inc	%rsi
	sub	$'0', %eax
	cmp	$MIN_DECIMAL_BASE - 1, %eax
	ja	usage
	imul	$MIN_DECIMAL_BASE, %ebx, %ebx
	add	%eax, %ebx
	cmp	$MIN_PORT_LIMIT, %ebx
	jae	usage
	cmpb	$0, (%rsi)
	jne	digit

start_listening:
	/* rt_sigaction(SIGPIPE, SIG_IGN): a write to a peer that has gone fails with EPIPE
	 * instead of killing the process. Cannot fail with a valid struct. */
	mov	$__NR_rt_sigaction, %eax
	mov	$MIN_SIGPIPE, %edi
	mov	$min_ignore_sigpipe, %esi
	xor	%edx, %edx
	mov	$MIN_SIGSET_SIZE, %r10d
	syscall
	/* socket(AF_INET, SOCK_STREAM, 0) */
	mov	$__NR_socket, %eax
	mov	$MIN_AF_INET, %edi
	mov	$MIN_SOCK_STREAM, %esi
	xor	%edx, %edx
	syscall
	mov	$MIN_EXIT_SOCKET, %edi
	test	%rax, %rax
	js	leave
	mov	%eax, %r12d
	/* setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &1, 4): a restart binds past TIME_WAIT */
	mov	$__NR_setsockopt, %eax
	mov	%r12d, %edi
	mov	$MIN_SOL_SOCKET, %esi
	mov	$MIN_SO_REUSEADDR, %edx
	mov	$min_reuseaddr_on, %r10d
	mov	$MIN_INT_SIZE, %r8d
	syscall
	mov	$MIN_EXIT_SETSOCKOPT, %edi
	test	%rax, %rax
	js	leave
	/* bind(fd, 127.0.0.1:port, 16); the port in network byte order */
	rol	$8, %bx
	mov	%bx, min_address + MIN_SIN_PORT_OFFSET
	mov	$__NR_bind, %eax
	mov	%r12d, %edi
	mov	$min_address, %esi
	mov	$MIN_SOCKADDR_IN_SIZE, %edx
	syscall
	mov	$MIN_EXIT_BIND, %edi
	test	%rax, %rax
	js	leave
	/* listen(fd, backlog) */
	mov	$__NR_listen, %eax
	mov	%r12d, %edi
	mov	$MIN_LISTEN_BACKLOG, %esi
	syscall
	mov	$MIN_EXIT_LISTEN, %edi
	test	%rax, %rax
	js	leave
	xor	%r10d, %r10d		/* accept4's flags, for every round */

serve:	/* accept4(fd, NULL, NULL, 0): no peer address, so no ECONNABORTED (see BEHAVIOUR 8) */
	mov	$__NR_accept4, %eax
	mov	%r12d, %edi
	xor	%esi, %esi
	xor	%edx, %edx
	syscall
	test	%rax, %rax
	js	accept_failed
	/* read(conn, request, size): the request, whatever it is, is not looked at */
	mov	%eax, %edi
	mov	$__NR_read, %eax
	mov	$min_request, %esi
	mov	$MIN_READ_SIZE, %edx
	syscall
	/* write(conn, response, size); a failure (a peer gone) only ends this round */
	mov	$__NR_write, %eax
	mov	$min_response, %esi
	mov	$MIN_RESPONSE_SIZE, %edx
	syscall
	/* close(conn) */
	mov	$__NR_close, %eax
	syscall
	jmp	serve

usage:
	mov	$MIN_EXIT_USAGE, %edi
	jmp	leave
accept_failed:
	mov	$MIN_EXIT_ACCEPT, %edi
leave:	/* exit_group(edi); never returns, hlt faults if it did */
	mov	$__NR_exit_group, %eax
	syscall
	hlt
	.size	apollod_start, .-apollod_start
	.section .note.GNU-stack, "", @progbits
