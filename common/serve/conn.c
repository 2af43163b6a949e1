/* One connection's life (see conn.h), from the first read after accept4 to the close.
 *
 * Every complete request already in the buffer is answered in order (pipelining); their
 * responses are queued and leave together in one write(2) or writev(2). A partial head at
 * the end of the buffer waits for more input. HTTP/1.1 connections persist unless the
 * request says "Connection: close"; HTTP/1.0 ones only with "Connection: keep-alive"
 * (BEHAVIOUR 9). See docs/AUDIT.md for the state machine and docs/ARCHITECTURE.md for a
 * request's way through the files. */
#include "common/serve/conn.h"

#include "common/serve/access_log.h"
#include "common/serve/disk_open.h"
#include "common/serve/send_pipes.h"
#include "common/base/clock.h"
#include "common/base/counters.h"
#include "common/base/span.h"
#include "common/http/date_field.h"
#include "common/answer/extra_fields.h"
#include "common/http/http_request.h"
#include "common/serve/deadline.h"
#include "common/serve/live_listing.h"
#include "common/answer/metrics.h"
#include "common/answer/path_fields.h"
#include "common/answer/sites.h"
#include "common/answer/responses.h"

/* Lingering close: when the daemon closes with request bytes still unread in the kernel
 * (a body not yet arrived, input after the last answered request), closing at once makes
 * the kernel send RST, which can destroy the answer before the client reads it
 * (RFC 9112 9.6). Such a connection shuts down its write side and reads and discards
 * until the client closes: at most LINGER_MAX bytes, bounded in time by the idle
 * deadline (armed when the linger starts, not moved by what it discards). */
#define LINGER_MAX (256u * 1024u)

/* Entries one response can take in the queue: its head up to the Date field, the Date
 * tail (date_field.h), the --header block when there is one (extra_fields.h), its body. */
#define RESPONSE_IOV_MAX 4
/* A file's 200 in the form it is not stored in (FILE_HEAD_FORM) takes one entry more: the
 * stored head up to its Connection line, then the line of its own form (conn_take_file).
 * That form is the close one, so such a response is the connection's last
 * (CONN_F_CLOSE_AFTER stops the answering): it alone may use the spare entry after
 * CONN_QUEUE_MAX. */
#define SPLICE_IOV 1
STATIC_ASSERT(FILE_HEAD_FORM != CONN_FORM_CLOSE, "only a closing response splices");
STATIC_ASSERT(CONN_QUEUE_MAX >= RESPONSE_IOV_MAX, "a queue holds at least one response");
STATIC_ASSERT(CONN_QUEUE_MAX + SPLICE_IOV <= 1024, "writev takes at most IOV_MAX entries");
STATIC_ASSERT(DEADLINE_SLOTS >= CONN_SLOTS, "the deadline unit tracks every slot");
STATIC_ASSERT(OPTIONS_HEAD_MAX(PATH_FIELDS_BLOCK_MAX) <= CONN_SCRATCH_SIZE,
	      "an OPTIONS 204 with every --header-for field fits the scratch");
STATIC_ASSERT(REDIRECT_MAX(REDIRECT_LOCATION_MAX) <= CONN_SCRATCH_SIZE,
	      "a 301 for the longest target fits the scratch buffer");
STATIC_ASSERT(DISK_VIEW_AT + DISK_VIEW_MAX <= CONN_SCRATCH_SIZE,
	      "a disk-served file's view fits the scratch after the head made from it");
STATIC_ASSERT(HEAD_206_MAX(FILE_HEAD_STORED_MAX) <= CONN_SCRATCH_SIZE &&
		      RANGE_NOT_SATISFIABLE_MAX <= CONN_SCRATCH_SIZE &&
		      FILE_HEAD_304_MAX + PATH_FIELDS_BLOCK_MAX <= CONN_SCRATCH_SIZE,
	      "a 206 head, a 416 and a 304 head fit the scratch buffer");

enum conn_state {
	CONN_FREE = 0,     /* no connection on this descriptor */
	CONN_OPEN = 1,     /* reading requests and sending their responses */
	CONN_LINGERING = 2, /* answered and shut down; reading and discarding until the peer
			     * closes */
};

/* What a connection waits for, which decides its kind of deadline (deadline.h) and what its
 * expiry does (conn_expire, BEHAVIOUR 5). */
enum conn_phase {
	CONN_P_WAITING = 0, /* for a request: nothing buffered, nothing queued */
	CONN_P_HEAD = 1,    /* for the rest of a head: some of it is buffered */
	CONN_P_BODY = 2,    /* for body bytes to skip */
	CONN_P_SEND = 3,    /* for the client to take queued responses */
	CONN_P_LINGER = 4,  /* for the client to close (conn_linger) */
	CONN_P_ANSWERED = 5, /* a request was just answered: the next wait arms afresh */
};

/* conn.flags */
#define CONN_F_CLOSE_AFTER 0x01 /* close once the queue is sent: parse nothing more */
#define CONN_F_PEER_EOF 0x02    /* a read returned 0: no more input will come */
#define CONN_F_LINGER 0x04      /* on close, unread input may remain: linger first */
#define CONN_F_ANSWERED 0x08    /* a response was queued: not a fresh connection any more */
#define CONN_F_ADMIN 0x10       /* accepted on the --admin-listen listener (conn_on_admin) */

/* One slot: 64 bytes, one cache line. */
struct conn {
	struct conn_io io;  /* the backend's handle: descriptor, token, readiness */
	uint32_t gen;       /* bumped at every accept; the token carries it */
	uint8_t state;      /* enum conn_state */
	uint8_t flags;      /* CONN_F_* */
	uint8_t phase;      /* enum conn_phase */
	uint8_t ref_count;  /* bodies by reference in the queue (conn_out.refs) */
	uint32_t in_start;  /* first unconsumed byte of the request buffer */
	uint32_t in_end;    /* bytes in the request buffer: in_start <= in_end <= CONN_BUFFER_SIZE */
	uint64_t skip;      /* request body bytes still to discard before the next head */
	uint32_t out_head;  /* first unsent entry of the response queue */
	uint32_t out_count; /* unsent entries: out_head + out_count <= CONN_QUEUE_MAX, or
			     * + SPLICE_IOV with a closing file response last */
	uint64_t lingered;  /* bytes discarded while lingering */
	uint8_t ref_head;   /* the first of them in conn_out.refs (a ring of CONN_REFS_MAX) */
	uint8_t first_entry; /* the queue entry the response being queued starts at (its
			      * bytes, for the access log: conn_log) */
	uint8_t reserved[6];
};
#define CONN_SLOT_SIZE 64
STATIC_ASSERT(sizeof(struct conn) == CONN_SLOT_SIZE, "one slot per cache line");
STATIC_ASSERT(CONN_QUEUE_MAX + SPLICE_IOV <= UINT8_MAX, "first_entry fits its byte");

/* A token: the descriptor in the low half, the slot's generation in the high half. A
 * report for a descriptor that was closed and reused within one batch carries the old
 * generation and is dropped. The listener's token has a generation no slot reaches. */
#define CONN_TOKEN_GEN_SHIFT 32

/* A body by reference (BEHAVIOUR 10.17): bytes of a file the kernel sends from its pages
 * (a send pipe's splice, or sendfile), never copied through user space. Its queue entry
 * has iov_base NULL and iov_len the bytes still to send; the references are taken in
 * queue order, so the first such entry is refs[ref_head]. A snapshot's body goes through
 * a send pipe (send_pipes.h) while one is free: offset then names the next byte not yet
 * in the pipe, and the pipe holds the bytes before it that the socket has not taken
 * (iov_len counts both); with none free, the next send is a sendfile from offset. */
struct body_ref {
	int64_t offset;     /* the file's next byte to send or pipe (sendfile moves it) */
	const char *map;    /* the snapshot arena's mapping (its byte 0: offset's byte is at
			     * map + offset), or NULL: a file on disk, which goes by sendfile */
	int32_t fd;         /* the file: a snapshot arena's memfd, or a file opened per request */
	uint16_t flags;     /* BODY_REF_OWNED */
	int8_t pipe;        /* the send pipe holding its next bytes, or SEND_PIPE_NONE */
	uint8_t reserved;
};
#define BODY_REF_OWNED 0x1 /* the connection closes fd once sent or when it ends */
#define BODY_REF_SIZE 24
STATIC_ASSERT(sizeof(struct body_ref) == BODY_REF_SIZE, "a reference is three words");
/* References one queue holds: each is one response's body, and a response that waits
 * behind them waits for the same socket anyway. A power of two (the ring). */
#define CONN_REFS_MAX 4
STATIC_ASSERT((CONN_REFS_MAX & (CONN_REFS_MAX - 1)) == 0 && CONN_REFS_MAX <= UINT8_MAX,
	      "ref_head and ref_count index a ring of CONN_REFS_MAX");

/* A slot's response side: its queue of responses and the Date bytes they point at. */
struct conn_out {
	struct k_iovec queue[CONN_QUEUE_MAX + SPLICE_IOV]; /* from out_head, out_count long */
	struct body_ref refs[CONN_REFS_MAX]; /* the queue's bodies by reference */
	/* The slot's own copy of the Date tail, taken when its queue is empty: a tail still
	 * queued (a short send) is never rewritten under it by the next second's render. */
	char date[DATE_TAIL_LEN];
};

/* The per-slot arrays, indexed by descriptor. Four arrays, not one struct per slot,
 * because each is touched by a different share of the work and only touched pages become
 * resident (docs/AUDIT.md, "Memory"; the peak resident row of //compare:table): the
 * 64-byte slot is the one cache line every report reads; a request touches the start of
 * its 16 KiB buffer; every response the response side; only the few answers rendered per
 * request the scratch. One 13 KiB struct of all four would give each connection two
 * pages of its own (slot and buffer, response side) instead of one and shares of pages
 * packed with other slots' lines and queues. */
static struct conn conn_table[CONN_SLOTS];
static char conn_buffer[CONN_SLOTS][CONN_BUFFER_SIZE];
static struct conn_out conn_out[CONN_SLOTS];
static char conn_scratch[CONN_SLOTS][CONN_SCRATCH_SIZE]; /* a response rendered per request */

/* What a site (sites.h) answers with. */
struct conn_site {
	file_lookup_fn find_file; /* its lookup, or NULL (site 0 without --root) */
	struct site_pages pages;  /* its --error-page and --fallback (NULLs: none) */
	rule_match_fn match_rule; /* its --redirects' rules, or NULL */
};

/* What every connection shares. */
struct conns_state {
	struct conn_site site[SITES_MAX]; /* by site number; 0 is --root's */
	uint32_t site_now;        /* the site of the request being answered (sites_enter'ed) */
	uint8_t sites_on;         /* --site given: each request's host picks its site */
	uint32_t open_max;        /* --max-connections */
	uint32_t open_count;      /* connections open now (lingering ones included) */
	int slots_freed;          /* a connection closed since conn_slots_freed() last asked */
	uint8_t no_openat2;       /* openat2 said ENOSYS: disk_open walks components */
	int stopping;             /* conn_stop() or conn_retire() was called */
	int retiring;             /* conn_retire() and no conn_stop() since: answered
				   * connections wait for one more request */
	uint8_t admin_on;         /* --admin-listen: connections are ROUTES_SITE or _ADMIN */
	union k_sockaddr admin;   /* the admin listener's bound address (getsockname) */
	struct send_pipes pipes;  /* the process's send pipes (send_pipes.h) */
	struct live_listings live; /* buffers lent to listings made per request: last, so
				    * that only a live listing touches its pages */
};
static struct conns_state conns;

/* The deadline each phase waits under (CONN_P_ANSWERED never waits). */
static const uint8_t phase_deadline[] = {
	[CONN_P_WAITING] = DEADLINE_WAITING,
	[CONN_P_HEAD] = DEADLINE_HEAD,
	[CONN_P_BODY] = DEADLINE_HEAD,
	[CONN_P_SEND] = DEADLINE_SEND,
	[CONN_P_LINGER] = DEADLINE_WAITING,
};
STATIC_ASSERT(sizeof(phase_deadline) == CONN_P_ANSWERED, "a deadline for each waiting phase");

uint32_t conn_setup_pipes(void)
{
	struct k_rlimit lim = {CONN_SLOTS, CONN_SLOTS}; /* if unreadable: the table's own */
	sys_prlimit64(0, K_RLIMIT_NOFILE, 0, &lim);
	uint64_t share = lim.rlim_cur / SEND_PIPE_DESCRIPTOR_SHARE; /* at least one pipe */
	uint32_t want = share >= SEND_PIPES ? SEND_PIPES : share ? (uint32_t)share : 1;
	return send_pipes_open(&conns.pipes, want);
}

void conn_setup(file_lookup_fn find, const struct site_pages *pages, uint32_t max_connections)
{
	conn_setup_site(SITE_DEFAULT, find, pages);
	conns.sites_on = sites_named() != 0;
	access_log.vhost_on = conns.sites_on; /* BEHAVIOUR 14: the line names the host */
	conns.open_max = max_connections;
}

void conn_setup_site(uint32_t s, file_lookup_fn find, const struct site_pages *pages)
{
	conns.site[s].find_file = find;
	conns.site[s].pages = *pages;
	conns.site[s].match_rule = find && redirects_rules() ? redirect_match : 0;
}

/* With --site: the site of the request req (a COMPLETE head at `head`; otherwise none:
 * the default's) by its authority (an absolute-form target's, else its Host), made
 * current (sites_enter) unless it is SITE_NONE, and that host noted for the access log.
 * Returns the site. */
static uint32_t conn_enter_site(const struct http_request *req, enum parse_outcome r,
				const char *head)
{
	struct text_span host = {0, 0};
	if (r == PARSE_COMPLETE && req->authority) { /* RFC 9112 3.2.2: it wins over Host */
		host.text = req->authority;
		host.len = req->authority_len;
	} else if (r == PARSE_COMPLETE && req->headers.host_count) {
		host.text = head + req->line.line_len + req->headers.host_at;
		host.len = req->headers.host_len;
	}
	uint32_t s = sites_match(host.text, host.len);
	access_log.vhost = host;
	conns.site_now = s;
	if (s != SITE_NONE)
		sites_enter(s);
	return s;
}

/* Fills in what site s (SITE_NONE: none, a 421) answers with: its lookup, pages and
 * rules. */
static inline void conn_site_input(struct answer_input *in, uint32_t s)
{
	const struct conn_site *site = &conns.site[s != SITE_NONE ? s : SITE_DEFAULT];
	in->find_file = s != SITE_NONE ? site->find_file : 0;
	in->pages = s != SITE_NONE ? &site->pages : 0;
	in->match_rule = s != SITE_NONE ? site->match_rule : 0;
	in->misdirected = s == SITE_NONE;
}

void conn_admin_listener(int fd)
{
	uint32_t len = sizeof(conns.admin);
	conns.admin_on = 1;
	if (sys_is_error(sys_getsockname(fd, &conns.admin, &len)))
		conns.admin.family = 0; /* no connection matches: none is admin */
}

/* Whether local, a connection's own address, is the admin listener's: the same family
 * and port, and its address unless the listener's is the wildcard. */
static int admin_address_is(const union k_sockaddr *local)
{
	static const uint8_t any6[K_IN6_ADDR_SIZE];
	const union k_sockaddr *a = &conns.admin;
	if (a->family != local->family)
		return 0;
	if (a->family == K_AF_INET)
		return a->in.sin_port == local->in.sin_port &&
		       (a->in.sin_addr == 0 || a->in.sin_addr == local->in.sin_addr);
	return a->in6.sin6_port == local->in6.sin6_port &&
	       (span_eq((const char *)a->in6.sin6_addr, (const char *)any6, K_IN6_ADDR_SIZE) ||
		span_eq((const char *)a->in6.sin6_addr, (const char *)local->in6.sin6_addr,
			K_IN6_ADDR_SIZE));
}

/* With --admin-listen: whether fd was accepted on the admin listener (one getsockname:
 * the completion backend's accept queue mixes the listeners). */
static int conn_on_admin(int fd)
{
	union k_sockaddr local;
	uint32_t len = sizeof(local);
	if (sys_is_error(COUNTED(sys_getsockname(fd, &local, &len))))
		return 0;
	return admin_address_is(&local);
}

int conn_table_full(void)
{
	return conns.open_count >= conns.open_max;
}

uint32_t conn_room(void)
{
	return conns.open_count >= conns.open_max ? 0 : conns.open_max - conns.open_count;
}

int conn_open_count(void)
{
	return (int)conns.open_count;
}

int conn_slots_freed(void)
{
	int freed = conns.slots_freed;
	conns.slots_freed = 0;
	return freed;
}

/* Takes the first body by reference off c's queue (its entry is gone or going): gives
 * back the send pipe it holds (one with bytes still in it is made anew: send_pipe_give),
 * closes its file when the connection owns it. */
static void conn_pop_reference(int fd, struct conn *c)
{
	struct body_ref *r = &conn_out[fd].refs[c->ref_head];
	if (r->pipe != SEND_PIPE_NONE)
		send_pipe_give(&conns.pipes, r->pipe);
	if (r->flags & BODY_REF_OWNED)
		sys_close(r->fd); /* a read-only file: nothing to lose; AUDIT: close */
	c->ref_head = (uint8_t)((c->ref_head + 1) & (CONN_REFS_MAX - 1));
	c->ref_count--;
}

/* Ends a connection: no deadline, slot free, descriptor closed (which also ends its
 * registration with the backend), every file its queue owned closed; at_once: released
 * before this returns (io_close_now). */
static void conn_end(int fd, struct conn *c, int at_once)
{
	access_log_end(fd); /* responses it did not finish: logged as cut */
	while (c->ref_count)
		conn_pop_reference(fd, c);
	deadline_cancel(fd);
	conns.open_count--;
	c->state = CONN_FREE;
	if (at_once)
		io_close_now(&c->io);
	else
		io_close(&c->io);
	counter_add(C_connections_closed, 1);
	conns.slots_freed = 1;
}

/* Ends a connection (see conn_end); its descriptor is released as the backend sees fit. */
static void conn_close(int fd, struct conn *c)
{
	conn_end(fd, c, 0);
}

/* c's phase becomes p: its deadline of p's kind starts now (BEHAVIOUR 5). */
static void conn_enter(int fd, struct conn *c, enum conn_phase p)
{
	c->phase = (uint8_t)p;
	deadline_arm(fd, (enum deadline_kind)phase_deadline[p]);
}

/* The connection must wait for the peer; an I/O call has arranged the report. What it
 * waits for picks its deadline, which starts when that wait begins and is not moved by
 * bytes read (a head or body trickled a byte at a time still ends at its deadline); only
 * a response that moved (`progressed`) starts its send deadline again. */
static void conn_wait(int fd, struct conn *c, int progressed)
{
	enum conn_phase p = c->out_count                ? CONN_P_SEND
			    : c->skip                   ? CONN_P_BODY
			    : c->in_end > c->in_start ? CONN_P_HEAD
						      : CONN_P_WAITING;
	if (p != c->phase)
		conn_enter(fd, c, p);
	else if (p == CONN_P_SEND && progressed)
		deadline_touch(fd);
}

/* Appends len bytes at p to c's response queue; the caller checked there is room. */
static void conn_push(int fd, struct conn *c, const char *p, uint64_t len)
{
	struct k_iovec *iov = &conn_out[fd].queue[c->out_head + c->out_count++];
	iov->iov_base = p;
	iov->iov_len = len;
}

/* Returns 1 when c's queue has room for one more body by reference, else 0. */
static inline int conn_reference_room(const struct conn *c)
{
	return c->ref_count < CONN_REFS_MAX;
}

/* Appends a body by reference to c's queue: len (> 0) bytes of body_fd from offset,
 * sent once the entries before it have left (those with MSG_MORE, so the head and the
 * body's first bytes share segments): through a send pipe from map (body_fd's mapping,
 * its byte 0) when it is not NULL and a pipe is free, else by sendfile;
 * owned: the connection closes body_fd once sent, or when it ends first. The caller
 * checked there is room (conn_reference_room and a queue entry). The disk-served files
 * (issue 23) use it with owned = 1 and map NULL. */
static void conn_push_reference(int fd, struct conn *c, int body_fd, int64_t offset,
				const char *map, uint64_t len, int owned)
{
	struct body_ref *r = &conn_out[fd].refs[(c->ref_head + c->ref_count++) & (CONN_REFS_MAX - 1)];
	r->offset = offset;
	r->map = map;
	r->fd = body_fd;
	r->flags = owned ? BODY_REF_OWNED : 0;
	r->pipe = SEND_PIPE_NONE;
	conn_push(fd, c, 0, len);
}

/* Refreshes the slot's Date copy when nothing queued points at it: once per batch of
 * responses, before the first entry of its first response is queued. */
static void conn_date_fresh(int fd, const struct conn *c)
{
	if (c->out_count == 0)
		date_tail_copy(conn_out[fd].date);
}

/* Queues one response: head (head_len bytes, ending in HEAD_END) with the slot's Date
 * line and the --header block (which brings its own empty line) spliced before its empty
 * line, then body_len bytes at body; the caller checked there is room for
 * RESPONSE_IOV_MAX entries. */
static void conn_push_response(int fd, struct conn *c, const char *head, uint32_t head_len,
			       const char *body, uint64_t body_len)
{
	conn_date_fresh(fd, c);
	conn_push(fd, c, head, head_len - DATE_HEAD_CUT);
	if (extra_fields.len) {
		conn_push(fd, c, conn_out[fd].date, DATE_TAIL_LEN - DATE_HEAD_CUT);
		conn_push(fd, c, extra_fields.block, extra_fields.len);
	} else {
		conn_push(fd, c, conn_out[fd].date, DATE_TAIL_LEN);
	}
	if (body_len)
		conn_push(fd, c, body, body_len);
}

static inline void count_if(uint8_t id)
{
	if (id != ANSWER_NO_COUNTER)
		counter_add((enum counter_id)id, 1);
}

STATIC_ASSERT(FILE_CODING_MAX <= ACCESS_LOG_CODING_MAX, "every coding fits a log line");

/* The response just queued on c (from c->first_entry on) answered the request log
 * describes (its line and fields): hands the access log its status counter, body bytes
 * and coding (len 0: none) and its bytes in the queue, so that its line is written once
 * they have left (access_log.h). */
static void conn_log(int fd, const struct conn *c, struct access_log_request *log,
		     uint8_t status_counter, uint64_t body_bytes, struct text_span coding)
{
	if (access_log.fd < 0)
		return;
	log->status_counter = status_counter;
	log->body_bytes = body_bytes;
	log->coding = coding;
	log->vhost = access_log.vhost; /* conn_enter_site's, with --site */
	log->vhost_on = (uint8_t)access_log.vhost_on;
	const struct k_iovec *q = &conn_out[fd].queue[c->first_entry];
	access_log_request(fd, log, iov_bytes(q, c->out_head + c->out_count - c->first_entry));
}

/* For a's response from the file (or representation) f: counts a GET's 200 whose body is
 * a coded representation (BEHAVIOUR 7: responses_compressed, and compressed_bytes_saved,
 * what the identity would have sent less what this sends) and returns the response's
 * Content-Encoding for the access log (len 0: none; a 304 or 416 carries none). */
static struct text_span conn_count_coding(const struct answer *a, const struct cached_file *f)
{
	struct text_span none = {0, 0};
	if (f->encoding == FILE_ENCODING_IDENTITY ||
	    (a->kind != ANSWER_FILE && a->kind != ANSWER_PARTIAL))
		return none;
	if (a->kind == ANSWER_FILE && !a->head_only) {
		counter_add(C_responses_compressed, 1);
		if (a->identity_size > f->size) /* a variant beside X may be no smaller */
			counter_add(C_compressed_bytes_saved, a->identity_size - f->size);
	}
	return file_encoding_coding[f->encoding];
}

/* Queues a's answer from a cached file: its pre-rendered 200 head (the error page's 404
 * head; in the other form: up to its Connection line, then that form's, SPLICE_IOV) and
 * the snapshot itself, a 304
 * head alone, or a 206 head and the slice; a 304 or 206 head is rendered into the
 * scratch buffer (free: answer_file made it wait otherwise). HEAD gets no body. A file
 * served from disk is its view (answer_disk, its head in the scratch too) and disk_fd
 * its open, whose body goes by reference and is closed once sent (-1: none). */
static void conn_take_file(int fd, struct conn *c, const struct answer *a,
			   struct access_log_request *log, int disk_fd)
{
	const struct cached_file *f = a->file;
	const char *head = f->head;
	uint32_t head_len = f->head_len;
	uint64_t body_at = 0;
	uint64_t body_len = a->head_only ? 0 : f->size; /* logged as sent */
	if (a->kind == ANSWER_NOT_MODIFIED) {
		head_len = (uint32_t)file_head_304(conn_scratch[fd], f, (enum conn_form)a->form);
		head = conn_scratch[fd];
		body_len = 0;
	} else if (a->kind == ANSWER_PARTIAL) { /* never HEAD: Range is GET's only */
		struct text_span type = {head + HEAD_200_TYPE_AT, f->type_len};
		struct text_span fields = {head + f->rest_at, file_head_cut(f) - f->rest_at};
		head_len = (uint32_t)render_head_206(conn_scratch[fd], type, a->first, a->last,
						     f->size, fields, (enum conn_form)a->form);
		head = conn_scratch[fd];
		body_at = a->first;
		body_len = a->last - a->first + 1;
	} else if (a->form != FILE_HEAD_FORM) { /* the closing response: splice its form */
		conn_date_fresh(fd, c);
		conn_push(fd, c, head, file_head_cut(f));
		head = head_tail[a->form].text;
		head_len = head_tail[a->form].len;
	}
	/* A large body leaves by reference, from its arena through a send pipe (BEHAVIOUR
	 * 10.17); a disk-served one always, from its open by sendfile (10.18), which the
	 * queue then owns. */
	int body_fd = disk_fd;
	int64_t at = disk_fd >= 0			   ? (int64_t)body_at
		     : body_len >= FILE_BY_REFERENCE_MIN ? file_body_offset(f, body_at, &body_fd)
							 : -1;
	if (at >= 0) {
		conn_push_response(fd, c, head, head_len, 0, 0);
		const char *map = disk_fd >= 0 ? 0 : f->body + body_at - at; /* byte 0's */
		conn_push_reference(fd, c, body_fd, at, map, body_len, disk_fd >= 0);
	} else {
		conn_push_response(fd, c, head, head_len, f->body + body_at, body_len);
	}
	struct text_span coding = conn_count_coding(a, f); /* counted whether logged or not */
	conn_log(fd, c, log, a->status_counter, body_len, coding);
}

/* Queues the 416 of a->file answered with the 416 page (a->page, in memory: BEHAVIOUR
 * 10.12): the page's stored head with Content-Range naming the file's size, rendered into
 * the scratch (free: answer_file made it wait otherwise), then the page's body. */
static void conn_take_page_416(int fd, struct conn *c, const struct answer *a,
			       struct access_log_request *log)
{
	const struct cached_file *page = conns.site[conns.site_now].pages.error[a->page];
	struct text_span head = {page->head, file_head_cut(page)};
	uint32_t n = (uint32_t)render_page_416(conn_scratch[fd], head, a->file->size,
					       (enum conn_form)a->form);
	uint64_t body = a->head_only ? 0 : page->size;
	conn_push_response(fd, c, conn_scratch[fd], n, page->body, body);
	struct text_span identity = {0, 0}; /* a page is sent as stored */
	conn_log(fd, c, log, a->status_counter, body, identity);
}
STATIC_ASSERT(FILE_HEAD_STORED_MAX + CONTENT_RANGE_MAX <= CONN_SCRATCH_SIZE,
	      "a 416 page's head fits the scratch");

/* Opens the disk-served file of a (ANSWER_DISK or ANSWER_DISK_PAGE) beneath DIR and makes
 * a the answer its fstat decides (answer_disk: its view, rendered into the scratch, in
 * *view), counting responses_from_disk; or, when it cannot be opened as a regular file
 * without following a link, the 404 (answer_disk_missing); or, for a file (not a page,
 * which falls back to its built-in answer) when the descriptor table is full (EMFILE,
 * ENFILE), the 503 with Retry-After (answer_disk_refused, counted in disk_opens_refused). Returns the open descriptor
 * when the answer sends the file's bytes (a GET's 200, 206 or --error-page 404 of a
 * non-empty file: the queue will own it), else -1 (closed, or never open). */
static int conn_open_disk(int fd, const struct answer_input *in, struct answer *a,
			  struct cached_file *view)
{
	struct disk_stat st;
	long file = disk_open(site_root_fd(), a->file, &st, &conns.no_openat2);
	if ((file == -EMFILE || file == -ENFILE) && a->kind == ANSWER_DISK) { /* try soon */
		counter_add(C_disk_opens_refused, 1);
		answer_disk_refused(a);
		return -1;
	}
	if (sys_is_error(file)) {
		answer_disk_missing(in, a);
		return -1;
	}
	answer_disk(in, a, &st, conn_scratch[fd] + DISK_VIEW_AT, view);
	counter_add(C_responses_from_disk, 1);
	int sends = !a->head_only && view->size &&
		    (a->kind == ANSWER_FILE || a->kind == ANSWER_PARTIAL || a->kind == ANSWER_ERROR_PAGE);
	if (sends)
		return (int)file;
	counter_add(C_syscalls_total, 1);
	sys_close((int)file); /* a read-only file: nothing to lose */
	return -1;
}

/* live_sending_fn: whether connection fd of generation gen still has responses queued. */
static int conn_still_sending(int fd, uint32_t gen)
{
	const struct conn *c = &conn_table[fd];
	return c->state != CONN_FREE && c->gen == gen && c->out_count != 0;
}

/* Makes the listing of a (ANSWER_LIVE_LISTING) as its directory is now into a buffer
 * lent to c (live_listing.h) and a the answer that view (*view) gets (answer_view),
 * counting listings_rendered; or, with no buffer free (listings_refused) or the
 * descriptor table full (disk_opens_refused), the 503 with Retry-After. */
static void conn_live_listing(int fd, const struct conn *c, const struct answer_input *in,
			      struct answer *a, struct cached_file *view)
{
	char *buf = live_listing_buffer(&conns.live, fd, c->gen, conn_still_sending);
	if (!buf) {
		counter_add(C_listings_refused, 1);
		answer_disk_refused(a);
		return;
	}
	if (site_live_listing(a->file, live_listing_stat, &conns.no_openat2, in->now(), buf,
				    view) != LIVE_STAT_OK) {
		counter_add(C_disk_opens_refused, 1);
		answer_disk_refused(a);
		return;
	}
	answer_view(in, a, view);
	counter_add(C_listings_rendered, 1);
}

/* For an answer a made of the file system now (ANSWER_DISK, _DISK_PAGE: conn_open_disk;
 * ANSWER_LIVE_LISTING: conn_live_listing), makes its view into *view and a its answer.
 * Returns the open descriptor a disk-served file's answer sends, else -1. */
static int conn_make_view(int fd, const struct conn *c, const struct answer_input *in,
			  struct answer *a, struct cached_file *view)
{
	if (a->kind == ANSWER_DISK || a->kind == ANSWER_DISK_PAGE)
		return conn_open_disk(fd, in, a, view);
	if (a->kind == ANSWER_LIVE_LISTING)
		conn_live_listing(fd, c, in, a, view);
	return -1;
}

/* Renders into c's scratch the 204 of an OPTIONS of a's path (ANSWER_OPTIONS): with
 * --root, the --header-for fields of the name GET would look up (answer_lookup_name,
 * which answer_options found valid). Returns its length (all head). */
static uint32_t conn_render_options(int fd, const struct answer *a)
{
	char name[ANSWER_NAME_MAX], fields[PATH_FIELDS_BLOCK_MAX];
	size_t len = 0;
	int index;
	struct text_span f = {fields, 0};
	if (conns.site[conns.site_now].find_file &&
	    answer_lookup_name(a->target, a->path_len, name, &len, &index) == URL_PATH_OK)
		f.len = (uint32_t)path_fields_render(name, len, fields);
	return (uint32_t)render_options(conn_scratch[fd], f, (enum conn_form)a->form);
}

/* Renders into c's scratch the 3xx of a's --redirects rule (ANSWER_RULE), its captures
 * from matching the name GET looks up (answer_lookup_name, which answer_rule found
 * valid) again. Sets *head_len; returns the bytes written. */
static uint32_t conn_render_rule(int fd, const struct answer *a, uint32_t *head_len)
{
	char name[ANSWER_NAME_MAX];
	size_t len = 0;
	int index = 0;
	struct redirect_captures captures;
	answer_lookup_name(a->target, a->path_len, name, &len, &index);
	if (index)
		len -= sizeof(ANSWER_INDEX_NAME) - 1;
	conns.site[conns.site_now].match_rule(name, len, &captures);
	return (uint32_t)redirect_render(conn_scratch[fd], a->rule, &captures,
					 a->target + a->path_len, a->target_len - a->path_len,
					 (enum conn_form)a->form, head_len);
}
STATIC_ASSERT(REDIRECT_RULE_MAX(REDIRECT_LOCATION_MAX) <= CONN_SCRATCH_SIZE,
	      "a rule's redirect with the longest Location fits the scratch");

/* Acts on the answer a to the request at the front of c's input: counts it, consumes its
 * input, sets the connection's fate and queues the response. Everything is counted before
 * a /metrics body is rendered, so /metrics includes the current request (BEHAVIOUR 7);
 * format is the /metrics form the request asked for; log the request line without CRLF
 * (len 0 when it could not be parsed) and its header block, for the access log (conn_log
 * fills in the rest). */
static void conn_take_answer(int fd, struct conn *c, const struct answer *a,
			     enum metrics_format format, struct access_log_request *log, int disk_fd)
{
	count_if(a->method_counter); /* requests_total is the sum of the status counters */
	count_if(a->cache_counter);
	counter_add((enum counter_id)a->status_counter, 1);
	c->in_start += a->consumed;
	c->skip = a->skip;
	c->phase = CONN_P_ANSWERED; /* the next head or body gets a deadline of its own */
	c->flags |= CONN_F_ANSWERED;
	c->first_entry = (uint8_t)(c->out_head + c->out_count);
	if (a->form == CONN_FORM_CLOSE)
		c->flags |= CONN_F_CLOSE_AFTER | (a->linger ? CONN_F_LINGER : 0);
	if (a->kind == ANSWER_FILE || a->kind == ANSWER_NOT_MODIFIED || a->kind == ANSWER_PARTIAL ||
	    a->kind == ANSWER_ERROR_PAGE || a->page == ERROR_PAGE_416) {
		if (a->page == ERROR_PAGE_416)
			conn_take_page_416(fd, c, a, log);
		else
			conn_take_file(fd, c, a, log, disk_fd);
		return;
	}
	const char *bytes;
	uint32_t head_len, total_len;
	if (a->kind == ANSWER_REDIRECT) {
		bytes = conn_scratch[fd];
		total_len = (uint32_t)render_redirect(conn_scratch[fd], a->target, a->path_len,
						      a->target_len, a->form, &head_len);
	} else if (a->kind == ANSWER_OPTIONS) {
		bytes = conn_scratch[fd];
		total_len = head_len = conn_render_options(fd, a);
	} else if (a->kind == ANSWER_RULE) {
		bytes = conn_scratch[fd];
		total_len = conn_render_rule(fd, a, &head_len);
	} else if (a->kind == ANSWER_UNSATISFIABLE) {
		bytes = conn_scratch[fd];
		total_len = (uint32_t)render_416(conn_scratch[fd], a->file->size, a->form,
						 &head_len);
	} else if (a->kind == ANSWER_METRICS) {
		struct rendered_response r = build_metrics(conn_scratch[fd], a->form, format);
		bytes = r.bytes;
		head_len = r.head_len;
		total_len = r.total_len;
	} else {
		const struct static_response *sr = &static_responses[a->form][a->response];
		bytes = sr->bytes;
		head_len = sr->head_len;
		total_len = sr->total_len;
	}
	uint32_t body = a->head_only ? 0 : total_len - head_len;
	conn_push_response(fd, c, bytes, head_len, bytes + head_len, body);
	struct text_span no_coding = {0, 0};
	conn_log(fd, c, log, a->status_counter, body, no_coding);
}

/* Discards the previous request's body bytes that are in the buffer. Returns the bytes
 * of input left after them. */
static uint32_t conn_skip_body(struct conn *c)
{
	uint32_t avail = c->in_end - c->in_start;
	uint32_t take = c->skip < avail ? (uint32_t)c->skip : avail;
	c->in_start += take;
	c->skip -= take;
	return avail - take;
}

/* After answering: an emptied input buffer starts again at 0; the unanswered rest of a
 * connection that goes on moves to the front, so the next head has the whole buffer. */
static inline void conn_compact_input(struct conn *c, char *buf)
{
	if (c->in_start == c->in_end) {
		c->in_start = c->in_end = 0;
	} else if (c->in_start && !(c->flags & CONN_F_CLOSE_AFTER)) {
		__builtin_memmove(buf, buf + c->in_start, c->in_end - c->in_start);
		c->in_end -= c->in_start;
		c->in_start = 0;
	}
}

/* Answers every complete request at the front of c's input, in order, until the input
 * holds no complete head, the queue is full, a /metrics must wait for the queue, or the
 * connection is to close. Then moves a partial head to the buffer's start, so every head
 * can use the whole 16 KiB.
 * Always inlined into conn_service, its one caller: the parsed head on its stack is 12 KiB
 * (the recorded field lines), which makes GCC refuse to inline it (its frame-growth
 * limit), and called out of line it cost about 80-90 more user-space instructions per
 * request (callgrind, bench/counts.py). */
static inline __attribute__((always_inline)) void conn_answer_pending(int fd, struct conn *c)
{
	char *buf = conn_buffer[fd];
	while (!(c->flags & CONN_F_CLOSE_AFTER) && conn_reference_room(c) &&
	       c->out_head + c->out_count + RESPONSE_IOV_MAX <= CONN_QUEUE_MAX &&
	       access_log_room(fd)) {
		uint32_t avail = c->skip ? conn_skip_body(c) : c->in_end - c->in_start;
		if (c->skip || avail == 0)
			break;
		struct http_request req;
		enum parse_outcome r = parse_request(buf + c->in_start, avail, &req);
		if (r == PARSE_PARTIAL) {
			/* 16 KiB without CRLFCRLF, or the peer ended mid-head: 400 */
			if (avail < CONN_BUFFER_SIZE && !(c->flags & CONN_F_PEER_EOF))
				break;
			r = PARSE_BAD;
		}
		struct answer_input in = {
			.request = &req,
			.fields = r == PARSE_COMPLETE ? buf + c->in_start + req.line.line_len : 0,
			.input = buf + c->in_start,
			.now = clock_now_unix_s,
			.buffered = avail,
			.outcome = (uint8_t)r,
			.buffer_full = c->in_end == CONN_BUFFER_SIZE,
			.peer_eof = (c->flags & CONN_F_PEER_EOF) != 0,
			.queue_busy = c->out_count != 0,
			.stopping = (uint8_t)conns.stopping,
			.routes = !conns.admin_on ? ROUTES_ALL
				  : (c->flags & CONN_F_ADMIN) ? ROUTES_ADMIN : ROUTES_SITE,
		};
		conn_site_input(&in, conns.sites_on ? conn_enter_site(&req, r, buf + c->in_start)
						   : SITE_DEFAULT);
		struct answer a;
		answer_request(&in, &a);
		if (a.kind == ANSWER_LATER)
			break;
		struct cached_file view; /* a disk-served file or live listing as it is now */
		int disk_fd = conn_make_view(fd, c, &in, &a, &view);
		enum metrics_format format = METRICS_PLAIN; /* Accept is read for /metrics only */
		if (a.kind == ANSWER_METRICS)
			format = metrics_format_wanted(&req.line, &req.headers, in.fields);
		struct access_log_request log = {.line = {buf + c->in_start, 0}};
		if (r == PARSE_COMPLETE) /* the line without CRLF, and the fields after it */
			log = (struct access_log_request){.line = {log.line.text, req.line.line_len - 2},
							  .fields = {in.fields, req.headers.block_len}};
		conn_take_answer(fd, c, &a, format, &log, disk_fd);
	}
	conn_compact_input(c, buf);
}

/* The entries from iov on (count of them) that are bytes in memory, before the first
 * body by reference: what one gathered send takes. */
static uint32_t copied_run(const struct k_iovec *iov, uint32_t count)
{
	uint32_t n = 0;
	while (n < count && iov[n].iov_base)
		n++;
	return n;
}

/* Counts n (> 0) bytes of the body by reference at the front of c's queue, entry ref, as
 * sent, and takes the reference off once the whole body has left. */
static void conn_reference_sent(int fd, struct conn *c, const struct k_iovec *ref, uint64_t n)
{
	counter_add(C_bytes_by_reference, n);
	if (n == ref->iov_len) {
		counter_add(C_responses_by_reference, 1);
		conn_pop_reference(fd, c);
	}
}

/* Sends bytes of r's body, left (> 0) of them still to send, through its send pipe: tops
 * the pipe up from the mapping (vmsplice), then splices what it holds to the socket, and
 * gives the pipe back once it is empty, so a connection holds one only while the socket
 * leaves bytes in it. Returns what io_send_pipe returns, or vmsplice's -errno (the
 * connection then closes, and the pipe with what is in it is made anew). */
static long conn_send_piped(struct conn *c, struct body_ref *r, uint64_t left)
{
	struct send_pipe *p = &conns.pipes.pipe[r->pipe];
	if (left > p->held) { /* bytes not in the pipe yet: as many as fit */
		long k = send_pipe_fill(&conns.pipes, r->pipe, r->map + r->offset, left - p->held);
		if (k < 0)
			return k;
		r->offset += k;
	}
	if (!p->held) /* vmsplice put nothing into an empty pipe: cannot happen */
		return -EIO;
	long n = io_send_pipe(&c->io, p->out, p->held, left > p->held); /* counts them */
	if (n > 0) {
		p->held -= (uint32_t)n;
		counter_add(C_bytes_by_pipe, (uint64_t)n);
	}
	if (!p->held) {
		send_pipe_give(&conns.pipes, r->pipe);
		r->pipe = SEND_PIPE_NONE;
	}
	return n;
}

/* Sends (part of) the body by reference at the front of c's queue, entry iov: through a
 * send pipe when it is the snapshot's and one is free (or it holds one already), else by
 * sendfile. Returns what conn_send_piped or io_send_file returns; sendfile's 0 (end of
 * file before the length: a disk-served file shrank, which a sealed arena cannot; counted
 * in bodies_cut_short) becomes -EPIPE, so the connection closes: a response never leaves
 * shorter than its Content-Length without being cut. */
static long conn_send_reference(int fd, struct conn *c, struct k_iovec *iov)
{
	struct body_ref *r = &conn_out[fd].refs[c->ref_head];
	if (r->map && r->pipe == SEND_PIPE_NONE)
		r->pipe = (int8_t)send_pipe_take(&conns.pipes);
	long n = r->pipe != SEND_PIPE_NONE ? conn_send_piped(c, r, iov->iov_len)
					   : io_send_file(&c->io, r->fd, &r->offset, iov->iov_len);
	if (n == 0) { /* a disk-served file shrank under it (BEHAVIOUR 10.18) */
		counter_add(C_bodies_cut_short, 1);
		return -EPIPE;
	}
	if (n > 0)
		conn_reference_sent(fd, c, iov, (uint64_t)n);
	return n;
}

/* Sends the queued responses, all of them in one call when the kernel takes them (a
 * body by reference: the bytes before it in one call with MSG_MORE, then its sendfile).
 * Returns 1 when the queue is empty, 0 when the send must wait (IO_PENDING), or -1 when
 * the connection failed and was closed. Sets *progressed when bytes left. */
static int conn_flush(int fd, struct conn *c, int *progressed)
{
	while (c->out_count) {
		struct k_iovec *iov = &conn_out[fd].queue[c->out_head];
		uint32_t count = c->ref_count ? copied_run(iov, c->out_count) : c->out_count;
		/* more: a body by reference follows the bytes (counts response_syscalls) */
		long n = count ? io_send(&c->io, iov, count, count < c->out_count)
			       : conn_send_reference(fd, c, iov);
		if (n > 0) {
			counter_add(C_bytes_written, (uint64_t)n);
			access_log_sent(fd, (uint64_t)n); /* lines whose last byte left: written */
			*progressed = 1;
			uint64_t left = (uint64_t)n;
			while (c->out_count && left >= iov->iov_len) { /* whole responses */
				left -= iov->iov_len;
				iov++;
				c->out_head++;
				c->out_count--;
			}
			if (c->out_count) { /* a short send: resume inside this response */
				if (iov->iov_base) /* a reference's offset moved in sendfile */
					iov->iov_base = (const char *)iov->iov_base + left;
				iov->iov_len -= left;
			}
		} else if (n == IO_PENDING) {
			return 0;
		} else if (n != -EINTR) {
			conn_close(fd, c); /* EPIPE (SIGPIPE is ignored), ECONNRESET */
			return -1;
		}
	}
	c->out_head = 0;
	return 1;
}

/* Reads and discards until the peer closes, LINGER_MAX bytes have come, or the read must
 * wait (see LINGER_MAX). */
static void conn_linger(int fd, struct conn *c)
{
	for (;;) {
		long n = io_read(&c->io, conn_buffer[fd], CONN_BUFFER_SIZE);
		if (n > 0) {
			counter_add(C_bytes_read, (uint64_t)n);
			c->lingered += (uint64_t)n;
			if (c->lingered <= LINGER_MAX)
				continue;
		} else if (n == -EINTR) {
			continue;
		} else if (n == IO_PENDING) {
			return; /* no deadline touch: lingering is not progress */
		}
		conn_close(fd, c); /* end of input, an error, or enough */
		return;
	}
}

/* Ends a connection whose last response has left: closes, or lingers (CONN_F_LINGER). */
static void conn_finish(int fd, struct conn *c)
{
	if (!(c->flags & CONN_F_LINGER)) {
		conn_close(fd, c);
		return;
	}
	io_shutdown_write(&c->io); /* FIN after the answer; a failure means the peer is gone */
	c->state = CONN_LINGERING;
	conn_enter(fd, c, CONN_P_LINGER);
	c->lingered = 0;
	conn_linger(fd, c);
}

/* Reads more input into c's buffer. Returns 1 when the service loop can go on, or 0
 * when the connection waits or was closed. */
static int conn_read(int fd, struct conn *c, int *progressed)
{
	uint32_t space = CONN_BUFFER_SIZE - c->in_end;
	long n = io_read(&c->io, conn_buffer[fd] + c->in_end, space);
	if (n > 0) {
		counter_add(C_bytes_read, (uint64_t)n);
		c->in_end += (uint32_t)n;
		*progressed = 1;
		access_log_arrival(fd);
	} else if (n == 0) {
		c->flags |= CONN_F_PEER_EOF;
	} else if (n == IO_PENDING) {
		conn_wait(fd, c, *progressed);
		return 0;
	} else if (n != -EINTR) {
		conn_close(fd, c); /* ECONNRESET and friends: the peer is gone */
		return 0;
	}
	return 1;
}

/* Drives an open connection as far as it can go without waiting: answer what is
 * buffered, send, read more, until it must wait for the peer or it ends. */
static void conn_service(int fd, struct conn *c)
{
	int progressed = 0;
	for (;;) {
		conn_answer_pending(fd, c);
		if (c->out_count) {
			int sent = conn_flush(fd, c, &progressed);
			if (sent == 0)
				conn_wait(fd, c, progressed);
			if (sent <= 0)
				return;
			continue; /* a /metrics or more input may have waited for the queue */
		}
		if (c->flags & CONN_F_CLOSE_AFTER) {
			conn_finish(fd, c);
			return;
		}
		/* Everything answered: nothing more will come, or nothing more is wanted (a
		 * stop ends a connection between requests; a fresh one still reads the request
		 * its client sent and gets its answer, the last: conn_stop, BEHAVIOUR 11). */
		if ((c->flags & CONN_F_PEER_EOF) ||
		    (conns.stopping && !conns.retiring && (c->flags & CONN_F_ANSWERED))) {
			conn_close(fd, c);
			return;
		}
		if (!conn_read(fd, c, &progressed))
			return;
	}
}

void conn_refuse(int fd)
{
	const struct static_response *r = &static_responses[CONN_FORM_CLOSE][RESP_UNAVAILABLE];
	counter_add(C_response_syscalls, 1);
	long n = COUNTED(sys_write(fd, r->bytes, r->total_len)); /* non-blocking: never waits */
	if (n > 0)
		counter_add(C_bytes_written, (uint64_t)n);
	counter_add((enum counter_id)r->counter, 1);
	struct conn_io refused;
	io_open(&refused, fd, 0);
	io_close_now(&refused); /* its descriptor may be the next accept's */
	counter_add(C_connections_closed, 1);
}

/* fd, just accepted, is beyond the table: every number below CONN_SLOTS was held when
 * accept4 ran (by connections, the daemon's own descriptors and files being sent from
 * disk; the soft limit leaves room above for those, BEHAVIOUR 4). With the table full
 * this is the usual case: accept4 ran before the loop evicted. Moves fd to the lowest
 * free number if that is below the table (F_DUPFD: the one just evicted), else evicts
 * the connection that has waited longest and moves fd to its number (dup3); the socket
 * keeps O_NONBLOCK, a flag of the open file. Returns the new number, or -1 after
 * answering fd 503 and closing it (conn_refuse) when no number could be had. */
static int conn_renumber(int fd)
{
	long low = COUNTED(sys_fcntl(fd, K_F_DUPFD_CLOEXEC, 0));
	if (!sys_is_error(low) && low >= CONN_SLOTS) {
		COUNTED(sys_close((int)low));
		low = -EMFILE;
	}
	if (sys_is_error(low)) {
		int victim = conn_evict_one(); /* closed now (io_close_now): its number free */
		if (victim != DEADLINE_NONE)
			low = COUNTED(sys_dup3(fd, victim, K_O_CLOEXEC));
	}
	if (!sys_is_error(low)) {
		COUNTED(sys_close(fd));
		return (int)low;
	}
	conn_refuse(fd);
	return -1;
}

void conn_open(int fd)
{
	if (fd >= CONN_SLOTS && (fd = conn_renumber(fd)) < 0)
		return;
	struct conn *c = &conn_table[fd];
	c->gen++;
	io_open(&c->io, fd, ((uint64_t)c->gen << CONN_TOKEN_GEN_SHIFT) | (uint32_t)fd);
	c->state = CONN_OPEN;
	conns.open_count++;
	c->flags = conns.admin_on && conn_on_admin(fd) ? CONN_F_ADMIN : 0;
	c->in_start = c->in_end = 0;
	c->skip = 0;
	c->out_head = c->out_count = 0;
	c->ref_head = c->ref_count = 0;
	conn_enter(fd, c, CONN_P_WAITING);
	access_log_connection(fd);
	conn_service(fd, c);
}

void conn_retire(void)
{
	conns.stopping = 1;
	conns.retiring = 1;
}

void conn_stop(void)
{
	conns.stopping = 1;
	conns.retiring = 0;
	for (int fd = 0; fd < CONN_SLOTS; fd++) {
		struct conn *c = &conn_table[fd];
		/* Nothing in flight: waiting, or mid-head. A fresh connection keeps its
		 * chance: its client sent, or is sending, a first request it expects an
		 * answer to (a reload hands the listener over under load: BEHAVIOUR 11). */
		if (c->state == CONN_OPEN && c->out_count == 0 && (c->flags & CONN_F_ANSWERED))
			conn_close(fd, c);
	}
}

void conn_event(uint64_t token, const backend_event *e)
{
	int fd = (int)(uint32_t)token;
	struct conn *c = &conn_table[fd];
	if (c->state == CONN_FREE || c->io.token != token)
		return;
	io_event(&c->io, e);
	if (c->state == CONN_LINGERING)
		conn_linger(fd, c);
	else
		conn_service(fd, c);
}

/* A head's deadline passed with part of it buffered: answer 408 (the 408 page when it is
 * in memory, BEHAVIOUR 10.12) and close (lingering, since the client may still be
 * sending). The queue is empty in CONN_P_HEAD. */
static void conn_answer_timeout(int fd, struct conn *c)
{
	const struct static_response *r = &static_responses[CONN_FORM_CLOSE][RESP_TIMEOUT];
	if (conns.sites_on) { /* no request, so no host: the default site's page */
		conns.site_now = SITE_DEFAULT;
		sites_enter(SITE_DEFAULT);
		access_log.vhost.len = 0;
	}
	const struct cached_file *page = conns.site[SITE_DEFAULT].pages.error[ERROR_PAGE_408];
	struct access_log_request no_request = {.line = {0, 0}};
	io_abandon(&c->io); /* the read that waited for the rest of the head */
	counter_add((enum counter_id)r->counter, 1);
	c->flags |= CONN_F_CLOSE_AFTER | CONN_F_LINGER;
	c->first_entry = (uint8_t)(c->out_head + c->out_count);
	if (page && page->place == FILE_IN_MEMORY) {
		struct answer a = {.file = page, .kind = ANSWER_ERROR_PAGE, .form = CONN_FORM_CLOSE,
				   .status_counter = (uint8_t)r->counter, .page = ERROR_PAGE_408};
		conn_take_file(fd, c, &a, &no_request, -1);
	} else {
		conn_push_response(fd, c, r->bytes, r->head_len, r->bytes + r->head_len,
				   r->total_len - r->head_len);
		conn_log(fd, c, &no_request, (uint8_t)r->counter, r->total_len - r->head_len,
			 no_request.line);
	}
	c->phase = CONN_P_ANSWERED;
	conn_service(fd, c);
}

void conn_expire(int fd)
{
	struct conn *c = &conn_table[fd];
	enum conn_phase p = (enum conn_phase)c->phase;
	if (p == CONN_P_LINGER) { /* a linger that ends is not an idle client */
		conn_close(fd, c);
		return;
	}
	counter_add(C_timeouts, 1);
	if (p == CONN_P_HEAD) {
		counter_add(C_timeouts_head, 1);
		conn_answer_timeout(fd, c);
		return;
	}
	counter_add(p == CONN_P_BODY ? C_timeouts_head
		    : p == CONN_P_SEND ? C_timeouts_send
				       : C_timeouts_idle, 1);
	conn_close(fd, c);
}

/* The connection to evict: the one that has waited longest between requests whose socket
 * holds no byte yet (or its peer's FIN), looking at CONN_EVICT_LOOKS_MAX at most;
 * DEADLINE_NONE when none waits or every one looked at holds bytes. A waiting connection
 * may hold a request the loop has not read yet (it arrived after the wait that reported
 * the accept being made room for): closing it would drop, unread and with a reset, a
 * client that has done nothing wrong (issue 32: the only one waiting, it was closed all
 * the same), so then the newcomer is refused instead (503, or the listener parks). */
static int conn_idle_victim(void)
{
	int fd = deadline_oldest_waiting();
	for (int looks = 0; fd != DEADLINE_NONE && looks < CONN_EVICT_LOOKS_MAX; looks++) {
		uint8_t byte;
		long n = COUNTED(sys_recv(fd, &byte, sizeof(byte), SYS_PEEK_SERVE));
		if (n <= 0 && n != -EINTR)
			return fd; /* nothing queued (EAGAIN), the peer's FIN, or an error */
		fd = deadline_next_waiting(fd);
	}
	return DEADLINE_NONE;
}

int conn_evict_one(void)
{
	int fd = conn_idle_victim();
	if (fd == DEADLINE_NONE)
		return DEADLINE_NONE;
	counter_add(C_connections_evicted, 1);
	conn_end(fd, &conn_table[fd], 1); /* the new connection needs the descriptor now */
	return fd;
}
