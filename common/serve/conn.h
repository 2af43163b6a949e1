/* One connection's life: service (answer what is buffered, send, read more), wait,
 * linger, close. The connection code owns the per-connection state (a fixed slot per
 * descriptor, with its request buffer, response queue and scratch in separate static
 * arrays) and is the only code that queues responses. Every I/O it performs goes through
 * the backend's connection interface (event_backend.h); what to answer comes from
 * answer_request (answer.h); deadlines from the deadline unit (deadline.h). The loop hands it new
 * descriptors, reports and expired deadlines, and asks whether slots were freed. */
#ifndef APOLLOD_COMMON_CONN_H
#define APOLLOD_COMMON_CONN_H

#include <stdint.h>

#include "common/base/limits.h"
#include "common/answer/answer.h"
#include "common/serve/event_backend.h"
#include "common/http/http_parse.h"
#include "common/base/static_assert.h"

#define CONN_BUFFER_SIZE HTTP_HEAD_MAX /* request bytes a slot holds: one whole head */

STATIC_ASSERT((CONN_SLOTS & (CONN_SLOTS - 1)) == 0, "slot count is a power of two");
STATIC_ASSERT(CONN_BUFFER_SIZE == 16384, "BEHAVIOUR 4: a 16 KiB request buffer per slot");
STATIC_ASSERT(CONN_QUEUE_MAX <= 1024, "writev takes at most IOV_MAX (1024) entries");

/* Makes the serving process's send pipes (send_pipes.h): once, before the sandbox and
 * before the table is sized from the open descriptors (they take two each): SEND_PIPES,
 * or one per SEND_PIPE_DESCRIPTOR_SHARE descriptors of RLIMIT_NOFILE when that is fewer
 * (at least one). Returns the pipes made; with none, every body by reference goes by
 * sendfile. */
uint32_t conn_setup_pipes(void);

/* Sets what every connection serves: find_file looks up paths no built-in route takes
 * (site_find), or is NULL without --root; pages what a path that finds no file
 * gets (copied; NULL members: the 404); and how many connections may be open at once
 * (--max-connections, 1..CONN_SLOTS). Call once, before the first conn_open. */
void conn_setup(file_lookup_fn find_file, const struct site_pages *pages,
		uint32_t max_connections);

/* Sets what named site s (1..sites_named(), sites.h) serves, as conn_setup does for the
 * default site 0 (which it sets through this): its lookup and pages, and its --redirects
 * rules, read from the current site (sites_enter(s) first). Call before the first
 * conn_open. */
void conn_setup_site(uint32_t s, file_lookup_fn find_file, const struct site_pages *pages);

/* Returns 1 when max_connections are open (the loop must make room before accepting),
 * else 0. */
int conn_table_full(void);

/* Returns how many more connections the table takes now (max_connections less those
 * open; 0 when full). */
uint32_t conn_room(void);

/* Waiting connections an eviction looks at (a one-byte MSG_PEEK each) for one whose
 * request has not come; when all hold bytes, none is evicted. */
#define CONN_EVICT_LOOKS_MAX 8

/* Makes room for a new connection: closes one that waits between requests (never one
 * inside a request or a response; a lingering one may go), the longest waiting whose
 * socket holds no request yet, among the CONN_EVICT_LOOKS_MAX longest waiting, counting
 * connections_evicted. Returns the slot (descriptor) closed, or DEADLINE_NONE if none
 * qualifies (none waits, or every one looked at holds bytes). */
int conn_evict_one(void);

/* --admin-listen (BEHAVIOUR 6.5): fd is the admin listener. From now on a connection
 * accepted on it answers /health and /metrics only, and every other connection
 * everything else. Call before serving (getsockname, once). */
void conn_admin_listener(int fd);

/* The table is full and nothing can be evicted (BEHAVIOUR 4): answers fd, just accepted
 * and non-blocking, with the static 503 (Retry-After, Connection: close) in one write that
 * never waits, whatever it took, and closes it; counts connections_refused. */
void conn_refuse(int fd);

/* Takes the descriptor accept4 just returned and serves it at once: on loopback the
 * request has usually arrived with the handshake. A descriptor >= CONN_SLOTS that cannot
 * be moved below the table is refused (conn_refuse). */
void conn_open(int fd);

/* Takes in a report for a connection token and drives that connection as far as it can
 * go. Reports for a closed slot, or for an older connection on a reused descriptor
 * (another generation in the token), are dropped. */
void conn_event(uint64_t token, const backend_event *e);

/* fd's deadline has passed: inside a head, answers 408 and closes; otherwise closes
 * without a reply. Counts the timeout by kind (head, idle, send) unless fd was only
 * lingering (BEHAVIOUR 5). */
void conn_expire(int fd);

/* The daemon is stopping (BEHAVIOUR 11): closes every connection that has no response in
 * flight, and from now on answers with Connection: close and closes each connection once
 * its queue is sent. */
void conn_stop(void);

/* The daemon drains after a reload (BEHAVIOUR 17): as conn_stop, but a connection
 * between requests is not closed, since its client may be sending the next one: that
 * request is answered with Connection: close. conn_stop ends this mode (the drain is
 * over, or a real stop came). */
void conn_retire(void);

/* Open connections (lingering ones included). */
int conn_open_count(void);

/* Returns 1 if a connection closed since the last call, else 0, and forgets it: the loop
 * asks after each batch whether a parked listener can be watched again. */
int conn_slots_freed(void);

#endif /* APOLLOD_COMMON_CONN_H */
