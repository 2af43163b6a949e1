/* --header 'Name: value' (BEHAVIOUR 16): fields the operator adds to every response of a
 * routed tier. Checked and rendered once at start-up into one block that the connection
 * queues as one more iovec after the Date line (date_field.h): no per-request work but
 * that entry. Pure: the caller (daemon_main) reports a refusal. */
#ifndef APOLLOD_COMMON_EXTRA_FIELDS_H
#define APOLLOD_COMMON_EXTRA_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "common/base/limits.h"
#include "common/base/static_assert.h"

APOLLOD_EXTERN_C_BEGIN

#define EXTRA_FIELDS_BLOCK_MAX 4096   /* every rendered line plus the closing CRLF */
#define EXTRA_FIELDS_END "\r\n"       /* the head's empty line ends the block */

/* Why one --header argument was refused (EXTRA_OK: it was not). */
enum extra_field_problem {
	EXTRA_OK = 0,
	EXTRA_NO_COLON,   /* no ':' after the name */
	EXTRA_BAD_NAME,   /* empty, or a byte that is not an RFC 9110 tchar */
	EXTRA_BAD_VALUE,  /* a byte outside SP, HTAB and 0x21-0x7e (CR, LF, NUL, obs-text) */
	EXTRA_RESERVED,   /* a field the daemon writes itself: framing, type, Date, ... */
	EXTRA_TOO_LONG,   /* the lines together pass EXTRA_FIELDS_BLOCK_MAX */
	EXTRA_PROBLEM_COUNT
};

/* One line of text per problem, for "apollod: --header '...': <reason>". */
extern const char *const extra_field_reasons[EXTRA_PROBLEM_COUNT];

/* Checks arg ("Name: value", len bytes) and renders it as "Name: value\r\n" at out, which
 * has room for `room` bytes: the value without the whitespace around it. Returns EXTRA_OK
 * and sets *written, or the problem (nothing useful written). */
enum extra_field_problem extra_field_render(const char *arg, size_t len, char *out,
					    size_t room, size_t *written);

/* The block for conn.c, written once at start-up (extra_fields_setup). */
struct extra_fields {
	uint32_t len; /* bytes of block; 0 when no --header was given */
	char block[EXTRA_FIELDS_BLOCK_MAX]; /* the rendered lines, then EXTRA_FIELDS_END */
};
extern struct extra_fields extra_fields;

/* Renders args[0..n) into extra_fields.block (n <= EXTRA_FIELDS_MAX). Returns EXTRA_OK,
 * or the first problem with *bad set to its index (the block is then left empty). */
enum extra_field_problem extra_fields_setup(const char *const *args, uint32_t n, uint32_t *bad);

APOLLOD_EXTERN_C_END

#endif /* APOLLOD_COMMON_EXTRA_FIELDS_H */
