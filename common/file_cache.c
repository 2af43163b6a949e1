/* The warm file cache (see file_cache.h). Start-up only, except file_cache_find. */
#include "common/file_cache.h"

#include <linux/mman.h>              /* PROT_READ, MAP_PRIVATE */
#include <linux/fcntl.h>             /* AT_EMPTY_PATH, AT_SYMLINK_NOFOLLOW, AT_FDCWD */
#include <linux/stat.h>              /* struct statx, STATX_*, S_IFMT */

#include "common/char_class.h"
#include "common/console.h"
#include "common/errno_text.h"
#include "common/responses.h"
#include "common/span.h"
#include "common/sys.h"

/* X(extension, Content-Type), matched ignoring case; anything else is
 * application/octet-stream. */
#define FOR_EACH_CONTENT_TYPE(X)                               \
	X("html", "text/html; charset=utf-8")                  \
	X("htm", "text/html; charset=utf-8")                   \
	X("txt", "text/plain; charset=utf-8")                  \
	X("css", "text/css; charset=utf-8")                    \
	X("js", "text/javascript; charset=utf-8")              \
	X("json", "application/json")                          \
	X("xml", "application/xml")                            \
	X("svg", "image/svg+xml")                              \
	X("png", "image/png")                                  \
	X("jpg", "image/jpeg")                                 \
	X("jpeg", "image/jpeg")                                \
	X("gif", "image/gif")                                  \
	X("webp", "image/webp")                                \
	X("ico", "image/x-icon")                               \
	X("wasm", "application/wasm")                          \
	X("pdf", "application/pdf")
#define CONTENT_TYPE_DEFAULT "application/octet-stream"
#define CONTENT_TYPE_MAX 40

#define CHECK_TYPE_LEN(ext, type) \
	STATIC_ASSERT(sizeof(type) - 1 <= CONTENT_TYPE_MAX, ext ": Content-Type too long");
FOR_EACH_CONTENT_TYPE(CHECK_TYPE_LEN)
STATIC_ASSERT(sizeof(CONTENT_TYPE_DEFAULT) - 1 <= CONTENT_TYPE_MAX, "default type");

static const struct {
	const char *ext;
	const char *type;
	uint8_t ext_len;
	uint8_t type_len;
} content_types[] = {
#define TYPE_ENTRY(ext, type) {ext, type, sizeof(ext) - 1, sizeof(type) - 1},
	FOR_EACH_CONTENT_TYPE(TYPE_ENTRY)
#undef TYPE_ENTRY
};
#define CONTENT_TYPE_COUNT (sizeof(content_types) / sizeof(content_types[0]))

STATIC_ASSERT(HEAD_200_MAX(CONTENT_TYPE_MAX) <= FILE_CACHE_HEAD_MAX,
	      "every rendered head fits FILE_CACHE_HEAD_MAX");

#define DIRENT_BUFFER_SIZE 4096 /* one getdents64 batch per directory level */
#define STATX_WANTED (STATX_TYPE | STATX_SIZE)

static struct cached_file files[FILE_CACHE_FILES_MAX];
static uint32_t file_count;
static uint64_t bytes_total;
static char name_arena[FILE_CACHE_NAMES_MAX];
static uint32_t names_used;
static char head_arena[FILE_CACHE_FILES_MAX][CONN_FORM_COUNT][FILE_CACHE_HEAD_MAX];
static uint16_t index_slot[FILE_CACHE_INDEX_SIZE]; /* file number + 1; 0 is empty */
static char dirent_buffer[FILE_CACHE_DEPTH_MAX + 1][DIRENT_BUFFER_SIZE];
static char path[FILE_CACHE_PATH_MAX + 1]; /* the walk's current relative path */
static const char *root_dir;

/* Writes "apollod: --root DIR: <what>[: <relative path>][: <reason>]\n" to stderr, the
 * reason being err's text (none when err is 0: a limit). Returns code. */
static enum exit_code fail_because(enum exit_code code, const char *what, long err)
{
	char reason[ERRNO_TEXT_MAX];
	write_stderr(LITERAL("apollod: --root "));
	write_stderr(root_dir, cstr_len(root_dir));
	write_stderr(LITERAL(": "));
	write_stderr(what, cstr_len(what));
	if (path[0]) {
		write_stderr(LITERAL(": "));
		write_stderr(path, cstr_len(path));
	}
	if (err) {
		write_stderr(LITERAL(": "));
		write_stderr(reason, errno_text(err, reason));
	}
	write_stderr(LITERAL("\n"));
	return code;
}

/* Writes "apollod: --root DIR: <what>[: <relative path>]\n" to stderr; returns code. */
static enum exit_code fail(enum exit_code code, const char *what)
{
	return fail_because(code, what, 0);
}

/* Closes the file being loaded, then reports like fail_because(). */
static enum exit_code close_and_fail(long fd, enum exit_code code, const char *what, long err)
{
	sys_close((int)fd);
	return fail_because(code, what, err);
}

/* FNV-1a over the name: cheap, and good enough for at most 1024 short keys. */
static uint32_t name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

const struct cached_file *file_cache_find(const char *name, size_t len)
{
	if (file_count == 0)
		return 0;
	for (uint32_t i = name_hash(name, len);; i++) {
		uint16_t slot = index_slot[i & (FILE_CACHE_INDEX_SIZE - 1)];
		if (slot == 0)
			return 0;
		const struct cached_file *f = &files[slot - 1];
		if (f->name_len == len && span_eq(f->name, name, len))
			return f;
	}
}

uint32_t file_cache_count(void)
{
	return file_count;
}

uint64_t file_cache_bytes(void)
{
	return bytes_total;
}

/* The Content-Type for a relative name, from its extension. */
static void content_type(const char *name, size_t len, const char **type, size_t *type_len)
{
	size_t dot = len;
	while (dot > 0 && name[dot - 1] != '.' && name[dot - 1] != '/')
		dot--;
	if (dot > 0 && name[dot - 1] == '.') {
		for (size_t i = 0; i < CONTENT_TYPE_COUNT; i++)
			if (content_types[i].ext_len == len - dot &&
			    span_ieq(name + dot, content_types[i].ext, len - dot)) {
				*type = content_types[i].type;
				*type_len = content_types[i].type_len;
				return;
			}
	}
	*type = CONTENT_TYPE_DEFAULT;
	*type_len = sizeof(CONTENT_TYPE_DEFAULT) - 1;
}

/* A name is servable when a request target can spell it without decoding: every byte
 * in 0x21-0x7e and no '?' (which starts the query). */
static int name_servable(const char *name, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!(http_char_class[(unsigned char)name[i]] & CC_TARGET) || name[i] == '?')
			return 0;
	return 1;
}

/* Opens the regular file `name` of directory dirfd (path[0..len) relative to the root),
 * checks the limits and maps it. Returns EXIT_OK with *body (NULL for an empty file) and
 * *size set, EXIT_OK with *size == FILE_SKIPPED when the entry is no longer a regular
 * file, or the start-up error (reported). */
#define FILE_SKIPPED UINT64_MAX
static enum exit_code map_file(int dirfd, const char *name, size_t len, const char **body,
			       uint64_t *size)
{
	long fd = sys_openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (sys_is_error(fd))
		return fail_because(EXIT_ROOT_READ, "cannot open", fd);
	struct statx st;
	long r = sys_statx((int)fd, "", AT_EMPTY_PATH, STATX_WANTED, &st);
	if (sys_is_error(r))
		return close_and_fail(fd, EXIT_ROOT_READ, "cannot stat", r);
	*size = FILE_SKIPPED;
	*body = 0;
	if ((st.stx_mode & S_IFMT) != S_IFREG) { /* replaced since it was listed: skip */
		sys_close((int)fd);
		return EXIT_OK;
	}
	if (file_count == FILE_CACHE_FILES_MAX)
		return close_and_fail(fd, EXIT_ROOT_LIMIT, "more than 1024 files", 0);
	if (st.stx_size > FILE_CACHE_BYTES_MAX - bytes_total)
		return close_and_fail(fd, EXIT_ROOT_LIMIT, "more than 1 GiB of files", 0);
	if (len > FILE_CACHE_NAMES_MAX - names_used)
		return close_and_fail(fd, EXIT_ROOT_LIMIT, "more than 64 KiB of path names", 0);
	if (st.stx_size) {
		long m = sys_mmap(0, st.stx_size, PROT_READ, MAP_PRIVATE, (int)fd, 0);
		if (sys_is_error(m))
			return close_and_fail(fd, EXIT_ROOT_READ, "cannot map", m);
		*body = (const char *)m;
	}
	sys_close((int)fd); /* the mapping keeps the file */
	*size = st.stx_size;
	return EXIT_OK;
}

/* Records the mapped file path[0..len): its name, its heads in both forms, its index
 * slot. The caller checked every limit. */
static void add_file(size_t len, const char *body, uint64_t size)
{
	struct cached_file *f = &files[file_count];
	f->name = copy_span(name_arena + names_used, path, len) - len;
	f->name_len = (uint16_t)len;
	names_used += (uint32_t)len;
	f->body = body;
	f->size = size;
	bytes_total += size;

	const char *type;
	size_t type_len;
	content_type(path, len, &type, &type_len);
	for (int form = 0; form < CONN_FORM_COUNT; form++) {
		char *h = head_arena[file_count][form];
		f->head[form] = h;
		f->head_len[form] =
			(uint16_t)render_head_200(h, type, type_len, size, (enum conn_form)form);
	}

	uint32_t i = name_hash(f->name, len);
	while (index_slot[i & (FILE_CACHE_INDEX_SIZE - 1)])
		i++;
	index_slot[i & (FILE_CACHE_INDEX_SIZE - 1)] = (uint16_t)(file_count + 1);
	file_count++;
}

/* Adds the regular file `name` of directory dirfd, whose relative path is path[0..len).
 * Returns EXIT_OK or the start-up error (reported). */
static enum exit_code load_file(int dirfd, const char *name, size_t len)
{
	if (!name_servable(path, len)) {
		write_stderr(LITERAL("apollod: --root: skipped, no request can name it: "));
		write_stderr(path, len);
		write_stderr(LITERAL("\n"));
		return EXIT_OK;
	}
	const char *body;
	uint64_t size;
	enum exit_code r = map_file(dirfd, name, len, &body, &size);
	if (r == EXIT_OK && size != FILE_SKIPPED)
		add_file(len, body, size);
	return r;
}

static enum exit_code walk(int dirfd, int depth, size_t len);

/* The type of directory entry d (named `name` in dirfd): K_DT_DIR, K_DT_REG or another
 * value for anything never served. Some file systems leave d_type unknown: then it asks
 * statx, without following a symbolic link. Returns EXIT_OK or EXIT_ROOT_READ (reported). */
static enum exit_code entry_type(int dirfd, const struct k_dirent64 *d, unsigned *type)
{
	*type = d->d_type;
	if (*type != K_DT_UNKNOWN)
		return EXIT_OK;
	struct statx st;
	long r = sys_statx(dirfd, d->d_name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st);
	if (sys_is_error(r))
		return fail_because(EXIT_ROOT_READ, "cannot stat", r);
	*type = (st.stx_mode & S_IFMT) == S_IFDIR   ? K_DT_DIR
		: (st.stx_mode & S_IFMT) == S_IFREG ? K_DT_REG
						    : K_DT_UNKNOWN;
	return EXIT_OK;
}

/* Loads one entry d of directory dirfd (`depth` levels below the root, relative path
 * path[0..len)): a subdirectory is walked, a regular file loaded, anything else (symbolic
 * links, devices, FIFOs, sockets) never followed or served. Leaves path[0..len) as it
 * found it. Returns EXIT_OK or the start-up error (reported). */
static enum exit_code walk_entry(int dirfd, int depth, size_t len, const struct k_dirent64 *d)
{
	const char *name = d->d_name;
	size_t name_len = cstr_len(name);
	if ((name_len == 1 && name[0] == '.') ||
	    (name_len == 2 && name[0] == '.' && name[1] == '.'))
		return EXIT_OK;
	size_t sub_len = len + (len ? 1 : 0) + name_len;
	if (sub_len > FILE_CACHE_PATH_MAX)
		return fail(EXIT_ROOT_LIMIT, "a path below it is longer than 255 bytes");
	char *p = path + len;
	if (len)
		*p++ = '/';
	copy_span(p, name, name_len)[0] = '\0';

	unsigned type;
	enum exit_code r = entry_type(dirfd, d, &type);
	if (r == EXIT_OK && type == K_DT_DIR) {
		if (depth == FILE_CACHE_DEPTH_MAX)
			return fail(EXIT_ROOT_LIMIT, "more than 8 directory levels");
		long sub = sys_openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sys_is_error(sub))
			return fail_because(EXIT_ROOT_READ, "cannot open directory", sub);
		r = walk((int)sub, depth + 1, sub_len);
		sys_close((int)sub);
	} else if (r == EXIT_OK && type == K_DT_REG) {
		r = load_file(dirfd, name, sub_len);
	}
	path[len] = '\0';
	return r;
}

/* Walks directory dirfd, `depth` levels below the root, whose relative path is
 * path[0..len). Returns EXIT_OK or the start-up error (reported). */
static enum exit_code walk(int dirfd, int depth, size_t len)
{
	char *buf = dirent_buffer[depth];
	for (;;) {
		long n = sys_getdents64(dirfd, buf, DIRENT_BUFFER_SIZE);
		if (n == 0)
			return EXIT_OK;
		if (sys_is_error(n))
			return fail_because(EXIT_ROOT_READ, "cannot list", n);
		for (long off = 0; off < n;) {
			const struct k_dirent64 *d = (const struct k_dirent64 *)(buf + off);
			off += d->d_reclen;
			enum exit_code r = walk_entry(dirfd, depth, len, d);
			if (r != EXIT_OK)
				return r;
		}
	}
}

enum exit_code file_cache_load(const char *root)
{
	root_dir = root;
	path[0] = '\0';
	long fd = sys_openat(AT_FDCWD, root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sys_is_error(fd))
		return fail_because(EXIT_ROOT_READ, "cannot open directory", fd);
	enum exit_code r = walk((int)fd, 0, 0);
	sys_close((int)fd);
	return r;
}
