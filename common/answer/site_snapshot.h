/* The file cache's one state struct and the calls its four files make of each other:
 * site.c (the table and lookup), file_walk.c (the two walks and the load),
 * listing_pages.c (--listing's pages), file_arenas.c (the arenas and a reload's
 * reuse) and file_gzip.c (gzip representations made at load). Start-up only, except what site_find and file_body_offset read. Nothing
 * outside those four files includes it. */
#ifndef APOLLOD_COMMON_SITE_SNAPSHOT_H
#define APOLLOD_COMMON_SITE_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include <linux/mman.h>              /* PROT_*, MAP_PRIVATE, MAP_ANONYMOUS, ... */

#include "common/base/exit_codes.h"
#include "common/answer/site.h"
#include "common/answer/file_manifest.h"
#include "common/base/limits.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* What one file (or representation) takes of the head arena: its validators and its 200
 * head in FILE_HEAD_FORM (the other form and a 304 are made per request, conn.c), without
 * its --header-for fields (path_fields_max() more at most). */
#define HEAD_ARENA_PER_FILE (FILE_VALIDATORS_MAX + SITE_HEAD_MAX)
#define HEAD_ARENA_PAGES ERROR_PAGE_COUNT /* heads after the files': the --error-page ones */
/* The one name of DIR that starts with '.' and is loaded without --dotfiles (RFC 8615),
 * and that a listing shows. */
#define WELL_KNOWN_NAME ".well-known"
#define DIRENT_BUFFER_SIZE 4096 /* one getdents64 batch per directory level */
/* Anonymous memory, touched (and so paid for) only as far as it is filled. */
#define ARENA_PROT (PROT_READ | PROT_WRITE)
#define ARENA_FLAGS (MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)

/* One sealed arena: a memfd (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)
 * holding bodies back to back, and its read-only shared mapping. */
struct file_arena {
	const char *base; /* the mapping: a body at base + k is the memfd's byte k */
	uint64_t size;    /* the memfd's bytes */
	int32_t fd;       /* the memfd, close-on-exec */
	uint32_t reserved;
};

/* Loaded files' descriptors file_walk.c's close_later keeps open at most before
 * close_range closes them: 31 syscalls saved in 32 files, for 32 descriptors more at
 * most while loading (it makes room when they run out). */
#define SITE_CLOSE_BATCH 32

/* site_snapshot.body_fd_at when the memfd's offset is not known (after a failed
 * lseek or sendfile): the next sendfile seeks first. */
#define FILE_FILL_OFFSET_UNKNOWN UINT64_MAX
/* site_snapshot.body_allocated after a fallocate failed: none asked again. */
#define FILE_FILL_NO_ALLOCATE UINT64_MAX

/* The cache: the table site_find reads, and what the two walks that fill it keep
 * (the first counts, the second loads; site_load). */
struct site_snapshot {
	/* Sized by the first walk, in anonymous memory; what site_find reads: */
	struct cached_file *files; /* entries_max + variants_max entries */
	uint32_t *index_slot;      /* index_size slots: entry number + 1; 0 is empty */
	uint32_t index_size;       /* a power of two, at least 2 * entries_max: load <= 1/2 */
	uint32_t entry_count;      /* files and directories in files[] (the first walk: seen) */
	char *name_arena;          /* names_max bytes: every relative path, unterminated */
	char *head_arena;          /* every file's and representation's validators and heads
				    * (HEAD_ARENA_PER_FILE at most each), packed */
	char *body_arena;          /* site_arena_span() bytes reserved: the bodies read
				    * by this load, packed (large ones aligned), in the memfd
				    * body_fd (arenas[new_arena] once sealed) */
	uint64_t body_fill;        /* the bytes in it, padding included */
	uint64_t body_padding;     /* the padding in it (site_body_start) */
	int body_fd;               /* the memfd being filled; -1 when none */
	uint64_t body_fd_at;       /* body_fd's file offset, where the next sendfile writes
				    * (FILE_FILL_OFFSET_UNKNOWN when not known) */
	uint64_t body_allocated;   /* body_fd's bytes from 0 fallocate'd ahead of the fill
				    * (file_walk.c allocate_ahead); FILE_FILL_NO_ALLOCATE
				    * once fallocate failed */
	int fill_by_sendfile;      /* bodies go in by sendfile into body_fd, not read into
				    * the mapping (site_open_body_arena, copy_body) */
	int close_fds[SITE_CLOSE_BATCH]; /* the loaded files' descriptors not closed yet */
	uint32_t close_count;      /* in close_fds (file_walk.c close_later) */
	uint8_t new_arena;         /* the arena the body arena becomes: after the reused ones */
	int manifest_fd;           /* this load's manifest for the next image; -1 when none */
	struct file_stamp *stamps; /* entries_max: files[i]'s stamp at stamps[i] */
	/* A reload's reuse (site_reuse): the previous image's manifest, checked: */
	const void *old_manifest;  /* its read-only mapping; NULL when none */
	uint64_t old_manifest_bytes;
	uint32_t *old_slot;        /* old_slots slots: record number + 1; 0 is empty */
	uint32_t old_slots;        /* a power of two, at least twice the records */
	uint64_t arena_live[FILE_ARENAS_MAX]; /* bytes of each arena that files use */
	uint64_t budget;           /* --cache-bytes: the body arena's bytes */
	uint64_t huge_page;        /* huge_page_size() at the body arena's opening: its
				    * mapping's alignment, the blocks join_large_bodies joins */
	uint8_t huge_join_due;     /* 1: the walk's arena (huge_join_arena) is sealed and its
				    * large bodies not joined yet (site_join_huge_pages) */
	uint8_t huge_join_arena;
	int budget_set;            /* site_set_budget was called */
	int root_fd;               /* DIR, open from the loading walk on (site_root_fd) */
	/* What the first walk counted: */
	uint32_t entries_max;      /* entries */
	uint32_t variants_max;     /* files whose name ends in .br, .zst or .gz, and those of a
				    * compressible type (file_gzip.c) */
	uint32_t directories;      /* directories among the entries, the root not included */
	uint64_t names_max;        /* name bytes */
	/* --listing (BEHAVIOUR 10.14): the pages, made after the loading walk */
	uint32_t listings_max;     /* LISTING_ORDERS pages for each directory and the root
				    * with --listing, else 0 */
	uint32_t listing_count;    /* pages at files[entries_max + variants_max ...] */
	char *listing_arena;       /* each page's name ("dir/", "" for the root), then its
				    * bytes; listing_arena_max reserved */
	uint64_t listing_arena_max;
	uint64_t listing_used;
	uint64_t root_mtime;       /* DIR's own mtime (as Last-Modified serves it) */
	/* Filled by the second walk (the first one counts with entry_count, names_used): */
	uint64_t names_used;
	uint32_t file_count;       /* regular files among the entries, in memory */
	uint32_t variant_count;    /* representations at files[entries_max ...] */
	uint64_t bytes_total;      /* body bytes in the snapshot, copied or reused (the budget) */
	uint64_t heads_used;
	uint64_t heads_prefaulted; /* the head arena's bytes from 0 faulted in ahead of the
				    * rendering (site_heads_ahead) */
	uint32_t skipped;          /* entries passed over (site_skip) */
	uint32_t unsettled;        /* files that never settled (site_settle) */
	uint64_t quiet_ns;         /* --watch: how old an mtime must be; 0: take every file */
	uint64_t settle_left_ns;   /* what the load may still wait for files to settle */
	uint64_t load_ns;          /* CLOCK_REALTIME when the load began */
	/* gzip at load (file_gzip.c): */
	int compress_level;        /* COMPRESS_LEVEL_MIN..MAX; 0: off */
	uint32_t gzip_count;       /* representations compressed by this load and kept */
	uint32_t gzip_reused;      /* representations carried from the previous image */
	uint32_t gzip_runs;        /* files this load compressed (kept or not) */
	uint32_t generated;        /* gzip_count + gzip_reused: the first representations,
				    * files[entries_max ...], until link_variants adds those
				    * beside their files */
	int gzip_deferred;         /* site_defer_gzip: count the candidates, make none */
	uint32_t gzip_pending;     /* the candidates a deferred load counted */
	uint64_t heads_reserved;   /* the head arena's bytes (twice the need when deferred) */
	uint64_t files_reserved;   /* the table's bytes (files[]) */
	uint8_t *gzip_none;        /* entries_max bytes (with compression on): 1 when files[i]
				    * was compressed at compress_level (now or by the previous
				    * image) and the result was not worth keeping */
	/* The load: */
	int counting;              /* the first walk: count entries, open no file */
	uint32_t max_entries;      /* --max-files */
	unsigned load_flags;       /* SITE_* */
	const char *root_dir;      /* --root */
	site_directory_fn on_directory; /* --watch's hook, or NULL */
	uint64_t load_second;      /* the wall clock when the load began */
	char path[SITE_PATH_MAX + 1]; /* the walk's current relative path */
	char dirent_buffer[SITE_DEPTH_MAX + 1][DIRENT_BUFFER_SIZE]; /* one per level */
	struct cached_file error_pages[ERROR_PAGE_COUNT]; /* --error-page: each its file, its
							  * head of its status */
	struct file_arena arenas[FILE_ARENAS_MAX]; /* cached_file.arena indexes it */
};
/* Every site's cache (sites.h), and the one current: the request's being answered, or the
 * site being loaded. The four files read and write the current one as `cache`. */
struct site_snapshots {
	uint32_t current;                          /* site_enter */
	struct site_snapshot site[SITES_MAX];
};
extern struct site_snapshots cache_sites; /* site.c */
#define cache (cache_sites.site[cache_sites.current])

/* What the loading walk learnt of one file (file_walk.c's copy_file). */
struct loaded_file {
	const char *body;   /* in the body arena or a reused one; NULL when empty or on disk */
	uint8_t place;      /* enum file_place */
	uint8_t arena;      /* the arena body is in */
	struct file_stamp stamp; /* its inode names it in the ETag */
	uint64_t size;      /* bytes copied, or FILE_SKIPPED */
	uint64_t mtime;     /* Last-Modified: the mtime's second, within [0, load_second] */
	uint64_t settle_ns; /* FILE_UNSETTLED: when it may be settled (CLOCK_REALTIME) */
};

/* FNV-1a over the name: cheap, and good enough for short path keys. Returns the hash
 * both the table's index and the previous manifest's are probed from. */
static inline uint32_t site_name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* site.c: the table. */

/* Writes "apollod: --root DIR: <what>[: <relative path>][: <reason>]\n" to stderr, the
 * relative path being cache.path (none when empty), the reason err's text (none when
 * err is 0: a limit). Returns code. */
enum exit_code site_fail(enum exit_code code, const char *what, long err);

/* An entry start-up passes over (BEHAVIOUR 10.3): in the loading walk, writes
 * "apollod: --root DIR: skipped: <what>[: <relative path>][: <reason>]\n" and counts it
 * (site_skipped); the counting walk, which meets it first, says nothing. Returns
 * EXIT_OK: the walk goes on. */
enum exit_code site_skip(const char *what, long err);

/* Maps bytes of anonymous memory at *at (nothing, *at NULL, for 0). Returns EXIT_OK or
 * EXIT_ROOT_READ (reported). */
enum exit_code site_reserve(uint64_t bytes, void **at);

/* Faults in bytes of writable memory at `at` (page-aligned) by one
 * madvise(MADV_POPULATE_WRITE), where the first write of each 4 KiB page would take a
 * fault of its own: memory the load is about to fill whole (the table, the names, the
 * stamps, the manifest). Only a saving: a refusal (a kernel before 5.14) leaves the
 * pages to be faulted one by one as before, so the result is not checked. */
void site_prefault(void *at, uint64_t bytes);

/* Faults in the head arena (site_prefault) from what is faulted in so far up to
 * heads_used + need, at least HEAD_PREFAULT_STEP at a time and never past what is
 * reserved: called before a head or validators are rendered there. */
void site_heads_ahead(uint64_t need);

/* Sizes the table from what the first walk counted (entry_count, names_used), maps it
 * and the arenas, and resets the counts for the second walk. Returns EXIT_OK or
 * EXIT_ROOT_READ (reported). */
enum exit_code site_allocate(void);

/* Puts files[at], whose name is set, in the hash index (which has room: allocate). */
void site_index_insert(uint32_t at);

/* Puts every entry the loading walk recorded in the hash index, and renders each file
 * in memory's validators from its size and stamp, in one pass once the walk is done and
 * before anything looks one up or reads an ETag (site_add_gzip, site_finish): between
 * the walk's syscalls each insert cost about four times as much
 * (benchmarks/reports/2026-12-06-loader.md). */
void site_index_entries(void);

/* Records the entry path[0..len) of `kind`: its name; its index slot comes once the
 * walk is done (site_index_entries), so site_find finds none of the walk's entries
 * before. The caller checked every limit. Returns the entry. */
struct cached_file *site_add_entry(size_t len, enum cached_kind kind);

/* Records the loaded file path[0..len): its entry and, in memory, its stamp; its
 * validators come once the walk is done (site_index_entries), its heads once every
 * file is loaded (site_finish). The caller checked every limit. */
void site_add_file(size_t len, const struct loaded_file *l);

/* The encoding whose file name suffix name[0..len) ends with (".br", ".zst", ".gz", after at
 * least one byte), or FILE_ENCODING_IDENTITY. */
enum file_encoding site_suffix_encoding(const char *name, size_t len);

/* Renders f's 200 head in FILE_HEAD_FORM at the end of the head arena, from its name
 * (the type: a listing's is LISTING_TYPE; its --header-for fields), encoding,
 * validators and variants (file_head_render). A file on disk keeps only its type and
 * --header-for lines there (struct cached_file's head): its head is made per request. */
void site_render_heads(struct cached_file *f);

/* After the loading walk: links the variants, renders every file's and representation's
 * heads, then (--listing) makes the listings. Returns EXIT_OK or the start-up error
 * (reported). */
enum exit_code site_finish(void);

/* listing_pages.c: --listing's pages (BEHAVIOUR 10.14). */

/* Before the table is mapped, from what the first walk counted: sets listings_max and
 * listing_arena_max (both 0 without --listing). */
void site_size_listings(void);

/* With --listing: the listing of every directory, the root included, that has no index
 * page and no hidden component. Returns EXIT_OK or EXIT_ROOT_READ (reported) when the
 * sorting space cannot be mapped. */
enum exit_code site_add_listings(void);

/* file_gzip.c: gzip representations made at load (BEHAVIOUR 10.10). */

/* Returns 1 when a file named name[0..len) would get a gzip representation if long
 * enough and worth it: compression is on and its type is compressible. */
int site_may_compress(const char *name, size_t len);

/* After the loading walk, before the arenas are sealed: gives every candidate file (in
 * memory, COMPRESS_MIN_BYTES or more, compressible, no X.gz beside it) its gzip
 * representation: the previous image's when its bytes were carried and its gzip record
 * was made at this level (site_reusable_gzip: nothing compressed, and a result
 * once not worth keeping is not tried again), else compressed now into the body arena
 * when it saves 5% and fits the budget. Sets gzip_count, gzip_reused, gzip_runs,
 * generated and gzip_none. Nothing when compression is off or there is no body arena;
 * no file is compressed when no compressor can be made. */
void site_add_gzip(void);

/* Runs the compressor over every candidate not given a representation yet (each kept
 * result made into the body arena, counted against the budget and linked), with the
 * previous image's carried first when there is a manifest (site_add_gzip). Sets
 * gzip_count, gzip_reused and gzip_runs. */
void site_gzip_all(void);

/* site_compress_late's arena steps (file_arenas.c): the first free arena slot
 * becomes new_arena and a fresh body arena is opened for it (EXIT_OK or EXIT_ROOT_READ,
 * reported); then site_seal_late seals it and writes the manifest anew (the one
 * inherited closed). */
enum exit_code site_open_late_arena(void);
enum exit_code site_seal_late(void);

/* file_arenas.c: the arenas and a reload's reuse (BEHAVIOUR 10.17). */

/* Creates the body arena: a memfd that can be sealed, site_arena_span() long
 * (sparse), mapped shared and writable at body_arena for the loading walk. Returns
 * EXIT_OK or EXIT_ROOT_READ (reported). */
enum exit_code site_open_body_arena(void);

/* The body arena's length while it is filled: the budget, and room for the padding of
 * every body that can be aligned (FILE_BODY_ALIGN): at most budget / FILE_BODY_ALIGNED_MIN
 * of them fit the budget. */
uint64_t site_arena_span(void);

/* Moves the body arena's fill to where a body of size bytes starts (FILE_BODY_ALIGN for
 * FILE_BODY_ALIGNED_MIN bytes or more, while the padding so far leaves room: then the
 * fill never passes budget + that room, whatever bodies are read and not kept) and
 * returns that place. */
char *site_body_start(uint64_t size);

/* Moves descriptor fd above the connection slots (CONN_SLOTS), where it takes no slot a
 * connection could use, when RLIMIT_NOFILE allows it. Returns the descriptor it now has
 * (fd itself when it could not move). */
int site_above_slots(int fd);

/* The previous image's record of path[0..len) when its stamp is the file's now (device,
 * inode, size, mtime and ctime): its bytes are the file's; with now NULL, whatever its
 * stamp (a file that never settled keeps it: site_settle). NULL when there is none. */
const struct file_manifest_record *site_reusable(size_t len,
						       const struct file_stamp *now,
						       uint64_t size);

/* The previous image's gzip record of the file name[0..len) (file_manifest.h) when it
 * was made at level from the bytes stamp describes (its stamp is *stamp): its
 * representation, or with size 0 a result not worth keeping. NULL when there is none. */
const struct file_manifest_record *site_reusable_gzip(const char *name, size_t len,
							    const struct file_stamp *stamp,
							    int level);

/* Forgets the previous image's manifest (its mapping and index; the memfd is closed).
 * Nothing when there is none. */
void site_forget_old_manifest(void);

/* After a loading walk that succeeded: settles the reused arenas (the compaction rule),
 * seals the body arena and writes the manifest for the next image. Returns EXIT_OK or
 * EXIT_ROOT_READ (reported) when the body arena cannot be sealed. */
enum exit_code site_seal_arenas(void);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_SITE_SNAPSHOT_H */
