/* Virtual hosts (--site HOST=DIR, BEHAVIOUR 10.21): which site a request's authority
 * names, by two hash tables built at start-up (exact names, and the suffixes of
 * "*.suffix" names), so a request costs one pass over its host, never a scan of the
 * sites. Each site's state (file table and arenas, --redirects rules, --header-for
 * fields) lives in its module's array, indexed by the site number this returns; the
 * request's site is made current in each of them (sites_enter) before it is answered. */
#ifndef APOLLOD_COMMON_ANSWER_SITES_H
#define APOLLOD_COMMON_ANSWER_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/limits.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define SITE_DEFAULT 0u   /* --root's site, for any host no --site names */
#define SITE_NONE 0xffu   /* no site: no --site names the host and there is no --root */
#define SITE_SLOTS 64u    /* each table's slots: at most half full */
STATIC_ASSERT(SITES_MAX < SITE_NONE && 2 * SITES_NAMED_MAX <= SITE_SLOTS &&
		      (SITE_SLOTS & (SITE_SLOTS - 1)) == 0,
	      "site numbers fit a byte; each table is a power of two, half full at most");

/* Why sites_setup refused a name. */
enum sites_problem {
	SITES_OK = 0,
	SITES_TWICE = 1, /* the same name (ignoring case) given twice */
};

/* Builds the tables from the n (<= SITES_NAMED_MAX) names host[i] (host_len[i] bytes,
 * checked by cli_site_host_valid: at most 253), site i + 1 each, kept in lower case (the
 * names need not outlive it); has_default: --root was given.
 * Returns SITES_OK, or the problem with *bad the refused name's index. */
enum sites_problem sites_setup(const char *const *host, const uint32_t *host_len, uint32_t n,
			       int has_default, uint32_t *bad);

/* The number of named sites set up (0: no --site; then every request is the default's). */
uint32_t sites_named(void);

/* The site authority[0..len) (a Host value or an absolute-form target's authority,
 * valid host[:port]) names: an exact name first (ASCII case ignored, the port and one
 * trailing dot dropped), then the longest "*.suffix" the host ends in with at least one
 * byte before the dot, else SITE_DEFAULT, or SITE_NONE when there is no --root. One pass
 * over the host, from its end. Pure. */
uint32_t sites_match(const char *authority, size_t len);

/* Makes site s current in every module that keeps per-site state (the file cache,
 * --redirects, --header-for): what the next lookups and renders read. */
void sites_enter(uint32_t s);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_ANSWER_SITES_H */
