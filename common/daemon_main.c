/* apollod_main for the routed tiers (full, nodeadline, asm-hotpath): command line,
 * start-up in BEHAVIOUR 3 order, then the event loop. */
#include "common/cli.h"
#include "common/conn.h"
#include "common/counters.h"
#include "common/event_backend.h"
#include "common/exit_codes.h"
#include "common/file_cache.h"
#include "common/idle.h"
#include "common/listener.h"
#include "common/loop.h"
#include "common/span.h"
#include "common/start.h"
#include "common/sys.h"

static const char usage[] =
	"usage: apollod [--listen ADDR:PORT] [--idle-timeout SECONDS] [--header-timeout SECONDS] "
	"[--send-timeout SECONDS] [--max-connections N] [--root DIR] [--help]\n";

#define MS_PER_S 1000u
STATIC_ASSERT(CLI_MAX_CONNECTIONS == CONN_SLOTS, "--max-connections bounds the table");

/* Sets the soft RLIMIT_NOFILE to the descriptors the table indexes (CONN_SLOTS), or the
 * hard limit if that is lower (BEHAVIOUR 4): under Debian's soft 1024 the table would
 * otherwise end at descriptor 1023, and with more than CONN_SLOTS a descriptor the table
 * cannot hold would be accepted, where EMFILE lets the loop evict instead. A failure
 * leaves the limit as it was: the daemon serves with fewer connections. */
static void set_descriptor_limit(void)
{
	struct k_rlimit lim;
	if (sys_is_error(sys_prlimit64(0, K_RLIMIT_NOFILE, 0, &lim)))
		return;
	uint64_t want = lim.rlim_max < CONN_SLOTS ? lim.rlim_max : CONN_SLOTS;
	if (lim.rlim_cur == want)
		return;
	lim.rlim_cur = want;
	sys_prlimit64(0, K_RLIMIT_NOFILE, &lim, 0);
}

/* The kinds' lengths (idle.h) from the command line, in milliseconds. */
static void deadline_lengths(const struct cli_options *opts, uint64_t ms[IDLE_KINDS])
{
	ms[IDLE_WAITING] = (uint64_t)opts->idle_timeout_s * MS_PER_S;
	ms[IDLE_HEAD] = (uint64_t)opts->header_timeout_s * MS_PER_S;
	ms[IDLE_SEND] = (uint64_t)opts->send_timeout_s * MS_PER_S;
}

int apollod_main(int argc, char **argv, char **envp, const uint64_t *auxv)
{
	(void)envp;
	struct cli_options opts;
	int done = startup_options(argc, argv,
				   CLI_ACCEPT_LISTEN | CLI_ACCEPT_IDLE_TIMEOUT | CLI_ACCEPT_ROOT |
					   CLI_ACCEPT_MAX_CONNECTIONS,
				   LITERAL(usage), &opts);
	if (done != STARTUP_CONTINUE)
		return done;
	ignore_sigpipe(); /* cannot fail for SIGPIPE with a valid struct */
	set_descriptor_limit();
	if (opts.root) { /* before the socket: a bad tree never opens a port */
		enum exit_code loaded = file_cache_load(opts.root);
		if (loaded != EXIT_OK)
			return loaded;
		counter_add(C_files_cached, file_cache_count());
		counter_add(C_bytes_cached, file_cache_bytes());
	}

	int fd;
	enum exit_code r = listener_open(&opts.listen, K_SOCK_NONBLOCK, &fd);
	if (r != EXIT_OK)
		return r;
	listener_announce(LITERAL("apollod"), &opts.listen);
	if (sys_is_error(backend_open()))
		return EXIT_EPOLL_CREATE;
	uint64_t deadline_ms[IDLE_KINDS];
	deadline_lengths(&opts, deadline_ms);
	idle_init(auxv, deadline_ms);
	conn_setup(opts.root ? file_cache_find : 0, opts.max_connections);
	return loop_run(fd);
}
