/* Send pipes (BEHAVIOUR 10.17): a body by reference from the snapshot leaves through a
 * pipe. vmsplice(2) puts the body's pages into the pipe straight from the arena's
 * read-only mapping, then splice(2) moves them from the pipe to the socket: the kernel
 * hands the socket the same pages sendfile would, but takes them from the page tables
 * (one walk for many pages) where sendfile from the memfd looks up and locks every 4 KiB
 * folio of the shmem file on its own (shmem_file_splice_read), which cost more than the
 * copy below 4 MiB on a host whose shmem huge pages are off
 * (benchmarks/reports/2026-12-06-send-pipes.md).
 *
 * No SPLICE_F_GIFT: the pages stay the snapshot's. They cannot change under the socket,
 * because the arena's memfd is sealed against writing (F_SEAL_WRITE, file_arenas.c) and
 * mapped read-only; the pipe and the socket's buffers hold references to the pages, so
 * an arena released by a reload (or the process's end) leaves them to the kernel until
 * they are sent.
 *
 * The pool is made once per serving process, before the sandbox (send_pipes_open), and
 * never grows: SEND_PIPES pipes, each asked to hold SEND_PIPE_BYTES. A connection takes
 * one when a send of its body starts and gives it back as soon as the pipe is empty
 * again, so a pipe is held only while bytes sit in it (the socket was full). With every
 * pipe held, the send goes by sendfile from the memfd (counted in send_pipe_misses). A
 * pipe given back with bytes in it (its connection ended first: reset, deadline, stop)
 * still holds references to pages another response would never send: it is closed and
 * made anew (send_pipes_recreated; send_pipes_lost when that fails). The state lives in
 * the caller's struct send_pipes (conn.c's conns): this unit has none of its own. */
#ifndef APOLLOD_COMMON_SEND_PIPES_H
#define APOLLOD_COMMON_SEND_PIPES_H

#include <stdint.h>

#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* Pipes per serving process: concurrent large sends that go by pipe. Beyond them a send
 * goes by sendfile (as before the pipes), so the number bounds the descriptors (two a
 * pipe) and the kernel's pipe memory, not what can be served. */
#define SEND_PIPES 16
/* With a small descriptor limit the pipes take a share of it, not the table: one pipe
 * (two descriptors) per this many descriptors of RLIMIT_NOFILE, at least one pipe. The
 * default budget (DESCRIPTOR_BUDGET, 8,192) gives all 16. */
#define SEND_PIPE_DESCRIPTOR_SHARE 256u
/* A pipe's capacity asked with F_SETPIPE_SZ: /proc/sys/fs/pipe-max-size's default, so an
 * unprivileged process gets it too; 256 pages, the socket takes up to this per splice.
 * When the kernel refuses (the user's pipe pages beyond pipe-user-pages-soft), the pipe
 * keeps its default 64 KiB: slower, never wrong (vmsplice fills what fits). */
#define SEND_PIPE_BYTES (1u << 20)
/* No pipe: a body_ref's pipe when it holds none; send_pipe_take with every pipe held. */
#define SEND_PIPE_NONE (-1)
/* A pipe's size when F_SETPIPE_SZ is refused: the kernel's default (16 pages). */
#define SEND_PIPE_DEFAULT_BYTES (16u * 4096u)
STATIC_ASSERT(SEND_PIPES <= 127, "a pipe's number fits a body_ref's int8_t");

struct send_pipe {
	int32_t out;   /* the read end: spliced to the socket; -1: lost */
	int32_t in;    /* the write end: vmspliced into */
	uint32_t held; /* body bytes in the pipe, not yet spliced to the socket */
	uint32_t capacity; /* its size (F_SETPIPE_SZ's answer, or the kernel's default): at
			    * held == capacity a vmsplice could only say EAGAIN */
};

struct send_pipes {
	struct send_pipe pipe[SEND_PIPES];
	uint8_t free[SEND_PIPES]; /* a stack of the pipes nobody holds */
	uint32_t free_count;
};

/* Makes the pool: up to want (at most SEND_PIPES) non-blocking, close-on-exec pipes, each
 * grown to SEND_PIPE_BYTES where the kernel allows. Call once per serving process, before
 * the sandbox and before the connection table is sized from the open descriptors. A pipe
 * that cannot be made is left out (the pool is smaller). Returns the pipes made. */
uint32_t send_pipes_open(struct send_pipes *sp, uint32_t want);

/* Takes a free pipe (empty). Returns its number, or SEND_PIPE_NONE when every pipe is
 * held (counts send_pipe_misses). */
int send_pipe_take(struct send_pipes *sp);

/* Gives pipe p back. An empty pipe goes back on the stack as it is; one with bytes still
 * in it is closed and made anew first (send_pipes_recreated), or left out of the pool
 * when that fails (send_pipes_lost). */
void send_pipe_give(struct send_pipes *sp, int p);

/* Puts up to len (> 0) bytes from at (in a sealed, read-only mapping) into pipe p by
 * vmsplice, without blocking; no call when the pipe holds its capacity already (the
 * socket was full: the common case of a send resumed before the writable report).
 * Returns the bytes put (possibly fewer: the pipe filled), 0 when the pipe is full, or
 * -errno. */
long send_pipe_fill(struct send_pipes *sp, int p, const char *at, uint64_t len);

APOLLOD_EXTERN_C_END

#endif
