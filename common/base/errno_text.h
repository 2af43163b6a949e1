/* The reason half of a fatal start-up line ("apollod: bind 127.0.0.1:80: permission
 * denied"): a libc-free strerror for the errnos the start-up steps can return. Pure. */
#ifndef APOLLOD_COMMON_ERRNO_TEXT_H
#define APOLLOD_COMMON_ERRNO_TEXT_H

#include <stddef.h>

#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* Longest text errno_text can return: the longest table entry, or "error 4095". */
#define ERRNO_TEXT_MAX 40

/* The text for err, which is a syscall result in [-4095, -1] or a positive errno: glibc's
 * strerror wording with a lower-case first letter ("address already in use"), for the
 * errnos of the table in errno_text.c; "error N" for any other. Writes at most
 * ERRNO_TEXT_MAX bytes (no terminator) at out and returns their count. */
size_t errno_text(long err, char *out);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_ERRNO_TEXT_H */
