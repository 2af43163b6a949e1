/* The connection table: one fixed slot per file descriptor, plus each slot's request
 * buffer and response scratch in separate static arrays (.bss: zero-fill, only touched
 * pages cost memory). */
#ifndef APOLLOD_COMMON_CONN_H
#define APOLLOD_COMMON_CONN_H

#include <stdint.h>

#include "common/http_parse.h"
#include "common/metrics.h"
#include "common/static_assert.h"

#define CONN_SLOTS 4096                  /* descriptors >= this are closed on accept */
#define CONN_BUFFER_SIZE HTTP_HEAD_MAX   /* request bytes a slot holds: one whole head */
#define CONN_SCRATCH_SIZE METRICS_BUFFER_SIZE /* a slot's dynamic response (/metrics) */
#define CONN_SLOT_SIZE 64

STATIC_ASSERT((CONN_SLOTS & (CONN_SLOTS - 1)) == 0, "slot count is a power of two");
STATIC_ASSERT(CONN_BUFFER_SIZE == 8192, "SPEC 4: an 8 KiB request buffer per slot");

enum conn_state {
	CONN_FREE = 0,    /* no connection on this descriptor */
	CONN_READING = 1, /* collecting a request head */
	CONN_WRITING = 2, /* sending resp[resp_off, resp_len) */
	CONN_DRAINING = 3, /* answered; reading and discarding until the peer closes */
};

struct conn {
	const char *resp;    /* response being sent: static .rodata or this slot's scratch */
	uint32_t resp_len;   /* bytes of resp to send */
	uint32_t resp_off;   /* bytes of resp already sent */
	uint32_t req_len;    /* bytes in this slot's request buffer; <= CONN_BUFFER_SIZE */
	uint32_t gen;        /* bumped at every accept; events carry it (see conn_token) */
	uint8_t state;       /* enum conn_state */
	uint8_t watched;     /* 1 once registered with the backend (lazily, on EAGAIN) */
	uint8_t drain;       /* 1: unread request bytes may remain: drain before closing */
	uint8_t reserved[CONN_SLOT_SIZE - 27];
};
#define CONN_RESP 0
#define CONN_RESP_LEN 8
#define CONN_RESP_OFF 12
#define CONN_REQ_LEN 16
#define CONN_GEN 20
#define CONN_STATE 24
#define CONN_WATCHED 25
#define CONN_DRAIN 26
STATIC_ASSERT(offsetof(struct conn, resp) == CONN_RESP, "layout");
STATIC_ASSERT(offsetof(struct conn, resp_len) == CONN_RESP_LEN, "layout");
STATIC_ASSERT(offsetof(struct conn, resp_off) == CONN_RESP_OFF, "layout");
STATIC_ASSERT(offsetof(struct conn, req_len) == CONN_REQ_LEN, "layout");
STATIC_ASSERT(offsetof(struct conn, gen) == CONN_GEN, "layout");
STATIC_ASSERT(offsetof(struct conn, state) == CONN_STATE, "layout");
STATIC_ASSERT(offsetof(struct conn, watched) == CONN_WATCHED, "layout");
STATIC_ASSERT(offsetof(struct conn, drain) == CONN_DRAIN, "layout");
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
