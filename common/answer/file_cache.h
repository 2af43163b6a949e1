/* The warm file cache (--root DIR): at start-up every regular file under DIR is copied
 * into a sealed memory file (the snapshot, an arena: one memfd holding the bodies back to
 * back, sealed against write, shrink and grow, mapped read-only and shared by the
 * workers; no later change on disk reaches a client, and nobody can change the copy)
 * and its 200 head rendered once, in the keep-alive form (the close form is spliced from
 * it, and a 304 head rendered from the validators, per request: file_head_304); the
 * table is sized by a first walk that only counts, so it costs what the tree needs
 * (benchmarks/reports/2026-12-01-root-memory.md); every directory is recorded too, so
 * that /dir can be redirected to /dir/. Names starting with '.' (dotfiles and
 * dot-directories, with all below them) are left out unless FILE_CACHE_DOTFILES is given,
 * but for DIR's own .well-known directory (RFC 8615), whose entries follow the same rule.
 * --header-for fields (path_fields.h) are rendered into the heads of the files they name.
 * A request then costs a lookup and one writev of head + the snapshot's copy (a body of
 * FILE_BY_REFERENCE_MIN bytes or more: the head with MSG_MORE, then sendfile from the
 * arena, by reference): no open, no read, no copy, no allocation. Lookup only ever matches names loaded at start-up, so no
 * request can reach outside DIR. */
#ifndef APOLLOD_COMMON_FILE_CACHE_H
#define APOLLOD_COMMON_FILE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/exit_codes.h"
#include "common/answer/path_fields.h"
#include "common/answer/responses.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* Limits. Exceeding any of them is a start-up error (EXIT_ROOT_LIMIT), never a silent
 * truncation. The number of files and directories is --max-files (cli.h). */
#define FILE_CACHE_DEPTH_MAX 8                  /* directory levels below DIR */
#define FILE_CACHE_PATH_MAX 255                 /* bytes of a path relative to DIR */
#define FILE_CACHE_BYTES_MAX (1024ull << 20)    /* all file bytes together: 1 GiB */
#define FILE_CACHE_HEAD_MAX 384                 /* one rendered 200 head */
/* One stored head with every --header-for field in it. */
#define FILE_HEAD_STORED_MAX (FILE_CACHE_HEAD_MAX + PATH_FIELDS_BLOCK_MAX)
#define FILE_CACHE_ENTRY_SIZE 80                /* sizeof(struct cached_file) */
/* A body (or a 206's slice) this long or longer leaves by reference (head with MSG_MORE,
 * then sendfile from its arena); a shorter one is copied by the one writev. Set from the
 * crossover measured by bench/crossover.py (benchmarks/reports/2026-12-02-crossover.md). */
#ifdef APOLLOD_BY_REFERENCE_MIN /* bench/crossover.py builds each way with this */
#define FILE_BY_REFERENCE_MIN ((uint64_t)(APOLLOD_BY_REFERENCE_MIN))
#else
#define FILE_BY_REFERENCE_MIN ((uint64_t)4u << 20)
#endif
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
 * X.br or X.gz beside it, in order of preference. */
/* X(id, content coding, file name suffix, ETag suffix) */
#define FOR_EACH_FILE_ENCODING(X)                         \
	X(FILE_ENCODING_BR, "br", ".br", "-br")           \
	X(FILE_ENCODING_GZIP, "gzip", ".gz", "-gz")
enum file_encoding {
	FILE_ENCODING_IDENTITY = 0,
#define FILE_ENCODING_ENUM(id, coding, suffix, etag_suffix) id,
	FOR_EACH_FILE_ENCODING(FILE_ENCODING_ENUM)
#undef FILE_ENCODING_ENUM
	FILE_ENCODING_COUNT
};
#define FILE_VARIANTS (FILE_ENCODING_COUNT - 1) /* the encoded ones */

/* One cached file or directory, or a precompressed representation of a file. */
struct cached_file {
	const char *name;     /* path relative to DIR, no leading '/', in the name arena (a
			       * representation: its file's, which gives the type) */
	const char *body;     /* the snapshot's bytes, in arena's read-only mapping (a listing's
			       * in anonymous memory); NULL for an empty file or a directory */
	uint64_t size;        /* body bytes; 0 for a directory */
	uint64_t mtime;       /* Last-Modified in Unix seconds: the file's, never after load */
	const char *head;     /* the 200 head in FILE_HEAD_FORM, in the head arena (files) */
	const char *etag;     /* the ETag, quotes included, in the head arena */
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
	uint8_t arena;        /* the arena (file_cache.c) that holds body; FILE_ARENA_NONE: no arena */
	uint8_t reserved[3];
};

/* Where f's bytes from `at` on lie for sendfile: sets *fd to its arena's memfd and
 * returns the offset there. Returns -1 (nothing set) when f's body is in no arena (a
 * listing), so it must leave by copy. Pure: no syscalls. Out of line: it runs once per
 * response by reference, which costs far more. */
int64_t file_body_offset(const struct cached_file *f, uint64_t at, int *fd);

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

/* Where a 200 head's Content-Type value starts. */
#define HEAD_200_TYPE_AT (sizeof(HEAD_200_PREFIX) - 1)

/* file_cache_load flags */
#define FILE_CACHE_DOTFILES 0x1 /* --dotfiles: load names starting with '.' too */
#define FILE_CACHE_LISTING 0x2  /* --listing: list each directory without FILE_INDEX_NAME */

/* The page a path ending in '/' serves (BEHAVIOUR 10.4: index pages). */
#define FILE_INDEX_NAME "index.html"

/* Loads every regular file under root (a NUL-terminated path), whatever bytes its name
 * holds (a request names it percent-encoded); flags is FILE_CACHE_* bits; at most
 * max_files files and directories together. Subdirectories are walked up to FILE_CACHE_DEPTH_MAX levels; symbolic links and other non-regular
 * entries are skipped, never followed. Returns EXIT_OK, EXIT_ROOT_LIMIT when a limit is
 * exceeded, or EXIT_ROOT_READ when something cannot be opened, listed or mapped; in
 * both failure cases a one-line reason naming the path has gone to stderr. */
enum exit_code file_cache_load(const char *root, unsigned flags, uint32_t max_files);

/* A hook the first walk of file_cache_load calls for every directory it is about to list
 * (the root first, path ""; path is relative to root, NUL-terminated, valid for the call):
 * --watch (common/process/watch.h) watches it there, so a change after the listing is
 * never missed. Returns EXIT_OK, or a start-up error it has reported, which ends the
 * load. Set it before file_cache_load; NULL (the default): none. */
typedef enum exit_code (*file_cache_directory_fn)(int dirfd, const char *path);
void file_cache_on_directory(file_cache_directory_fn hook);

/* --error-page and --fallback (BEHAVIOUR 10.12): files of the snapshot served for a GET
 * or HEAD that finds no file; NULL when not given. */
struct site_pages {
	const struct cached_file *not_found; /* the 404 page: the file's bytes under a stored
					      * 404 head without validators, never a 304/206 */
	const struct cached_file *fallback;  /* served as the file itself: 200, 304, 206 */
};

/* After file_cache_load: finds the loaded files the targets name (a '/' then the name
 * relative to DIR, exactly: no decoding; NULL when not given) and renders the 404 page's
 * head (its type, length and --header-for fields). Returns EXIT_OK with *pages filled, or
 * EXIT_ROOT_READ when a target is no loaded file, after the line
 * "apollod: --root DIR: --fallback names no loaded file: NAME\n" (or --error-page 404). */
enum exit_code file_cache_pages(const char *not_found, const char *fallback,
				struct site_pages *pages);

/* Number of regular files (directories not included) and of body bytes loaded. */
uint32_t file_cache_count(void);
uint64_t file_cache_bytes(void);

/* Returns the file or directory whose relative name is exactly the len bytes at path (no leading '/'),
 * or NULL. With --listing, a directory's listing is a file named "dir/" ("" for the
 * root's): no loaded name ends in '/' or is empty. Pure: no syscalls. */
const struct cached_file *file_cache_find(const char *path, size_t len);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_FILE_CACHE_H */
