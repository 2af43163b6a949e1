/* The state of the site's configuration read at load, --mime-types (mime_types.c),
 * --redirects (redirects.c, each site's) and --site's tables (sites.c): one object,
 * site_files, defined in redirects.c, so that the daemon keeps its few module state
 * objects (test/state_allowlist.txt). Nothing but those three files includes it. */
#ifndef APOLLOD_COMMON_ANSWER_SITE_FILES_H
#define APOLLOD_COMMON_ANSWER_SITE_FILES_H

#include <stdint.h>

#include "common/answer/mime_types.h"
#include "common/answer/redirects.h"
#include "common/answer/sites.h"
#include "common/base/limits.h"

APOLLOD_EXTERN_C_BEGIN

/* --mime-types: the file's text and what it says (empty without). */
struct mime_types_state {
	struct mime_table table; /* entries point into file[] and table.text_types */
	char file[MIME_FILE_MAX + 1]; /* the file's bytes, read once at start-up; one byte
				       * more tells a file that is too big */
};

#define REDIRECT_SLOTS (2u * REDIRECTS_MAX) /* each hash table at most half full */

/* --redirects: the rules and their tables, filled at load, read per request. */
struct redirects_state {
	uint32_t count;                     /* rules */
	uint32_t wild_first;                /* patterns whose first segment is no literal: first + 1 */
	uint32_t wild_last;                 /* and the last + 1, while building */
	struct redirect_rule rule[REDIRECTS_MAX];
	uint32_t exact_slot[REDIRECT_SLOTS]; /* exact FROMs: the first such rule + 1; 0 empty */
	uint32_t chain_slot[REDIRECT_SLOTS]; /* patterns by literal first segment: first + 1 */
	uint32_t chain_last[REDIRECT_SLOTS]; /* and the last + 1, while building */
	char file[REDIRECTS_FILE_MAX + 1];   /* the file's text: the rules point into it */
};

#define SITE_KEY_MAX 256 /* a key's bytes: a --site name's most, rounded up */
STATIC_ASSERT(SITES_HOST_MAX <= SITE_KEY_MAX, "every name fits its key");

/* One table: a slot holds a site number (0: empty) and the hash of its key. */
struct site_table {
	uint32_t hash[SITE_SLOTS];
	uint8_t site[SITE_SLOTS];
};

/* The sites set up at start-up, read per request. */
struct site_state {
	struct site_table exact; /* full names */
	struct site_table wild;  /* "*.suffix" by ".suffix" */
	char key[SITES_MAX][SITE_KEY_MAX]; /* site s's key: its name, or ".suffix", in
					    * lower case (the match folds only the host) */
	uint32_t key_len[SITES_MAX];
	uint32_t named;          /* named sites: 1..named */
	uint32_t unnamed;        /* SITE_DEFAULT, or SITE_NONE without --root */
};

struct site_files_state {
	struct mime_types_state mime;     /* mime_types.c's */
	uint32_t current;                 /* the current site's rules: redirects_enter */
	struct redirects_state redirects[SITES_MAX]; /* redirects.c's, each site's (sites.h) */
	struct site_state sites;          /* sites.c's: which host is which site */
};
extern struct site_files_state site_files;

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_ANSWER_SITE_FILES_H */
