/* The event loop (see loop.h).
 *
 * Syscalls: a new connection costs accept4, read, write, close: the first read is tried
 * right after accept4 (conn_open), because on loopback the request has usually arrived
 * with the handshake; only when it has not is the descriptor registered with the
 * backend, once. A persistent connection costs a read and a write per request, plus a
 * share of one wait per batch of ready connections. */
#include "common/loop.h"

#include "common/conn.h"
#include "common/counters.h"
#include "common/event_backend.h"
#include "common/idle.h"

/* With the listener parked and nothing else to wake the loop, retry accept this often. */
#define PARK_RETRY_MS 1000

static backend_event events[BACKEND_EVENTS_MAX];
static int listener_fd;
static int listener_parked; /* not watched: the table or descriptor table was full */

/* Stops (park = 1) or resumes watching the listener. Returns EXIT_OK or EXIT_EPOLL. */
static enum exit_code listener_set_parked(int park)
{
	if (sys_is_error(backend_watch_listener(listener_fd, !park)))
		return EXIT_EPOLL;
	listener_parked = park;
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

/* Accepts until EAGAIN (BEHAVIOUR 4) and serves each connection at once. No slot free
 * (--max-connections reached, or EMFILE/ENFILE) evicts the connection that has waited
 * longest between requests, only once a connection is known to be there (accepted, or
 * promised by the report that started this batch); with nothing to evict the listener is
 * parked. Returns EXIT_OK, or EXIT_ACCEPT / EXIT_EPOLL. */
static enum exit_code accept_ready(void)
{
	for (int first = 1;; first = 0) {
		int full = conn_table_full();
		if (full && !conn_evictable())
			return listener_set_parked(1);
		long fd = backend_accept(listener_fd);
		if (!sys_is_error(fd)) {
			counter_add(C_connections_accepted, 1);
			if (full)
				conn_evict_one();
			conn_open((int)fd);
			continue;
		}
		if (fd == -EAGAIN)
			return EXIT_OK;
		if ((fd == -EMFILE || fd == -ENFILE) && first && conn_evict_one())
			continue; /* a descriptor is free now */
		/* Descriptor table or kernel memory full: leave the rest in the backlog. */
		if (fd == -EMFILE || fd == -ENFILE || fd == -ENOBUFS || fd == -ENOMEM)
			return listener_set_parked(1);
		if (!accept_error_is_transient(fd))
			return EXIT_ACCEPT;
	}
}

/* Waits for the next reports: until the earliest deadline of any kind, and no longer than
 * PARK_RETRY_MS while the listener is parked. Returns the count or -errno. */
static long loop_wait(void)
{
	int timeout_ms = idle_wait_ms();
	if (listener_parked && (timeout_ms < 0 || timeout_ms > PARK_RETRY_MS))
		timeout_ms = PARK_RETRY_MS;
	return backend_wait(events, timeout_ms);
}

enum exit_code loop_run(int listen_fd)
{
	listener_fd = listen_fd;
	enum exit_code r = listener_set_parked(0);
	for (; r == EXIT_OK;) {
		long n = loop_wait();
		if (n == -EINTR)
			continue;
		if (sys_is_error(n))
			return EXIT_EPOLL;
		idle_tick();
		for (long i = 0; i < n && r == EXIT_OK; i++) {
			uint64_t token = backend_event_token(&events[i]);
			if (token == LISTENER_TOKEN)
				r = accept_ready();
			else
				conn_event(token, &events[i]);
		}
		int fd;
		while ((fd = idle_next_expired()) != IDLE_NONE)
			conn_expire(fd);
		/* A closed connection freed a descriptor; a timeout may mean one did elsewhere. */
		if (r == EXIT_OK && listener_parked && (conn_slots_freed() || n == 0))
			r = listener_set_parked(0);
	}
	return r;
}
