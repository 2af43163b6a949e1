/* --user USER[:GROUP]: the names in /etc/passwd and /etc/group, read without libc. Pure:
 * the caller reads the files (sandbox.c). */
#ifndef APOLLOD_COMMON_PROCESS_USER_DB_H
#define APOLLOD_COMMON_PROCESS_USER_DB_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define USER_DB_NAME_MAX 64 /* a user or group name's bytes: longer is refused */
#define USER_ID_DIGITS_MAX 10 /* a uid or gid below 2^32 */

/* --user's word split at its first ':' into user and group (group empty when there is no
 * ':'), each copied NUL-terminated into USER_DB_NAME_MAX + 1 bytes. Returns 1, or 0 when
 * the user part is empty, either part is longer than USER_DB_NAME_MAX, or ':' ends the
 * word. */
int user_spec_split(const char *spec, char *user, char *group);

/* word as a decimal id (1..USER_ID_DIGITS_MAX digits, below 2^32, nothing else): 1 and
 * *id set, or 0. */
int user_id_number(const char *word, uint32_t *id);

/* In an /etc/passwd text (len bytes; lines "name:password:uid:gid:..."), the first line
 * whose name is `name` or, when by_uid is set, whose uid is *uid. Returns 1 with *uid and
 * *gid set from it, or 0 when no well-formed line matches. */
int passwd_find(const char *text, size_t len, const char *name, int by_uid, uint32_t *uid,
		uint32_t *gid);

/* In an /etc/group text (lines "name:password:gid:members"), the first line named name.
 * Returns 1 with *gid set, or 0. */
int group_find(const char *text, size_t len, const char *name, uint32_t *gid);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_PROCESS_USER_DB_H */
