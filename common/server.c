/* The event loop of the routed tiers: accept, read a head, parse, route, answer with one
 * contiguous write, close. One thread; the backend (event_backend.h) only waits.
 *
 * Happy path per connection: accept4, read, write, close. The first read is tried right
 * after accept4, because on loopback the request has usually arrived with the handshake;
 * only when it has not (EAGAIN) is the descriptor registered with the backend, once,
 * edge-triggered for both directions. See docs/AUDIT.md for the state machine. */
#include "common/server.h"

#include "common/config.h"
#include "common/conn.h"
#include "common/counters.h"
#include "common/event_backend.h"
#include "common/http_parse.h"
#include "common/metrics.h"
#include "common/responses.h"
#include "common/routes.h"
#include "common/sys.h"
#if APOLLOD_HAVE_DEADLINES
#include "common/clock.h"
#include "common/deadline.h"
STATIC_ASSERT(DEADLINE_SLOTS == CONN_SLOTS, "one deadline node per slot");
#endif

/* Lingering close: after an answer that left request bytes unread in the kernel (the
 * buffer filled, or a body was announced), closing at once would make the kernel send a
 * RST that can destroy the answer before the client reads it (RFC 9112 9.6). Such a
 * connection shuts down its write side and reads and discards until the client closes,
 * at most DRAIN_MAX bytes, bounded in time by the idle deadline. */
#define DRAIN_MAX (256u * 1024u)

/* With the listener parked and nothing else to wake the loop, retry accept this often. */
#define PARK_RETRY_MS 1000

static struct conn conn_table[CONN_SLOTS];
static char conn_buffer[CONN_SLOTS][CONN_BUFFER_SIZE];
static char conn_scratch[CONN_SLOTS][CONN_SCRATCH_SIZE];
static backend_event events[BACKEND_EVENTS_MAX];

static int listener_fd;
static int listener_parked;  /* not watched: the descriptor table was full */
static int unpark_requested; /* a connection closed since the listener was parked */

#if APOLLOD_HAVE_DEADLINES
static struct deadline_queue deadlines;
static uint64_t now_ms; /* monotonic time read once per loop iteration */
#endif

static void conn_read(int fd, struct conn *c);
static void conn_write(int fd, struct conn *c);

/* Ends a connection: leaves the deadline queue, frees the slot, closes the descriptor
 * (which also removes it from the epoll set: no epoll_ctl needed). close(2) releases the
 * descriptor even when it reports an error, so its result is not acted on. */
static void conn_close(int fd, struct conn *c)
{
#if APOLLOD_HAVE_DEADLINES
	deadline_cancel(&deadlines, fd);
#endif
	c->state = CONN_FREE;
	sys_close(fd);
	unpark_requested = listener_parked;
}

/* Waits for the next readiness edge: registers the descriptor the first time, and re-arms
 * the idle deadline when bytes moved (SPEC 5: progress in either direction). */
static void conn_wait(int fd, struct conn *c, int progressed)
{
	if (!c->watched) {
		if (sys_is_error(backend_watch_conn(fd, conn_token(fd, c->gen)))) {
			conn_close(fd, c);
			return;
		}
		c->watched = 1;
	}
#if APOLLOD_HAVE_DEADLINES
	if (progressed && c->state != CONN_DRAINING)
		deadline_touch(&deadlines, fd, now_ms);
#else
	(void)progressed;
#endif
}

/* Sets c up to send the len bytes at resp. */
static void conn_respond(int fd, struct conn *c, const char *resp, uint32_t len)
{
	c->resp = resp;
	c->resp_len = len;
	c->resp_off = 0;
	c->state = CONN_WRITING;
	conn_write(fd, c);
}

/* Answers the head in c's buffer. outcome is COMPLETE (req filled) or BAD. peer_done is
 * set when the peer has already closed its side, so nothing is left to drain. Counts the
 * request, its method and its status before the response is built, so /metrics includes
 * the current request (SPEC 7). */
static void conn_answer(int fd, struct conn *c, enum parse_outcome outcome,
			const struct http_request *req, int peer_done)
{
	counter_add(C_requests_total, 1);
	enum static_response_id id;
	int head_only = 0;
	c->drain = !peer_done && c->req_len == CONN_BUFFER_SIZE;
	if (outcome != PARSE_COMPLETE) {
		id = RESP_BAD_REQUEST;
	} else {
		const struct request_line *line = &req->line;
		if (!peer_done && req->headers.has_content_length &&
		    req->headers.content_length > c->req_len - req->head_len)
			c->drain = 1;
		if (line->method == HTTP_METHOD_OTHER) {
			id = RESP_NOT_ALLOWED;
		} else {
			head_only = line->method == HTTP_METHOD_HEAD;
			counter_add(head_only ? C_requests_head : C_requests_get, 1);
			switch (route_match(line->target, line->path_len)) {
			case ROUTE_ROOT:
				id = RESP_HELLO;
				break;
			case ROUTE_HEALTH:
				id = RESP_HEALTH;
				break;
			case ROUTE_METRICS: {
				counter_add(C_responses_200, 1);
				struct rendered_response r = build_metrics(conn_scratch[fd]);
				conn_respond(fd, c, r.bytes, head_only ? r.head_len : r.total_len);
				return;
			}
			default:
				id = RESP_NOT_FOUND;
				break;
			}
		}
	}
	const struct static_response *sr = &static_responses[id];
	counter_add((enum counter_id)sr->counter, 1);
	conn_respond(fd, c, sr->bytes, head_only ? sr->head_len : sr->total_len);
}

/* Reads and discards until the peer closes (see DRAIN_MAX). */
static void conn_drain(int fd, struct conn *c)
{
	for (;;) {
		long n = sys_read(fd, conn_buffer[fd], CONN_BUFFER_SIZE);
		if (n > 0) {
			counter_add(C_bytes_read, (uint64_t)n);
			c->req_len += (uint32_t)n; /* drained so far */
			if (c->req_len <= DRAIN_MAX)
				continue;
		} else if (n == -EINTR) {
			continue;
		} else if (n == -EAGAIN) {
			conn_wait(fd, c, 1);
			return;
		}
		conn_close(fd, c); /* EOF, error, or enough */
		return;
	}
}

/* Collects a request head: reads until it parses as complete or bad, the buffer is full,
 * EAGAIN, EOF or an error (SPEC 4). */
static void conn_read(int fd, struct conn *c)
{
	if (c->state == CONN_DRAINING) {
		conn_drain(fd, c);
		return;
	}
	int progressed = 0;
	for (;;) {
		char *buf = conn_buffer[fd];
		long n = sys_read(fd, buf + c->req_len, CONN_BUFFER_SIZE - c->req_len);
		if (n > 0) {
			counter_add(C_bytes_read, (uint64_t)n);
			c->req_len += (uint32_t)n;
			progressed = 1;
			struct http_request req;
			enum parse_outcome r = parse_request(buf, c->req_len, &req);
			if (r == PARSE_PARTIAL && c->req_len < CONN_BUFFER_SIZE)
				continue;
			conn_answer(fd, c, r, &req, 0); /* PARTIAL here: 8 KiB without CRLFCRLF */
			return;
		}
		if (n == 0) { /* EOF: silence closes quietly, a partial head earns a 400 */
			if (c->req_len == 0)
				conn_close(fd, c);
			else
				conn_answer(fd, c, PARSE_BAD, 0, 1);
			return;
		}
		if (n == -EINTR)
			continue;
		if (n == -EAGAIN) {
			conn_wait(fd, c, progressed);
			return;
		}
		conn_close(fd, c); /* ECONNRESET and friends: the peer is gone */
		return;
	}
}

/* Sends what is left of the response; on completion closes (or starts draining). */
static void conn_write(int fd, struct conn *c)
{
	int progressed = 0;
	while (c->resp_off < c->resp_len) {
		long n = sys_write(fd, c->resp + c->resp_off, c->resp_len - c->resp_off);
		if (n > 0) {
			counter_add(C_bytes_written, (uint64_t)n);
			c->resp_off += (uint32_t)n;
			progressed = 1;
		} else if (n == -EINTR) {
			continue;
		} else if (n == -EAGAIN) {
			conn_wait(fd, c, progressed);
			return;
		} else {
			conn_close(fd, c); /* EPIPE (SIGPIPE is ignored), ECONNRESET */
			return;
		}
	}
	if (!c->drain) {
		conn_close(fd, c);
		return;
	}
	sys_shutdown(fd, K_SHUT_WR); /* FIN after the answer; failure just means gone */
	c->state = CONN_DRAINING;
	c->req_len = 0;
	conn_drain(fd, c);
}

/* Takes a new connection on fd (< CONN_SLOTS) and tries its first read at once. */
static void conn_open(int fd)
{
	struct conn *c = &conn_table[fd];
	c->gen++;
	c->state = CONN_READING;
	c->watched = 0;
	c->drain = 0;
	c->req_len = 0;
#if APOLLOD_HAVE_DEADLINES
	deadline_arm(&deadlines, fd, now_ms);
#endif
	conn_read(fd, c);
}

/* Stops (park = 1) or resumes watching the listener. Returns EXIT_OK or EXIT_EPOLL. */
static enum exit_code listener_set_parked(int park)
{
	if (sys_is_error(backend_watch_listener(listener_fd, LISTENER_TOKEN, !park)))
		return EXIT_EPOLL;
	listener_parked = park;
	unpark_requested = 0;
	return EXIT_OK;
}

/* Accepts until EAGAIN (SPEC 4). Returns EXIT_OK, or EXIT_ACCEPT / EXIT_EPOLL. */
static enum exit_code accept_ready(void)
{
	for (;;) {
		long fd = sys_accept4(listener_fd, K_SOCK_NONBLOCK | K_SOCK_CLOEXEC);
		if (!sys_is_error(fd)) {
			if (fd >= CONN_SLOTS)
				sys_close((int)fd); /* beyond the table: refuse */
			else
				conn_open((int)fd);
			continue;
		}
		switch (-fd) {
		case EAGAIN:
			return EXIT_OK;
		case EMFILE: /* descriptor table full: leave the rest in the backlog */
		case ENFILE:
		case ENOBUFS:
		case ENOMEM:
			return listener_set_parked(1);
		case EINTR:
		case ECONNABORTED:
		/* accept(2): "Linux accept() passes already-pending network errors on the new
		 * socket as an error code"; treat them like EAGAIN by retrying. */
		case EPROTO:
		case ENOPROTOOPT:
		case EHOSTDOWN:
		case ENONET:
		case EHOSTUNREACH:
		case ENETDOWN:
		case ENETUNREACH:
		case EPERM: /* firewall rules refused this one connection */
			continue;
		default:
			return EXIT_ACCEPT;
		}
	}
}

/* Routes one readiness report. Stale reports (slot freed, or reused by a newer
 * connection with another generation) are dropped. */
static enum exit_code dispatch(const backend_event *e)
{
	uint64_t token = backend_event_token(e);
	if (token == LISTENER_TOKEN)
		return accept_ready();
	int fd = (int)(uint32_t)token;
	struct conn *c = &conn_table[fd];
	if (c->state == CONN_FREE || c->gen != (uint32_t)(token >> CONN_TOKEN_GEN_SHIFT))
		return EXIT_OK;
	if (c->state == CONN_WRITING) {
		if (backend_event_writable(e))
			conn_write(fd, c);
	} else if (backend_event_readable(e)) {
		conn_read(fd, c);
	}
	return EXIT_OK;
}

#if APOLLOD_HAVE_DEADLINES
/* Closes every connection whose idle deadline has passed, without a reply. */
static void expire_idle(void)
{
	int32_t fd;
	while ((fd = deadline_expired(&deadlines, now_ms)) != DEADLINE_NONE) {
		struct conn *c = &conn_table[fd];
		if (c->state != CONN_DRAINING) /* a drain that ends is not an idle client */
			counter_add(C_timeouts, 1);
		conn_close(fd, c);
	}
}
#endif

enum exit_code server_run(int listen_fd, uint64_t idle_ms)
{
	listener_fd = listen_fd;
	enum exit_code r = listener_set_parked(0);
	if (r != EXIT_OK)
		return r;
#if APOLLOD_HAVE_DEADLINES
	deadline_init(&deadlines, idle_ms);
	now_ms = clock_now_ms();
#else
	(void)idle_ms;
#endif
	for (;;) {
		int timeout_ms = -1;
#if APOLLOD_HAVE_DEADLINES
		timeout_ms = deadline_wait_ms(&deadlines, now_ms);
#endif
		if (listener_parked && (timeout_ms < 0 || timeout_ms > PARK_RETRY_MS))
			timeout_ms = PARK_RETRY_MS;
		long n = backend_wait(events, timeout_ms);
		if (n == -EINTR)
			continue;
		if (sys_is_error(n))
			return EXIT_EPOLL;
#if APOLLOD_HAVE_DEADLINES
		now_ms = clock_now_ms();
#endif
		for (long i = 0; i < n; i++) {
			r = dispatch(&events[i]);
			if (r != EXIT_OK)
				return r;
		}
#if APOLLOD_HAVE_DEADLINES
		expire_idle();
#endif
		if (listener_parked && (unpark_requested || n == 0)) {
			r = listener_set_parked(0);
			if (r != EXIT_OK)
				return r;
		}
	}
}
