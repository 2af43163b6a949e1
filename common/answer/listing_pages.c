/* --listing's pages (BEHAVIOUR 10.14): picks and sorts each directory's rows from the
 * table and stores its page (listing.h renders it) as a file of the snapshot. */
#include "common/answer/site_snapshot.h"

#include "common/answer/disk_file.h"
#include "common/answer/listing.h"
#include "common/base/span.h"
#include "common/base/sys.h"

#define LISTING_NAME_EXTRA 3 /* the '/' after dir, LISTING_ORDER_MARK and the digit */

/* A directory whose pages are rendered per request (FILE_LISTED_LIVE, BEHAVIOUR 10.14):
 * what site_live_listing reads, in the listing arena, and every one of its
 * LISTING_ORDERS pages points at it (cached_file.live). */
struct live_directory {
	uint64_t mtime;   /* the directory's own Last-Modified second */
	uint32_t count;   /* its listed children */
	uint16_t dir_len; /* its name's bytes: each page's name starts with them */
	uint16_t reserved;
	uint32_t rows[];  /* files[] indices of those children, in listing order 0 */
};
#define LIVE_DIRECTORY_ALIGN 8u
/* The listing arena a live directory of n rows takes, its alignment included. */
#define LIVE_DIRECTORY_BYTES(n) \
	(sizeof(struct live_directory) + (uint64_t)(n) * sizeof(uint32_t) + LIVE_DIRECTORY_ALIGN)

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

/* The order of the listings: by directory, then directories before files, then by own
 * name, bytewise. Returns <0, 0 or >0 for entries x and y of files[] (order unused). */
static int listing_order(uint32_t x, uint32_t y, unsigned order)
{
	(void)order;
	const struct cached_file *a = &cache.files[x], *b = &cache.files[y];
	size_t pa = parent_len(a), pb = parent_len(b);
	int c = listing_name_cmp(a->name, pa, b->name, pb);
	if (c || a->kind != b->kind)
		return c ? c : a->kind == CACHED_DIRECTORY ? -1 : 1;
	size_t sa = pa + (pa != 0), sb = pb + (pb != 0); /* past the '/' */
	return listing_name_cmp(a->name + sa, a->name_len - sa, b->name + sb, b->name_len - sb);
}

/* The own name of entry f, past its directory's name and '/'. */
static struct text_span own_name(const struct cached_file *f)
{
	size_t at = parent_len(f);
	at += at != 0;
	return (struct text_span){f->name + at, (uint32_t)(f->name_len - at)};
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
		if (listing_name_cmp(f->name, parent_len(f), dir, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Returns 1 when directory dir[0..len) ("" for the root) holds a loaded index page. */
static int has_index(const char *dir, size_t len)
{
	char name[SITE_PATH_MAX + sizeof("/" FILE_INDEX_NAME)];
	char *p = copy_span(name, dir, len);
	if (len)
		*p++ = '/';
	p = copy_span(p, LITERAL(FILE_INDEX_NAME));
	const struct cached_file *f = site_find(name, (size_t)(p - name));
	return f && f->kind == CACHED_FILE;
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

/* Sets the validators of page f (its bytes made): Last-Modified f->mtime, ETag
 * "l-<size>-<listing_hash>", at out (FILE_VALIDATORS_MAX bytes). Returns their end. */
static char *listing_validators(char *out, struct cached_file *f)
{
	char *e = file_validators_start(out, f);
	*e++ = 'l';
	*e++ = '-';
	e += file_u64_to_hex(f->size, e);
	*e++ = '-';
	e += file_u64_to_hex(listing_hash(f->body, f->size), e);
	return file_validators_end(f, e);
}

/* Stores the page of directory dir[0..len) in listing order k as a file (page_name) in
 * the listing arena: with live (FILE_LISTED_LIVE) only its heads' type and fields, the
 * bytes being made per request; else rows[0..m) in that order rendered with its
 * validators (Last-Modified mtime) and its heads. */
static void add_listing(const struct listing_entry *rows, size_t m, const char *dir,
			size_t len, uint64_t mtime, unsigned k, const struct live_directory *live)
{
	struct cached_file *f =
		&cache.files[cache.entries_max + cache.variants_max + cache.listing_count];
	char *name = cache.listing_arena + cache.listing_used;
	char *body = page_name(name, dir, len, k);
	*f = (struct cached_file){0};
	f->arena = FILE_ARENA_NONE; /* in anonymous memory: leaves by copy */
	f->name = name;
	f->name_len = (uint16_t)(body - name);
	f->mtime = mtime;
	f->kind = CACHED_FILE;
	if (live) {
		f->place = FILE_LISTED_LIVE;
		f->live = live;
		cache.listing_used += f->name_len;
	} else {
		f->body = body;
		f->size = listing_page(body, dir, len, k, rows, m);
		cache.listing_used += (uint64_t)(body + f->size - name);
		cache.heads_used = (uint64_t)(listing_validators(cache.head_arena + cache.heads_used,
								   f) - cache.head_arena);
	}
	site_render_heads(f);
	site_index_insert(cache.entries_max + cache.variants_max + cache.listing_count++);
}

/* The live record of a directory dir[0..len) of own Last-Modified mtime whose listed
 * children are rows[0..m) (listing order 0), stored in the listing arena: when one of
 * them is on disk and its page fits LISTING_LIVE_MAX at its largest (rows, view, page
 * start and every row: BEHAVIOUR 10.14). Returns NULL when the pages are made now. */
static const struct live_directory *live_directory_of(const uint32_t *rows, size_t m,
						       size_t len, uint64_t mtime)
{
	int on_disk = 0;
	uint64_t bytes = LISTING_LIVE_ROWS_BYTES(m) + DISK_VIEW_MAX + LISTING_PAGE_MAX(len);
	for (size_t i = 0; i < m; i++) {
		on_disk |= cache.files[rows[i]].place == FILE_ON_DISK;
		bytes += LISTING_ROW_MAX(own_name(&cache.files[rows[i]]).len);
	}
	if (!on_disk || bytes > LISTING_LIVE_MAX)
		return 0;
	uint64_t at = (cache.listing_used + LIVE_DIRECTORY_ALIGN - 1) & ~(uint64_t)(LIVE_DIRECTORY_ALIGN - 1);
	struct live_directory *d = (struct live_directory *)(cache.listing_arena + at);
	d->mtime = mtime;
	d->count = (uint32_t)m;
	d->dir_len = (uint16_t)len;
	for (size_t i = 0; i < m; i++)
		d->rows[i] = rows[i];
	cache.listing_used = at + sizeof(*d) + m * sizeof(uint32_t);
	return d;
}

/* The row of entry f: its own name, size, mtime, and whether it is a directory. */
static struct listing_entry row_of(const struct cached_file *f)
{
	struct text_span own = own_name(f);
	return (struct listing_entry){own.text, own.len, f->size, f->mtime,
				      f->kind == CACHED_DIRECTORY};
}

/* Stores the LISTING_ORDERS pages of directory dir[0..len) (mtime its own Last-Modified),
 * its children found in the sorted order[0..n): live ones (live_directory_of), or each
 * made now, sorted per page; rows and entries have room for n. */
static void add_listings(const uint32_t *order, size_t n, const char *dir, size_t len,
			 uint64_t mtime, uint32_t *rows, struct listing_entry *entries)
{
	uint64_t newest = mtime;
	size_t m = listed_children(order, n, dir, len, rows, &newest);
	const struct live_directory *live = live_directory_of(rows, m, len, mtime);
	for (size_t i = 0; i < m && !live; i++)
		entries[i] = row_of(&cache.files[rows[i]]);
	for (unsigned k = 0; k < LISTING_ORDERS; k++) {
		if (k != LISTING_ORDER_DEFAULT && !live) /* order's run is already order 0 */
			listing_sort(entries, m, k);
		add_listing(entries, m, dir, len, newest, k, live);
	}
}

enum exit_code site_add_listings(void)
{
	uint32_t *order;
	/* order, then rows: one index per entry each; then a row per entry */
	uint64_t bytes = (uint64_t)cache.entry_count *
			 (2 * sizeof(uint32_t) + sizeof(struct listing_entry));
	enum exit_code r = site_reserve(bytes, (void **)&order);
	if (r != EXIT_OK)
		return r;
	uint32_t *rows = order + cache.entry_count;
	struct listing_entry *entries = (struct listing_entry *)(rows + cache.entry_count +
								 (cache.entry_count & 1));
	for (uint32_t i = 0; i < cache.entry_count; i++)
		order[i] = i;
	heap_sort(order, cache.entry_count, listing_order, LISTING_ORDER_DEFAULT);
	if (!has_index("", 0))
		add_listings(order, cache.entry_count, "", 0, cache.root_mtime, rows, entries);
	for (uint32_t i = 0; i < cache.entry_count; i++) {
		const struct cached_file *d = &cache.files[i];
		if (d->kind == CACHED_DIRECTORY && !hidden_path(d->name, d->name_len) &&
		    !has_index(d->name, d->name_len))
			add_listings(order, cache.entry_count, d->name, d->name_len, d->mtime, rows,
				     entries);
	}
	if (order)
		sys_munmap(order, bytes);
	return EXIT_OK;
}

void site_size_listings(void)
{
	cache.listings_max = cache.load_flags & SITE_LISTING
				     ? LISTING_ORDERS * (cache.directories + 1)
				     : 0;
	/* Every page's name and its start, and every row in each order, at their largest;
	 * and each directory's live record (its rows are at most every entry). */
	cache.listing_arena_max =
		cache.listings_max ? (uint64_t)cache.listings_max *
					       (LISTING_PAGE_MAX(SITE_PATH_MAX) +
						SITE_PATH_MAX + LISTING_NAME_EXTRA) +
				       LISTING_ORDERS *
					       ((uint64_t)cache.entries_max * LISTING_ROW_FIXED +
						(LISTING_ESCAPE_MAX + LISTING_HREF_MAX) *
							cache.names_max) +
				       (cache.directories + 1) * LIVE_DIRECTORY_BYTES(0) +
				       (uint64_t)cache.entries_max * sizeof(uint32_t)
				 : 0;
}

/* The listing order of page f: the digit after LISTING_ORDER_MARK, or the default. */
static unsigned page_order(const struct cached_file *f)
{
	size_t n = f->name_len;
	return n >= 2 && f->name[n - 2] == LISTING_ORDER_MARK ? (unsigned)(f->name[n - 1] - '0')
							      : LISTING_ORDER_DEFAULT;
}

/* The rows of live directory d as they are now into e[] (room for d->count): a child on
 * disk with stat's size and mtime (left out when gone). Raises *mtime to the newest.
 * Returns how many, or -1 when a stat said LIVE_STAT_BUSY. */
static long live_rows(const struct live_directory *d, listing_stat_fn stat, void *ctx,
		      uint64_t now_s, struct listing_entry *e, uint64_t *mtime)
{
	long m = 0;
	for (uint32_t i = 0; i < d->count; i++) {
		const struct cached_file *f = &cache.files[d->rows[i]];
		struct listing_entry r = row_of(f);
		struct disk_stat st;
		if (f->place == FILE_ON_DISK) {
			enum live_stat s = (enum live_stat)stat(ctx, f, &st);
			if (s == LIVE_STAT_BUSY)
				return -1;
			if (s == LIVE_STAT_GONE)
				continue; /* gone since the load: not listed */
			r.size = st.size;
			r.mtime = disk_served_mtime(&st, now_s);
		}
		*mtime = r.mtime > *mtime ? r.mtime : *mtime;
		e[m++] = r;
	}
	return m;
}

enum live_stat site_live_listing(const struct cached_file *page, listing_stat_fn stat,
				       void *ctx, uint64_t now_s, char *out, struct cached_file *view)
{
	const struct live_directory *d = page->live;
	struct listing_entry *e = (struct listing_entry *)out;
	uint64_t mtime = d->mtime;
	long m = live_rows(d, stat, ctx, now_s, e, &mtime);
	if (m < 0)
		return LIVE_STAT_BUSY;
	unsigned k = page_order(page);
	if (k != LISTING_ORDER_DEFAULT)
		listing_sort(e, (size_t)m, k);
	char *head = out + LISTING_LIVE_ROWS_BYTES(d->count);
	char *body = head + DISK_VIEW_MAX;
	struct text_span type = {page->head, page->type_len};
	struct text_span fields = {page->head + page->type_len, page->fields_len};
	*view = *page;
	view->place = FILE_IN_MEMORY;
	view->body = body;
	view->size = listing_page(body, page->name, d->dir_len, k, e, (size_t)m);
	view->mtime = mtime;
	char *p = listing_validators(head, view);
	file_head_render(p, view, type, fields);
	return LIVE_STAT_OK;
}
