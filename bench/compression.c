/* The compression decision's measurement (benchmarks/reports/2026-12-03-compression.md):
 * for the files named on the command line (or one per line on stdin), the bytes and the
 * CPU time of libdeflate gzip at levels 1, 6, 7, 8, 9 and 12, brotli (Debian's libbrotlienc) at
 * qualities 5, 6, 9 and 11, and zstd at levels 3, 9 and 19, each over every file once,
 * whole-buffer as the loader would. Prints one row per method: files, input bytes,
 * output bytes, ratio, saving over gzip-6 in bytes and percent, CPU seconds and MB/s.
 * Files under 256 bytes are skipped (the loader leaves them as stored). Host program
 * with libc; the compressors are linked statically. */
#include <brotli/encode.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#define MIN_BYTES 256
#define PATHS_MAX 100000

enum kind { GZIP, BROTLI, ZSTD };
struct method {
	const char *name;
	enum kind kind;
	int level;
	unsigned long long out;
	double seconds;
};

static struct method methods[] = {
	{"gzip-1", GZIP, 1, 0, 0},    {"gzip-6", GZIP, 6, 0, 0},    {"gzip-7", GZIP, 7, 0, 0},
	{"gzip-8", GZIP, 8, 0, 0},    {"gzip-9", GZIP, 9, 0, 0},
	{"gzip-12", GZIP, 12, 0, 0},  {"br-5", BROTLI, 5, 0, 0},    {"br-6", BROTLI, 6, 0, 0},
	{"br-9", BROTLI, 9, 0, 0},    {"br-11", BROTLI, 11, 0, 0},  {"zstd-3", ZSTD, 3, 0, 0},
	{"zstd-9", ZSTD, 9, 0, 0},    {"zstd-19", ZSTD, 19, 0, 0},
};
#define METHODS (sizeof(methods) / sizeof(methods[0]))

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Compresses in[0..len) with m into out[0..cap); returns the output length (0: failed). */
static size_t run(struct method *m, const unsigned char *in, size_t len, unsigned char *out,
		  size_t cap)
{
	if (m->kind == GZIP) {
		struct libdeflate_compressor *c = libdeflate_alloc_compressor(m->level);
		size_t n = libdeflate_gzip_compress(c, in, len, out, cap);
		libdeflate_free_compressor(c);
		return n;
	}
	if (m->kind == BROTLI) {
		size_t n = cap;
		int ok = BrotliEncoderCompress(m->level, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, len,
					       in, &n, out);
		return ok ? n : 0;
	}
	size_t n = ZSTD_compress(out, cap, in, len, m->level);
	return ZSTD_isError(n) ? 0 : n;
}

static unsigned char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *b = malloc(n > 0 ? n : 1);
	*len = fread(b, 1, n > 0 ? n : 0, f);
	fclose(f);
	return b;
}

static void measure(const char *path, unsigned long long *files, unsigned long long *in_bytes)
{
	size_t len;
	unsigned char *in = read_file(path, &len);
	if (!in || len < MIN_BYTES) {
		free(in);
		return;
	}
	size_t cap = len + len / 2 + 1024;
	unsigned char *out = malloc(cap);
	for (size_t i = 0; i < METHODS; i++) {
		double t0 = cpu_now();
		size_t n = run(&methods[i], in, len, out, cap);
		methods[i].seconds += cpu_now() - t0;
		methods[i].out += n ? n : len;
	}
	(*files)++;
	*in_bytes += len;
	free(out);
	free(in);
}

int main(int argc, char **argv)
{
	unsigned long long files = 0, in_bytes = 0;
	char line[4096];
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			measure(argv[i], &files, &in_bytes);
	} else {
		while (fgets(line, sizeof(line), stdin)) {
			line[strcspn(line, "\n")] = 0;
			measure(line, &files, &in_bytes);
		}
	}
	unsigned long long gzip6 = methods[1].out;
	printf("| method | files | input bytes | output bytes | ratio | saved vs gzip-6 | CPU s | MB/s |\n");
	printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (size_t i = 0; i < METHODS; i++) {
		struct method *m = &methods[i];
		printf("| %s | %llu | %llu | %llu | %.3f | %lld (%.1f%%) | %.2f | %.1f |\n", m->name,
		       files, in_bytes, m->out, (double)m->out / in_bytes,
		       (long long)gzip6 - (long long)m->out,
		       100.0 * ((double)gzip6 - m->out) / gzip6, m->seconds,
		       in_bytes / 1e6 / m->seconds);
	}
	return 0;
}
