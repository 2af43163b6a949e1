/* gzip representations made at load (BEHAVIOUR 10.10): after the loading walk, every
 * file in memory of a compressible type (mime_types.h's type_is_compressible) without an
 * X.gz beside it gets one, compressed from its bytes into the body arena beside them
 * (compress.h), counted against --cache-bytes, never written to disk. It is linked as the
 * file's gzip variant and served as an X.gz beside it would be; its ETag is the file's
 * with "-gz" and the level inside the quotes, so other bytes (another level) never share
 * one. A reload carries the representation of a file whose bytes it carried, made at the
 * same level (the manifest's gzip records), instead of compressing it again. Start-up
 * only. */
#include "common/answer/compress.h"
#include "common/answer/site_snapshot.h"
#include "common/answer/mime_types.h"
#include "common/base/span.h"

void site_set_compression(int level)
{
	cache.compress_level = level;
}

uint32_t site_gzip_count(void)
{
	return cache.gzip_count;
}

uint32_t site_gzip_reused(void)
{
	return cache.gzip_reused;
}

uint32_t site_gzip_runs(void)
{
	return cache.gzip_runs;
}

int site_may_compress(const char *name, size_t len)
{
	struct text_span type;
	if (!cache.compress_level)
		return 0;
	mime_type_of(name, len, &type);
	return type_is_compressible(type.text, type.len);
}

/* Returns 1 when X.gz is a loaded file beside files[i] (X): it wins over a generated
 * representation. Uses cache.path (the walk is over). */
static int has_gzip_beside(const struct cached_file *f)
{
	const struct text_span *gz = &file_encoding_suffix[FILE_ENCODING_GZIP];
	if (f->name_len + gz->len > SITE_PATH_MAX)
		return 0;
	copy_span(copy_span(cache.path, f->name, f->name_len), gz->text, gz->len);
	const struct cached_file *v = site_find(cache.path, f->name_len + gz->len);
	return v && v->kind == CACHED_FILE;
}

/* Renders rep's validators: its file f's Last-Modified and ETag, with "-gz<level>"
 * before the ETag's closing quote. */
static void gzip_validators(struct cached_file *rep, const struct cached_file *f)
{
	const struct text_span *suffix = &file_encoding_etag_suffix[FILE_ENCODING_GZIP];
	char *out = cache.head_arena + cache.heads_used;
	char *p = copy_span(out, f->etag - VALIDATORS_ETAG_AT, VALIDATORS_ETAG_AT + f->etag_len - 1u);
	p = copy_span(p, suffix->text, suffix->len);
	if (cache.compress_level >= 10) /* the level in decimal: 1..12 */
		*p++ = '1';
	*p++ = (char)('0' + cache.compress_level % 10);
	*p++ = '"';
	rep->etag = out + VALIDATORS_ETAG_AT;
	rep->etag_len = (uint8_t)(p - rep->etag);
	cache.heads_used += (uint64_t)(p - out);
}

/* Links size bytes at body (in arenas[arena]) as f's gzip representation, counted
 * against the budget. */
static void link_gzip(struct cached_file *f, const char *body, uint64_t size, uint8_t arena)
{
	struct cached_file *rep = &cache.files[cache.entries_max + cache.variant_count++];
	*rep = *f;
	rep->body = body;
	rep->size = size;
	rep->arena = arena;
	rep->encoding = FILE_ENCODING_GZIP;
	rep->made = 1;
	for (int i = 0; i < FILE_VARIANTS; i++)
		rep->variant[i] = 0;
	f->variant[FILE_ENCODING_GZIP - 1] = rep;
	gzip_validators(rep, f);
	cache.bytes_total += size;
}

/* Compresses files[i] (f) with c into the body arena, and links the result when it saves
 * 5% and fits the budget. A result not worth keeping with room for it is noted
 * (gzip_none): the next image need not try again. */
static void make_gzip(struct libdeflate_compressor *c, struct cached_file *f, uint32_t i)
{
	uint64_t room = cache.budget - cache.bytes_total;
	char *to = cache.body_arena + cache.body_fill;
	size_t n = compress_gzip(c, f->body, f->size, to, room < f->size ? room : f->size);
	cache.gzip_runs++;
	if (!n) {
		cache.gzip_none[i] = room >= f->size; /* else the budget refused it, not the bytes */
		return;
	}
	link_gzip(f, to, n, cache.new_arena);
	cache.body_fill += n;
	cache.gzip_count++;
}

/* Gives files[i] (f) the previous image's gzip of it: when f's bytes were carried from
 * that image (not read anew) and its gzip record was made at this level from them.
 * Returns 1 when f needs no compressing: a representation carried, or none that was
 * worth keeping (or none fits the budget, as a new one would not). */
static int carry_gzip(struct cached_file *f, uint32_t i)
{
	if (f->arena == cache.new_arena)
		return 0; /* read by this load: new bytes, compressed anew */
	const struct file_manifest_record *r =
		site_reusable_gzip(f->name, f->name_len, &cache.stamps[i], cache.compress_level);
	if (!r)
		return 0;
	if (r->size == 0) {
		cache.gzip_none[i] = 1;
		return 1;
	}
	if (r->size > cache.budget - cache.bytes_total)
		return 1;
	link_gzip(f, cache.arenas[r->arena].base + r->offset, r->size, r->arena);
	cache.gzip_reused++;
	return 1;
}

/* Whether files[i] is a candidate: a file in memory, long enough, of a compressible
 * type, with no X.gz beside it. */
static int wants_gzip(const struct cached_file *f)
{
	return f->kind == CACHED_FILE && f->place == FILE_IN_MEMORY &&
	       f->size >= COMPRESS_MIN_BYTES && f->encoding == FILE_ENCODING_IDENTITY &&
	       site_may_compress(f->name, f->name_len) && !has_gzip_beside(f);
}

void site_gzip_all(void)
{
	cache.gzip_count = cache.gzip_reused = cache.gzip_runs = 0;
	struct libdeflate_compressor *c = 0;
	int no_compressor = 0;
	for (uint32_t i = 0; i < cache.entry_count; i++) {
		struct cached_file *f = &cache.files[i];
		if (cache.variant_count == cache.variants_max)
			break; /* the first walk counted every candidate: never, but bounded */
		if (!wants_gzip(f) || carry_gzip(f, i))
			continue;
		if (!c && !no_compressor) /* made once a file needs it: a reload may need none */
			no_compressor = !(c = compress_begin(cache.compress_level));
		if (c)
			make_gzip(c, f, i);
	}
	compress_end(c); /* the heap goes before anything is served */
}

/* Counts the candidates a deferred load leaves to site_compress_late. */
static uint32_t count_candidates(void)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < cache.entry_count; i++)
		n += (uint32_t)wants_gzip(&cache.files[i]);
	return n;
}

void site_add_gzip(void)
{
	cache.gzip_count = cache.gzip_reused = cache.gzip_runs = cache.generated = 0;
	if (!cache.compress_level || !cache.body_arena)
		return;
	if (cache.gzip_deferred) {
		cache.gzip_pending = count_candidates();
		return;
	}
	site_gzip_all();
	cache.generated = cache.variant_count; /* link_variants adds the others later */
}

void site_defer_gzip(void)
{
	cache.gzip_deferred = 1;
}

uint32_t site_gzip_pending(void)
{
	return cache.gzip_pending;
}

enum exit_code site_compress_late(void)
{
	uint32_t before = cache.variant_count;
	enum exit_code r = site_open_late_arena();
	if (r != EXIT_OK)
		return r;
	site_gzip_all(); /* every file's arena is an old one: all compressed anew */
	r = site_seal_late();
	if (r != EXIT_OK)
		return r;
	for (uint32_t k = before; k < cache.variant_count; k++) {
		struct cached_file *rep = &cache.files[cache.entries_max + k];
		/* its file, whose head now says Vary (the head arena has room: deferred) */
		site_render_heads((struct cached_file *)site_find(rep->name,
									      rep->name_len));
		site_render_heads(rep);
	}
	cache.gzip_pending = 0;
	return EXIT_OK;
}
