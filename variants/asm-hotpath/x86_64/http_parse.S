/* parse_request_line and parse_headers in x86_64 assembly: the contracts of
 * common/http/http_parse.h, behind the same C prototypes (System V AMD64 ABI), behaving
 * exactly like the C reference common/http/http_parse.c on every input: same outcome, and the
 * result fields written with the same values at the same decision points.
 *
 * Bounds: every load is at an index already proven < len (or, for a wide load, an index
 * range proven inside [buf, buf + len) or inside a name or value already scanned), so the
 * parsers never read past buf + len even when the input ends against an unmapped page.
 *
 * Speed: the common shapes take a wide fast path (a 4-byte compare for "GET ", an 8-byte
 * compare for "HTTP/1.1", header names sorted by length, then matched with 4-byte
 * case-folded compares);
 * anything the fast path does not recognise falls back to the byte-by-byte walk that
 * mirrors the C code, which decides every partial and bad case. */
#include "variants/asm-hotpath/x86_64/hotpath_asm.h"

/* Lengths of the literals the parsers look for. */
#define CRLF_LEN 2
#define GET_SP_LEN 4            /* "GET " */
#define HEAD_SP_LEN 5           /* "HEAD " */
#define VERSION_CRLF_LEN 10     /* "HTTP/1.1\r\n" */
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
/* Bit n set when some name parse_headers knows is n bytes long: one bt turns most other
 * names away before the compares. Every length is below 64, and a name's is 1..64, which
 * a 64-bit bt takes modulo 64: 64 tests bit 0, which is clear. */
#define KNOWN_NAME_LENGTHS                                                     \
	(1 << HOST_LEN | 1 << RANGE_LEN | 1 << ACCEPT_LEN | 1 << IF_RANGE_LEN |  \
	 1 << CONNECTION_LEN | 1 << IF_NONE_MATCH_LEN | 1 << CONTENT_LENGTH_LEN | \
	 1 << ACCEPT_ENCODING_LEN | 1 << TRANSFER_ENCODING_LEN)
#define CLOSE_LEN 5             /* "close" */
#define KEEP_ALIVE_LEN 10       /* "keep-alive" */

/* The SSE2 field-value scan: 16 bytes a step; pmovmskb gives one bit per byte. */
#define SSE_BLOCK 16
#define SSE_ALL_BYTES_MASK 0xFFFF

#define BITS_PER_BYTE 8

/* Case-folded compares against lowercase literals (see ASCII_CASE_BIT in hotpath_consts.h
 * for why OR-ing 0x20 is exact on the bytes they are used on): load the 4, 2 or 1 bytes
 * at addr into the 32-bit register scratch, fold, and jump to miss unless they equal the
 * literal bytes b0, b1, ... */
.macro EXPECT_FOLDED4 addr, scratch, b0, b1, b2, b3, miss
	movl	\addr, \scratch
	orl	$ASCII_CASE_BITS4, \scratch
	cmpl	$BYTES4(\b0, \b1, \b2, \b3), \scratch
	jne	\miss
.endm
.macro EXPECT_FOLDED2 addr, scratch, b0, b1, miss
	movzwl	\addr, \scratch
	orl	$ASCII_CASE_BITS2, \scratch
	cmpl	$BYTES2(\b0, \b1), \scratch
	jne	\miss
.endm
.macro EXPECT_FOLDED1 addr, scratch, b0, miss
	movzbl	\addr, \scratch
	orl	$ASCII_CASE_BIT, \scratch
	cmpl	$\b0, \scratch
	jne	\miss
.endm

/* Moves i (rcx) past buf[i] and on over bytes whose http_char_class entry (table in r8)
 * has bit cls: ends with i at the first byte outside cls and that byte in eax, or jumps to
 * at_limit as soon as i reaches limit (a register; rsi for the end of the buffer). */
.macro ADVANCE_OVER cls, limit, at_limit
.Ladvance\@:
	incq	%rcx
	cmpq	\limit, %rcx
	je	\at_limit
	movzbl	(%rdi,%rcx), %eax
	testb	$\cls, (%r8,%rax)
	jnz	.Ladvance\@
.endm

/* The C reference's expect_crlf once buf[i] (i = rcx < len) is known to be CR: jumps to
 * partial when the buffer ends after the CR, to bad when the next byte is not LF, and
 * falls through on CRLF. Clobbers rax. */
.macro EXPECT_LF_AFTER_CR partial, bad
	leaq	1(%rcx), %rax
	cmpq	%rsi, %rax
	jae	\partial
	cmpb	$'\n', 1(%rdi,%rcx)
	jne	\bad
.endm

/* Returns ASM_PARSE_COMPLETE after storing i + 2 (i = rcx, the index of a CRLF's CR) into
 * the 32-bit field at offset field of out (rdx): the bytes consumed, CRLF included. */
.macro RETURN_COMPLETE_AFTER_CRLF field
	addl	$CRLF_LEN, %ecx
	movl	%ecx, \field(%rdx)
	xorl	%eax, %eax		/* ASM_PARSE_COMPLETE */
	ret
.endm

/* enum parse_outcome parse_request_line(const char *buf, size_t len,
 *                                       struct request_line *out)
 *
 *   in   rdi  buf
 *        rsi  len
 *        rdx  out
 *   out  eax  ASM_PARSE_COMPLETE, _PARTIAL, _BAD or _TARGET_TOO_LONG; *out as the C
 *             reference leaves it
 *   uses rax, rcx (index i), r8 (&http_char_class), r9 (target start),
 *        r10 (scan limit, then constants), r11 (path end)
 *   clobbers rax, rcx, r8, r9, r10, r11; preserves rdi, rsi, rdx and all callee-saved
 *   stack: none */
FUNCTION_BEGIN(parse_request_line)
	LOAD_C_ADDRESS(http_char_class, %r8)

	/* method. Fast path: "GET " or "HEAD " (the byte walk below would classify them
	 * the same way; it can only ever find OTHER, because a GET or HEAD it could see
	 * would have matched here first). */
	cmpq	$GET_SP_LEN, %rsi
	jb	.Lline_method_walk
	movl	(%rdi), %eax
	cmpl	$BYTES4('G', 'E', 'T', ' '), %eax
	jne	.Lline_not_get
	movb	$ASM_HTTP_METHOD_GET, ASM_REQUEST_LINE_METHOD(%rdx)
	movl	$GET_SP_LEN, %ecx	/* the target starts after "GET " */
	jmp	.Lline_target
.Lline_not_get:
	cmpl	$BYTES4('H', 'E', 'A', 'D'), %eax
	jne	.Lline_method_walk
	cmpq	$HEAD_SP_LEN, %rsi
	jb	.Lline_method_walk
	cmpb	$' ', 4(%rdi)
	jne	.Lline_method_walk
	movb	$ASM_HTTP_METHOD_HEAD, ASM_REQUEST_LINE_METHOD(%rdx)
	movl	$HEAD_SP_LEN, %ecx	/* the target starts after "HEAD " */
	jmp	.Lline_target

	/* Byte walk: 1-16 bytes of A-Z, then SP. */
.Lline_method_walk:
	xorl	%ecx, %ecx
.Lline_method_byte:
	cmpq	%rsi, %rcx
	je	.Lline_partial
	movzbl	(%rdi,%rcx), %eax
	testb	$ASM_CC_UPPER, (%r8,%rax)
	jz	.Lline_method_end
	incq	%rcx
	cmpq	$ASM_HTTP_METHOD_MAX, %rcx
	ja	.Lline_bad
	jmp	.Lline_method_byte
.Lline_method_end:			/* eax = buf[i], not A-Z */
	testq	%rcx, %rcx
	jz	.Lline_bad		/* empty method */
	cmpl	$' ', %eax
	jne	.Lline_bad
	movb	$ASM_HTTP_METHOD_OTHER, ASM_REQUEST_LINE_METHOD(%rdx)
	incq	%rcx

	/* target: target bytes (0x21-0x7e), the first not '?', at most ASM_HTTP_TARGET_MAX,
	 * then SP (its form is http_request.c's business).
	 * The scan stops at r10 = min(len, start + MAX + 1): reaching start + MAX + 1 means
	 * one byte too many (TARGET_TOO_LONG), reaching len first means more is needed
	 * (PARTIAL); when both coincide the C code reports TARGET_TOO_LONG, and so does
	 * .Lline_target_stop. */
.Lline_target:				/* rcx = index of the target's first byte */
	cmpq	%rsi, %rcx
	je	.Lline_partial
	movzbl	(%rdi,%rcx), %eax
	testb	$ASM_CC_TARGET, (%r8,%rax)
	jz	.Lline_bad
	cmpl	$'?', %eax
	je	.Lline_bad
	movq	%rcx, %r9
	leaq	ASM_HTTP_TARGET_MAX+1(%rcx), %r10
	cmpq	%rsi, %r10
	cmovaq	%rsi, %r10
.Lline_path_byte:			/* no '?' seen yet */
	incq	%rcx
	cmpq	%r10, %rcx
	je	.Lline_target_stop
	movzbl	(%rdi,%rcx), %eax
	testb	$ASM_CC_TARGET, (%r8,%rax)
	jz	.Lline_path_end
	cmpl	$'?', %eax
	jne	.Lline_path_byte
	movq	%rcx, %r11		/* the path ends at the first '?' */
	ADVANCE_OVER ASM_CC_TARGET, %r10, .Lline_target_stop
	jmp	.Lline_target_end
.Lline_path_end:
	movq	%rcx, %r11		/* no query: the path is the whole target */
.Lline_target_end:			/* eax = buf[i], not a target byte */
	cmpl	$' ', %eax
	jne	.Lline_bad
	leaq	(%rdi,%r9), %rax
	movq	%rax, ASM_REQUEST_LINE_TARGET(%rdx)
	movl	%ecx, %eax
	subl	%r9d, %eax
	movl	%eax, ASM_REQUEST_LINE_TARGET_LEN(%rdx)
	subl	%r9d, %r11d
	movl	%r11d, ASM_REQUEST_LINE_PATH_LEN(%rdx)
	incq	%rcx

	/* version and CRLF. Fast path: the ten bytes "HTTP/1.1\r\n" or "HTTP/1.0\r\n" are
	 * all there; anything else (short, other version, no CRLF) takes the byte walk. */
	movq	%rsi, %rax
	subq	%rcx, %rax
	cmpq	$VERSION_CRLF_LEN, %rax
	jb	.Lline_version_walk
	movq	(%rdi,%rcx), %rax
	movabsq	$BYTES8('H', 'T', 'T', 'P', '/', '1', '.', '1'), %r10
	cmpq	%r10, %rax
	je	.Lline_minor_1
	movabsq	$BYTES8('H', 'T', 'T', 'P', '/', '1', '.', '0'), %r10
	cmpq	%r10, %rax
	jne	.Lline_version_walk
	movb	$0, ASM_REQUEST_LINE_VERSION_MINOR(%rdx)
	jmp	.Lline_version_crlf
.Lline_minor_1:
	movb	$1, ASM_REQUEST_LINE_VERSION_MINOR(%rdx)
.Lline_version_crlf:
	cmpw	$BYTES2('\r', '\n'), 8(%rdi,%rcx)
	jne	.Lline_version_walk
	addl	$VERSION_CRLF_LEN, %ecx
	movl	%ecx, ASM_REQUEST_LINE_LINE_LEN(%rdx)
	xorl	%eax, %eax		/* ASM_PARSE_COMPLETE */
	ret

	/* Byte walk: "HTTP/1." compared against r10, which holds the seven bytes and is
	 * shifted right one byte per match until it is zero. */
.Lline_version_walk:
	movabsq	$BYTES8('H', 'T', 'T', 'P', '/', '1', '.', 0), %r10
.Lline_prefix_byte:
	cmpq	%rsi, %rcx
	je	.Lline_partial
	cmpb	%r10b, (%rdi,%rcx)
	jne	.Lline_bad
	incq	%rcx
	shrq	$BITS_PER_BYTE, %r10
	jnz	.Lline_prefix_byte
	cmpq	%rsi, %rcx
	je	.Lline_partial
	movzbl	(%rdi,%rcx), %eax
	subl	$'0', %eax
	cmpl	$'1' - '0', %eax
	ja	.Lline_bad		/* neither '0' nor '1' */
	movb	%al, ASM_REQUEST_LINE_VERSION_MINOR(%rdx)
	incq	%rcx
	cmpq	%rsi, %rcx
	jae	.Lline_partial
	cmpb	$'\r', (%rdi,%rcx)
	jne	.Lline_bad
	EXPECT_LF_AFTER_CR .Lline_partial, .Lline_bad
	RETURN_COMPLETE_AFTER_CRLF ASM_REQUEST_LINE_LINE_LEN

.Lline_target_stop:			/* i reached r10: too long, or out of bytes */
	movq	%rcx, %rax
	subq	%r9, %rax
	cmpq	$ASM_HTTP_TARGET_MAX, %rax
	ja	.Lline_too_long
.Lline_partial:
	movl	$ASM_PARSE_PARTIAL, %eax
	ret
.Lline_too_long:
	movl	$ASM_PARSE_TARGET_TOO_LONG, %eax
	ret
.Lline_bad:
	movl	$ASM_PARSE_BAD, %eax
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

/* enum parse_outcome parse_headers(const char *buf, size_t len, struct header_block *out)
 *
 *   in   rdi  buf
 *        rsi  len
 *        rdx  out
 *   out  eax  ASM_PARSE_COMPLETE, _PARTIAL or _BAD; *out as the C reference leaves it
 *        (a line of a recorded field appended to out->field[], its id's bit set in
 *        out->fields_seen)
 *   uses rax, rcx (index i), r8 (&http_char_class), r9 (name start, then what the
 *        header is, then Content-Length value or Connection token start),
 *        r10 (name scan limit, then KNOWN_NAME_LENGTHS, then value start), r11 (SSE2
 *        scan limit, then value end), xmm0-xmm5 (SSE2 field-value scan)
 *   clobbers rax, rcx, r8-r11, xmm0-xmm5 and whatever http_host_valid (a C function,
 *        called with the normal ABI) clobbers; rdi, rsi, rdx are saved around it
 *   stack: 40 bytes around the http_host_valid call (five pushes keep rsp 16-aligned
 *        at the call, as the ABI requires) */
FUNCTION_BEGIN(parse_headers)
	movq	$0, ASM_HEADER_BLOCK_CONTENT_LENGTH(%rdx)
	movb	$ASM_HTTP_CONNECTION_NONE, ASM_HEADER_BLOCK_CONNECTION(%rdx)
	movb	$0, ASM_HEADER_BLOCK_HAS_CONTENT_LENGTH(%rdx)
	movb	$0, ASM_HEADER_BLOCK_HOST_COUNT(%rdx)
	movb	$0, ASM_HEADER_BLOCK_FIELDS_SEEN(%rdx)
	movl	$0, ASM_HEADER_BLOCK_FIELD_COUNT(%rdx)
	LOAD_C_ADDRESS(http_char_class, %r8)
	xorl	%ecx, %ecx

.Lhead_line:				/* rcx = start of a header line or of the final CRLF */
	cmpq	%rsi, %rcx
	je	.Lhead_partial
	movzbl	(%rdi,%rcx), %eax
	cmpl	$'\r', %eax
	je	.Lhead_end

	/* Fast path: "Host:" in any case, the header nearly every request carries. The
	 * four bytes that fold to "host" are letters (see ASCII_CASE_BIT), so the walk
	 * below would find the same 4-byte name and colon. */
	movq	%rsi, %r9
	subq	%rcx, %r9
	cmpq	$HOST_COLON_LEN, %r9
	jb	.Lhead_name
	leaq	(%rdi,%rcx), %r9
	EXPECT_FOLDED4 (%r9), %r9d, 'h', 'o', 's', 't', .Lhead_name
	cmpb	$':', 4(%rdi,%rcx)
	jne	.Lhead_name
	addq	$HOST_LEN, %rcx		/* the colon */
	movl	$HEADER_HOST, %r9d
	jmp	.Lhead_value

	/* field-name: 1-64 tchar, then ':' (no space before it). Scan limit
	 * r10 = min(len, start + MAX + 1), as for the request target. */
.Lhead_name:				/* eax = buf[i], i < len */
	movq	%rcx, %r9
	leaq	ASM_HTTP_HEADER_NAME_MAX+1(%rcx), %r10
	cmpq	%rsi, %r10
	cmovaq	%rsi, %r10
	testb	$ASM_CC_TCHAR, (%r8,%rax)
	jz	.Lhead_name_end
	ADVANCE_OVER ASM_CC_TCHAR, %r10, .Lhead_name_stop
.Lhead_name_end:			/* eax = buf[i], not tchar */
	cmpq	%r9, %rcx
	je	.Lhead_bad		/* obs-fold, empty name, bare LF, control byte */
	cmpl	$':', %eax
	jne	.Lhead_bad		/* space before the colon, or no colon */

	/* Classify the name (rcx - r9 bytes at buf + r9) by length, then by case-folded
	 * compares (under ASCII_CASE_BIT, '-' has no preimage among tchar but itself). */
	movq	%rcx, %rax
	subq	%r9, %rax
	addq	%rdi, %r9		/* r9 = the name */
	movl	$KNOWN_NAME_LENGTHS, %r10d
	btq	%rax, %r10
	jnc	.Lhead_name_other
	cmpq	$CONNECTION_LEN, %rax
	je	.Lhead_name_connection_len
	cmpq	$HOST_LEN, %rax
	je	.Lhead_name_host_len
	cmpq	$ACCEPT_LEN, %rax
	je	.Lhead_name_accept_len
	cmpq	$ACCEPT_ENCODING_LEN, %rax
	je	.Lhead_name_accept_encoding_len
	cmpq	$CONTENT_LENGTH_LEN, %rax
	je	.Lhead_name_content_length_len
	cmpq	$IF_NONE_MATCH_LEN, %rax
	je	.Lhead_name_if_none_match_len
	cmpq	$RANGE_LEN, %rax
	je	.Lhead_name_range_len
	cmpq	$IF_RANGE_LEN, %rax
	je	.Lhead_name_if_range_len
	cmpq	$TRANSFER_ENCODING_LEN, %rax
	je	.Lhead_name_transfer_encoding_len
.Lhead_name_other:
	movl	$HEADER_OTHER, %r9d
	jmp	.Lhead_value
.Lhead_name_host_len:
	EXPECT_FOLDED4 (%r9), %eax, 'h', 'o', 's', 't', .Lhead_name_other
	movl	$HEADER_HOST, %r9d
	jmp	.Lhead_value
.Lhead_name_connection_len:
	EXPECT_FOLDED4 (%r9), %eax, 'c', 'o', 'n', 'n', .Lhead_name_other
	EXPECT_FOLDED4 4(%r9), %eax, 'e', 'c', 't', 'i', .Lhead_name_other
	EXPECT_FOLDED2 8(%r9), %eax, 'o', 'n', .Lhead_name_other
	movl	$HEADER_CONNECTION, %r9d
	jmp	.Lhead_value
.Lhead_name_content_length_len:
	EXPECT_FOLDED4 (%r9), %eax, 'c', 'o', 'n', 't', .Lhead_name_other
	EXPECT_FOLDED4 4(%r9), %eax, 'e', 'n', 't', '-', .Lhead_name_other
	EXPECT_FOLDED4 8(%r9), %eax, 'l', 'e', 'n', 'g', .Lhead_name_other
	EXPECT_FOLDED2 12(%r9), %eax, 't', 'h', .Lhead_name_other
	movl	$HEADER_CONTENT_LENGTH, %r9d
	jmp	.Lhead_value
.Lhead_name_range_len:
	EXPECT_FOLDED4 (%r9), %eax, 'r', 'a', 'n', 'g', .Lhead_name_other
	EXPECT_FOLDED1 4(%r9), %eax, 'e', .Lhead_name_other
	movl	$HEADER_RECORDED + ASM_FIELD_RANGE, %r9d
	jmp	.Lhead_value
.Lhead_name_accept_len:
	EXPECT_FOLDED4 (%r9), %eax, 'a', 'c', 'c', 'e', .Lhead_name_other
	EXPECT_FOLDED2 4(%r9), %eax, 'p', 't', .Lhead_name_other
	movl	$HEADER_RECORDED + ASM_FIELD_ACCEPT, %r9d
	jmp	.Lhead_value
.Lhead_name_if_range_len:
	EXPECT_FOLDED4 (%r9), %eax, 'i', 'f', '-', 'r', .Lhead_name_other
	EXPECT_FOLDED4 4(%r9), %eax, 'a', 'n', 'g', 'e', .Lhead_name_other
	movl	$HEADER_RECORDED + ASM_FIELD_IF_RANGE, %r9d
	jmp	.Lhead_value
.Lhead_name_if_none_match_len:
	EXPECT_FOLDED4 (%r9), %eax, 'i', 'f', '-', 'n', .Lhead_name_other
	EXPECT_FOLDED4 4(%r9), %eax, 'o', 'n', 'e', '-', .Lhead_name_other
	EXPECT_FOLDED4 8(%r9), %eax, 'm', 'a', 't', 'c', .Lhead_name_other
	EXPECT_FOLDED1 12(%r9), %eax, 'h', .Lhead_name_other
	movl	$HEADER_RECORDED + ASM_FIELD_IF_NONE_MATCH, %r9d
	jmp	.Lhead_value
.Lhead_name_accept_encoding_len:	/* bytes 0-11, then 11-14 (11 twice) */
	EXPECT_FOLDED4 (%r9), %eax, 'a', 'c', 'c', 'e', .Lhead_name_other
	EXPECT_FOLDED4 4(%r9), %eax, 'p', 't', '-', 'e', .Lhead_name_other
	EXPECT_FOLDED4 8(%r9), %eax, 'n', 'c', 'o', 'd', .Lhead_name_other
	EXPECT_FOLDED4 11(%r9), %eax, 'd', 'i', 'n', 'g', .Lhead_name_other
	movl	$HEADER_RECORDED + ASM_FIELD_ACCEPT_ENCODING, %r9d
	jmp	.Lhead_value
.Lhead_name_if_modified_since_len:
	EXPECT_FOLDED4 (%r9), %eax, 'i', 'f', '-', 'm', .Lhead_name_other
	EXPECT_FOLDED4 4(%r9), %eax, 'o', 'd', 'i', 'f', .Lhead_name_other
	EXPECT_FOLDED4 8(%r9), %eax, 'i', 'e', 'd', '-', .Lhead_name_other
	EXPECT_FOLDED4 12(%r9), %eax, 's', 'i', 'n', 'c', .Lhead_name_other
	EXPECT_FOLDED1 16(%r9), %eax, 'e', .Lhead_name_other
	movl	$HEADER_RECORDED + ASM_FIELD_IF_MODIFIED_SINCE, %r9d
	jmp	.Lhead_value
.Lhead_name_transfer_encoding_len:	/* or if-modified-since, as long */
	EXPECT_FOLDED4 (%r9), %eax, 't', 'r', 'a', 'n', .Lhead_name_if_modified_since_len
	EXPECT_FOLDED4 4(%r9), %eax, 's', 'f', 'e', 'r', .Lhead_name_other
	EXPECT_FOLDED4 8(%r9), %eax, '-', 'e', 'n', 'c', .Lhead_name_other
	EXPECT_FOLDED4 12(%r9), %eax, 'o', 'd', 'i', 'n', .Lhead_name_other
	EXPECT_FOLDED1 16(%r9), %eax, 'g', .Lhead_name_other
	movl	$HEADER_TRANSFER_ENCODING, %r9d

	/* OWS field-value OWS CRLF. The value starts at the first non-OWS byte and runs
	 * over field-value bytes (OWS included); a byte that is neither must be the CR. */
.Lhead_value:				/* rcx = index of the colon */
	ADVANCE_OVER ASM_CC_OWS, %rsi, .Lhead_partial
	movq	%rcx, %r10
	testb	$ASM_CC_VALUE, (%r8,%rax)
	jz	.Lhead_value_end
	/* Long values (User-Agent, Accept, Cookie) are scanned 16 bytes at a time with SSE2
	 * while 16 whole bytes follow buf[i]; the rest byte by byte. A byte is a field-value
	 * byte when it is above 0x1F as a signed byte (0x20-0x7F; 0x80-0xFF are negative)
	 * and not DEL, or is HTAB: exactly the bytes char_class.c marks CC_VALUE. Measured
	 * with callgrind: parse_headers on curl's head 492 -> 386 instructions, on a
	 * browser's 4550 -> 2751, on "Host: x" 98 -> 102 (three more for the length check).
	 * xmm0-xmm5 are caller-saved scratch in the System V ABI. */
	leaq	1+SSE_BLOCK(%rcx), %r11
	cmpq	%rsi, %r11
	ja	.Lhead_value_bytes
	movdqa	.Lbytes_1f(%rip), %xmm2
	movdqa	.Lbytes_del(%rip), %xmm3
	movdqa	.Lbytes_htab(%rip), %xmm4
.Lhead_value_block:			/* buf[i] is a value byte, i + 1 + 16 <= len */
	movdqu	1(%rdi,%rcx), %xmm0
	movdqa	%xmm0, %xmm1
	pcmpgtb	%xmm2, %xmm1		/* 0x20-0x7F */
	movdqa	%xmm0, %xmm5
	pcmpeqb	%xmm4, %xmm5		/* HTAB */
	pcmpeqb	%xmm3, %xmm0		/* DEL, which is inside 0x20-0x7F ... */
	pxor	%xmm0, %xmm1		/* ... so xor takes it out */
	por	%xmm5, %xmm1
	pmovmskb %xmm1, %eax		/* bit k set: byte i + 1 + k is a value byte */
	xorl	$SSE_ALL_BYTES_MASK, %eax
	jnz	.Lhead_value_block_end
	addq	$SSE_BLOCK, %rcx
	leaq	1+SSE_BLOCK(%rcx), %r11
	cmpq	%rsi, %r11
	jbe	.Lhead_value_block
.Lhead_value_bytes:
	ADVANCE_OVER ASM_CC_VALUE, %rsi, .Lhead_partial
	jmp	.Lhead_value_end
.Lhead_value_block_end:
	bsfl	%eax, %eax		/* the first byte that is not a value byte */
	leaq	1(%rcx,%rax), %rcx
	movzbl	(%rdi,%rcx), %eax
.Lhead_value_end:			/* eax = buf[i], not a field-value byte */
	cmpl	$'\r', %eax
	jne	.Lhead_bad		/* bare LF, control byte, DEL, 8-bit byte */
	EXPECT_LF_AFTER_CR .Lhead_partial, .Lhead_bad
	movq	%rcx, %r11		/* value end, then trailing OWS trimmed */
.Lhead_trim:
	cmpq	%r10, %r11
	jbe	.Lhead_trimmed
	movzbl	-1(%rdi,%r11), %eax
	testb	$ASM_CC_OWS, (%r8,%rax)
	jz	.Lhead_trimmed
	decq	%r11
	jmp	.Lhead_trim
.Lhead_trimmed:
	addq	$CRLF_LEN, %rcx		/* the next line */

	/* Act on the header: the value is [r10, r11) of buf. */
	cmpl	$HEADER_OTHER, %r9d
	je	.Lhead_line
	cmpl	$HEADER_RECORDED, %r9d
	jae	.Lhead_record
	cmpl	$HEADER_HOST, %r9d
	je	.Lhead_host
	cmpl	$HEADER_CONTENT_LENGTH, %r9d
	je	.Lhead_content_length
	cmpl	$HEADER_CONNECTION, %r9d
	je	.Lhead_connection
	jmp	.Lhead_bad		/* Transfer-Encoding: the daemon reads no bodies */

	/* A recorded field: append {at r10, len r11 - r10, id r9 - HEADER_RECORDED} to
	 * out->field[] and set the id's bit in out->fields_seen; BAD when the value ends past
	 * 16-bit offsets or the table is full (as in C: neither happens within the 16 KiB
	 * the daemon parses). */
.Lhead_record:
	cmpq	$ASM_FIELD_LINE_END_MAX, %r11
	ja	.Lhead_bad
	movl	ASM_HEADER_BLOCK_FIELD_COUNT(%rdx), %eax
	cmpl	$ASM_HEADER_FIELD_LINES_MAX, %eax
	je	.Lhead_bad
	incl	ASM_HEADER_BLOCK_FIELD_COUNT(%rdx)
	leaq	(%rax,%rax,2), %rax	/* line i is at ASM_FIELD_LINE_SIZE * i = 2 * 3i */
	leaq	ASM_HEADER_BLOCK_FIELD(%rdx,%rax,2), %rax
	movw	%r10w, ASM_FIELD_LINE_AT(%rax)
	subl	%r10d, %r11d
	movw	%r11w, ASM_FIELD_LINE_LEN(%rax)
	subl	$HEADER_RECORDED, %r9d
	movb	%r9b, ASM_FIELD_LINE_ID(%rax)
	movzbl	ASM_HEADER_BLOCK_FIELDS_SEEN(%rdx), %eax
	btsl	%r9d, %eax
	movb	%al, ASM_HEADER_BLOCK_FIELDS_SEEN(%rdx)
	jmp	.Lhead_line

	/* Host: the second one is BAD (the count is still raised, as in C); the value
	 * must pass http_host_valid(buf + r10, r11 - r10). Its place is kept for --site
	 * (host_at, host_len: the block fits 16 bits). */
.Lhead_host:
	incb	ASM_HEADER_BLOCK_HOST_COUNT(%rdx)
	cmpb	$1, ASM_HEADER_BLOCK_HOST_COUNT(%rdx)
	jne	.Lhead_bad
	movw	%r10w, ASM_HEADER_BLOCK_HOST_AT(%rdx)
	movl	%r11d, %eax
	subl	%r10d, %eax
	movw	%ax, ASM_HEADER_BLOCK_HOST_LEN(%rdx)
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%r8
	movq	%r11, %rsi
	subq	%r10, %rsi
	addq	%r10, %rdi
	CALL_C(http_host_valid)
	popq	%r8
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	testl	%eax, %eax
	jz	.Lhead_bad
	jmp	.Lhead_line

	/* Content-Length: 1-19 digits, nothing else; a repeat must carry the same value. */
.Lhead_content_length:
	movq	%r11, %rax
	subq	%r10, %rax
	jz	.Lhead_bad
	cmpq	$ASM_HTTP_CONTENT_LENGTH_MAX, %rax
	ja	.Lhead_bad
	xorl	%r9d, %r9d		/* the value; 19 digits cannot overflow 64 bits */
.Lhead_digit:
	movzbl	(%rdi,%r10), %eax
	testb	$ASM_CC_DIGIT, (%r8,%rax)
	jz	.Lhead_bad
	leaq	(%r9,%r9,4), %r9
	leaq	-'0'(%rax,%r9,2), %r9	/* r9 = r9 * 10 + digit */
	incq	%r10
	cmpq	%r11, %r10
	jne	.Lhead_digit
	cmpb	$0, ASM_HEADER_BLOCK_HAS_CONTENT_LENGTH(%rdx)
	je	.Lhead_store_length
	cmpq	ASM_HEADER_BLOCK_CONTENT_LENGTH(%rdx), %r9
	jne	.Lhead_bad		/* two different lengths */
.Lhead_store_length:
	movq	%r9, ASM_HEADER_BLOCK_CONTENT_LENGTH(%rdx)
	movb	$1, ASM_HEADER_BLOCK_HAS_CONTENT_LENGTH(%rdx)
	jmp	.Lhead_line

	/* Connection: a comma-separated token list; "close" outranks "keep-alive" outranks
	 * nothing, so each token can raise out->connection directly: close is stored
	 * outright, keep-alive only over none (the C code keeps the maximum the same way,
	 * and nothing can return between the tokens of one line). r9 = token start. */
.Lhead_connection:
.Lhead_token_gap:
	cmpq	%r11, %r10
	jae	.Lhead_line
	movzbl	(%rdi,%r10), %eax
	cmpl	$',', %eax
	je	.Lhead_gap_byte
	testb	$ASM_CC_OWS, (%r8,%rax)
	jz	.Lhead_token
.Lhead_gap_byte:
	incq	%r10
	jmp	.Lhead_token_gap
.Lhead_token:
	movq	%r10, %r9
.Lhead_token_byte:
	incq	%r10
	cmpq	%r11, %r10
	jae	.Lhead_token_end
	movzbl	(%rdi,%r10), %eax
	cmpl	$',', %eax
	je	.Lhead_token_end
	testb	$ASM_CC_OWS, (%r8,%rax)
	jz	.Lhead_token_byte
.Lhead_token_end:			/* the token is [r9, r10) */
	movq	%r10, %rax
	subq	%r9, %rax
	addq	%rdi, %r9
	cmpq	$CLOSE_LEN, %rax
	je	.Lhead_token_close_len
	cmpq	$KEEP_ALIVE_LEN, %rax
	jne	.Lhead_token_gap
	EXPECT_FOLDED4 (%r9), %eax, 'k', 'e', 'e', 'p', .Lhead_token_gap
	EXPECT_FOLDED4 4(%r9), %eax, '-', 'a', 'l', 'i', .Lhead_token_gap
	EXPECT_FOLDED2 8(%r9), %eax, 'v', 'e', .Lhead_token_gap
	cmpb	$ASM_HTTP_CONNECTION_NONE, ASM_HEADER_BLOCK_CONNECTION(%rdx)
	jne	.Lhead_token_gap
	movb	$ASM_HTTP_CONNECTION_KEEP_ALIVE, ASM_HEADER_BLOCK_CONNECTION(%rdx)
	jmp	.Lhead_token_gap
.Lhead_token_close_len:
	EXPECT_FOLDED4 (%r9), %eax, 'c', 'l', 'o', 's', .Lhead_token_gap
	EXPECT_FOLDED1 4(%r9), %eax, 'e', .Lhead_token_gap
	movb	$ASM_HTTP_CONNECTION_CLOSE, ASM_HEADER_BLOCK_CONNECTION(%rdx)
	jmp	.Lhead_token_gap

.Lhead_end:				/* buf[i] is CR at the start of a line: the empty line */
	EXPECT_LF_AFTER_CR .Lhead_partial, .Lhead_bad
	RETURN_COMPLETE_AFTER_CRLF ASM_HEADER_BLOCK_BLOCK_LEN
.Lhead_name_stop:			/* i reached r10: name too long, or out of bytes */
	movq	%rcx, %rax
	subq	%r9, %rax
	cmpq	$ASM_HTTP_HEADER_NAME_MAX, %rax
	ja	.Lhead_bad
.Lhead_partial:
	movl	$ASM_PARSE_PARTIAL, %eax
	ret
.Lhead_bad:
	movl	$ASM_PARSE_BAD, %eax
	ret
FUNCTION_END(parse_headers)

	/* The SSE2 field-value scan's constants: one byte repeated 16 times. */
	.section .rodata.SYM(parse_headers_value_bytes), "a", @progbits
	.p2align 4
.Lbytes_1f:
	.fill	SSE_BLOCK, 1, 0x1F
.Lbytes_del:
	.fill	SSE_BLOCK, 1, 0x7F
.Lbytes_htab:
	.fill	SSE_BLOCK, 1, '\t'

	.section .note.GNU-stack, "", @progbits
