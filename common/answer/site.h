/* The warm file cache (--root DIR): at start-up every regular file under DIR that fits
 * what is left of --cache-bytes (site_set_budget; the others are recorded by name,
 * size and mtime only and served from disk: disk_file.h, BEHAVIOUR 10.18) is copied
 * into a sealed memory file (the snapshot, an arena: one memfd holding the bodies back to
 * back, sealed against write, shrink and grow, mapped read-only and shared by the
 * workers; no later change on disk reaches a client, and nobody can change the copy)
 * and its 200 head rendered once, in the keep-alive form (the close form is spliced from
 * it, and a 304 head rendered from the validators, per request: file_head_304); the
 * table is sized by a first walk that only counts, so it costs what the tree needs
 * (benchmarks/reports/2026-12-01-root-memory.md); every directory is recorded too, so
 * that /dir can be redirected to /dir/. Names starting with '.' (dotfiles and
 * dot-directories, with all below them) are left out unless SITE_DOTFILES is given,
 * but for DIR's own .well-known directory (RFC 8615), whose entries follow the same rule.
 * --header-for fields (path_fields.h) are rendered into the heads of the files they name.
 * A request then costs a lookup and one writev of head + the snapshot's copy (a body of
 * FILE_BY_REFERENCE_MIN bytes or more: the head with MSG_MORE, then sendfile from the
 * arena, by reference): no open, no read, no copy, no allocation (a file on disk: one
 * open beneath DIR and one statx). Lookup only ever matches names loaded at start-up, so
 * no request can reach outside DIR. */
#ifndef APOLLOD_COMMON_SITE_H
#define APOLLOD_COMMON_SITE_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/exit_codes.h"
#include "common/answer/path_fields.h"
#include "common/answer/responses.h"
#include "common/base/span.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* Limits. More files and directories than --max-files (cli.h) is a start-up error
 * (EXIT_ROOT_LIMIT), never a silent truncation; an entry whose path is too long is
 * skipped with one line (site_load). */
#define SITE_PATH_MAX 255                 /* bytes of a path relative to DIR */
/* Directory levels below DIR. No limit of its own: each level takes a name of at least
 * one byte and a '/', so a 255-byte path holds at most 128 directories, and the walk's
 * state per level (a getdents buffer, in .bss and touched only as deep as the tree goes,
 * an open descriptor and a few stack frames) is bounded by the path limit. */
#define SITE_DEPTH_MAX ((SITE_PATH_MAX + 1) / 2)
STATIC_ASSERT(2 * SITE_DEPTH_MAX + 1 > SITE_PATH_MAX,
	      "a path one level deeper than SITE_DEPTH_MAX is longer than the limit");
/* --cache-bytes: the snapshot's budget, the body bytes held in memory (BEHAVIOUR 10.18).
 * 256 MiB by default: a site's pages, styles, scripts and images fit many times over, so
 * they keep the snapshot and the one-writev path, while what does not fit (downloads,
 * videos, images of disks) is what sendfile from the page cache serves as fast anyway;
 * and a reload, during which two images hold a snapshot each, costs at most twice it. */
#define SITE_BUDGET_DEFAULT (256ull << 20)
#define SITE_BUDGET_MAX (1ull << 40) /* 1 TiB: address space reserved, not memory */
#define SITE_HEAD_MAX 384                 /* one rendered 200 head */
/* One stored head with every --header-for field in it. */
#define FILE_HEAD_STORED_MAX (SITE_HEAD_MAX + PATH_FIELDS_BLOCK_MAX)
#define SITE_ENTRY_SIZE 88                /* sizeof(struct cached_file) */
/* A body (or a 206's slice) this long or longer leaves by reference (head with MSG_MORE,
 * then through a send pipe, vmsplice and splice, or by sendfile from its arena when no
 * pipe is free: send_pipes.h); a shorter one is copied by the one writev. Set from the
 * crossover of the copy and the send pipe measured on 2026-12-06 by
 * bench/cpu_independent.py (benchmarks/reports/2026-12-06-send-pipes.md), loopback,
 * keep-alive c=8: at 256 KiB the copy cost less, at 512 KiB the two were level, at 1 MiB
 * the pipe cost 0.7 of the copy. */
#ifdef APOLLOD_BY_REFERENCE_MIN /* bench/crossover.py builds each way with this */
#define FILE_BY_REFERENCE_MIN ((uint64_t)(APOLLOD_BY_REFERENCE_MIN))
#else
#define FILE_BY_REFERENCE_MIN ((uint64_t)1u << 20)
#endif
/* A body of FILE_BODY_ALIGNED_MIN bytes or more starts at a multiple of FILE_BODY_ALIGN
 * in its arena: sendfile then hands the socket whole pages, where a body at an odd
 * offset made every 64 KiB the kernel moves end mid-page (4 to 22% more server CPU
 * at 4 MiB, 2026-12-03-crossover-remeasured.md §12). The padding, under FILE_BODY_ALIGN
 * bytes a body, lies in the page the previous body ends in, so it takes no memory; it
 * is not counted against --cache-bytes (the arena's memfd has room for it:
 * site_arena_span). Not below FILE_BODY_ALIGN: that bounds the padding by the
 * budget however small the threshold a bench build sets. */
#define FILE_BODY_ALIGN 4096u
#define FILE_BODY_ALIGNED_MIN \
	(FILE_BY_REFERENCE_MIN > FILE_BODY_ALIGN ? FILE_BY_REFERENCE_MIN : (uint64_t)FILE_BODY_ALIGN)
STATIC_ASSERT((FILE_BODY_ALIGN & (FILE_BODY_ALIGN - 1)) == 0, "a power of two");
/* Sealed arenas the snapshot may hold at once (each a memfd, a descriptor). */
#define FILE_ARENAS_MAX 8
#define FILE_ARENA_NONE 0xff /* cached_file.arena of a body in no arena: a listing's */
STATIC_ASSERT(FILE_ARENAS_MAX < FILE_ARENA_NONE, "arena numbers fit a byte");
/* The one form a 200 head is stored in. Only the last response of a connection is in the
 * other (close) form, so only it takes the extra queue entry the splice needs. */
#define FILE_HEAD_FORM CONN_FORM_KEEP_ALIVE

enum cached_kind {
	CACHED_FILE = 0,      /* a regular file: served */
	CACHED_DIRECTORY = 1, /* a directory: /name answers 301 to /name/ */
};

/* A representation's content coding (BEHAVIOUR 10.10): X itself, or the precompressed
 * X.br, X.zst or X.gz beside it, in order of preference (the order breaks a tie of
 * weights: br and zstd make smaller text than gzip). */
/* X(id, content coding, file name suffix, ETag suffix) */
#define FOR_EACH_FILE_ENCODING(X)                         \
	X(FILE_ENCODING_BR, "br", ".br", "-br")           \
	X(FILE_ENCODING_ZSTD, "zstd", ".zst", "-zst")     \
	X(FILE_ENCODING_GZIP, "gzip", ".gz", "-gz")
enum file_encoding {
	FILE_ENCODING_IDENTITY = 0,
#define FILE_ENCODING_ENUM(id, coding, suffix, etag_suffix) id,
	FOR_EACH_FILE_ENCODING(FILE_ENCODING_ENUM)
#undef FILE_ENCODING_ENUM
	FILE_ENCODING_COUNT
};
#define FILE_VARIANTS (FILE_ENCODING_COUNT - 1) /* the encoded ones */
/* The longest content coding's name: what the access log keeps room for (BEHAVIOUR 14). */
#define FILE_CODING_MAX 4
#define FILE_CODING_FITS(id, coding, suffix, etag_suffix) \
	STATIC_ASSERT(sizeof(coding) - 1 <= FILE_CODING_MAX, "a coding fits FILE_CODING_MAX");
FOR_EACH_FILE_ENCODING(FILE_CODING_FITS)
#undef FILE_CODING_FITS

/* Where a file's bytes are (BEHAVIOUR 10.18). */
enum file_place {
	FILE_IN_MEMORY = 0, /* the snapshot: body, head and validators loaded at start-up */
	FILE_ON_DISK = 1,   /* beyond --cache-bytes: only its name, size and mtime were
			     * recorded (for lookup and listings); each request opens it and
			     * takes length and validators from the open (disk_file.h) */
	FILE_LISTED_LIVE = 2, /* a listing of a directory with a child on disk: rendered per
			       * request (site_live_listing, BEHAVIOUR 10.14) from its
			       * rows (live) and that child's statx now */
};

/* One cached file or directory, or a precompressed representation of a file. */
struct cached_file {
	const char *name;     /* path relative to DIR, no leading '/', in the name arena (a
			       * representation: its file's, which gives the type) */
	union {
		const char *body;      /* FILE_IN_MEMORY: the snapshot's bytes, in arena's
					* read-only mapping (a listing's in anonymous memory);
					* NULL for an empty file or a directory */
		const char *disk_name; /* FILE_ON_DISK: the name to open below DIR, in the name
					* arena: file_disk_name_len bytes (a representation's
					* own, X.br, not its file's) */
		const void *live;      /* FILE_LISTED_LIVE: its directory's rows, in the listing
					* arena (listing_pages.c) */
	};
	uint64_t size;        /* body bytes (on disk: at start-up); 0 for a directory */
	uint64_t mtime;       /* Last-Modified in Unix seconds: the file's, never after load */
	const char *head;     /* the 200 head in FILE_HEAD_FORM, in the head arena (files);
			       * FILE_ON_DISK and FILE_LISTED_LIVE: its Content-Type (type_len
			       * bytes), then its --header-for lines (fields_len bytes),
			       * head_len in all */
	const char *etag;     /* the ETag, quotes included, in the head arena; NULL on disk */
	/* variant[e - 1]: the representation of encoding e (X.br's bytes as br, ...), not in
	 * the index; NULL when X has no such file beside it (or this is one) */
	const struct cached_file *variant[FILE_VARIANTS];
	uint16_t head_len;
	uint16_t name_len;
	uint16_t rest_at;     /* in the 200 head: the first byte after the length digits */
	uint8_t type_len;     /* the Content-Type's bytes, at HEAD_200_TYPE_AT in a 200 head */
	uint8_t etag_len;
	uint8_t kind;         /* enum cached_kind */
	uint8_t encoding;     /* enum file_encoding: identity, or a representation's */
	uint16_t fields_len;  /* its --header-for lines: the last of the 200 head's fields,
			       * before its Connection line (path_fields.h) */
	uint8_t arena;        /* the arena (file_arenas.c) that holds body; FILE_ARENA_NONE: no arena */
	uint8_t place;        /* enum file_place */
	uint8_t made;         /* 1: a gzip representation made at load (file_gzip.c), not a
			       * file beside its own */
	uint8_t reserved;
};

/* Where f's bytes from `at` on lie for sendfile: sets *fd to its arena's memfd and
 * returns the offset there. Returns -1 (nothing set) when f's body is in no arena (a
 * listing), so it must leave by copy. Pure: no syscalls. Out of line: it runs once per
 * response by reference, which costs far more. */
int64_t file_body_offset(const struct cached_file *f, uint64_t at, int *fd);

/* By enum file_encoding (file_head.c): the content codings ("br", "zstd", "gzip"), the
 * file name suffixes (".br", ".zst", ".gz") and the ETag suffixes ("-br", "-zst", "-gz");
 * empty for identity. */
extern const struct text_span file_encoding_coding[FILE_ENCODING_COUNT];
extern const struct text_span file_encoding_suffix[FILE_ENCODING_COUNT];
extern const struct text_span file_encoding_etag_suffix[FILE_ENCODING_COUNT];

/* Writes v in lower-case hex without leading zeros at out (room for U64_HEX_MAX bytes).
 * Returns the digit count. Pure. */
size_t file_u64_to_hex(uint64_t v, char *out);

/* The length of a FILE_ON_DISK f's disk_name: its name's, plus its coding's suffix for a
 * representation (whose name is its file's). */
static inline size_t file_disk_name_len(const struct cached_file *f)
{
	return f->name_len + file_encoding_suffix[f->encoding].len;
}

/* Returns 1 when f has a precompressed representation beside it. */
static inline int file_has_variants(const struct cached_file *f)
{
	for (int i = 0; i < FILE_VARIANTS; i++)
		if (f->variant[i])
			return 1;
	return 0;
}

/* f's validators as its heads carry them: HEAD_LAST_MODIFIED_FIELD and HEAD_ETAG_FIELD
 * lines, in the head arena just before its ETag. f is a file or a representation. */
static inline struct text_span file_validators(const struct cached_file *f)
{
	struct text_span v = {f->etag - VALIDATORS_ETAG_AT,
			      (uint32_t)(VALIDATORS_ETAG_AT + f->etag_len)};
	return v;
}

/* Returns 1 when f's heads carry Vary (BEHAVIOUR 10.10): f is a representation, or a
 * file with one beside it. */
static inline int file_varies(const struct cached_file *f)
{
	return f->encoding != FILE_ENCODING_IDENTITY || file_has_variants(f);
}

/* The bytes of f's stored 200 head before its Connection line (head_tail[FILE_HEAD_FORM]):
 * what a response in another form queues before head_tail of its own. */
static inline uint32_t file_head_cut(const struct cached_file *f)
{
	return f->head_len - head_tail[FILE_HEAD_FORM].len;
}

/* Renders at out f's 304 head in form: render_head_304 of its validators, with Vary
 * when it varies, and its --header-for fields (RFC 9111 4.3.4: a 304 freshens the stored
 * response with the fields it carries, so it carries the 200's). out must have room for
 * FILE_HEAD_304_MAX + PATH_FIELDS_BLOCK_MAX bytes. Returns the bytes written. Pure. */
static inline size_t file_head_304(char *out, const struct cached_file *f, enum conn_form form)
{
	struct text_span fields = {f->head + file_head_cut(f) - f->fields_len, f->fields_len};
	return render_head_304(out, file_validators(f), file_varies(f), fields, form);
}

/* Starts f's validators at out: HEAD_LAST_MODIFIED_FIELD of f->mtime, HEAD_ETAG_FIELD
 * and the ETag's opening quote, with f->etag pointing at it. Returns where the ETag goes
 * on; file_validators_end closes it at p and returns the byte after it. Pure. */
char *file_validators_start(char *out, struct cached_file *f);
char *file_validators_end(struct cached_file *f, char *p);

/* Renders at out f's validators: HEAD_LAST_MODIFIED_FIELD of f->mtime and HEAD_ETAG_FIELD
 * of the ETag "<size>-<mtime_ns>-<inode>" with f's coding's suffix (BEHAVIOUR 10.8); sets
 * f->etag and f->etag_len. out has room for FILE_VALIDATORS_MAX bytes. Returns the bytes
 * written. Pure. */
size_t file_validators_render(char *out, struct cached_file *f, uint64_t size,
			      uint64_t mtime_ns, uint64_t inode);

/* Renders at out f's 200 head in FILE_HEAD_FORM: Content-Type type, Content-Length
 * f->size, Content-Encoding (a representation), f's validators (file_validators), Accept-Ranges, Vary
 * (file_varies), then the --header-for lines header_for; sets f->head, head_len,
 * type_len, rest_at and fields_len. out has room for FILE_HEAD_STORED_MAX bytes.
 * Returns head_len. Pure. */
size_t file_head_render(char *out, struct cached_file *f, struct text_span type,
			struct text_span header_for);

/* Where a 200 head's Content-Type value starts. */
#define HEAD_200_TYPE_AT (sizeof(HEAD_200_PREFIX) - 1)

/* site_load flags */
#define SITE_DOTFILES 0x1 /* --dotfiles: load names starting with '.' too */
#define SITE_LISTING 0x2  /* --listing: list each directory without FILE_INDEX_NAME */

/* The page a path ending in '/' serves (BEHAVIOUR 10.4: index pages). */
#define FILE_INDEX_NAME "index.html"

/* Sets --cache-bytes (at most SITE_BUDGET_MAX) before site_load: the body
 * bytes the snapshot holds. SITE_BUDGET_DEFAULT when never called. Files are given
 * memory first fit in walk order (getdents order, depth first): each file whose bytes fit
 * what is left of the budget is read; any other is recorded with metadata only and
 * served from disk (BEHAVIOUR 10.18). */
void site_set_budget(uint64_t bytes);

/* Sets the level gzip representations are made at by site_load (compress.h's
 * COMPRESS_LEVEL_MIN..MAX; BEHAVIOUR 10.10), or 0 for none (--compress off). None when
 * never called. */
void site_set_compression(int level);

/* What the last site_load did with gzip (all 0 with compression off): the
 * representations it compressed and kept; those it carried from the previous image
 * unchanged (a reload: site_reuse), compressing nothing; and the files it ran the
 * compressor over, kept or not. */
uint32_t site_gzip_count(void);
uint32_t site_gzip_reused(void);
uint32_t site_gzip_runs(void);

/* BEHAVIOUR 10.10: the first start serves files as stored at once. Before site_load
 * in the process the user started (compression on): the load makes no gzip
 * representation, only counts the files that would get one (site_gzip_pending),
 * and reserves head room to render every head once more; site_compress_late makes
 * them later, in the compressing generation the resident supervisor forks. */
void site_defer_gzip(void);
uint32_t site_gzip_pending(void);

/* In the compressing generation (forked from the supervisor, which holds the deferred
 * load's table and arenas): compresses every pending candidate into a new sealed arena
 * beside the identity ones (shared, not copied), links each kept result as its file's
 * gzip variant, renders the heads of those files again (now with Vary) and of their
 * representations, and writes the manifest anew for both arenas (site_hand_over
 * then hands them on). Sets what site_gzip_count and _runs read. Returns EXIT_OK,
 * or EXIT_ROOT_READ (reported) when the arena cannot be made or sealed. */
enum exit_code site_compress_late(void);

/* DIR's directory descriptor, held open (O_PATH, close-on-exec) from site_load on:
 * what a disk-served file is opened beneath (disk_open.h); -1 before a load. */
int site_root_fd(void);

/* Loads every regular file under root (a NUL-terminated path), whatever bytes its name
 * holds (a request names it percent-encoded); flags is SITE_* bits; at most
 * max_files files and directories together. Symbolic links and other non-regular
 * entries are skipped, never followed. An entry that cannot be opened, listed or read,
 * or whose path is longer than SITE_PATH_MAX, is skipped with one line naming it
 * (site_skip; site_skipped counts them) and the rest is loaded. Returns
 * EXIT_OK, EXIT_ROOT_LIMIT past max_files, or EXIT_ROOT_READ when DIR itself cannot be
 * opened or listed or memory cannot be mapped; in both failure cases a one-line reason
 * has gone to stderr. */
enum exit_code site_load(const char *root, unsigned flags, uint32_t max_files);

/* A hook the first walk of site_load calls for every directory it is about to list
 * (the root first, path ""; path is relative to root, NUL-terminated, valid for the call):
 * --watch (common/process/watch.h) watches it there, so a change after the listing is
 * never missed. Returns EXIT_OK, or a start-up error it has reported, which ends the
 * load. Set it before site_load; NULL (the default): none. */
typedef enum exit_code (*site_directory_fn)(int dirfd, const char *path);
void site_on_directory(site_directory_fn hook);

/* --error-page and --fallback (BEHAVIOUR 10.12): files of the snapshot served for a GET
 * or HEAD that finds no file, and for the other answers with a body; NULL when not given. */
struct site_pages {
	const struct cached_file *error[ERROR_PAGE_COUNT]; /* by enum error_page_id: the
					      * file's bytes under a stored head of that status
					      * without validators, never a 304/206 */
	const struct cached_file *fallback;  /* served as the file itself: 200, 304, 206 */
};

/* After site_load: finds the loaded files the targets name (a '/' then the name
 * relative to DIR, exactly: no decoding; NULL when not given) and renders each error
 * page's head (its status, type, length and --header-for fields). Returns EXIT_OK with
 * *pages filled, or EXIT_ROOT_READ when a target is no loaded file, after the line
 * "apollod: --root DIR: --fallback names no loaded file: NAME\n" (or --error-page CODE). */
enum exit_code site_load_pages(const char *const error[ERROR_PAGE_COUNT], const char *fallback,
				struct site_pages *pages);

/* A reload's reuse (BEHAVIOUR 10.17): what one image hands the next (the reload
 * hand-over, common/process/reload.h): the manifest's memfd, then the arenas' memfds. */
#define SITE_HANDOVER_MAX 8

/* Before site_load, in an image a reload started: takes fds[0..n), what the previous
 * image handed over (site_hand_over's order). When the manifest and every arena
 * check out (sealed memfds, file_manifest_check), the load reuses the bytes of each file
 * whose device, inode, size, mtime and ctime are unchanged instead of reading it; else
 * it closes them all and the load reads everything. Returns the arenas taken (0: none).
 * Never fails start-up. */
uint32_t site_reuse(const int *fds, uint32_t n);

/* In an image a reload started, before a site's site_reuse: fds[0..n) is what the
 * previous image handed over, every site's group (site_hand_over's order, one
 * group after another; -1: a descriptor already taken). Finds the group whose manifest
 * says it was loaded from root (file_manifest_site_key): sets *at to its first
 * descriptor and returns its length, the manifest's and its arenas'; 0 when none does
 * (then the site reads everything). Reads each manifest's head (mapped for a moment);
 * stops at anything that is not one. Takes nothing: the caller passes the group on. */
uint32_t site_handed_group(const int *fds, uint32_t n, const char *root, uint32_t *at);

/* After site_load: the descriptors the image a reload starts must receive, the
 * manifest's then the arenas' (fds: SITE_HANDOVER_MAX room). Returns their count,
 * 0 when there is no arena (or no manifest could be made). */
uint32_t site_hand_over(int *fds);

/* Joins into huge pages the large bodies of each site's walk, which site_seal_arenas
 * left for later (BEHAVIOUR 10.17, huge_pages.h: the kernel may have to make room for
 * each huge page, which cost up to 2 CPU s on 800 MB of 16 MiB files, so it is kept off
 * the first start's path to readiness): site_release does it in the supervisor while
 * the first generation serves, and a reload's generation before it says it is ready
 * (the old one serves meanwhile). Each site's once; nothing for a site without it. */
void site_join_huge_pages(void);

/* In the resident supervisor, which loaded the first snapshot and then forked the first
 * serving generation (and the compressing one, supervisor.h): first joins the large
 * bodies (site_join_huge_pages), then unmaps the snapshot's
 * arenas and closes their memfds unless they were handed over (site_hand_over:
 * reload_release_hand_over closes those), unmaps the table, its index, names, stamps,
 * heads and listings, and closes DIR: the supervisor holds no tree (BEHAVIOUR 17).
 * Nothing may read the cache afterwards (site_find finds nothing). */
void site_release(void);

/* Number of regular files held in memory (directories and files on disk not included)
 * and of body bytes loaded. */
uint32_t site_file_count(void);
uint64_t site_bytes(void);

/* Entries the last load skipped (site_load): unreadable or too long a path. */
uint32_t site_skipped(void);

/* --watch (BEHAVIOUR 10.16): before site_load, makes it take only settled files. A
 * file whose size, mtime or ctime changed while it was read, or whose mtime is less than
 * quiet_ms old, is read again once its mtime is quiet_ms old; the load waits wait_ms at
 * most in all. A file that does not settle in time keeps the bytes and validators the
 * previous image had of it (a reload's manifest) or, with none, is left out, and counts
 * in site_unsettled: the caller reads the tree again later. Never called: every
 * file is taken as read. */
void site_settle(uint32_t quiet_ms, uint32_t wait_ms);
uint32_t site_unsettled(void);

/* Returns the file or directory whose relative name is exactly the len bytes at path (no leading '/'),
 * or NULL. With --listing, a directory's listing is a file named "dir/" ("" for the
 * root's): no loaded name ends in '/' or is empty. Pure: no syscalls. */
const struct cached_file *site_find(const char *path, size_t len);

/* Makes site (< SITES_MAX) current: every site_* call from now on loads, reads or
 * releases its table and arenas (sites.h). Site 0, the default, is current at first. */
void site_enter(uint32_t site);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_SITE_H */
