/* Virtual hosts: the two tables and the match (see sites.h). */
#include "common/answer/sites.h"

#include "common/answer/site_files.h"
#include "common/base/span.h"

#define SITE_WILD_PREFIX 1u /* "*" before a wildcard's key, ".suffix" */
#define CASE_BIT 0x20u      /* 'A' | CASE_BIT is 'a' */

/* The tables are site_files.sites (site_files.h): one object for the site's settings. */
#define sites site_files.sites

/* Folds an ASCII letter to lower case (other bytes of a valid host are unchanged by it
 * but for '@' and the like, which a valid host has not). */
static inline uint32_t fold(char c)
{
	uint32_t b = (unsigned char)c;
	return b >= 'A' && b <= 'Z' ? b | CASE_BIT : b;
}

/* One step of the hash, taking bytes from the key's end to its start (so every suffix's
 * hash comes on the way: sites_match). */
static inline uint32_t hash_step(uint32_t h, char c)
{
	return (h ^ fold(c)) * 16777619u;
}
#define HASH_SEED 2166136261u

static uint32_t key_hash(const char *s, size_t n)
{
	uint32_t h = HASH_SEED;
	while (n)
		h = hash_step(h, s[--n]);
	return h;
}

/* Whether s[0..n) folded to lower case is key[0..n) (lower case already). */
static inline int key_is(const char *key, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fold(s[i]) != (unsigned char)key[i])
			return 0;
	return 1;
}

/* The site whose key in table t is s[0..n) with hash h, or 0. */
static uint32_t table_find(const struct site_table *t, uint32_t h, const char *s, size_t n)
{
	for (uint32_t i = h & (SITE_SLOTS - 1);; i = (i + 1) & (SITE_SLOTS - 1)) {
		uint32_t site = t->site[i];
		if (!site)
			return 0;
		if (t->hash[i] == h && sites.key_len[site] == n && key_is(sites.key[site], s, n))
			return site;
	}
}

/* Puts site with key s[0..n) in table t. Returns 0, or 1 when the key is there already. */
static int table_add(struct site_table *t, uint32_t site, const char *s, size_t n)
{
	uint32_t h = key_hash(s, n);
	if (table_find(t, h, s, n))
		return 1;
	uint32_t i = h & (SITE_SLOTS - 1);
	while (t->site[i])
		i = (i + 1) & (SITE_SLOTS - 1);
	t->site[i] = (uint8_t)site;
	t->hash[i] = h;
	return 0;
}

enum sites_problem sites_setup(const char *const *host, const uint32_t *host_len, uint32_t n,
			       int has_default, uint32_t *bad)
{
	__builtin_memset(&sites, 0, sizeof(sites));
	sites.unnamed = has_default ? SITE_DEFAULT : SITE_NONE;
	for (uint32_t i = 0; i < n; i++) {
		int wild = host[i][0] == '*';
		uint32_t s = i + 1;
		const char *key = host[i] + (wild ? SITE_WILD_PREFIX : 0);
		sites.key_len[s] = host_len[i] - (wild ? SITE_WILD_PREFIX : 0);
		for (uint32_t k = 0; k < sites.key_len[s]; k++)
			sites.key[s][k] = (char)fold(key[k]);
		if (table_add(wild ? &sites.wild : &sites.exact, s, sites.key[s], sites.key_len[s])) {
			*bad = i;
			return SITES_TWICE;
		}
	}
	sites.named = n;
	return SITES_OK;
}

uint32_t sites_named(void)
{
	return sites.named;
}

/* The host of authority[0..len): without a ":port" (digits after the last ':') and one
 * trailing dot. Returns its length. */
static size_t host_part(const char *authority, size_t len)
{
	size_t n = len;
	while (n && authority[n - 1] >= '0' && authority[n - 1] <= '9')
		n--;
	if (n && authority[n - 1] == ':')
		len = n - 1;
	if (len && authority[len - 1] == '.')
		len--;
	return len;
}

uint32_t sites_match(const char *authority, size_t len)
{
	size_t n = host_part(authority, len);
	uint32_t h = HASH_SEED, wild = 0;
	for (size_t i = n; i > 0; i--) {
		h = hash_step(h, authority[i - 1]);
		if (authority[i - 1] == '.' && i > 1) { /* a suffix with a byte before it */
			uint32_t s = table_find(&sites.wild, h, authority + i - 1, n - i + 1);
			wild = s ? s : wild; /* the leftmost dot's is the longest */
		}
	}
	uint32_t exact = n ? table_find(&sites.exact, h, authority, n) : 0;
	if (exact)
		return exact;
	return wild ? wild : sites.unnamed;
}
