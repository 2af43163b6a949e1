/* --listing's pages (BEHAVIOUR 10.14): picks and sorts each directory's rows from the
 * table and stores its page (listing.h renders it) as a file of the snapshot. */
#include "common/answer/file_cache_state.h"

#include "common/answer/listing.h"
#include "common/base/span.h"
#include "common/base/sys.h"

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

/* Returns 1 when the len-byte name (one path component) is hidden from a listing: it
 * starts with '.' and is not WELL_KNOWN_NAME, which the web expects to reach. */
static int hidden_component(const char *name, size_t len)
{
	return len && name[0] == '.' &&
	       !(len == sizeof(WELL_KNOWN_NAME) - 1 && span_eq(name, LITERAL(WELL_KNOWN_NAME)));
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
	file_cache_render_heads(f);
	file_cache_index_insert(cache.entries_max + cache.variants_max + cache.listing_count++);
}

enum exit_code file_cache_add_listings(void)
{
	uint32_t *order;
	uint64_t bytes = (uint64_t)cache.entry_count * sizeof(uint32_t);
	enum exit_code r = file_cache_reserve(bytes, (void **)&order);
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


void file_cache_size_listings(void)
{
	cache.listings_max = cache.load_flags & FILE_CACHE_LISTING ? cache.directories + 1 : 0;
	/* Every page's name and its start, and every row, at their largest. */
	cache.listing_arena_max =
		cache.listings_max ? (uint64_t)cache.listings_max *
					       (LISTING_PAGE_MAX(FILE_CACHE_PATH_MAX) +
						FILE_CACHE_PATH_MAX + 1) +
				       (uint64_t)cache.entries_max * LISTING_ROW_FIXED +
				       (LISTING_ESCAPE_MAX + LISTING_HREF_MAX) * cache.names_max
				 : 0;
}
