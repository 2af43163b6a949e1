/* fill_split: what splitting the snapshot's fill over processes would buy (issue 29,
 * benchmarks/reports/2026-12-06-loader.md, the 2026-12-06 section). It lists a tree's
 * regular files once, gives each an offset as the loader does (back to back), then fills
 * a memfd from them by open, sendfile, close, five ways, and prints the wall time and
 * the CPU (its own and its children's) of each:
 *   one      one process, the memfd's pages allocated by sendfile (the loader before)
 *   falloc   one process, fallocate of the whole fill first (the loader after)
 *   two      two processes, every other file each, into the same memfd (the second
 *            through its own description, opened by /proc/self/fd/N: sendfile writes at
 *            the description's offset), fallocate first
 *   two-nf   the same without fallocate
 *   two-fds  two processes, each into a memfd of its own (half the files each), no
 *            fallocate (compare with two-nf)
 * A tool, not daemon code: it uses libc.
 *
 *   fill_split TREE [ROUNDS]   (ROUNDS rounds of the five, in turn; medians printed) */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FILES_MAX 1000000 /* more than any tree this is run on */
#define ROUNDS_MAX 15
#define WAYS 5

static char **names;
static long *offsets, *sizes;
static long count, total;

static void list(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)) && count < FILES_MAX) {
		if (e->d_name[0] == '.')
			continue;
		char *path;
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0)
			exit(2);
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			list(path);
			free(path);
		} else if (S_ISREG(st.st_mode)) {
			names[count] = path;
			sizes[count] = st.st_size;
			offsets[count++] = total;
			total += st.st_size;
		}
	}
	if (d)
		closedir(d);
}

/* Copies files from, from + step, ... into memfd `to` at their offsets (less base). */
static void fill(int to, long from, long step, long base)
{
	long at = -1;
	for (long i = from; i < count; i += step) {
		int fd = open(names[i], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (at != offsets[i] - base)
			lseek(to, offsets[i] - base, SEEK_SET);
		off_t o = 0;
		long r = sendfile(to, fd, &o, (size_t)sizes[i]);
		at = offsets[i] - base + (r > 0 ? r : 0);
		close(fd);
	}
}

static double seconds(struct timeval t)
{
	return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

static double cpu_now(void)
{
	struct rusage self, kids;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	return seconds(self.ru_utime) + seconds(self.ru_stime) + seconds(kids.ru_utime) +
	       seconds(kids.ru_stime);
}

static double wall_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int new_memfd(long bytes, int allocate)
{
	int fd = memfd_create("fill_split", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, bytes) != 0 || (allocate && fallocate(fd, 0, 0, bytes)))
		exit(2);
	return fd;
}

/* The second process of a two-way fill: the odd files, into its own description of
 * memfd (same), or into a memfd of its own. */
static void second(int memfd, int same, int allocate)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
	int to = same ? open(path, O_RDWR | O_CLOEXEC) : new_memfd(total, allocate);
	if (to < 0)
		exit(2);
	fill(to, 1, 2, 0);
	_exit(0);
}

/* One fill `way` (0..WAYS-1, the order of the comment above); *wall and *cpu its cost. */
static void one_fill(int way, double *wall, double *cpu)
{
	int procs = way >= 2 ? 2 : 1, allocate = way == 1 || way == 2;
	double w0 = wall_now(), c0 = cpu_now();
	int memfd = new_memfd(total, allocate);
	pid_t pid = procs == 2 ? fork() : 0;
	if (procs == 2 && pid == 0)
		second(memfd, way != 4, allocate);
	fill(memfd, 0, procs, 0);
	if (procs == 2)
		waitpid(pid, 0, 0);
	*wall = wall_now() - w0;
	*cpu = cpu_now() - c0;
	close(memfd);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	static const char *way_name[WAYS] = {"one", "falloc", "two", "two-nf", "two-fds"};
	int rounds = argc > 2 ? atoi(argv[2]) : 3;
	if (argc < 2 || rounds < 1 || rounds > ROUNDS_MAX)
		return fprintf(stderr, "usage: fill_split TREE [ROUNDS <= 15]\n"), 2;
	names = calloc(FILES_MAX, sizeof *names);
	offsets = calloc(FILES_MAX, sizeof *offsets);
	sizes = calloc(FILES_MAX, sizeof *sizes);
	list(argv[1]);
	double wall[WAYS][ROUNDS_MAX], cpu[WAYS][ROUNDS_MAX], w, c;
	for (int r = 0; r < rounds; r++)
		for (int way = 0; way < WAYS; way++) {
			one_fill(way, &w, &c);
			wall[way][r] = w;
			cpu[way][r] = c;
		}
	printf("%ld files, %.1f MB; medians of %d rounds\n\n", count, total / 1e6, rounds);
	printf("| fill | wall (s) | CPU (s) | MB/s (wall) | MB per CPU s |\n");
	printf("| --- | ---: | ---: | ---: | ---: |\n");
	for (int way = 0; way < WAYS; way++) {
		double mw = median(wall[way], rounds), mc = median(cpu[way], rounds);
		printf("| %s | %.3f | %.3f | %.0f | %.0f |\n", way_name[way], mw, mc,
		       total / 1e6 / mw, total / 1e6 / mc);
	}
	return 0;
}
