/* x86_64 process entry. The kernel starts us with rsp pointing at argc, followed by the
 * argv pointers, NULL, the envp pointers, NULL, then the auxiliary vector
 * (System V x86_64 psABI 3.4.1). rsp is 16-byte aligned here but no return address was
 * pushed, so we pass the stack pointer on, clear rbp to end frame-pointer walks (gdb
 * backtraces stop here), realign and call C. apollod_start() never returns. */
	.text
	.globl	_start
	.type	_start, @function
_start:
	xorl	%ebp, %ebp
	movq	%rsp, %rdi
	andq	$-16, %rsp
	call	apollod_start
	hlt
	.size	_start, .-_start
	.section .note.GNU-stack, "", @progbits
