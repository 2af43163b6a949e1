/* The event loop of the routed tiers: accept, read, parse, route, answer, and keep the
 * connection for the next request (HTTP/1.1 unless "Connection: close"; HTTP/1.0 only with
 * "Connection: keep-alive"). One thread; the backend (event_backend.h) only waits.
 *
 * Every complete request already in the buffer is answered in order (pipelining); their
 * responses are queued and leave together in one write(2) or writev(2). A partial request
 * at the end of the buffer waits for the next read.
 *
 * Syscalls: a new connection costs accept4, read, write, close: the first read is tried
 * right after accept4, because on loopback the request has usually arrived with the
 * handshake; only when it has not is the descriptor registered with the backend, once,
 * edge-triggered for both directions. On a persistent connection a request costs one read
 * and one write: a read that comes back shorter than the space offered means the socket
 * was emptied, so the loop waits for the next edge instead of paying for an EAGAIN read.
 * See docs/AUDIT.md for the state machine. */
#include "common/server.h"

#include "common/config.h"
#include "common/conn.h"
#include "common/counters.h"
#include "common/event_backend.h"
#include "common/file_cache.h"
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

/* Lingering close: when the daemon closes with request bytes still unread in the kernel
 * (a body not yet arrived, input after the last answered request), closing at once makes
 * the kernel send RST, which can destroy the answer before the client reads it
 * (RFC 9112 9.6). Such a connection shuts down its write side and reads and discards until
 * the client closes: at most DRAIN_MAX bytes, bounded in time by the idle deadline. */
#define DRAIN_MAX (256u * 1024u)

/* A GET or HEAD body is skipped on a persistent connection up to this size; a larger one
 * ends the connection after the response instead of being read for nothing. */
#define BODY_SKIP_MAX (1024u * 1024u)

/* With the listener parked and nothing else to wake the loop, retry accept this often. */
#define PARK_RETRY_MS 1000

/* Every syscall of the serving path is counted, so syscalls per request can be read from
 * /metrics alone. Evaluates to the call's result. */
#define COUNTED(call) (counter_add(C_syscalls_total, 1), (call))

static struct conn conn_table[CONN_SLOTS];
static char conn_buffer[CONN_SLOTS][CONN_BUFFER_SIZE];
static struct k_iovec conn_queue[CONN_SLOTS][CONN_QUEUE_MAX];
static char conn_scratch[CONN_SLOTS][CONN_SCRATCH_SIZE];
static backend_event events[BACKEND_EVENTS_MAX];

/* Entries one response can take in the queue: a file response is its head and its body. */
#define RESPONSE_IOV_MAX 2
STATIC_ASSERT(CONN_QUEUE_MAX >= RESPONSE_IOV_MAX, "a queue holds at least one response");

static int listener_fd;
static int serve_files;      /* --root was given: unrouted paths go to the file cache */
static int listener_parked;  /* not watched: the descriptor table was full */
static int unpark_requested; /* a connection closed since the listener was parked */

#if APOLLOD_HAVE_DEADLINES
static struct deadline_queue deadlines;
static uint64_t now_ms; /* monotonic time read once per loop iteration */
#endif

/* Ends a connection: leaves the deadline queue, frees the slot, closes the descriptor
 * (which also removes it from the epoll set: no epoll_ctl needed). close(2) releases the
 * descriptor even when it reports an error, so its result is not acted on. */
static void conn_close(int fd, struct conn *c)
{
#if APOLLOD_HAVE_DEADLINES
	deadline_cancel(&deadlines, fd);
#endif
	c->state = CONN_FREE;
	COUNTED(sys_close(fd));
	counter_add(C_connections_closed, 1);
	unpark_requested = listener_parked;
}

/* Prepares to wait for the next readiness edge: registers the descriptor the first time,
 * and re-arms the idle deadline when bytes moved (SPEC 5: progress in either direction).
 * Returns 1, or 0 when registration failed and the connection was closed. */
static int conn_wait(int fd, struct conn *c, int progressed)
{
	if (!c->watched) {
		if (sys_is_error(COUNTED(backend_watch_conn(fd, conn_token(fd, c->gen))))) {
			conn_close(fd, c);
			return 0;
		}
		c->watched = 1;
	}
#if APOLLOD_HAVE_DEADLINES
	if (progressed && c->state != CONN_DRAINING)
		deadline_touch(&deadlines, fd, now_ms);
#else
	(void)progressed;
#endif
	return 1;
}

/* Appends len bytes at p to c's response queue; the caller checked there is room. */
static void conn_queue_push(int fd, struct conn *c, const char *p, uint64_t len)
{
	struct k_iovec *iov = &conn_queue[fd][c->out_head + c->out_count++];
	iov->iov_base = p;
	iov->iov_len = len;
}

/* Answers one request at the front of c's input. outcome is COMPLETE (req filled) or BAD.
 * Counts the request, its method and its status before a /metrics body is rendered, so
 * /metrics includes the current request (SPEC 7).
 * Returns 1 when a response was queued and the input consumed, or 0 when the request is a
 * /metrics that must wait until the responses queued before it have left (so its
 * bytes_written covers them); the input is then untouched. */
static int conn_answer(int fd, struct conn *c, enum parse_outcome outcome,
		       const struct http_request *req)
{
	enum static_response_id id = RESP_BAD_REQUEST;
	enum route route = ROUTE_NONE;
	const struct cached_file *file = 0; /* a cache hit */
	int keep = 0;      /* the connection persists after this response */
	int head_only = 0; /* HEAD: the head of the GET response, no body */
	uint64_t body = 0; /* Content-Length the request announced */
	uint32_t consumed = c->in_end - c->in_start; /* a 400 ends the input */

	if (outcome == PARSE_COMPLETE) {
		const struct request_line *line = &req->line;
		const struct header_block *h = &req->headers;
		keep = line->version_minor ? h->connection != HTTP_CONNECTION_CLOSE
					   : h->connection == HTTP_CONNECTION_KEEP_ALIVE;
		body = h->has_content_length ? h->content_length : 0;
		consumed = req->head_len;
		if (line->method == HTTP_METHOD_OTHER) {
			id = RESP_NOT_ALLOWED;
			if (body)
				keep = 0; /* SPEC 6: a 405 with a body closes */
		} else {
			route = route_match(line->target, line->path_len);
			if (route == ROUTE_METRICS && c->out_count)
				return 0;
			head_only = line->method == HTTP_METHOD_HEAD;
			counter_add(head_only ? C_requests_head : C_requests_get, 1);
			id = route == ROUTE_ROOT ? RESP_HELLO
			     : route == ROUTE_HEALTH ? RESP_HEALTH
						     : RESP_NOT_FOUND;
			if (route == ROUTE_NONE && serve_files) {
				/* "/a/b" is cached as "a/b"; the path always starts with '/' */
				file = file_cache_find(line->target + 1, line->path_len - 1);
				counter_add(file ? C_cache_hits : C_cache_misses, 1);
			}
			if (body > BODY_SKIP_MAX)
				keep = 0;
		}
	}
	counter_add(C_requests_total, 1);
	c->in_start += consumed;
	if (keep) {
		c->skip = body; /* discarded before the next head is parsed */
	} else {
		c->flags |= CONN_F_CLOSE_AFTER;
		/* Bytes may still be on their way: linger rather than reset them. */
		if (!(c->flags & CONN_F_PEER_EOF) &&
		    (outcome != PARSE_COMPLETE || c->in_end == CONN_BUFFER_SIZE ||
		     body > c->in_end - c->in_start || c->in_start < c->in_end))
			c->flags |= CONN_F_DRAIN;
	}
	enum conn_form form = keep ? CONN_FORM_KEEP_ALIVE : CONN_FORM_CLOSE;
	if (file) { /* the pre-rendered head, then the mapping itself: one writev */
		counter_add(C_responses_200, 1);
		conn_queue_push(fd, c, file->head[form], file->head_len[form]);
		if (!head_only && file->size)
			conn_queue_push(fd, c, file->body, file->size);
		return 1;
	}
	if (route == ROUTE_METRICS) {
		counter_add(C_responses_200, 1);
		struct rendered_response r = build_metrics(conn_scratch[fd], form);
		conn_queue_push(fd, c, r.bytes, head_only ? r.head_len : r.total_len);
		return 1;
	}
	const struct static_response *sr = &static_responses[form][id];
	counter_add((enum counter_id)sr->counter, 1);
	conn_queue_push(fd, c, sr->bytes, head_only ? sr->head_len : sr->total_len);
	return 1;
}

/* Answers every complete request at the front of c's input, in order, until the input
 * holds no complete head, the queue is full, a /metrics must wait for the queue, or the
 * connection is to close. Then moves a partial head to the buffer's start, so every head
 * can use the whole 8 KiB. */
static void conn_answer_pending(int fd, struct conn *c)
{
	char *buf = conn_buffer[fd];
	while (!(c->flags & CONN_F_CLOSE_AFTER) &&
	       c->out_head + c->out_count + RESPONSE_IOV_MAX <= CONN_QUEUE_MAX) {
		uint32_t avail = c->in_end - c->in_start;
		if (c->skip) { /* the previous request's body */
			uint32_t take = c->skip < avail ? (uint32_t)c->skip : avail;
			c->in_start += take;
			c->skip -= take;
			avail -= take;
		}
		if (c->skip || avail == 0)
			break;
		struct http_request req;
		enum parse_outcome r = parse_request(buf + c->in_start, avail, &req);
		if (r == PARSE_PARTIAL) {
			/* 8 KiB without CRLFCRLF, or the peer ended mid-head: 400 */
			if (avail < CONN_BUFFER_SIZE && !(c->flags & CONN_F_PEER_EOF))
				break;
			r = PARSE_BAD;
		}
		if (!conn_answer(fd, c, r, &req))
			break;
	}
	if (c->in_start == c->in_end) {
		c->in_start = c->in_end = 0;
	} else if (c->in_start && !(c->flags & CONN_F_CLOSE_AFTER)) {
		__builtin_memmove(buf, buf + c->in_start, c->in_end - c->in_start);
		c->in_end -= c->in_start;
		c->in_start = 0;
	}
}

/* Sends the queued responses: one write for one response, one writev for several.
 * Returns 1 when the queue is empty, 0 on EAGAIN (the caller waits for EPOLLOUT), or -1
 * when the connection failed and was closed. Sets *progressed when bytes left. */
static int conn_flush(int fd, struct conn *c, int *progressed)
{
	while (c->out_count) {
		struct k_iovec *iov = &conn_queue[fd][c->out_head];
		counter_add(C_response_syscalls, 1);
		long n = c->out_count == 1
				 ? COUNTED(sys_write(fd, iov->iov_base, iov->iov_len))
				 : COUNTED(sys_writev(fd, iov, (int)c->out_count));
		if (n > 0) {
			counter_add(C_bytes_written, (uint64_t)n);
			*progressed = 1;
			uint64_t left = (uint64_t)n;
			while (c->out_count && left >= iov->iov_len) { /* whole responses */
				left -= iov->iov_len;
				iov++;
				c->out_head++;
				c->out_count--;
			}
			if (c->out_count) { /* a short write: resume inside this response */
				iov->iov_base = (const char *)iov->iov_base + left;
				iov->iov_len -= left;
			}
		} else if (n == -EAGAIN) {
			counter_add(C_write_eagains, 1);
			return 0;
		} else if (n != -EINTR) {
			conn_close(fd, c); /* EPIPE (SIGPIPE is ignored), ECONNRESET */
			return -1;
		}
	}
	c->out_head = 0;
	return 1;
}

/* Reads and discards until the peer closes (see DRAIN_MAX). */
static void conn_drain(int fd, struct conn *c)
{
	for (;;) {
		long n = COUNTED(sys_read(fd, conn_buffer[fd], CONN_BUFFER_SIZE));
		if (n > 0) {
			counter_add(C_bytes_read, (uint64_t)n);
			c->drained += (uint64_t)n;
			if (c->drained <= DRAIN_MAX)
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

/* Ends a connection whose last response has left: closes, or lingers (CONN_F_DRAIN). */
static void conn_finish(int fd, struct conn *c)
{
	if (!(c->flags & CONN_F_DRAIN)) {
		conn_close(fd, c);
		return;
	}
	COUNTED(sys_shutdown(fd, K_SHUT_WR)); /* FIN after the answer; failure: peer gone */
	c->state = CONN_DRAINING;
	c->drained = 0;
	conn_drain(fd, c);
}

/* Drives an open connection as far as it can go without blocking: answer what is
 * buffered, send, read more, until it must wait for the peer or it ends. */
static void conn_service(int fd, struct conn *c)
{
	int progressed = 0;
	for (;;) {
		conn_answer_pending(fd, c);
		if (c->out_count) {
			int sent = conn_flush(fd, c, &progressed);
			if (sent < 0)
				return;
			if (sent == 0) {
				conn_wait(fd, c, progressed);
				return;
			}
			continue; /* a /metrics or more input may have waited for the queue */
		}
		if (c->flags & CONN_F_CLOSE_AFTER) {
			conn_finish(fd, c);
			return;
		}
		if (c->flags & CONN_F_PEER_EOF) { /* everything answered; nothing will come */
			conn_close(fd, c);
			return;
		}
		if (c->flags & CONN_F_INPUT_DRAINED) {
			conn_wait(fd, c, progressed);
			return;
		}
		uint32_t space = CONN_BUFFER_SIZE - c->in_end;
		long n = COUNTED(sys_read(fd, conn_buffer[fd] + c->in_end, space));
		if (n > 0) {
			counter_add(C_bytes_read, (uint64_t)n);
			c->in_end += (uint32_t)n;
			progressed = 1;
			/* Short: the socket is empty, wait for the next edge. Not after a hang-up:
			 * data and FIN can come in one edge, and the FIN needs a read of its own. */
			if ((uint32_t)n < space && !(c->flags & CONN_F_HUP))
				c->flags |= CONN_F_INPUT_DRAINED;
		} else if (n == 0) {
			c->flags |= CONN_F_PEER_EOF;
		} else if (n == -EAGAIN) {
			c->flags |= CONN_F_INPUT_DRAINED;
		} else if (n != -EINTR) {
			conn_close(fd, c); /* ECONNRESET and friends: the peer is gone */
			return;
		}
	}
}

/* Takes a new connection on fd (< CONN_SLOTS) and serves it at once. */
static void conn_open(int fd)
{
	struct conn *c = &conn_table[fd];
	c->gen++;
	c->state = CONN_OPEN;
	c->watched = 0;
	c->flags = 0;
	c->in_start = c->in_end = 0;
	c->skip = 0;
	c->out_head = c->out_count = 0;
#if APOLLOD_HAVE_DEADLINES
	deadline_arm(&deadlines, fd, now_ms);
#endif
	conn_service(fd, c);
}

/* Stops (park = 1) or resumes watching the listener. Returns EXIT_OK or EXIT_EPOLL. */
static enum exit_code listener_set_parked(int park)
{
	if (sys_is_error(COUNTED(backend_watch_listener(listener_fd, LISTENER_TOKEN, !park))))
		return EXIT_EPOLL;
	listener_parked = park;
	unpark_requested = 0;
	return EXIT_OK;
}

/* Accepts until EAGAIN (SPEC 4). Returns EXIT_OK, or EXIT_ACCEPT / EXIT_EPOLL. */
static enum exit_code accept_ready(void)
{
	for (;;) {
		long fd = COUNTED(sys_accept4(listener_fd, K_SOCK_NONBLOCK | K_SOCK_CLOEXEC));
		if (!sys_is_error(fd)) {
			counter_add(C_connections_accepted, 1);
			if (fd < CONN_SLOTS) {
				conn_open((int)fd);
			} else { /* beyond the table: refuse */
				COUNTED(sys_close((int)fd));
				counter_add(C_connections_closed, 1);
			}
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
	if (c->state == CONN_DRAINING) {
		if (backend_event_readable(e))
			conn_drain(fd, c);
		return EXIT_OK;
	}
	if (backend_event_readable(e))
		c->flags &= (uint8_t)~CONN_F_INPUT_DRAINED; /* a new edge: input may be there */
	if (backend_event_hangup(e))
		c->flags |= CONN_F_HUP;
	conn_service(fd, c);
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

enum exit_code server_run(int listen_fd, uint64_t idle_ms, int files)
{
	listener_fd = listen_fd;
	serve_files = files;
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
		long n = COUNTED(backend_wait(events, timeout_ms));
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
