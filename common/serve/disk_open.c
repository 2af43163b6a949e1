/* Opening a file served from disk (see disk_open.h). */
#include "common/serve/disk_open.h"

#include <linux/fcntl.h>   /* O_*, AT_EMPTY_PATH */
#include <linux/openat2.h> /* struct open_how, RESOLVE_* */
#include <linux/stat.h>    /* struct statx, STATX_*, S_IFMT */

#include "common/base/counters.h"
#include "common/base/span.h"
#include "common/base/sys.h"

#define FILE_OPEN_FLAGS (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
#define DIR_OPEN_FLAGS (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define DISK_RESOLVE (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)
#define DISK_STATX (STATX_TYPE | STATX_SIZE | STATX_MTIME | STATX_INO)
STATIC_ASSERT(sizeof(struct open_how) == SYS_OPEN_HOW_SIZE,
	      "open_how's first version (OPEN_HOW_SIZE_VER0), the size the filter admits");
STATIC_ASSERT(FILE_OPEN_FLAGS == SYS_OPEN_DISK_FILE && DIR_OPEN_FLAGS == SYS_OPEN_DISK_DIR,
	      "the flags the sandbox's openat row admits (sys_table.h)");

/* A syscall of the serving path: counted (syscalls_total). */
static long counted(long r)
{
	counter_add(C_syscalls_total, 1);
	return r;
}

/* Opens path (NUL-terminated, relative) beneath root_fd one component at a time, each
 * directory with O_PATH | O_DIRECTORY | O_NOFOLLOW, the last with FILE_OPEN_FLAGS: a link
 * anywhere is ELOOP or ENOTDIR. path is cut at each '/' while it is walked and mended.
 * Returns the descriptor or -errno. */
static long open_by_components(int root_fd, char *path)
{
	int dir = root_fd;
	char *name = path;
	for (char *p = path;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		int last = *p == '\0';
		*p = '\0';
		long fd = counted(sys_openat(dir, name, last ? FILE_OPEN_FLAGS : DIR_OPEN_FLAGS));
		if (!last)
			*p = '/';
		if (dir != root_fd)
			counted(sys_close(dir));
		if (last || sys_is_error(fd))
			return fd;
		dir = (int)fd;
		name = p + 1;
	}
}

long disk_open(int root_fd, const struct cached_file *f, struct disk_stat *st,
	       uint8_t *no_openat2)
{
	char path[SITE_PATH_MAX + 1];
	copy_span(path, f->disk_name, file_disk_name_len(f))[0] = '\0';
	long fd = -ENOSYS;
	if (!*no_openat2) {
		struct open_how how = {.flags = FILE_OPEN_FLAGS, .mode = 0, .resolve = DISK_RESOLVE};
		fd = counted(sys_openat2(root_fd, path, &how, sizeof(how)));
		if (fd == -ENOSYS)
			*no_openat2 = 1;
	}
	if (fd == -ENOSYS)
		fd = open_by_components(root_fd, path);
	if (sys_is_error(fd))
		return fd;
	struct statx sx;
	long r = counted(sys_statx((int)fd, "", AT_EMPTY_PATH, DISK_STATX, &sx));
	if (!sys_is_error(r) && (sx.stx_mode & S_IFMT) != S_IFREG)
		r = -EINVAL;
	if (sys_is_error(r)) {
		counted(sys_close((int)fd));
		return r;
	}
	*st = (struct disk_stat){sx.stx_size, sx.stx_mtime.tv_sec, sx.stx_mtime.tv_nsec, 0,
				 sx.stx_ino};
	return fd;
}
