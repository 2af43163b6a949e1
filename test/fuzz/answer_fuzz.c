/* libFuzzer target: the pure answer function (common/answer/answer.h). The first input byte
 * sets the connection's state (buffer full, peer EOF, queue busy, a file cache that finds
 * nothing, a fake file or a fake directory, and whether the file has precompressed
 * variants); the rest is parsed as a request and answered from the fields the parser
 * recorded (validators, Range, Accept-Encoding). Checks the decision's contract: fields in
 * range, consumed within the input, a close form for every 400 and for bodies it will
 * not skip, counters that exist, a 206 slice inside the file, a representation of it;
 * and against the recorded lines: each lies inside the header block, a 304 needs an
 * If-None-Match or If-Modified-Since line, a 206 or 416 a Range line, a precompressed
 * representation an Accept-Encoding line. */
#include "common/answer/answer.h"
#include "test/fuzz/fuzz_common.h"

#define FAKE_ETAG "\"a-1-2\""
#define FAKE_SIZE 100
#define FAKE_MTIME 784111777 /* Sun, 06 Nov 1994 08:49:37 GMT */
#define FAKE_NOW 1796083200  /* 2026-12-01 */
static char fake_body[FAKE_SIZE];
/* What the fake cache finds, and its br, zstd and gzip representations. */
#define FAKE_VARIANT(e, bytes)                                                           \
	[e - 1] = {.body = fake_body, .size = (bytes), .mtime = FAKE_MTIME, .etag = FAKE_ETAG, \
		   .etag_len = sizeof(FAKE_ETAG) - 1, .encoding = e}
static struct cached_file fake_variants[FILE_VARIANTS] = {
	FAKE_VARIANT(FILE_ENCODING_BR, FAKE_SIZE / 2),
	FAKE_VARIANT(FILE_ENCODING_ZSTD, FAKE_SIZE / 3),
	FAKE_VARIANT(FILE_ENCODING_GZIP, FAKE_SIZE / 4),
};
#undef FAKE_VARIANT
static struct cached_file fake_file = {.body = fake_body, .size = FAKE_SIZE,
				       .mtime = FAKE_MTIME, .etag = FAKE_ETAG,
				       .etag_len = sizeof(FAKE_ETAG) - 1};
static struct cached_file fake_directory = {.kind = CACHED_DIRECTORY};

static uint64_t fixed_now(void)
{
	return FAKE_NOW;
}

/* Returns 1 when f is the fake file or one of its representations. */
static int is_fake_file(const struct cached_file *f)
{
	return f == &fake_file || (f >= fake_variants && f < fake_variants + FILE_VARIANTS);
}

static const struct cached_file *find_nothing(const char *path, size_t len)
{
	(void)path;
	(void)len;
	return 0;
}

static const struct cached_file *find_everything(const char *path, size_t len)
{
	(void)path;
	(void)len;
	return &fake_file;
}

static const struct cached_file *find_directories(const char *path, size_t len)
{
	(void)path;
	(void)len;
	return &fake_directory;
}

/* Checks a's fields against in (see struct answer). */
static void check_answer(const struct answer_input *in, const struct answer *a)
{
	FUZZ_CHECK((a->kind <= ANSWER_ERROR_PAGE || a->kind == ANSWER_OPTIONS) &&
		   a->form < CONN_FORM_COUNT);
	if (a->kind == ANSWER_LATER) {
		FUZZ_CHECK(in->queue_busy && a->consumed == 0);
		return;
	}
	FUZZ_CHECK(a->consumed <= in->buffered);
	FUZZ_CHECK(a->status_counter < COUNTER_COUNT);
	FUZZ_CHECK(a->method_counter < COUNTER_COUNT || a->method_counter == ANSWER_NO_COUNTER);
	FUZZ_CHECK(a->cache_counter < COUNTER_COUNT || a->cache_counter == ANSWER_NO_COUNTER);
	FUZZ_CHECK(a->response < STATIC_RESPONSE_COUNT);
	int file_kind = a->kind == ANSWER_FILE || a->kind == ANSWER_NOT_MODIFIED ||
			a->kind == ANSWER_PARTIAL || a->kind == ANSWER_UNSATISFIABLE;
	FUZZ_CHECK(!file_kind || is_fake_file(a->file));
	if (a->kind == ANSWER_PARTIAL) /* never HEAD, and inside the representation */
		FUZZ_CHECK(!a->head_only && a->first <= a->last && a->last < a->file->size);
	FUZZ_CHECK(a->form == CONN_FORM_KEEP_ALIVE || a->skip == 0);
	FUZZ_CHECK(a->skip <= ANSWER_BODY_SKIP_MAX);
	if (in->outcome == PARSE_BAD)
		FUZZ_CHECK(a->form == CONN_FORM_CLOSE && a->response == RESP_BAD_REQUEST &&
			   a->consumed == in->buffered);
	if (in->outcome == PARSE_TARGET_TOO_LONG)
		FUZZ_CHECK(a->form == CONN_FORM_CLOSE && a->response == RESP_URI_TOO_LONG &&
			   a->consumed == in->buffered);
	if (in->peer_eof)
		FUZZ_CHECK(!a->linger);
	if (a->kind == ANSWER_OPTIONS) /* its fields are looked up by the request's path */
		FUZZ_CHECK(in->request->line.method == HTTP_METHOD_OPTIONS &&
			   a->target == in->request->line.target && a->path_len >= 1 &&
			   a->target[0] == '/' && a->method_counter == ANSWER_NO_COUNTER);
	if (a->kind == ANSWER_REDIRECT) /* the Location is the request's own target */
		FUZZ_CHECK(in->find_file && a->target == in->request->line.target &&
			   a->path_len >= 2 && a->path_len <= a->target_len &&
			   a->target[a->path_len - 1] != '/' &&
			   a->target_len == in->request->line.target_len);
}

/* Checks a complete request's recorded lines against the block they came from and the
 * answer a that read them. */
static void check_recorded(const struct answer_input *in, const struct answer *a)
{
	const struct header_block *h = &in->request->headers;
	for (uint32_t i = 0; i < h->field_count; i++) /* before the final CRLF */
		FUZZ_CHECK(h->field[i].at + h->field[i].len + 2u <= h->block_len &&
			   h->field[i].id < RECORDED_FIELD_COUNT);
	unsigned seen = h->fields_seen;
	if (a->kind == ANSWER_NOT_MODIFIED)
		FUZZ_CHECK(seen & (1u << FIELD_IF_NONE_MATCH | 1u << FIELD_IF_MODIFIED_SINCE));
	if (a->kind == ANSWER_PARTIAL || a->kind == ANSWER_UNSATISFIABLE)
		FUZZ_CHECK((seen & 1u << FIELD_RANGE) && !a->head_only);
	if (a->file && a->file != &fake_file && a->kind != ANSWER_LATER)
		FUZZ_CHECK(seen & 1u << FIELD_ACCEPT_ENCODING);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	uint8_t state = data[0];
	size_t len;
	const char *buf = fuzz_guarded_copy(data + 1, size - 1, &len);
	struct http_request req;
	enum parse_outcome r = parse_request(buf, len, &req);
	if (r == PARSE_PARTIAL) /* the connection waits, or answers 400 when it cannot */
		r = PARSE_BAD;
	for (int i = 0; i < FILE_VARIANTS; i++)
		fake_file.variant[i] = (state & 64) ? &fake_variants[i] : 0;
	struct answer_input in = {
		.request = &req,
		.fields = r == PARSE_COMPLETE ? buf + req.line.line_len : 0,
		.input = buf,
		.now = fixed_now,
		.find_file = !(state & 8)   ? 0
			     : state & 32 ? find_directories
			     : state & 16 ? find_everything
					  : find_nothing,
		.buffered = (uint32_t)len,
		.outcome = (uint8_t)r,
		.buffer_full = (state & 1) != 0,
		.peer_eof = (state & 2) != 0,
		.queue_busy = (state & 4) != 0,
	};
	struct answer a;
	answer_request(&in, &a);
	check_answer(&in, &a);
	if (r == PARSE_COMPLETE)
		check_recorded(&in, &a);
	return 0;
}
