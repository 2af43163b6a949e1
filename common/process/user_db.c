/* /etc/passwd and /etc/group lookups for --user (see user_db.h). */
#include "common/process/user_db.h"

#include "common/base/span.h"

#define PASSWD_UID_FIELD 2
#define PASSWD_GID_FIELD 3
#define GROUP_GID_FIELD 2
#define DB_FIELDS_READ 4 /* name, password, then two ids at most */

int user_spec_split(const char *spec, char *user, char *group)
{
	size_t n = 0;
	while (spec[n] && spec[n] != ':')
		n++;
	if (n == 0 || n > USER_DB_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		user[i] = spec[i];
	user[n] = 0;
	group[0] = 0;
	if (!spec[n])
		return 1;
	const char *g = spec + n + 1;
	size_t m = cstr_len(g);
	if (m == 0 || m > USER_DB_NAME_MAX)
		return 0;
	for (size_t i = 0; i <= m; i++)
		group[i] = g[i];
	return 1;
}

/* Reads s[0..n) as a decimal id below 2^32. Returns 1 with *id, or 0. */
static int id_from(const char *s, size_t n, uint32_t *id)
{
	uint64_t v = 0;
	if (n == 0 || n > USER_ID_DIGITS_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > UINT32_MAX)
		return 0;
	*id = (uint32_t)v;
	return 1;
}

int user_id_number(const char *word, uint32_t *id)
{
	return id_from(word, cstr_len(word), id);
}

/* One line's first DB_FIELDS_READ ':'-separated fields: starts and lengths. */
struct db_line {
	const char *field[DB_FIELDS_READ];
	size_t len[DB_FIELDS_READ];
	uint32_t fields; /* how many were found (the line may have more) */
};

/* Splits text[at..len) up to its next '\n' into l. Returns the offset after the line. */
static size_t db_line_at(const char *text, size_t len, size_t at, struct db_line *l)
{
	l->fields = 0;
	size_t start = at;
	for (;; at++) {
		int end_of_line = at == len || text[at] == '\n';
		if (end_of_line || text[at] == ':') {
			if (l->fields < DB_FIELDS_READ) {
				l->field[l->fields] = text + start;
				l->len[l->fields] = at - start;
				l->fields++;
			}
			start = at + 1;
		}
		if (end_of_line)
			return at == len ? len : at + 1;
	}
}

/* Whether field i of l is the NUL-terminated name. */
static int field_is(const struct db_line *l, uint32_t i, const char *name)
{
	size_t n = cstr_len(name);
	return l->fields > i && l->len[i] == n && span_eq(l->field[i], name, n);
}

int passwd_find(const char *text, size_t len, const char *name, int by_uid, uint32_t *uid,
		uint32_t *gid)
{
	struct db_line l;
	for (size_t at = 0; at < len;) {
		at = db_line_at(text, len, at, &l);
		uint32_t u, g;
		if (l.fields <= PASSWD_GID_FIELD ||
		    !id_from(l.field[PASSWD_UID_FIELD], l.len[PASSWD_UID_FIELD], &u) ||
		    !id_from(l.field[PASSWD_GID_FIELD], l.len[PASSWD_GID_FIELD], &g))
			continue;
		if (by_uid ? u == *uid : field_is(&l, 0, name)) {
			*uid = u;
			*gid = g;
			return 1;
		}
	}
	return 0;
}

int group_find(const char *text, size_t len, const char *name, uint32_t *gid)
{
	struct db_line l;
	for (size_t at = 0; at < len;) {
		at = db_line_at(text, len, at, &l);
		uint32_t g;
		if (l.fields > GROUP_GID_FIELD && field_is(&l, 0, name) &&
		    id_from(l.field[GROUP_GID_FIELD], l.len[GROUP_GID_FIELD], &g)) {
			*gid = g;
			return 1;
		}
	}
	return 0;
}
