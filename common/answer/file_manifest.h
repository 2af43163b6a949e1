/* The snapshot's manifest (BEHAVIOUR 10.17, 17): what one image hands the image its reload
 * starts, besides the arenas' memfds, so that the new one reuses the bytes of every file
 * that did not change instead of reading it again. A small sealed memfd of this layout:
 *   struct file_manifest_head, then `count` struct file_manifest_record, then the names
 *   (names_bytes bytes, unterminated), and nothing after.
 * A record says where one cached file's bytes lie (arena: its place among the handed
 * arenas; offset) and what the file was when they were read (device, inode, size, mtime
 * and ctime to the ns). A gzip record (coding FILE_MANIFEST_GZIP) says the same of the
 * gzip representation made at load (BEHAVIOUR 10.10) of the file of its name, from the
 * bytes its stamp describes, at the head's gzip_level; one of size 0 (offset 0, arena 0)
 * says the file was compressed at that level and the result was not worth keeping. So a
 * reload carries both, and compresses only what changed. The receiver trusts none of it
 * blindly: file_manifest_check bounds every field against the memfd's size and the
 * arenas' sizes. Pure: no syscalls. */
#ifndef APOLLOD_COMMON_FILE_MANIFEST_H
#define APOLLOD_COMMON_FILE_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define FILE_MANIFEST_MAGIC 0x464d5041u /* "APMF", little-endian */
#define FILE_MANIFEST_VERSION 4u        /* this layout; any other is ignored */
#define FILE_MANIFEST_ARENAS_MAX 7      /* arenas one manifest names: the hand-over's 8
					 * descriptors less the manifest's own */
#define FILE_MANIFEST_NAME_MAX 255      /* SITE_PATH_MAX */
#define FILE_MANIFEST_NS_MAX 1000000000u /* a timestamp's nanoseconds stay below */
#define FILE_MANIFEST_HEAD_SIZE 40
#define FILE_MANIFEST_STAMP_SIZE 40
#define FILE_MANIFEST_RECORD_SIZE 64
#define FILE_MANIFEST_LEVEL_MAX 12      /* COMPRESS_LEVEL_MAX: libdeflate's levels */

/* What a record's bytes are (file_manifest_record.coding). */
enum file_manifest_coding {
	FILE_MANIFEST_IDENTITY = 0, /* the file's own bytes */
	FILE_MANIFEST_GZIP = 1,     /* its gzip made at load (none kept: size 0) */
};

struct file_manifest_head {
	uint32_t magic;       /* FILE_MANIFEST_MAGIC */
	uint32_t version;     /* FILE_MANIFEST_VERSION */
	uint32_t record_size; /* FILE_MANIFEST_RECORD_SIZE */
	uint32_t count;       /* records */
	uint32_t arenas;      /* arenas handed over with it, in record.arena order */
	uint32_t gzip_level;  /* the level the gzip records were made at (1..LEVEL_MAX); 0:
			       * compression was off and there are none */
	uint64_t names_bytes; /* the names after the records */
	uint64_t site_key;    /* file_manifest_site_key of the DIR the files were loaded
			       * from: which site's load takes it (each site hands its own) */
};

/* What a file was when its bytes were read: what a reload compares, with the size. */
struct file_stamp {
	uint64_t inode;
	int64_t mtime_s;
	int64_t ctime_s;
	uint32_t mtime_ns;  /* below FILE_MANIFEST_NS_MAX */
	uint32_t ctime_ns;  /* below FILE_MANIFEST_NS_MAX */
	uint32_t dev_major;
	uint32_t dev_minor;
};

/* Whether stamps a and b are the same: device, inode, mtime and ctime to the ns. */
static inline int file_stamp_same(const struct file_stamp *a, const struct file_stamp *b)
{
	return a->inode == b->inode && a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns &&
	       a->ctime_s == b->ctime_s && a->ctime_ns == b->ctime_ns &&
	       a->dev_major == b->dev_major && a->dev_minor == b->dev_minor;
}

struct file_manifest_record {
	struct file_stamp stamp;
	uint64_t size;      /* the bytes in the arena: the file's size when they were read */
	uint64_t offset;    /* where they start in their arena's memfd */
	uint32_t name_at;   /* the name's first byte among the names */
	uint16_t name_len;  /* 1..FILE_MANIFEST_NAME_MAX: the path relative to DIR */
	uint8_t arena;      /* < head.arenas */
	uint8_t coding;     /* enum file_manifest_coding */
};

STATIC_ASSERT(sizeof(struct file_manifest_head) == FILE_MANIFEST_HEAD_SIZE, "head layout");
STATIC_ASSERT(sizeof(struct file_stamp) == FILE_MANIFEST_STAMP_SIZE, "stamp layout");
STATIC_ASSERT(sizeof(struct file_manifest_record) == FILE_MANIFEST_RECORD_SIZE,
	      "record layout");
STATIC_ASSERT(FILE_MANIFEST_NAME_MAX <= UINT16_MAX, "name_len fits 16 bits");

/* The key of a site's DIR, as its --root or --site names it (dir NUL-terminated): the
 * FNV-1a of its bytes, 64 bits. A reload's site of the same DIR takes the manifest of
 * that key; a wrong match costs only the reuse, since a record is taken only for a file
 * of the same device, inode, size and times (site_reuse). Pure. */
uint64_t file_manifest_site_key(const char *dir);

/* The manifest's bytes for count records and names_bytes of names. */
static inline uint64_t file_manifest_size(uint32_t count, uint64_t names_bytes)
{
	return FILE_MANIFEST_HEAD_SIZE + (uint64_t)count * FILE_MANIFEST_RECORD_SIZE +
	       names_bytes;
}

/* Checks the manifest bytes[0..size) (8-byte aligned) against arenas handed-over arenas
 * whose memfds are arena_size[0..arenas) bytes long: the magic, the version, the layout,
 * a gzip level of at most FILE_MANIFEST_LEVEL_MAX, an exact total size, and in every
 * record a name inside the names, a known coding (gzip only with a level), an arena that
 * was handed over, a non-empty extent inside it (a gzip record's may be empty: offset
 * and arena 0) and nanoseconds below a second. Returns the record count, or -1 when
 * anything is off (then none of it may be used). */
int64_t file_manifest_check(const void *bytes, uint64_t size, uint32_t arenas,
			    const uint64_t *arena_size);

/* The records of a manifest file_manifest_check accepted, and its names. */
static inline const struct file_manifest_record *file_manifest_records(const void *bytes)
{
	return (const struct file_manifest_record *)((const char *)bytes +
						     FILE_MANIFEST_HEAD_SIZE);
}

static inline const char *file_manifest_names(const void *bytes)
{
	const struct file_manifest_head *h = (const struct file_manifest_head *)bytes;
	return (const char *)bytes + file_manifest_size(h->count, 0);
}

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_FILE_MANIFEST_H */
