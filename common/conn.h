/* The connection table: one fixed slot per file descriptor, plus each slot's request
 * buffer, response queue and response scratch in separate static arrays (.bss: zero-fill,
 * only touched pages cost memory). */
#ifndef APOLLOD_COMMON_CONN_H
#define APOLLOD_COMMON_CONN_H

#include <stdint.h>

#include "common/http_parse.h"
#include "common/kernel_consts.h"
#include "common/metrics.h"
#include "common/static_assert.h"

#define CONN_SLOTS 4096                  /* descriptors >= this are closed on accept */
#define CONN_BUFFER_SIZE HTTP_HEAD_MAX   /* request bytes a slot holds: one whole head */
#define CONN_SCRATCH_SIZE METRICS_BUFFER_SIZE /* a slot's dynamic response (/metrics) */
#define CONN_QUEUE_MAX 64                /* responses queued per slot: one writev */
#define CONN_SLOT_SIZE 64

STATIC_ASSERT((CONN_SLOTS & (CONN_SLOTS - 1)) == 0, "slot count is a power of two");
STATIC_ASSERT(CONN_BUFFER_SIZE == 8192, "SPEC 4: an 8 KiB request buffer per slot");
STATIC_ASSERT(CONN_QUEUE_MAX <= 1024, "writev takes at most IOV_MAX (1024) entries");

enum conn_state {
	CONN_FREE = 0,     /* no connection on this descriptor */
	CONN_OPEN = 1,     /* reading requests and sending their responses */
	CONN_DRAINING = 2, /* answered; reading and discarding until the peer closes */
};

/* conn.flags */
#define CONN_F_CLOSE_AFTER 0x01   /* close once the queue is sent: parse nothing more */
#define CONN_F_PEER_EOF 0x02      /* read returned 0: no more input will come */
#define CONN_F_INPUT_DRAINED 0x04 /* the last read came up short (or EAGAIN): wait for an
				   * edge before reading again */
#define CONN_F_DRAIN 0x08         /* on close, unread input may remain: linger first */
#define CONN_F_HUP 0x10           /* the peer hung up (or an error is pending): read until
				   * 0 or EAGAIN, a short read proves nothing */

struct conn {
	uint32_t gen;        /* bumped at every accept; events carry it (see conn_token) */
	uint8_t state;       /* enum conn_state */
	uint8_t watched;     /* 1 once registered with the backend (lazily, on EAGAIN) */
	uint8_t flags;       /* CONN_F_* */
	uint8_t reserved0;
	uint32_t in_start;   /* first unconsumed byte of the request buffer */
	uint32_t in_end;     /* bytes in the request buffer: in_start <= in_end <= 8192 */
	uint64_t skip;       /* request body bytes still to discard before the next head */
	uint32_t out_head;   /* first unsent entry of the response queue */
	uint32_t out_count;  /* unsent entries: out_head + out_count <= CONN_QUEUE_MAX */
	uint64_t drained;    /* bytes discarded while DRAINING */
	uint8_t reserved[CONN_SLOT_SIZE - 40];
};
#define CONN_GEN 0
#define CONN_STATE 4
#define CONN_WATCHED 5
#define CONN_FLAGS 6
#define CONN_IN_START 8
#define CONN_IN_END 12
#define CONN_SKIP 16
#define CONN_OUT_HEAD 24
#define CONN_OUT_COUNT 28
#define CONN_DRAINED 32
STATIC_ASSERT(offsetof(struct conn, gen) == CONN_GEN, "layout");
STATIC_ASSERT(offsetof(struct conn, state) == CONN_STATE, "layout");
STATIC_ASSERT(offsetof(struct conn, watched) == CONN_WATCHED, "layout");
STATIC_ASSERT(offsetof(struct conn, flags) == CONN_FLAGS, "layout");
STATIC_ASSERT(offsetof(struct conn, in_start) == CONN_IN_START, "layout");
STATIC_ASSERT(offsetof(struct conn, in_end) == CONN_IN_END, "layout");
STATIC_ASSERT(offsetof(struct conn, skip) == CONN_SKIP, "layout");
STATIC_ASSERT(offsetof(struct conn, out_head) == CONN_OUT_HEAD, "layout");
STATIC_ASSERT(offsetof(struct conn, out_count) == CONN_OUT_COUNT, "layout");
STATIC_ASSERT(offsetof(struct conn, drained) == CONN_DRAINED, "layout");
STATIC_ASSERT(sizeof(struct conn) == CONN_SLOT_SIZE, "one slot per cache line");
STATIC_ASSERT(CONN_SLOT_SIZE % 64 == 0, "slot size is a multiple of 64");

/* An event token: the descriptor in the low half, the slot's generation in the high half.
 * A report for a descriptor that was closed and reused within one epoll batch carries the
 * old generation and is dropped. */
#define CONN_TOKEN_GEN_SHIFT 32
#define LISTENER_TOKEN 0xffffffffffffffffull
static inline uint64_t conn_token(int fd, uint32_t gen)
{
	return ((uint64_t)gen << CONN_TOKEN_GEN_SHIFT) | (uint32_t)fd;
}

#endif /* APOLLOD_COMMON_CONN_H */
