/* The event loop (see loop.h).
 *
 * Syscalls: a new connection costs accept4, read, write, close: the first read is tried
 * right after accept4 (conn_open), because on loopback the request has usually arrived
 * with the handshake; only when it has not is the descriptor registered with the
 * backend, once. A persistent connection costs a read and a write per request, plus a
 * share of one wait per batch of ready connections. */
#include "common/serve/loop.h"

#include "common/serve/access_log.h"
#include "common/serve/conn.h"
#include "common/base/counters.h"
#include "common/serve/event_backend.h"
#include "common/serve/deadline.h"
#include "common/process/listener.h"
#include "common/process/reload.h"
#include "common/process/signals.h"
#include "common/process/watch.h"

/* With the listener parked and nothing else to wake the loop, retry accept this often. */
#define PARK_RETRY_MS 1000

/* The loop's state: everything it keeps between iterations, and the reports of the
 * last wait. */
struct loop_state {
	backend_event events[BACKEND_EVENTS_MAX]; /* the last wait's reports */
	int listener_fd[LISTENERS_MAX]; /* one per --listen address; -1 once closed by a stop */
	uint32_t listener_count;
	int listener_parked; /* none watched: the table or descriptor table was full */
	int signal_fd;       /* the signalfd the loop reads its signals from (signals.h) */
	uint64_t drain_ms;   /* how long a graceful stop may take */
	uint64_t stop_by_ms; /* with a stop under way: when it must be done, else 0 */
	int retiring;        /* the stop is a reload's drain (loop_begin_stop) */
	int released;        /* stopping, the backend's accepts settled: told the supervisor */
};
static struct loop_state loop;

/* CLOCK_MONOTONIC in ms by the raw syscall: read only while stopping, so the tiers
 * without the deadline unit's vDSO clock have it too. */
static uint64_t stop_clock_ms(void)
{
	struct k_timespec t = {0, 0};
	counter_add(C_syscalls_total, 1);
	sys_clock_gettime(K_CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

static enum exit_code accept_taken(void);

/* The first stop signal, or (retiring) the supervisor's word that a new generation
 * serves: no new connections (the listeners are closed; the supervisor's copies and with
 * --workers the others' keep them open), and connections without a response in flight
 * close, at once on a stop, after one more request or at the drain's end when retiring. */
static void loop_begin_stop(int retiring)
{
	loop.stop_by_ms = stop_clock_ms() + loop.drain_ms;
	loop.retiring = retiring;
	for (uint32_t i = 0; i < loop.listener_count; i++) {
		/* Unwatch first: with --workers other processes hold the same socket, and
		 * epoll forgets a descriptor only when its last copy closes. */
		if (!loop.listener_parked)
			backend_watch_listener(i, loop.listener_fd[i], 0);
		counter_add(C_syscalls_total, 1);
		sys_close(loop.listener_fd[i]);
		loop.listener_fd[i] = -1;
	}
	loop.listener_parked = 0;    /* nothing to unpark any more */
	if (retiring)
		conn_retire();
	else
		conn_stop();
	accept_taken();
}

/* SIGIO from the supervisor: a generation we replaced has exited. Watching every
 * listener anew makes the backend look at its queue again (reload.h). A failure leaves
 * them parked: the park retry watches them again. */
static void loop_rearm_listeners(void)
{
	for (uint32_t i = 0; i < loop.listener_count; i++)
		backend_watch_listener(i, loop.listener_fd[i], 0);
	for (uint32_t i = 0; i < loop.listener_count; i++)
		if (sys_is_error(backend_watch_listener(i, loop.listener_fd[i], 1)))
			loop.listener_parked = 1;
}

/* Acts on signal sig (0: none; --watch's quiet time ending arrives as K_SIGHUP, from
 * watch_filter). Returns EXIT_OK, or EXIT_STOP_AGAIN on a second stop. */
static enum exit_code loop_signal(long sig)
{
	if ((sig == K_SIGHUP || sig == K_SIGUSR1) && !loop.stop_by_ms) /* BEHAVIOUR 11, 17 */
		reload_request((int)sig); /* the supervisor reloads */
	if (sig == K_SIGIO && !loop.stop_by_ms && !loop.listener_parked)
		loop_rearm_listeners();
	if (sig == RELOAD_RETIRE_SIGNAL && !loop.stop_by_ms)
		loop_begin_stop(1);
	if (sig != K_SIGTERM && sig != K_SIGINT)
		return EXIT_OK;
	if (loop.retiring) { /* a stop during a reload's drain: its first signal */
		loop.retiring = 0;
		conn_stop();
		return EXIT_OK;
	}
	if (loop.stop_by_ms)
		return EXIT_STOP_AGAIN;
	loop_begin_stop(0);
	return EXIT_OK;
}

/* Reads every pending signal. Returns EXIT_OK, or EXIT_STOP_AGAIN on a second stop. */
static enum exit_code loop_signals(void)
{
	for (;;) {
		counter_add(C_syscalls_total, 1);
		long sig = signals_next(loop.signal_fd);
		if (sig <= 0) /* none left; a read error leaves the signal pending */
			return EXIT_OK;
		enum exit_code r = loop_signal(watch_filter(sig));
		if (r != EXIT_OK)
			return r;
	}
}

/* With a stop under way: EXIT_OK once every connection has finished (and the backend
 * can accept nothing more behind the loop's back), EXIT_DRAIN_TIMEOUT
 * when time is up, else -1 with *timeout_ms capped by the time left. */
static int loop_stop_status(int *timeout_ms)
{
	if (!loop.released && backend_accepts_settled()) {
		loop.released = 1;
		reload_accepts_released(); /* the serving generation re-arms (reload.h) */
	}
	if (conn_open_count() == 0 && backend_accepts_settled())
		return EXIT_OK;
	uint64_t now = stop_clock_ms();
	if (now >= loop.stop_by_ms && loop.retiring) {
		/* A reload's drain is over: what is left between requests has stayed silent
		 * for all of it, and closes now (conn_close releases the slot at once). */
		loop.retiring = 0;
		conn_stop();
		if (conn_open_count() == 0 && backend_accepts_settled())
			return EXIT_OK;
	}
	if (now >= loop.stop_by_ms)
		return EXIT_DRAIN_TIMEOUT;
	uint64_t left = loop.stop_by_ms - now;
	if (*timeout_ms < 0 || (uint64_t)*timeout_ms > left)
		*timeout_ms = (int)left;
	return -1;
}

/* Stops (park = 1) or resumes watching every listener. Returns EXIT_OK, or EXIT_WAIT after
 * the line that says which listener and why. */
static enum exit_code listener_set_parked(int park)
{
	for (uint32_t i = 0; i < loop.listener_count; i++) {
		long r = backend_watch_listener(i, loop.listener_fd[i], !park);
		if (sys_is_error(r))
			return console_fail_fd(BACKEND_WATCH_STEP, loop.listener_fd[i], r,
					       EXIT_WAIT);
	}
	loop.listener_parked = park;
	conn_slots_freed(); /* only a close after this point can make room */
	return EXIT_OK;
}

/* accept(2): "Linux accept() passes already-pending network errors on the new socket as
 * an error code". Those, an interrupted call and a connection aborted in the backlog
 * concern one connection only: try the next. */
static int accept_error_is_transient(long err)
{
	switch (-err) {
	case EINTR:
	case ECONNABORTED:
	case EPROTO:
	case ENOPROTOOPT:
	case EHOSTDOWN:
	case ENONET:
	case EHOSTUNREACH:
	case ENETDOWN:
	case ENETUNREACH:
	case EPERM: /* firewall rules refused this one connection */
		return 1;
	default:
		return 0;
	}
}

/* Whether a connection waits in any listener's backlog: one ppoll, no wait. Asked after
 * an accept refused for want of a descriptor, which the kernel decides before it looks
 * at the backlog (EMFILE says nothing about a connection being there). A failed ppoll
 * answers yes: an eviction too many costs less than a client left waiting. */
static int listeners_waiting(void)
{
	struct k_pollfd p[LISTENERS_MAX];
	struct k_timespec now = {0, 0};
	for (uint32_t i = 0; i < loop.listener_count; i++)
		p[i] = (struct k_pollfd){loop.listener_fd[i], K_POLLIN, 0};
	return COUNTED(sys_ppoll(p, loop.listener_count, &now)) != 0;
}

/* Accepts until EAGAIN (BEHAVIOUR 4) and serves each connection at once. No room for a
 * connection (--max-connections reached, a descriptor beyond the table, or accept refused
 * with EMFILE/ENFILE) evicts the connection that has waited longest between requests,
 * each time, but only once a connection is known to be there (accepted; promised by the
 * report that started this batch; or, after a refused accept, seen in a backlog by
 * listeners_waiting). A connection accepted with nothing to evict is answered 503 and
 * closed (conn_refuse); an accept refused with nothing to evict parks the listener
 * (every listener: a slot freed serves any of them). Returns EXIT_OK, or EXIT_ACCEPT / EXIT_WAIT after the
 * line that says which listener and why. */
static enum exit_code accept_ready(int index)
{
	for (int first = 1;; first = 0) {
		int full = conn_table_full();
		long fd = backend_accept(loop.listener_fd[index]);
		if (!sys_is_error(fd)) {
			counter_add(C_connections_accepted, 1);
			if (full && conn_evict_one() == DEADLINE_NONE)
				conn_refuse((int)fd); /* every slot busy: 503, never a wait */
			else
				conn_open((int)fd);
			continue;
		}
		if (fd == -EAGAIN)
			return EXIT_OK;
		if (fd == -EMFILE || fd == -ENFILE) {
			if (!first && !listeners_waiting())
				return EXIT_OK; /* nobody waits: keep every connection */
			if (conn_evict_one() != DEADLINE_NONE)
				continue; /* a descriptor is free now */
		}
		/* Descriptor table or kernel memory full: leave the rest in the backlog. */
		if (fd == -EMFILE || fd == -ENFILE || fd == -ENOBUFS || fd == -ENOMEM)
			return listener_set_parked(1);
		if (!accept_error_is_transient(fd))
			return console_fail_fd(BACKEND_ACCEPT_STEP,
						  BACKEND_ACCEPT_KNOWS_LISTENER ? loop.listener_fd[index] : -1,
						  fd, EXIT_ACCEPT);
	}
}

/* During a stop: serves the connections the backend accepted before it stopped
 * accepting (a backend that accepted ahead of the loop, as a multishot accept would, may
 * hold some; closing them unanswered would fail requests a reload promised to keep).
 * backend_accept(-1) gives those, and only those: both backends accept with accept4, which
 * on -1 fails with EBADF, the end. Returns EXIT_OK. */
static enum exit_code accept_taken(void)
{
	long fd;
	while (!conn_table_full() && !sys_is_error(fd = backend_accept(-1))) {
		counter_add(C_connections_accepted, 1);
		conn_open((int)fd);
	}
	return EXIT_OK;
}

/* Waits for the next reports: until the earliest deadline of any kind, no longer than
 * PARK_RETRY_MS while the listener is parked, than --watch's burst needs to be quiet,
 * and than a stop may last.
 * Returns the count or -errno; with a stop under way, *done is its exit code once it is
 * over (and nothing was waited for), else -1. */
static long loop_wait(int *done)
{
	int timeout_ms = deadline_wait_ms();
	if (loop.listener_parked && (timeout_ms < 0 || timeout_ms > PARK_RETRY_MS))
		timeout_ms = PARK_RETRY_MS;
	int watch_ms = watch_wait_ms();
	if (watch_ms >= 0 && (timeout_ms < 0 || timeout_ms > watch_ms))
		timeout_ms = watch_ms;
	*done = loop.stop_by_ms ? loop_stop_status(&timeout_ms) : -1;
	if (*done >= 0)
		return 0;
	return backend_wait(loop.events, timeout_ms);
}

/* Routes one report to the listener, the signals or a connection. */
static enum exit_code loop_dispatch(const backend_event *e)
{
	uint64_t token = backend_event_token(e);
	int listener = listener_of_token(token);
	if (listener >= 0 && loop.stop_by_ms)
		return accept_taken();
	if (listener >= 0)
		return accept_ready(listener);
	if (token == SIGNAL_TOKEN)
		return loop_signals();
	conn_event(token, e);
	return EXIT_OK;
}

/* Routes one wait's n reports (loop_dispatch): the connections' and the signals' first,
 * the listeners' last, so that a request reported in this batch is read before an accept
 * can make room by evicting its connection (BEHAVIOUR 4; issue 32: on uring the request
 * has left the socket for its completion, where the eviction's look cannot see it).
 * Returns EXIT_OK or the first other exit code a report gave. */
static enum exit_code loop_dispatch_batch(long n)
{
	enum exit_code r = EXIT_OK;
	long held = 0; /* listener reports passed over: a second pass only when there are */
	for (long i = 0; i < n && r == EXIT_OK; i++) {
		if (listener_of_token(backend_event_token(&loop.events[i])) >= 0)
			held++;
		else
			r = loop_dispatch(&loop.events[i]);
	}
	for (long i = 0; i < n && held > 0 && r == EXIT_OK; i++)
		if (listener_of_token(backend_event_token(&loop.events[i])) >= 0) {
			held--;
			r = loop_dispatch(&loop.events[i]);
		}
	return r;
}

enum exit_code loop_run(const int *listen_fds, uint32_t listeners, int signals,
			uint64_t drain_timeout_ms)
{
	for (uint32_t i = 0; i < listeners; i++)
		loop.listener_fd[i] = listen_fds[i];
	loop.listener_count = listeners;
	loop.signal_fd = signals;
	loop.drain_ms = drain_timeout_ms;
	enum exit_code r = listener_set_parked(0);
	long w = r == EXIT_OK ? backend_watch_signals(loop.signal_fd) : 0;
	if (sys_is_error(w))
		r = console_fail_fd("watch signalfd", -1, w, EXIT_WAIT);
	/* A change before the signal was blocked raised nothing (SIGURG's default is to
	 * drop it): read what the inotify queue holds as if it had. */
	watch_filter(WATCH_SIGNAL);
	while (r == EXIT_OK) {
		int done;
		long n = loop_wait(&done);
		if (done >= 0) {
			r = (enum exit_code)done;
			break;
		}
		if (n == -EINTR)
			continue;
		if (sys_is_error(n))
			return console_fail_fd(BACKEND_WAIT_STEP, -1, n, EXIT_WAIT);
		deadline_tick();
		r = loop_dispatch_batch(n);
		int fd;
		while ((fd = deadline_next_expired()) != DEADLINE_NONE)
			conn_expire(fd);
		if (r == EXIT_OK)
			r = loop_signal(watch_filter(0)); /* --watch's burst due: a HUP */
		access_log_flush(); /* this iteration's lines, in one write */
		/* A closed connection freed a descriptor; a timeout may mean one did elsewhere. */
		if (r == EXIT_OK && loop.listener_parked && (conn_slots_freed() || n == 0))
			r = listener_set_parked(0);
	}
	if (r == EXIT_DRAIN_TIMEOUT || r == EXIT_STOP_AGAIN) {
		backend_cancel_all(); /* the stop ends with work in flight: BEHAVIOUR 11 */
		access_log_end_all(); /* their lines, as cut, for the last flush (BEHAVIOUR 14) */
	}
	return r;
}
