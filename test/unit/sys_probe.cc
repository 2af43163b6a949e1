// The common/base/sys.h wrappers exported as function pointers (see sys_probe.h). Only
// common/ headers here.
#include "test/unit/sys_probe.h"

#include "common/base/sys.h"

const struct sys_wrappers sys_wrappers = {
	sys_is_error, sys_write, sys_close,  sys_socket, sys_getsockname,
	sys_accept4,  sys_send,  sys_clock_gettime, sys_prlimit64,
	sys_inotify_init1, sys_inotify_add_watch, sys_ppoll,
};
