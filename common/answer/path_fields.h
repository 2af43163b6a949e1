/* --header-for PATTERN 'Name: value' (BEHAVIOUR 10.13): fields the operator adds to the
 * responses of the files whose path matches PATTERN, a prefix ending in '/' ("/assets/")
 * or an extension ("*.zip"). Checked once at start-up (the field by extra_fields.h's
 * checker, so the same fields are refused as --header refuses), then rendered by the
 * file cache into each matching file's stored heads at load: a request pays nothing. */
#ifndef APOLLOD_COMMON_PATH_FIELDS_H
#define APOLLOD_COMMON_PATH_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "common/answer/extra_fields.h"
#include "common/base/limits.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

/* All --header-for fields together: what one file's heads can gain at most. */
#define PATH_FIELDS_BLOCK_MAX 2048
#define PATH_PATTERN_MAX 255 /* a pattern's bytes: a prefix is at most a loaded path */

/* Returns 1 when pattern (len bytes) is a prefix that starts and ends with '/' ("/",
 * "/assets/") or "*." then an extension of one or more bytes holding no '.', '/' or '*'
 * ("*.zip"), at most PATH_PATTERN_MAX bytes; else 0. Pure. */
int path_pattern_check(const char *pattern, size_t len);

/* Returns 1 when the loaded name (path relative to DIR, no leading '/', len bytes)
 * matches pattern: a prefix is compared byte for byte with "/" + name; an extension
 * with the text after the last '.' of name's last component (as BEHAVIOUR 10.5 takes
 * the type's), ignoring ASCII case. pattern must have passed path_pattern_check. Pure. */
int path_pattern_matches(const char *pattern, size_t pattern_len, const char *name,
			 size_t len);

/* Checks and renders the --header-for patterns[i] with fields[i] ("Name: value"), i in
 * [0, n), n <= PATH_FIELDS_MAX; the words must outlive the daemon (argv). Returns NULL,
 * or the reason the first refused one was refused, with *bad set to its index: a bad
 * pattern, a field extra_field_render refuses (its extra_field_reasons text, so the
 * same fields are refused as --header refuses them), or fields that together pass
 * PATH_FIELDS_BLOCK_MAX. Nothing is kept after a refusal. */
const char *path_fields_setup(const char *const *patterns, const char *const *fields, uint32_t n,
			      uint32_t *bad);

/* The bytes path_fields_render writes at most for any name: 0 without --header-for. */
uint32_t path_fields_max(void);

/* Writes at out, in command-line order, "\r\nName: value" for each --header-for whose
 * pattern matches name (len bytes, as path_pattern_matches takes it): the form of the
 * fields inside a stored head (responses.h). out has room for path_fields_max() bytes.
 * Returns the bytes written. Start-up only. */
size_t path_fields_render(const char *name, size_t len, char *out);

/* Makes site (< SITES_MAX) current: path_fields_setup, _max and _render read and write
 * its patterns and fields from now on (sites.h). Site 0, the default, is current at
 * first. */
void path_fields_enter(uint32_t site);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_PATH_FIELDS_H */
