/* The two walks of --root DIR: the first counts, the second loads (site_load). */
#include "common/answer/site_snapshot.h"

#include <linux/fcntl.h>             /* AT_EMPTY_PATH, AT_SYMLINK_NOFOLLOW, AT_FDCWD */
#include <linux/stat.h>              /* struct statx, STATX_*, S_IFMT */

#include "common/base/clock.h"
#include "common/base/span.h"
#include "common/base/sys.h"

#define STATX_WANTED (STATX_TYPE | STATX_SIZE | STATX_MTIME | STATX_CTIME | STATX_INO)
#define NS_PER_S 1000000000ull
/* loaded_file.size when the file is left out, or read while it changed (site_settle) */
#define FILE_SKIPPED UINT64_MAX
#define FILE_UNSETTLED (UINT64_MAX - 1) /* read while it changed: site_settle */
/* What allocate_ahead asks of fallocate at least: few calls (25 for 800 MB), and at most
 * this much allocated past the last body until the memfd is cut to its bytes. */
#define FILL_ALLOCATE_STEP (32ull << 20)
STATIC_ASSERT(FILL_ALLOCATE_STEP % FILE_BODY_ALIGN == 0, "whole pages");

/* Allocates the body memfd's pages from body_allocated up to `end` by fallocate(2), at
 * least FILL_ALLOCATE_STEP at a time and never past the arena's span, before sendfile
 * writes there: one call allocates a step's 4 KiB pages in a batch, where sendfile
 * would allocate them one by one inside each write, under the memfd's lock (about a
 * tenth of the fill's CPU: benchmarks/reports/2026-12-06-loader.md). What the last step
 * allocated past the last body is freed when the memfd is cut to its bytes
 * (seal_body_arena). Only a saving: after a failure (a kernel without it, a memory
 * limit) no more is asked and sendfile allocates as before. */
static void allocate_ahead(uint64_t end)
{
	uint64_t from = cache.body_allocated, span = site_arena_span();
	if (from == FILE_FILL_NO_ALLOCATE || end <= from || from >= span)
		return;
	uint64_t len = end - from < FILL_ALLOCATE_STEP ? FILL_ALLOCATE_STEP : end - from;
	if (len > span - from)
		len = span - from;
	long r = sys_fallocate(cache.body_fd, 0, from, len);
	cache.body_allocated = sys_is_error(r) ? FILE_FILL_NO_ALLOCATE : from + len;
}

/* Copies up to size bytes of fd, from its start, into the body arena's memfd at offset
 * `at` by sendfile(2): the kernel copies from the file's page cache into the memfd's
 * pages, with none of the page faults a read(2) into the fill's mapping takes, one per
 * 4 KiB page (benchmarks/reports/2026-12-06-loader.md). The memfd's offset is moved
 * first only when it is not already at `at`: consecutive bodies need no lseek. fd's own
 * offset is left at 0. Returns the bytes copied (fewer when the file shrank since it was
 * stat'ed: end of file; never more than size when it grew), or the first -errno, after
 * which body_fd_at is FILE_FILL_OFFSET_UNKNOWN. */
static long send_body(int fd, uint64_t at, uint64_t size)
{
	allocate_ahead(at + size);
	long r = 0;
	if (cache.body_fd_at != at)
		r = sys_lseek(cache.body_fd, (int64_t)at, K_SEEK_SET);
	int64_t from = 0;
	uint64_t got = 0;
	cache.body_fd_at = sys_is_error(r) ? FILE_FILL_OFFSET_UNKNOWN : at;
	while (!sys_is_error(r) && got < size) {
		r = sys_sendfile(cache.body_fd, fd, &from, size - got);
		if (r == -EINTR) {
			r = 0;
			continue;
		}
		if (r == 0)
			break;
		if (!sys_is_error(r))
			got += (uint64_t)r;
	}
	if (sys_is_error(r)) {
		cache.body_fd_at = FILE_FILL_OFFSET_UNKNOWN;
		return r;
	}
	cache.body_fd_at = at + got;
	return (long)got;
}

/* Closes the loaded files' descriptors close_later kept (none: nothing): each run of
 * consecutive numbers among them by one close_range(2), or by one close each where that
 * fails (ENOSYS before Linux 5.9: close_range then closes none). Every number in a run
 * is one of them, so no other descriptor is closed. */
static void close_pending(void)
{
	uint32_t n = cache.close_count;
	cache.close_count = 0;
	for (uint32_t i = 0, j; i < n; i = j) {
		int first = cache.close_fds[i];
		for (j = i + 1; j < n && cache.close_fds[j] == first + (int)(j - i);)
			j++;
		int last = first + (int)(j - i) - 1;
		if (last == first || sys_is_error(sys_close_range((unsigned)first,
								  (unsigned)last, 0)))
			for (int fd = first; fd <= last; fd++)
				sys_close(fd);
	}
}

/* Closes fd, a loaded file's descriptor, later: with the ones opened around it,
 * SITE_CLOSE_BATCH at a time, by close_range (close_pending), where a close each was a
 * fifth of the loader's syscalls (benchmarks/reports/2026-12-06-loader.md). openat
 * gives the lowest free number, so the batch's numbers come mostly consecutive. */
static void close_later(int fd)
{
	cache.close_fds[cache.close_count++] = fd;
	if (cache.close_count == SITE_CLOSE_BATCH)
		close_pending();
}

/* openat(dirfd, name, flags) for the loading walk: when it fails for want of a
 * descriptor (EMFILE) while close_later keeps some, closes them and asks again.
 * Returns the descriptor or -errno. */
static long open_entry(int dirfd, const char *name, int flags)
{
	long fd = sys_openat(dirfd, name, flags);
	if (fd == -EMFILE && cache.close_count) {
		close_pending();
		fd = sys_openat(dirfd, name, flags);
	}
	return fd;
}

/* Whether fd, open from a name whose statx said a regular file, still is one (a FIFO or
 * a directory may have been renamed over the name between the statx and the open).
 * Asked only when a copy failed or came up short, so a file read whole costs no second
 * statx. */
static int is_regular(int fd)
{
	struct statx st;
	return !sys_is_error(sys_statx(fd, "", AT_EMPTY_PATH, STATX_TYPE, &st)) &&
	       (st.stx_mode & S_IFMT) == S_IFREG;
}

/* Copies up to size bytes of fd into the body arena after what it holds (aligned:
 * site_body_start): by sendfile into the memfd (send_body) unless the memfd may
 * have huge pages (site_open_body_arena) or a sendfile failed earlier in this
 * load; then, and for this file after any sendfile failure (EINVAL from a file system
 * without splice, a seccomp refusal: docs/AUDIT.md), by read(2) into the mapping, which
 * sees the same pages. Only a read that works after a sendfile failed turns sendfile off
 * for the rest of the load: when both fail, the file is at fault (a directory or a FIFO
 * renamed over it since its statx: is_regular), not sendfile. Returns the bytes copied (fewer when
 * the file shrank since it was stat'ed), or a negative errno. */
static long copy_body(int fd, uint64_t size)
{
	char *to = site_body_start(size);
	if (!cache.fill_by_sendfile || !size)
		return sys_read_full(fd, to, size);
	long got = send_body(fd, (uint64_t)(to - cache.body_arena), size);
	if (!sys_is_error(got) || !is_regular(fd))
		return got;
	got = sys_read_full(fd, to, size);
	if (!sys_is_error(got))
		cache.fill_by_sendfile = 0; /* for the rest of this load */
	return got;
}

/* Returns EXIT_OK when the second walk has room for one more entry of a len-byte name;
 * else the tree grew since it was counted: EXIT_ROOT_READ (reported). */
static enum exit_code check_room(size_t len)
{
	if (cache.entry_count < cache.entries_max && len <= cache.names_max - cache.names_used)
		return EXIT_OK;
	return site_fail(EXIT_ROOT_READ, "the tree changed while loading", 0);
}

/* An mtime's second as Last-Modified serves it: never before 1970 and never after the
 * load began (RFC 9110 8.8.2.1: an origin server must not send a Last-Modified later
 * than its Date). */
static uint64_t served_second(int64_t s)
{
	return s < 0 ? 0 : (uint64_t)s > cache.load_second ? cache.load_second : (uint64_t)s;
}

/* The file's times as served, from its stamp: Last-Modified is served_second of its
 * mtime; the ETag takes the stamp's mtime as it is, to the ns (site_index_entries). */
static void note_times(const struct file_stamp *s, struct loaded_file *out)
{
	out->mtime = served_second(s->mtime_s);
	out->stamp = *s;
}

/* The stamp of the file st describes. */
static struct file_stamp stamp_of(const struct statx *st)
{
	return (struct file_stamp){st->stx_ino, st->stx_mtime.tv_sec, st->stx_ctime.tv_sec,
				   st->stx_mtime.tv_nsec, st->stx_ctime.tv_nsec,
				   st->stx_dev_major, st->stx_dev_minor};
}

/* Takes the previous image's bytes of the file, its record old, for *out. */
static void use_record(const struct file_manifest_record *old, struct loaded_file *out)
{
	out->place = FILE_IN_MEMORY;
	out->arena = old->arena;
	out->body = cache.arenas[old->arena].base + old->offset;
	out->size = old->size;
}

/* CLOCK_REALTIME in ns (the clock file times are taken from). */
static uint64_t realtime_ns(void)
{
	struct k_timespec t = {0, 0};
	sys_clock_gettime(K_CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * NS_PER_S + (uint64_t)t.tv_nsec;
}

/* Whether the file just read from fd, stat'ed (by name) as *before the open, is settled
 * (site_settle): always without it; else it is the same file (device and inode: not
 * one renamed in between), its size, mtime and ctime are as before and its mtime is
 * quiet_ns old.
 * Sets out->settle_ns: when its mtime will be. */
static int settled(int fd, const struct statx *before, struct loaded_file *out)
{
	if (!cache.quiet_ns)
		return 1;
	struct statx now;
	if (sys_is_error(sys_statx(fd, "", AT_EMPTY_PATH, STATX_WANTED, &now)))
		return 0;
	struct file_stamp a = stamp_of(before), b = stamp_of(&now);
	out->settle_ns = (uint64_t)b.mtime_s * NS_PER_S + b.mtime_ns + cache.quiet_ns;
	return now.stx_size == before->stx_size && file_stamp_same(&a, &b) &&
	       (out->settle_ns <= cache.load_ns || out->settle_ns <= realtime_ns());
}

/* Copies the file open as fd, stat'ed as *st, into the body arena for *out, and closes
 * fd (close_later). Returns EXIT_OK with out->size the bytes copied, FILE_UNSETTLED (site_settle:
 * the bytes are left where the next file's go) or FILE_SKIPPED: silently when a copy
 * that failed or came up short finds fd no longer a regular file (is_regular), else
 * after a read error (site_skip). */
static enum exit_code read_body(long fd, const struct statx *st, struct loaded_file *out)
{
	long got = copy_body((int)fd, st->stx_size);
	if ((sys_is_error(got) || (uint64_t)got < st->stx_size) && !is_regular((int)fd)) {
		close_later((int)fd); /* replaced since its statx: skipped as when listed */
		return EXIT_OK;
	}
	int stable = !sys_is_error(got) && settled((int)fd, st, out);
	close_later((int)fd);
	if (sys_is_error(got))
		return site_skip("cannot read", got);
	out->size = stable ? (uint64_t)got : FILE_UNSETTLED;
	if (stable) {
		out->arena = cache.new_arena;
		out->body = got ? cache.body_arena + cache.body_fill : 0;
		cache.body_fill += (uint64_t)got;
	}
	return EXIT_OK;
}

/* Stat's the regular file `name` of directory dirfd (path[0..len) relative to the root)
 * by name, without following a symbolic link, and checks the limits. When it fits what
 * is left of the budget and the previous image has no unchanged copy of it, opens it
 * and copies it into the body arena: the snapshot, which no later change to the file can
 * reach. Otherwise it is never opened: a file beyond the budget is marked FILE_ON_DISK
 * with the size and times of the statx (an unreadable one is found per request: 404,
 * BEHAVIOUR 10.3), an unchanged one takes the previous image's bytes. One syscall for
 * those where an open, a statx of it and a close were three
 * (benchmarks/reports/2026-12-06-loader.md). Returns EXIT_OK with *out filled, EXIT_OK
 * with out->size == FILE_SKIPPED when the entry is no longer a regular file or cannot
 * be stat'ed, opened or read (site_skip), or the start-up error (reported). */
static enum exit_code copy_file(int dirfd, const char *name, size_t len,
				struct loaded_file *out)
{
	out->size = FILE_SKIPPED;
	out->body = 0;
	struct statx st;
	long r = sys_statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_WANTED, &st);
	if (sys_is_error(r))
		return site_skip("cannot stat", r);
	if ((st.stx_mode & S_IFMT) != S_IFREG) /* replaced since it was listed: skip */
		return EXIT_OK;
	if (check_room(len) != EXIT_OK)
		return EXIT_ROOT_READ;
	struct file_stamp stamp = stamp_of(&st);
	note_times(&stamp, out);
	if (st.stx_size > cache.budget - cache.bytes_total) { /* beyond the budget: metadata */
		out->place = FILE_ON_DISK;
		out->size = st.stx_size;
		return EXIT_OK;
	}
	out->place = FILE_IN_MEMORY;
	const struct file_manifest_record *old = site_reusable(len, &out->stamp, st.stx_size);
	if (old) { /* unchanged since the previous image read it: its bytes, no copy */
		use_record(old, out);
		return EXIT_OK;
	}
	long fd = open_entry(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (sys_is_error(fd))
		return site_skip("cannot open", fd);
	return read_body(fd, &st, out);
}

/* The first walk: counts the entry path[0..len). Returns EXIT_OK or EXIT_ROOT_LIMIT
 * (reported) past --max-files. */
static enum exit_code count_entry(size_t len)
{
	if (cache.entry_count == cache.max_entries)
		return site_fail(EXIT_ROOT_LIMIT,
					       "more files and directories than --max-files", 0);
	cache.entry_count++;
	cache.names_used += len;
	return EXIT_OK;
}

/* The served second of directory fd's mtime, asked only with --listing (its rows and
 * pages show it); 0 without, or when statx fails (the listing then shows 1970). */
static uint64_t directory_mtime(int fd)
{
	struct statx st;
	if (!(cache.load_flags & SITE_LISTING) ||
	    sys_is_error(sys_statx(fd, "", AT_EMPTY_PATH, STATX_MTIME, &st)))
		return 0;
	return served_second(st.stx_mtime.tv_sec);
}

/* Records the directory path[0..len) (not the root), open as fd, or counts it in the
 * first walk. Returns EXIT_OK or the start-up error (reported). */
static enum exit_code add_directory(size_t len, int fd)
{
	if (cache.counting) {
		cache.directories++;
		return count_entry(len);
	}
	enum exit_code r = check_room(len);
	if (r == EXIT_OK)
		site_add_entry(len, CACHED_DIRECTORY)->mtime = directory_mtime(fd);
	return r;
}

/* Waits for a file read unsettled until settle_ns (CLOCK_REALTIME), or a quiet period
 * when that has passed, if what is left of the load's waiting allows. Returns 1 when it
 * waited, 0 when it did not: the file stays unsettled. */
static int settle_wait(uint64_t settle_ns)
{
	uint64_t now = realtime_ns();
	uint64_t wait = settle_ns > now ? settle_ns - now : cache.quiet_ns;
	if (wait > cache.settle_left_ns)
		return 0;
	cache.settle_left_ns -= wait;
	struct k_timespec t = {(int64_t)(wait / NS_PER_S), (int64_t)(wait % NS_PER_S)};
	sys_ppoll(0, 0, &t); /* a sleep: no descriptor, only the timeout */
	return 1;
}

/* A file that did not settle (site_settle): the bytes and validators the previous
 * image had of it, or, with none, left out (out->size FILE_SKIPPED). Counted. */
static void keep_previous(size_t len, struct loaded_file *out)
{
	cache.unsettled++;
	const struct file_manifest_record *old = site_reusable(len, 0, 0);
	out->size = FILE_SKIPPED;
	if (!old)
		return;
	note_times(&old->stamp, out);
	use_record(old, out);
}

/* Adds the regular file `name` of directory dirfd, whose relative path is path[0..len),
 * read again while it is unsettled (settle_wait). Returns EXIT_OK or the start-up error
 * (reported). */
static enum exit_code load_file(int dirfd, const char *name, size_t len)
{
	if (cache.counting) {
		enum file_encoding e = site_suffix_encoding(cache.path, len);
		cache.variants_max += e != FILE_ENCODING_IDENTITY ||
				      site_may_compress(cache.path, len);
		return count_entry(len);
	}
	/* Zeroed: GCC cannot see that copy_file fills it whenever it returns EXIT_OK, once
	 * walk_entry is inlined into walk (-Wmaybe-uninitialized). */
	struct loaded_file l = {0};
	enum exit_code r;
	do
		r = copy_file(dirfd, name, len, &l);
	while (r == EXIT_OK && l.size == FILE_UNSETTLED && settle_wait(l.settle_ns));
	if (r == EXIT_OK && l.size == FILE_UNSETTLED)
		keep_previous(len, &l);
	if (r == EXIT_OK && l.size != FILE_SKIPPED)
		site_add_file(len, &l);
	return r;
}

static enum exit_code walk(int dirfd, int depth, size_t len);

void site_on_directory(site_directory_fn hook)
{
	cache.on_directory = hook;
}

/* Walks directory dirfd (as walk), after the hook has seen it in the first walk. */
static enum exit_code walk_directory(int dirfd, int depth, size_t len)
{
	enum exit_code r = EXIT_OK;
	if (cache.counting && cache.on_directory)
		r = cache.on_directory(dirfd, cache.path);
	return r == EXIT_OK ? walk(dirfd, depth, len) : r;
}

/* The type of directory entry d (named `name` in dirfd): K_DT_DIR, K_DT_REG or another
 * value for anything never served. Some file systems leave d_type unknown: then it asks
 * statx, without following a symbolic link; an entry it cannot stat is skipped
 * (site_skip) as one never served. Returns EXIT_OK. */
static enum exit_code entry_type(int dirfd, const struct k_dirent64 *d, unsigned *type)
{
	*type = d->d_type;
	if (*type != K_DT_UNKNOWN)
		return EXIT_OK;
	struct statx st;
	long r = sys_statx(dirfd, d->d_name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st);
	if (sys_is_error(r))
		return site_skip("cannot stat", r);
	*type = (st.stx_mode & S_IFMT) == S_IFDIR   ? K_DT_DIR
		: (st.stx_mode & S_IFMT) == S_IFREG ? K_DT_REG
						    : K_DT_UNKNOWN;
	return EXIT_OK;
}

/* Loads one entry d of directory dirfd (`depth` levels below the root, relative path
 * path[0..len)): a subdirectory is walked, a regular file loaded, anything else (symbolic
 * links, devices, FIFOs, sockets) never followed or served. Leaves path[0..len) as it
 * found it. Returns EXIT_OK or the start-up error (reported). */
static enum exit_code walk_entry(int dirfd, int depth, size_t len, const struct k_dirent64 *d)
{
	const char *name = d->d_name;
	size_t name_len = cstr_len(name);
	int well_known = len == 0 && name_len == sizeof(WELL_KNOWN_NAME) - 1 &&
			 span_eq(name, LITERAL(WELL_KNOWN_NAME));
	int dotfiles = (cache.load_flags & SITE_DOTFILES) != 0;
	if (name[0] == '.' && ((!dotfiles && !well_known) || name_len == 1 ||
				(name_len == 2 && name[1] == '.')))
		return EXIT_OK; /* ".", "..", and dotfiles unless --dotfiles */
	size_t sub_len = len + (len ? 1 : 0) + name_len;
	if (sub_len > SITE_PATH_MAX) /* never in DIR itself: a name has 255 bytes */
		return site_skip("a path longer than 255 bytes, in", 0);
	char *p = cache.path + len;
	if (len)
		*p++ = '/';
	copy_span(p, name, name_len)[0] = '\0';

	unsigned type;
	enum exit_code r = entry_type(dirfd, d, &type);
	if (well_known && !dotfiles && type != K_DT_DIR)
		type = K_DT_UNKNOWN; /* DIR/.well-known is loaded as the directory RFC 8615 names */
	if (r == EXIT_OK && type == K_DT_DIR) { /* depth < SITE_DEPTH_MAX: sub_len */
		long sub = open_entry(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sys_is_error(sub)) {
			r = site_skip("cannot open directory", sub);
		} else {
			r = add_directory(sub_len, (int)sub);
			if (r == EXIT_OK)
				r = walk_directory((int)sub, depth + 1, sub_len);
			sys_close((int)sub);
		}
	} else if (r == EXIT_OK && type == K_DT_REG) {
		r = load_file(dirfd, name, sub_len);
	}
	cache.path[len] = '\0';
	return r;
}

/* Walks directory dirfd, `depth` levels below the root, whose relative path is
 * path[0..len): a subdirectory that cannot be listed keeps what was listed of it and
 * skips the rest. Returns EXIT_OK or the start-up error (reported; DIR itself cannot be
 * listed). */
static enum exit_code walk(int dirfd, int depth, size_t len)
{
	char *buf = cache.dirent_buffer[depth];
	for (;;) {
		long n = sys_getdents64(dirfd, buf, DIRENT_BUFFER_SIZE);
		if (n == 0)
			return EXIT_OK;
		if (sys_is_error(n))
			return depth ? site_skip("cannot list", n)
				     : site_fail(EXIT_ROOT_READ, "cannot list", n);
		for (long off = 0; off < n;) {
			const struct k_dirent64 *d = (const struct k_dirent64 *)(buf + off);
			off += d->d_reclen;
			enum exit_code r = walk_entry(dirfd, depth, len, d);
			if (r != EXIT_OK)
				return r;
		}
	}
}

/* One walk of the tree at root: the counting one or the loading one. Returns EXIT_OK or
 * the start-up error (reported). */
static enum exit_code walk_root(const char *root)
{
	cache.path[0] = '\0';
	long fd = sys_openat(AT_FDCWD, root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sys_is_error(fd))
		return site_fail(EXIT_ROOT_READ, "cannot open directory", fd);
	if (!cache.counting)
		cache.root_mtime = directory_mtime((int)fd);
	enum exit_code r = walk_directory((int)fd, 0, 0);
	close_pending();
	if (cache.counting)
		sys_close((int)fd);
	else /* disk-served files open beneath it */
		cache.root_fd = site_above_slots((int)fd);
	return r;
}

enum exit_code site_load(const char *root, unsigned flags, uint32_t max_files)
{
	cache.root_dir = root;
	cache.load_flags = flags;
	cache.load_second = clock_now_unix_s();
	cache.load_ns = realtime_ns();
	cache.max_entries = max_files;
	cache.body_fd = -1;
	cache.manifest_fd = -1;
	if (!cache.budget_set)
		cache.budget = SITE_BUDGET_DEFAULT;
	cache.counting = 1; /* first the size of the table, then the table */
	enum exit_code r = walk_root(root);
	cache.counting = 0;
	if (r == EXIT_OK)
		r = site_allocate();
	if (r == EXIT_OK)
		r = walk_root(root);
	if (r == EXIT_OK)
		site_index_entries();
	if (r == EXIT_OK)
		site_add_gzip(); /* into the body arena, before it is sealed */
	site_forget_old_manifest();
	if (r == EXIT_OK)
		r = site_seal_arenas();
	if (r == EXIT_OK)
		r = site_finish();
	return r;
}

