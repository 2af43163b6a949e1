/* Compile-time proof that the constants the hot path assembly uses (hotpath_consts.h,
 * <cpu>/hotpath_asm.h) equal their C originals: struct offsets against offsetof, enums,
 * limits and character classes against the headers that define them. Emits no code; a
 * mismatch fails the build of every target that links the assembly. One file checks
 * every CPU's header: the tables are the same, the compiler's target picks the header. */
#include <stddef.h>

#include "common/base/char_class.h"
#include "common/http/http_parse.h"
#include "common/base/span.h"
#include "common/base/static_assert.h"
#if defined(__x86_64__)
#include "variants/asm-hotpath/x86_64/hotpath_asm.h"
#elif defined(__aarch64__)
#include "variants/asm-hotpath/aarch64/hotpath_asm.h"
#else
#error "no hot path assembly for this architecture"
#endif

#define SAME(asm_name, c_value) STATIC_ASSERT((asm_name) == (c_value), #asm_name)

SAME(ASM_PARSE_COMPLETE, PARSE_COMPLETE);
SAME(ASM_PARSE_PARTIAL, PARSE_PARTIAL);
SAME(ASM_PARSE_BAD, PARSE_BAD);
SAME(ASM_PARSE_TARGET_TOO_LONG, PARSE_TARGET_TOO_LONG);

SAME(ASM_HTTP_METHOD_GET, HTTP_METHOD_GET);
SAME(ASM_HTTP_METHOD_HEAD, HTTP_METHOD_HEAD);
SAME(ASM_HTTP_METHOD_OTHER, HTTP_METHOD_OTHER);

SAME(ASM_HTTP_CONNECTION_NONE, HTTP_CONNECTION_NONE);
SAME(ASM_HTTP_CONNECTION_KEEP_ALIVE, HTTP_CONNECTION_KEEP_ALIVE);
SAME(ASM_HTTP_CONNECTION_CLOSE, HTTP_CONNECTION_CLOSE);
/* parse_headers keeps the strongest Connection token by storing close unconditionally
 * and keep-alive only over none: that relies on this order. */
STATIC_ASSERT(HTTP_CONNECTION_NONE < HTTP_CONNECTION_KEEP_ALIVE &&
		      HTTP_CONNECTION_KEEP_ALIVE < HTTP_CONNECTION_CLOSE,
	      "close outranks keep-alive outranks none");

SAME(ASM_HTTP_METHOD_MAX, HTTP_METHOD_MAX);
SAME(ASM_HTTP_TARGET_MAX, HTTP_TARGET_MAX);
SAME(ASM_HTTP_HEADER_NAME_MAX, HTTP_HEADER_NAME_MAX);
SAME(ASM_HTTP_CONTENT_LENGTH_MAX, HTTP_CONTENT_LENGTH_MAX);

SAME(ASM_REQUEST_LINE_TARGET, offsetof(struct request_line, target));
SAME(ASM_REQUEST_LINE_TARGET_LEN, offsetof(struct request_line, target_len));
SAME(ASM_REQUEST_LINE_PATH_LEN, offsetof(struct request_line, path_len));
SAME(ASM_REQUEST_LINE_LINE_LEN, offsetof(struct request_line, line_len));
SAME(ASM_REQUEST_LINE_METHOD, offsetof(struct request_line, method));
SAME(ASM_REQUEST_LINE_VERSION_MINOR, offsetof(struct request_line, version_minor));
/* The assembly stores these fields with the widths below. */
STATIC_ASSERT(sizeof(((struct request_line *)0)->target) == 8, "target: 64-bit store");
STATIC_ASSERT(sizeof(((struct request_line *)0)->target_len) == 4, "32-bit store");
STATIC_ASSERT(sizeof(((struct request_line *)0)->path_len) == 4, "32-bit store");
STATIC_ASSERT(sizeof(((struct request_line *)0)->line_len) == 4, "32-bit store");
STATIC_ASSERT(sizeof(((struct request_line *)0)->method) == 1, "byte store");
STATIC_ASSERT(sizeof(((struct request_line *)0)->version_minor) == 1, "byte store");

SAME(ASM_HEADER_BLOCK_CONTENT_LENGTH, offsetof(struct header_block, content_length));
SAME(ASM_HEADER_BLOCK_BLOCK_LEN, offsetof(struct header_block, block_len));
SAME(ASM_HEADER_BLOCK_CONNECTION, offsetof(struct header_block, connection));
SAME(ASM_HEADER_BLOCK_HAS_CONTENT_LENGTH, offsetof(struct header_block, has_content_length));
SAME(ASM_HEADER_BLOCK_HOST_COUNT, offsetof(struct header_block, host_count));
STATIC_ASSERT(sizeof(((struct header_block *)0)->content_length) == 8, "64-bit store");
STATIC_ASSERT(sizeof(((struct header_block *)0)->block_len) == 4, "32-bit store");
STATIC_ASSERT(sizeof(((struct header_block *)0)->connection) == 1, "byte store");
STATIC_ASSERT(sizeof(((struct header_block *)0)->has_content_length) == 1, "byte store");
STATIC_ASSERT(sizeof(((struct header_block *)0)->host_count) == 1, "byte store");
SAME(ASM_HEADER_BLOCK_FIELDS_SEEN, offsetof(struct header_block, fields_seen));
SAME(ASM_HEADER_BLOCK_FIELD_COUNT, offsetof(struct header_block, field_count));
SAME(ASM_HEADER_BLOCK_FIELD, offsetof(struct header_block, field));
SAME(ASM_HEADER_BLOCK_HOST_AT, offsetof(struct header_block, host_at));
SAME(ASM_HEADER_BLOCK_HOST_LEN, offsetof(struct header_block, host_len));
STATIC_ASSERT(sizeof(((struct header_block *)0)->fields_seen) == 1, "byte load and store");
STATIC_ASSERT(sizeof(((struct header_block *)0)->field_count) == 4, "32-bit load and store");

SAME(ASM_FIELD_LINE_SIZE, sizeof(struct field_line));
SAME(ASM_FIELD_LINE_AT, offsetof(struct field_line, at));
SAME(ASM_FIELD_LINE_LEN, offsetof(struct field_line, len));
SAME(ASM_FIELD_LINE_ID, offsetof(struct field_line, id));
STATIC_ASSERT(sizeof(((struct field_line *)0)->at) == 2, "16-bit store");
STATIC_ASSERT(sizeof(((struct field_line *)0)->len) == 2, "16-bit store");
STATIC_ASSERT(sizeof(((struct field_line *)0)->id) == 1, "byte store");
/* The assembly finds line i at 6 * i with shifts and adds (no addressing mode scales by
 * 6), so the size is fixed, not just named. */
STATIC_ASSERT(ASM_FIELD_LINE_SIZE == 6, "line i is at 2 * (i + 2 * i)");
SAME(ASM_HEADER_FIELD_LINES_MAX, HEADER_FIELD_LINES_MAX);
SAME(ASM_FIELD_LINE_END_MAX, FIELD_LINE_END_MAX);

SAME(ASM_FIELD_IF_NONE_MATCH, FIELD_IF_NONE_MATCH);
SAME(ASM_FIELD_IF_MODIFIED_SINCE, FIELD_IF_MODIFIED_SINCE);
SAME(ASM_FIELD_IF_RANGE, FIELD_IF_RANGE);
SAME(ASM_FIELD_RANGE, FIELD_RANGE);
SAME(ASM_FIELD_ACCEPT_ENCODING, FIELD_ACCEPT_ENCODING);
SAME(ASM_FIELD_ACCEPT, FIELD_ACCEPT);
STATIC_ASSERT(RECORDED_FIELD_COUNT == 6, "the assembly recognises each recorded field");

SAME(ASM_CC_TCHAR, CC_TCHAR);
SAME(ASM_CC_TARGET, CC_TARGET);
SAME(ASM_CC_VALUE, CC_VALUE);
SAME(ASM_CC_UPPER, CC_UPPER);
SAME(ASM_CC_DIGIT, CC_DIGIT);
SAME(ASM_CC_OWS, CC_OWS);
/* aarch64 tests class bits with tbz/tbnz, which take the bit's number. */
#ifdef ASM_CC_TCHAR_BIT
SAME(1 << ASM_CC_TCHAR_BIT, CC_TCHAR);
SAME(1 << ASM_CC_TARGET_BIT, CC_TARGET);
SAME(1 << ASM_CC_VALUE_BIT, CC_VALUE);
SAME(1 << ASM_CC_UPPER_BIT, CC_UPPER);
SAME(1 << ASM_CC_DIGIT_BIT, CC_DIGIT);
SAME(1 << ASM_CC_OWS_BIT, CC_OWS);
#endif
/* The assembly indexes the table with any byte value, unchecked. */
STATIC_ASSERT(sizeof(http_char_class) == UINT8_MAX + 1, "one entry per byte value");

SAME(ASM_U64_DEC_MAX, U64_DEC_MAX);
