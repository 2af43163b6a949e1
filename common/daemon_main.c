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
	"usage: apollod [--listen ADDR:PORT] [--idle-timeout SECONDS] [--root DIR] [--help]\n";

#define MS_PER_S 1000u

int apollod_main(int argc, char **argv, char **envp, const uint64_t *auxv)
{
	(void)envp;
	struct cli_options opts;
	int done = startup_options(argc, argv,
				   CLI_ACCEPT_LISTEN | CLI_ACCEPT_IDLE_TIMEOUT | CLI_ACCEPT_ROOT,
				   LITERAL(usage), &opts);
	if (done != STARTUP_CONTINUE)
		return done;
	ignore_sigpipe(); /* cannot fail for SIGPIPE with a valid struct */
	if (opts.root) { /* before the socket: a bad tree never opens a port */
		enum exit_code loaded = file_cache_load(opts.root);
		if (loaded != EXIT_OK)
			return loaded;
		counter_add(C_files_cached, file_cache_count());
		counter_add(C_bytes_cached, file_cache_bytes());
	}

	int fd;
	enum exit_code r = listener_open(&opts.listen, BACKEND_LISTENER_FLAGS, &fd);
	if (r != EXIT_OK)
		return r;
	listener_announce(LITERAL("apollod"), &opts.listen);
	r = backend_open();
	if (r != EXIT_OK)
		return r;
	idle_init(auxv, (uint64_t)opts.idle_timeout_s * MS_PER_S);
	conn_setup(opts.root ? file_cache_find : 0);
	return loop_run(fd);
}
