/* --watch (BEHAVIOUR 10.16): inotify on every directory of --root; once a burst of changes
 * has been quiet for WATCH_QUIET_MS (or WATCH_CAP_MS after its first change, for a tree
 * that never stops changing), the process starts the reload a SIGHUP starts (reload.h).
 *
 * The inotify descriptor is owned by this process with O_ASYNC and F_SETSIG: a change
 * raises WATCH_SIGNAL, which the signalfd the loop (or the supervisor) already reads
 * reports, so neither event backend changes. The wait for quiet is part of the loop's
 * timeout (loop.c) and of the supervisor's ppoll (workers.c): no thread, no busy loop.
 * A watch is added to a directory before the loader lists it (site.h's hook), so
 * a change after the listing is always an event; one during the load makes one more
 * reload once quiet. Events are not parsed: any event is a change. */
#ifndef APOLLOD_COMMON_PROCESS_WATCH_H
#define APOLLOD_COMMON_PROCESS_WATCH_H

#include <stdint.h>

#include "common/base/exit_codes.h"
#include "common/base/kernel_consts.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* SIGURG reaches a process only for a descriptor it owns; apollod owns no socket, so the
 * signal is --watch's alone. */
#define WATCH_SIGNAL K_SIGURG
#define WATCH_QUIET_MS 200  /* a burst ends after this long without a change */
#define WATCH_CAP_MS 2000   /* ... or this long after its first change, whatever follows */
/* Directories watched at most. The kernel charges each watch to the user (fs.inotify.
 * max_user_watches, 8192 at least): two images of a reload hold 2 x 4096 at most. */
#define WATCH_DIRS_MAX 4096
#define WATCH_READ_SIZE 4096 /* bytes of events drained per read */
#define WATCH_READS_MAX 64   /* reads per signal: a flood ends the drain, not the burst */
STATIC_ASSERT(WATCH_READ_SIZE >= K_INOTIFY_EVENT_SIZE + K_NAME_MAX + 1,
	      "inotify(7): a read buffer shorter than one whole event fails with EINVAL");
STATIC_ASSERT(WATCH_QUIET_MS < WATCH_CAP_MS, "the cap bounds a burst longer than the quiet");

/* Opens the inotify descriptor (non-blocking, close-on-exec), owned by this process with
 * WATCH_SIGNAL. Call before site_load, with watch_directory as its hook. Returns
 * EXIT_OK, or EXIT_ROOT_READ after one stderr line naming the call and its reason. */
enum exit_code watch_open(void);

/* site_load's directory hook: watches directory dirfd, whose path relative to
 * --root is path ("" for the root itself). Returns EXIT_OK; EXIT_ROOT_LIMIT past
 * WATCH_DIRS_MAX directories, or EXIT_ROOT_READ when inotify_add_watch fails (the user's
 * fs.inotify.max_user_watches: ENOSPC); either after one stderr line. */
enum exit_code watch_directory(int dirfd, const char *path);

/* The first serving generation, forked from the supervisor after watch_open (the two
 * share the descriptor's open file): WATCH_SIGNAL goes to this process from now on.
 * Returns 0 or -errno (the watch then stays silent). Nothing without --watch. */
long watch_own(void);

/* After a load that left files unsettled (site_unsettled, BEHAVIOUR 10.16): starts
 * a burst now, as a change would, so that the tree is read again one quiet period later
 * (watch_filter). Nothing without --watch. */
void watch_recheck(void);

/* A worker of --workers N, whose generation watches, or the resident supervisor, whose
 * first generation does: closes this process's copy; from then
 * on watch_filter passes every signal through. */
void watch_close(void);

/* What the signal just read means with --watch; sig is 0 when the wait ended without
 * one. WATCH_SIGNAL drains the events (any starts or extends the burst) and gives 0.
 * Once the burst is due, the burst ends and K_SIGHUP is returned: the caller takes the
 * SIGHUP path. Otherwise sig. Without --watch: sig. */
long watch_filter(long sig);

/* Milliseconds until the pending burst is due (0: now), or -1 when none is pending. */
int watch_wait_ms(void);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_PROCESS_WATCH_H */
