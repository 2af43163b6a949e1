/* errno numbers to words (see errno_text.h). */
#include "common/base/errno_text.h"

#include <linux/errno.h>

#include "common/base/span.h"

/* One list: the errnos socket, setsockopt, bind, listen, getsockname, openat, statx,
 * getdents64, mmap, epoll_create1, signalfd, io_uring_setup and fork document, plus the
 * ones every call can return. The unit test compares each text with the host's strerror. */
#define FOR_EACH_ERRNO_TEXT(X)                                   \
	X(EPERM, "operation not permitted")                      \
	X(ENOENT, "no such file or directory")                   \
	X(EINTR, "interrupted system call")                      \
	X(EIO, "input/output error")                             \
	X(ENXIO, "no such device or address")                    \
	X(EBADF, "bad file descriptor")                          \
	X(EAGAIN, "resource temporarily unavailable")            \
	X(ENOMEM, "cannot allocate memory")                      \
	X(EACCES, "permission denied")                           \
	X(EFAULT, "bad address")                                 \
	X(EBUSY, "device or resource busy")                      \
	X(EEXIST, "file exists")                                 \
	X(ENODEV, "no such device")                              \
	X(ENOTDIR, "not a directory")                            \
	X(EISDIR, "is a directory")                              \
	X(EINVAL, "invalid argument")                            \
	X(ENFILE, "too many open files in system")               \
	X(EMFILE, "too many open files")                         \
	X(EFBIG, "file too large")                               \
	X(ENOSPC, "no space left on device")                     \
	X(ENAMETOOLONG, "file name too long")                    \
	X(ENOSYS, "function not implemented")                    \
	X(ELOOP, "too many levels of symbolic links")            \
	X(EOVERFLOW, "value too large for defined data type")    \
	X(ENOTSOCK, "socket operation on non-socket")            \
	X(ENOPROTOOPT, "protocol not available")                 \
	X(EPROTONOSUPPORT, "protocol not supported")             \
	X(EOPNOTSUPP, "operation not supported")                 \
	X(EAFNOSUPPORT, "address family not supported by protocol") \
	X(EADDRINUSE, "address already in use")                  \
	X(EADDRNOTAVAIL, "cannot assign requested address")      \
	X(ENETDOWN, "network is down")                           \
	X(ENETUNREACH, "network is unreachable")                 \
	X(ENOBUFS, "no buffer space available")                  \
	X(EROFS, "read-only file system")

#define ERRNO_ROW(num, text) {num, sizeof(text) - 1, text},
#define ERRNO_FITS(num, text) \
	STATIC_ASSERT(sizeof(text) - 1 <= ERRNO_TEXT_MAX, #num " fits ERRNO_TEXT_MAX");
FOR_EACH_ERRNO_TEXT(ERRNO_FITS)

static const struct {
	long num;
	size_t len;
	const char *text;
} errno_texts[] = {FOR_EACH_ERRNO_TEXT(ERRNO_ROW)};

#define ERRNO_COUNT (sizeof(errno_texts) / sizeof(errno_texts[0]))
#define ERRNO_WORD "error "
STATIC_ASSERT(sizeof(ERRNO_WORD) - 1 + U64_DEC_MAX <= ERRNO_TEXT_MAX,
	      "\"error N\" fits ERRNO_TEXT_MAX");

size_t errno_text(long err, char *out)
{
	long num = err < 0 ? -err : err;
	for (size_t i = 0; i < ERRNO_COUNT; i++)
		if (errno_texts[i].num == num)
			return (size_t)(copy_span(out, errno_texts[i].text, errno_texts[i].len) - out);
	char *p = copy_span(out, LITERAL(ERRNO_WORD));
	p += u64_to_dec((uint64_t)num, p);
	return (size_t)(p - out);
}
