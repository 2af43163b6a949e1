/* What every fuzz target shares: a copy of the input that ends against a PROT_NONE page,
 * so an over-read by code that AddressSanitizer does not instrument (the assembly) faults
 * too, and a check that aborts with a message (libFuzzer saves the input that did it). */
#ifndef APOLLOD_TEST_FUZZ_FUZZ_COMMON_H
#define APOLLOD_TEST_FUZZ_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/http/http_parse.h"

#define FUZZ_PAGE 4096
/* The daemon never parses more than its 16 KiB buffer (CONN_BUFFER_SIZE == HTTP_HEAD_MAX):
 * the parsers do not bound a head themselves, the buffer does (BEHAVIOUR 6.8). */
#define FUZZ_INPUT_MAX HTTP_HEAD_MAX

/* Copies data (size bytes; larger inputs are cut to FUZZ_INPUT_MAX) so that its last
 * byte is the last before a PROT_NONE page. Returns the copy; *len is its length. */
static inline const char *fuzz_guarded_copy(const uint8_t *data, size_t size, size_t *len)
{
	static char *region; /* FUZZ_INPUT_MAX readable bytes, then the guard page */
	if (!region) {
		region = mmap(0, FUZZ_INPUT_MAX + FUZZ_PAGE, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (region == MAP_FAILED || mprotect(region + FUZZ_INPUT_MAX, FUZZ_PAGE, PROT_NONE))
			abort();
	}
	*len = size < FUZZ_INPUT_MAX ? size : FUZZ_INPUT_MAX;
	char *at = region + FUZZ_INPUT_MAX - *len;
	if (*len)
		memcpy(at, data, *len);
	return at;
}

/* Aborts with what failed when cond is false. */
#define FUZZ_CHECK(cond)                                                               \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
				#cond);                                                \
			abort();                                                       \
		}                                                                      \
	} while (0)

#endif /* APOLLOD_TEST_FUZZ_FUZZ_COMMON_H */
