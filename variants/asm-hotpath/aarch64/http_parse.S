/* parse_request_line and parse_headers in AArch64 assembly: the contracts of
 * common/http/http_parse.h, behind the same C prototypes (AAPCS64), behaving exactly like the
 * C reference common/http/http_parse.c on every input: same outcome, and the result fields
 * written with the same values at the same decision points. The structure follows
 * x86_64/http_parse.S label for label.
 *
 * Bounds: every load is at an index already proven < len (or, for a wide load, an index
 * range proven inside [buf, buf + len) or inside a name or value already scanned), so the
 * parsers never read past buf + len even when the input ends against an unmapped page.
 *
 * Speed: the common shapes take a wide fast path (a 4-byte compare for "GET ", one 8-byte
 * compare for "HTTP/1.1" or "HTTP/1.0", header names sorted by length, then matched with
 * 8- and 4-byte case-folded compares, long field values scanned 16 bytes a step with Advanced SIMD);
 * anything the fast path does not recognise falls back to the byte-by-byte walk that
 * mirrors the C code, which decides every partial and bad case. */
#include "variants/asm-hotpath/aarch64/hotpath_asm.h"

/* Lengths of the literals the parsers look for. */
#define CRLF_LEN 2
#define GET_SP_LEN 4            /* "GET " */
#define HEAD_SP_LEN 5           /* "HEAD " */
#define VERSION_CRLF_LEN 10     /* "HTTP/1.1\r\n" */
#define VERSION_LEN 8           /* "HTTP/1.1" */
#define HOST_LEN 4              /* "host" */
#define HOST_COLON_LEN 5        /* "host:" */
#define CONNECTION_LEN 10       /* "connection" */
#define CONTENT_LENGTH_LEN 14   /* "content-length" */
#define TRANSFER_ENCODING_LEN 17 /* "transfer-encoding" */
#define RANGE_LEN 5             /* "range" */
#define ACCEPT_LEN 6            /* "accept" */
#define IF_RANGE_LEN 8          /* "if-range" */
#define IF_NONE_MATCH_LEN 13    /* "if-none-match" */
#define ACCEPT_ENCODING_LEN 15  /* "accept-encoding" */
#define IF_MODIFIED_SINCE_LEN 17 /* "if-modified-since", as long as transfer-encoding */
/* Bit n set when some name parse_headers knows is n bytes long: one shift and tbz turn
 * most other names away before the compares. Every length is below 32, and a name's is
 * 1..64, which a 64-bit lsr takes modulo 64: 64 tests bit 0, which is clear. */
#define KNOWN_NAME_LENGTHS                                                     \
	(1 << HOST_LEN | 1 << RANGE_LEN | 1 << ACCEPT_LEN | 1 << IF_RANGE_LEN |  \
	 1 << CONNECTION_LEN | 1 << IF_NONE_MATCH_LEN | 1 << CONTENT_LENGTH_LEN | \
	 1 << ACCEPT_ENCODING_LEN | 1 << TRANSFER_ENCODING_LEN)
#define CLOSE_LEN 5             /* "close" */
#define KEEP_ALIVE_LEN 10       /* "keep-alive" */

/* "HTTP/1.0" and "HTTP/1.1" differ only in their last byte ('0' ^ '1' == 1): XOR with
 * "HTTP/1.0" leaves 0 or 1 there and zeros in the seven bytes below, which this
 * logical-immediate mask selects. */
#define LOW_7_BYTES 0x00FFFFFFFFFFFFFF
#define LAST_BYTE_SHIFT 56

/* The Advanced SIMD field-value scan: 16 bytes a step; shrn #4 packs one nibble per byte
 * into a 64-bit mask, so the first marked byte is (trailing zero count) / 4. */
#define SIMD_BLOCK 16
#define NIBBLE_SHIFT 4
#define NIBBLE_TO_BYTE_SHIFT 2
#define VALUE_BYTE_MIN_LESS_1 0x1F /* 0x20 and up ... */
#define VALUE_BYTE_DEL 0x7F        /* ... below DEL ... */
#define VALUE_BYTE_HTAB 0x09       /* ... or HTAB: char_class.c's CC_VALUE */

/* Loads a 32-bit constant into the w register reg: movz for the low half, movk for the
 * high half (one A64 instruction carries 16 immediate bits). */
.macro MOV32 reg, value
	movz	\reg, #((\value) & 0xFFFF)
	movk	\reg, #(((\value) >> 16) & 0xFFFF), lsl #16
.endm

/* Case-folded compares against lowercase literals (see ASCII_CASE_BIT in
 * hotpath_consts.h for why OR-ing 0x20 is exact on the bytes they are used on): load the
 * 8, 4, 2 or 1 bytes at base + offset into x11, fold, and branch to miss unless they equal
 * the literal bytes b0, b1, ... Clobber x11, x12. The 8-byte form builds its literal in
 * four instructions, so it checks 8 bytes in 8 where two 4-byte compares take 12; ldur
 * takes any byte offset. */
#define ASCII_CASE_BITS8 (ASCII_CASE_BITS4 | ASCII_CASE_BITS4 << 32)
.macro EXPECT_FOLDED8 base, offset, b0, b1, b2, b3, b4, b5, b6, b7, miss
	ldur	x11, [\base, #\offset]
	orr	x11, x11, #ASCII_CASE_BITS8
	movz	x12, #BYTES2(\b0, \b1)
	movk	x12, #BYTES2(\b2, \b3), lsl #16
	movk	x12, #BYTES2(\b4, \b5), lsl #32
	movk	x12, #BYTES2(\b6, \b7), lsl #48
	cmp	x11, x12
	b.ne	\miss
.endm
.macro EXPECT_FOLDED4 base, offset, b0, b1, b2, b3, miss
	ldr	w11, [\base, #\offset]
	orr	w11, w11, #ASCII_CASE_BITS4
	MOV32	w12, BYTES4(\b0, \b1, \b2, \b3)
	cmp	w11, w12
	b.ne	\miss
.endm
/* 0x2020 is no A64 logical immediate for a 32-bit register, 0x20202020 is: the fold sets
 * bit 5 of the two zero bytes above the halfword too, and the literal carries them. */
.macro EXPECT_FOLDED2 base, offset, b0, b1, miss
	ldrh	w11, [\base, #\offset]
	orr	w11, w11, #ASCII_CASE_BITS4
	MOV32	w12, BYTES4(\b0, \b1, ASCII_CASE_BIT, ASCII_CASE_BIT)
	cmp	w11, w12
	b.ne	\miss
.endm
.macro EXPECT_FOLDED1 base, offset, b0, miss
	ldrb	w11, [\base, #\offset]
	orr	w11, w11, #ASCII_CASE_BIT
	cmp	w11, #\b0
	b.ne	\miss
.endm

/* Moves i (x3) past buf[i] and on over bytes whose http_char_class entry (table in x4)
 * has bit number bit: ends with i at the first byte outside the class, that byte in w9
 * and its class in w10, or branches to at_limit as soon as i reaches limit (a register;
 * x1 for the end of the buffer). */
.macro ADVANCE_OVER bit, limit, at_limit
.Ladvance\@:
	add	x3, x3, #1
	cmp	x3, \limit
	b.eq	\at_limit
	ldrb	w9, [x0, x3]
	ldrb	w10, [x4, x9]
	tbnz	w10, #\bit, .Ladvance\@
.endm

/* The C reference's expect_crlf once buf[i] (i = x3 < len) is known to be CR: branches
 * to partial when the buffer ends after the CR, to bad when the next byte is not LF, and
 * falls through on CRLF. Clobbers x9. */
.macro EXPECT_LF_AFTER_CR partial, bad
	add	x9, x3, #1
	cmp	x9, x1
	b.hs	\partial
	ldrb	w9, [x0, x9]
	cmp	w9, #'\n'
	b.ne	\bad
.endm

/* Returns ASM_PARSE_COMPLETE after storing i + 2 (i = x3, the index of a CRLF's CR) into
 * the 32-bit field at offset field of out (x2): the bytes consumed, CRLF included. */
.macro RETURN_COMPLETE_AFTER_CRLF field
	add	w3, w3, #CRLF_LEN
	str	w3, [x2, #\field]
	mov	w0, #ASM_PARSE_COMPLETE
	ret
.endm

/* Stores the 8-bit constant value at offset field of out (x2). Clobbers w12. */
.macro STORE_BYTE value, field
	mov	w12, #\value
	strb	w12, [x2, #\field]
.endm

/* enum parse_outcome parse_request_line(const char *buf, size_t len,
 *                                       struct request_line *out)
 *
 *   in   x0  buf
 *        x1  len
 *        x2  out
 *   out  w0  ASM_PARSE_COMPLETE, _PARTIAL, _BAD or _TARGET_TOO_LONG; *out as the C
 *            reference leaves it
 *   uses x3 (index i), x4 (&http_char_class), x5 (target start), x6 (scan limit),
 *        x7 (path end), x9-x12 scratch
 *   clobbers x0, x3-x12, flags; preserves x1, x2 and all callee-saved registers
 *   stack: none */
FUNCTION_BEGIN(parse_request_line)
	LOAD_C_ADDRESS(http_char_class, x4)

	/* method. Fast path: "GET " or "HEAD " (the byte walk below would classify them
	 * the same way; it can only ever find OTHER, because a GET or HEAD it could see
	 * would have matched here first). */
	cmp	x1, #GET_SP_LEN
	b.lo	.Lline_method_walk
	ldr	w9, [x0]
	MOV32	w10, BYTES4('G', 'E', 'T', ' ')
	cmp	w9, w10
	b.ne	.Lline_not_get
	STORE_BYTE ASM_HTTP_METHOD_GET, ASM_REQUEST_LINE_METHOD
	mov	x3, #GET_SP_LEN		/* the target starts after "GET " */
	b	.Lline_target
.Lline_not_get:
	MOV32	w10, BYTES4('H', 'E', 'A', 'D')
	cmp	w9, w10
	b.ne	.Lline_method_walk
	cmp	x1, #HEAD_SP_LEN
	b.lo	.Lline_method_walk
	ldrb	w9, [x0, #4]
	cmp	w9, #' '
	b.ne	.Lline_method_walk
	STORE_BYTE ASM_HTTP_METHOD_HEAD, ASM_REQUEST_LINE_METHOD
	mov	x3, #HEAD_SP_LEN	/* the target starts after "HEAD " */
	b	.Lline_target

	/* Byte walk: 1-16 bytes of A-Z, then SP. */
.Lline_method_walk:
	mov	x3, #0
.Lline_method_byte:
	cmp	x3, x1
	b.eq	.Lline_partial
	ldrb	w9, [x0, x3]
	ldrb	w10, [x4, x9]
	tbz	w10, #ASM_CC_UPPER_BIT, .Lline_method_end
	add	x3, x3, #1
	cmp	x3, #ASM_HTTP_METHOD_MAX
	b.hi	.Lline_bad
	b	.Lline_method_byte
.Lline_method_end:			/* w9 = buf[i], not A-Z */
	cbz	x3, .Lline_bad		/* empty method */
	cmp	w9, #' '
	b.ne	.Lline_bad
	STORE_BYTE ASM_HTTP_METHOD_OTHER, ASM_REQUEST_LINE_METHOD
	add	x3, x3, #1

	/* target: target bytes (0x21-0x7e), the first not '?', at most ASM_HTTP_TARGET_MAX,
	 * then SP (its form is http_request.c's business).
	 * The scan stops at x6 = min(len, start + MAX + 1): reaching start + MAX + 1 means
	 * one byte too many (TARGET_TOO_LONG), reaching len first means more is needed
	 * (PARTIAL); when both coincide the C code reports TARGET_TOO_LONG, and so does
	 * .Lline_target_stop. MAX + 1 is no add/cmp immediate (12 bits): it goes through a
	 * register. */
.Lline_target:				/* x3 = index of the target's first byte */
	cmp	x3, x1
	b.eq	.Lline_partial
	ldrb	w9, [x0, x3]
	ldrb	w10, [x4, x9]
	tbz	w10, #ASM_CC_TARGET_BIT, .Lline_bad
	cmp	w9, #'?'
	b.eq	.Lline_bad
	mov	x5, x3
	mov	x6, #ASM_HTTP_TARGET_MAX + 1
	add	x6, x3, x6
	cmp	x6, x1
	csel	x6, x1, x6, hi
.Lline_path_byte:			/* no '?' seen yet */
	add	x3, x3, #1
	cmp	x3, x6
	b.eq	.Lline_target_stop
	ldrb	w9, [x0, x3]
	ldrb	w10, [x4, x9]
	tbz	w10, #ASM_CC_TARGET_BIT, .Lline_path_end
	cmp	w9, #'?'
	b.ne	.Lline_path_byte
	mov	x7, x3			/* the path ends at the first '?' */
	ADVANCE_OVER ASM_CC_TARGET_BIT, x6, .Lline_target_stop
	b	.Lline_target_end
.Lline_path_end:
	mov	x7, x3			/* no query: the path is the whole target */
.Lline_target_end:			/* w9 = buf[i], not a target byte */
	cmp	w9, #' '
	b.ne	.Lline_bad
	add	x10, x0, x5
	str	x10, [x2, #ASM_REQUEST_LINE_TARGET]
	sub	w10, w3, w5
	str	w10, [x2, #ASM_REQUEST_LINE_TARGET_LEN]
	sub	w7, w7, w5
	str	w7, [x2, #ASM_REQUEST_LINE_PATH_LEN]
	add	x3, x3, #1

	/* version and CRLF. Fast path: the ten bytes "HTTP/1.1\r\n" or "HTTP/1.0\r\n" are
	 * all there; anything else (short, other version, no CRLF) takes the byte walk. */
	sub	x9, x1, x3
	cmp	x9, #VERSION_CRLF_LEN
	b.lo	.Lline_version_walk
	ldr	x9, [x0, x3]
	movz	x10, #(BYTES2('H', 'T'))
	movk	x10, #(BYTES2('T', 'P')), lsl #16
	movk	x10, #(BYTES2('/', '1')), lsl #32
	movk	x10, #(BYTES2('.', '0')), lsl #48	/* x10 = "HTTP/1.0" */
	eor	x9, x9, x10
	tst	x9, #LOW_7_BYTES
	b.ne	.Lline_version_walk
	lsr	x9, x9, #LAST_BYTE_SHIFT
	cmp	x9, #1
	b.hi	.Lline_version_walk	/* neither '0' nor '1' */
	strb	w9, [x2, #ASM_REQUEST_LINE_VERSION_MINOR]
	add	x10, x0, x3
	ldrh	w9, [x10, #VERSION_LEN]
	cmp	w9, #BYTES2('\r', '\n')
	b.ne	.Lline_version_walk
	add	w3, w3, #VERSION_CRLF_LEN
	str	w3, [x2, #ASM_REQUEST_LINE_LINE_LEN]
	mov	w0, #ASM_PARSE_COMPLETE
	ret

	/* Byte walk: "HTTP/1." compared against x10, which holds the seven bytes and is
	 * shifted right one byte per match until it is zero. */
.Lline_version_walk:
	movz	x10, #(BYTES2('H', 'T'))
	movk	x10, #(BYTES2('T', 'P')), lsl #16
	movk	x10, #(BYTES2('/', '1')), lsl #32
	movk	x10, #(BYTES2('.', 0)), lsl #48	/* x10 = "HTTP/1.", NUL-padded */
.Lline_prefix_byte:
	cmp	x3, x1
	b.eq	.Lline_partial
	ldrb	w9, [x0, x3]
	cmp	w9, w10, uxtb
	b.ne	.Lline_bad
	add	x3, x3, #1
	lsr	x10, x10, #8
	cbnz	x10, .Lline_prefix_byte
	cmp	x3, x1
	b.eq	.Lline_partial
	ldrb	w9, [x0, x3]
	sub	w9, w9, #'0'
	cmp	w9, #'1' - '0'
	b.hi	.Lline_bad		/* neither '0' nor '1' */
	strb	w9, [x2, #ASM_REQUEST_LINE_VERSION_MINOR]
	add	x3, x3, #1
	cmp	x3, x1
	b.hs	.Lline_partial
	ldrb	w9, [x0, x3]
	cmp	w9, #'\r'
	b.ne	.Lline_bad
	EXPECT_LF_AFTER_CR .Lline_partial, .Lline_bad
	RETURN_COMPLETE_AFTER_CRLF ASM_REQUEST_LINE_LINE_LEN

.Lline_target_stop:			/* i reached x6: too long, or out of bytes */
	sub	x9, x3, x5
	mov	x10, #ASM_HTTP_TARGET_MAX
	cmp	x9, x10
	b.hi	.Lline_too_long
.Lline_partial:
	mov	w0, #ASM_PARSE_PARTIAL
	ret
.Lline_too_long:
	mov	w0, #ASM_PARSE_TARGET_TOO_LONG
	ret
.Lline_bad:
	mov	w0, #ASM_PARSE_BAD
	ret
FUNCTION_END(parse_request_line)

/* What a header's name asks parse_headers to do once its line is complete. The name is
 * classified at its colon so the name's registers are free for the value. */
#define HEADER_OTHER 0
#define HEADER_HOST 1
#define HEADER_CONTENT_LENGTH 2
#define HEADER_TRANSFER_ENCODING 3
#define HEADER_CONNECTION 4
#define HEADER_RECORDED 5 /* + enum recorded_field: a line recorded for the answer */

/* The frame around the http_host_valid call: frame record, then x0-x4. */
#define HOST_CALL_FRAME 64
#define HOST_CALL_SAVE_X0 16
#define HOST_CALL_SAVE_X2 32
#define HOST_CALL_SAVE_X4 48

/* enum parse_outcome parse_headers(const char *buf, size_t len, struct header_block *out)
 *
 *   in   x0  buf
 *        x1  len
 *        x2  out
 *   out  w0  ASM_PARSE_COMPLETE, _PARTIAL or _BAD; *out as the C reference leaves it
 *        (a line of a recorded field appended to out->field[], its id's bit set in
 *        out->fields_seen)
 *   uses x3 (index i), x4 (&http_char_class), x5 (name start, then what the header is,
 *        then Content-Length value or Connection token start), x6 (name scan limit,
 *        then value start), x7 (SIMD scan limit, then value end), x9-x12 scratch
 *        (x10 KNOWN_NAME_LENGTHS while the name is classified),
 *        v0-v5 (SIMD field-value scan)
 *   clobbers x0, x3-x12, v0-v5, flags, and whatever http_host_valid (a C function,
 *        called with the normal ABI) clobbers; x0-x4 are saved around it
 *   stack: HOST_CALL_FRAME bytes around the http_host_valid call (a frame record, so
 *        backtraces work, and x0-x4; sp stays 16-aligned) */
FUNCTION_BEGIN(parse_headers)
	str	xzr, [x2, #ASM_HEADER_BLOCK_CONTENT_LENGTH]
	STORE_BYTE ASM_HTTP_CONNECTION_NONE, ASM_HEADER_BLOCK_CONNECTION
	strb	wzr, [x2, #ASM_HEADER_BLOCK_HAS_CONTENT_LENGTH]
	strb	wzr, [x2, #ASM_HEADER_BLOCK_HOST_COUNT]
	strb	wzr, [x2, #ASM_HEADER_BLOCK_FIELDS_SEEN]
	str	wzr, [x2, #ASM_HEADER_BLOCK_FIELD_COUNT]
	LOAD_C_ADDRESS(http_char_class, x4)
	mov	x3, #0

.Lhead_line:				/* x3 = start of a header line or of the final CRLF */
	cmp	x3, x1
	b.eq	.Lhead_partial
	ldrb	w9, [x0, x3]
	cmp	w9, #'\r'
	b.eq	.Lhead_end

	/* Fast path: "Host:" in any case, the header nearly every request carries. The
	 * four bytes that fold to "host" are letters (see ASCII_CASE_BIT), so the walk
	 * below would find the same 4-byte name and colon. */
	sub	x5, x1, x3
	cmp	x5, #HOST_COLON_LEN
	b.lo	.Lhead_name
	add	x5, x0, x3
	EXPECT_FOLDED4 x5, 0, 'h', 'o', 's', 't', .Lhead_name
	ldrb	w11, [x5, #HOST_LEN]
	cmp	w11, #':'
	b.ne	.Lhead_name
	add	x3, x3, #HOST_LEN	/* the colon */
	mov	w5, #HEADER_HOST
	b	.Lhead_value

	/* field-name: 1-64 tchar, then ':' (no space before it). Scan limit
	 * x6 = min(len, start + MAX + 1), as for the request target. */
.Lhead_name:				/* w9 = buf[i], i < len */
	mov	x5, x3
	add	x6, x3, #ASM_HTTP_HEADER_NAME_MAX + 1
	cmp	x6, x1
	csel	x6, x1, x6, hi
	ldrb	w10, [x4, x9]
	tbz	w10, #ASM_CC_TCHAR_BIT, .Lhead_name_end
	ADVANCE_OVER ASM_CC_TCHAR_BIT, x6, .Lhead_name_stop
.Lhead_name_end:			/* w9 = buf[i], not tchar */
	cmp	x3, x5
	b.eq	.Lhead_bad		/* obs-fold, empty name, bare LF, control byte */
	cmp	w9, #':'
	b.ne	.Lhead_bad		/* space before the colon, or no colon */

	/* Classify the name (x3 - x5 bytes at buf + x5) by length, then by case-folded
	 * compares (under ASCII_CASE_BIT, '-' has no preimage among tchar but itself). */
	sub	x9, x3, x5
	add	x5, x0, x5		/* x5 = the name */
	MOV32	w10, KNOWN_NAME_LENGTHS
	lsr	x10, x10, x9
	tbz	x10, #0, .Lhead_name_other
	cmp	x9, #CONNECTION_LEN
	b.eq	.Lhead_name_connection_len
	cmp	x9, #HOST_LEN
	b.eq	.Lhead_name_host_len
	cmp	x9, #ACCEPT_LEN
	b.eq	.Lhead_name_accept_len
	cmp	x9, #ACCEPT_ENCODING_LEN
	b.eq	.Lhead_name_accept_encoding_len
	cmp	x9, #CONTENT_LENGTH_LEN
	b.eq	.Lhead_name_content_length_len
	cmp	x9, #IF_NONE_MATCH_LEN
	b.eq	.Lhead_name_if_none_match_len
	cmp	x9, #RANGE_LEN
	b.eq	.Lhead_name_range_len
	cmp	x9, #IF_RANGE_LEN
	b.eq	.Lhead_name_if_range_len
	cmp	x9, #TRANSFER_ENCODING_LEN
	b.eq	.Lhead_name_transfer_encoding_len
.Lhead_name_other:
	mov	w5, #HEADER_OTHER
	b	.Lhead_value
.Lhead_name_host_len:
	EXPECT_FOLDED4 x5, 0, 'h', 'o', 's', 't', .Lhead_name_other
	mov	w5, #HEADER_HOST
	b	.Lhead_value
.Lhead_name_connection_len:
	EXPECT_FOLDED8 x5, 0, 'c', 'o', 'n', 'n', 'e', 'c', 't', 'i', .Lhead_name_other
	EXPECT_FOLDED2 x5, 8, 'o', 'n', .Lhead_name_other
	mov	w5, #HEADER_CONNECTION
	b	.Lhead_value
.Lhead_name_content_length_len:		/* bytes 0-7, then 6-13 (6 and 7 twice) */
	EXPECT_FOLDED8 x5, 0, 'c', 'o', 'n', 't', 'e', 'n', 't', '-', .Lhead_name_other
	EXPECT_FOLDED8 x5, 6, 't', '-', 'l', 'e', 'n', 'g', 't', 'h', .Lhead_name_other
	mov	w5, #HEADER_CONTENT_LENGTH
	b	.Lhead_value
.Lhead_name_range_len:
	EXPECT_FOLDED4 x5, 0, 'r', 'a', 'n', 'g', .Lhead_name_other
	EXPECT_FOLDED1 x5, 4, 'e', .Lhead_name_other
	mov	w5, #HEADER_RECORDED + ASM_FIELD_RANGE
	b	.Lhead_value
.Lhead_name_accept_len:
	EXPECT_FOLDED4 x5, 0, 'a', 'c', 'c', 'e', .Lhead_name_other
	EXPECT_FOLDED2 x5, 4, 'p', 't', .Lhead_name_other
	mov	w5, #HEADER_RECORDED + ASM_FIELD_ACCEPT
	b	.Lhead_value
.Lhead_name_if_range_len:
	EXPECT_FOLDED8 x5, 0, 'i', 'f', '-', 'r', 'a', 'n', 'g', 'e', .Lhead_name_other
	mov	w5, #HEADER_RECORDED + ASM_FIELD_IF_RANGE
	b	.Lhead_value
.Lhead_name_if_none_match_len:		/* bytes 0-7, then 5-12 (5 to 7 twice) */
	EXPECT_FOLDED8 x5, 0, 'i', 'f', '-', 'n', 'o', 'n', 'e', '-', .Lhead_name_other
	EXPECT_FOLDED8 x5, 5, 'n', 'e', '-', 'm', 'a', 't', 'c', 'h', .Lhead_name_other
	mov	w5, #HEADER_RECORDED + ASM_FIELD_IF_NONE_MATCH
	b	.Lhead_value
.Lhead_name_accept_encoding_len:	/* bytes 0-7, then 7-14 (7 twice) */
	EXPECT_FOLDED8 x5, 0, 'a', 'c', 'c', 'e', 'p', 't', '-', 'e', .Lhead_name_other
	EXPECT_FOLDED8 x5, 7, 'e', 'n', 'c', 'o', 'd', 'i', 'n', 'g', .Lhead_name_other
	mov	w5, #HEADER_RECORDED + ASM_FIELD_ACCEPT_ENCODING
	b	.Lhead_value
.Lhead_name_if_modified_since_len:
	EXPECT_FOLDED8 x5, 0, 'i', 'f', '-', 'm', 'o', 'd', 'i', 'f', .Lhead_name_other
	EXPECT_FOLDED8 x5, 8, 'i', 'e', 'd', '-', 's', 'i', 'n', 'c', .Lhead_name_other
	EXPECT_FOLDED1 x5, 16, 'e', .Lhead_name_other
	mov	w5, #HEADER_RECORDED + ASM_FIELD_IF_MODIFIED_SINCE
	b	.Lhead_value
.Lhead_name_transfer_encoding_len:	/* or if-modified-since, as long */
	EXPECT_FOLDED8 x5, 0, 't', 'r', 'a', 'n', 's', 'f', 'e', 'r', .Lhead_name_if_modified_since_len
	EXPECT_FOLDED8 x5, 8, '-', 'e', 'n', 'c', 'o', 'd', 'i', 'n', .Lhead_name_other
	EXPECT_FOLDED1 x5, 16, 'g', .Lhead_name_other
	mov	w5, #HEADER_TRANSFER_ENCODING

	/* OWS field-value OWS CRLF. The value starts at the first non-OWS byte and runs
	 * over field-value bytes (OWS included); a byte that is neither must be the CR. */
.Lhead_value:				/* x3 = index of the colon */
	ADVANCE_OVER ASM_CC_OWS_BIT, x1, .Lhead_partial
	mov	x6, x3
	tbz	w10, #ASM_CC_VALUE_BIT, .Lhead_value_end
	/* Long values (User-Agent, Accept, Cookie) are scanned 16 bytes at a time while 16
	 * whole bytes follow buf[i]; the rest byte by byte. A value byte is one in
	 * 0x20-0x7E (unsigned compares on both sides) or HTAB: exactly the bytes
	 * char_class.c marks CC_VALUE. v0-v7 are caller-saved scratch in AAPCS64. */
	add	x7, x3, #1 + SIMD_BLOCK
	cmp	x7, x1
	b.hi	.Lhead_value_bytes
	movi	v2.16b, #VALUE_BYTE_MIN_LESS_1
	movi	v3.16b, #VALUE_BYTE_DEL
	movi	v4.16b, #VALUE_BYTE_HTAB
.Lhead_value_block:			/* buf[i] is a value byte, i + 1 + 16 <= len */
	add	x11, x0, x3
	ldur	q0, [x11, #1]
	cmhi	v1.16b, v0.16b, v2.16b	/* above 0x1F */
	cmhi	v5.16b, v3.16b, v0.16b	/* below DEL */
	and	v1.16b, v1.16b, v5.16b
	cmeq	v5.16b, v0.16b, v4.16b	/* HTAB */
	orr	v1.16b, v1.16b, v5.16b	/* 0xFF: a value byte */
	mvn	v1.16b, v1.16b		/* 0xFF: not a value byte */
	shrn	v1.8b, v1.8h, #NIBBLE_SHIFT
	fmov	x11, d1			/* nibble k set: byte i + 1 + k ends the value */
	cbnz	x11, .Lhead_value_block_end
	add	x3, x3, #SIMD_BLOCK
	add	x7, x3, #1 + SIMD_BLOCK
	cmp	x7, x1
	b.ls	.Lhead_value_block
.Lhead_value_bytes:
	ADVANCE_OVER ASM_CC_VALUE_BIT, x1, .Lhead_partial
	b	.Lhead_value_end
.Lhead_value_block_end:
	rbit	x11, x11
	clz	x11, x11
	add	x3, x3, x11, lsr #NIBBLE_TO_BYTE_SHIFT
	add	x3, x3, #1		/* the first byte that is not a value byte */
	ldrb	w9, [x0, x3]
.Lhead_value_end:			/* w9 = buf[i], not a field-value byte */
	cmp	w9, #'\r'
	b.ne	.Lhead_bad		/* bare LF, control byte, DEL, 8-bit byte */
	EXPECT_LF_AFTER_CR .Lhead_partial, .Lhead_bad
	mov	x7, x3			/* value end, then trailing OWS trimmed */
.Lhead_trim:
	cmp	x7, x6
	b.ls	.Lhead_trimmed
	sub	x11, x7, #1
	ldrb	w11, [x0, x11]
	ldrb	w11, [x4, x11]
	tbz	w11, #ASM_CC_OWS_BIT, .Lhead_trimmed
	sub	x7, x7, #1
	b	.Lhead_trim
.Lhead_trimmed:
	add	x3, x3, #CRLF_LEN	/* the next line */

	/* Act on the header: the value is [x6, x7) of buf. */
	cmp	w5, #HEADER_OTHER
	b.eq	.Lhead_line
	cmp	w5, #HEADER_RECORDED
	b.hs	.Lhead_record
	cmp	w5, #HEADER_HOST
	b.eq	.Lhead_host
	cmp	w5, #HEADER_CONTENT_LENGTH
	b.eq	.Lhead_content_length
	cmp	w5, #HEADER_CONNECTION
	b.eq	.Lhead_connection
	b	.Lhead_bad		/* Transfer-Encoding: the daemon reads no bodies */

	/* A recorded field: append {at x6, len x7 - x6, id w5 - HEADER_RECORDED} to
	 * out->field[] and set the id's bit in out->fields_seen; BAD when the value ends past
	 * 16-bit offsets or the table is full (as in C: neither happens within the 16 KiB
	 * the daemon parses). */
.Lhead_record:
	mov	x11, #ASM_FIELD_LINE_END_MAX
	cmp	x7, x11
	b.hi	.Lhead_bad
	ldr	w11, [x2, #ASM_HEADER_BLOCK_FIELD_COUNT]
	cmp	w11, #ASM_HEADER_FIELD_LINES_MAX
	b.eq	.Lhead_bad
	add	w12, w11, #1
	str	w12, [x2, #ASM_HEADER_BLOCK_FIELD_COUNT]
	add	x11, x11, x11, lsl #1	/* line i is at ASM_FIELD_LINE_SIZE * i = 2 * 3i */
	add	x11, x2, x11, lsl #1
	strh	w6, [x11, #ASM_HEADER_BLOCK_FIELD + ASM_FIELD_LINE_AT]
	sub	w12, w7, w6
	strh	w12, [x11, #ASM_HEADER_BLOCK_FIELD + ASM_FIELD_LINE_LEN]
	sub	w5, w5, #HEADER_RECORDED
	strb	w5, [x11, #ASM_HEADER_BLOCK_FIELD + ASM_FIELD_LINE_ID]
	ldrb	w11, [x2, #ASM_HEADER_BLOCK_FIELDS_SEEN]
	mov	w12, #1
	lsl	w12, w12, w5
	orr	w11, w11, w12
	strb	w11, [x2, #ASM_HEADER_BLOCK_FIELDS_SEEN]
	b	.Lhead_line

	/* Host: the second one is BAD (the count is still raised, as in C); the value
	 * must pass http_host_valid(buf + x6, x7 - x6). Its place is kept for --site. */
.Lhead_host:
	ldrb	w11, [x2, #ASM_HEADER_BLOCK_HOST_COUNT]
	add	w11, w11, #1
	strb	w11, [x2, #ASM_HEADER_BLOCK_HOST_COUNT]
	cmp	w11, #1
	b.ne	.Lhead_bad
	/* its place, for --site (16 bits; past strh's scaled immediate, so an address) */
	mov	x12, #ASM_HEADER_BLOCK_HOST_AT
	add	x12, x2, x12
	strh	w6, [x12]
	sub	w11, w7, w6
	strh	w11, [x12, #ASM_HEADER_BLOCK_HOST_LEN - ASM_HEADER_BLOCK_HOST_AT]
	stp	x29, x30, [sp, #-HOST_CALL_FRAME]!
	mov	x29, sp
	stp	x0, x1, [sp, #HOST_CALL_SAVE_X0]
	stp	x2, x3, [sp, #HOST_CALL_SAVE_X2]
	str	x4, [sp, #HOST_CALL_SAVE_X4]
	add	x0, x0, x6
	sub	x1, x7, x6
	CALL_C(http_host_valid)
	mov	w11, w0
	ldp	x0, x1, [sp, #HOST_CALL_SAVE_X0]
	ldp	x2, x3, [sp, #HOST_CALL_SAVE_X2]
	ldr	x4, [sp, #HOST_CALL_SAVE_X4]
	ldp	x29, x30, [sp], #HOST_CALL_FRAME
	cbz	w11, .Lhead_bad
	b	.Lhead_line

	/* Content-Length: 1-19 digits, nothing else; a repeat must carry the same value. */
.Lhead_content_length:
	subs	x9, x7, x6
	b.eq	.Lhead_bad
	cmp	x9, #ASM_HTTP_CONTENT_LENGTH_MAX
	b.hi	.Lhead_bad
	mov	x5, #0			/* the value; 19 digits cannot overflow 64 bits */
	mov	x12, #10
.Lhead_digit:
	ldrb	w9, [x0, x6]
	ldrb	w10, [x4, x9]
	tbz	w10, #ASM_CC_DIGIT_BIT, .Lhead_bad
	sub	w9, w9, #'0'
	madd	x5, x5, x12, x9		/* x5 = x5 * 10 + digit */
	add	x6, x6, #1
	cmp	x6, x7
	b.ne	.Lhead_digit
	ldrb	w11, [x2, #ASM_HEADER_BLOCK_HAS_CONTENT_LENGTH]
	cbz	w11, .Lhead_store_length
	ldr	x11, [x2, #ASM_HEADER_BLOCK_CONTENT_LENGTH]
	cmp	x5, x11
	b.ne	.Lhead_bad		/* two different lengths */
.Lhead_store_length:
	str	x5, [x2, #ASM_HEADER_BLOCK_CONTENT_LENGTH]
	STORE_BYTE 1, ASM_HEADER_BLOCK_HAS_CONTENT_LENGTH
	b	.Lhead_line

	/* Connection: a comma-separated token list; "close" outranks "keep-alive" outranks
	 * nothing, so each token can raise out->connection directly: close is stored
	 * outright, keep-alive only over none (the C code keeps the maximum the same way,
	 * and nothing can return between the tokens of one line). x5 = token start. */
.Lhead_connection:
.Lhead_token_gap:
	cmp	x6, x7
	b.hs	.Lhead_line
	ldrb	w9, [x0, x6]
	cmp	w9, #','
	b.eq	.Lhead_gap_byte
	ldrb	w10, [x4, x9]
	tbz	w10, #ASM_CC_OWS_BIT, .Lhead_token
.Lhead_gap_byte:
	add	x6, x6, #1
	b	.Lhead_token_gap
.Lhead_token:
	mov	x5, x6
.Lhead_token_byte:
	add	x6, x6, #1
	cmp	x6, x7
	b.hs	.Lhead_token_end
	ldrb	w9, [x0, x6]
	cmp	w9, #','
	b.eq	.Lhead_token_end
	ldrb	w10, [x4, x9]
	tbz	w10, #ASM_CC_OWS_BIT, .Lhead_token_byte
.Lhead_token_end:			/* the token is [x5, x6) */
	sub	x9, x6, x5
	add	x5, x0, x5
	cmp	x9, #CLOSE_LEN
	b.eq	.Lhead_token_close_len
	cmp	x9, #KEEP_ALIVE_LEN
	b.ne	.Lhead_token_gap
	EXPECT_FOLDED8 x5, 0, 'k', 'e', 'e', 'p', '-', 'a', 'l', 'i', .Lhead_token_gap
	EXPECT_FOLDED2 x5, 8, 'v', 'e', .Lhead_token_gap
	ldrb	w11, [x2, #ASM_HEADER_BLOCK_CONNECTION]
	cmp	w11, #ASM_HTTP_CONNECTION_NONE
	b.ne	.Lhead_token_gap
	STORE_BYTE ASM_HTTP_CONNECTION_KEEP_ALIVE, ASM_HEADER_BLOCK_CONNECTION
	b	.Lhead_token_gap
.Lhead_token_close_len:
	EXPECT_FOLDED4 x5, 0, 'c', 'l', 'o', 's', .Lhead_token_gap
	EXPECT_FOLDED1 x5, 4, 'e', .Lhead_token_gap
	STORE_BYTE ASM_HTTP_CONNECTION_CLOSE, ASM_HEADER_BLOCK_CONNECTION
	b	.Lhead_token_gap

.Lhead_end:				/* buf[i] is CR at the start of a line: the empty line */
	EXPECT_LF_AFTER_CR .Lhead_partial, .Lhead_bad
	RETURN_COMPLETE_AFTER_CRLF ASM_HEADER_BLOCK_BLOCK_LEN
.Lhead_name_stop:			/* i reached x6: name too long, or out of bytes */
	sub	x9, x3, x5
	cmp	x9, #ASM_HTTP_HEADER_NAME_MAX
	b.hi	.Lhead_bad
.Lhead_partial:
	mov	w0, #ASM_PARSE_PARTIAL
	ret
.Lhead_bad:
	mov	w0, #ASM_PARSE_BAD
	ret
FUNCTION_END(parse_headers)

	.section .note.GNU-stack, "", %progbits
