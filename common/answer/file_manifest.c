/* The manifest's check (see file_manifest.h). */
#include "common/answer/file_manifest.h"

/* Whether record r fits a manifest of names_bytes names, gzip records made at level
 * (0: none may be) and the arenas handed over. */
static int record_ok(const struct file_manifest_record *r, uint64_t names_bytes,
		     uint32_t level, uint32_t arenas, const uint64_t *arena_size)
{
	int gzip = r->coding == FILE_MANIFEST_GZIP;
	if (r->name_len == 0 || r->name_len > FILE_MANIFEST_NAME_MAX ||
	    (r->coding != FILE_MANIFEST_IDENTITY && !gzip) || (gzip && !level) ||
	    r->name_at > names_bytes || r->name_len > names_bytes - r->name_at)
		return 0;
	if (r->stamp.mtime_ns >= FILE_MANIFEST_NS_MAX || r->stamp.ctime_ns >= FILE_MANIFEST_NS_MAX)
		return 0;
	if (gzip && r->size == 0) /* compressed, not worth keeping: no extent */
		return r->offset == 0 && r->arena == 0;
	return r->arena < arenas && r->size != 0 && r->offset <= arena_size[r->arena] &&
	       r->size <= arena_size[r->arena] - r->offset;
}

int64_t file_manifest_check(const void *bytes, uint64_t size, uint32_t arenas,
			    const uint64_t *arena_size)
{
	const struct file_manifest_head *h = (const struct file_manifest_head *)bytes;
	if (size < FILE_MANIFEST_HEAD_SIZE || h->magic != FILE_MANIFEST_MAGIC ||
	    h->version != FILE_MANIFEST_VERSION || h->record_size != FILE_MANIFEST_RECORD_SIZE ||
	    h->gzip_level > FILE_MANIFEST_LEVEL_MAX || h->arenas != arenas ||
	    arenas > FILE_MANIFEST_ARENAS_MAX)
		return -1;
	/* count and names_bytes are each bounded by size before they are added up */
	uint64_t room = size - FILE_MANIFEST_HEAD_SIZE;
	if (h->count > room / FILE_MANIFEST_RECORD_SIZE ||
	    h->names_bytes != room - (uint64_t)h->count * FILE_MANIFEST_RECORD_SIZE)
		return -1;
	const struct file_manifest_record *r = file_manifest_records(bytes);
	for (uint32_t i = 0; i < h->count; i++)
		if (!record_ok(&r[i], h->names_bytes, h->gzip_level, arenas, arena_size))
			return -1;
	return h->count;
}

uint64_t file_manifest_site_key(const char *dir)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a's 64-bit offset basis and prime */
	for (const char *p = dir; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return h;
}
