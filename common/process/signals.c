/* Signals as readable events (see signals.h). */
#include "common/process/signals.h"

#include <linux/signalfd.h> /* struct signalfd_siginfo, SFD_* */

#include "common/base/sys.h"

long signals_watch(uint64_t mask, int nonblock)
{
	long r = sys_rt_sigprocmask(K_SIG_BLOCK, &mask, 0);
	if (sys_is_error(r))
		return r;
	return sys_signalfd4(-1, &mask, SFD_CLOEXEC | (nonblock ? SFD_NONBLOCK : 0));
}

long signals_next(int signal_fd)
{
	struct signalfd_siginfo info;
	long n = sys_read(signal_fd, &info, sizeof(info));
	if (n == -EAGAIN)
		return 0;
	if (sys_is_error(n))
		return n;
	/* signalfd(2): a read returns whole signalfd_siginfo structures only. */
	return n == sizeof(info) ? (long)info.ssi_signo : -EIO;
}
