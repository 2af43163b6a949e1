/* Calendar fields of a Unix time, in UTC, for the dates the daemon writes (the Date and
 * Last-Modified fields, the access log) and reads (If-Modified-Since). Pure, inline, no
 * tables but the names: days_to_civil is the proleptic-Gregorian conversion of Howard
 * Hinnant's "chrono-Compatible Low-Level Date Algorithms" (public domain), exact for any
 * date from 1970 to well past 9999. */
#ifndef APOLLOD_COMMON_CIVIL_TIME_H
#define APOLLOD_COMMON_CIVIL_TIME_H

#include <stdint.h>

#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define SECONDS_PER_DAY 86400u
#define DAYS_PER_ERA 146097u   /* 400 Gregorian years */
#define DAYS_1970_FROM_0000_03_01 719468u

struct civil_time {
	uint32_t year;
	uint8_t month;   /* 1..12 */
	uint8_t day;     /* 1..31 */
	uint8_t hour;    /* 0..23 */
	uint8_t minute;  /* 0..59 */
	uint8_t second;  /* 0..59 */
	uint8_t weekday; /* 0 = Sunday .. 6 = Saturday */
};

/* Expects unix_seconds >= 0 (dates before 1970 are not written by the daemon).
 * Returns the UTC calendar fields. */
static inline struct civil_time civil_from_unix(uint64_t unix_seconds)
{
	struct civil_time t;
	uint64_t days = unix_seconds / SECONDS_PER_DAY;
	uint32_t rest = (uint32_t)(unix_seconds % SECONDS_PER_DAY);
	t.hour = (uint8_t)(rest / 3600u);
	t.minute = (uint8_t)(rest / 60u % 60u);
	t.second = (uint8_t)(rest % 60u);
	t.weekday = (uint8_t)((days + 4u) % 7u); /* 1970-01-01 was a Thursday */
	/* Count from 0000-03-01 so that the leap day ends each 400-year era. */
	uint64_t z = days + DAYS_1970_FROM_0000_03_01;
	uint64_t era = z / DAYS_PER_ERA;
	uint32_t doe = (uint32_t)(z - era * DAYS_PER_ERA);                    /* 0..146096 */
	uint32_t yoe = (doe - doe / 1460u + doe / 36524u - doe / 146096u) / 365u; /* 0..399 */
	uint32_t doy = doe - (365u * yoe + yoe / 4u - yoe / 100u);          /* 0..365 */
	uint32_t mp = (5u * doy + 2u) / 153u;                               /* 0..11, March = 0 */
	t.day = (uint8_t)(doy - (153u * mp + 2u) / 5u + 1u);
	t.month = (uint8_t)(mp < 10u ? mp + 3u : mp - 9u);
	t.year = (uint32_t)(era * 400u + yoe + (t.month <= 2u ? 1u : 0u));
	return t;
}

/* Expects a valid date (month 1..12, day within it, year >= 1970, fields in range).
 * Returns its Unix time: the inverse of civil_from_unix. */
static inline uint64_t unix_from_civil(const struct civil_time *t)
{
	uint32_t y = t->year - (t->month <= 2u ? 1u : 0u);
	uint32_t era = y / 400u;
	uint32_t yoe = y - era * 400u;
	uint32_t mp = t->month > 2u ? t->month - 3u : t->month + 9u;
	uint32_t doy = (153u * mp + 2u) / 5u + t->day - 1u;
	uint32_t doe = yoe * 365u + yoe / 4u - yoe / 100u + doy;
	uint64_t days = (uint64_t)era * DAYS_PER_ERA + doe - DAYS_1970_FROM_0000_03_01;
	return days * SECONDS_PER_DAY + t->hour * 3600u + t->minute * 60u + t->second;
}

/* Writes n's last `width` decimal digits at out, zero-padded (the dates' fixed-width
 * fields). Returns out + width. */
static inline char *put_zero_padded(char *out, uint32_t n, int width)
{
	for (int i = width - 1; i >= 0; i--, n /= 10u)
		out[i] = (char)('0' + n % 10u);
	return out + width;
}

/* English three-letter names, as IMF-fixdate and the Common Log Format both use them. */
static const char civil_weekday_names[7][4] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
static const char civil_month_names[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_CIVIL_TIME_H */
