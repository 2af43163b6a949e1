/* The snapshot's arenas (sealed memfds of bodies) and a reload's reuse of them through
 * the manifest (file_manifest.h, BEHAVIOUR 10.17): the body arena's life, the
 * compaction rule, the manifest written for the next image and the one read from the
 * previous. */
#include "common/answer/site_snapshot.h"

#include <linux/fcntl.h>             /* AT_EMPTY_PATH, AT_FDCWD, O_RDONLY, O_CLOEXEC */
#include <linux/stat.h>              /* struct statx, STATX_SIZE */

#include "common/answer/huge_pages.h"
#include "common/answer/sites.h"
#include "common/base/limits.h"
#include "common/base/span.h"
#include "common/base/sys.h"

/* The body arena while it is filled: a memfd of --cache-bytes (tmpfs allocates only
 * the pages written), mapped shared and writable; then cut to its bytes, sealed and
 * mapped read-only in place (seal_body_arena). */
#define BODY_ARENA_NAME "apollod-snapshot"
#define BODY_FILL_FLAGS (MAP_SHARED | MAP_NORESERVE)
#define BODY_SEALS (K_F_SEAL_WRITE | K_F_SEAL_SHRINK | K_F_SEAL_GROW | K_F_SEAL_SEAL)
/* The manifest a reload hands on with the arenas (file_manifest.h), sealed the same way;
 * not named like the arenas (tests count those by name). */
#define MANIFEST_NAME "apollod-manifest"
/* The kernel's shmem huge page setting (Documentation/admin-guide/mm/transhuge.rst),
 * one line such as "always within_size advise [never] deny force": 52 bytes today. */
#define SHMEM_HUGE_SETTING "/sys/kernel/mm/transparent_hugepage/shmem_enabled"
#define SHMEM_SETTING_MAX 128
STATIC_ASSERT(SHMEM_SETTING_MAX >= sizeof("always within_size advise [never] deny force"),
	      "today's line fits");
/* Arenas a load may keep: the reload hand-over's descriptors less the manifest's. One
 * more may exist while a load settles (the arena being filled), never once it is sealed
 * (settle_arenas). */
#define ARENAS_KEPT FILE_MANIFEST_ARENAS_MAX
STATIC_ASSERT(ARENAS_KEPT + 1 <= FILE_ARENAS_MAX, "the kept arenas and the new one fit");
STATIC_ASSERT(SITE_HANDOVER_MAX == ARENAS_KEPT + 1, "the arenas and the manifest");

/* Asks for transparent huge pages for an arena's mapping at base, bytes long: the fill's,
 * so that the memfd's pages are allocated 2 MiB at a time where the kernel's shmem
 * setting allows it (shmem_enabled advise; within_size and always need no asking), and
 * the sealed one's and a reused one's, so that khugepaged may still join 4 KiB pages
 * there. A 4 KiB-paged memfd costs sendfile one locked page lookup per 4 KiB
 * (BEHAVIOUR 10.17). Advice only: a refusal (never, a kernel without THP) changes
 * nothing, so the result is not checked. */
static void advise_huge_pages(const char *base, uint64_t bytes)
{
	sys_madvise((void *)base, bytes, K_MADV_HUGEPAGE);
}

/* The padding site_body_start may add in all: FILE_BODY_ALIGN per body that can
 * fit the budget at FILE_BODY_ALIGNED_MIN bytes or more, and one. */
static uint64_t padding_room(void)
{
	return (cache.budget / FILE_BODY_ALIGNED_MIN + 1) * FILE_BODY_ALIGN;
}

uint64_t site_arena_span(void)
{
	return cache.budget + padding_room();
}

char *site_body_start(uint64_t size)
{
	uint64_t pad = (FILE_BODY_ALIGN - cache.body_fill % FILE_BODY_ALIGN) % FILE_BODY_ALIGN;
	if (size >= FILE_BODY_ALIGNED_MIN && cache.body_padding + pad <= padding_room()) {
		cache.body_fill += pad;
		cache.body_padding += pad;
	}
	return cache.body_arena + cache.body_fill;
}

int64_t file_body_offset(const struct cached_file *f, uint64_t at, int *fd)
{
	if (f->arena == FILE_ARENA_NONE)
		return -1;
	const struct file_arena *a = &cache.arenas[f->arena];
	*fd = a->fd;
	return (int64_t)(f->body - a->base) + (int64_t)at;
}

/* Unmaps bytes at *at (nothing when NULL) and forgets it. */
static void unreserve(void *at_pointer, uint64_t bytes)
{
	void **at = at_pointer;
	if (*at && bytes)
		sys_munmap(*at, bytes);
	*at = 0;
}

/* The table and what it points into (site_allocate's reservations). */
static void release_table(void)
{
	uint64_t files = cache.entries_max;
	unreserve(&cache.files, cache.files_reserved);
	unreserve(&cache.index_slot, (uint64_t)cache.index_size * sizeof(uint32_t));
	unreserve(&cache.name_arena, cache.names_max);
	unreserve(&cache.stamps, files * sizeof(struct file_stamp));
	unreserve(&cache.head_arena, cache.heads_reserved);
	unreserve(&cache.gzip_none, cache.compress_level ? files : 0);
	unreserve(&cache.listing_arena, cache.listing_arena_max);
	cache.entry_count = 0; /* site_find: nothing */
	if (cache.root_fd > 0)
		sys_close(cache.root_fd);
	cache.root_fd = -1;
}

void site_release(void)
{
	site_join_huge_pages(); /* the first generation serves meanwhile */
	for (uint32_t s = 0; s < SITES_MAX; s++) {
		site_enter(s);
		for (uint32_t i = 0; i < FILE_ARENAS_MAX; i++) {
			struct file_arena *a = &cache.arenas[i];
			if (!a->base)
				continue;
			sys_munmap((void *)a->base, a->size);
			if (cache.manifest_fd < 0) /* else registered: reload_release_hand_over
						    * closes it */
				sys_close(a->fd); /* the generation holds its own */
			*a = (struct file_arena){0, 0, -1, 0};
		}
		release_table();
	}
	site_enter(SITE_DEFAULT);
}

/* The previous image's record of name[0..len) of `coding` (enum file_manifest_coding),
 * or NULL. */
static const struct file_manifest_record *old_record(const char *name, size_t len,
						     uint8_t coding)
{
	if (!cache.old_manifest)
		return 0;
	const struct file_manifest_record *rec = file_manifest_records(cache.old_manifest);
	const char *names = file_manifest_names(cache.old_manifest);
	for (uint32_t i = site_name_hash(name, len);; i++) {
		uint32_t slot = cache.old_slot[i & (cache.old_slots - 1)];
		if (slot == 0)
			return 0;
		const struct file_manifest_record *r = &rec[slot - 1];
		if (r->coding == coding && r->name_len == len && span_eq(names + r->name_at, name, len))
			return r;
	}
}

const struct file_manifest_record *site_reusable(size_t len,
						       const struct file_stamp *now,
						       uint64_t size)
{
	const struct file_manifest_record *r = old_record(cache.path, len, FILE_MANIFEST_IDENTITY);
	return r && (!now || (r->size == size && file_stamp_same(&r->stamp, now))) ? r : 0;
}

const struct file_manifest_record *site_reusable_gzip(const char *name, size_t len,
							    const struct file_stamp *stamp,
							    int level)
{
	const struct file_manifest_head *h = (const struct file_manifest_head *)cache.old_manifest;
	if (!h || h->gzip_level != (uint32_t)level)
		return 0; /* none, or made at another level: compressed anew */
	const struct file_manifest_record *r = old_record(name, len, FILE_MANIFEST_GZIP);
	return r && file_stamp_same(&r->stamp, stamp) ? r : 0;
}

/* Whether text[0..len) begins with word[0..n). */
static int starts_with(const char *text, size_t len, const char *word, size_t n)
{
	return len >= n && span_eq(text, word, n);
}

/* Whether the kernel may give the body arena's memfd huge pages: the word selected (in
 * brackets) in SHMEM_HUGE_SETTING is not "never" or "deny". Such pages come only through
 * the fill's MADV_HUGEPAGE mapping (advise) or are joined per 2 MiB of one folio; a
 * write(2) or sendfile(2) into the memfd allocates 4 KiB pages under advise, and huge
 * pages save sendfile a page lookup per 4 KiB when serving (BEHAVIOUR 10.17). Returns 0
 * when the setting cannot be read (a kernel without THP). */
static int shmem_huge_pages_on(void)
{
	char text[SHMEM_SETTING_MAX];
	long fd = sys_openat(AT_FDCWD, SHMEM_HUGE_SETTING, O_RDONLY | O_CLOEXEC);
	if (sys_is_error(fd))
		return 0;
	long n = sys_read_full((int)fd, text, SHMEM_SETTING_MAX);
	sys_close((int)fd);
	if (sys_is_error(n))
		return 0;
	for (long i = 0; i < n; i++)
		if (text[i] == '[')
			return !starts_with(text + i, (size_t)(n - i), LITERAL("[never]")) &&
			       !starts_with(text + i, (size_t)(n - i), LITERAL("[deny]"));
	return 0;
}

enum exit_code site_open_body_arena(void)
{
	long fd = sys_memfd_create(BODY_ARENA_NAME, K_MFD_ALLOW_SEALING | K_MFD_CLOEXEC);
	if (sys_is_error(fd))
		return site_fail(EXIT_ROOT_READ, "cannot create the snapshot's memfd", fd);
	cache.body_fd = (int)fd;
	long r = sys_ftruncate((int)fd, site_arena_span());
	if (sys_is_error(r))
		return site_fail(EXIT_ROOT_READ, "cannot size the snapshot's memfd", r);
	cache.huge_page = huge_page_size(); /* the sealed mapping keeps this address */
	long m = huge_map_aligned(site_arena_span(), ARENA_PROT, BODY_FILL_FLAGS, (int)fd,
				  cache.huge_page);
	if (sys_is_error(m))
		return site_fail(EXIT_ROOT_READ, "cannot map the snapshot's memfd", m);
	cache.body_arena = (char *)m;
	advise_huge_pages(cache.body_arena, site_arena_span());
	cache.body_fd_at = 0;
	cache.body_allocated = 0;
	cache.fill_by_sendfile = !shmem_huge_pages_on();
	return EXIT_OK;
}

int site_above_slots(int fd)
{
	long high = sys_fcntl(fd, K_F_DUPFD_CLOEXEC, CONN_SLOTS);
	if (sys_is_error(high))
		return fd; /* EINVAL: the limit is CONN_SLOTS; the arena keeps its low slot */
	sys_close(fd);
	return (int)high;
}

/* Joins into huge pages every huge page of arena k that holds bytes of a body of
 * files[from, to) of HUGE_JOIN_MIN bytes or more (they leave by reference: through a send
 * pipe or by sendfile, which pay per 4 KiB page; its neighbours share the page and lose
 * nothing) and lies wholly inside the memfd, the arena sealed and mapped
 * read-only at its fill's block-aligned address (huge_pages.h). The table lists the
 * walk's files, and apart the representations, in the order they were copied, so
 * consecutive bodies' blocks gather into one run, joined by one call, and a block two
 * bodies share is asked once. Unused slots are zero (no body). */
static void join_large_bodies(uint8_t k, uint32_t from, uint32_t to)
{
	const struct file_arena *a = &cache.arenas[k];
	uint64_t block = cache.huge_page, run_from = 0, run_to = 0;
	for (uint32_t i = from; block && i < to; i++) {
		const struct cached_file *f = &cache.files[i];
		if (f->place != FILE_IN_MEMORY || f->arena != k || !f->body ||
		    f->size < HUGE_JOIN_MIN)
			continue;
		uint64_t at = (uint64_t)(f->body - a->base) & ~(block - 1);
		uint64_t end = ((uint64_t)(f->body - a->base) + f->size + block - 1) & ~(block - 1);
		end = end <= a->size ? end : a->size & ~(block - 1); /* not past the memfd */
		at = at > run_to || at < run_from ? at : run_to;     /* asked already */
		if (at >= end)
			continue;
		if (at != run_to) { /* not next to the run: join the run, start another */
			huge_join(a->base, run_from, run_to, block);
			run_from = at;
		}
		run_to = end;
	}
	huge_join(a->base, run_from, run_to, block);
}

/* Joins the large bodies of arena k, the entries' and the representations'. */
static void join_arena(uint8_t k)
{
	join_large_bodies(k, 0, cache.entry_count);
	join_large_bodies(k, cache.entries_max, cache.entries_max + cache.variant_count);
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
	long r = sys_munmap(cache.body_arena, site_arena_span());
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
		return site_fail(EXIT_ROOT_READ, "cannot seal the snapshot's memfd", r);
	r = sys_mmap(cache.body_arena, bytes, PROT_READ, MAP_SHARED | MAP_FIXED_NOREPLACE,
		     cache.body_fd, 0);
	if (sys_is_error(r) || (char *)r != cache.body_arena)
		return site_fail(EXIT_ROOT_READ, "cannot map the snapshot read-only", r);
	advise_huge_pages(cache.body_arena, bytes);
	int fd = site_above_slots(cache.body_fd);
	cache.arenas[cache.new_arena] = (struct file_arena){cache.body_arena, bytes, fd, 0};
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

/* The bodies a load keeps in arenas: the files' (entries), then the representations
 * made at load (file_gzip.c: the first `generated` ones, before link_variants adds those
 * beside their files, whose bytes are files' already). Body i < body_count() belongs to
 * body_owner(i), or to none (NULL: a directory, an empty file, a file on disk). */
static uint32_t body_count(void)
{
	return cache.entry_count + cache.generated;
}

static struct cached_file *body_owner(uint32_t i)
{
	struct cached_file *f = i < cache.entry_count
					? &cache.files[i]
					: &cache.files[cache.entries_max + (i - cache.entry_count)];
	return f->kind == CACHED_FILE && f->place == FILE_IN_MEMORY && f->size ? f : 0;
}

/* Copies every reused body into the body arena (after the bytes read), so that the
 * reused arenas can all be dropped: every live byte is copied once. The budget counted
 * them already, so they fit. */
static void compact(void)
{
	for (uint32_t i = 0; i < body_count(); i++) {
		struct cached_file *f = body_owner(i);
		if (!f || f->arena == cache.new_arena)
			continue;
		char *to = site_body_start(f->size);
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
	for (uint32_t i = 0; i < body_count(); i++) {
		const struct cached_file *f = body_owner(i);
		if (f)
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

/* Whether files[i], in the manifest, has a gzip record too: a representation made at
 * load (`made`: after site_compress_late, link_variants has linked the X.gz beside
 * files too), or a result that was not worth keeping. */
static int has_gzip_record(uint32_t i)
{
	const struct cached_file *g = cache.files[i].variant[FILE_ENCODING_GZIP - 1];
	return (g && g->made) ||
	       (cache.gzip_none && cache.gzip_none[i]);
}

/* The gzip record of files[i] (has_gzip_record), whose stamp is t and whose name is at
 * name_at, arena k being handed over as handed[k]: its representation's extent, or an
 * empty one. */
static struct file_manifest_record gzip_record(uint32_t i, const struct file_stamp *t,
					       uint32_t name_at, const uint8_t *handed)
{
	const struct cached_file *f = &cache.files[i], *g = f->variant[FILE_ENCODING_GZIP - 1];
	struct file_manifest_record r = {*t, 0, 0, name_at, f->name_len, 0, FILE_MANIFEST_GZIP};
	if (g && g->made) {
		r.size = g->size;
		r.offset = (uint64_t)(g->body - cache.arenas[g->arena].base);
		r.arena = handed[g->arena];
	}
	return r;
}

/* Fills the manifest at m (size bytes: file_manifest_size of what in_manifest and
 * has_gzip_record count), arena k being handed over as handed[k]. A gzip record shares
 * its file's name. */
static void fill_manifest(char *m, const uint8_t *handed, uint32_t arenas, uint32_t count,
			  uint64_t names)
{
	*(struct file_manifest_head *)m = (struct file_manifest_head){
		FILE_MANIFEST_MAGIC, FILE_MANIFEST_VERSION, FILE_MANIFEST_RECORD_SIZE, count,
		arenas, (uint32_t)cache.compress_level, names,
		file_manifest_site_key(cache.root_dir)};
	struct file_manifest_record *r = (struct file_manifest_record *)(m + FILE_MANIFEST_HEAD_SIZE);
	char *name_base = m + file_manifest_size(count, 0), *name = name_base;
	for (uint32_t i = 0; i < cache.entry_count; i++) {
		const struct cached_file *f = &cache.files[i];
		if (!in_manifest(f))
			continue;
		const struct file_stamp *t = &cache.stamps[i];
		const struct file_arena *a = &cache.arenas[f->arena];
		uint32_t name_at = (uint32_t)(name - name_base);
		*r++ = (struct file_manifest_record){*t, f->size, (uint64_t)(f->body - a->base),
						     name_at, f->name_len, handed[f->arena],
						     FILE_MANIFEST_IDENTITY};
		if (has_gzip_record(i))
			*r++ = gzip_record(i, t, name_at, handed);
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
			count += 1u + (uint32_t)has_gzip_record(i);
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
		site_prefault((void *)m, size); /* written whole: a call, not a fault a page */
		fill_manifest((char *)m, handed, arenas, count, names);
		r = sys_munmap((void *)m, size);
	}
	if (!sys_is_error(m) && !sys_is_error(r))
		r = sys_fcntl((int)fd, K_F_ADD_SEALS, BODY_SEALS);
	if (sys_is_error(m) || sys_is_error(r)) {
		sys_close((int)fd);
		return;
	}
	cache.manifest_fd = site_above_slots((int)fd);
}

uint32_t site_hand_over(int *fds)
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
	advise_huge_pages(a->base, a->size);
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
		uint32_t i = site_name_hash(names + rec[r].name_at, rec[r].name_len);
		while (cache.old_slot[i & (cache.old_slots - 1)])
			i++;
		cache.old_slot[i & (cache.old_slots - 1)] = r + 1;
	}
	return 1;
}

void site_forget_old_manifest(void)
{
	if (cache.old_slot)
		sys_munmap(cache.old_slot, cache.old_slots * sizeof(uint32_t));
	if (cache.old_manifest)
		sys_munmap((void *)cache.old_manifest, cache.old_manifest_bytes);
	cache.old_slot = 0;
	cache.old_manifest = 0;
}

/* The site key and arena count of the manifest at fd (mapped for a moment), when it
 * starts as this layout's manifest: returns 1, else 0. */
static int manifest_head_of(int fd, uint64_t *key, uint32_t *arenas)
{
	struct file_arena m = {0, 0, -1, 0};
	if (!map_sealed(fd, &m))
		return 0;
	const struct file_manifest_head *h = (const struct file_manifest_head *)m.base;
	int ok = m.size >= FILE_MANIFEST_HEAD_SIZE && h->magic == FILE_MANIFEST_MAGIC &&
		 h->version == FILE_MANIFEST_VERSION;
	if (ok) {
		*key = h->site_key;
		*arenas = h->arenas;
	}
	sys_munmap((void *)m.base, m.size);
	return ok;
}

uint32_t site_handed_group(const int *fds, uint32_t n, const char *root, uint32_t *at)
{
	uint64_t want = file_manifest_site_key(root), key = 0;
	uint32_t arenas = 0;
	for (uint32_t i = 0; i < n;) {
		if (fds[i] < 0) { /* taken by an earlier site, its arenas with it */
			i++;
			continue;
		}
		if (!manifest_head_of(fds[i], &key, &arenas))
			return 0; /* no telling where the next group starts */
		uint32_t len = 1 + (arenas < n - i - 1 ? arenas : n - i - 1);
		if (key == want) {
			*at = i;
			return len;
		}
		i += len;
	}
	return 0;
}

uint32_t site_reuse(const int *fds, uint32_t n)
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
		site_forget_old_manifest();
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
		cache.arenas[k].fd = site_above_slots(cache.arenas[k].fd);
	cache.new_arena = (uint8_t)arenas;
	return arenas;
}

void site_join_huge_pages(void)
{
	for (uint32_t s = 0; s < SITES_MAX; s++) {
		site_enter(s);
		if (cache.huge_join_due && cache.arenas[cache.huge_join_arena].base)
			join_arena(cache.huge_join_arena);
		cache.huge_join_due = 0;
	}
	site_enter(SITE_DEFAULT);
}

enum exit_code site_seal_arenas(void)
{
	settle_arenas();
	enum exit_code r = seal_body_arena();
	if (r == EXIT_OK)
		write_manifest();
	cache.huge_join_arena = cache.new_arena; /* for site_join_huge_pages */
	cache.huge_join_due = r == EXIT_OK && cache.arenas[cache.new_arena].base;
	return r;
}

enum exit_code site_open_late_arena(void)
{
	uint32_t k = 0;
	while (k < ARENAS_KEPT && cache.arenas[k].base)
		k++;
	if (k == ARENAS_KEPT) /* a first load keeps one arena: never, but bounded */
		return site_fail(EXIT_ROOT_READ, "no arena left for gzip", 0);
	cache.new_arena = (uint8_t)k;
	cache.body_fill = 0;
	cache.body_padding = 0;
	return site_open_body_arena();
}

enum exit_code site_seal_late(void)
{
	enum exit_code r = seal_body_arena();
	if (r != EXIT_OK)
		return r;
	join_arena(cache.new_arena); /* the compressing generation's: no one waits on it */
	if (cache.manifest_fd >= 0) /* the supervisor's copy of the deferred load's */
		sys_close(cache.manifest_fd);
	cache.manifest_fd = -1;
	write_manifest();
	return EXIT_OK;
}
