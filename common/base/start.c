/* Splits the initial stack into argc, argv, envp and auxv and runs apollod_main().
 * Layout (System V psABI, "Initial Process Stack"): argc, argv[0..argc-1], NULL,
 * envp[...], NULL, auxv pairs, AT_NULL. */
#include "common/base/start.h"

#include "common/base/console.h"
#include "common/base/exit_codes.h"
#include "common/base/stack_guard.h"
#include "common/base/sys.h"

void apollod_start(long *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	char **envp = argv + argc + 1;
	char **e = envp;
	while (*e)
		e++;
	const uint64_t *auxv = (const uint64_t *)(e + 1);
	long guard = stack_guard_init(auxv); /* before any linked code checks it */
	if (sys_is_error(guard)) {
		console_fail("arch_prctl", "ARCH_SET_FS", sizeof("ARCH_SET_FS") - 1, guard);
		sys_exit_group(EXIT_STACK_GUARD);
	}
	sys_exit_group(apollod_main(argc, argv, envp, auxv));
}
