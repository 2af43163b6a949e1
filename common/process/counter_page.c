/* The counter page (see counter_page.h). */
#include "common/process/counter_page.h"

#include <linux/mman.h> /* PROT_*, MAP_* */

#include "common/base/clock.h"
#include "common/base/console.h"
#include "common/base/counters.h"
#include "common/base/span.h"
#include "common/base/sys.h"
#include "common/process/activation.h"

/* Maps fd (or, when fd < 0, fresh shared anonymous memory) over the counter block;
 * with keep, the block's counters are copied into it (a new page), else the page's own
 * stay (an adopted one). Returns 0 or -errno (the block is then unchanged). */
static long remap_block(int fd, int keep)
{
	/* The values while the page is replaced: the counters alone, so on the stack, not
	 * a page-aligned copy of the block. */
	uint64_t saved[COUNTER_COUNT];
	for (int i = 0; i < COUNTER_COUNT; i++)
		saved[i] = apollod_counters.value[i];
	int flags = MAP_SHARED | MAP_FIXED | (fd < 0 ? MAP_ANONYMOUS : 0);
	long m = sys_mmap(&apollod_counters, sizeof(apollod_counters), PROT_READ | PROT_WRITE,
			  flags, fd, 0);
	if (sys_is_error(m))
		return m;
	for (int i = 0; i < COUNTER_COUNT && keep; i++)
		apollod_counters.value[i] = saved[i];
	return 0;
}

long counters_share(void)
{
	return apollod_counters.layout ? 0 : remap_block(-1, 1);
}

long counter_page_create(void)
{
	long fd = sys_memfd_create(COUNTER_PAGE_NAME, K_MFD_CLOEXEC);
	if (sys_is_error(fd))
		return fd;
	long r = sys_ftruncate((int)fd, sizeof(apollod_counters));
	if (!sys_is_error(r))
		r = remap_block((int)fd, 1);
	if (sys_is_error(r)) {
		sys_close((int)fd);
		return r;
	}
	apollod_counters.layout = COUNTERS_LAYOUT;
	apollod_counters.count = COUNTER_COUNT;
	counter_set(C_start_time_seconds, clock_now_unix_s());
	return fd;
}

/* The adopted page's header is another layout's: every word cleared but the service's
 * start, and this binary's header written, with one line. */
static void start_afresh(void)
{
	uint64_t started = counter_read(C_start_time_seconds);
	write_stderr(LITERAL("apollod: counters: the page has another layout; starting afresh\n"));
	for (uint32_t i = 0; i < COUNTERS_WORDS - COUNTERS_HEADER_WORDS; i++)
		apollod_counters.value[i] = 0;
	apollod_counters.layout = COUNTERS_LAYOUT;
	apollod_counters.count = COUNTER_COUNT;
	counter_set(C_start_time_seconds, started);
}

void counter_page_adopt(char **envp)
{
	const char *v = env_value(envp, LITERAL(COUNTER_PAGE_ENV));
	long fd = v ? env_decimal(v) : -1;
	if (fd <= K_STDERR)
		return;
	long r = remap_block((int)fd, 0);
	sys_close((int)fd);
	if (sys_is_error(r)) {
		console_fail("counters: mmap of the supervisor's page", 0, 0, r);
		return;
	}
	if (apollod_counters.layout != COUNTERS_LAYOUT)
		start_afresh();
	else if (apollod_counters.count < COUNTER_COUNT)
		apollod_counters.count = COUNTER_COUNT; /* appended ones start at 0 */
}
