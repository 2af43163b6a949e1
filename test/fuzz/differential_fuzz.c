/* libFuzzer target: the C parsers against the asm-hotpath tier's assembly
 * (variants/asm-hotpath, built with the asm_ prefix). On every input both must give the
 * same outcome and, when COMPLETE, the same spans and fields: the target as an offset
 * into the input, every length, method, version, Content-Length, Connection, Host count,
 * and the recorded field lines (fields_seen, and each line's offset, length and id).
 * The input ends against a PROT_NONE page, so an assembly over-read faults. Headers are
 * fed from every offset where a request line ended, and from offset 0. */
#include "common/http/http_parse.h"
#include "test/fuzz/fuzz_common.h"

enum parse_outcome asm_parse_request_line(const char *buf, size_t len, struct request_line *out);
enum parse_outcome asm_parse_headers(const char *buf, size_t len, struct header_block *out);

/* Compares both parsers' request lines of buf. Returns the line length when COMPLETE,
 * else 0. */
static size_t same_request_line(const char *buf, size_t len)
{
	struct request_line c, a;
	memset(&c, 0, sizeof(c));
	memset(&a, 0, sizeof(a));
	enum parse_outcome rc = parse_request_line(buf, len, &c);
	enum parse_outcome ra = asm_parse_request_line(buf, len, &a);
	FUZZ_CHECK(rc == ra);
	if (rc != PARSE_COMPLETE)
		return 0;
	FUZZ_CHECK(c.target - buf == a.target - buf);
	FUZZ_CHECK(c.target_len == a.target_len && c.path_len == a.path_len);
	FUZZ_CHECK(c.line_len == a.line_len);
	FUZZ_CHECK(c.method == a.method && c.version_minor == a.version_minor);
	return c.line_len;
}

/* Compares both parsers' header blocks of buf. */
static void same_headers(const char *buf, size_t len)
{
	static struct header_block c, a; /* 6 KiB each: off the fuzzer's stack */
	memset(&c, 0, sizeof(c));
	memset(&a, 0, sizeof(a));
	enum parse_outcome rc = parse_headers(buf, len, &c);
	enum parse_outcome ra = asm_parse_headers(buf, len, &a);
	FUZZ_CHECK(rc == ra);
	if (rc != PARSE_COMPLETE)
		return;
	FUZZ_CHECK(c.block_len == a.block_len && c.connection == a.connection);
	FUZZ_CHECK(c.has_content_length == a.has_content_length);
	FUZZ_CHECK(!c.has_content_length || c.content_length == a.content_length);
	FUZZ_CHECK(c.host_count == a.host_count);
	FUZZ_CHECK(c.fields_seen == a.fields_seen && c.field_count == a.field_count);
	for (uint32_t i = 0; i < c.field_count; i++)
		FUZZ_CHECK(c.field[i].at == a.field[i].at && c.field[i].len == a.field[i].len &&
			   c.field[i].id == a.field[i].id);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len;
	const char *buf = fuzz_guarded_copy(data, size, &len);
	size_t line_len = same_request_line(buf, len);
	same_headers(buf + line_len, len - line_len);
	if (line_len)
		same_headers(buf, len);
	return 0;
}
