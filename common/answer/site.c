/* The file cache's table and its lookup (see site.h): entries, representations,
 * heads and the --error-page and --fallback pages. Start-up only, except site_find. */
#include "common/answer/site_snapshot.h"
#include "common/answer/redirects.h"
#include "common/answer/sites.h"

#include "common/base/console.h"
#include "common/base/errno_text.h"
#include "common/base/limits.h"
#include "common/answer/listing.h"
#include "common/answer/mime_types.h"
#include "common/answer/responses.h"
#include "common/base/span.h"
#include "common/base/sys.h"

STATIC_ASSERT(FILE_HEAD_200_MAX(CONTENT_TYPE_MAX) <= SITE_HEAD_MAX,
	      "every rendered 200 head fits SITE_HEAD_MAX");
STATIC_ASSERT(FILE_HEAD_STORED_MAX <= UINT16_MAX, "head lengths and offsets fit 16 bits");
STATIC_ASSERT(HEAD_200_MAX(CONTENT_TYPE_MAX) + HEAD_PAGE_EXTRA_MAX <= SITE_HEAD_MAX,
	      "an --error-page head (no validators) fits SITE_HEAD_MAX");
STATIC_ASSERT(CONTENT_TYPE_MAX <= UINT8_MAX && ETAG_MAX <= UINT8_MAX, "type_len, etag_len");
STATIC_ASSERT(SITE_PATH_MAX == FILE_MANIFEST_NAME_MAX, "a manifest holds every name");
STATIC_ASSERT(sizeof(struct cached_file) == SITE_ENTRY_SIZE, "entry layout");

struct site_snapshots cache_sites;

void site_enter(uint32_t site)
{
	cache_sites.current = site;
}

/* sites.h's: here beside the cache, so that sites.c stays the pure tables (and links into
 * the unit tests without the file cache). */
void sites_enter(uint32_t s)
{
	site_enter(s);
	redirects_enter(s);
	path_fields_enter(s);
}

#define NS_PER_MS 1000000ull
#define NS_PER_S 1000000000ull
/* What site_heads_ahead faults in at least: 1 MiB, 256 pages a call (about 15 calls for
 * the 50,000 heads of bench/doc_tree.py's tree), and at most that much faulted in past
 * the last head. */
#define HEAD_PREFAULT_STEP (1ull << 20)
#define PAGE_BYTES 4096ull
STATIC_ASSERT(HEAD_PREFAULT_STEP % PAGE_BYTES == 0, "whole pages");

/* Writes "apollod: --root DIR: <lead><what>[: <path>][: <reason>]\n" (site_fail),
 * "--site DIR" for a named site's (sites.h). */
static void root_line(const char *lead, const char *what, long err)
{
	char reason[ERRNO_TEXT_MAX];
	if (cache_sites.current != SITE_DEFAULT)
		write_stderr(LITERAL("apollod: --site "));
	else
		write_stderr(LITERAL("apollod: --root "));
	write_stderr(cache.root_dir, cstr_len(cache.root_dir));
	write_stderr(LITERAL(": "));
	write_stderr(lead, cstr_len(lead));
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
}

enum exit_code site_fail(enum exit_code code, const char *what, long err)
{
	root_line("", what, err);
	return code;
}

enum exit_code site_skip(const char *what, long err)
{
	if (!cache.counting) { /* the loading walk meets every entry the counting one did */
		cache.skipped++;
		root_line("skipped: ", what, err);
	}
	return EXIT_OK;
}


const struct cached_file *site_find(const char *name, size_t len)
{
	const struct site_snapshot *c = &cache; /* the current site's, read once */
	if (c->entry_count == 0)
		return 0;
	for (uint32_t i = site_name_hash(name, len);; i++) {
		uint32_t slot = c->index_slot[i & (c->index_size - 1)];
		if (slot == 0)
			return 0;
		const struct cached_file *f = &c->files[slot - 1];
		if (f->name_len == len && span_eq(f->name, name, len))
			return f;
	}
}

uint32_t site_file_count(void)
{
	return cache.file_count;
}

uint64_t site_bytes(void)
{
	return cache.bytes_total;
}

uint32_t site_skipped(void)
{
	return cache.skipped;
}

void site_settle(uint32_t quiet_ms, uint32_t wait_ms)
{
	cache.quiet_ns = (uint64_t)quiet_ms * NS_PER_MS;
	cache.settle_left_ns = (uint64_t)wait_ms * NS_PER_MS;
}

uint32_t site_unsettled(void)
{
	return cache.unsettled;
}

void site_set_budget(uint64_t bytes)
{
	cache.budget = bytes < SITE_BUDGET_MAX ? bytes : SITE_BUDGET_MAX;
	cache.budget_set = 1;
}

int site_root_fd(void)
{
	return cache.root_fd;
}

void site_index_insert(uint32_t at)
{
	const struct cached_file *f = &cache.files[at];
	uint32_t i = site_name_hash(f->name, f->name_len);
	while (cache.index_slot[i & (cache.index_size - 1)])
		i++;
	cache.index_slot[i & (cache.index_size - 1)] = at + 1;
}

struct cached_file *site_add_entry(size_t len, enum cached_kind kind)
{
	struct cached_file *f = &cache.files[cache.entry_count];
	f->name = copy_span(cache.name_arena + cache.names_used, cache.path, len) - len;
	f->name_len = (uint16_t)len;
	f->kind = (uint8_t)kind;
	cache.names_used += (uint32_t)len;
	cache.entry_count++; /* indexed once the walk is done (site_index_entries) */
	return f;
}

void site_prefault(void *at, uint64_t bytes)
{
	if (at && bytes)
		sys_madvise(at, bytes, K_MADV_POPULATE_WRITE);
}

void site_heads_ahead(uint64_t need)
{
	uint64_t from = cache.heads_prefaulted, end = cache.heads_used + need;
	if (end <= from || from >= cache.heads_reserved)
		return;
	uint64_t len = end - from < HEAD_PREFAULT_STEP ? HEAD_PREFAULT_STEP : end - from;
	len = (len + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1);
	if (len > cache.heads_reserved - from)
		len = cache.heads_reserved - from;
	site_prefault(cache.head_arena + from, len);
	cache.heads_prefaulted = from + len;
}

/* Renders the validators of f, a file in memory whose stamp is *s (its mtime in
 * f->mtime), at the end of the head arena: the ETag "<size>-<mtime ns>-<inode>", the
 * mtime to the ns (BEHAVIOUR 10.8). */
static void add_validators(struct cached_file *f, const struct file_stamp *s)
{
	site_heads_ahead(FILE_VALIDATORS_MAX);
	uint64_t mtime_ns = (uint64_t)s->mtime_s * NS_PER_S + s->mtime_ns;
	cache.heads_used += file_validators_render(cache.head_arena + cache.heads_used, f,
						   f->size, mtime_ns, s->inode);
}

void site_add_file(size_t len, const struct loaded_file *l)
{
	struct cached_file *f = site_add_entry(len, CACHED_FILE);
	f->size = l->size;
	f->mtime = l->mtime;
	f->place = l->place;
	if (l->place == FILE_ON_DISK) {
		f->disk_name = f->name;
		f->arena = FILE_ARENA_NONE; /* never by file_body_offset: opened per request */
		return;
	}
	f->body = l->body;
	f->arena = l->arena;
	cache.stamps[f - cache.files] = l->stamp;
	cache.bytes_total += l->size;
	cache.file_count++;
}

enum file_encoding site_suffix_encoding(const char *name, size_t len)
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

/* Links every loaded X.br, X.zst and X.gz whose X is a loaded file to X (BEHAVIOUR 10.10). */
static void link_variants(void)
{
	for (uint32_t i = 0; i < cache.entry_count; i++) {
		const struct cached_file *v = &cache.files[i];
		enum file_encoding e = v->kind == CACHED_FILE
					       ? site_suffix_encoding(v->name, v->name_len)
					       : FILE_ENCODING_IDENTITY;
		if (e == FILE_ENCODING_IDENTITY)
			continue;
		struct cached_file *base = (struct cached_file *)site_find(
			v->name, v->name_len - file_encoding_suffix[e].len);
		if (base && base->kind == CACHED_FILE)
			add_variant(base, v, e);
	}
}

/* Returns 1 when f is a directory's listing: its name is "dir/", or "" for the root's,
 * with LISTING_ORDER_MARK and a digit after it in an order other than the default. */
static int is_listing(const struct cached_file *f)
{
	size_t n = f->name_len;
	if (n >= 2 && f->name[n - 2] == LISTING_ORDER_MARK)
		n -= 2;
	return n == 0 || f->name[n - 1] == '/';
}

void site_render_heads(struct cached_file *f)
{
	struct text_span type = {LITERAL(LISTING_TYPE)};
	if (!is_listing(f))
		mime_type_of(f->name, f->name_len, &type);
	site_heads_ahead(HEAD_ARENA_PER_FILE + path_fields_max());
	char *h = cache.head_arena + cache.heads_used;
	if (f->place != FILE_IN_MEMORY) { /* the type and fields a view's head is made of */
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

enum exit_code site_reserve(uint64_t bytes, void **at)
{
	*at = 0;
	if (bytes == 0)
		return EXIT_OK;
	long m = sys_mmap(0, bytes, ARENA_PROT, ARENA_FLAGS, -1, 0);
	if (sys_is_error(m))
		return site_fail(EXIT_ROOT_READ, "cannot map memory for the cache",
					       m);
	*at = (void *)m;
	return EXIT_OK;
}

void site_index_entries(void)
{
	for (uint32_t i = 0; i < cache.entry_count; i++) {
		site_index_insert(i);
		struct cached_file *f = &cache.files[i];
		if (f->kind == CACHED_FILE && f->place == FILE_IN_MEMORY)
			add_validators(f, &cache.stamps[i]);
	}
}

enum exit_code site_finish(void)
{
	link_variants();
	for (uint32_t i = 0; i < cache.entry_count; i++)
		if (cache.files[i].kind == CACHED_FILE)
			site_render_heads(&cache.files[i]);
	for (uint32_t k = 0; k < cache.variant_count; k++)
		site_render_heads(&cache.files[cache.entries_max + k]);
	return cache.listings_max ? site_add_listings() : EXIT_OK;
}

/* Faults in, each in one call, what the loading walk fills whole (site_prefault): the
 * entries of the table (not the representations and listings after them: their counts
 * are bounds), the index (its slots are written all over), the names and the stamps. The
 * head arena, reserved for the longest heads, is faulted in as it fills
 * (site_heads_ahead). */
static void prefault_table(void)
{
	site_prefault(cache.files, (uint64_t)cache.entries_max * sizeof(struct cached_file));
	site_prefault(cache.index_slot, (uint64_t)cache.index_size * sizeof(uint32_t));
	site_prefault(cache.name_arena, cache.names_max);
	site_prefault(cache.stamps, (uint64_t)cache.entries_max * sizeof(struct file_stamp));
	cache.heads_prefaulted = 0;
}

enum exit_code site_allocate(void)
{
	cache.entries_max = cache.entry_count;
	cache.names_max = cache.names_used;
	cache.entry_count = 0;
	cache.names_used = 0;
	site_size_listings();
	cache.index_size = 2;
	while (cache.index_size < 2 * ((uint64_t)cache.entries_max + cache.listings_max))
		cache.index_size *= 2;
	/* The representations come after the entries, the listings after them. */
	uint64_t files_max = (uint64_t)cache.entries_max + cache.variants_max + cache.listings_max;
	uint64_t heads = (files_max + HEAD_ARENA_PAGES) * (HEAD_ARENA_PER_FILE + path_fields_max());
	if (cache.gzip_deferred && cache.compress_level) /* site_compress_late renders */
		heads *= 2;                               /* them again (untouched: free) */
	cache.heads_reserved = heads;
	cache.files_reserved = files_max * sizeof(struct cached_file);
	enum exit_code r = site_reserve(files_max * sizeof(struct cached_file),
					      (void **)&cache.files);
	if (r == EXIT_OK)
		r = site_reserve((uint64_t)cache.index_size * sizeof(uint32_t),
				       (void **)&cache.index_slot);
	if (r == EXIT_OK)
		r = site_reserve(cache.names_max, (void **)&cache.name_arena);
	if (r == EXIT_OK)
		r = site_reserve((uint64_t)cache.entries_max * sizeof(struct file_stamp),
				       (void **)&cache.stamps);
	if (r == EXIT_OK)
		r = site_reserve(heads, (void **)&cache.head_arena);
	if (r == EXIT_OK && cache.compress_level) /* file_gzip.c's notes, a byte a file */
		r = site_reserve(cache.entries_max, (void **)&cache.gzip_none);
	if (r == EXIT_OK && cache.entries_max && cache.budget) /* --cache-bytes 0: none */
		r = site_open_body_arena();
	if (r == EXIT_OK)
		r = site_reserve(cache.listing_arena_max, (void **)&cache.listing_arena);
	if (r == EXIT_OK)
		prefault_table();
	return r;
}

/* The loaded file that target ('/' then a name relative to DIR) names, or NULL after the
 * line "apollod: --root DIR: <flag> names no loaded file: <name>" (fail). */
static const struct cached_file *page_target(const char *target, const char *flag)
{
	size_t len = cstr_len(target) - 1; /* cli.c took only targets that start with '/' */
	const struct cached_file *f = site_find(target + 1, len);
	if (f && f->kind == CACHED_FILE && f->place != FILE_LISTED_LIVE) /* made per request */
		return f;
	if (len > SITE_PATH_MAX)
		len = SITE_PATH_MAX; /* no such name is loaded: said in part */
	copy_span(cache.path, target + 1, len)[0] = '\0';
	char what[sizeof("--error-page 404 names no loaded file")];
	copy_span(copy_span(what, flag, cstr_len(flag)), LITERAL(" names no loaded file"))[0] = '\0';
	site_fail(EXIT_ROOT_READ, what, 0);
	return 0;
}

/* Makes error page `id` of f: its bytes under a head of that status with its type and
 * --header-for fields, without validators (rendered after every file's head,
 * HEAD_ARENA_PAGES). A page on disk keeps f's type and fields: its head is made per
 * request (disk_file_view). */
static const struct cached_file *make_error_page(const struct cached_file *f, unsigned id)
{
	struct cached_file *page = &cache.error_pages[id];
	struct text_span type;
	char fields[PATH_FIELDS_BLOCK_MAX];
	*page = *f;
	for (int i = 0; i < FILE_VARIANTS; i++)
		page->variant[i] = 0; /* one representation: no Vary */
	if (f->place == FILE_ON_DISK)
		return page;
	page->etag = 0;
	page->etag_len = 0;
	page->fields_len = (uint16_t)path_fields_render(f->name, f->name_len, fields);
	mime_type_of(f->name, f->name_len, &type);
	struct text_span own = {fields, page->fields_len};
	page->head = cache.head_arena + cache.heads_used;
	page->head_len = (uint16_t)render_page_head((char *)page->head, id, type, f->size, own,
						    FILE_HEAD_FORM);
	cache.heads_used += page->head_len;
	return page;
}

/* The codes as --error-page names them, by enum error_page_id (the lines that name a
 * missing target). */
static const char *const page_flag[ERROR_PAGE_COUNT] = {
#define PAGE_FLAG(id, code, line) [id] = "--error-page " code,
	FOR_EACH_ERROR_STATUS(PAGE_FLAG)
#undef PAGE_FLAG
};

enum exit_code site_load_pages(const char *const error[ERROR_PAGE_COUNT], const char *fallback,
				struct site_pages *pages)
{
	for (unsigned id = 0; id < ERROR_PAGE_COUNT; id++) {
		pages->error[id] = 0;
		if (!error[id])
			continue;
		const struct cached_file *f = page_target(error[id], page_flag[id]);
		if (!f)
			return EXIT_ROOT_READ;
		pages->error[id] = make_error_page(f, id);
	}
	pages->fallback = 0;
	if (fallback) {
		pages->fallback = page_target(fallback, "--fallback");
		if (!pages->fallback)
			return EXIT_ROOT_READ;
	}
	return EXIT_OK;
}
