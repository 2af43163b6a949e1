/* IMF-fixdate rendering (see http_date.h). */
#include "common/http/http_date.h"

#include "common/base/civil_time.h"
#include "common/base/span.h"

/* Offsets of the fields in "Sun, 06 Nov 1994 08:49:37 GMT". */
#define DATE_AT_DAY 5
#define DATE_AT_MONTH 8
#define DATE_AT_YEAR 12
#define DATE_AT_HOUR 17
#define DATE_AT_MINUTE 20
#define DATE_AT_SECOND 23
#define DATE_NAME_LEN 3
STATIC_ASSERT(DATE_AT_SECOND + 2 + sizeof(" GMT") - 1 == HTTP_DATE_LEN, "field offsets");

void http_date_render(char *out, uint64_t unix_seconds)
{
	struct civil_time t = civil_from_unix(unix_seconds);
	copy_span(out, LITERAL(HTTP_DATE_EXAMPLE)); /* the punctuation and " GMT" */
	copy_span(out, civil_weekday_names[t.weekday], DATE_NAME_LEN);
	put_zero_padded(out + DATE_AT_DAY, t.day, 2);
	copy_span(out + DATE_AT_MONTH, civil_month_names[t.month - 1], DATE_NAME_LEN);
	put_zero_padded(out + DATE_AT_YEAR, t.year, 4);
	put_zero_padded(out + DATE_AT_HOUR, t.hour, 2);
	put_zero_padded(out + DATE_AT_MINUTE, t.minute, 2);
	put_zero_padded(out + DATE_AT_SECOND, t.second, 2);
}

/* The shapes of the three forms: '_' stands for a byte read as a field, every other byte
 * must match. The rfc850 shape is what follows its weekday name. */
#define IMF_SHAPE "___, __ ___ ____ __:__:__ GMT"
#define RFC850_SHAPE ", __-___-__ __:__:__ GMT"
#define ASCTIME_SHAPE "___ ___ __ __:__:__ ____"
STATIC_ASSERT(sizeof(IMF_SHAPE) - 1 == HTTP_DATE_LEN, "IMF-fixdate shape");
#define ASCTIME_LEN (sizeof(ASCTIME_SHAPE) - 1)
#define RFC850_TAIL_LEN (sizeof(RFC850_SHAPE) - 1)
/* Where the fields start in the asctime shape and in the rfc850 shape. */
#define ASCTIME_AT_MONTH 4
#define ASCTIME_AT_DAY 8
#define ASCTIME_AT_TIME 11
#define ASCTIME_AT_YEAR 20
#define RFC850_AT_DAY 2
#define RFC850_AT_MONTH 5
#define RFC850_AT_YEAR 9
#define RFC850_AT_TIME 12
STATIC_ASSERT(ASCTIME_AT_YEAR + 4 == ASCTIME_LEN, "asctime offsets");
STATIC_ASSERT(RFC850_AT_TIME + 8 + sizeof(" GMT") - 1 == RFC850_TAIL_LEN, "rfc850 offsets");
#define RFC850_CENTURY_WINDOW 50 /* RFC 9110 5.6.7: not more than 50 years ahead */
#define WEEKDAYS (int)(sizeof(civil_weekday_names) / sizeof(civil_weekday_names[0]))
#define MONTHS (int)(sizeof(civil_month_names) / sizeof(civil_month_names[0]))
#define YEAR_FIRST 1970u
#define YEAR_LAST 9999u

static const char weekday_long_names[WEEKDAYS][10] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
					       "Thursday", "Friday", "Saturday"};

/* Returns 1 when the n bytes at s fit shape (see IMF_SHAPE). */
static int fits_shape(const char *s, const char *shape, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (shape[i] != '_' && shape[i] != s[i])
			return 0;
	return 1;
}

/* The value of the n decimal digits at s, or -1 when one of them is not a digit. */
static int read_digits(const char *s, int n)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* The index of the three-letter name at s in names[0..count), or -1. */
static int name_index(const char *s, const char (*names)[4], int count)
{
	for (int i = 0; i < count; i++)
		if (span_eq(s, names[i], DATE_NAME_LEN))
			return i;
	return -1;
}

static int days_in_month(int year, int month)
{
	static const uint8_t days[MONTHS] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
	return days[month - 1] + (month == 2 && leap);
}

/* Checks the fields read from a date (month_at: its three-letter month; time_at:
 * "HH:MM:SS") and converts them. Returns 1 and sets *out, or 0 when one is out of range. */
static int finish_date(int year, const char *month_at, int day, const char *time_at,
		       uint64_t *out)
{
	int month = name_index(month_at, civil_month_names, MONTHS) + 1;
	int hour = read_digits(time_at, 2), minute = read_digits(time_at + 3, 2);
	int second = read_digits(time_at + 6, 2); /* 60: a leap second (RFC 5322) */
	if (month == 0 || year < (int)YEAR_FIRST || year > (int)YEAR_LAST || day < 1 ||
	    day > days_in_month(year, month) || hour < 0 || hour > 23 || minute < 0 ||
	    minute > 59 || second < 0 || second > 60)
		return 0;
	struct civil_time t = {(uint32_t)year, (uint8_t)month, (uint8_t)day, (uint8_t)hour,
			       (uint8_t)minute, (uint8_t)second, 0};
	*out = unix_from_civil(&t);
	return 1;
}

/* "Sunday, 06-Nov-94 08:49:37 GMT": the weekday's full name, then RFC850_SHAPE. */
static int parse_rfc850(const char *s, size_t len, uint64_t now_s, uint64_t *out)
{
	for (int i = 0; i < WEEKDAYS; i++) {
		size_t name_len = cstr_len(weekday_long_names[i]);
		if (len != name_len + RFC850_TAIL_LEN || !span_eq(s, weekday_long_names[i], name_len))
			continue;
		const char *t = s + name_len;
		int yy = read_digits(t + RFC850_AT_YEAR, 2);
		if (!fits_shape(t, RFC850_SHAPE, RFC850_TAIL_LEN) || yy < 0)
			return 0;
		int now_year = (int)civil_from_unix(now_s).year;
		int year = now_year - now_year % 100 + yy;
		if (year > now_year + RFC850_CENTURY_WINDOW)
			year -= 100;
		return finish_date(year, t + RFC850_AT_MONTH, read_digits(t + RFC850_AT_DAY, 2),
				   t + RFC850_AT_TIME, out);
	}
	return 0;
}

int http_date_parse(const char *s, size_t len, uint64_t now_s, uint64_t *unix_seconds)
{
	if (len == HTTP_DATE_LEN && fits_shape(s, IMF_SHAPE, len)) {
		if (name_index(s, civil_weekday_names, WEEKDAYS) < 0)
			return 0;
		return finish_date(read_digits(s + DATE_AT_YEAR, 4), s + DATE_AT_MONTH,
				   read_digits(s + DATE_AT_DAY, 2), s + DATE_AT_HOUR, unix_seconds);
	}
	if (len == ASCTIME_LEN && fits_shape(s, ASCTIME_SHAPE, len)) {
		/* the day is two digits or a space and one digit */
		const char *d = s + ASCTIME_AT_DAY;
		int day = d[0] == ' ' ? read_digits(d + 1, 1) : read_digits(d, 2);
		if (name_index(s, civil_weekday_names, WEEKDAYS) < 0)
			return 0;
		return finish_date(read_digits(s + ASCTIME_AT_YEAR, 4), s + ASCTIME_AT_MONTH, day,
				   s + ASCTIME_AT_TIME, unix_seconds);
	}
	return parse_rfc850(s, len, now_s, unix_seconds);
}
