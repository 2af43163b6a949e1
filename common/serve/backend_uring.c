/* The io_uring event backend, its out-of-line half (see event_backend.h and
 * backend_uring.h): the ring's set-up, the listeners' multishot polls, and the wait
 * that submits and reaps in one io_uring_enter.
 *
 * What it needs of the kernel, and since when (the tier runs on 6.x):
 *   io_uring_setup/enter/register                 5.1
 *   IORING_FEAT_SINGLE_MMAP (one mapping for both rings)  5.4
 *   IORING_FEAT_NODROP (no CQE is lost when the CQ is full)  5.5
 *   IORING_SETUP_CQSIZE, CLAMP                     5.5 / 5.6
 *   IORING_FEAT_EXT_ARG (a timeout on the wait, no timeout SQE)  5.11
 *   IORING_SETUP_SUBMIT_ALL                        5.18
 *   IORING_REGISTER_RING_FDS, ENTER_REGISTERED_RING  5.18
 *   IORING_SETUP_COOP_TASKRUN                      5.19
 *   IORING_REGISTER_PBUF_RING (the provided buffer ring)  5.19
 *   IORING_RECV_MULTISHOT                          6.0
 *   IORING_SETUP_SINGLE_ISSUER                     6.0
 *   IORING_SETUP_DEFER_TASKRUN                     6.1
 * A kernel without io_uring (ENOSYS), one that refuses it (EPERM: the
 * kernel.io_uring_disabled sysctl, 6.6, or a seccomp filter), or one too old for the
 * flags (EINVAL) makes the daemon exit with EXIT_URING and one line on stderr. */
#include "common/serve/event_backend.h"

#include <linux/mman.h> /* PROT_*, MAP_* */
#include <linux/poll.h> /* POLLIN */

#include "common/base/console.h"
#include "common/base/span.h"
#include "common/serve/conn.h"

struct uring_state uring;
/* The receive sides, by descriptor: a per-slot array of the backend's own, 32 bytes each.
 * Not in the connection's slot (conn.c), which is one full cache line and the same in
 * every tier; the epoll tiers have no receive side. */
struct uring_rx uring_rx[URING_RX_SLOTS];

/* Completions the CQ holds: every connection has at most one operation in flight, plus
 * failed closes and cancels, plus the listeners' and the signals' polls. */
#define URING_CQ_ENTRIES 8192

/* Single issuer and deferred task running: completions are posted only when this one
 * thread enters the kernel to wait for them, so no interrupt or task work disturbs the
 * serving loop (io_uring_setup(2)). CQSIZE: the CQ holds URING_CQ_ENTRIES. Measured
 * (README, "ring flags"): DEFER_TASKRUN saves about a fifth of the CPU per keep-alive
 * request; the others are what io_uring_setup(2) recommends for one thread owning one
 * ring, and cost nothing measurable. */
#define URING_SETUP_FLAGS                                                             \
	(IORING_SETUP_CQSIZE | IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN |   \
	 IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN)
#define URING_FEATURES_NEEDED \
	(IORING_FEAT_SINGLE_MMAP | IORING_FEAT_NODROP | IORING_FEAT_EXT_ARG)

#define URING_PARAMS_SIZE 120
#define URING_RSRC_UPDATE_SIZE 16
#define URING_GETEVENTS_ARG_SIZE 24
STATIC_ASSERT(sizeof(struct io_uring_params) == URING_PARAMS_SIZE, "io_uring_params layout");
STATIC_ASSERT(sizeof(struct io_uring_rsrc_update) == URING_RSRC_UPDATE_SIZE,
	      "io_uring_rsrc_update layout");
STATIC_ASSERT(sizeof(struct io_uring_getevents_arg) == URING_GETEVENTS_ARG_SIZE,
	      "io_uring_getevents_arg layout");
STATIC_ASSERT(URING_SQ_ENTRIES >= BACKEND_EVENTS_MAX, "one wait's reports fit the SQ");

#define MS_PER_S 1000
#define NS_PER_MS 1000000

/* Writes "apollod: io_uring unavailable: <what> (errno N)\n". Returns EXIT_URING. */
static enum exit_code uring_refused(const char *what, long err)
{
	char digits[U64_DEC_MAX];
	write_stderr(LITERAL("apollod: io_uring unavailable: "));
	write_stderr(what, cstr_len(what));
	write_stderr(LITERAL(" (errno "));
	write_stderr(digits, u64_to_dec((uint64_t)-err, digits));
	write_stderr(LITERAL(")\n"));
	return EXIT_URING;
}

/* Maps the rings of ring_fd as p describes them: one mapping for SQ and CQ
 * (IORING_FEAT_SINGLE_MMAP), one for the SQEs. Returns 0 or -errno. */
static long uring_map(int ring_fd, const struct io_uring_params *p)
{
	uint64_t sq_bytes = p->sq_off.array + p->sq_entries * sizeof(uint32_t);
	uint64_t cq_bytes = p->cq_off.cqes + p->cq_entries * sizeof(struct io_uring_cqe);
	uint64_t ring_bytes = sq_bytes > cq_bytes ? sq_bytes : cq_bytes;
	long ring = sys_mmap(0, ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			     ring_fd, (long)IORING_OFF_SQ_RING);
	if (sys_is_error(ring))
		return ring;
	long sqes = sys_mmap(0, p->sq_entries * sizeof(struct io_uring_sqe),
			     PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring_fd,
			     (long)IORING_OFF_SQES);
	if (sys_is_error(sqes))
		return sqes;
	char *base = (char *)ring;
	uring.sqes = (struct io_uring_sqe *)sqes;
	uring.sq_head = (uint32_t *)(base + p->sq_off.head);
	uring.sq_tail = (uint32_t *)(base + p->sq_off.tail);
	uring.sq_mask = *(uint32_t *)(base + p->sq_off.ring_mask);
	uring.cqes = (struct io_uring_cqe *)(base + p->cq_off.cqes);
	uring.cq_head = (uint32_t *)(base + p->cq_off.head);
	uring.cq_tail = (uint32_t *)(base + p->cq_off.tail);
	uring.cq_mask = *(uint32_t *)(base + p->cq_off.ring_mask);
	/* SQE i always sits at SQ index i: the indirection array is the identity. */
	uint32_t *array = (uint32_t *)(base + p->sq_off.array);
	for (uint32_t i = 0; i < p->sq_entries; i++)
		array[i] = i;
	uring.sq_next = *uring.sq_tail;
	return 0;
}

/* Registers the ring's own descriptor (IORING_REGISTER_RING_FDS) so io_uring_enter skips
 * the descriptor lookup; keeps the plain descriptor if the kernel declines. */
static void uring_register_ring(int ring_fd)
{
	struct io_uring_rsrc_update up = {.offset = ~0u, .data = (uint64_t)ring_fd};
	uring.enter_fd = (uint32_t)ring_fd;
	uring.enter_flags = 0;
	if (sys_io_uring_register((unsigned)ring_fd, IORING_REGISTER_RING_FDS, &up, 1) == 1) {
		uring.enter_fd = up.offset;
		uring.enter_flags = IORING_ENTER_REGISTERED_RING;
	}
}

/* ---- The provided buffer ring (backend_uring.h) ---- */

#define URING_PAGE 4096 /* the buffer ring's entries start on a page (kernel, 5.19) */
/* The ring's entries, rounded up to a page so the buffers after them start on one. */
#define URING_PBUF_RING_BYTES \
	((URING_PBUF_COUNT * URING_BUF_SIZE + URING_PAGE - 1) / URING_PAGE * URING_PAGE)
#define URING_BUF_REG_SIZE 40
STATIC_ASSERT(URING_PBUF_RING_BYTES % URING_PAGE == 0, "the buffers start on a page too");
STATIC_ASSERT(sizeof(struct io_uring_buf_reg) == URING_BUF_REG_SIZE, "io_uring_buf_reg layout");

STATIC_ASSERT(URING_PBUF_SIZE <= 0xffff, "a received length fits pbuf_len");

/* Hands buffer bid to the kernel (published at the next enter, uring_publish). Writes the
 * fields one by one: bufs[0].resv is the ring's tail (liburing's io_uring_buf_ring_add). */
static void uring_pbuf_give(uint16_t bid)
{
	struct io_uring_buf *b = &uring.pbuf_ring->bufs[uring.pbuf_tail++ & (URING_PBUF_COUNT - 1)];
	b->addr = (uint64_t)(uintptr_t)(uring.pbuf_mem + (uint32_t)bid * URING_PBUF_SIZE);
	b->len = URING_PBUF_SIZE;
	b->bid = bid;
}

/* Maps the buffer ring and its buffers (one anonymous mapping: no heap), registers it as
 * group URING_PBUF_GROUP of ring_fd (before the ring's descriptor is registered: plain
 * io_uring_register wants the real one) and gives every buffer. Returns 0 or -errno. */
static long uring_pbuf_setup(int ring_fd)
{
	uint64_t bytes = URING_PBUF_RING_BYTES + (uint64_t)URING_PBUF_COUNT * URING_PBUF_SIZE;
	long m = sys_mmap(0, bytes, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (sys_is_error(m))
		return m;
	uring.pbuf_ring = (struct io_uring_buf_ring *)m;
	uring.pbuf_mem = (char *)m + URING_PBUF_RING_BYTES;
	struct io_uring_buf_reg reg = {.ring_addr = (uint64_t)m,
				       .ring_entries = URING_PBUF_COUNT,
				       .bgid = URING_PBUF_GROUP};
	long r = sys_io_uring_register((unsigned)ring_fd, IORING_REGISTER_PBUF_RING, &reg, 1);
	if (sys_is_error(r))
		return r;
	for (uint32_t bid = 0; bid < URING_PBUF_COUNT; bid++)
		uring_pbuf_give((uint16_t)bid);
	return 0;
}

void uring_rx_reset(int fd)
{
	if (fd < 0 || fd >= URING_RX_SLOTS)
		return;
	struct uring_rx *rx = &uring_rx[fd];
	uring.starved_count -= (rx->state & URING_RX_STARVED) != 0;
	uring.pbuf_held = (uint16_t)(uring.pbuf_held - rx->count);
	for (uint16_t bid = rx->head; rx->count; rx->count--, bid = uring.pbuf_next[bid])
		uring_pbuf_give(bid);
	rx->gen++;
	rx->recv_ud = ((uint64_t)rx->gen << 32) | URING_RX_TAG | (uint32_t)fd;
	rx->head = URING_PBUF_NONE;
	rx->off = 0;
	rx->state = 0;
	rx->end = 0;
}

long uring_rx_take(struct uring_rx *rx, char *buf, uint32_t len)
{
	uint32_t done = 0;
	while (rx->count && done < len) {
		uint16_t bid = rx->head;
		uint32_t n = uring.pbuf_len[bid] - rx->off;
		if (n > len - done)
			n = len - done;
		/* The one copy of this design: the bytes received, once (mem.c's memcpy). */
		__builtin_memcpy(buf + done, uring.pbuf_mem + (uint32_t)bid * URING_PBUF_SIZE + rx->off, n);
		done += n;
		rx->off = (uint16_t)(rx->off + n);
		if (rx->off == uring.pbuf_len[bid]) { /* emptied: back to the ring */
			rx->head = uring.pbuf_next[bid];
			rx->off = 0;
			rx->count--;
			uring.pbuf_held--;
			uring_pbuf_give(bid);
		}
	}
	return done;
}

long uring_rx_arm(int fd, uint64_t token)
{
	struct uring_rx *rx = &uring_rx[fd];
	struct io_uring_sqe *sqe = uring_sqe();
	if (!sqe)
		return -ENOMEM;
	sqe->opcode = IORING_OP_RECV;
	sqe->fd = fd;
	sqe->flags = IOSQE_BUFFER_SELECT; /* len 0: the buffer's size */
	sqe->buf_group = URING_PBUF_GROUP;
	sqe->ioprio = IORING_RECV_MULTISHOT;
	sqe->user_data = rx->recv_ud;
	rx->token = token;
	rx->state |= URING_RX_ARMED;
	return IO_PENDING;
}

/* Queues buffer bid, len bytes received, on fd's receive side; cancels its recv once it
 * holds URING_PBUF_CONN_MAX buffers (input the connection does not read yet must not take
 * the whole ring). Returns 1 when the queue was empty: the connection needs a report. */
static int uring_rx_queue(struct uring_rx *rx, uint16_t bid, uint32_t len)
{
	uring.pbuf_len[bid] = (uint16_t)len;
	uring.pbuf_next[bid] = URING_PBUF_NONE;
	if (rx->count)
		uring.pbuf_next[rx->tail] = bid;
	else
		rx->head = bid;
	rx->tail = bid;
	rx->count++;
	uring.pbuf_held++;
	if (rx->count >= URING_PBUF_CONN_MAX && (rx->state & URING_RX_ARMED) &&
	    !(rx->state & URING_RX_CANCELLING)) {
		io_cancel(rx->recv_ud, 0); /* its end comes back as a last CQE */
		rx->state |= URING_RX_CANCELLING;
	}
	return rx->count == 1;
}

/* fd's recv ended with res (no IORING_CQE_F_MORE). Returns 1: the connection needs a
 * report, starved too (its next read falls back to its own buffer, io_read). */
static int uring_rx_ended(struct uring_rx *rx, int32_t res)
{
	rx->state &= (uint8_t)~(URING_RX_ARMED | URING_RX_CANCELLING);
	if (res == -ENOBUFS) { /* the ring ran dry: fall back, or wait for buffers in turn */
		rx->state |= URING_RX_STARVED;
		uring.starved_count++;
		return 1;
	}
	if (res <= 0 && res != -ECANCELED) { /* end of input or an error: after the queue */
		rx->state |= URING_RX_ENDED;
		rx->end = res;
	} /* else: it stopped (cancelled at the cap, or by the kernel): io_read re-arms it */
	return 1;
}

/* Takes a recv CQE: queues its buffer on the receive side it belongs to, or gives the
 * buffer back when that side has let go (stale). Stores in *event the connection's
 * report when it needs one. Returns 1 when it stored one, else 0. */
static int uring_rx_complete(const struct io_uring_cqe *cqe, backend_event *event)
{
	int fd = (int)((uint32_t)cqe->user_data & URING_RX_FD_MASK);
	struct uring_rx *rx = &uring_rx[fd];
	int stale = cqe->user_data != rx->recv_ud;
	int report = 0;
	if (cqe->flags & IORING_CQE_F_BUFFER) {
		uint16_t bid = (uint16_t)(cqe->flags >> IORING_CQE_BUFFER_SHIFT);
		if (stale || cqe->res <= 0)
			uring_pbuf_give(bid);
		else
			report = uring_rx_queue(rx, bid, (uint32_t)cqe->res);
	}
	if (stale)
		return 0;
	if (!(cqe->flags & IORING_CQE_F_MORE))
		report |= uring_rx_ended(rx, cqe->res);
	if (report)
		*event = (backend_event){.user_data = rx->token, .flags = URING_EV_RX};
	return report;
}

/* Re-arms starved connections, as many as the ring may have buffers for (those not
 * queued on connections; a recv that still finds none starves again), in turn: the sweep
 * goes on where the last one stopped, so every starved connection gets its go. Bounded:
 * one pass over the table at most, and only while some connection starves. */
static void uring_rx_rearm_starved(void)
{
	uint32_t spare = URING_PBUF_COUNT - uring.pbuf_held;
	for (uint32_t seen = 0; uring.starved_count && spare && seen < URING_RX_SLOTS; seen++) {
		int fd = (int)(uring.starved_cursor & URING_RX_FD_MASK);
		struct uring_rx *rx = &uring_rx[fd];
		if (rx->state & URING_RX_STARVED) {
			/* Armed is IO_PENDING, itself an -errno (-EAGAIN): compare, don't test
			 * for an error (760036d did, and so armed the first starved connection
			 * again at every wait, never the others: two recvs on one socket split
			 * its input, and the close cancelled one, leaving the socket open). */
			if (uring_rx_arm(fd, rx->token) != IO_PENDING)
				return; /* no SQE: the next wait tries again from here */
			rx->state &= (uint8_t)~URING_RX_STARVED;
			uring.starved_count--;
			spare--;
		}
		uring.starved_cursor++;
	}
}

enum exit_code backend_open(void)
{
	struct io_uring_params p = {.flags = URING_SETUP_FLAGS, .cq_entries = URING_CQ_ENTRIES};
	long fd = sys_io_uring_setup(URING_SQ_ENTRIES, &p);
	if (sys_is_error(fd))
		return uring_refused("io_uring_setup", fd);
	if ((p.features & URING_FEATURES_NEEDED) != URING_FEATURES_NEEDED ||
	    p.sq_entries != URING_SQ_ENTRIES)
		return uring_refused("kernel too old", -EINVAL);
	long r = uring_map((int)fd, &p);
	if (sys_is_error(r))
		return uring_refused("mmap of the rings", r);
	r = uring_pbuf_setup((int)fd);
	if (sys_is_error(r))
		return uring_refused("buffer ring", r);
	uring_register_ring((int)fd);
	return EXIT_OK;
}

/* Publishes the prepared SQEs and returns how many the kernel has not consumed yet. */
static uint32_t uring_publish(void)
{
	/* Release: the entries' stores must be visible before the tail that hands them over
	 * (io_uring/io_uring.c, the comment at its top: "smp_store_release to store the tail
	 * will do"; liburing's __io_uring_flush_sq). */
	__atomic_store_n(uring.sq_tail, uring.sq_next, __ATOMIC_RELEASE);
	/* Release, the same for the buffers given back since the last enter: their entries
	 * before the buffer ring's tail (liburing's io_uring_buf_ring_advance; the kernel
	 * reads the tail with smp_load_acquire, io_uring/kbuf.c). */
	__atomic_store_n(&uring.pbuf_ring->tail, uring.pbuf_tail, __ATOMIC_RELEASE);
	return uring.sq_next - __atomic_load_n(uring.sq_head, __ATOMIC_ACQUIRE);
}

long uring_submit(void)
{
	uint32_t pending = uring_publish();
	return COUNTED(sys_io_uring_enter(uring.enter_fd, pending, 0, uring.enter_flags, 0, 0));
}

/* Arms a multishot poll (IORING_POLL_ADD_MULTI, Linux 5.13) for events on fd, one of the
 * loop's own (a listener, the signal descriptor): each wake-up that finds one of them
 * comes back as a CQE with token, IORING_CQE_F_MORE while it goes on; an armed poll that
 * finds them already there reports at once. Returns 0, or -ENOMEM without an SQE. */
static long uring_arm_poll(int fd, uint64_t token, uint32_t events)
{
	struct io_uring_sqe *sqe = uring_sqe();
	if (!sqe)
		return -ENOMEM;
	sqe->opcode = IORING_OP_POLL_ADD;
	sqe->fd = fd;
	sqe->user_data = token;
	sqe->len = IORING_POLL_ADD_MULTI;
	sqe->poll32_events = events;
	return 0;
}

/* Arms listener i's poll: a connection waiting in its backlog reports LISTENER_TOKEN_OF(i),
 * and the loop accepts (backend_accept). Returns 0, or -ENOMEM without an SQE. */
static long uring_arm_listener(uint32_t i)
{
	long r = uring_arm_poll(uring.listener_fd[i], LISTENER_TOKEN_OF(i), POLLIN);
	if (r == 0)
		uring.listener_armed |= (uint8_t)(1u << i);
	return r;
}

/* Arms one single-shot accept on listener i: its CQE carries URING_ACCEPT_TOKEN_OF(i) and
 * the descriptor (non-blocking, close-on-exec: URING_ACCEPT_FLAGS) or -errno. Returns 0,
 * or -ENOMEM without an SQE. */
static long uring_arm_accept(uint32_t i)
{
	struct io_uring_sqe *sqe = uring_sqe();
	if (!sqe)
		return -ENOMEM;
	sqe->opcode = IORING_OP_ACCEPT;
	sqe->fd = uring.listener_fd[i];
	sqe->user_data = URING_ACCEPT_TOKEN_OF(i);
	sqe->accept_flags = URING_ACCEPT_FLAGS;
	uring.accept_live[i]++;
	uring.accepts_live++;
	return 0;
}

/* Arms accepts on the watched listeners, evenly, up to URING_ACCEPTS_PER_LISTENER each,
 * while those in flight and the descriptors queued stay within the table's room; none on
 * shared listeners (backend_share_listeners). */
static void uring_arm_accepts(void)
{
	if (uring.listeners_shared)
		return;
	uint32_t room = conn_room();
	uint32_t held = uring.accepts_live + (uring.accept_tail - uring.accept_head);
	for (uint32_t round = 0; round < URING_ACCEPTS_PER_LISTENER; round++)
		for (uint32_t i = 0; i < LISTENERS_MAX && held < room; i++)
			if ((uring.listener_watched & (1u << i)) && uring.accept_live[i] <= round &&
			    uring_arm_accept(i) == 0)
				held++;
}

/* Cancels every request under token (IORING_ASYNC_CANCEL_ALL, Linux 5.19); their
 * -ECANCELED ends are dropped when reaped. Returns 0, or -ENOMEM without an SQE. */
static long uring_cancel_token(uint64_t token)
{
	struct io_uring_sqe *sqe = uring_sqe_unwatched(IORING_OP_ASYNC_CANCEL, -1);
	if (!sqe)
		return -ENOMEM;
	sqe->addr = token;
	sqe->cancel_flags = IORING_ASYNC_CANCEL_ALL;
	return 0;
}

void backend_share_listeners(void)
{
	/* An armed accept waits on the listener exclusively (io_uring/opdef.c:
	 * poll_exclusive for IORING_OP_ACCEPT), so a new connection wakes it instead of
	 * another worker's, and the accept itself runs as task work of the process that
	 * armed it: a worker stopped by SIGSTOP or a debugger runs none, and the connection
	 * waits for it. A poll without EPOLLEXCLUSIVE holds nothing: every worker's poll
	 * reports, and whichever loop runs first accepts with accept4 (uring_poll_when_idle
	 * keeps it armed, as for a listener with no accept). */
	uring.listeners_shared = 1;
}

long backend_watch_listener(uint32_t index, int fd, int on)
{
	uint8_t bit = (uint8_t)(1u << index);
	uring.listener_fd[index] = fd;
	uring.listener_watched = (uint8_t)(on ? uring.listener_watched | bit
					      : uring.listener_watched & ~bit);
	if (on && !(uring.listener_armed & bit))
		return uring_arm_listener(index);
	if (!on && uring.accept_live[index] && uring_cancel_token(URING_ACCEPT_TOKEN_OF(index)))
		return -ENOMEM;
	if (!on && (uring.listener_armed & bit)) {
		if (uring_cancel_token(LISTENER_TOKEN_OF(index)))
			return -ENOMEM;
		uring.listener_armed &= (uint8_t)~bit;
	}
	return 0;
}

/* Arms a multishot poll (IORING_POLL_ADD_MULTI, Linux 5.13) on the signal descriptor:
 * each pending signal comes back as a CQE with SIGNAL_TOKEN; the loop reads the signal
 * itself. Returns 0, or -ENOMEM without an SQE. */
static long uring_arm_signals(void)
{
	long r = uring_arm_poll(uring.signal_fd, SIGNAL_TOKEN, POLLIN);
	uring.signals_armed = r == 0;
	return r;
}

int backend_accepts_settled(void)
{
	return !uring.accepts_live && uring.accept_head == uring.accept_tail;
}

void backend_cancel_all(void)
{
	/* One cancel of every request on the ring (IORING_ASYNC_CANCEL_ANY, Linux 5.19),
	 * submitted without waiting: no completion is read any more, and the exit that
	 * follows tears the ring down (the kernel cancels what this one missed). */
	struct io_uring_sqe *sqe = uring_sqe_unwatched(IORING_OP_ASYNC_CANCEL, -1);
	if (sqe)
		sqe->cancel_flags = IORING_ASYNC_CANCEL_ANY;
	uring_submit();
}

long backend_watch_signals(int fd)
{
	uring.signal_fd = fd;
	uring.signals_watched = 1;
	return uring_arm_signals();
}

/* Takes a listener poll's CQE. Returns 1 when it is a report for the loop (the first of
 * its listener this reap: the loop accepts until EAGAIN), 0 when it is dropped. An end
 * (no IORING_CQE_F_MORE) leaves the poll to be armed again by the next wait while the
 * listener is watched; a cancelled one (-ECANCELED, a park's) is not the armed one, which
 * a re-arm may have started since under the same token, so it clears nothing. */
static int uring_take_listener(const struct io_uring_cqe *cqe, uint8_t *reported)
{
	uint8_t bit = (uint8_t)(1u << listener_of_token(cqe->user_data));
	if (cqe->res == -ECANCELED)
		return 0;
	if (!(cqe->flags & IORING_CQE_F_MORE))
		uring.listener_armed &= (uint8_t)~bit;
	if (*reported & bit)
		return 0;
	*reported |= bit;
	return 1;
}

/* Takes an accept CQE: one accept fewer in flight; queues its descriptor or error (not a
 * park's or stop's -ECANCELED, nor -EAGAIN: the next wait arms another). Returns 1 when
 * it is a report for the loop, as uring_take_listener: a descriptor or error, or the last
 * cancelled end, which settles the accepts a stop waits for (backend_accepts_settled; a
 * dropped completion would have the wait wait again, to the drain's end). */
static int uring_take_accept(const struct io_uring_cqe *cqe, uint8_t *reported)
{
	uint32_t i = (uint32_t)(cqe->user_data - URING_ACCEPT_TOKEN_OF(0));
	uring.accept_live[i]--;
	uring.accepts_live--;
	if (cqe->res == -EAGAIN || (cqe->res == -ECANCELED && uring.accepts_live))
		return 0;
	if (cqe->res != -ECANCELED)
		uring.accepted[uring.accept_tail++ & (URING_ACCEPT_MAX - 1)] = cqe->res;
	if (*reported & (1u << i))
		return 0;
	*reported |= (uint8_t)(1u << i);
	return 1;
}

/* Keeps watched listener i's poll armed exactly while none of its accepts is in flight:
 * with room the accepts report, and a poll beside them would wake the wait a second time
 * for the same connection; without room its report lets the loop evict or park. A poll
 * cancelled here ends with -ECANCELED, which uring_take_listener drops. */
static void uring_poll_when_idle(uint32_t i)
{
	uint8_t bit = (uint8_t)(1u << i);
	if (!(uring.listener_watched & bit))
		return;
	if (!uring.accept_live[i] && !(uring.listener_armed & bit))
		uring_arm_listener(i); /* no SQE: the next wait tries again */
	else if (uring.accept_live[i] && (uring.listener_armed & bit) &&
		 uring_cancel_token(LISTENER_TOKEN_OF(i)) == 0)
		uring.listener_armed &= (uint8_t)~bit;
}

/* Arms again what ended while wanted: the signal poll, the accepts the room allows, each
 * watched listener's poll while it has no accept. */
static void uring_rearm_own(void)
{
	if (uring.signals_watched && !uring.signals_armed)
		uring_arm_signals(); /* no SQE: the next wait tries again */
	uring_arm_accepts();
	for (uint32_t i = 0; i < LISTENERS_MAX; i++)
		uring_poll_when_idle(i);
}

/* Whether delivered descriptors wait in the queue with a listener watched, and so need a
 * report of their own: the loop may have stopped taking before the queue was empty (a
 * park, or an EMFILE with nobody waiting), and no new CQE would announce them. Any
 * listener's report takes from the one queue. */
static int uring_queue_unreported(void)
{
	return uring.listener_watched && uring.accept_head != uring.accept_tail;
}

/* Copies up to BACKEND_EVENTS_MAX reports out of the CQ into events: connection CQEs as
 * they are, one report per listener per wait, the failures of unwatched operations
 * dropped. Consumes every CQE it looks at: none stays in the ring. Returns the count. */
static long uring_reap(backend_event *events)
{
	uint32_t head = *uring.cq_head; /* ours alone */
	/* Acquire: pairs with the kernel's release of the CQ tail after it wrote the
	 * entries (io_uring/io_uring.c, the comment at its top: "using smp_load_acquire to
	 * read the tail will do"; liburing's __io_uring_peek_cqe). */
	uint32_t tail = __atomic_load_n(uring.cq_tail, __ATOMIC_ACQUIRE);
	long n = 0;
	uint8_t listeners_reported = 0;
	for (; head != tail && n < BACKEND_EVENTS_MAX; head++) {
		const struct io_uring_cqe *cqe = &uring.cqes[head & uring.cq_mask];
		if (listener_of_token(cqe->user_data) >= 0) {
			if (uring_take_listener(cqe, &listeners_reported))
				events[n++] = *cqe;
		} else if (cqe->user_data - URING_ACCEPT_TOKEN_OF(0) < LISTENERS_MAX) {
			if (uring_take_accept(cqe, &listeners_reported)) {
				events[n] = *cqe;
				events[n++].user_data = LISTENER_TOKEN_OF(cqe->user_data -
									  URING_ACCEPT_TOKEN_OF(0));
			}
		} else if (cqe->user_data == SIGNAL_TOKEN) {
			if (!(cqe->flags & IORING_CQE_F_MORE))
				uring.signals_armed = 0; /* ended: re-armed by the next wait */
			events[n++] = *cqe;
		} else if (cqe->user_data == URING_IGNORE_TOKEN) {
			continue;
		} else if ((uint32_t)cqe->user_data & URING_RX_TAG) {
			n += uring_rx_complete(cqe, &events[n]);
		} else {
			events[n++] = *cqe;
		}
	}
	/* Release: the entries are read before the kernel may reuse them ("smp_store_release
	 * to store head will do", ibid.; liburing's io_uring_cq_advance). */
	__atomic_store_n(uring.cq_head, head, __ATOMIC_RELEASE);
	if (!listeners_reported && n < BACKEND_EVENTS_MAX && uring_queue_unreported()) {
		struct io_uring_cqe nudge = {.user_data = LISTENER_TOKEN_OF(0)};
		events[n++] = nudge;
	}
	return n;
}

/* Submits what the connections prepared and waits in the same io_uring_enter: for one
 * CQE, none when some are already there or timeout_ms is 0, for at most timeout_ms (the
 * deadline FIFO's earliest deadline) through IORING_ENTER_EXT_ARG, so no timeout SQE.
 * Returns what io_uring_enter returned: -ETIME when the timeout passed. */
static long uring_enter_wait(int timeout_ms)
{
	uring_rx_rearm_starved();
	uring_rearm_own();
	uint32_t pending = uring_publish();
	int ready = __atomic_load_n(uring.cq_tail, __ATOMIC_ACQUIRE) != *uring.cq_head ||
		    uring_queue_unreported();
	struct k_timespec ts = {timeout_ms / MS_PER_S, (timeout_ms % MS_PER_S) * NS_PER_MS};
	struct io_uring_getevents_arg arg = {.ts = timeout_ms < 0 ? 0 : (uint64_t)(uintptr_t)&ts};
	unsigned wait_nr = ready || timeout_ms == 0 ? 0 : 1;
	return COUNTED(sys_io_uring_enter(uring.enter_fd, pending, wait_nr,
					  IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG |
						  uring.enter_flags,
					  &arg, sizeof(arg)));
}

long backend_wait(backend_event *events, int timeout_ms)
{
	/* 0 reports means the timeout passed, and the loop retries a parked listener then. A
	 * wait woken only by completions the reap drops (a parked listener's cancelled poll,
	 * a failed close) is not that, and waits once more: unparking on it re-armed the poll,
	 * whose report parked it again, whose cancel woke the wait, a spin (seen under a full
	 * table of stalled downloads). Those completions follow the loop's own submissions at
	 * once, so the wait again is about as long as the first; once only, so a late one
	 * cannot hold the deadlines back more than that. io_uring_enter returns the count
	 * submitted, not -ETIME, when the wait that followed timed out: only an empty CQ
	 * tells a timeout. */
	for (int again = 1;; again = 0) {
		long r = uring_enter_wait(timeout_ms);
		/* -EBUSY: completions wait in the overflow list, which the next enter flushes
		 * once this one has made room. Both it and -ETIME leave the CQ to reap. */
		if (sys_is_error(r) && r != -ETIME && r != -EBUSY)
			return r;
		uint32_t head = *uring.cq_head;
		long n = uring_reap(events);
		if (n || !again || timeout_ms == 0 || *uring.cq_head == head)
			return n;
	}
}
