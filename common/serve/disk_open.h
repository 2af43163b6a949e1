/* Opening a file served from disk (BEHAVIOUR 10.18) at request time: beneath DIR's
 * descriptor held since start-up, never following a symbolic link, never leaving DIR;
 * then its fstat. The one place a request touches the file system. */
#ifndef APOLLOD_COMMON_DISK_OPEN_H
#define APOLLOD_COMMON_DISK_OPEN_H

#include <stdint.h>

#include "common/answer/disk_file.h"
#include "common/answer/site.h"

/* Opens f's disk_name (a FILE_ON_DISK entry: a loaded name, so no "." or ".." component
 * and no leading '/') beneath root_fd for reading, close-on-exec and non-blocking (a
 * FIFO swapped in never blocks), and statx()es the open into *st. With openat2 and
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS; where the kernel has no openat2 (-ENOSYS, Linux
 * before 5.6, or qemu-user before 9.1) it remembers that in *no_openat2 and opens one
 * component at a time from root_fd with O_NOFOLLOW (directories with O_PATH |
 * O_DIRECTORY), which refuses the same links, since a loaded name has no ".." to climb
 * with. Each syscall adds to syscalls_total. Returns the descriptor, or -errno: ELOOP or
 * ENOTDIR (a link), ENOENT (gone), EACCES, EXDEV, EMFILE, ...; -EINVAL (closed) when
 * what opened is not a regular file. */
long disk_open(int root_fd, const struct cached_file *f, struct disk_stat *st,
	       uint8_t *no_openat2);

#endif /* APOLLOD_COMMON_DISK_OPEN_H */
