/* --listing's pages (BEHAVIOUR 10.14): picks and sorts each directory's rows from the
 * table and stores its page (listing.h renders it) as a file of the snapshot. */
#include "common/answer/file_cache_state.h"

#include "common/answer/listing.h"
#include "common/base/span.h"
#include "common/base/sys.h"

#define LISTING_NAME_EXTRA 3 /* the '/' after dir, LISTING_ORDER_MARK and the digit */

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
 * name, bytewise. Returns <0, 0 or >0 for entries x and y of files[] (order unused). */
static int listing_order(uint32_t x, uint32_t y, unsigned order)
{
	(void)order;
	const struct cached_file *a = &cache.files[x], *b = &cache.files[y];
	size_t pa = parent_len(a), pb = parent_len(b);
	int c = bytes_cmp(a->name, pa, b->name, pb);
	if (c || a->kind != b->kind)
		return c ? c : a->kind == CACHED_DIRECTORY ? -1 : 1;
	size_t sa = pa + (pa != 0), sb = pb + (pb != 0); /* past the '/' */
	return bytes_cmp(a->name + sa, a->name_len - sa, b->name + sb, b->name_len - sb);
}

/* The own name of entry f, past its directory's name and '/'. */
static struct text_span own_name(const struct cached_file *f)
{
	size_t at = parent_len(f);
	at += at != 0;
	return (struct text_span){f->name + at, (uint32_t)(f->name_len - at)};
}

static int u64_cmp(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* The order of one directory's rows in listing order k (listing.h, BEHAVIOUR 10.14):
 * directories before files in every order; then by the sort's key (own name bytewise; a
 * file's size, directories having none; the Last-Modified second), reversed for
 * descending; ties by own name, ascending. Returns <0, 0 or >0 for siblings x and y. */
static int sibling_order(uint32_t x, uint32_t y, unsigned order)
{
	const struct cached_file *a = &cache.files[x], *b = &cache.files[y];
	if (a->kind != b->kind)
		return a->kind == CACHED_DIRECTORY ? -1 : 1;
	struct text_span na = own_name(a), nb = own_name(b);
	int by_name = bytes_cmp(na.text, na.len, nb.text, nb.len);
	unsigned sort = order / 2;
	int c = sort == LISTING_BY_NAME			      ? by_name
		: sort == LISTING_BY_DATE		      ? u64_cmp(a->mtime, b->mtime)
		: a->kind == CACHED_FILE		      ? u64_cmp(a->size, b->size)
							      : 0;
	if (order & 1)
		c = -c;
	return c ? c : by_name;
}

typedef int (*entry_order_fn)(uint32_t x, uint32_t y, unsigned order);

/* Moves order[i] down the max-heap order[0..n) (by cmp in listing order k) to its place. */
static void sift_down(uint32_t *order, size_t i, size_t n, entry_order_fn cmp, unsigned k)
{
	for (size_t child; (child = 2 * i + 1) < n; i = child) {
		if (child + 1 < n && cmp(order[child], order[child + 1], k) < 0)
			child++;
		if (cmp(order[i], order[child], k) >= 0)
			return;
		uint32_t t = order[i];
		order[i] = order[child];
		order[child] = t;
	}
}

/* Sorts order[0..n) by cmp in listing order k: heapsort, in place, no recursion,
 * n log n. */
static void heap_sort(uint32_t *order, size_t n, entry_order_fn cmp, unsigned k)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(order, i, n, cmp, k);
	for (size_t end = n; end-- > 1;) {
		uint32_t t = order[0];
		order[0] = order[end];
		order[end] = t;
		sift_down(order, 0, end, cmp, k);
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

/* The listed children of directory dir[0..len) in the sorted order[0..n) (hidden ones
 * left out) into rows[], in listing order 0. Raises *mtime to the newest of theirs.
 * Returns how many. */
static size_t listed_children(const uint32_t *order, size_t n, const char *dir, size_t len,
			      uint32_t *rows, uint64_t *mtime)
{
	size_t m = 0;
	for (size_t i = first_child(order, n, dir, len); i < n; i++) {
		const struct cached_file *e = &cache.files[order[i]];
		if (parent_len(e) != len || !span_eq(e->name, dir, len))
			break;
		struct text_span own = own_name(e);
		if (hidden_component(own.text, own.len))
			continue;
		rows[m++] = order[i];
		*mtime = e->mtime > *mtime ? e->mtime : *mtime;
	}
	return m;
}

/* Writes the page name of directory dir[0..len) in listing order k at name: "dir/" ("" for
 * the root), then for an order other than the default LISTING_ORDER_MARK and its digit
 * (a NUL no loaded name holds, so no file can be asked for by it). Returns the end. */
static char *page_name(char *name, const char *dir, size_t len, unsigned k)
{
	char *p = copy_span(name, dir, len);
	if (len)
		*p++ = '/';
	if (k != LISTING_ORDER_DEFAULT) {
		*p++ = LISTING_ORDER_MARK;
		*p++ = (char)('0' + k);
	}
	return p;
}

/* Stores the page of directory dir[0..len) in listing order k, rows[0..m) in that order,
 * as a file (page_name) in the listing arena with its validators (Last-Modified mtime,
 * ETag "l-<size>-<hash>") and its heads. */
static void add_listing(const uint32_t *rows, size_t m, const char *dir, size_t len,
			uint64_t mtime, unsigned k)
{
	struct cached_file *f =
		&cache.files[cache.entries_max + cache.variants_max + cache.listing_count];
	char *name = cache.listing_arena + cache.listing_used;
	char *body = page_name(name, dir, len, k);
	char *p = body + listing_start(body, dir, len, k);
	for (size_t i = 0; i < m; i++) {
		const struct cached_file *e = &cache.files[rows[i]];
		struct text_span own = own_name(e);
		struct listing_entry row = {own.text, own.len, e->size, e->mtime,
					  e->kind == CACHED_DIRECTORY};
		p += listing_row(p, &row);
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

/* Stores the LISTING_ORDERS pages of directory dir[0..len) (mtime its own Last-Modified),
 * its children found in the sorted order[0..n), sorted per page in rows (room for n). */
static void add_listings(const uint32_t *order, size_t n, const char *dir, size_t len,
			 uint64_t mtime, uint32_t *rows)
{
	size_t m = listed_children(order, n, dir, len, rows, &mtime);
	for (unsigned k = 0; k < LISTING_ORDERS; k++) {
		if (k != LISTING_ORDER_DEFAULT) /* order's run is already order 0 */
			heap_sort(rows, m, sibling_order, k);
		add_listing(rows, m, dir, len, mtime, k);
	}
}

enum exit_code file_cache_add_listings(void)
{
	uint32_t *order;
	/* order, then rows: one index per entry each */
	uint64_t bytes = 2 * (uint64_t)cache.entry_count * sizeof(uint32_t);
	enum exit_code r = file_cache_reserve(bytes, (void **)&order);
	if (r != EXIT_OK)
		return r;
	uint32_t *rows = order + cache.entry_count;
	for (uint32_t i = 0; i < cache.entry_count; i++)
		order[i] = i;
	heap_sort(order, cache.entry_count, listing_order, LISTING_ORDER_DEFAULT);
	if (!has_index("", 0))
		add_listings(order, cache.entry_count, "", 0, cache.root_mtime, rows);
	for (uint32_t i = 0; i < cache.entry_count; i++) {
		const struct cached_file *d = &cache.files[i];
		if (d->kind == CACHED_DIRECTORY && !hidden_path(d->name, d->name_len) &&
		    !has_index(d->name, d->name_len))
			add_listings(order, cache.entry_count, d->name, d->name_len, d->mtime, rows);
	}
	if (order)
		sys_munmap(order, bytes);
	return EXIT_OK;
}

void file_cache_size_listings(void)
{
	cache.listings_max = cache.load_flags & FILE_CACHE_LISTING
				     ? LISTING_ORDERS * (cache.directories + 1)
				     : 0;
	/* Every page's name and its start, and every row in each order, at their largest. */
	cache.listing_arena_max =
		cache.listings_max ? (uint64_t)cache.listings_max *
					       (LISTING_PAGE_MAX(FILE_CACHE_PATH_MAX) +
						FILE_CACHE_PATH_MAX + LISTING_NAME_EXTRA) +
				       LISTING_ORDERS *
					       ((uint64_t)cache.entries_max * LISTING_ROW_FIXED +
						(LISTING_ESCAPE_MAX + LISTING_HREF_MAX) *
							cache.names_max)
				 : 0;
}
