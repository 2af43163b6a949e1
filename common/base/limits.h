/* The daemon's fixed limits: every table is sized at compile time (there is no heap), and
 * these are the sizes more than one layer needs. One small header, so a lower layer can
 * size a per-connection array without including the connection module (serve/conn.h). */
#ifndef APOLLOD_COMMON_BASE_LIMITS_H
#define APOLLOD_COMMON_BASE_LIMITS_H

#include "common/base/static_assert.h"

/* Connection slots, indexed by descriptor: a descriptor >= CONN_SLOTS is closed on
 * accept. The deadline queue, the access log's per-peer text and the io_uring receive
 * sides all have one entry per slot. */
#define CONN_SLOTS 4096
/* The descriptors a serving process may hold, its soft RLIMIT_NOFILE (BEHAVIOUR 4;
 * daemon_main.c): each connection slot twice, for its socket and for the one file a
 * connection may be sending from disk, which leaves room for the daemon's own
 * descriptors too, since those take slots' numbers. */
#define DESCRIPTOR_BUDGET (2u * CONN_SLOTS)
/* Responses queued per slot: they leave in one writev (IOV_MAX is 1024). */
#define CONN_QUEUE_MAX 64
/* Request line + header fields + CRLFCRLF: one whole head fits one slot's buffer. 16 KiB:
 * the longest request line (an 8,000-byte target, BEHAVIOUR 6.1) plus more header bytes
 * than the whole 8 KiB head held before targets grew (BEHAVIOUR 6.8). */
#define HTTP_HEAD_MAX 16384
/* --listen addresses (and the listening sockets the loop watches). */
#define LISTENERS_MAX 8
/* --workers: serving processes under one supervisor. */
#define WORKERS_MAX 64
/* --header: extra fields given at most this often. */
#define EXTRA_FIELDS_MAX 32
/* --header-for: per-path fields given at most this often. */
#define PATH_FIELDS_MAX 32
/* --site: named sites at most, and the sites a generation holds (the default, --root,
 * is site 0). Each holds a file table and arenas of its own (site_snapshot.h), which
 * bounds it: 16 sites' arenas are 128 descriptors at most. */
#define SITES_NAMED_MAX 15
#define SITES_MAX (SITES_NAMED_MAX + 1)
#define SITES_HOST_MAX 253 /* a --site name's bytes: a DNS name's most (RFC 1035 2.3.4) */

STATIC_ASSERT((CONN_SLOTS & (CONN_SLOTS - 1)) == 0, "the slot table is a power of two");
STATIC_ASSERT(CONN_QUEUE_MAX < 1024, "a queue leaves in one writev: IOV_MAX is 1024");

#endif /* APOLLOD_COMMON_BASE_LIMITS_H */
