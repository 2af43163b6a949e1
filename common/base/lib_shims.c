/* The file calls and errno that Debian's aarch64 libdeflate.a takes from libc, for its
 * CPU-feature probe (it reads /proc/self/auxv once, at the first compression): open,
 * read, close and __errno_location, renamed lib_* in third_party/libdeflate/BUILD. Over
 * the raw calls; the x86_64 archive names none of them (--gc-sections drops this there).
 * Load time only, before the sandbox. Daemon binaries only (//common/base:runtime). */
#include <linux/fcntl.h> /* AT_FDCWD */
#include <stddef.h>

#include "common/base/sys.h"

int lib_open(const char *path, int flags, ...);
long lib_read(int fd, void *buf, size_t n);
int lib_close(int fd);
int *lib_errno_location(void);

/* errno as the library reads it after a failed call (one process, one thread). */
static int lib_errno;

/* Returns r, or -1 with lib_errno set when r is a -errno. */
static long lib_result(long r)
{
	if (!sys_is_error(r))
		return r;
	lib_errno = (int)-r;
	return -1;
}

int lib_open(const char *path, int flags, ...)
{
	return (int)lib_result(sys_openat(AT_FDCWD, path, flags));
}

long lib_read(int fd, void *buf, size_t n)
{
	return lib_result(sys_read(fd, buf, n));
}

int lib_close(int fd)
{
	return (int)lib_result(sys_close(fd));
}

int *lib_errno_location(void)
{
	return &lib_errno;
}
