/* What the hot path assembly of every CPU (x86_64/, aarch64/) shares: symbol naming,
 * byte-string literals, the ASCII case bit, and every constant the assembly borrows from
 * the C headers. The C headers hold declarations the assembler cannot read, so the values
 * are repeated here under the same names with an ASM_ prefix; layout_check.c asserts each
 * one against its C original (offsetof for struct fields), so they cannot drift apart.
 * Each <cpu>/hotpath_asm.h includes this and adds its own function framing.
 *
 * Assembler-safe: only #define lines, no C declarations. */
#ifndef APOLLOD_VARIANTS_ASM_HOTPATH_HOTPATH_CONSTS_H
#define APOLLOD_VARIANTS_ASM_HOTPATH_HOTPATH_CONSTS_H

/* Symbol prefix. Empty for the daemon (the routines are parse_request_line, span_eq, ...);
 * the unit tests build with -DAPOLLOD_ASM_PREFIX=asm_ so asm_parse_request_line can be
 * linked next to the C reference parse_request_line in one test binary. */
#ifndef APOLLOD_ASM_PREFIX
#define APOLLOD_ASM_PREFIX
#endif
#define HOTPATH_PASTE(prefix, name) prefix##name
#define HOTPATH_PASTE_EXPANDED(prefix, name) HOTPATH_PASTE(prefix, name)
#define SYM(name) HOTPATH_PASTE_EXPANDED(APOLLOD_ASM_PREFIX, name)

/* Little-endian byte strings as immediates: BYTES4('G','E','T',' ') is what a 32-bit load
 * of "GET " yields. */
#define BYTES2(a, b) ((a) | (b) << 8)
#define BYTES4(a, b, c, d) (BYTES2(a, b) | BYTES2(c, d) << 16)
#define BYTES8(a, b, c, d, e, f, g, h) (BYTES4(a, b, c, d) | BYTES4(e, f, g, h) << 32)

/* ASCII case: OR-ing this bit maps A-Z to a-z. The parser compares header names and
 * Connection tokens against lowercase literals made of a-z and '-' only. Under "| 0x20"
 * a lowercase letter has exactly two preimages (itself and its capital) and '-' (0x2D)
 * has 0x2D and 0x0D; those bytes are tchar or token bytes, never CR, so
 * "(byte | 0x20) == literal byte" is exactly span_ieq's "equal ignoring ASCII case". */
#define ASCII_CASE_BIT 0x20
#define ASCII_CASE_BITS4 BYTES4(ASCII_CASE_BIT, ASCII_CASE_BIT, ASCII_CASE_BIT, ASCII_CASE_BIT)

/* enum parse_outcome (common/http/http_parse.h) */
#define ASM_PARSE_COMPLETE 0
#define ASM_PARSE_PARTIAL 1
#define ASM_PARSE_BAD 2
#define ASM_PARSE_TARGET_TOO_LONG 3

/* enum http_method */
#define ASM_HTTP_METHOD_GET 0
#define ASM_HTTP_METHOD_HEAD 1
#define ASM_HTTP_METHOD_OTHER 2

/* enum http_connection */
#define ASM_HTTP_CONNECTION_NONE 0
#define ASM_HTTP_CONNECTION_KEEP_ALIVE 1
#define ASM_HTTP_CONNECTION_CLOSE 2

/* Limits (BEHAVIOUR 6) */
#define ASM_HTTP_METHOD_MAX 16
#define ASM_HTTP_TARGET_MAX 8000
#define ASM_HTTP_HEADER_NAME_MAX 64
#define ASM_HTTP_CONTENT_LENGTH_MAX 19

/* struct request_line field offsets */
#define ASM_REQUEST_LINE_TARGET 0
#define ASM_REQUEST_LINE_TARGET_LEN 8
#define ASM_REQUEST_LINE_PATH_LEN 12
#define ASM_REQUEST_LINE_LINE_LEN 16
#define ASM_REQUEST_LINE_METHOD 20
#define ASM_REQUEST_LINE_VERSION_MINOR 21

/* struct header_block field offsets */
#define ASM_HEADER_BLOCK_CONTENT_LENGTH 0
#define ASM_HEADER_BLOCK_BLOCK_LEN 8
#define ASM_HEADER_BLOCK_CONNECTION 12
#define ASM_HEADER_BLOCK_HAS_CONTENT_LENGTH 13
#define ASM_HEADER_BLOCK_HOST_COUNT 14
#define ASM_HEADER_BLOCK_FIELDS_SEEN 15
#define ASM_HEADER_BLOCK_FIELD_COUNT 16
#define ASM_HEADER_BLOCK_FIELD 20
#define ASM_HEADER_BLOCK_HOST_AT 12308
#define ASM_HEADER_BLOCK_HOST_LEN 12310

/* struct field_line: its size and field offsets, and the table's bounds */
#define ASM_FIELD_LINE_SIZE 6
#define ASM_FIELD_LINE_AT 0
#define ASM_FIELD_LINE_LEN 2
#define ASM_FIELD_LINE_ID 4
#define ASM_HEADER_FIELD_LINES_MAX 2048
#define ASM_FIELD_LINE_END_MAX 0xFFFF

/* enum recorded_field */
#define ASM_FIELD_IF_NONE_MATCH 0
#define ASM_FIELD_IF_MODIFIED_SINCE 1
#define ASM_FIELD_IF_RANGE 2
#define ASM_FIELD_RANGE 3
#define ASM_FIELD_ACCEPT_ENCODING 4
#define ASM_FIELD_ACCEPT 5

/* http_char_class bits (common/base/char_class.h) */
#define ASM_CC_TCHAR 0x01
#define ASM_CC_TARGET 0x02
#define ASM_CC_VALUE 0x04
#define ASM_CC_UPPER 0x08
#define ASM_CC_DIGIT 0x10
#define ASM_CC_OWS 0x40

/* span.h */
#define ASM_U64_DEC_MAX 20

#endif /* APOLLOD_VARIANTS_ASM_HOTPATH_HOTPATH_CONSTS_H */
