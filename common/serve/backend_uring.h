/* The io_uring event backend's inline half (see event_backend.h): the calls every request
 * makes, each the preparation of one submission queue entry (SQE) or the hand-over of a
 * result a completion (CQE) stored. No syscall here except when the SQ is full: the loop's
 * wait submits everything in the same io_uring_enter that waits. Included by
 * event_backend.h only. Kernel versions: see backend_uring.c. */
#ifndef APOLLOD_COMMON_BACKEND_URING_H
#define APOLLOD_COMMON_BACKEND_URING_H

#include <linux/io_uring.h>

#include "common/base/limits.h"
#include "common/base/counters.h"

/* Every syscall of the serving path is counted, so syscalls per request can be read from
 * /metrics alone. Evaluates to the call's result. */
#define COUNTED(call) (counter_add(C_syscalls_total, 1), (call))

/* One report: a copy of the completion queue entry (user_data is the token). */
typedef struct io_uring_cqe backend_event;
#define URING_CQE_SIZE 16
#define URING_SQE_SIZE 64
STATIC_ASSERT(sizeof(struct io_uring_cqe) == URING_CQE_SIZE, "a CQE without CQE32 is 16 bytes");
STATIC_ASSERT(sizeof(struct io_uring_sqe) == URING_SQE_SIZE, "an SQE without SQE128 is 64 bytes");

/* The listener is non-blocking: the loop accepts until EAGAIN (backend_accept). Accepted
 * sockets are non-blocking too (URING_ACCEPT_FLAGS) only so that the direct sendfile of a
 * body by reference (io_send_file) cannot block the worker: io_uring polls a socket
 * itself either way (fast poll, Linux 5.7), and a send or recv that finds it not ready is
 * retried inside the ring, so a completion never carries -EAGAIN for it (io_uring/net.c:
 * -EAGAIN from a non-blocking issue arms the poll). */
#define BACKEND_LISTENER_FLAGS K_SOCK_NONBLOCK

/* The calls a fatal serving-loop error names on stderr (loop.c, BEHAVIOUR 13.1). */
#define BACKEND_WAIT_STEP "io_uring_enter"
#define BACKEND_WATCH_STEP "io_uring submit"
#define BACKEND_ACCEPT_STEP "accept4"
#define BACKEND_ACCEPT_KNOWS_LISTENER 1 /* accept4 names the listener it failed on */

/* A connection's transport handle (event_backend.h): at most one operation (recv or
 * send) is in flight per connection through result, because the connection code waits for
 * each (and reads only once its queue is sent: conn_service). */
struct conn_io {
	uint64_t token; /* the SQEs' user_data, so the CQEs come back with it */
	int32_t fd;
	int32_t result; /* IO_R_IDLE, IO_R_PENDING, or the finished operation's result */
};
#define CONN_IO_SIZE 16
#define IO_R_IDLE INT32_MIN           /* nothing in flight, nothing stored */
#define IO_R_PENDING (INT32_MIN + 1) /* an operation is in flight */
#define IO_R_FRESH (INT32_MIN + 2)   /* idle, and nothing read yet since the accept */

/* user_data of the operations nobody waits for (close, cancel): they carry
 * IOSQE_CQE_SKIP_SUCCESS, and a failure's CQE is dropped: closing releases the descriptor
 * whatever happens, and a cancel that finds nothing has nothing to do. No connection token
 * has this value (its low half is a descriptor below CONN_SLOTS). */
#define URING_IGNORE_TOKEN 0xfffffffffffffffdull
STATIC_ASSERT(URING_IGNORE_TOKEN != SIGNAL_TOKEN &&
		      URING_IGNORE_TOKEN - LISTENER_TOKEN_BASE >= LISTENERS_MAX,
	      "a dropped failure must not pass for the signal poll's or a listener's report");

#define URING_SQ_ENTRIES 64  /* the SQ: one wait's worth of reports, each one SQE */
/* Accepting: single-shot accepts in the ring (IORING_OP_ACCEPT), only as many in flight,
 * with the descriptors they delivered and the loop has not taken, as the table has room
 * for (conn_room: --max-connections, whose count already leaves a descriptor per
 * connection for a file sent from disk), at most URING_ACCEPTS_PER_LISTENER on each
 * listener, armed again by every wait (uring_arm_accepts). So the kernel never accepts
 * beyond the table. A multishot accept took every connection of the backlog as soon as it
 * came, table full or not, up to the descriptor limit: the descriptors kept for the files
 * of disk-served responses went to connections queued beyond the table, and their opens
 * failed (issue 33 (3): 27 of 60 downloads of a file that exists answered 404 under a
 * limit of 64; benchmarks/reports/2026-12-03-uring-hostile.md). A watched listener with
 * no accept armed (no room) has a multishot poll for POLLIN instead (uring_poll_when_idle),
 * whose report lets the loop evict or park and accept with accept4(2) itself, as the
 * epoll tiers do (backend_accept: only with no accept in flight, so the two never hold
 * the same slot). */
#define URING_ACCEPTS_PER_LISTENER 4 /* two or more: one in flight while another's
				      * descriptor is taken, so no accept4 finds EAGAIN */
STATIC_ASSERT(URING_ACCEPTS_PER_LISTENER >= 2, "one armed while another is taken");
/* The queue of delivered descriptors (or -errno): it holds at most the room, which is at
 * most CONN_SLOTS. */
#define URING_ACCEPT_MAX CONN_SLOTS
STATIC_ASSERT((URING_ACCEPT_MAX & (URING_ACCEPT_MAX - 1)) == 0, "a power of two");
/* user_data of listener i's accepts: not a listener's report token (its poll's), nor the
 * signal poll's, nor a dropped failure's. */
#define URING_ACCEPT_TOKEN_OF(i) (LISTENER_TOKEN_OF(LISTENERS_MAX) + (uint64_t)(i))
STATIC_ASSERT(LISTENERS_MAX * 2u < URING_IGNORE_TOKEN - LISTENER_TOKEN_BASE &&
		      LISTENERS_MAX * 2u < SIGNAL_TOKEN - LISTENER_TOKEN_BASE,
	      "accept tokens apart from the other own tokens");
#define URING_PBUF_COUNT 256 /* the provided buffer ring's buffers (see "Receiving"): a
			      * power of two (kernel), < 2^16 */

/* The ring as mapped at start-up (backend_uring.c) and the watches of the loop's own. */
struct uring_state {
	struct io_uring_sqe *sqes;   /* URING_SQ_ENTRIES entries */
	uint32_t *sq_head;           /* the kernel's: entries before it are consumed */
	uint32_t *sq_tail;           /* ours: published at each submission */
	uint32_t sq_next;            /* entries prepared: sq_next - *sq_head <= entries */
	uint32_t sq_mask;
	struct io_uring_cqe *cqes;
	uint32_t *cq_head;           /* ours: entries before it are consumed */
	uint32_t *cq_tail;           /* the kernel's */
	uint32_t cq_mask;
	uint32_t enter_fd;           /* the registered ring's index, or the ring's fd */
	uint32_t enter_flags;        /* IORING_ENTER_REGISTERED_RING when registered */
	int32_t listener_fd[LISTENERS_MAX]; /* listener i's descriptor */
	uint8_t listener_watched;    /* bit i: the loop wants listener i's connections */
	uint8_t listener_armed;      /* bit i: a multishot poll on listener i is in flight */
	uint8_t signals_armed;       /* a multishot poll on the signal descriptor is */
	uint8_t signals_watched;     /* backend_watch_signals was called */
	uint8_t listeners_shared;    /* backend_share_listeners was called: no accept is
				      * armed, each watched listener keeps its poll */
	uint16_t accept_live[LISTENERS_MAX]; /* listener i's accepts without their CQE */
	uint32_t accepts_live;       /* their sum */
	uint32_t accept_head;        /* accept queue: taken */
	uint32_t accept_tail;        /* accept queue: delivered */
	int32_t accepted[URING_ACCEPT_MAX]; /* descriptors or -errno, in CQE order */
	int32_t signal_fd;           /* the signal descriptor the loop watches */
	struct k_msghdr msghdr[URING_SQ_ENTRIES]; /* one per SQE: a sendmsg's header must
						   * stay put until it is submitted */
	struct io_uring_buf_ring *pbuf_ring; /* URING_PBUF_COUNT entries, mapped at start-up */
	char *pbuf_mem;              /* URING_PBUF_COUNT buffers of URING_PBUF_SIZE bytes */
	uint16_t pbuf_tail;          /* buffers handed to the kernel, published at each enter */
	uint16_t pbuf_held;          /* buffers queued on connections, not yet read */
	uint32_t starved_count;      /* connections whose recv ended with -ENOBUFS */
	uint32_t starved_cursor;     /* where the next re-arming sweep starts: round robin */
	/* By buffer id, for the buffers queued on connections (uring_rx): */
	uint16_t pbuf_len[URING_PBUF_COUNT];  /* bytes received into it */
	uint16_t pbuf_next[URING_PBUF_COUNT]; /* the next buffer in its connection's queue */
};
extern struct uring_state uring;
STATIC_ASSERT(LISTENERS_MAX <= 8, "listener_watched and listener_armed are uint8_t bit masks");

/* Submits every prepared SQE without waiting (one io_uring_enter, counted). Returns the
 * count submitted or -errno. Called when the SQ is full. */
long uring_submit(void);

/* The next free SQE, zeroed, or NULL when the SQ stays full even after submitting (the
 * ring failed). */
static inline struct io_uring_sqe *uring_sqe(void)
{
	/* Acquire: the kernel stores the SQ head with release once it has read the entries
	 * before it; reusing one of them must come after (io_uring/io_uring.c, the comment
	 * at its top: "smp_load_acquire to read head"; liburing's io_uring_get_sqe). */
	uint32_t head = __atomic_load_n(uring.sq_head, __ATOMIC_ACQUIRE);
	if (uring.sq_next - head > uring.sq_mask) {
		if (sys_is_error(uring_submit()))
			return 0;
		head = __atomic_load_n(uring.sq_head, __ATOMIC_ACQUIRE);
		if (uring.sq_next - head > uring.sq_mask)
			return 0;
	}
	struct io_uring_sqe *sqe = &uring.sqes[uring.sq_next++ & uring.sq_mask];
	*sqe = (struct io_uring_sqe){0};
	return sqe;
}

/* Prepares an operation nobody waits for: no CQE unless it fails, and that one is
 * dropped. Returns the SQE (opcode and fd set) or NULL. */
static inline struct io_uring_sqe *uring_sqe_unwatched(uint8_t opcode, int fd)
{
	struct io_uring_sqe *sqe = uring_sqe();
	if (sqe) {
		sqe->opcode = opcode;
		sqe->fd = fd;
		sqe->flags = IOSQE_CQE_SKIP_SUCCESS; /* Linux 5.17 */
		sqe->user_data = URING_IGNORE_TOKEN;
	}
	return sqe;
}

/* Takes io's finished result if it has one (and not -EAGAIN, which means "try again").
 * Returns 1 and stores it in *result, or 0 when an operation must be submitted. An
 * operation still in flight gives IO_PENDING. */
static inline int io_take_result(struct conn_io *io, long *result)
{
	int32_t r = io->result;
	if (r == IO_R_IDLE || r == IO_R_FRESH || r == -EAGAIN)
		return 0;
	*result = r == IO_R_PENDING ? IO_PENDING : r;
	if (r != IO_R_PENDING)
		io->result = IO_R_IDLE;
	return 1;
}

/* The SQE for io's next operation, with its token, marked in flight; NULL when the ring
 * failed (io stays idle). */
static inline struct io_uring_sqe *io_sqe(struct conn_io *io, uint8_t opcode)
{
	struct io_uring_sqe *sqe = uring_sqe();
	if (!sqe)
		return 0;
	sqe->opcode = opcode;
	sqe->fd = io->fd;
	sqe->user_data = io->token;
	io->result = IO_R_PENDING;
	return sqe;
}

static inline uint64_t backend_event_token(const backend_event *e)
{
	return e->user_data;
}

/* Accepted sockets: see BACKEND_LISTENER_FLAGS. */
#define URING_ACCEPT_FLAGS (K_SOCK_NONBLOCK | K_SOCK_CLOEXEC)

/* The next descriptor (or error) the ring's accepts delivered; with none, -EAGAIN while
 * an accept is in flight (it reports what comes), else accept4 on listen_fd (no room:
 * the loop evicts for it; -1, a stop's: EBADF). */
static inline long backend_accept(int listen_fd)
{
	if (uring.accept_head != uring.accept_tail)
		return uring.accepted[uring.accept_head++ & (URING_ACCEPT_MAX - 1)];
	if (uring.accepts_live)
		return -EAGAIN;
	return COUNTED(sys_accept4(listen_fd, URING_ACCEPT_FLAGS));
}

/* ---- Receiving: provided buffer ring and multishot recv ----
 * How a connection receives (docs/ARCHITECTURE.md, "io_uring receive"). One multishot recv per connection (IORING_RECV_MULTISHOT, Linux 6.0) takes a buffer
 * from one ring shared by all connections (IORING_REGISTER_PBUF_RING, 5.19) for each
 * piece of input. Its completions come back with a tag of their own (URING_RX_TAG), are
 * queued per connection by the reap (uring_rx), and io_read copies them into the slot's
 * buffer: the connection code keeps one contiguous input buffer, which the parser needs
 * (a head may span pieces). The copy is of the bytes received only (a 40-byte GET: 40
 * bytes), and the buffer goes back to the ring at once. When the ring runs dry a recv ends
 * with -ENOBUFS (URING_RX_STARVED; no data is read that has no buffer, so none is lost).
 * The ring is shared: connections that send and never read hold their URING_PBUF_CONN_MAX
 * each, and enough of them hold it all (bench/uring_starve.py). So a starved connection
 * does not wait for buffers: its next read, with nothing queued, falls back to one plain
 * recv into the slot's own buffer (io_recv_own; uring_rx_own, URING_RX_OWN), reported through io->result like a send, hence only when no send is
 * in flight; the read after that arms the multishot recv again. A starved connection that
 * cannot fall back yet (a send in flight) is armed again by a wait after buffers came back,
 * in turn (a round-robin sweep, uring_rx_rearm_starved), or falls back once the send is
 * done, whichever comes first. Either way one recv at a time (multishot, or own-buffer)
 * keeps the input in order. A connection's first read is a direct read(2)
 * (io_read_first; issue 33): its request usually came with the handshake and is in the
 * slot before the next accept can evict a connection; only an empty socket waits through
 * io_recv_own. Either way a connection answered once and closed never arms a multishot
 * recv, whose cancel at the close would post one more completion and wake the loop once
 * more (an io_uring_enter more per connection:
 * benchmarks/reports/2026-12-01-uring-receive.md, close c=1).
 * What the kernel does, as io_uring/net.c has it (io_recv, io_recv_buf_select,
 * io_recv_finish; io_uring/kbuf.c for the ring):
 *   - the buffer is selected before sock_recvmsg: a recv armed while the ring is empty ends
 *     at once with -ENOBUFS, data or not (liburing issue 1275); one waiting in poll ends so
 *     when input arrives and finds none. Either way nothing was read: the input stays in
 *     the socket, and the connection is armed again when buffers are back;
 *   - a buffer is consumed (the kernel's head moves) only when data went into it: on
 *     -EAGAIN it is recycled, left in place. A buffer given back is written after the
 *     tail and published by a store-release of the tail at the next enter, before the
 *     SQEs that re-arm (uring_publish), which the kernel reads with a load-acquire;
 *   - a CQE without IORING_CQE_F_MORE ends the recv, whatever its res: -ENOBUFS,
 *     -ECANCELED, 0 (end of input), an error, or data (res > 0, when the CQE could not
 *     be posted as one of many). Until it comes the recv is live and must be the only one:
 *     two on one socket split its input between them, and a close's cancel finds one. */
#define URING_PBUF_SIZE 2048  /* bytes per buffer: a whole pipelined x16 batch of GETs */
#define URING_PBUF_GROUP 0    /* the buffer group id the recvs select from */
#define URING_PBUF_CONN_MAX 4 /* buffers one connection may hold unread: 8 KiB, at most a
			       * whole head (HTTP_HEAD_MAX); more cancels its recv until it
			       * reads, and a read takes them into the slot's buffer */
#define URING_PBUF_NONE 0xffffu
#define URING_BUF_SIZE 16
#define URING_BUF_TAIL_OFFSET 14 /* the ring's tail overlays bufs[0].resv (io_uring.h) */
STATIC_ASSERT((URING_PBUF_COUNT & (URING_PBUF_COUNT - 1)) == 0, "the kernel wants 2^n");
STATIC_ASSERT(URING_PBUF_COUNT < URING_PBUF_NONE, "buffer ids are 16 bits, one is 'none'");
STATIC_ASSERT(URING_PBUF_SIZE * URING_PBUF_CONN_MAX <= HTTP_HEAD_MAX,
	      "what a connection holds unread fits its slot's buffer");
STATIC_ASSERT(sizeof(struct io_uring_buf) == URING_BUF_SIZE, "io_uring_buf layout");
STATIC_ASSERT(__builtin_offsetof(struct io_uring_buf_ring, tail) == URING_BUF_TAIL_OFFSET,
	      "io_uring_buf_ring layout");

/* A recv's user_data: the descriptor with URING_RX_TAG in the low half, the receive
 * side's generation in the high half. No connection token has the tag (its low half is a
 * descriptor below URING_RX_SLOTS), and the loop's own tokens are matched first. */
#define URING_RX_TAG 0x40000000u
#define URING_RX_SLOTS CONN_SLOTS /* one receive side per connection slot */
#define URING_RX_FD_MASK (URING_RX_SLOTS - 1)
/* A report the reap makes for a connection whose input was queued or whose recv ended:
 * io_event leaves the result of a send in flight alone. Outside the kernel's flags. */
#define URING_EV_RX (1u << 15)
STATIC_ASSERT(URING_EV_RX < (1u << IORING_CQE_BUFFER_SHIFT), "below the buffer id");

/* uring_rx.state */
#define URING_RX_ARMED 0x01      /* a multishot recv is in flight */
#define URING_RX_CANCELLING 0x02 /* it holds URING_PBUF_CONN_MAX buffers: cancelled */
#define URING_RX_STARVED 0x04    /* it ended with -ENOBUFS: falls back, or waits for buffers */
#define URING_RX_ENDED 0x08      /* it ended for good: end follows the queue */
#define URING_RX_OWN 0x10        /* the first read, or a starved one, goes through
				  * io_recv_own: that recv is in flight or its outcome sits
				  * in io->result */

/* One connection's receive side: the pieces received and not read yet. */
struct uring_rx {
	uint64_t recv_ud;  /* the recv's user_data; another one's completions are stale */
	uint64_t token;    /* the connection's token, for its reports */
	uint32_t gen;      /* bumped when the connection lets go: recv_ud's high half */
	int32_t end;       /* 0 (end of input) or -errno, with URING_RX_ENDED */
	uint16_t head;     /* first queued buffer, URING_PBUF_NONE when none */
	uint16_t tail;     /* last queued buffer */
	uint16_t off;      /* bytes of head already read */
	uint8_t count;     /* buffers queued */
	uint8_t state;     /* URING_RX_* */
};
#define URING_RX_SIZE 32
STATIC_ASSERT(sizeof(struct uring_rx) == URING_RX_SIZE, "one receive side, half a line");
extern struct uring_rx uring_rx[]; /* URING_RX_SLOTS entries */

/* Starts fd's receive side afresh (a new connection, or one letting go of it): queued
 * buffers go back to the ring, and its recv's completions are stale from now on (the
 * caller cancels that recv). No-op for fd >= URING_RX_SLOTS. */
void uring_rx_reset(int fd);

/* Copies up to len queued bytes of rx into buf, giving back each buffer emptied. Returns
 * the count (> 0: the queue is not empty). */
long uring_rx_take(struct uring_rx *rx, char *buf, uint32_t len);

/* Arms fd's multishot recv, its reports carrying token. Returns IO_PENDING or -ENOMEM. */
long uring_rx_arm(int fd, uint64_t token);

/* fd has a multishot recv in flight (only a receive side tracked by the backend can; its
 * own-buffer recv is io->result's, URING_RX_OWN). */
static inline int uring_rx_armed(int fd)
{
	return fd < URING_RX_SLOTS && (uring_rx[fd].state & URING_RX_ARMED);
}

static inline void io_open(struct conn_io *io, int fd, uint64_t token)
{
	io->token = token;
	io->fd = fd;
	io->result = IO_R_FRESH;
	uring_rx_reset(fd);
}

static inline void io_event(struct conn_io *io, const backend_event *e)
{
	if (e->flags & URING_EV_RX)
		return; /* input queued on the receive side, or its end: io_read finds it */
	io->result = e->res; /* the one send or own-buffer recv (io_recv_own) has finished */
}

/* Prepares one recv (Linux 5.6) of up to len bytes into buf, the slot's own buffer (it
 * stays put), reported with io's token through io->result (io_event): a connection's
 * first read, and the fallback when the ring ran dry (uring_rx_own). Expects nothing in
 * flight on io->result. Returns IO_PENDING, or -ENOMEM without an SQE (io
 * stays as it was). */
static inline long io_recv_own(struct conn_io *io, char *buf, uint32_t len)
{
	int fresh = io->result == IO_R_FRESH;
	struct io_uring_sqe *sqe = io_sqe(io, IORING_OP_RECV);
	if (!sqe)
		return -ENOMEM;
	sqe->addr = (uint64_t)(uintptr_t)buf;
	sqe->len = len;
	/* After the first read the connection has usually just been answered and the next
	 * request is not there yet: wait for it instead of trying a recv that would fail
	 * first (Linux 5.19). The first read tries at once: the request usually came with
	 * the handshake. */
	if (!fresh)
		sqe->ioprio = IORING_RECVSEND_POLL_FIRST;
	return IO_PENDING;
}

/* Reads through io_recv_own, into the slot's own buffer, for a connection with nothing
 * queued and no multishot recv armed: its first read, or one whose multishot recv starved
 * (URING_RX_STARVED), which needs no buffer of the ring, so a ring held by connections
 * that do not read cannot keep this one from its input. Only when io->result is free (no
 * send in flight, no outcome untaken): the recv reports through it. A starved connection
 * leaves the starved set, so the sweep does not arm a second recv on its socket. Returns
 * IO_PENDING (issued, or waiting for the send, whose completion brings the connection
 * back to read again) or -ENOMEM. */
static inline long uring_rx_own(struct conn_io *io, struct uring_rx *rx, char *buf,
				uint32_t len)
{
	if (io->result != IO_R_IDLE && io->result != IO_R_FRESH)
		return IO_PENDING;
	long r = io_recv_own(io, buf, len);
	if (r == IO_PENDING) {
		uring.starved_count -= (rx->state & URING_RX_STARVED) != 0;
		rx->state = (uint8_t)((rx->state & ~URING_RX_STARVED) | URING_RX_OWN);
	}
	return r;
}

/* A connection's first read: a direct read(2), as the epoll tiers make it, so that the
 * request, which usually came with the handshake, is in the slot before the loop takes
 * the next accepted descriptor. Through the ring its completion came at the next wait
 * only, and meanwhile the connection counted as waiting between requests: with the table
 * full, the next accept of the same batch evicted it, request unread, and so on down the
 * batch (issue 33 (2): fresh clients closed without a byte). Only an empty socket
 * (-EAGAIN) waits, through io_recv_own. Returns what read(2) returns, or what uring_rx_own returns. */
static inline long io_read_first(struct conn_io *io, struct uring_rx *rx, char *buf,
				 uint32_t len)
{
	long n = COUNTED(sys_read(io->fd, buf, len));
	io->result = IO_R_IDLE; /* not fresh: a recv that waits polls first */
	if (n != -EAGAIN)
		return n;
	return uring_rx_own(io, rx, buf, len);
}

static inline long io_read(struct conn_io *io, char *buf, uint32_t len)
{
	struct uring_rx *rx = &uring_rx[io->fd];
	long r;
	if (rx->state & URING_RX_OWN) { /* io->result is the own-buffer recv's */
		if (!io_take_result(io, &r))
			return io_recv_own(io, buf, len); /* -EAGAIN: again, still URING_RX_OWN */
		if (r != IO_PENDING) /* data, end of input or an error: taken as it is */
			rx->state &= (uint8_t)~URING_RX_OWN;
		return r;
	}
	if (rx->count)
		return uring_rx_take(rx, buf, len);
	if (rx->state & URING_RX_ENDED)
		return rx->end;
	if (io->result == IO_R_FRESH)
		return io_read_first(io, rx, buf, len);
	if (rx->state & URING_RX_STARVED)
		return uring_rx_own(io, rx, buf, len);
	if (rx->state & URING_RX_ARMED)
		return IO_PENDING;
	/* No POLL_FIRST: the multishot recv is armed after a piece of input, when more may
	 * follow (after the first read's, or a starved one's: the ring may have buffers
	 * again; if not, it starves and reads through its own buffer again). */
	return uring_rx_arm(io->fd, io->token);
}

/* One send (Linux 5.6) for one buffer, one sendmsg (5.3) for several. */
#define URING_SEND_OP(count) ((count) == 1 ? IORING_OP_SEND : IORING_OP_SENDMSG)

/* Fills sqe, of URING_SEND_OP(count), with the count buffers of iov and flags: one buffer
 * directly, several through the SQE's own msghdr, which stays put until submitted. */
static inline void uring_prep_send(struct io_uring_sqe *sqe, const struct k_iovec *iov,
				   uint32_t count, uint32_t flags)
{
	sqe->msg_flags = flags;
	if (count == 1) {
		sqe->addr = (uint64_t)(uintptr_t)iov->iov_base;
		sqe->len = (uint32_t)iov->iov_len; /* a response is far below 4 GiB */
	} else {
		struct k_msghdr *m = &uring.msghdr[sqe - uring.sqes];
		*m = (struct k_msghdr){.msg_iov = iov, .msg_iovlen = count};
		sqe->addr = (uint64_t)(uintptr_t)m;
		sqe->len = 1;
	}
}

/* The direct calls beside the ring (io_send with more, io_send_file) on the
 * non-blocking socket: one that finds the socket full waits for POLLOUT with a one-shot
 * POLL_ADD through io->result, whose completion, whatever its mask, lets the call be tried
 * again (an error then comes from the call itself). Returns 1 while that poll waits, else
 * 0 (call now). */
static inline int io_poll_waiting(struct conn_io *io)
{
	long r;
	return io_take_result(io, &r) && r == IO_PENDING;
}

/* A direct call's result n: as it is, or for -EAGAIN (the socket is full, counted in
 * write_eagains) the poll prepared. Returns n, IO_PENDING or -ENOMEM without an SQE. */
static inline long io_direct_result(struct conn_io *io, long n)
{
	if (n != -EAGAIN)
		return n;
	counter_add(C_write_eagains, 1);
	struct io_uring_sqe *sqe = io_sqe(io, IORING_OP_POLL_ADD);
	if (!sqe)
		return -ENOMEM;
	sqe->poll32_events = K_POLLOUT;
	return IO_PENDING;
}

static inline long io_send(struct conn_io *io, const struct k_iovec *iov, uint32_t count,
			   int more)
{
	long r;
	/* The bytes before a body by reference go directly too, so that they and
	 * the sendfile leave in the same turn, 2 calls when the socket takes them, instead of
	 * waiting for a ring send's completion before the sendfile can start. */
	if (more) {
		if (io_poll_waiting(io))
			return IO_PENDING;
		struct k_msghdr m = {.msg_iov = iov, .msg_iovlen = count};
		counter_add(C_response_syscalls, 1);
		return io_direct_result(
			io, COUNTED(sys_sendmsg(io->fd, &m, K_MSG_NOSIGNAL | K_MSG_MORE)));
	}
	if (io_take_result(io, &r)) {
		/* A short send: the socket's buffer filled before everything fitted. */
		if (r > 0 && (uint64_t)r < iov_bytes(iov, count))
			counter_add(C_write_eagains, 1);
		return r;
	}
	struct io_uring_sqe *sqe = io_sqe(io, URING_SEND_OP(count));
	if (!sqe)
		return -ENOMEM;
	uring_prep_send(sqe, iov, count, K_MSG_NOSIGNAL | (more ? K_MSG_MORE : 0));
	counter_add(C_response_syscalls, 1);
	return IO_PENDING;
}

/* sendfile's count is at most this per call (Linux caps a transfer at MAX_RW_COUNT). */
#define IO_SEND_FILE_MAX 0x7ffff000ull

/* sendfile as a direct call beside the ring (the splice chain through the ring measured
 * slower: benchmarks/reports/2026-12-02-uring-splice.md), on the socket made
 * non-blocking at accept (URING_ACCEPT_FLAGS), so a full socket returns EAGAIN instead of
 * blocking the worker; then a one-shot POLL_ADD for POLLOUT waits in the ring (through
 * io->result, like a send), and its completion, whatever its mask, lets the sendfile be
 * tried again (an error then comes from the sendfile itself). */
static inline long io_send_file(struct conn_io *io, int in_fd, int64_t *offset, uint64_t len)
{
	if (io_poll_waiting(io))
		return IO_PENDING;
	counter_add(C_response_syscalls, 1);
	return io_direct_result(io, COUNTED(sys_sendfile(io->fd, in_fd, offset,
						       len < IO_SEND_FILE_MAX ? len
									      : IO_SEND_FILE_MAX)));
}

/* splice from a send pipe as a direct call beside the ring, like io_send_file's sendfile
 * and for the same reasons: the socket is non-blocking (URING_ACCEPT_FLAGS), and a full
 * one waits in the ring's POLL_ADD. */
static inline long io_send_pipe(struct conn_io *io, int pipe_out, uint32_t len, int more)
{
	if (io_poll_waiting(io))
		return IO_PENDING;
	counter_add(C_response_syscalls, 1);
	return io_direct_result(
		io, COUNTED(sys_splice(pipe_out, 0, io->fd, 0, len, IO_SPLICE_FLAGS(more))));
}

/* A direct syscall, not IORING_OP_SHUTDOWN: the ring runs a shutdown on a worker thread
 * (it cannot be issued non-blocking), so the FIN could leave after the lingering reads and
 * the close, and the peer would see a reset instead of the end of the answer. Only a
 * lingering close pays it. */
static inline long io_shutdown_write(struct conn_io *io)
{
	return COUNTED(sys_shutdown(io->fd, K_SHUT_WR));
}

/* The token of an abandoned operation's successor: bit 63 flipped, so the abandoned
 * completion (it carries the old token) is dropped by the connection code, whose token
 * check no longer matches. A connection token's generation would have to reach 2^31 on
 * one descriptor for the two to meet. */
#define URING_TOKEN_EPOCH (1ull << 63)

/* Prepares the cancel of the operation whose user_data is ud (by user_data: the
 * descriptor may be closed before it runs), with link among its SQE flags. */
static inline void io_cancel(uint64_t ud, uint8_t link)
{
	struct io_uring_sqe *cancel = uring_sqe_unwatched(IORING_OP_ASYNC_CANCEL, -1);
	if (cancel) {
		cancel->addr = ud;
		cancel->flags |= link;
	}
}

/* Cancels what is in flight on io: its send or own-buffer recv (both IO_R_PENDING under
 * io->token), its multishot recv. */
static inline void io_cancel_in_flight(const struct conn_io *io, uint8_t link)
{
	if (io->result == IO_R_PENDING)
		io_cancel(io->token, link);
	if (uring_rx_armed(io->fd))
		io_cancel(uring_rx[io->fd].recv_ud, link);
}

/* A send's (or own-buffer recv's) completion is then dropped by the token's epoch, a
 * multishot recv's by its receive side's generation; uring_rx_reset clears URING_RX_OWN
 * with the rest of the receive side. */
static inline void io_abandon(struct conn_io *io)
{
	io_cancel_in_flight(io, 0);
	if (io->result == IO_R_PENDING)
		io->token ^= URING_TOKEN_EPOCH;
	io->result = IO_R_IDLE;
	uring_rx_reset(io->fd);
}

/* The most SQEs io_close prepares: a cancel for the send, one for the recv, the close. */
#define URING_CLOSE_SQES 3

static inline void io_close(struct conn_io *io)
{
	/* An operation in flight holds the socket open: cancel it first, hard-linked so the
	 * close runs whether or not the cancel found it (Linux 5.5 for hard links). Its
	 * CQE (-ECANCELED) is dropped (see io_abandon). */
	uint32_t used = uring.sq_next - __atomic_load_n(uring.sq_head, __ATOMIC_ACQUIRE);
	int busy = io->result == IO_R_PENDING || uring_rx_armed(io->fd);
	if (busy && used + URING_CLOSE_SQES > uring.sq_mask + 1)
		uring_submit(); /* room for all, so the link is not split by a submission */
	io_cancel_in_flight(io, IOSQE_IO_HARDLINK);
	uring_rx_reset(io->fd);
	if (!uring_sqe_unwatched(IORING_OP_CLOSE, io->fd)) /* Linux 5.6 */
		COUNTED(sys_close(io->fd));
	io->result = IO_R_IDLE;
}

static inline void io_close_now(struct conn_io *io)
{
	/* A ring close may run after a later accept in the same submission: close(2) frees
	 * the descriptor now. What was in flight is cancelled; its completion is dropped. */
	io_abandon(io);
	COUNTED(sys_close(io->fd));
	io->result = IO_R_IDLE;
}

#endif /* APOLLOD_COMMON_BACKEND_URING_H */
