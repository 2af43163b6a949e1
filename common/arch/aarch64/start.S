/* aarch64 process entry. The kernel starts us with sp pointing at argc, followed by the
 * argv pointers, NULL, the envp pointers, NULL, then the auxiliary vector
 * (arch/arm64: start_thread, create_elf_tables); sp is 16-byte aligned, as AAPCS64
 * requires at every call. We pass the stack pointer on in x0, clear the frame pointer
 * (x29) and the link register (x30) to end frame-record walks (gdb backtraces stop
 * here), and call C. apollod_start() never returns; brk traps if it ever did. */
	.text
	.globl	_start
	.type	_start, %function
_start:
	mov	x29, #0
	mov	x30, #0
	mov	x0, sp
	bl	apollod_start
	brk	#0
	.size	_start, .-_start
	.section .note.GNU-stack, "", %progbits
