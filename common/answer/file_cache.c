/* The warm file cache (see file_cache.h). Start-up only, except file_cache_find. */
#include "common/answer/file_cache.h"

#include <linux/mman.h>              /* PROT_*, MAP_PRIVATE, MAP_SHARED, MAP_FIXED, ... */
#include <linux/fcntl.h>             /* AT_EMPTY_PATH, AT_SYMLINK_NOFOLLOW, AT_FDCWD */
#include <linux/stat.h>              /* struct statx, STATX_*, S_IFMT */

#include "common/base/clock.h"
#include "common/base/console.h"
#include "common/base/errno_text.h"
#include "common/base/limits.h"
#include "common/answer/file_manifest.h"
#include "common/answer/listing.h"
#include "common/answer/mime_types.h"
#include "common/answer/responses.h"
#include "common/base/span.h"
#include "common/base/sys.h"

STATIC_ASSERT(FILE_HEAD_200_MAX(CONTENT_TYPE_MAX) <= FILE_CACHE_HEAD_MAX,
	      "every rendered 200 head fits FILE_CACHE_HEAD_MAX");
STATIC_ASSERT(FILE_HEAD_STORED_MAX <= UINT16_MAX, "head lengths and offsets fit 16 bits");
STATIC_ASSERT(HEAD_200_MAX(CONTENT_TYPE_MAX) + sizeof(HEAD_404_PREFIX) - sizeof(HEAD_200_PREFIX) <=
		      FILE_CACHE_HEAD_MAX,
	      "the --error-page 404 head (no validators) fits FILE_CACHE_HEAD_MAX");
STATIC_ASSERT(CONTENT_TYPE_MAX <= UINT8_MAX && ETAG_MAX <= UINT8_MAX, "type_len, etag_len");
/* What one file (or representation) takes of the head arena: its validators and its 200
 * head in FILE_HEAD_FORM (the other form and a 304 are made per request, conn.c), without
 * its --header-for fields (path_fields_max() more at most). */
#define HEAD_ARENA_PER_FILE (FILE_VALIDATORS_MAX + FILE_CACHE_HEAD_MAX)
#define HEAD_ARENA_PAGES 1 /* heads after the files': the --error-page 404's */
/* The one name of DIR that starts with '.' and is loaded without --dotfiles (RFC 8615). */
#define WELL_KNOWN_NAME ".well-known"

#define DIRENT_BUFFER_SIZE 4096 /* one getdents64 batch per directory level */
#define STATX_WANTED (STATX_TYPE | STATX_SIZE | STATX_MTIME | STATX_CTIME | STATX_INO)
#define NS_PER_S 1000000000ull
/* Anonymous memory, touched (and so paid for) only as far as it is filled. */
#define ARENA_PROT (PROT_READ | PROT_WRITE)
#define ARENA_FLAGS (MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)
/* The body arena while it is filled: a memfd of --cache-bytes (tmpfs allocates only
 * the pages written), mapped shared and writable; then cut to its bytes, sealed and
 * mapped read-only in place (seal_body_arena). */
#define BODY_ARENA_NAME "apollod-snapshot"
#define BODY_FILL_FLAGS (MAP_SHARED | MAP_NORESERVE)
#define BODY_SEALS (K_F_SEAL_WRITE | K_F_SEAL_SHRINK | K_F_SEAL_GROW | K_F_SEAL_SEAL)
/* The manifest a reload hands on with the arenas (file_manifest.h), sealed the same way;
 * not named like the arenas (tests count those by name). */
#define MANIFEST_NAME "apollod-manifest"
/* Arenas a load may keep: the reload hand-over's descriptors less the manifest's. One
 * more may exist while a load settles (the arena being filled), never once it is sealed
 * (settle_arenas). */
#define ARENAS_KEPT FILE_MANIFEST_ARENAS_MAX
STATIC_ASSERT(ARENAS_KEPT + 1 <= FILE_ARENAS_MAX, "the kept arenas and the new one fit");
STATIC_ASSERT(FILE_CACHE_PATH_MAX == FILE_MANIFEST_NAME_MAX, "a manifest holds every name");
STATIC_ASSERT(FILE_CACHE_HANDOVER_MAX == ARENAS_KEPT + 1, "the arenas and the manifest");
STATIC_ASSERT(sizeof(struct cached_file) == FILE_CACHE_ENTRY_SIZE, "entry layout");

/* One sealed arena: a memfd (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)
 * holding bodies back to back, and its read-only shared mapping. */
struct file_arena {
	const char *base; /* the mapping: a body at base + k is the memfd's byte k */
	uint64_t size;    /* the memfd's bytes */
	int32_t fd;       /* the memfd, close-on-exec */
	uint32_t reserved;
};

/* What a file was when its bytes were read: what a reload compares (file_manifest.h). */
struct file_stamp {
	uint64_t inode;
	int64_t mtime_s;
	int64_t ctime_s;
	uint32_t mtime_ns;
	uint32_t ctime_ns;
	uint32_t dev_major;
	uint32_t dev_minor;
};

/* The cache: the table file_cache_find reads, and what the two walks that fill it keep
 * (the first counts, the second loads; file_cache_load). */
struct file_cache_state {
	/* Sized by the first walk, in anonymous memory; what file_cache_find reads: */
	struct cached_file *files; /* entries_max + variants_max entries */
	uint32_t *index_slot;      /* index_size slots: entry number + 1; 0 is empty */
	uint32_t index_size;       /* a power of two, at least 2 * entries_max: load <= 1/2 */
	uint32_t entry_count;      /* files and directories in files[] (the first walk: seen) */
	char *name_arena;          /* names_max bytes: every relative path, unterminated */
	char *head_arena;          /* every file's and representation's validators and heads
				    * (HEAD_ARENA_PER_FILE at most each), packed */
	char *body_arena;          /* budget bytes reserved: the bodies read by this load,
				    * packed, in the memfd body_fd (arenas[new_arena] once
				    * sealed) */
	uint64_t body_fill;        /* the bytes in it */
	int body_fd;               /* the memfd being filled; -1 when none */
	uint8_t new_arena;         /* the arena the body arena becomes: after the reused ones */
	int manifest_fd;           /* this load's manifest for the next image; -1 when none */
	struct file_stamp *stamps; /* entries_max: files[i]'s stamp at stamps[i] */
	/* A reload's reuse (file_cache_reuse): the previous image's manifest, checked: */
	const void *old_manifest;  /* its read-only mapping; NULL when none */
	uint64_t old_manifest_bytes;
	uint32_t *old_slot;        /* old_slots slots: record number + 1; 0 is empty */
	uint32_t old_slots;        /* a power of two, at least twice the records */
	uint64_t arena_live[FILE_ARENAS_MAX]; /* bytes of each arena that files use */
	uint64_t budget;           /* --cache-bytes: the body arena's bytes */
	int budget_set;            /* file_cache_set_budget was called */
	int root_fd;               /* DIR, open from the loading walk on (file_cache_root_fd) */
	/* What the first walk counted: */
	uint32_t entries_max;      /* entries */
	uint32_t variants_max;     /* files whose name ends in .br or .gz */
	uint32_t directories;      /* directories among the entries, the root not included */
	uint64_t names_max;        /* name bytes */
	/* --listing (BEHAVIOUR 10.14): the pages, made after the loading walk */
	uint32_t listings_max;     /* directories + 1 (the root) with --listing, else 0 */
	uint32_t listing_count;    /* pages at files[entries_max + variants_max ...] */
	char *listing_arena;       /* each page's name ("dir/", "" for the root), then its
				    * bytes; listing_arena_max reserved */
	uint64_t listing_arena_max;
	uint64_t listing_used;
	uint64_t root_mtime;       /* DIR's own mtime (as Last-Modified serves it) */
	/* Filled by the second walk (the first one counts with entry_count, names_used): */
	uint64_t names_used;
	uint32_t file_count;       /* regular files among the entries, in memory */
	uint32_t disk_count;       /* regular files among the entries, left on disk */
	uint32_t variant_count;    /* representations at files[entries_max ...] */
	uint64_t bytes_total;      /* body bytes in the snapshot, copied or reused (the budget) */
	uint64_t heads_used;
	/* The load: */
	int counting;              /* the first walk: count entries, open no file */
	uint32_t max_entries;      /* --max-files */
	unsigned load_flags;       /* FILE_CACHE_* */
	const char *root_dir;      /* --root */
	file_cache_directory_fn on_directory; /* --watch's hook, or NULL */
	uint64_t load_second;      /* the wall clock when the load began */
	char path[FILE_CACHE_PATH_MAX + 1]; /* the walk's current relative path */
	char dirent_buffer[FILE_CACHE_DEPTH_MAX + 1][DIRENT_BUFFER_SIZE]; /* one per level */
	struct cached_file not_found_page; /* --error-page 404: its file, its 404 head */
	struct file_arena arenas[FILE_ARENAS_MAX]; /* cached_file.arena indexes it */
};
static struct file_cache_state cache;


/* What copy_file learnt of one file. */
struct loaded_file {
	const char *body;   /* in the body arena or a reused one; NULL when empty or on disk */
	uint8_t place;      /* enum file_place */
	uint8_t arena;      /* the arena body is in */
	struct file_stamp stamp;
	uint64_t size;      /* bytes copied, or FILE_SKIPPED */
	uint64_t mtime;     /* Last-Modified: the mtime's second, within [0, load_second] */
	uint64_t mtime_ns;  /* the mtime in nanoseconds, as the ETag names it */
	uint64_t inode;
};

/* Writes "apollod: --root DIR: <what>[: <relative path>][: <reason>]\n" to stderr, the
 * reason being err's text (none when err is 0: a limit). Returns code. */
static enum exit_code fail_because(enum exit_code code, const char *what, long err)
{
	char reason[ERRNO_TEXT_MAX];
	write_stderr(LITERAL("apollod: --root "));
	write_stderr(cache.root_dir, cstr_len(cache.root_dir));
	write_stderr(LITERAL(": "));
	write_stderr(what, cstr_len(what));
	if (cache.path[0]) {
		write_stderr(LITERAL(": "));
		write_stderr(cache.path, cstr_len(cache.path));
	}
	if (err) {
		write_stderr(LITERAL(": "));
		write_stderr(reason, errno_text(err, reason));
	}
	write_stderr(LITERAL("\n"));
	return code;
}

/* Writes "apollod: --root DIR: <what>[: <relative path>]\n" to stderr; returns code. */
static enum exit_code fail(enum exit_code code, const char *what)
{
	return fail_because(code, what, 0);
}

/* Closes the file being loaded, then reports like fail_because(). */
static enum exit_code close_and_fail(long fd, enum exit_code code, const char *what, long err)
{
	sys_close((int)fd);
	return fail_because(code, what, err);
}

/* FNV-1a over the name: cheap, and good enough for short path keys. */
static uint32_t name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

const struct cached_file *file_cache_find(const char *name, size_t len)
{
	if (cache.entry_count == 0)
		return 0;
	for (uint32_t i = name_hash(name, len);; i++) {
		uint32_t slot = cache.index_slot[i & (cache.index_size - 1)];
		if (slot == 0)
			return 0;
		const struct cached_file *f = &cache.files[slot - 1];
		if (f->name_len == len && span_eq(f->name, name, len))
			return f;
	}
}

int64_t file_body_offset(const struct cached_file *f, uint64_t at, int *fd)
{
	if (f->arena == FILE_ARENA_NONE)
		return -1;
	const struct file_arena *a = &cache.arenas[f->arena];
	*fd = a->fd;
	return (int64_t)(f->body - a->base) + (int64_t)at;
}

void file_cache_release(void)
{
	for (uint32_t i = 0; i < FILE_ARENAS_MAX; i++) {
		struct file_arena *a = &cache.arenas[i];
		if (!a->base)
			continue;
		sys_munmap((void *)a->base, a->size);
		if (cache.manifest_fd < 0) /* else registered: reload_release_hand_over closes it */
			sys_close(a->fd); /* the generation holds its own */
		*a = (struct file_arena){0, 0, -1, 0};
	}
}

uint32_t file_cache_count(void)
{
	return cache.file_count;
}

uint64_t file_cache_bytes(void)
{
	return cache.bytes_total;
}

uint32_t file_cache_disk_count(void)
{
	return cache.disk_count;
}

void file_cache_set_budget(uint64_t bytes)
{
	cache.budget = bytes < FILE_CACHE_BUDGET_MAX ? bytes : FILE_CACHE_BUDGET_MAX;
	cache.budget_set = 1;
}

int file_cache_root_fd(void)
{
	return cache.root_fd;
}

/* Reads up to size bytes of fd into the body arena after what it holds. Returns the
 * bytes read (fewer when the file shrank since it was stat'ed), or a negative errno. */
static long copy_body(int fd, uint64_t size)
{
	return sys_read_full(fd, cache.body_arena + cache.body_fill, size);
}

/* Returns EXIT_OK when the second walk has room for one more entry of a len-byte name;
 * else the tree grew since it was counted: EXIT_ROOT_READ (reported). */
static enum exit_code check_room(size_t len)
{
	if (cache.entry_count < cache.entries_max && len <= cache.names_max - cache.names_used)
		return EXIT_OK;
	return fail(EXIT_ROOT_READ, "the tree changed while loading");
}

/* An mtime's second as Last-Modified serves it: never before 1970 and never after the
 * load began (RFC 9110 8.8.2.1: an origin server must not send a Last-Modified later
 * than its Date). */
static uint64_t served_second(int64_t s)
{
	return s < 0 ? 0 : (uint64_t)s > cache.load_second ? cache.load_second : (uint64_t)s;
}

/* The file's times as served: Last-Modified is served_second of its mtime; the ETag
 * takes the mtime as it is, to the ns. */
static void note_times(const struct statx *st, struct loaded_file *out)
{
	int64_t s = st->stx_mtime.tv_sec;
	out->mtime = served_second(s);
	out->mtime_ns = (uint64_t)s * NS_PER_S + st->stx_mtime.tv_nsec;
	out->inode = st->stx_ino;
	out->stamp = (struct file_stamp){st->stx_ino, s, st->stx_ctime.tv_sec,
					 st->stx_mtime.tv_nsec, st->stx_ctime.tv_nsec,
					 st->stx_dev_major, st->stx_dev_minor};
}

/* The previous image's record of path[0..len) when its stamp is the file's now (device,
 * inode, size, mtime and ctime): its bytes are the file's. NULL when there is none. */
static const struct file_manifest_record *reusable(size_t len, const struct file_stamp *now,
						   uint64_t size)
{
	if (!cache.old_manifest)
		return 0;
	const struct file_manifest_record *rec = file_manifest_records(cache.old_manifest);
	const char *names = file_manifest_names(cache.old_manifest);
	for (uint32_t i = name_hash(cache.path, len);; i++) {
		uint32_t slot = cache.old_slot[i & (cache.old_slots - 1)];
		if (slot == 0)
			return 0;
		const struct file_manifest_record *r = &rec[slot - 1];
		if (r->name_len != len || !span_eq(names + r->name_at, cache.path, len))
			continue;
		int same = r->inode == now->inode && r->size == size &&
			   r->mtime_s == now->mtime_s && r->mtime_ns == now->mtime_ns &&
			   r->ctime_s == now->ctime_s && r->ctime_ns == now->ctime_ns &&
			   r->dev_major == now->dev_major && r->dev_minor == now->dev_minor;
		return same ? r : 0;
	}
}

/* Opens the regular file `name` of directory dirfd (path[0..len) relative to the root),
 * checks the limits and copies it into the body arena when it fits what is left of the
 * budget: the snapshot, which no later change to the file can reach; otherwise reads no
 * byte of it and marks it FILE_ON_DISK, with the size and times of the open. Returns
 * EXIT_OK with *out filled, EXIT_OK with out->size == FILE_SKIPPED when the entry is no
 * longer a regular file, or the start-up error (reported). */
#define FILE_SKIPPED UINT64_MAX
static enum exit_code copy_file(int dirfd, const char *name, size_t len,
				struct loaded_file *out)
{
	long fd = sys_openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (sys_is_error(fd))
		return fail_because(EXIT_ROOT_READ, "cannot open", fd);
	struct statx st;
	long r = sys_statx((int)fd, "", AT_EMPTY_PATH, STATX_WANTED, &st);
	if (sys_is_error(r))
		return close_and_fail(fd, EXIT_ROOT_READ, "cannot stat", r);
	out->size = FILE_SKIPPED;
	out->body = 0;
	if ((st.stx_mode & S_IFMT) != S_IFREG) { /* replaced since it was listed: skip */
		sys_close((int)fd);
		return EXIT_OK;
	}
	if (check_room(len) != EXIT_OK) {
		sys_close((int)fd);
		return EXIT_ROOT_READ;
	}
	note_times(&st, out);
	if (st.stx_size > cache.budget - cache.bytes_total) { /* beyond the budget: metadata */
		sys_close((int)fd);
		out->place = FILE_ON_DISK;
		out->size = st.stx_size;
		return EXIT_OK;
	}
	out->place = FILE_IN_MEMORY;
	const struct file_manifest_record *old = reusable(len, &out->stamp, st.stx_size);
	if (old) { /* unchanged since the previous image read it: its bytes, no copy */
		sys_close((int)fd);
		out->arena = old->arena;
		out->body = cache.arenas[old->arena].base + old->offset;
		out->size = old->size;
		return EXIT_OK;
	}
	long got = copy_body((int)fd, st.stx_size);
	sys_close((int)fd);
	if (sys_is_error(got))
		return fail_because(EXIT_ROOT_READ, "cannot read", got);
	out->arena = cache.new_arena;
	out->body = got ? cache.body_arena + cache.body_fill : 0;
	out->size = (uint64_t)got;
	cache.body_fill += (uint64_t)got;
	return EXIT_OK;
}

/* Puts files[at], whose name is set, in the hash index. */
static void index_insert(uint32_t at)
{
	const struct cached_file *f = &cache.files[at];
	uint32_t i = name_hash(f->name, f->name_len);
	while (cache.index_slot[i & (cache.index_size - 1)])
		i++;
	cache.index_slot[i & (cache.index_size - 1)] = at + 1;
}

/* Records the entry path[0..len) of `kind`: its name and its index slot. The caller
 * checked every limit. Returns the entry. */
static struct cached_file *add_entry(size_t len, enum cached_kind kind)
{
	struct cached_file *f = &cache.files[cache.entry_count];
	f->name = copy_span(cache.name_arena + cache.names_used, cache.path, len) - len;
	f->name_len = (uint16_t)len;
	f->kind = (uint8_t)kind;
	cache.names_used += (uint32_t)len;
	index_insert(cache.entry_count++);
	return f;
}

/* file_validators_start at the end of the head arena. */
static char *start_validators(struct cached_file *f)
{
	return file_validators_start(cache.head_arena + cache.heads_used, f);
}

/* file_validators_end, then takes the validators' bytes from the head arena. */
static void end_validators(struct cached_file *f, char *p)
{
	cache.heads_used = (uint64_t)(file_validators_end(f, p) - cache.head_arena);
}

/* Renders the validators of the file l (its mtime in f->mtime) at the end of the head
 * arena: the ETag "<size>-<mtime ns>-<inode>" (BEHAVIOUR 10.8). */
static void add_validators(struct cached_file *f, const struct loaded_file *l)
{
	cache.heads_used += file_validators_render(cache.head_arena + cache.heads_used, f,
						   l->size, l->mtime_ns, l->inode);
}

/* Records the loaded file path[0..len): its entry and, in memory, its validators; its
 * heads come once every file is loaded (render_heads), when its variants are known. A
 * file on disk gets its validators per request (disk_file.h). The caller checked every
 * limit. */
static void add_file(size_t len, const struct loaded_file *l)
{
	struct cached_file *f = add_entry(len, CACHED_FILE);
	f->size = l->size;
	f->mtime = l->mtime;
	f->place = l->place;
	if (l->place == FILE_ON_DISK) {
		f->disk_name = f->name;
		f->arena = FILE_ARENA_NONE; /* never by file_body_offset: opened per request */
		cache.disk_count++;
		return;
	}
	f->body = l->body;
	f->arena = l->arena;
	cache.stamps[f - cache.files] = l->stamp;
	cache.bytes_total += l->size;
	cache.file_count++;
	add_validators(f, l);
}

/* The encoding whose file name suffix name[0..len) ends with (".br", ".gz", after at least
 * one byte), or FILE_ENCODING_IDENTITY. */
static enum file_encoding suffix_encoding(const char *name, size_t len)
{
	for (int e = FILE_ENCODING_IDENTITY + 1; e < FILE_ENCODING_COUNT; e++) {
		const struct text_span *x = &file_encoding_suffix[e];
		if (len > x->len && span_eq(name + len - x->len, x->text, x->len))
			return (enum file_encoding)e;
	}
	return FILE_ENCODING_IDENTITY;
}

/* Makes the representation of base in encoding e from v, the loaded file beside it
 * (base's name with e's suffix): v's bytes and Last-Modified, v's ETag with e's ETag
 * suffix inside the quotes (so it differs from v's own and base's), base's name (which
 * gives the type). Links it as base->variant[e - 1]. */
static void add_variant(struct cached_file *base, const struct cached_file *v,
			enum file_encoding e)
{
	struct cached_file *rep = &cache.files[cache.entries_max + cache.variant_count++];
	*rep = *v;
	rep->name = base->name;
	rep->name_len = base->name_len;
	rep->encoding = (uint8_t)e;
	for (int i = 0; i < FILE_VARIANTS; i++)
		rep->variant[i] = 0; /* v's own (X.gz.br for X.gz) are not the representation's */
	base->variant[e - 1] = rep;
	if (v->place == FILE_ON_DISK)
		return; /* disk_name stays v's own; its ETag is made per request with e's suffix */
	/* v's validators, the closing quote held back */
	char *out = cache.head_arena + cache.heads_used;
	char *p = copy_span(out, v->etag - VALIDATORS_ETAG_AT, VALIDATORS_ETAG_AT + v->etag_len - 1u);
	p = copy_span(p, file_encoding_etag_suffix[e].text, file_encoding_etag_suffix[e].len);
	*p++ = '"';
	rep->etag = out + VALIDATORS_ETAG_AT;
	rep->etag_len = (uint8_t)(p - rep->etag);
	cache.heads_used += (uint64_t)(p - out);
}

/* Links every loaded X.br and X.gz whose X is a loaded file to X (BEHAVIOUR 10.10). */
static void link_variants(void)
{
	for (uint32_t i = 0; i < cache.entry_count; i++) {
		const struct cached_file *v = &cache.files[i];
		enum file_encoding e = v->kind == CACHED_FILE
					       ? suffix_encoding(v->name, v->name_len)
					       : FILE_ENCODING_IDENTITY;
		if (e == FILE_ENCODING_IDENTITY)
			continue;
		struct cached_file *base = (struct cached_file *)file_cache_find(
			v->name, v->name_len - file_encoding_suffix[e].len);
		if (base && base->kind == CACHED_FILE)
			add_variant(base, v, e);
	}
}

/* Returns 1 when f is a directory's listing: its name is "dir/", or "" for the root's. */
static int is_listing(const struct cached_file *f)
{
	return f->name_len == 0 || f->name[f->name_len - 1] == '/';
}

/* Renders f's 200 head in FILE_HEAD_FORM at the end of the head arena, from its name
 * (the type: a listing's is LISTING_TYPE; its --header-for fields), encoding,
 * validators and variants (file_head_render). A file on disk keeps only its type and
 * --header-for lines there (struct cached_file's head): its head is made per request. */
static void render_heads(struct cached_file *f)
{
	struct text_span type = {LITERAL(LISTING_TYPE)};
	if (!is_listing(f))
		mime_type_of(f->name, f->name_len, &type);
	char *h = cache.head_arena + cache.heads_used;
	if (f->place == FILE_ON_DISK) {
		f->head = h;
		f->type_len = (uint8_t)type.len;
		char *p = copy_span(h, type.text, type.len);
		f->fields_len = (uint16_t)path_fields_render(f->name, f->name_len, p);
		f->head_len = (uint16_t)(type.len + f->fields_len);
		cache.heads_used += f->head_len;
		return;
	}
	char fields[PATH_FIELDS_BLOCK_MAX];
	struct text_span header_for = {fields, (uint32_t)path_fields_render(f->name, f->name_len,
									    fields)};
	cache.heads_used += file_head_render(h, f, type, header_for);
}

/* Maps bytes of anonymous memory at *at (nothing for 0). Returns EXIT_OK or
 * EXIT_ROOT_READ (reported). */
static enum exit_code reserve(uint64_t bytes, void **at)
{
	*at = 0;
	if (bytes == 0)
		return EXIT_OK;
	long m = sys_mmap(0, bytes, ARENA_PROT, ARENA_FLAGS, -1, 0);
	if (sys_is_error(m))
		return fail_because(EXIT_ROOT_READ, "cannot map memory for the cache", m);
	*at = (void *)m;
	return EXIT_OK;
}

#define WELL_KNOWN ".well-known"

/* Returns 1 when the len-byte name (one path component) is hidden from a listing: it
 * starts with '.' and is not WELL_KNOWN, which the web expects to reach. */
static int hidden_component(const char *name, size_t len)
{
	return len && name[0] == '.' &&
	       !(len == sizeof(WELL_KNOWN) - 1 && span_eq(name, LITERAL(WELL_KNOWN)));
}

/* Returns 1 when some component of the len-byte path is hidden_component. */
static int hidden_path(const char *path, size_t len)
{
	for (size_t at = 0; at < len;) {
		size_t end = at;
		while (end < len && path[end] != '/')
			end++;
		if (hidden_component(path + at, end - at))
			return 1;
		at = end + 1;
	}
	return 0;
}

/* The bytes of f's name before its last '/' (its directory's name; 0 in the root). */
static size_t parent_len(const struct cached_file *f)
{
	size_t i = f->name_len;
	while (i > 0 && f->name[i - 1] != '/')
		i--;
	return i ? i - 1 : 0;
}

/* Compares a[0..an) with b[0..bn) byte by byte (unsigned), a prefix first. Returns <0,
 * 0 or >0. */
static int bytes_cmp(const char *a, size_t an, const char *b, size_t bn)
{
	for (size_t i = 0; i < an && i < bn; i++)
		if (a[i] != b[i])
			return (unsigned char)a[i] < (unsigned char)b[i] ? -1 : 1;
	return an < bn ? -1 : an > bn;
}

/* The order of the listings: by directory, then directories before files, then by own
 * name, bytewise. Returns <0, 0 or >0 for entries x and y of files[]. */
static int listing_order(uint32_t x, uint32_t y)
{
	const struct cached_file *a = &cache.files[x], *b = &cache.files[y];
	size_t pa = parent_len(a), pb = parent_len(b);
	int c = bytes_cmp(a->name, pa, b->name, pb);
	if (c || a->kind != b->kind)
		return c ? c : a->kind == CACHED_DIRECTORY ? -1 : 1;
	size_t sa = pa + (pa != 0), sb = pb + (pb != 0); /* past the '/' */
	return bytes_cmp(a->name + sa, a->name_len - sa, b->name + sb, b->name_len - sb);
}

/* Moves order[i] down the max-heap order[0..n) to its place. */
static void sift_down(uint32_t *order, size_t i, size_t n)
{
	for (size_t child; (child = 2 * i + 1) < n; i = child) {
		if (child + 1 < n && listing_order(order[child], order[child + 1]) < 0)
			child++;
		if (listing_order(order[i], order[child]) >= 0)
			return;
		uint32_t t = order[i];
		order[i] = order[child];
		order[child] = t;
	}
}

/* Sorts order[0..n) by listing_order: heapsort, in place, no recursion, n log n. */
static void sort_for_listings(uint32_t *order, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(order, i, n);
	for (size_t end = n; end-- > 1;) {
		uint32_t t = order[0];
		order[0] = order[end];
		order[end] = t;
		sift_down(order, 0, end);
	}
}

/* The first position in the sorted order[0..n) whose entry's directory is not before
 * dir[0..len) (binary search). */
static size_t first_child(const uint32_t *order, size_t n, const char *dir, size_t len)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct cached_file *f = &cache.files[order[mid]];
		if (bytes_cmp(f->name, parent_len(f), dir, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Returns 1 when directory dir[0..len) ("" for the root) holds a loaded index page. */
static int has_index(const char *dir, size_t len)
{
	char name[FILE_CACHE_PATH_MAX + sizeof("/" FILE_INDEX_NAME)];
	char *p = copy_span(name, dir, len);
	if (len)
		*p++ = '/';
	p = copy_span(p, LITERAL(FILE_INDEX_NAME));
	const struct cached_file *f = file_cache_find(name, (size_t)(p - name));
	return f && f->kind == CACHED_FILE;
}

/* FNV-1a, 64 bits, over a listing's bytes: its ETag, strong since the bytes are fixed. */
static uint64_t page_hash(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/* Makes the listing of directory dir[0..len) (mtime its own Last-Modified) from the
 * sorted order[0..n): a file named "dir/" ("" for the root) in the listing arena, its
 * validators (Last-Modified the newest of the directory and its rows, ETag
 * "l-<size>-<hash>") and its heads. */
static void add_listing(const uint32_t *order, size_t n, const char *dir, size_t len,
			uint64_t mtime)
{
	struct cached_file *f =
		&cache.files[cache.entries_max + cache.variants_max + cache.listing_count];
	char *name = cache.listing_arena + cache.listing_used;
	char *p = copy_span(name, dir, len);
	if (len)
		*p++ = '/';
	char *body = p;
	p += listing_start(p, dir, len);
	for (size_t i = first_child(order, n, dir, len); i < n; i++) {
		const struct cached_file *e = &cache.files[order[i]];
		size_t at = parent_len(e);
		if (at != len || !span_eq(e->name, dir, len))
			break;
		at += at != 0;
		struct listing_entry row = {e->name + at, e->name_len - at, e->size, e->mtime,
					  e->kind == CACHED_DIRECTORY};
		if (hidden_component(row.name, row.name_len))
			continue;
		p += listing_row(p, &row);
		mtime = e->mtime > mtime ? e->mtime : mtime;
	}
	p += listing_end(p);
	*f = (struct cached_file){0};
	f->arena = FILE_ARENA_NONE; /* in anonymous memory: leaves by copy */
	f->name = name;
	f->name_len = (uint16_t)(body - name);
	f->body = body;
	f->size = (uint64_t)(p - body);
	f->mtime = mtime;
	f->kind = CACHED_FILE;
	cache.listing_used += (uint64_t)(p - name);
	char *e = start_validators(f);
	*e++ = 'l';
	*e++ = '-';
	e += file_u64_to_hex(f->size, e);
	*e++ = '-';
	e += file_u64_to_hex(page_hash(f->body, f->size), e);
	end_validators(f, e);
	render_heads(f);
	index_insert(cache.entries_max + cache.variants_max + cache.listing_count++);
}

/* With --listing: the listing of every directory, the root included, that has no index
 * page and no hidden component (BEHAVIOUR 10.14). Returns EXIT_OK or EXIT_ROOT_READ
 * (reported) when the sorting space cannot be mapped. */
static enum exit_code add_listings(void)
{
	uint32_t *order;
	uint64_t bytes = (uint64_t)cache.entry_count * sizeof(uint32_t);
	enum exit_code r = reserve(bytes, (void **)&order);
	if (r != EXIT_OK)
		return r;
	for (uint32_t i = 0; i < cache.entry_count; i++)
		order[i] = i;
	sort_for_listings(order, cache.entry_count);
	if (!has_index("", 0))
		add_listing(order, cache.entry_count, "", 0, cache.root_mtime);
	for (uint32_t i = 0; i < cache.entry_count; i++) {
		const struct cached_file *d = &cache.files[i];
		if (d->kind == CACHED_DIRECTORY && !hidden_path(d->name, d->name_len) &&
		    !has_index(d->name, d->name_len))
			add_listing(order, cache.entry_count, d->name, d->name_len, d->mtime);
	}
	if (order)
		sys_munmap(order, bytes);
	return EXIT_OK;
}

/* After the loading walk: links the variants, then renders every file's heads and every
 * representation's, then (--listing) makes the listings. Returns EXIT_OK or the
 * start-up error (reported). */
static enum exit_code finish_load(void)
{
	link_variants();
	for (uint32_t i = 0; i < cache.entry_count; i++)
		if (cache.files[i].kind == CACHED_FILE)
			render_heads(&cache.files[i]);
	for (uint32_t k = 0; k < cache.variant_count; k++)
		render_heads(&cache.files[cache.entries_max + k]);
	return cache.listings_max ? add_listings() : EXIT_OK;
}

/* The first walk: counts the entry path[0..len). Returns EXIT_OK or EXIT_ROOT_LIMIT
 * (reported) past --max-files. */
static enum exit_code count_entry(size_t len)
{
	if (cache.entry_count == cache.max_entries)
		return fail(EXIT_ROOT_LIMIT, "more files and directories than --max-files");
	cache.entry_count++;
	cache.names_used += len;
	return EXIT_OK;
}

/* The served second of directory fd's mtime, asked only with --listing (its rows and
 * pages show it); 0 without, or when statx fails (the listing then shows 1970). */
static uint64_t directory_mtime(int fd)
{
	struct statx st;
	if (!(cache.load_flags & FILE_CACHE_LISTING) ||
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
		add_entry(len, CACHED_DIRECTORY)->mtime = directory_mtime(fd);
	return r;
}

/* Adds the regular file `name` of directory dirfd, whose relative path is path[0..len).
 * Returns EXIT_OK or the start-up error (reported). */
static enum exit_code load_file(int dirfd, const char *name, size_t len)
{
	if (cache.counting) {
		cache.variants_max += suffix_encoding(cache.path, len) != FILE_ENCODING_IDENTITY;
		return count_entry(len);
	}
	/* Zeroed: GCC cannot see that copy_file fills it whenever it returns EXIT_OK, once
	 * walk_entry is inlined into walk (-Wmaybe-uninitialized). */
	struct loaded_file l = {0};
	enum exit_code r = copy_file(dirfd, name, len, &l);
	if (r == EXIT_OK && l.size != FILE_SKIPPED)
		add_file(len, &l);
	return r;
}

static enum exit_code walk(int dirfd, int depth, size_t len);

void file_cache_on_directory(file_cache_directory_fn hook)
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
 * statx, without following a symbolic link. Returns EXIT_OK or EXIT_ROOT_READ (reported). */
static enum exit_code entry_type(int dirfd, const struct k_dirent64 *d, unsigned *type)
{
	*type = d->d_type;
	if (*type != K_DT_UNKNOWN)
		return EXIT_OK;
	struct statx st;
	long r = sys_statx(dirfd, d->d_name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st);
	if (sys_is_error(r))
		return fail_because(EXIT_ROOT_READ, "cannot stat", r);
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
	int dotfiles = (cache.load_flags & FILE_CACHE_DOTFILES) != 0;
	if (name[0] == '.' && ((!dotfiles && !well_known) || name_len == 1 ||
				(name_len == 2 && name[1] == '.')))
		return EXIT_OK; /* ".", "..", and dotfiles unless --dotfiles */
	size_t sub_len = len + (len ? 1 : 0) + name_len;
	if (sub_len > FILE_CACHE_PATH_MAX)
		return fail(EXIT_ROOT_LIMIT, "a path below it is longer than 255 bytes");
	char *p = cache.path + len;
	if (len)
		*p++ = '/';
	copy_span(p, name, name_len)[0] = '\0';

	unsigned type;
	enum exit_code r = entry_type(dirfd, d, &type);
	if (well_known && !dotfiles && type != K_DT_DIR)
		type = K_DT_UNKNOWN; /* DIR/.well-known is loaded as the directory RFC 8615 names */
	if (r == EXIT_OK && type == K_DT_DIR) {
		if (depth == FILE_CACHE_DEPTH_MAX)
			return fail(EXIT_ROOT_LIMIT, "more than 8 directory levels");
		long sub = sys_openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sys_is_error(sub))
			return fail_because(EXIT_ROOT_READ, "cannot open directory", sub);
		r = add_directory(sub_len, (int)sub);
		if (r == EXIT_OK)
			r = walk_directory((int)sub, depth + 1, sub_len);
		sys_close((int)sub);
	} else if (r == EXIT_OK && type == K_DT_REG) {
		r = load_file(dirfd, name, sub_len);
	}
	cache.path[len] = '\0';
	return r;
}

/* Walks directory dirfd, `depth` levels below the root, whose relative path is
 * path[0..len). Returns EXIT_OK or the start-up error (reported). */
static enum exit_code walk(int dirfd, int depth, size_t len)
{
	char *buf = cache.dirent_buffer[depth];
	for (;;) {
		long n = sys_getdents64(dirfd, buf, DIRENT_BUFFER_SIZE);
		if (n == 0)
			return EXIT_OK;
		if (sys_is_error(n))
			return fail_because(EXIT_ROOT_READ, "cannot list", n);
		for (long off = 0; off < n;) {
			const struct k_dirent64 *d = (const struct k_dirent64 *)(buf + off);
			off += d->d_reclen;
			enum exit_code r = walk_entry(dirfd, depth, len, d);
			if (r != EXIT_OK)
				return r;
		}
	}
}

/* Creates the body arena: a memfd that can be sealed, cache.budget long (sparse),
 * mapped shared and writable at body_arena for the loading walk. Returns EXIT_OK or
 * EXIT_ROOT_READ (reported). */
static enum exit_code open_body_arena(void)
{
	long fd = sys_memfd_create(BODY_ARENA_NAME, K_MFD_ALLOW_SEALING | K_MFD_CLOEXEC);
	if (sys_is_error(fd))
		return fail_because(EXIT_ROOT_READ, "cannot create the snapshot's memfd", fd);
	cache.body_fd = (int)fd;
	long r = sys_ftruncate((int)fd, cache.budget);
	if (sys_is_error(r))
		return fail_because(EXIT_ROOT_READ, "cannot size the snapshot's memfd", r);
	long m = sys_mmap(0, cache.budget, ARENA_PROT, BODY_FILL_FLAGS, (int)fd, 0);
	if (sys_is_error(m))
		return fail_because(EXIT_ROOT_READ, "cannot map the snapshot's memfd", m);
	cache.body_arena = (char *)m;
	return EXIT_OK;
}

/* Moves descriptor fd above the connection slots (CONN_SLOTS), where it takes no slot a
 * connection could use, when RLIMIT_NOFILE allows it. Returns the descriptor it now has
 * (fd itself when it could not move). */
static int above_slots(int fd)
{
	long high = sys_fcntl(fd, K_F_DUPFD_CLOEXEC, CONN_SLOTS);
	if (sys_is_error(high))
		return fd; /* EINVAL: the limit is CONN_SLOTS; the arena keeps its low slot */
	sys_close(fd);
	return (int)high;
}

/* After the loading walk: the body arena becomes the sealed arena arenas[new_arena]. The
 * writable mapping goes first: F_ADD_SEALS refuses F_SEAL_WRITE (EBUSY) while any shared
 * mapping that may write exists, and a read-only MAP_SHARED one of a descriptor open for
 * writing may (VM_MAYWRITE; mm/memfd.c, memfd_add_seals). Then the memfd is cut to the
 * bytes loaded and sealed, and mapped read-only at the same address, so every body
 * pointer stays valid (MAP_FIXED_NOREPLACE: start-up is single-threaded, nothing else can
 * have taken the range). An empty snapshot keeps no arena. Returns EXIT_OK or
 * EXIT_ROOT_READ (reported). */
static enum exit_code seal_body_arena(void)
{
	if (cache.body_fd < 0)
		return EXIT_OK;
	uint64_t bytes = cache.body_fill;
	long r = sys_munmap(cache.body_arena, cache.budget);
	if (!sys_is_error(r) && !bytes) {
		sys_close(cache.body_fd);
		cache.body_fd = -1;
		return EXIT_OK;
	}
	if (!sys_is_error(r))
		r = sys_ftruncate(cache.body_fd, bytes);
	if (!sys_is_error(r))
		r = sys_fcntl(cache.body_fd, K_F_ADD_SEALS, BODY_SEALS);
	if (sys_is_error(r))
		return fail_because(EXIT_ROOT_READ, "cannot seal the snapshot's memfd", r);
	r = sys_mmap(cache.body_arena, bytes, PROT_READ, MAP_SHARED | MAP_FIXED_NOREPLACE,
		     cache.body_fd, 0);
	if (sys_is_error(r) || (char *)r != cache.body_arena)
		return fail_because(EXIT_ROOT_READ, "cannot map the snapshot read-only", r);
	cache.arenas[cache.new_arena] =
		(struct file_arena){cache.body_arena, bytes, above_slots(cache.body_fd), 0};
	cache.body_fd = -1;
	return EXIT_OK;
}

/* Unmaps and closes arena k (a reused one no file uses any more: not handed on). */
static void drop_arena(uint32_t k)
{
	struct file_arena *a = &cache.arenas[k];
	if (!a->base)
		return;
	sys_munmap((void *)a->base, a->size);
	sys_close(a->fd);
	*a = (struct file_arena){0, 0, -1, 0};
}

/* Copies every reused body into the body arena (after the bytes read), so that the
 * reused arenas can all be dropped: every live byte is copied once. The budget counted
 * them already, so they fit. */
static void compact(void)
{
	for (uint32_t i = 0; i < cache.entry_count; i++) {
		struct cached_file *f = &cache.files[i];
		if (f->kind != CACHED_FILE || f->place != FILE_IN_MEMORY || !f->size ||
		    f->arena == cache.new_arena)
			continue;
		char *to = cache.body_arena + cache.body_fill;
		copy_span(to, f->body, f->size);
		f->body = to;
		f->arena = cache.new_arena;
		cache.body_fill += f->size;
	}
}

/* After the loading walk of a reload that reused arenas: the compaction rule (BEHAVIOUR
 * 10.17). The reload compacts (compact) when keeping the reused arenas some file still
 * uses, and the new one, would make more than ARENAS_KEPT, or when those reused arenas
 * hold more bytes no file uses (deleted or changed files) than bytes files use; else it
 * keeps them as they are. Either way a reused arena no file uses is dropped, not handed
 * on. Sets arena_live. */
static void settle_arenas(void)
{
	uint32_t kept = cache.body_fill != 0;
	uint64_t live = 0, dead = 0;
	for (uint32_t k = 0; k < FILE_ARENAS_MAX; k++)
		cache.arena_live[k] = 0;
	for (uint32_t i = 0; i < cache.entry_count; i++) {
		const struct cached_file *f = &cache.files[i];
		if (f->kind == CACHED_FILE && f->place == FILE_IN_MEMORY)
			cache.arena_live[f->arena] += f->size;
	}
	for (uint32_t k = 0; k < cache.new_arena; k++) {
		if (!cache.arena_live[k]) {
			drop_arena(k);
			continue;
		}
		kept++;
		live += cache.arena_live[k];
		dead += cache.arenas[k].size - cache.arena_live[k];
	}
	if (kept <= ARENAS_KEPT && dead <= live)
		return;
	compact();
	for (uint32_t k = 0; k < cache.new_arena; k++)
		drop_arena(k);
}

/* Whether files[i] is in the manifest: a file whose bytes are in an arena. */
static int in_manifest(const struct cached_file *f)
{
	return f->kind == CACHED_FILE && f->place == FILE_IN_MEMORY && f->size;
}

/* Fills the manifest at m (size bytes: file_manifest_size of what in_manifest counts),
 * arena k being handed over as handed[k]. */
static void fill_manifest(char *m, const uint8_t *handed, uint32_t arenas, uint32_t count,
			  uint64_t names)
{
	*(struct file_manifest_head *)m = (struct file_manifest_head){
		FILE_MANIFEST_MAGIC, FILE_MANIFEST_VERSION, FILE_MANIFEST_RECORD_SIZE, count,
		arenas, 0, names};
	struct file_manifest_record *r = (struct file_manifest_record *)(m + FILE_MANIFEST_HEAD_SIZE);
	char *name_base = m + file_manifest_size(count, 0), *name = name_base;
	for (uint32_t i = 0; i < cache.entry_count; i++) {
		const struct cached_file *f = &cache.files[i];
		if (!in_manifest(f))
			continue;
		const struct file_stamp *t = &cache.stamps[i];
		const struct file_arena *a = &cache.arenas[f->arena];
		*r++ = (struct file_manifest_record){
			t->inode, f->size, (uint64_t)(f->body - a->base), t->mtime_s, t->ctime_s,
			t->mtime_ns, t->ctime_ns, t->dev_major, t->dev_minor,
			(uint32_t)(name - name_base), f->name_len, handed[f->arena], 0};
		name = copy_span(name, f->name, f->name_len);
	}
}

/* After the load: the manifest for the next image (file_manifest.h), in a sealed memfd
 * at manifest_fd. Nothing when no arena holds a byte; a failure leaves none either (the
 * next image then reads every file, as on a first start). */
static void write_manifest(void)
{
	uint8_t handed[FILE_ARENAS_MAX];
	uint32_t arenas = 0, count = 0;
	uint64_t names = 0;
	for (uint32_t k = 0; k < FILE_ARENAS_MAX; k++)
		handed[k] = cache.arenas[k].base ? (uint8_t)arenas++ : FILE_ARENA_NONE;
	for (uint32_t i = 0; i < cache.entry_count; i++)
		if (in_manifest(&cache.files[i])) {
			count++;
			names += cache.files[i].name_len;
		}
	if (!arenas || arenas > ARENAS_KEPT)
		return;
	uint64_t size = file_manifest_size(count, names);
	long fd = sys_memfd_create(MANIFEST_NAME, K_MFD_ALLOW_SEALING | K_MFD_CLOEXEC);
	if (sys_is_error(fd))
		return;
	long r = sys_ftruncate((int)fd, size);
	long m = sys_is_error(r) ? r : sys_mmap(0, size, ARENA_PROT, MAP_SHARED, (int)fd, 0);
	if (!sys_is_error(m)) {
		fill_manifest((char *)m, handed, arenas, count, names);
		r = sys_munmap((void *)m, size);
	}
	if (!sys_is_error(m) && !sys_is_error(r))
		r = sys_fcntl((int)fd, K_F_ADD_SEALS, BODY_SEALS);
	if (sys_is_error(m) || sys_is_error(r)) {
		sys_close((int)fd);
		return;
	}
	cache.manifest_fd = above_slots((int)fd);
}

uint32_t file_cache_hand_over(int *fds)
{
	uint32_t n = 0;
	if (cache.manifest_fd < 0)
		return 0;
	fds[n++] = cache.manifest_fd;
	for (uint32_t k = 0; k < FILE_ARENAS_MAX; k++)
		if (cache.arenas[k].base)
			fds[n++] = cache.arenas[k].fd;
	return n;
}

/* Maps the memfd fd read-only into *a when it carries every seal against change and is
 * not empty. Returns 1, or 0 with *a untouched. */
static int map_sealed(int fd, struct file_arena *a)
{
	struct statx st;
	long seals = sys_fcntl(fd, K_F_GET_SEALS, 0);
	if (sys_is_error(seals) || (seals & BODY_SEALS) != BODY_SEALS ||
	    sys_is_error(sys_statx(fd, "", AT_EMPTY_PATH, STATX_SIZE, &st)) || !st.stx_size)
		return 0;
	long m = sys_mmap(0, st.stx_size, PROT_READ, MAP_SHARED, fd, 0);
	if (sys_is_error(m))
		return 0;
	*a = (struct file_arena){(const char *)m, st.stx_size, fd, 0};
	return 1;
}

/* Indexes the checked manifest's count records by name (old_slot). Returns 1, or 0
 * when the index cannot be mapped. */
static int index_old_manifest(uint32_t count)
{
	const struct file_manifest_record *rec = file_manifest_records(cache.old_manifest);
	const char *names = file_manifest_names(cache.old_manifest);
	cache.old_slots = 2;
	while (cache.old_slots < 2 * (uint64_t)count)
		cache.old_slots *= 2;
	long m = sys_mmap(0, cache.old_slots * sizeof(uint32_t), ARENA_PROT, ARENA_FLAGS, -1, 0);
	if (sys_is_error(m))
		return 0;
	cache.old_slot = (uint32_t *)m;
	for (uint32_t r = 0; r < count; r++) {
		uint32_t i = name_hash(names + rec[r].name_at, rec[r].name_len);
		while (cache.old_slot[i & (cache.old_slots - 1)])
			i++;
		cache.old_slot[i & (cache.old_slots - 1)] = r + 1;
	}
	return 1;
}

/* Forgets the previous image's manifest (its mapping and index; the memfd is closed). */
static void forget_old_manifest(void)
{
	if (cache.old_slot)
		sys_munmap(cache.old_slot, cache.old_slots * sizeof(uint32_t));
	if (cache.old_manifest)
		sys_munmap((void *)cache.old_manifest, cache.old_manifest_bytes);
	cache.old_slot = 0;
	cache.old_manifest = 0;
}

uint32_t file_cache_reuse(const int *fds, uint32_t n)
{
	uint32_t arenas = n > 1 ? n - 1 : 0;
	uint64_t sizes[ARENAS_KEPT];
	struct file_arena m = {0, 0, -1, 0};
	int ok = arenas && arenas <= ARENAS_KEPT && map_sealed(fds[0], &m);
	for (uint32_t k = 0; ok && k < arenas; k++) {
		ok = map_sealed(fds[1 + k], &cache.arenas[k]);
		sizes[k] = cache.arenas[k].size;
	}
	int64_t count = ok ? file_manifest_check(m.base, m.size, arenas, sizes) : -1;
	if (count >= 0) {
		cache.old_manifest = m.base;
		cache.old_manifest_bytes = m.size;
		ok = index_old_manifest((uint32_t)count);
	}
	if (count < 0 || !ok) { /* not to be trusted: every file is read again */
		forget_old_manifest();
		if (m.base && !cache.old_manifest)
			sys_munmap((void *)m.base, m.size);
		for (uint32_t k = 0; k < arenas && k < ARENAS_KEPT; k++)
			if (cache.arenas[k].base)
				sys_munmap((void *)cache.arenas[k].base, cache.arenas[k].size);
		for (uint32_t k = 0; k < FILE_ARENAS_MAX; k++)
			cache.arenas[k] = (struct file_arena){0, 0, -1, 0};
		for (uint32_t i = 0; i < n; i++)
			sys_close(fds[i]);
		return 0;
	}
	sys_close(fds[0]); /* the mapping stays until the load ends */
	for (uint32_t k = 0; k < arenas; k++)
		cache.arenas[k].fd = above_slots(cache.arenas[k].fd);
	cache.new_arena = (uint8_t)arenas;
	return arenas;
}

/* Sizes the table from what the first walk counted (entry_count, names_used), maps it,
 * and resets the counts for the second walk. Returns EXIT_OK or EXIT_ROOT_READ
 * (reported). */
static enum exit_code allocate(void)
{
	cache.entries_max = cache.entry_count;
	cache.names_max = cache.names_used;
	cache.entry_count = 0;
	cache.names_used = 0;
	cache.listings_max = cache.load_flags & FILE_CACHE_LISTING ? cache.directories + 1 : 0;
	/* Every page's name and its start, and every row, at their largest. */
	cache.listing_arena_max =
		cache.listings_max ? (uint64_t)cache.listings_max *
					       (LISTING_PAGE_MAX(FILE_CACHE_PATH_MAX) +
						FILE_CACHE_PATH_MAX + 1) +
				       (uint64_t)cache.entries_max * LISTING_ROW_FIXED +
				       (LISTING_ESCAPE_MAX + LISTING_HREF_MAX) * cache.names_max
				 : 0;
	cache.index_size = 2;
	while (cache.index_size < 2 * ((uint64_t)cache.entries_max + cache.listings_max))
		cache.index_size *= 2;
	/* The representations come after the entries, the listings after them. */
	uint64_t files_max = (uint64_t)cache.entries_max + cache.variants_max + cache.listings_max;
	enum exit_code r = reserve(files_max * sizeof(struct cached_file), (void **)&cache.files);
	if (r == EXIT_OK)
		r = reserve((uint64_t)cache.index_size * sizeof(uint32_t), (void **)&cache.index_slot);
	if (r == EXIT_OK)
		r = reserve(cache.names_max, (void **)&cache.name_arena);
	if (r == EXIT_OK)
		r = reserve((uint64_t)cache.entries_max * sizeof(struct file_stamp),
			    (void **)&cache.stamps);
	if (r == EXIT_OK)
		r = reserve((files_max + HEAD_ARENA_PAGES) * (HEAD_ARENA_PER_FILE + path_fields_max()),
			    (void **)&cache.head_arena);
	if (r == EXIT_OK && cache.entries_max && cache.budget) /* --cache-bytes 0: none */
		r = open_body_arena();
	if (r == EXIT_OK)
		r = reserve(cache.listing_arena_max, (void **)&cache.listing_arena);
	return r;
}

/* One walk of the tree at root: the counting one or the loading one. Returns EXIT_OK or
 * the start-up error (reported). */
static enum exit_code walk_root(const char *root)
{
	cache.path[0] = '\0';
	long fd = sys_openat(AT_FDCWD, root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sys_is_error(fd))
		return fail_because(EXIT_ROOT_READ, "cannot open directory", fd);
	if (!cache.counting)
		cache.root_mtime = directory_mtime((int)fd);
	enum exit_code r = walk_directory((int)fd, 0, 0);
	if (cache.counting)
		sys_close((int)fd);
	else
		cache.root_fd = above_slots((int)fd); /* disk-served files open beneath it */
	return r;
}

enum exit_code file_cache_load(const char *root, unsigned flags, uint32_t max_files)
{
	cache.root_dir = root;
	cache.load_flags = flags;
	cache.load_second = clock_now_unix_s();
	cache.max_entries = max_files;
	cache.body_fd = -1;
	cache.manifest_fd = -1;
	if (!cache.budget_set)
		cache.budget = FILE_CACHE_BUDGET_DEFAULT;
	cache.counting = 1; /* first the size of the table, then the table */
	enum exit_code r = walk_root(root);
	cache.counting = 0;
	if (r == EXIT_OK)
		r = allocate();
	if (r == EXIT_OK)
		r = walk_root(root);
	forget_old_manifest();
	if (r == EXIT_OK)
		settle_arenas();
	if (r == EXIT_OK)
		r = seal_body_arena();
	if (r == EXIT_OK)
		write_manifest();
	if (r == EXIT_OK)
		r = finish_load();
	return r;
}

/* The loaded file that target ('/' then a name relative to DIR) names, or NULL after the
 * line "apollod: --root DIR: <flag> names no loaded file: <name>" (fail). */
static const struct cached_file *page_target(const char *target, const char *flag)
{
	size_t len = cstr_len(target) - 1; /* cli.c took only targets that start with '/' */
	const struct cached_file *f = file_cache_find(target + 1, len);
	if (f && f->kind == CACHED_FILE)
		return f;
	if (len > FILE_CACHE_PATH_MAX)
		len = FILE_CACHE_PATH_MAX; /* no such name is loaded: said in part */
	copy_span(cache.path, target + 1, len)[0] = '\0';
	char what[sizeof("--error-page 404 names no loaded file")];
	copy_span(copy_span(what, flag, cstr_len(flag)), LITERAL(" names no loaded file"))[0] = '\0';
	fail(EXIT_ROOT_READ, what);
	return 0;
}

/* Makes the error page of f: its bytes under a 404 head of its type and --header-for
 * fields, without validators (rendered after every file's head, HEAD_ARENA_PAGES). */
static const struct cached_file *make_not_found_page(const struct cached_file *f)
{
	struct cached_file *page = &cache.not_found_page;
	struct text_span type, prefix = {LITERAL(HEAD_404_PREFIX)};
	char fields[PATH_FIELDS_BLOCK_MAX];
	*page = *f;
	for (int i = 0; i < FILE_VARIANTS; i++)
		page->variant[i] = 0; /* one representation: no Vary */
	if (f->place == FILE_ON_DISK)
		return page; /* its 404 head is made per request (disk_file_view) */
	page->etag = 0;
	page->etag_len = 0;
	page->fields_len = (uint16_t)path_fields_render(f->name, f->name_len, fields);
	mime_type_of(f->name, f->name_len, &type);
	page->head = cache.head_arena + cache.heads_used;
	page->head_len = (uint16_t)render_head_with((char *)page->head, prefix, type.text,
						    type.len, f->size, fields, page->fields_len,
						    FILE_HEAD_FORM);
	cache.heads_used += page->head_len;
	return page;
}

enum exit_code file_cache_pages(const char *not_found, const char *fallback,
				struct site_pages *pages)
{
	pages->not_found = 0;
	pages->fallback = 0;
	if (not_found) {
		const struct cached_file *f = page_target(not_found, "--error-page 404");
		if (!f)
			return EXIT_ROOT_READ;
		pages->not_found = make_not_found_page(f);
	}
	if (fallback) {
		pages->fallback = page_target(fallback, "--fallback");
		if (!pages->fallback)
			return EXIT_ROOT_READ;
	}
	return EXIT_OK;
}
