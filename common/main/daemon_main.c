/* apollod_main for the routed tiers (full, nodeadline, asm-hotpath, uring): command line,
 * start-up in BEHAVIOUR 3 order, then the process started becomes the resident supervisor
 * (supervisor.h) and its first serving generation, forked, runs one serving loop, or N
 * workers under a supervisor of their own (--workers). A generation started by a reload
 * runs the same start-up with the sockets passed. */
#include <linux/fcntl.h> /* AT_FDCWD */

#include "common/serve/access_log.h"
#include "common/process/activation.h"
#include "common/process/cli.h"
#include "common/process/config_file.h"
#include <linux/fcntl.h> /* O_RDONLY, O_CLOEXEC, AT_FDCWD: --headers FILE */

#include "common/answer/compress.h"
#include "common/base/clock.h"
#include "common/serve/conn.h"
#include "common/base/console.h"
#include "common/base/counters.h"
#include "common/base/errno_text.h"
#include "common/process/counter_page.h"
#include "common/process/headers_file.h"
#include "common/serve/event_backend.h"
#include "common/base/exit_codes.h"
#include "common/answer/extra_fields.h"
#include "common/answer/site.h"
#include "common/answer/path_fields.h"
#include "common/answer/metrics.h"
#include "common/answer/mime_types.h"
#include "common/answer/redirects.h"
#include "common/answer/sites.h"
#include "common/serve/deadline.h"
#include "common/process/listener.h"
#include "common/serve/loop.h"
#include "common/process/reload.h"
#include "common/process/sandbox.h"
#include "common/process/signals.h"
#include "common/process/supervisor.h"
#include "common/process/watch.h"
#include "common/base/span.h"
#include "common/base/start.h"
#include "common/base/sys.h"
#include "common/process/workers.h"

#ifndef APOLLOD_TIER_NAME
#error "APOLLOD_TIER_NAME is set by apollod_tier() (bazel/tier.bzl)"
#endif

/* BEHAVIOUR 7.2: apollod_build_info's tier label (metrics.h). */
const char apollod_tier_name[] = APOLLOD_TIER_NAME;
STATIC_ASSERT(sizeof(APOLLOD_TIER_NAME) - 1 <= METRICS_TIER_MAX, "the label is whole");

/* The routed tiers' name and flags. */
static const struct program routed = {
	"apollod", APOLLOD_TIER_NAME,
	CLI_ACCEPT_LISTEN | CLI_ACCEPT_LISTEN_MANY | CLI_ACCEPT_IDLE_TIMEOUT | CLI_ACCEPT_ROOT |
		CLI_ACCEPT_MAX_CONNECTIONS | CLI_ACCEPT_WORKERS | CLI_ACCEPT_DRAIN_TIMEOUT |
		CLI_ACCEPT_ACCESS_LOG | CLI_ACCEPT_HEADER | CLI_ACCEPT_SANDBOX | CLI_ACCEPT_CONFIG,
};

#define MS_PER_S 1000u
STATIC_ASSERT(CLI_MAX_CONNECTIONS == CONN_SLOTS, "--max-connections bounds the table");
STATIC_ASSERT(CLI_LISTEN_MAX == LISTENERS_MAX, "the loop serves every --listen address");
STATIC_ASSERT(CLI_LOG_FORMATS == ACCESS_LOG_JSON + 1 && ACCESS_LOG_COMMON == 0 &&
		      ACCESS_LOG_COMBINED == 1,
	      "--access-log-format's words are enum access_log_format in order");
STATIC_ASSERT(CLI_WORKERS_MAX * CLI_LISTEN_MAX <= RELOAD_FDS_MAX, "a reload passes them all");
STATIC_ASSERT(CLI_DEFAULT_CACHE_BYTES == SITE_BUDGET_DEFAULT &&
		      CLI_CACHE_BYTES_MAX == SITE_BUDGET_MAX,
	      "--cache-bytes: one default, one bound");
STATIC_ASSERT(CLI_DEFAULT_COMPRESS_LEVEL == COMPRESS_LEVEL_DEFAULT &&
		      CLI_COMPRESS_LEVEL_MAX == COMPRESS_LEVEL_MAX,
	      "--compress-level: one default, one bound");

/* Descriptors one ppoll asks about while counting the open ones (2 KiB of stack). */
#define DESCRIPTOR_PROBE_BATCH 256u

/* Sets the soft RLIMIT_NOFILE to DESCRIPTOR_BUDGET, or to the hard limit if that is
 * lower (BEHAVIOUR 4): under Debian's soft 1024 the table would otherwise end at
 * descriptor 1023, and a larger limit buys nothing (connection_capacity never uses it).
 * A failure leaves the limit as it was: connection_capacity sizes the table from it. */
static void set_descriptor_limit(void)
{
	struct k_rlimit lim;
	if (sys_is_error(sys_prlimit64(0, K_RLIMIT_NOFILE, 0, &lim)))
		return;
	uint64_t want = lim.rlim_max < DESCRIPTOR_BUDGET ? lim.rlim_max : DESCRIPTOR_BUDGET;
	if (lim.rlim_cur == want)
		return;
	lim.rlim_cur = want;
	sys_prlimit64(0, K_RLIMIT_NOFILE, &lim, 0);
}

/* Counts the open descriptors in [begin, end): one ppoll per batch, no events asked and
 * no wait, which marks each closed descriptor POLLNVAL (poll(2)). end is at most the soft
 * limit (ppoll refuses more entries than RLIMIT_NOFILE). A failed ppoll counts its batch
 * as open: the table comes out smaller, never too big. */
static uint32_t open_descriptors(uint32_t begin, uint32_t end)
{
	uint32_t open = 0;
	struct k_pollfd probe[DESCRIPTOR_PROBE_BATCH];
	struct k_timespec now = {0, 0};
	for (uint32_t base = begin; base < end; base += DESCRIPTOR_PROBE_BATCH) {
		uint32_t n = end - base < DESCRIPTOR_PROBE_BATCH ? end - base : DESCRIPTOR_PROBE_BATCH;
		for (uint32_t i = 0; i < n; i++)
			probe[i] = (struct k_pollfd){(int32_t)(base + i), 0, 0};
		long r = sys_ppoll(probe, n, &now);
		for (uint32_t i = 0; i < n; i++)
			open += sys_is_error(r) || !(probe[i].revents & K_POLLNVAL);
	}
	return open;
}

/* How many connections this serving process may hold, called once its own descriptors
 * (listeners, backend, signalfd, snapshot, log) are open (BEHAVIOUR 4), the readiness
 * socket left out: reload_ready closes it before the first accept. At most `asked`
 * (--max-connections); each connection's socket must fit below CONN_SLOTS beside the
 * daemon's own descriptors there; and the soft limit must hold the daemon's own, two per
 * connection (its socket and a file it may be sending from disk) and one more, so that
 * accept4 has a descriptor for the connection that evicts another. At least 1. */
static uint32_t connection_capacity(uint32_t asked)
{
	struct k_rlimit lim = {CONN_SLOTS, CONN_SLOTS}; /* if unreadable: the table's own */
	sys_prlimit64(0, K_RLIMIT_NOFILE, 0, &lim);
	uint32_t limit = lim.rlim_cur < DESCRIPTOR_BUDGET ? (uint32_t)lim.rlim_cur
							  : DESCRIPTOR_BUDGET;
	uint32_t slots_end = limit < CONN_SLOTS ? limit : CONN_SLOTS;
	uint32_t own_low = open_descriptors(0, slots_end);
	uint32_t own_high = open_descriptors(slots_end, limit);
	int ready = reload_ready_fd(); /* open now, closed before the first accept */
	if (ready >= 0)
		*((uint32_t)ready < slots_end ? &own_low : &own_high) -= 1;
	uint32_t own = own_low + own_high;
	uint32_t cap = CONN_SLOTS - own_low;
	uint32_t by_limit = limit > own + 1 ? (limit - own - 1) / 2 : 0;
	if (cap > by_limit)
		cap = by_limit;
	if (cap > asked)
		cap = asked;
	return cap ? cap : 1;
}

/* The kinds' lengths (deadline.h) from the command line, in milliseconds. */
static void deadline_lengths(const struct cli_options *opts, uint64_t ms[DEADLINE_KINDS])
{
	ms[DEADLINE_WAITING] = (uint64_t)opts->idle_timeout_s * MS_PER_S;
	ms[DEADLINE_HEAD] = (uint64_t)opts->header_timeout_s * MS_PER_S;
	ms[DEADLINE_SEND] = (uint64_t)opts->send_timeout_s * MS_PER_S;
}

/* What every serving process needs. */
struct serve_plan {
	struct cli_options opts;
	const uint64_t *auxv;
	/* Site s (sites.h): its settings (0: --root's, from the options; s: --site s's),
	 * then its --error-page and --fallback as found in its snapshot */
	uint32_t site_count; /* 1 + the --site count */
	uint64_t gzip_pending; /* every site's gzip forms the first load left (load_sites) */
	struct cli_site site[SITES_MAX];
	struct site_pages pages[SITES_MAX];
	/* worker i serves listen_fd[i][0..opts.listen_count): one socket per address, the
	 * same in every row (bound here, or passed by a service manager or a reload), or
	 * its own group's when a reload passed one group per worker (groups > 1) */
	int listen_fd[CLI_WORKERS_MAX][CLI_LISTEN_MAX];
	int passed; /* sockets passed by socket activation (0: none, bind opts.listen) */
	int groups; /* passed by a reload from a daemon that gave each worker a socket of its
		     * own (APOLLOD_LISTEN_GROUPS): one group per worker; else 1 */
	/* Each site's --headers FILE: its text, which its --header-for pairs point into, and
	 * the line of each pair (0: the command line's or the --config file's) */
	char headers_text[SITES_MAX][HEADERS_FILE_MAX + 1];
	uint32_t header_for_line[SITES_MAX][CLI_HEADER_FOR_MAX];
};

/* The start-up's state, static: the plan outlives the fork (the workers read it), and
 * the passed sockets (14 KiB of addresses) are too large for a stack frame. */
struct main_state {
	struct serve_plan plan;
	/* What socket activation passed, before take_passed sorts it into the plan: */
	union k_sockaddr passed_addr[CLI_WORKERS_MAX * CLI_LISTEN_MAX];
	int passed_fd[CLI_WORKERS_MAX * CLI_LISTEN_MAX];
	/* The command line, and the settings as read at start (before --workers auto is
	 * resolved or passed sockets replace --listen), which a reload's are checked
	 * against (BEHAVIOUR 17), the reload's read into `reread`: */
	int argc;
	char **argv;
	struct cli_options started;
	struct cli_options reread;
	struct config_file config_started; /* the file's text `started` points into */
	struct config_file config_reread;
};
static struct main_state main_state;

/* Whether every worker serves the same sockets (BEHAVIOUR 12: one accept queue per
 * address), rather than a group of its own that a reload passed. */
static int plan_shared(const struct serve_plan *plan)
{
	return plan->groups == 1;
}

/* BEHAVIOUR 19: the serving process's sandbox, unless --no-sandbox: Landlock (read-only
 * beneath --root and every --site DIR) and the SYS_SERVE rows' filter. A serving process never starts another
 * image (the resident supervisor does, unfiltered: supervisor.h). Returns EXIT_OK, or
 * EXIT_SANDBOX after one line. */
static enum exit_code enter_sandbox(const struct serve_plan *plan)
{
	if (plan->opts.no_sandbox)
		return EXIT_OK;
	const char *roots[SITES_MAX];
	uint32_t n = 0;
	for (uint32_t s = 0; s < plan->site_count; s++)
		if (plan->site[s].root)
			roots[n++] = plan->site[s].root;
	long r = sandbox_landlock(roots, n);
	if (sys_is_error(r)) {
		console_fail("sandbox: landlock", 0, 0, r);
		return EXIT_SANDBOX;
	}
	r = sandbox_enter(SYS_SERVE);
	if (sys_is_error(r)) {
		console_fail("sandbox: seccomp", 0, 0, r);
		return EXIT_SANDBOX;
	}
	return EXIT_OK;
}

/* Serving process `index`: its own backend, deadlines, connection table and signal
 * descriptor, then the loop on its listener. Returns the loop's exit code. */
static enum exit_code serve(void *ctx, uint32_t index)
{
	const struct serve_plan *plan = ctx;
	uint32_t workers = plan->opts.workers; /* resolved: 1..CLI_WORKERS_MAX */
	uint32_t addresses = plan->opts.listen_count;
	for (uint32_t i = 0; i < workers && workers > 1; i++)
		for (uint32_t a = 0; a < addresses && i != index && !plan_shared(plan); a++)
			sys_close(plan->listen_fd[i][a]); /* only their worker and the parent
							   * hold the others' listeners */
	/* A single generation hears the resident supervisor itself; a worker hears its
	 * generation's supervisor, which passes on SIGIO and the retire signal. */
	long signal_fd = signals_watch(
		SIGNALS_STOP |
			(workers > 1 ? K_SIGBIT(K_SIGIO) | K_SIGBIT(RELOAD_RETIRE_SIGNAL)
				     : RELOAD_SIGNALS),
		1);
	if (sys_is_error(signal_fd)) {
		console_fail("signalfd", 0, 0, signal_fd);
		return EXIT_EPOLL_CREATE;
	}
	if (workers > 1)
		watch_close(); /* the supervisor watches */
	enum exit_code opened = backend_open();
	if (opened != EXIT_OK)
		return opened;
	if (workers > 1)
		backend_share_listeners(); /* the others accept on them too */
	uint64_t deadline_ms[DEADLINE_KINDS];
	deadline_lengths(&plan->opts, deadline_ms);
	clock_init(plan->auxv); /* deadlines and the Date field read it */
	deadline_init(plan->auxv, deadline_ms);
	conn_setup_pipes(); /* before the table is sized: they take descriptors */
	for (uint32_t s = 1; s < plan->site_count; s++) { /* each reads its own rules */
		sites_enter(s);
		conn_setup_site(s, site_find, &plan->pages[s]);
	}
	sites_enter(SITE_DEFAULT);
	conn_setup(plan->opts.root ? site_find : 0, &plan->pages[SITE_DEFAULT],
		   connection_capacity(plan->opts.max_connections));
	if (plan->opts.admin) /* the last listener (cli_parse; a reload passes it last) */
		conn_admin_listener(plan->listen_fd[index][addresses - 1]);
	enum exit_code sandboxed = enter_sandbox(plan);
	if (sandboxed != EXIT_OK)
		return sandboxed;
	if (workers == 1)
		reload_ready(); /* about to serve: the old generation may stop accepting */
	enum exit_code r = loop_run(plan->listen_fd[index], addresses, (int)signal_fd,
				    (uint64_t)plan->opts.drain_timeout_s * MS_PER_S);
	access_log_flush(); /* the last iteration's lines */
	return r;
}

/* BEHAVIOUR 13.5, 17: serves the passed sockets, in plan->groups equal groups (one group
 * for all, from a service manager or a reload; a reload from a daemon whose workers had
 * sockets of their own passes worker i's as group i); their addresses replace
 * opts.listen. Returns EXIT_OK or EXIT_LISTEN (reported). */
static enum exit_code take_passed(struct serve_plan *plan)
{
	const union k_sockaddr *addrs = main_state.passed_addr;
	const int *fds = main_state.passed_fd;
	uint32_t per_group = (uint32_t)(plan->passed / plan->groups);
	enum exit_code r = activation_take((uint32_t)plan->passed, BACKEND_LISTENER_FLAGS,
					   main_state.passed_addr, main_state.passed_fd);
	plan->opts.listen_count = per_group;
	for (uint32_t a = 0; a < per_group; a++)
		plan->opts.listen[a] = addrs[a];
	for (uint32_t i = 0; i < plan->opts.workers && r == EXIT_OK; i++)
		for (uint32_t a = 0; a < per_group; a++)
			plan->listen_fd[i][a] = fds[(plan->groups > 1 ? i * per_group : 0) + a];
	return r;
}

/* Opens every --listen address: one socket each, which every worker of --workers N
 * shares (BEHAVIOUR 12); with socket activation or a reload takes the passed sockets
 * instead (their addresses replace opts.listen). Unused entries of listen_fd are -1.
 * Returns EXIT_OK or the failing step's code (reported). */
static enum exit_code open_listeners(struct serve_plan *plan)
{
	uint32_t workers = plan->opts.workers;
	for (uint32_t i = 0; i < CLI_WORKERS_MAX; i++)
		for (uint32_t a = 0; a < CLI_LISTEN_MAX; a++)
			plan->listen_fd[i][a] = -1;
	if (plan->passed)
		return take_passed(plan);
	for (uint32_t a = 0; a < plan->opts.listen_count; a++) {
		int fd;
		enum exit_code r = listener_open(&plan->opts.listen[a], BACKEND_LISTENER_FLAGS, &fd);
		if (r != EXIT_OK)
			return r;
		for (uint32_t i = 0; i < workers; i++)
			plan->listen_fd[i][a] = fd;
	}
	return EXIT_OK;
}

/* The one line a stop ends with (BEHAVIOUR 11). Returns code. */
static int say_stopped(enum exit_code code)
{
	if (code == EXIT_OK)
		write_stderr(LITERAL("apollod: stopped: every response finished\n"));
	else if (code == EXIT_DRAIN_TIMEOUT)
		write_stderr(LITERAL("apollod: stopped: --drain-timeout passed, responses cut\n"));
	else if (code == EXIT_STOP_AGAIN)
		write_stderr(LITERAL("apollod: stopped at once: a second stop signal\n"));
	return code;
}

/* Starts --workers N (> 1) under the supervisor. Returns its exit code. */
static enum exit_code supervise(uint32_t n, struct serve_plan *plan)
{
	long r = counters_share();
	if (sys_is_error(r)) {
		console_fail("mmap shared counters", 0, 0, r);
		return EXIT_WORKERS;
	}
	long signal_fd = signals_watch(SIGNALS_STOP | RELOAD_SIGNALS | K_SIGBIT(K_SIGCHLD), 0);
	if (sys_is_error(signal_fd)) {
		console_fail("signalfd", 0, 0, signal_fd);
		return EXIT_WORKERS;
	}
	reload_ready(); /* the workers start at once: the old generation may stop accepting */
	/* One set of sockets for all workers: the supervisor holds them once. A reload that
	 * passed a group per worker: row i is worker i's, and the next reload passes row
	 * after row. */
	uint32_t rows = plan_shared(plan) ? 1 : n;
	return workers_run(n, (int)signal_fd, &plan->listen_fd[0][0], rows * CLI_LISTEN_MAX,
			   serve, plan);
}

/* Reads LISTEN_FDS (and a reload's RELOAD_ENV_GROUPS) into plan->passed and
 * plan->groups; with groups from a reload, they are the worker count. Returns EXIT_OK, or
 * EXIT_USAGE after one line. */
static enum exit_code passed_sockets(char **envp, struct serve_plan *plan)
{
	plan->groups = reload_listen_groups(CLI_WORKERS_MAX);
	if (plan->groups > 0)
		plan->passed = activation_count(envp, sys_getpid(),
						CLI_LISTEN_MAX * (uint32_t)plan->groups);
	if (plan->groups < 0 || plan->passed < 0 || plan->passed % plan->groups ||
	    plan->passed / plan->groups > CLI_LISTEN_MAX) {
		write_stderr(LITERAL("apollod: LISTEN_FDS: not 1 to 8 sockets for this process\n"));
		return EXIT_USAGE;
	}
	if (plan->passed && plan->groups > 1)
		plan->opts.workers = (uint32_t)plan->groups; /* the old group's count */
	return EXIT_OK;
}

/* Writes "apollod: FLAG 'WORD' ['WORD']: WHY\n" to stderr for the n words a flag was
 * refused for, or "apollod: FILE:LINE: SETTING 'WORD' ...: WHY\n" when the first word
 * came from the --config file. Returns EXIT_USAGE, or EXIT_CONFIG for the file's. */
static enum exit_code refuse_words(const char *flag, const char *const *words, uint32_t n,
				   const char *why)
{
	char where[CONFIG_WHERE_MAX];
	size_t where_len = config_where(&main_state.config_started, words[0], where); /* 2.1 */
	write_stderr(LITERAL("apollod: "));
	write_stderr(where, where_len);
	write_stderr(where_len ? flag + 2 : flag, cstr_len(flag) - (where_len ? 2 : 0));
	for (uint32_t i = 0; i < n; i++) {
		write_stderr(LITERAL(" '"));
		write_stderr(words[i], cstr_len(words[i]));
		write_stderr(LITERAL("'"));
	}
	write_stderr(LITERAL(": "));
	write_stderr(why, cstr_len(why));
	write_stderr(LITERAL("\n"));
	return where_len ? EXIT_CONFIG : EXIT_USAGE;
}

/* Checks and renders the --header words (extra_fields.h). Returns EXIT_OK, or
 * EXIT_USAGE after one stderr line naming the refused word and why. */
static enum exit_code setup_extra_fields(const struct cli_options *opts)
{
	uint32_t bad = 0;
	enum extra_field_problem p = extra_fields_setup(opts->headers, opts->header_count, &bad);
	if (p == EXTRA_OK)
		return EXIT_OK;
	return refuse_words("--header", &opts->headers[bad], 1, extra_field_reasons[p]);
}

/* The line console_file_problem writes for the --headers FILE at path; EXIT_USAGE. */
static enum exit_code refuse_headers_file(const char *path, uint32_t line, const char *why,
					  long err)
{
	console_file_problem("--headers", path, line, why, err);
	return EXIT_USAGE;
}

/* Site s's --headers FILE (BEHAVIOUR 10.13): its pairs appended to its --header-for's,
 * after those given as flags or settings, each pair's line kept. Returns EXIT_OK, or
 * EXIT_USAGE after one line naming the file, the line and why. */
static enum exit_code load_headers_file(struct serve_plan *plan, uint32_t s)
{
	struct cli_site *o = &plan->site[s];
	uint32_t line = 0;
	enum headers_problem p = HEADERS_CANNOT_OPEN;
	long n = sys_openat(AT_FDCWD, o->headers_file, O_RDONLY | O_CLOEXEC);
	if (!sys_is_error(n)) {
		int fd = (int)n;
		n = sys_read_full(fd, plan->headers_text[s], sizeof(plan->headers_text[s]));
		sys_close(fd);
		p = sys_is_error(n) ? HEADERS_CANNOT_READ
		    : (size_t)n > HEADERS_FILE_MAX ? HEADERS_FILE_TOO_BIG : HEADERS_OK;
	}
	if (p == HEADERS_OK) {
		struct headers_out out = {o->header_for_pattern, o->header_for_field,
					  plan->header_for_line[s], &o->header_for_count,
					  CLI_HEADER_FOR_MAX};
		p = headers_file_parse(plan->headers_text[s], (size_t)n, &out, &line);
	}
	if (p == HEADERS_OK)
		return EXIT_OK;
	return refuse_headers_file(o->headers_file, line, headers_problem_words[p],
				   sys_is_error(n) ? n : 0);
}

/* Checks site s's --header-for words (path_fields.h, into its state; its --headers FILE's
 * among them). Returns EXIT_OK, or EXIT_USAGE after one stderr line naming the refused
 * words, or file and line, and why. */
static enum exit_code setup_site_fields(const struct serve_plan *plan, uint32_t s)
{
	const struct cli_site *o = &plan->site[s];
	uint32_t bad = 0;
	path_fields_enter(s);
	const char *why = path_fields_setup(o->header_for_pattern, o->header_for_field,
					    o->header_for_count, &bad);
	path_fields_enter(SITE_DEFAULT);
	if (why && plan->header_for_line[s][bad])
		return refuse_headers_file(o->headers_file, plan->header_for_line[s][bad], why, 0);
	if (why) {
		const char *words[] = {o->header_for_pattern[bad], o->header_for_field[bad]};
		return refuse_words("--header-for", words, 2, why);
	}
	return EXIT_OK;
}

/* Checks every site's --header-for words (setup_site_fields) and that --error-page,
 * --fallback and --redirects come with --root. Returns EXIT_OK, or EXIT_USAGE after one
 * stderr line naming the refused word(s), or file and line, and why. */
static enum exit_code setup_site_flags(const struct serve_plan *plan)
{
	const struct cli_options *opts = &plan->opts;
	for (uint32_t s = 0; s < plan->site_count; s++) {
		enum exit_code r = setup_site_fields(plan, s);
		if (r != EXIT_OK)
			return r;
	}
	int pages = 0;
	for (unsigned i = 0; i < ERROR_PAGE_COUNT; i++)
		pages |= opts->error_page[i] != 0;
	if (opts->root || (!pages && !opts->fallback && !opts->redirects))
		return EXIT_OK;
	if (opts->redirects)
		write_stderr(LITERAL("apollod: --redirects needs --root\n"));
	else if (pages)
		write_stderr(LITERAL("apollod: --error-page needs --root\n"));
	else
		write_stderr(LITERAL("apollod: --fallback needs --root\n"));
	return EXIT_USAGE;
}

STATIC_ASSERT(SITE_HANDOVER_MAX * SITES_MAX <= RELOAD_HANDOVER_MAX,
	      "every site's snapshot hand-over fits");

/* BEHAVIOUR 10.21: the sites, plan->site[0] --root's settings (copied from the options)
 * and plan->site[s] the s-th --site's, and the host tables (sites_setup). Returns
 * EXIT_OK, or EXIT_USAGE (EXIT_CONFIG for a name of the --config file) after one line
 * naming a host given twice. */
static enum exit_code collect_sites(struct serve_plan *plan)
{
	struct cli_options *o = &plan->opts;
	const char *host[SITES_NAMED_MAX];
	uint32_t host_len[SITES_NAMED_MAX], bad = 0;
	__builtin_memset(&plan->site[0], 0, sizeof(plan->site[0]));
	cli_site_swap(o, &plan->site[0]); /* the default's own settings, copied: */
	struct cli_site copy = plan->site[0];
	cli_site_swap(o, &plan->site[0]);
	plan->site[0] = copy;
	plan->site[0].root = o->root;
	plan->site[0].cache_bytes = CLI_SITE_CACHE_SHARED; /* --cache-bytes is shared */
	plan->site_count = 1 + o->site_count;
	for (uint32_t i = 0; i < o->site_count; i++) {
		plan->site[i + 1] = o->site[i];
		host[i] = o->site[i].host;
		host_len[i] = o->site[i].host_len;
	}
	if (sites_setup(host, host_len, o->site_count, o->root != 0, &bad) == SITES_OK)
		return EXIT_OK;
	char where[CONFIG_WHERE_MAX];
	size_t where_len = config_where(&main_state.config_started, host[bad], where);
	write_stderr(LITERAL("apollod: "));
	write_stderr(where, where_len);
	write_stderr(where_len ? "site " : "--site ", where_len ? 5 : 7);
	write_stderr(host[bad], host_len[bad]);
	write_stderr(LITERAL(": the host is named by an earlier site\n"));
	return where_len ? EXIT_CONFIG : EXIT_USAGE;
}

/* Every process of the daemon is named `apollod` in ps and top (comm): a generation is
 * started with execveat(2) of a descriptor, which would name it after the descriptor's
 * number (the kernel names a process after its image's path). Errors are ignored: the
 * name is cosmetic. */
static void name_process(void)
{
	STATIC_ASSERT(sizeof("apollod") <= K_TASK_COMM_LEN, "the name fits comm");
	sys_prctl(K_PR_SET_NAME, (unsigned long)"apollod", 0);
}

/* Start-up step 1 (BEHAVIOUR 3): the command line over the --config file (2.1), the flags
 * checked beyond their syntax
 * (--header, --header-for, --error-page, --fallback), a reload's environment and the
 * sockets passed. Returns STARTUP_CONTINUE, or the exit code to end with (--help and
 * --version: EXIT_OK; a refused flag: EXIT_USAGE, a refused setting of the file:
 * EXIT_CONFIG, after one line). */
static int read_command_line(int argc, char **argv, char **envp, struct serve_plan *plan)
{
	int done = startup_options(argc, argv, &routed, &plan->opts);
	if (done != STARTUP_CONTINUE)
		return done;
	if (plan->opts.config &&
	    config_load(&main_state.config_started, plan->opts.config, argc, argv, routed.accept,
			&plan->opts, "", "") != EXIT_OK)
		return EXIT_CONFIG;
	main_state.argc = argc;
	main_state.argv = argv;
	main_state.started = plan->opts;
	enum exit_code checked = setup_extra_fields(&plan->opts);
	if (checked == EXIT_OK)
		checked = collect_sites(plan);
	for (uint32_t s = 0; s < plan->site_count && checked == EXIT_OK; s++)
		if (plan->site[s].headers_file)
			checked = load_headers_file(plan, s);
	if (checked == EXIT_OK)
		checked = setup_site_flags(plan);
	if (checked != EXIT_OK)
		return checked;
	reload_setup(envp);
	counter_page_adopt(envp); /* before anything counts: the supervisor's page */
	if (passed_sockets(envp, plan) != EXIT_OK)
		return EXIT_USAGE;
	return STARTUP_CONTINUE;
}

/* Loads site s (made current) into its own snapshot (BEHAVIOUR 10.17, 10.21): its own
 * cache-bytes, or its share of --cache-bytes (`shares` sites loaded have none of their
 * own), dotfiles and listing when it or the whole server says so, the arenas a reload handed over reused
 * (the default site's only: it alone hands on a manifest), its tree read, its
 * --error-page and --fallback found in it, its --redirects read. Returns EXIT_OK or the
 * failing step's code (reported). handed[0..n) is what the previous image handed over:
 * the site's own group (site_handed_group) is passed to site_reuse and
 * marked taken (-1). */
static enum exit_code load_site(struct serve_plan *plan, uint32_t s, uint32_t shares,
				int *handed, uint32_t n)
{
	const struct cli_options *opts = &plan->opts;
	const struct cli_site *site = &plan->site[s];
	sites_enter(s);
	if (opts->watch) {
		site_on_directory(watch_directory);
		site_settle(WATCH_QUIET_MS, WATCH_CAP_MS); /* 10.16: only settled files */
	}
	site_set_budget(site->cache_bytes != CLI_SITE_CACHE_SHARED ? site->cache_bytes
								       : opts->cache_bytes / shares);
	site_set_compression(opts->compress ? (int)opts->compress_level : 0);
	if (opts->compress && !reload_is_generation())
		site_defer_gzip(); /* BEHAVIOUR 10.10: the first start serves at once */
	uint32_t at = 0, len = site_handed_group(handed, n, site->root, &at);
	site_reuse(handed + at, len); /* BEHAVIOUR 10.17: closes or keeps them */
	for (uint32_t i = at; i < at + len; i++)
		handed[i] = -1;
	enum exit_code r = site_load(
		site->root,
		(opts->dotfiles || site->dotfiles ? SITE_DOTFILES : 0u) |
			(opts->listing || site->listing ? SITE_LISTING : 0u),
		opts->max_files);
	if (r == EXIT_OK)
		r = site_load_pages(site->error_page, site->fallback, &plan->pages[s]);
	if (r == EXIT_OK && site->redirects) /* after the tree: a 200 rule names its file */
		r = redirects_load(site->redirects, site_find);
	return r;
}

/* The gauges load_sites sums over the sites (count_site). */
enum site_sum { SUM_FILES, SUM_BYTES, SUM_SKIPPED, SUM_GZIP, SUM_GZIP_PENDING, SUM_COUNT };

/* Adds what site s's snapshot (the current one) holds to the gauges of *sum: files,
 * bytes, skipped entries, gzip representations, gzip forms left to the compressing
 * generation; and counts its compressions at load. */
static void count_site(uint64_t sum[SUM_COUNT])
{
	sum[SUM_FILES] += site_file_count();
	sum[SUM_BYTES] += site_bytes();
	sum[SUM_SKIPPED] += site_skipped();
	sum[SUM_GZIP] += site_gzip_count() + site_gzip_reused();
	sum[SUM_GZIP_PENDING] += site_gzip_pending();
	counter_add(C_compressions_at_load, site_gzip_runs()); /* BEHAVIOUR 10.10 */
	if (site_unsettled())
		watch_recheck(); /* read them again once they are quiet */
}

/* Gathers every loaded site's manifest and arenas (site_hand_over), site after
 * site, and registers them for the next image (reload_hand_over). Leaves the default
 * site current. */
static void hand_over_sites(const struct serve_plan *plan)
{
	int hand[RELOAD_HANDOVER_MAX];
	uint32_t n = 0;
	for (uint32_t s = 0; s < plan->site_count; s++) {
		sites_enter(s);
		if (plan->site[s].root)
			n += site_hand_over(hand + n);
	}
	sites_enter(SITE_DEFAULT);
	reload_hand_over(hand, n);
}

/* Takes a copy of what the previous image handed over into handed (RELOAD_HANDOVER_MAX
 * room). Returns the count. */
static uint32_t handed_copy(int *handed)
{
	const int *fds;
	uint32_t n = reload_handed_over(&fds);
	for (uint32_t i = 0; i < n; i++)
		handed[i] = fds[i];
	return n;
}

/* Loads every site that has a DIR (BEHAVIOUR 10.17, 10.21): --watch's descriptor first,
 * then each site (load_site) with its own group of what the last image handed over (the
 * groups no site took closed), every site's arenas handed on to the next reload, the
 * files of all counted; under --watch, files still being written are read again once
 * quiet. Leaves the default site current. Returns EXIT_OK or the failing step's code
 * (reported). */
static enum exit_code load_sites(struct serve_plan *plan)
{
	enum exit_code r = plan->opts.watch ? watch_open() : EXIT_OK;
	uint32_t shares = 0; /* the sites loaded that share --cache-bytes */
	uint64_t sum[SUM_COUNT] = {0};
	for (uint32_t s = 0; s < plan->site_count; s++)
		shares += plan->site[s].root && plan->site[s].cache_bytes == CLI_SITE_CACHE_SHARED;
	int handed[RELOAD_HANDOVER_MAX];
	uint32_t handed_n = handed_copy(handed);
	for (uint32_t s = 0; s < plan->site_count && r == EXIT_OK; s++)
		if (plan->site[s].root)
			r = load_site(plan, s, shares ? shares : 1, handed, handed_n);
	for (uint32_t i = 0; i < handed_n; i++)
		if (handed[i] >= 0) /* a dropped site's, or after a failed load */
			sys_close(handed[i]);
	for (uint32_t s = 0; s < plan->site_count && r == EXIT_OK; s++) {
		sites_enter(s);
		if (plan->site[s].root)
			count_site(sum);
	}
	sites_enter(SITE_DEFAULT);
	if (r != EXIT_OK)
		return r;
	hand_over_sites(plan);
	counter_set(C_files_cached, sum[SUM_FILES]); /* these snapshots', on a page */
	counter_set(C_bytes_cached, sum[SUM_BYTES]); /* a reload's old ones share */
	counter_set(C_entries_skipped, sum[SUM_SKIPPED]);
	counter_set(C_gzip_representations, sum[SUM_GZIP]);
	counter_set(C_gzip_pending, sum[SUM_GZIP_PENDING]);
	plan->gzip_pending = sum[SUM_GZIP_PENDING];
	return EXIT_OK;
}

/* Start-up step 2, everything before the socket, so that a bad log, type table or tree
 * never opens a port: SIGPIPE ignored, the access log, the descriptor limit, --mime-types
 * (before the tree: its heads name the types), --root. Returns EXIT_OK or the failing
 * step's code (reported). */
static enum exit_code prepare_content(struct serve_plan *plan)
{
	ignore_sigpipe(); /* cannot fail for SIGPIPE with a valid struct */
	enum exit_code r = access_log_open(plan->opts.access_log,
					   (enum access_log_format)plan->opts.access_log_format, plan->auxv);
	if (r != EXIT_OK)
		return r;
	set_descriptor_limit();
	if (plan->opts.mime_types) {
		r = mime_types_load(plan->opts.mime_types);
		if (r != EXIT_OK)
			return r;
	}
	return plan->site_count > 1 || plan->opts.root ? load_sites(plan) : EXIT_OK;
}

/* Opens the target path ("/...", or NULL: nothing to check) beneath the directory dir,
 * then closes it. Returns EXIT_OK, or EXIT_ROOT_READ after one line naming flag. */
static enum exit_code check_target(long dir, const char *flag, const char *path)
{
	long fd = path ? sys_openat((int)dir, path + 1, K_O_CLOEXEC) : 0;
	if (sys_is_error(fd)) {
		console_fail(flag, path, cstr_len(path), fd);
		return EXIT_ROOT_READ;
	}
	if (path)
		sys_close((int)fd);
	return EXIT_OK;
}

/* BEHAVIOUR 2.2: a site's DIR (--root, or a --site's) opens as a directory, and every
 * --error-page target and the --fallback target of the site as files beneath it (the
 * tree is not walked). Returns EXIT_OK, or EXIT_ROOT_READ after one line. */
static enum exit_code check_root(const struct cli_site *opts)
{
	long dir = sys_openat(AT_FDCWD, opts->root, K_O_DIRECTORY | K_O_CLOEXEC);
	if (sys_is_error(dir)) {
		console_fail(opts->host ? "--site" : "--root", opts->root, cstr_len(opts->root),
			     dir);
		return EXIT_ROOT_READ;
	}
	enum exit_code r = check_target(dir, "--fallback", opts->fallback);
	for (uint32_t i = 0; i < ERROR_PAGE_COUNT && r == EXIT_OK; i++)
		r = check_target(dir, "--error-page", opts->error_page[i]);
	sys_close((int)dir);
	return r;
}

/* --check-config (BEHAVIOUR 2.2), after the command line and the file were read and
 * checked: --user, the access log (opened, as the start would), --mime-types and
 * check_root of every site; nothing bound, nothing loaded. Returns EXIT_OK after the line
 * "configuration ok", or the failing step's code (reported). */
static enum exit_code check_settings(struct serve_plan *plan)
{
	const struct cli_options *opts = &plan->opts;
	enum exit_code r = opts->user ? sandbox_user_check(opts->user) : EXIT_OK;
	if (r == EXIT_OK)
		r = access_log_open(opts->access_log,
				   (enum access_log_format)opts->access_log_format, plan->auxv);
	if (r == EXIT_OK && opts->mime_types)
		r = mime_types_load(opts->mime_types);
	for (uint32_t s = 0; s < plan->site_count && r == EXIT_OK; s++)
		if (plan->site[s].root)
			r = check_root(&plan->site[s]);
	if (r == EXIT_OK)
		sys_write(K_STDOUT, LITERAL("configuration ok\n"));
	return r;
}

/* supervisor_check_reloads' hook (BEHAVIOUR 17): with --config, the file read again (with
 * the command line over it) must parse, and change no setting only a restart applies.
 * Returns 1, or 0 after one line "apollod: reload refused: ...; serving on". */
static int reload_allowed(void)
{
	const struct cli_options *was = &main_state.started;
	if (!was->config)
		return 1; /* the command line cannot change */
	if (config_load(&main_state.config_reread, was->config, main_state.argc, main_state.argv,
			routed.accept, &main_state.reread, "reload refused: ",
			"; serving on") != EXIT_OK)
		return 0;
	const char *name = cli_restart_change(was, &main_state.reread);
	if (!name)
		return 1;
	write_stderr(LITERAL("apollod: reload refused: "));
	write_stderr(was->config, cstr_len(was->config));
	write_stderr(LITERAL(": "));
	write_stderr(name, cstr_len(name));
	write_stderr(LITERAL(" changed, which only a restart applies; serving on\n"));
	return 0;
}

/* supervisor_compress_later's step, in the compressing generation (BEHAVIOUR 10.10): the
 * deferred gzip forms made (site_compress_late), the snapshot handed on as a load's
 * is, the counters a load sets set again. Returns 0, or the exit code (reported). */
static int compress_late(void)
{
	const struct serve_plan *plan = &main_state.plan;
	enum exit_code r = EXIT_OK;
	uint64_t bytes = 0, gzip = 0;
	for (uint32_t s = 0; s < plan->site_count && r == EXIT_OK; s++) {
		sites_enter(s); /* each site's table, and its --header-for fields for the heads */
		if (plan->site[s].root && site_gzip_pending())
			r = site_compress_late();
		counter_add(C_compressions_at_load, site_gzip_runs());
		bytes += site_bytes();
		gzip += site_gzip_count();
	}
	sites_enter(SITE_DEFAULT);
	if (r != EXIT_OK)
		return r;
	hand_over_sites(plan);
	counter_set(C_bytes_cached, bytes);
	counter_set(C_gzip_representations, gzip);
	return EXIT_OK;
}


/* Start-up step 3: the worker count resolved, the listeners opened and announced; the
 * process started then becomes the resident supervisor (supervisor.h), which returns
 * here only in the generation it forks. Returns SUPERVISOR_IN_GENERATION to go on and
 * serve, else the exit code to end with (reported). */
static int bind_and_supervise(struct serve_plan *plan, char **argv, char **envp)
{
	if (plan->opts.user && sandbox_user_check(plan->opts.user) != EXIT_OK)
		return EXIT_USER; /* before any socket: `listening on` would promise a service */
	if (plan->opts.workers == CLI_WORKERS_AUTO)
		plan->opts.workers = workers_auto();
	uint32_t workers = plan->opts.workers;
	enum exit_code r = open_listeners(plan);
	if (r != EXIT_OK)
		return r;
	if (!reload_is_generation())
		supervisor_hold_signals(); /* a signal sent once announced waits for the supervisor */
	for (uint32_t a = 0; a < plan->opts.listen_count; a++)
		listener_announce(LITERAL("apollod"), &plan->opts.listen[a]);
	if (reload_is_generation()) {
		site_join_huge_pages(); /* before it says it is ready: the old one serves */
		return SUPERVISOR_IN_GENERATION;
	}
	uint32_t rows = workers > 1 && !plan_shared(plan) ? workers : 1;
	supervisor_check_reloads(reload_allowed);
	if (plan->gzip_pending)
		supervisor_compress_later(compress_late);
	return supervisor_run(&plan->listen_fd[0][0], rows * CLI_LISTEN_MAX, rows, argv, envp,
			      site_release);
}

/* Start-up in BEHAVIOUR 3 order, step by step, then --user (bound and loaded: root is no
 * longer needed) and serving: one loop, or --workers N under a supervisor. Returns the
 * exit code, after the stop's line (say_stopped). */
int apollod_main(int argc, char **argv, char **envp, const uint64_t *auxv)
{
	struct serve_plan *plan = &main_state.plan;
	plan->auxv = auxv;
	signals_ignore_strays(); /* BEHAVIOUR 11: a stray signal stops nothing */
	name_process();
	int step = read_command_line(argc, argv, envp, plan);
	if (step != STARTUP_CONTINUE)
		return step;
	if (plan->opts.check_config)
		return check_settings(plan);
	enum exit_code r = prepare_content(plan);
	if (r != EXIT_OK)
		return r;
	step = bind_and_supervise(plan, argv, envp);
	if (step != SUPERVISOR_IN_GENERATION)
		return step;
	if (plan->opts.user) {
		r = sandbox_user(plan->opts.user);
		if (r != EXIT_OK)
			return r;
	}
	uint32_t workers = plan->opts.workers;
	return say_stopped(workers > 1 ? supervise(workers, plan) : serve(plan, 0));
}
