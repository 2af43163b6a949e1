/* Signals as readable events (see signals.h). */
#include "common/process/signals.h"

#include <linux/signalfd.h> /* struct signalfd_siginfo, SFD_* */

#include "common/base/sys.h"

/* Sets the action of every signal in mask to handler (K_SIG_IGN or K_SIG_DFL). */
static void set_actions(uint64_t mask, uint64_t handler)
{
	struct k_sigaction act = {.handler = handler};
	for (int sig = 1; sig <= K_SIGNAL_MAX; sig++)
		if (mask & K_SIGBIT(sig))
			sys_rt_sigaction(sig, &act, 0);
}

void signals_ignore_strays(void)
{
	set_actions(SIGNALS_STRAY, K_SIG_IGN);
}

long signals_watch(uint64_t mask, int nonblock)
{
	long r = sys_rt_sigprocmask(K_SIG_BLOCK, &mask, 0);
	if (sys_is_error(r))
		return r;
	set_actions(mask & SIGNALS_STRAY, K_SIG_DFL);
	return sys_signalfd4(-1, &mask, SFD_CLOEXEC | (nonblock ? SFD_NONBLOCK : 0));
}

/* Whether a signal read is an internal one (SIGNALS_REALTIME) that this process's parent
 * did not send: signals_next reads past it. */
static int from_stranger(const struct signalfd_siginfo *info)
{
	return (SIGNALS_REALTIME & K_SIGBIT(info->ssi_signo)) &&
	       (long)info->ssi_pid != sys_getppid();
}

long signals_next(int signal_fd)
{
	struct signalfd_siginfo info;
	long n;
	do {
		n = sys_read(signal_fd, &info, sizeof(info));
	} while (n == sizeof(info) && from_stranger(&info));
	if (n == -EAGAIN)
		return 0;
	if (sys_is_error(n))
		return n;
	/* signalfd(2): a read returns whole signalfd_siginfo structures only. */
	return n == sizeof(info) ? (long)info.ssi_signo : -EIO;
}
